/** Imported records are valid from their publication date, so as_of queries see them as of then. */

import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

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
  const res = await WORKER.fetch(`http://paperguru.test/v1/archives/${archive}/import?format=bibtex`, {
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
    const june = await api("POST", `/v1/archives/${id}/route`, { ...q, as_of: "2024-06-01", include_trace: true }, key);
    const ids = june.body.selected.map((s: { chunk: string }) => s.chunk);
    expect(ids).toContain("arxiv:2405.14831");
    expect(june.body.trace.filtered_by_time).toBe(0);
    const y2000 = await api("POST", `/v1/archives/${id}/route`, { ...q, as_of: "2000-01-01" }, key);
    const old = y2000.body.selected.map((s: { chunk: string }) => s.chunk);
    expect(old).not.toContain("arxiv:2405.14831");
    expect(old.some((c: string) => c !== "arxiv:2405.14831")).toBe(true); // the 1999 paper is there
    // Importing the same file again changes nothing.
    const again = await importBib(id, key, BIB);
    expect((again.counts.created ?? 0) + (again.counts.updated ?? 0)).toBe(0);
  });

  it("full text: an S2ORC-style record is valid from its year; the caller can override any file's dates", async () => {
    const { id, key } = await newArchive("evt-ft");
    const s2orc = JSON.stringify({
      paper_id: "s2:77",
      metadata: {
        title: "Sparse Retrieval Revisited for Agents",
        authors: [{ first: "Ada", last: "Lovelace" }],
        year: 2019,
      },
      body_text: [{ text: "Sparse retrieval with BM25 remains a strong baseline for agent memory.", section: "Intro" }],
    });
    const send = (format: string, body: string, extra = "") =>
      WORKER.fetch(`http://paperguru.test/v1/archives/${id}/import?format=${format}${extra}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
        body,
      });
    expect((await send("fulltext", s2orc)).status).toBe(200);
    const hist = async (chunk: string) =>
      (await api("GET", `/v1/archives/${id}/history?chunk=${encodeURIComponent(chunk)}`, undefined, key)).body;
    const items = (await api("GET", `/v1/archives/${id}/export?format=json`, undefined, key)).body as {
      chunks: Array<{ id: string; kind: string }>;
    };
    const paper = items.chunks.find((c) => c.kind === "paper")?.id as string;
    const h = await hist(paper);
    expect(Date.parse(h.versions[0].valid_from)).toBe(Date.UTC(2019, 0, 1));
    expect(Date.parse(h.versions[0].recorded_at)).toBeGreaterThan(Date.UTC(2025, 0, 1));
    // The override: every record of the file from the given time, whatever the file says.
    const r = await send("bibtex", BIB, "&valid_from=2030-02-03T00:00:00Z");
    expect(r.status).toBe(200);
    expect(Date.parse((await hist("arxiv:2405.14831")).versions[0].valid_from)).toBe(Date.UTC(2030, 1, 3));
    const bad = await send("bibtex", BIB, "&valid_from=not-a-date");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toContain("valid_from");
    expect((await send("archive", "{}", "&valid_from=2030-01-01")).status).toBe(400);
  });
});
