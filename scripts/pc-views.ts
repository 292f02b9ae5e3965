/**
 * `npx tsx scripts/pc-views.ts --data ../shared/testdata [--out bench/results/pc-views.json] [--ref <git ref>]`:
 * Paper Circle's views on the unArXive archive. Builds the archive the eval builds (the 49 papers of
 * unarxive/arXiv_src_2212_086.jsonl through `POST /import?format=fulltext`, 5 papers per request) on a
 * fresh local server, then for each query asks `POST /route` (limit 10) with the default ranking (mode
 * poe), `view: canonical` and `view: hidden_gems` (mode discovery), and records per result the
 * similarity the API reports (the route's cosine) and the cosine of the query to the chunk's head text
 * (title + synopsis, what the archive embeds) with the archive's embedder (the local hashed
 * embedder), computed here from the chunk listing. `context` (max_cards 10) with each view is asked
 * too and its card count recorded. Then the archive's BibTeX and CSL-JSON exports: entries, entries
 * with a year, entries saying 1970 (`--bib <file>` keeps the BibTeX). `--ref` runs another commit (a snapshot of it) for a before/after.
 * Skips cleanly without the data.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PaperGuruClient } from "../src/client";
import { HashedEmbedder } from "../src/core/embed/hashed";
import { headText } from "../src/core/embed/space";
import { harnessFetch, startServer } from "./lib/server";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const data = opt("--data") ?? "../shared/testdata";
const out = opt("--out") ?? "bench/results/pc-views.json";
const ref = opt("--ref");
const file = join(data, "unarxive", "arXiv_src_2212_086.jsonl");
if (!existsSync(file)) {
  console.log(`pc-views: no ${file}; skipped`);
  process.exit(0);
}
const log = (m: string) => process.stderr.write(`${m}\n`);

export const QUERIES = [
  "adversarial attacks on text classifiers",
  "quantum neural tangent kernel for quantum machine learning",
  "lattice QCD gluon vertex",
  "zeros of derivatives of random polynomials",
  "retrosynthesis planning with machine learning",
];

const VIEWS = [
  { name: "default", ranking: { mode: "poe" as const } },
  { name: "canonical", ranking: { mode: "discovery" as const, view: "canonical" as const } },
  { name: "hidden_gems", ranking: { mode: "discovery" as const, view: "hidden_gems" as const } },
];

const round = (x: number) => Math.round(x * 1e4) / 1e4;
const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

async function main() {
  const t0 = performance.now();
  const server = await startServer({ fresh: true, ...(ref ? { snapshot: { ref } } : {}) });
  try {
    const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
    const id = `pc-views-${Date.now().toString(36)}`;
    const created = await admin.createArchive({ id, name: "Paper Circle views (unArXive)" });
    const pg = admin.withKey(created.key.secret);
    const records = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim());
    for (let i = 0; i < records.length; i += 5)
      await pg.importText(id, "fulltext", records.slice(i, i + 5).join("\n"), `unarxive-${i}.jsonl`);
    const heads = new Map<string, { title: string; synopsis: string; kind: string }>();
    for await (const c of pg.allChunks(id)) heads.set(c.id, { title: c.title, synopsis: c.synopsis, kind: c.kind });
    log(`pc-views: ${records.length} papers imported, ${heads.size} chunks (${Math.round(performance.now() - t0)} ms)`);
    const emb = new HashedEmbedder();
    const cos = (a: Float32Array, b: Float32Array) => {
      let d = 0;
      for (let i = 0; i < a.length; i++) d += (a[i] as number) * (b[i] as number);
      return d;
    };
    const rows: Array<Record<string, unknown>> = [];
    for (const query of QUERIES) {
      const qv = emb.embedOne(query);
      for (const v of VIEWS) {
        const r = await pg.route(id, { query, limit: 10, ranking: v.ranking });
        const items = (r.ranking?.items ?? []).slice(0, 10).map((x) => {
          const h = heads.get(x.chunk);
          return {
            chunk: x.chunk,
            title: h?.title.replace(/\s+/g, " ").slice(0, 90) ?? "",
            similarity: x.similarity,
            cosine: round(h ? cos(qv, emb.embedOne(headText(h.title, h.synopsis))) : 0),
          };
        });
        const ctx = await pg.context(id, { query, budget_tokens: 4000, max_cards: 10, ranking: v.ranking });
        const row = {
          query,
          view: v.name,
          results: items.length,
          cards: ctx.cards.length,
          mean_similarity: round(mean(items.map((x) => x.similarity))),
          mean_cosine: round(mean(items.map((x) => x.cosine))),
          min_cosine: round(items.length ? Math.min(...items.map((x) => x.cosine)) : 0),
          zero_similarity: items.filter((x) => x.similarity === 0).length,
          items,
        };
        rows.push(row);
        log(
          `${query.padEnd(58)} ${v.name.padEnd(11)} n=${row.results} cards=${row.cards} sim=${row.mean_similarity} cos=${row.mean_cosine} min=${row.min_cosine} zero=${row.zero_similarity}`,
        );
        for (const x of items.slice(0, 5)) log(`    ${x.similarity.toFixed(3)} ${x.cosine.toFixed(3)} ${x.title}`);
      }
    }
    // The bibliographic exports of the same archive: entries, entries with a year, entries saying 1970.
    const bib = await pg.export(id, { format: "bibtex" });
    if (opt("--bib")) writeFileSync(opt("--bib") as string, bib);
    const bibEntries = bib.split(/\n(?=@)/).filter((e) => e.trimStart().startsWith("@"));
    const csl = JSON.parse(await pg.export(id, { format: "csljson" })) as Array<{
      issued?: { "date-parts": number[][] };
    }>;
    const exports = {
      bibtex: {
        entries: bibEntries.length,
        withYear: bibEntries.filter((e) => /\byear = \{\d{4}\}/.test(e)).length,
        year1970: bibEntries.filter((e) => /\byear = \{1970\}/.test(e)).length,
      },
      csljson: {
        entries: csl.length,
        withIssued: csl.filter((x) => x.issued).length,
        issued1970: csl.filter((x) => x.issued?.["date-parts"]?.[0]?.[0] === 1970).length,
      },
    };
    log(`pc-views: exports ${JSON.stringify(exports)}`);
    const result = {
      ref: ref ?? "working tree",
      papers: records.length,
      chunks: heads.size,
      queries: QUERIES,
      exports,
      rows,
      totalMs: Math.round(performance.now() - t0),
    };
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    log(`pc-views: wrote ${out} (${Math.round(result.totalMs / 1000)} s)`);
  } finally {
    server.stop();
  }
}

await main();
