/**
 * The same paper from a Markdown reference line and a BibTeX entry, imported in either order: the
 * merged paper keeps the richer value of every field (authors, venue, date, identifiers; their
 * lines and their entities and boundaries), a reference line never becomes a name, the entity
 * history records what came from where, and re-importing either record changes nothing.
 */

import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { metadataOf } from "./paper-metadata";
import { WORKER } from "./worker";

const CHUNK = "doi:10.5555/hipporag.2024";

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
  return (await r.json()) as { counts: Record<string, number> };
}

const stats = async (archive: string, key: string, q = "") =>
  (await api("GET", `/v1/archives/${archive}/stats?${q}`, undefined, key)).body;

describe("merging the same paper from two formats", () => {
  for (const order of [
    ["bibtex", "markdown"],
    ["markdown", "bibtex"],
  ] as const)
    it(`keeps every field, whatever the order (${order.join(" then ")})`, async () => {
      const { id, key } = await newArchive("merge");
      const counts = [];
      for (const f of order) counts.push(await importFile(id, key, f, f === "bibtex" ? BIB : MD));
      // The second record merges: as the paper's next version when it is the richer one, else as a
      // version of the kept record with the fields it lacked (updated 1, merged 1 either way).
      expect(counts[1]?.counts).toMatchObject({ created: order[1] === "markdown" ? 2 : 0, updated: 1, merged: 1 });
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
      const merged = ent.body.events.filter((e: { op: string }) => e.op === "deduplicated");
      expect(merged).toHaveLength(1);
      const detail = merged[0].detail;
      expect(detail.kept).toBe(order[0] === "bibtex" ? "incoming" : "existing");
      // The metadata lines, then the fields: authors and venue entities, the year and the BibTeX type.
      expect(Object.keys(detail.fields).sort()).toEqual(
        ["Authors", "BibTeX", "Date", "DOI", "In", "text", "person:", "venue:", "year:", "bibtex:"].sort(),
      );
      expect(detail.fields.text).toBe("f.markdown");
      expect(detail.fields.Authors).toMatch(/^f\.bibtex#gutierrez2024hipporag$/);
      expect(detail.fields["venue:"]).toMatch(/^f\.bibtex#gutierrez2024hipporag$/);

      // The paper holds the entry's authors, venue and year (the Markdown text states none of them).
      const meta = await metadataOf(id, key, CHUNK);
      expect(meta.entities).toEqual(["person:bernal-jiménez-gutiérrez", "person:yu-su", "venue:neurips"]);
      expect(meta.boundaries).toEqual(["bibtex:inproceedings", "year:2024"]);
      // So the venue filter and statistics see it, under the entry's year.
      expect((await stats(id, key, "venues=NeurIPS")).papers).toBe(1);
      expect((await stats(id, key, "venues=neurips&year_from=2024&year_to=2024")).papers).toBe(1);
      expect((await stats(id, key)).years).toEqual([{ year: 2024, count: 1 }]);
      const routed = await api(
        "POST",
        `/v1/archives/${id}/route`,
        { query: "HippoRAG personalized pagerank memory", ranking: { mode: "stable", venues: ["NeurIPS"] } },
        key,
      );
      expect(routed.status, JSON.stringify(routed.body)).toBe(200);
      expect(routed.body.selected.map((s: { chunk: string }) => s.chunk)).toContain(CHUNK);

      // Importing both files again, in either order, changes nothing: no new version, the same fields.
      for (const again of [order, [...order].reverse()])
        for (const f of again) {
          const r = await importFile(id, key, f, f === "bibtex" ? BIB : MD);
          expect(r.counts, f).toMatchObject({ created: 0, updated: 0, merged: 0 });
        }
      expect(await metadataOf(id, key, CHUNK)).toEqual(meta);

      // A reference line without a recognisable title names the work by its id, never by the line.
      const ref = await api("GET", `/v1/archives/${id}/history?entity=doi%3A10.9999%2Fpagerank.1999`, undefined, key);
      expect(ref.body.name).not.toContain("Page, L.");
    });

  it("gives the same metadata in either order, and a changed record keeps what the merge added", async () => {
    const final = [];
    for (const order of [
      ["bibtex", "markdown"],
      ["markdown", "bibtex"],
    ]) {
      const { id, key } = await newArchive("merge");
      for (const f of order) await importFile(id, key, f, f === "bibtex" ? BIB : MD);
      const { versions: _v, ...meta } = await metadataOf(id, key, CHUNK);
      final.push(meta);
      // The Markdown notes change: their next version keeps the entry's authors, venue and year.
      const changed = MD.replace("The damping factor is 0.5", "The damping factor is 0.5 (0.85 in PageRank)");
      // (the paper and its Notes section)
      expect((await importFile(id, key, "markdown", changed)).counts).toMatchObject({ updated: 2, merged: 0 });
      const after = await metadataOf(id, key, CHUNK);
      expect({ entities: after.entities, boundaries: after.boundaries, lines: after.lines }).toEqual(meta);
      // And the changed notes, imported again, change nothing.
      expect((await importFile(id, key, "markdown", changed)).counts).toMatchObject({ created: 0, updated: 0 });
    }
    expect(final[0]).toEqual(final[1]);
  });

  it("a field the kept record states is never overwritten: the richer record's value wins", async () => {
    // Richer than the entry: its own venue and year, no authors; the entry adds its authors and arXiv id.
    const feed = {
      artifacts: [
        {
          id: CHUNK,
          kind: "paper",
          title: "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",
          content: `${MD}\nWe read the camera-ready version presented at the workshop.`,
          entities: [{ type: "venue", id: "venue:memory-workshop", name: "Memory Workshop" }],
          boundaries: ["year:2023"],
          source: "notes.json",
        },
      ],
    };
    const withArxiv = BIB.replace(
      "doi = {10.5555/hipporag.2024}",
      "doi = {10.5555/hipporag.2024},\n  eprint = {2405.14831}, archivePrefix = {arXiv}",
    );
    const final = [];
    for (const order of [
      ["json", "bibtex"],
      ["bibtex", "json"],
    ]) {
      const { id, key } = await newArchive("merge");
      for (const f of order) await importFile(id, key, f, f === "bibtex" ? withArxiv : JSON.stringify(feed));
      // The entry's arXiv id names the kept paper (the richer record's id, the DOI, stays the chunk).
      const chunk = order[0] === "json" ? CHUNK : "arxiv:2405.14831";
      const meta = await metadataOf(id, key, chunk);
      expect(meta.entities).toEqual(["person:bernal-jiménez-gutiérrez", "person:yu-su", "venue:memory-workshop"]);
      expect(meta.boundaries).toEqual(["bibtex:inproceedings", "year:2023"]);
      expect(meta.lines).toContain("arXiv: 2405.14831");
      expect((await stats(id, key)).years).toEqual([{ year: 2023, count: 1 }]);
      expect((await stats(id, key, "venues=NeurIPS")).papers).toBe(0);
      const resolved = await api("GET", `/v1/archives/${id}/resolve?mention=arXiv%3A2405.14831`, undefined, key);
      expect(resolved.body.resolved?.entity).toBe(chunk);
      const { versions: _v, ...rest } = meta;
      final.push(rest);
      for (const f of order)
        expect(
          (await importFile(id, key, f, f === "bibtex" ? withArxiv : JSON.stringify(feed))).counts,
          `${order.join(" then ")}: ${f}`,
        ).toMatchObject({
          created: 0,
          updated: 0,
          merged: 0,
        });
    }
    expect(final[0]).toEqual(final[1]);
  });
});
