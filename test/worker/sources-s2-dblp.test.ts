/** Semantic Scholar and DBLP sources: request shapes, parsers on fixtures in the APIs' documented formats, citations annotations, dedup. */
import { describe, expect, it } from "vitest";
import dblpFixture from "../fixtures/sources/dblp-search.json?raw";
import openalexFixture from "../fixtures/sources/openalex-works.json?raw";
import s2Paper from "../fixtures/sources/semanticscholar-paper.json?raw";
import s2Search from "../fixtures/sources/semanticscholar-search.json?raw";
import { api, newArchive } from "./helpers";
import { calls, history, mockFetch } from "./world";

const json = (body: string) => () => new Response(body, { headers: { "content-type": "application/json" } });

async function run(id: string, key: string, sid: string) {
  const res = await api("POST", `/v1/archives/${id}/sources/${sid}/run`, undefined, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.run;
}

const citations = async (id: string, key: string, chunk: string, as_of?: string) =>
  (
    await api(
      "GET",
      `/v1/archives/${id}/chunks/${encodeURIComponent(chunk)}/annotations?key=citations${as_of ? `&as_of=${as_of}` : ""}`,
      undefined,
      key,
    )
  ).body.values.citations?.value;

describe("Semantic Scholar source", () => {
  it("searches, ingests papers with a citations annotation, dedups by DOI, and reads references from one paper", async () => {
    const { id, key } = await newArchive("s2");
    // A paper already in the archive under its DOI: the S2 record with that DOI lands on it.
    await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      {
        artifacts: [
          { id: "doi:10.7717/peerj.4375", kind: "paper", title: "The state of OA", content: "Piwowar et al." },
        ],
      },
      key,
    );
    const src = await api(
      "POST",
      `/v1/archives/${id}/sources`,
      { kind: "semanticscholar", query: "long-term memory" },
      key,
    );
    expect(src.status, JSON.stringify(src.body)).toBe(201);
    mockFetch({ "https://api.semanticscholar.org/graph/v1/paper/search": json(s2Search) });
    const r1 = await run(id, key, src.body.id);
    expect(r1.status).toBe("ok");
    const url = new URL(calls[0]?.url ?? "");
    expect(url.searchParams.get("query")).toBe("long-term memory");
    expect(url.searchParams.get("fields")).toContain("citationCount");
    expect(url.searchParams.get("limit")).toBe("50");
    expect(r1.counts).toMatchObject({ created: 2, updated: 1, annotated: 3 });

    expect(await citations(id, key, "arxiv:2405.14831")).toBe(187);
    expect(await citations(id, key, "arxiv:2005.11401")).toBe(4521);
    expect(await citations(id, key, "doi:10.7717/peerj.4375")).toBe(950);
    const h = await history(id, key, "arxiv:2405.14831");
    expect(h.body.versions[0].boundaries).toEqual(
      expect.arrayContaining(["year:2024", "open-access", "source:semanticscholar"]),
    );
    const resolve = async (m: string) =>
      (await api("GET", `/v1/archives/${id}/resolve?mention=${encodeURIComponent(m)}`, undefined, key)).body.resolved
        ?.entity;
    expect(await resolve("CorpusId:269982264")).toBe("arxiv:2405.14831");
    expect(await resolve("Bernal Jiménez Gutiérrez")).toBe("person:bernal-jiménez-gutiérrez");

    // One paper by id: references with an arXiv id or DOI become cites edges (self and id-less ones dropped);
    // the citation count moves, and the annotation keeps both values in time.
    const one = await api(
      "POST",
      `/v1/archives/${id}/sources`,
      { kind: "semanticscholar", query: "ARXIV:2405.14831" },
      key,
    );
    mockFetch({ "https://api.semanticscholar.org/graph/v1/paper/ARXIV:2405.14831": json(s2Paper) });
    const before = new Date().toISOString();
    await new Promise((res) => setTimeout(res, 5));
    const r2 = await run(id, key, one.body.id);
    expect(r2.status).toBe("ok");
    expect(calls.at(-1)?.url).toContain("fields=");
    expect(decodeURIComponent(calls.at(-1)?.url ?? "")).toContain("references.externalIds");
    const h2 = await history(id, key, "arxiv:2405.14831");
    const cites = h2.body.edges.filter((e: { type: string }) => e.type === "cites").map((e: { dst: string }) => e.dst);
    expect(cites.sort()).toEqual(["arxiv:2005.11401", "doi:10.1145/3397271.3401075"]);
    expect(await citations(id, key, "arxiv:2405.14831")).toBe(190);
    expect(await citations(id, key, "arxiv:2405.14831", before)).toBe(187);
  });

  it("refuses an empty paper id and a private location; reports an API error as a failed run", async () => {
    const { id, key } = await newArchive("s2b");
    const bad = await api("POST", `/v1/archives/${id}/sources`, { kind: "semanticscholar", query: "ARXIV:" }, key);
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("query");
    const ssrf = await api(
      "POST",
      `/v1/archives/${id}/sources`,
      { kind: "dblp", query: "memory", location: "http://169.254.169.254/latest" },
      key,
    );
    expect(ssrf.status).toBe(400);
    expect(ssrf.body.error.field).toBe("location");
    const src = await api("POST", `/v1/archives/${id}/sources`, { kind: "semanticscholar", query: "memory" }, key);
    mockFetch({
      "https://api.semanticscholar.org/": () =>
        new Response(JSON.stringify({ error: "Unrecognized or unsupported fields: [foo]" }), {
          status: 200,
          headers: { "content-type": "application/json" },
        }),
    });
    const r = await run(id, key, src.body.id);
    expect(r.status).toBe("error");
    expect(r.error).toContain("Unrecognized or unsupported fields");
  });
});

