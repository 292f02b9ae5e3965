/**
 * The same paper from a Markdown reference line and a BibTeX entry, imported in either order: the
 * merged paper keeps the richer value of every field (authors, venue, date, identifiers), a
 * reference line never becomes a name, and the entity history records what came from where.
 */

import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

const BIB = `@inproceedings{gutierrez2024hipporag,
  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  author = {Guti{\\'e}rrez, Bernal Jim{\\'e}nez and Su, Yu},
  booktitle = {NeurIPS},
  year = {2024},
  doi = {10.5555/hipporag.2024}
}
`;

// Reading notes on the same paper (same DOI), longer than the BibTeX record: its text wins.
const MD = `---
title: HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models
doi: 10.5555/hipporag.2024
---
# HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models

HippoRAG builds a schemaless knowledge graph from passages with an LLM and retrieves with
Personalized PageRank seeded at the entities of the question. It improves multi-hop retrieval
over dense baselines while staying single-step, which makes it cheaper than iterative retrieval.

## Notes

The damping factor is 0.5; node specificity weights the seeds. Synonymy edges link near-duplicate
phrases by embedding similarity. Recall@5 improves on MuSiQue and 2WikiMultiHopQA.

## References

1. Page, L. et al. The PageRank citation ranking. doi:10.9999/pagerank.1999
`;

async function importFile(archive: string, key: string, format: string, body: string) {
  const r = await WORKER.fetch(
    `http://paperguru.test/v1/archives/${archive}/import?format=${format}&name=f.${format}`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
      body,
    },
  );
  expect(r.status, await r.clone().text()).toBe(200);
}

describe("merging the same paper from two formats", () => {
  for (const order of [
    ["bibtex", "markdown"],
    ["markdown", "bibtex"],
  ] as const)
    it(`keeps every field, whatever the order (${order.join(" then ")})`, async () => {
      const { id, key } = await newArchive("merge");
      for (const f of order) await importFile(id, key, f, f === "bibtex" ? BIB : MD);
      const bib = await (
        await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/export?format=bibtex`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).text();
      const entry = bib.split(/\n(?=@|%)/).find((e) => e.includes("HippoRAG")) ?? "";
      expect(entry).toMatch(/^@inproceedings\{gutierrez2024hipporag,/m);
      expect(entry).toMatch(/author = \{.*Su, Yu/);
      expect(entry).toContain("NeurIPS");
      const ent = await api("GET", `/v1/archives/${id}/history?entity=doi%3A10.5555%2Fhipporag.2024`, undefined, key);
      expect(ent.status).toBe(200);
      expect(ent.body.name).toBe("HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models");
      console.log(
        JSON.stringify(ent.body.events),
        JSON.stringify(ent.body.aliases.map((a: { alias: string }) => a.alias)),
      );
      const merged = ent.body.events.filter((e: { op: string }) => e.op === "deduplicated");
      expect(merged).toHaveLength(1);
      const detail = merged[0].detail;
      expect(detail.kept).toBe(order[0] === "bibtex" ? "incoming" : "existing");
      expect(Object.keys(detail.fields).sort()).toEqual(["Authors", "BibTeX", "Date", "DOI", "In", "text"].sort());
      expect(detail.fields.text).toBe("f.markdown");
      expect(detail.fields.Authors).toMatch(/^f\.bibtex#gutierrez2024hipporag$/);
      // Importing both files again changes nothing.
      for (const f of order) {
        const r = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/import?format=${f}&name=f.${f}`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
          body: f === "bibtex" ? BIB : MD,
        });
        const body = (await r.json()) as { counts: Record<string, number> };
        expect(body.counts, f).toMatchObject({ created: 0, updated: 0, merged: 0 });
      }
      // A reference line without a recognisable title names the work by its id, never by the line.
      const ref = await api("GET", `/v1/archives/${id}/history?entity=doi%3A10.9999%2Fpagerank.1999`, undefined, key);
      expect(ref.body.name).not.toContain("Page, L.");
    });
});
