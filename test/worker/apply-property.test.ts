import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { metadataOf } from "./paper-metadata";

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
    // 40 plans applied twice: 6 s run alone, 32 s in a full run while a benchmark held one of the 2 cores.
  }, 120_000);
});

/**
 * Records of one work agree where they state a field (the work's authors, venue, year, arXiv id and
 * keywords) and each states some of them; a BibTeX record also states its type. Merged in any order,
 * the paper ends with every field some record states.
 */
const PAPERS = [
  {
    doi: "10.5555/owls.2021",
    arxiv: "2104.01234",
    title: "Owls of the Kestrel Tower: A Field Study of Roosting",
    authors: [
      ["Hale", "Mara"],
      ["Osei", "Kofi"],
    ],
    venue: "NeurIPS",
    year: 2021,
    keywords: ["owls", "roosting"],
  },
  {
    doi: "10.5555/rye.2019",
    arxiv: "1907.04321",
    title: "Rye Bakeries of the North: Sourdough Cultures Compared",
    authors: [["Lind", "Ada"]],
    venue: "Food Microbiology",
    year: 2019,
    keywords: ["sourdough"],
  },
];

const paperRecord = fc.record({
  work: fc.integer({ min: 0, max: PAPERS.length - 1 }),
  format: fc.constantFrom("json", "bibtex"),
  states: fc.record({
    authors: fc.boolean(),
    venue: fc.boolean(),
    year: fc.boolean(),
    arxiv: fc.boolean(),
    keywords: fc.boolean(),
  }),
  sentences: fc.integer({ min: 1, max: 6 }),
});
type PaperRecord = typeof paperRecord extends fc.Arbitrary<infer T> ? T : never;

/** The import of record `n` (its own file name, so a re-import is the same record). */
function recordImport(r: PaperRecord, n: number): { format: string; name: string; body: string } {
  const w = PAPERS[r.work] as (typeof PAPERS)[number];
  const text = Array.from({ length: r.sentences }, (_, i) => `${w.title} observation ${i + 1} holds.`).join(" ");
  if (r.format === "bibtex") {
    const fields = [
      `title = {${w.title}}`,
      `doi = {${w.doi}}`,
      r.states.authors ? `author = {${w.authors.map(([last, first]) => `${last}, ${first}`).join(" and ")}}` : "",
      r.states.venue ? `booktitle = {${w.venue}}` : "",
      r.states.year ? `year = {${w.year}}` : "",
      r.states.arxiv ? `eprint = {${w.arxiv}}, archivePrefix = {arXiv}` : "",
      r.states.keywords ? `keywords = {${w.keywords.join(", ")}}` : "",
      `abstract = {${text}}`,
    ].filter(Boolean);
    return { format: "bibtex", name: `r${n}.bib`, body: `@inproceedings{w${r.work}r${n}, ${fields.join(", ")}}` };
  }
  const artifact = {
    id: `doi:${w.doi}`,
    kind: "paper",
    title: w.title,
    content: text,
    entities: [
      { type: "paper", id: `doi:${w.doi}`, name: w.title, aliases: r.states.arxiv ? [`arxiv:${w.arxiv}`] : [] },
      ...(r.states.authors ? w.authors.map(([last, first]) => ({ type: "person", name: `${first} ${last}` })) : []),
      ...(r.states.venue ? [{ type: "venue", name: w.venue }] : []),
    ],
    // A record without a date says so, as the BibTeX and Markdown importers do.
    boundaries: [
      r.states.year ? `year:${w.year}` : "year:unknown",
      ...(r.states.keywords ? w.keywords.map((k) => `keyword:${k}`) : []),
    ],
    source: `https://json.example.org/${r.work}/${n}`,
  };
  return { format: "json", name: `r${n}.json`, body: JSON.stringify({ artifacts: [artifact] }) };
}

async function importRecord(archive: string, key: string, imp: { format: string; name: string; body: string }) {
  const res = await api(
    "POST",
    `/v1/archives/${archive}/import?format=${imp.format}&name=${encodeURIComponent(imp.name)}`,
    imp.body,
    key,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.counts.failed).toBe(0);
  return res.body.counts as Record<string, number>;
}

/** Per work present: the chunk's fields and metadata lines, and what /stats says of its venue and year. */
async function worksMetadata(archive: string, key: string, records: PaperRecord[]) {
  const out: Record<string, unknown> = {};
  for (const work of [...new Set(records.map((r) => r.work))].sort()) {
    const w = PAPERS[work] as (typeof PAPERS)[number];
    const resolved = await api("GET", `/v1/archives/${archive}/resolve?mention=doi:${w.doi}`, undefined, key);
    const chunk = resolved.body.resolved?.entity as string;
    const { versions: _v, ...meta } = await metadataOf(archive, key, chunk);
    const stats = (
      await api("GET", `/v1/archives/${archive}/stats?venues=${encodeURIComponent(w.venue)}`, undefined, key)
    ).body;
    out[w.doi] = { ...meta, venuePapers: stats.papers, years: stats.years };
  }
  return out;
}

describe("merging records of one work (property)", () => {
  it("any order gives the same metadata, every field some record states; a second pass changes nothing", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(paperRecord, { minLength: 1, maxLength: 5 }).chain((records) =>
          fc.tuple(
            fc.constant(records),
            fc.shuffledSubarray(
              records.map((_, i) => i),
              { minLength: records.length, maxLength: records.length },
            ),
          ),
        ),
        async ([records, order]) => {
          const imports = records.map(recordImport);
          const finals = [];
          for (const seq of [records.map((_, i) => i), order]) {
            const { id, key } = await newArchive("mprop");
            for (const i of seq) await importRecord(id, key, imports[i] as (typeof imports)[number]);
            const meta = await worksMetadata(id, key, records);
            // Every field some record of the work states is the paper's.
            for (const work of new Set(records.map((r) => r.work))) {
              const w = PAPERS[work] as (typeof PAPERS)[number];
              const of = records.filter((r) => r.work === work);
              const m = meta[w.doi] as {
                entities: string[];
                boundaries: string[];
                venuePapers: number;
                years: unknown;
              };
              const any = (f: keyof PaperRecord["states"]) => of.some((r) => r.states[f]);
              expect(m.entities.some((e) => e.startsWith("venue:"))).toBe(any("venue"));
              expect(m.entities.filter((e) => e.startsWith("person:")).length).toBe(
                any("authors") ? w.authors.length : 0,
              );
              expect(m.boundaries.includes(`year:${w.year}`)).toBe(any("year"));
              expect(m.boundaries.includes("year:unknown")).toBe(!any("year"));
              expect(m.venuePapers).toBe(any("venue") ? 1 : 0);
              if (any("venue")) expect(m.years).toEqual(any("year") ? [{ year: w.year, count: 1 }] : []);
            }
            // Everything again, in the other order: nothing new.
            for (const i of [...seq].reverse())
              expect(await importRecord(id, key, imports[i] as (typeof imports)[number])).toMatchObject({
                created: 0,
                updated: 0,
                merged: 0,
              });
            expect(await worksMetadata(id, key, records)).toEqual(meta);
            finals.push(meta);
          }
          expect(finals[1]).toEqual(finals[0]);
        },
      ),
      { numRuns: 20 },
    );
  }, 120_000);
});
