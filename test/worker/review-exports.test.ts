/** Exports carry review statuses; the HTML export is self-contained and escaped; collection and subtree exports. */

import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

async function get(path: string, key: string) {
  const res = await WORKER.fetch(`http://paperguru.test${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** CSV rows; the fixtures' fields hold no quoted commas or line breaks except where a test says. */
const csvRows = (t: string) =>
  t
    .trim()
    .split("\r\n")
    .map((l) => l.split(","));

const HOSTILE = `Tricky <img src=x onerror=alert(1)> & "quotes" <script>alert(2)</script>`;

async function build() {
  const a = await newArchive("rexp");
  const art = (id: string, kind: string, title: string, extra: Record<string, unknown> = {}) => ({
    id,
    kind,
    title,
    content: `${title}. It is described here with enough words to be a chunk.`,
    valid_from: "2024-01-01",
    ...extra,
  });
  const res = await api(
    "POST",
    `/v1/archives/${a.id}/ingest`,
    {
      artifacts: [
        art("paper:alpha", "paper", "Alpha retrieval with graphs"),
        art("paper:beta", "paper", HOSTILE),
        art("paper:gamma", "paper", "Gamma summaries"),
        art("section:alpha-1", "section", "Alpha method", { edges: [{ type: "part-of", target: "paper:alpha" }] }),
        art("note:reading", "note", "Reading list", {
          edges: [
            { type: "cites", target: "paper:alpha" },
            { type: "cites", target: "paper:beta" },
          ],
        }),
      ],
    },
    a.key,
  );
  expect(res.status).toBe(200);
  const review = async (b: Record<string, unknown>) =>
    expect((await api("POST", `/v1/archives/${a.id}/review`, b, a.key)).status).toBe(201);
  await review({ op: "verify", chunk: "paper:alpha", at: "2024-03-01" });
  await review({ op: "flag", chunk: "paper:beta", reason: "title <b>garbled</b>", at: "2024-03-01" });
  await review({
    op: "flag",
    edge: { from: "note:reading", type: "cites", to: "paper:beta" },
    reason: "off topic",
    at: "2024-03-01",
  });
  return a;
}

describe("exports with review statuses", () => {
  it("csv, markdown, bibtex and csljson carry each chunk's status as of the export time", async () => {
    const a = await build();
    const csv = csvRows((await get(`/v1/archives/${a.id}/export?format=csv`, a.key)).text);
    const col = csv[0]?.indexOf("review_status") ?? -1;
    expect(col).toBeGreaterThan(0);
    const status = Object.fromEntries(csv.slice(1).map((r) => [r[0], r[r.length - 1]]));
    expect(status).toMatchObject({
      "paper:alpha": "human-verified",
      "paper:beta": "flagged",
      "paper:gamma": "auto-generated",
    });
    const early = csvRows((await get(`/v1/archives/${a.id}/export?format=csv&as_of=2024-02-01`, a.key)).text);
    expect(early.slice(1).map((r) => r[r.length - 1])).toEqual(Array(5).fill("auto-generated"));

    const md = (await get(`/v1/archives/${a.id}/export?format=markdown`, a.key)).text;
    expect(md).toMatch(/paper:alpha \| v1 \| .* \| human-verified \|/);
    const bib = (await get(`/v1/archives/${a.id}/export?format=bibtex`, a.key)).text;
    expect(bib).toContain("% PaperGuru paper:beta v1; review: flagged");
    expect(bib).toContain("% PaperGuru paper:gamma v1\n");
    const csl = JSON.parse((await get(`/v1/archives/${a.id}/export?format=csljson`, a.key)).text);
    expect(csl.find((x: { note: string }) => x.note.startsWith("PaperGuru paper:alpha")).note).toContain(
      "review: human-verified",
    );
  });

  it("html is one self-contained, escaped page with statuses of chunks and edges", async () => {
    const a = await build();
    const r = await get(`/v1/archives/${a.id}/export?format=html`, a.key);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    expect(r.headers.get("content-disposition")).toBe(`attachment; filename="${a.id}.html"`);
    const csp = r.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'/);
    // The page carries the same policy, and its one style block has that hash.
    expect(r.text).toContain(`content="${csp.replaceAll("'", "&#39;")}"`);
    const style = /<style>([\s\S]*?)<\/style>/.exec(r.text)?.[1] ?? "";
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(style));
    expect(csp).toContain(`'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
    // No script, no external resource, the hostile title as text.
    expect(r.text).not.toMatch(/<script|<img|<link|<iframe|<[^>]*\s(?:src|href)=|url\(|@import/i);
    expect(r.text).toContain("Tricky &#60;img src=x onerror=alert(1)&#62; &#38; &#34;quotes&#34; &#60;script&#62;");
    expect(r.text).toMatch(/<code>paper:alpha<\/code>.*s-human-verified/);
    expect(r.text).toMatch(/<code>paper:beta<\/code>.*s-flagged/);
    expect(r.text).toMatch(/<code>note:reading<\/code><\/td><td>cites<\/td><td><code>paper:beta<\/code>.*s-flagged/);
    expect(r.text).toMatch(
      /<code>note:reading<\/code><\/td><td>cites<\/td><td><code>paper:alpha<\/code>.*auto-generated/,
    );
  });

  it("collection and within limit every format; the dump of a collection keeps its review events", async () => {
    const a = await build();
    const ids = async (q: string) =>
      csvRows((await get(`/v1/archives/${a.id}/export?format=csv&${q}`, a.key)).text)
        .slice(1)
        .map((r) => r[0]);
    expect(await ids("collection=note%3Areading")).toEqual(["paper:alpha", "paper:beta"]);
    expect(await ids("within=paper%3Aalpha")).toEqual(["paper:alpha", "section:alpha-1"]);
    // Before the collection existed it had no members.
    expect(await ids("collection=note%3Areading&as_of=2023-06-01")).toEqual([]);

    const html = (await get(`/v1/archives/${a.id}/export?format=html&collection=note%3Areading`, a.key)).text;
    expect(html).toContain("collection note:reading (2 members)");
    expect(html).not.toContain("paper:gamma");
    const mermaid = (await get(`/v1/archives/${a.id}/export?format=mermaid&within=paper%3Aalpha`, a.key)).text;
    expect(mermaid).toContain("part-of");
    expect(mermaid).not.toContain("note:reading");

    const dump = JSON.parse(
      (await get(`/v1/archives/${a.id}/export?format=json&collection=note%3Areading`, a.key)).text,
    );
    expect(dump.chunks.map((c: { id: string }) => c.id)).toEqual(["paper:alpha", "paper:beta"]);
    const beta = dump.chunks.find((c: { id: string }) => c.id === "paper:beta");
    expect(beta.annotations).toEqual([
      expect.objectContaining({
        key: "review",
        value: { status: "flagged", op: "flag" },
        reason: "title <b>garbled</b>",
      }),
    ]);
    expect(dump.edges).toEqual([]);
    // Only the entities the dumped versions name.
    const named = new Set(
      dump.chunks.flatMap((c: { versions: Array<{ entities: string[] }> }) => c.versions.flatMap((v) => v.entities)),
    );
    expect(dump.entities.map((e: { id: string }) => e.id).filter((e: string) => !named.has(e))).toEqual([]);

    // The whole dump replayed into another archive keeps every status and its history.
    const whole = (await get(`/v1/archives/${a.id}/export?format=json`, a.key)).text;
    const b = await newArchive("rexp2");
    const imp = await WORKER.fetch(`http://paperguru.test/v1/archives/${b.id}/import?format=archive&name=d.json`, {
      method: "POST",
      headers: { authorization: `Bearer ${b.key}`, "content-type": "application/json" },
      body: whole,
    });
    expect(imp.status).toBe(200);
    const edgeState = await api(
      "GET",
      `/v1/archives/${b.id}/review?from=note%3Areading&type=cites&to=paper%3Abeta`,
      undefined,
      b.key,
    );
    expect(edgeState.body).toMatchObject({ status: "flagged", reason: "off topic" });
    const nodeState = await api(
      "GET",
      `/v1/archives/${b.id}/review?chunk=paper%3Aalpha&as_of=2024-02-01`,
      undefined,
      b.key,
    );
    expect(nodeState.body.status).toBe("auto-generated");
    expect((await api("GET", `/v1/archives/${b.id}/review?chunk=paper%3Aalpha`, undefined, b.key)).body.status).toBe(
      "human-verified",
    );

    const both = await api("GET", `/v1/archives/${a.id}/export?format=csv&collection=x&within=y`, undefined, a.key);
    expect(both.status).toBe(400);
    const missing = await api("GET", `/v1/archives/${a.id}/export?format=csv&within=nope`, undefined, a.key);
    expect(missing.status).toBe(404);
    expect(missing.body.error.field).toBe("within");
    expect(
      (await api("GET", `/v1/archives/${a.id}/export?format=xkg&within=paper%3Aalpha`, undefined, a.key)).status,
    ).toBe(400);
  });
});
