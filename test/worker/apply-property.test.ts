import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

/** A few works, each reachable by arXiv id, DOI and title; records mix the forms and their richness. */
const WORKS = [
  { arxiv: "2405.14831", doi: "10.5555/hipporag.2024", title: "HippoRAG: Neurobiologically Inspired Long-Term Memory" },
  { arxiv: "2005.11401", doi: "10.5555/rag.2020", title: "Retrieval-Augmented Generation for Knowledge-Intensive NLP" },
  { arxiv: "2310.08560", doi: "10.5555/memgpt.2023", title: "MemGPT: Towards LLMs as Operating Systems" },
];

const record = fc
  .record({
    work: fc.integer({ min: 0, max: WORKS.length - 1 }),
    key: fc.constantFrom("arxiv", "doi", "title"),
    withOtherId: fc.boolean(),
    sentences: fc.integer({ min: 1, max: 6 }),
  })
  .map(({ work, key, withOtherId, sentences }) => {
    const w = WORKS[work] as (typeof WORKS)[number];
    const id =
      key === "arxiv"
        ? `arxiv:${w.arxiv}`
        : key === "doi"
          ? `doi:${w.doi}`
          : `paper:${w.title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
    const aliases = withOtherId ? [key === "arxiv" ? `doi:${w.doi}` : `arxiv:${w.arxiv}`] : [];
    return {
      id,
      kind: "paper",
      title: w.title,
      content: Array.from({ length: sentences }, (_, i) => `${w.title} finding number ${i + 1} holds.`).join(" "),
      entities: [{ type: "paper", id, name: w.title, aliases }],
      source: `https://${key}.example.org/${id}`,
    };
  });

async function importFeed(archive: string, key: string, artifacts: unknown[]) {
  const res = await api("POST", `/v1/archives/${archive}/import?format=json`, JSON.stringify({ artifacts }), key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe("applying an import plan (property)", () => {
  it("is idempotent: the same records again create, update and merge nothing", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(record, { minLength: 1, maxLength: 6, selector: (r) => r.id }),
        fc.nat(6),
        async (records, cut) => {
          const { id, key } = await newArchive("prop");
          // In one import, or in two (records of one work arriving from different files at different times).
          const k = cut % records.length;
          const parts = k === 0 ? [records] : [records.slice(0, k), records.slice(k)];
          for (const part of parts) expect((await importFeed(id, key, part)).counts.failed).toBe(0);
          const again = await importFeed(id, key, records);
          expect(again.counts).toMatchObject({ created: 0, updated: 0, merged: 0, failed: 0 });
          // One chunk per work: every record landed on a chunk, and no work has two.
          const landed = new Set((again.items as Array<{ id: string }>).map((i) => i.id));
          const works = new Set(records.map((r) => r.title));
          expect(landed.size).toBeLessThanOrEqual(works.size);
        },
      ),
      { numRuns: 40 },
    );
  });
});