describe("DBLP source", () => {
  it("ingests search hits with venues, clean author names and the dblp key as an alias; two records of one work are one chunk", async () => {
    const { id, key } = await newArchive("dblp");
    const src = await api("POST", `/v1/archives/${id}/sources`, { kind: "dblp", query: "hipporag" }, key);
    expect(src.status).toBe(201);
    mockFetch({ "https://dblp.org/search/publ/api": json(dblpFixture) });
    const r = await run(id, key, src.body.id);
    expect(r.status, JSON.stringify(r)).toBe("ok");
    const url = new URL(calls[0]?.url ?? "");
    expect([url.searchParams.get("q"), url.searchParams.get("format"), url.searchParams.get("h")]).toEqual([
      "hipporag",
      "json",
      "100",
    ]);
    const resolve = async (m: string) =>
      (await api("GET", `/v1/archives/${id}/resolve?mention=${encodeURIComponent(m)}`, undefined, key)).body.resolved
        ?.entity;
    // The NeurIPS record (no DOI) and the CoRR record (arXiv DOI) are one work by title: one chunk.
    const list = await api("GET", `/v1/archives/${id}/chunks?kind=paper`, undefined, key);
    const ids = list.body.chunks.map((c: { id: string }) => c.id).sort();
    expect(ids).toHaveLength(2);
    expect(ids).toContain("doi:10.1162/tacl_a_00999");
    // Both dblp keys name the one work.
    // The dblp key of the record kept is an alias of its paper entity (the duplicate folds into it).
    const hipporag = ids.find((x: string) => x !== "doi:10.1162/tacl_a_00999");
    expect(await resolve("dblp:conf/nips/GutierrezSGYS24")).toBe(hipporag);
    expect(await resolve("Wei Wang")).toBe("person:wei-wang");
    const h = await history(id, key, "doi:10.1162/tacl_a_00999");
    const v = h.body.versions[h.body.versions.length - 1];
    expect(v.title).toBe("Graph Memory for Agents");
    expect(v.boundaries).toEqual(expect.arrayContaining(["year:2025", "type:journal-articles", "source:dblp"]));
    expect(v.entities).toEqual(expect.arrayContaining(["venue:acl", "venue:findings", "person:ana-silva"]));
  });
});

describe("OpenAlex citations", () => {
  it("cited_by_count becomes the citations annotation", async () => {
    const { id, key } = await newArchive("oac");
    const src = await api("POST", `/v1/archives/${id}/sources`, { kind: "openalex", query: "search=memory" }, key);
    const fx = JSON.parse(openalexFixture) as { results: Array<Record<string, unknown>> };
    for (const [i, w] of fx.results.entries()) {
      w.is_retracted = false;
      w.cited_by_count = 10 + i;
    }
    mockFetch({ "https://api.openalex.org/works": json(JSON.stringify(fx)) });
    const r = await run(id, key, src.body.id);
    expect(r.counts.annotated).toBeGreaterThanOrEqual(3);
    expect(await citations(id, key, "arxiv:2405.14831")).toBeGreaterThanOrEqual(10);
  });
});
