/** Imported records are valid from their publication date, so as_of queries see them as of then. */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const BIB = `@inproceedings{gutierrez2024hipporag,
  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  author = {Gutierrez, Bernal Jimenez and Shu, Yiheng},
  eprint = {2405.14831}, archivePrefix = {arXiv},
  abstract = {HippoRAG uses Personalized PageRank over a knowledge graph of passages.},
  year = {2024}, month = may
}
@article{page1999pagerank,
  title = {The PageRank Citation Ranking: Bringing Order to the Web},
  author = {Page, Lawrence and Brin, Sergey},
  year = {1999}
}`;

async function importBib(archive: string, key: string, text: string) {
  const res = await SELF.fetch(`http://paperguru.test/v1/archives/${archive}/import?format=bibtex`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
    body: text,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { counts: Record<string, number> };
}

describe("event time on imports", () => {
  it("a .bib entry is valid from its publication date; as_of before it does not see it", async () => {
    const { id, key } = await newArchive("evt");
    await importBib(id, key, BIB);
    const q = { query: "How does HippoRAG use PageRank?", limit: 5 };
    const june = await api("POST", `/v1/archives/${id}/route`, { ...q, as_of: "2024-06-01" }, key);
    const ids = june.body.selected.map((s: { chunk: string }) => s.chunk);
    expect(ids).toContain("arxiv:2405.14831");
    expect(june.body.trace.filteredByTime).toBe(0);
    const y2000 = await api("POST", `/v1/archives/${id}/route`, { ...q, as_of: "2000-01-01" }, key);
    const old = y2000.body.selected.map((s: { chunk: string }) => s.chunk);
    expect(old).not.toContain("arxiv:2405.14831");
    expect(old.some((c: string) => c !== "arxiv:2405.14831")).toBe(true); // the 1999 paper is there
    // Importing the same file again changes nothing.
    const again = await importBib(id, key, BIB);
    expect((again.counts.created ?? 0) + (again.counts.updated ?? 0)).toBe(0);
  });
});
