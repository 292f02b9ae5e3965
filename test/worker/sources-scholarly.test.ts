import { describe, expect, it } from "vitest";
import crossrefFixture from "../fixtures/sources/crossref-works.json?raw";
import openalexFixture from "../fixtures/sources/openalex-works.json?raw";
import { api, newArchive } from "./helpers";
import { history, mockFetch, versionAt } from "./world";

type Json = Record<string, unknown> & {
  results?: Array<Record<string, unknown>>;
  message?: { items: Array<Record<string, unknown>> };
};

async function runSource(id: string, key: string, sid: string) {
  const res = await api("POST", `/v1/archives/${id}/sources/${sid}/run`, undefined, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.run;
}

/** Serve whatever `current` holds at the URL prefix. */
function serve(prefix: string) {
  const state = { body: "" };
  mockFetch({ [prefix]: () => new Response(state.body, { headers: { "content-type": "application/json" } }) });
  return state;
}

describe("OpenAlex source", () => {
  it("ingests works with cites edges, versions a changed work, skips an unchanged response, deprecates retractions", async () => {
    const { id, key } = await newArchive("oa");
    const src = await api(
      "POST",
      `/v1/archives/${id}/sources`,
      { kind: "openalex", query: "search=long-term memory" },
      key,
    );
    expect(src.status).toBe(201);
    const fixture = JSON.parse(openalexFixture) as Json;
    const works = fixture.results ?? [];
    const notRetracted: Json = { ...fixture, results: works.map((w) => ({ ...w, is_retracted: false })) };
    const served = serve("https://api.openalex.org/works");

    served.body = JSON.stringify(notRetracted);
    const r1 = await runSource(id, key, src.body.id);
    expect(r1.counts.created).toBeGreaterThanOrEqual(3);
    // W4398200915 carries the arXiv DOI: it lands on the arXiv id, with cites edges to OpenAlex ids.
    const h = await history(id, key, "arxiv:2405.14831");
    expect(h.status).toBe(200);
    // Three referenced works, one of them itself (dropped); W2741809807 resolves to its DOI chunk.
    const cites = h.body.edges.filter((e: { type: string }) => e.type === "cites").map((e: { dst: string }) => e.dst);
    expect(cites.sort()).toEqual(["doi:10.5555/retracted.2020", "doi:10.7717/peerj.4375"]);
    const r = await api(
      "GET",
      `/v1/archives/${id}/resolve?mention=${encodeURIComponent("https://openalex.org/W4398200915")}`,
      undefined,
      key,
    );
    expect(r.body.resolved?.entity).toBe("arxiv:2405.14831");

    expect((await runSource(id, key, src.body.id)).status).toBe("unchanged");

    const changed = structuredClone(notRetracted);
    const peer = (changed.results ?? []).find((w) => String(w.id).endsWith("W2741809807")) as Record<string, unknown>;
    peer.title = peer.display_name = "The state of OA: a large-scale analysis of Open Access (revised)";
    served.body = JSON.stringify(changed);
    const r3 = await runSource(id, key, src.body.id);
    expect(r3.counts).toMatchObject({ updated: 1 });

    const before = new Date().toISOString();
    await new Promise((res) => setTimeout(res, 5));
    const retracted = structuredClone(changed);
    served.body = JSON.stringify(retracted).replace(
      '"is_retracted":false,"title":"A Retracted',
      '"is_retracted":true,"title":"A Retracted',
    );
    const withFlag = JSON.parse(served.body) as Json;
    for (const w of withFlag.results ?? []) if (String(w.id).endsWith("W3001234567")) w.is_retracted = true;
    served.body = JSON.stringify(withFlag);
    const r4 = await runSource(id, key, src.body.id);
    expect(r4.counts).toMatchObject({ deprecated: 1 });
    expect(await versionAt(id, key, "doi:10.5555/retracted.2020", before)).toBe(1);
    expect(
      await versionAt(id, key, "doi:10.5555/retracted.2020", new Date(Date.now() + 1000).toISOString()),
    ).toBeNull();
  });
});

describe("Crossref source", () => {
  it("ingests works with references, deprecates the target of a retraction notice", async () => {
    const { id, key } = await newArchive("cr");
    const src = await api("POST", `/v1/archives/${id}/sources`, { kind: "crossref", query: "query=memory" }, key);
    expect(src.status, JSON.stringify(src.body)).toBe(201);
    const fixture = JSON.parse(crossrefFixture) as Json;
    const items = fixture.message?.items ?? [];
    const isNotice = (w: Record<string, unknown>) => Array.isArray(w["update-to"]);
    // Before the retraction: the original without its updated-by record, no notices.
    const original = items.filter((w) => !isNotice(w)).map(({ "updated-by": _u, ...w }) => w);
    const served = serve("https://api.crossref.org/works");

    served.body = JSON.stringify({ ...fixture, message: { ...fixture.message, items: original } });
    const r1 = await runSource(id, key, src.body.id);
    expect(r1.counts.created).toBeGreaterThanOrEqual(3);
    expect((await history(id, key, "doi:10.5555/retracted.2019")).status).toBe(200);
    expect((await runSource(id, key, src.body.id)).status).toBe("unchanged");

    const before = new Date().toISOString();
    await new Promise((res) => setTimeout(res, 5));
    served.body = JSON.stringify(fixture);
    const r2 = await runSource(id, key, src.body.id);
    expect(r2.counts.deprecated).toBeGreaterThanOrEqual(1);
    const h = await history(id, key, "doi:10.5555/retracted.2019");
    expect(h.body.deprecated_by).toBe("doi:10.5555/notice.retraction.1");
    expect(
      h.body.edges.some(
        (e: { type: string; dst: string }) => e.type === "deprecated-by" && e.dst === "doi:10.5555/notice.retraction.1",
      ),
    ).toBe(true);
    expect(await versionAt(id, key, "doi:10.5555/retracted.2019", before)).toBe(1);
    expect(
      await versionAt(id, key, "doi:10.5555/retracted.2019", new Date(Date.now() + 1000).toISOString()),
    ).toBeNull();
  });
});

describe("GitHub repository source", () => {
  it("syncs a path: changed blobs become versions, an unchanged commit fetches nothing, removed files are deprecated", async () => {
    const { id, key } = await newArchive("ghs");
    const src = await api(
      "POST",
      `/v1/archives/${id}/sources`,
      { kind: "github", location: "acme/memory/src@main" },
      key,
    );
    expect(src.status, JSON.stringify(src.body)).toBe(201);
    const repo = {
      commit: "1".repeat(40),
      date: "2026-11-01T10:00:00Z",
      files: {
        "src/a.ts": "export function alpha(): number {\n  return 1;\n}\n",
        "src/b.py": 'def beta():\n    """Beta."""\n    return 2\n',
      } as Record<string, string>,
    };
    const blob = (p: string) => `${p.length}${(repo.files[p] ?? "").length}`.padEnd(40, "0");
    mockFetch({
      "https://api.github.com/repos/acme/memory/commits/": () =>
        Response.json({ sha: repo.commit, commit: { committer: { date: repo.date }, tree: { sha: repo.commit } } }),
      "https://api.github.com/repos/acme/memory/git/trees/": () =>
        Response.json({
          sha: repo.commit,
          truncated: false,
          tree: [
            { path: "README.md", type: "blob", mode: "100644", sha: "f".repeat(40), size: 10 },
            ...Object.keys(repo.files).map((p) => ({
              path: p,
              type: "blob",
              mode: "100644",
              sha: blob(p),
              size: (repo.files[p] ?? "").length,
            })),
          ],
        }),
      "https://api.github.com/repos/acme/memory/contents/": (req) => {
        const p = decodeURIComponent(new URL(req.url).pathname.replace("/repos/acme/memory/contents/", ""));
        const body = repo.files[p];
        return body === undefined ? new Response("Not Found", { status: 404 }) : new Response(body);
      },
    });
    const r1 = await runSource(id, key, src.body.id);
    expect(r1.counts, JSON.stringify(r1)).toMatchObject({ created: 2 });
    expect(Date.parse((await history(id, key, "gh:acme/memory/src/a.ts")).body.versions[0].valid_from)).toBe(
      Date.parse(repo.date),
    );

    expect((await runSource(id, key, src.body.id)).status).toBe("not_modified");

    repo.commit = "2".repeat(40);
    repo.date = "2026-11-02T10:00:00Z";
    repo.files["src/a.ts"] = "export function alpha(): number {\n  return 42;\n}\n\nexport const ALPHA = 42;\n";
    delete repo.files["src/b.py"];
    const r3 = await runSource(id, key, src.body.id);
    expect(r3.counts).toMatchObject({ updated: 1, deprecated: 1 });
    expect(await versionAt(id, key, "gh:acme/memory/src/a.ts", "2026-11-01T12:00:00Z")).toBe(1);
    expect(await versionAt(id, key, "gh:acme/memory/src/b.py", "2026-11-01T12:00:00Z")).toBe(1);
    expect(await versionAt(id, key, "gh:acme/memory/src/b.py", "2026-11-03T00:00:00Z")).toBeNull();
  });
});
