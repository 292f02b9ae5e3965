/**
 * Paper Circle's locate and the per-node references of SGMC on the unarXive sample
 * (`../shared/testdata/unarxive`, 49 papers), through the public API of a local Worker.
 *
 * Locate. The papers are imported as a user would (`POST /import?format=fulltext`, 10 papers per
 * request). For every figure or table some section references (an unarXive `{{figure:…}}` /
 * `{{table:…}}` marker), gold = the sections whose text references it (sections as the importer cuts
 * them: runs of consecutive paragraphs with the same heading), query = the element's caption as the
 * file has it. Three rankings of the paper's sections:
 * - PaperGuru `/locate` with `kinds: ["section"]` (the sections' own text, within the paper's subtree);
 * - PaperGuru `/locate`'s `sections` (elements included: a caption hit is resolved to the sections that
 *   discuss it through the `discussed-in` edges the importer derived from the same markers, so this
 *   row measures the element chunks end to end, not text matching);
 * - Okapi BM25 (k1 1.2, b 0.75, wink, title + content as stored, fetched through `/content`) over the
 *   same paper's sections.
 * hit@1 and MRR over the first 10.
 *
 * Per-node references. Candidates = the bibliography works of all 49 papers (entries with the same
 * arXiv id / DOI / OpenAlex id are one work; otherwise the same normalised raw string), stored in a
 * second archive as a user keeping a reference list would: one `paper` artifact per work with the raw
 * reference string as title and content (nothing the harness parsed). For each section citing at least
 * one work: query = its heading and first paragraph with the citation markers (and the other
 * `{{…}}` placeholders) removed, gold = the works it cites; PaperGuru `/route` (kinds: paper, limit 10)
 * vs Okapi BM25 (the same text) over the same candidates; Recall@10 and MRR.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PaperGuruClient } from "../../src/client";
import { paperIdentity } from "../../src/core/formats/paper";
import { type Doc, winkBm25 } from "./baselines";
import { harnessFetch, type Server } from "./server";

interface Para {
  section: string | null;
  sec_number?: string | null;
  text: string;
  cite_spans?: Array<{ ref_id: string }>;
}
interface Paper {
  paper_id: string;
  body_text: Para[];
  bib_entries: Record<
    string,
    { bib_entry_raw?: string; ids?: { arxiv_id?: string; doi?: string; open_alex_id?: string } }
  >;
  ref_entries: Record<string, { type: string; caption?: string }>;
}

type Params = Record<string, unknown> | undefined;

const K = 10;
const log = (m: string) => process.stderr.write(`  papers: ${m}\n`);
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/** Sections as the importer cuts them: runs of consecutive paragraphs with the same heading. */
function runs(p: Paper): Array<{ heading: string; paras: Para[] }> {
  const out: Array<{ heading: string; paras: Para[] }> = [];
  for (const para of p.body_text) {
    if (!para.text.trim()) continue;
    const heading = oneLine([para.sec_number ?? "", para.section ?? ""].filter(Boolean).join(" ")) || "Body";
    const last = out[out.length - 1];
    if (last && last.heading === heading) last.paras.push(para);
    else out.push({ heading, paras: [para] });
  }
  return out;
}

function rankOf(ranked: string[], gold: Set<string>): number {
  const i = ranked.slice(0, K).findIndex((x) => gold.has(x));
  return i < 0 ? 0 : 1 / (i + 1);
}

interface Tally {
  n: number;
  hit1: number;
  mrr: number;
  recall: number;
}
const tally = (): Tally => ({ n: 0, hit1: 0, mrr: 0, recall: 0 });
function add(t: Tally, ranked: string[], gold: Set<string>) {
  t.n++;
  const rr = rankOf(ranked, gold);
  t.mrr += rr;
  if (rr === 1) t.hit1++;
  t.recall += ranked.slice(0, K).filter((x) => gold.has(x)).length / gold.size;
}
const done = (t: Tally) => ({
  queries: t.n,
  hit1: t.n ? (100 * t.hit1) / t.n : 0,
  mrr: t.n ? t.mrr / t.n : 0,
  recall10: t.n ? (100 * t.recall) / t.n : 0,
});
export type PaperMetrics = ReturnType<typeof done>;

export interface PapersEval {
  papers: number;
  chunks: { sections: number; elements: number };
  locate: {
    elements: number;
    skippedNoCaption: number;
    sectionsOnly: PaperMetrics;
    withElements: PaperMetrics;
    bm25: PaperMetrics;
    msPerQuery: number;
  };
  references: {
    works: number;
    sections: number;
    paperguru: PaperMetrics;
    bm25: PaperMetrics;
    bm25Title2: PaperMetrics;
    /** Share of queries (%) whose PaperGuru top 10 is the same set as BM25's. */
    sameTop10AsBm25: number;
    msPerQuery: number;
  };
  coverage: { papers: number; share: number; figures: number; tables: number; sections: number; equations: number };
}

export async function papersEval(server: Server, dir: string, params: Params): Promise<PapersEval | null> {
  const f = join(dir, "unarxive", "arXiv_src_2212_086.jsonl");
  if (!existsSync(f)) return null;
  const lines = readFileSync(f, "utf8").split("\n").filter(Boolean);
  const papers = lines.map((l) => JSON.parse(l) as Paper);
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });

  // ------------------------------------------------------------------ locate
  const id = `eval-papers-${Date.now().toString(36)}`;
  const pg = admin.withKey((await admin.createArchive({ id, name: "unarXive papers", params })).key.secret);
  // 5 papers per request (about 250 chunks with their elements); harnessFetch re-sends a request the
  // local runtime drops midway (re-importing the same file stores only what is missing).
  for (let i = 0; i < lines.length; i += 5)
    await pg.importText(id, "fulltext", lines.slice(i, i + 5).join("\n"), `unarxive-${i}.jsonl`);
  const sectionsOnly = tally();
  const withElements = tally();
  const bm = tally();
  let elements = 0;
  let skippedNoCaption = 0;
  let sectionCount = 0;
  let elementCount = 0;
  let locateMs = 0;
  let locateCalls = 0;
  const cov = { papers: 0, share: 0 };
  const counts: Record<"figure" | "table" | "section" | "equation", [number, number]> = {
    figure: [0, 0],
    table: [0, 0],
    section: [0, 0],
    equation: [0, 0],
  };
  log(`imported ${papers.length} papers`);
  for (const [pi, p] of papers.entries()) {
    if (pi % 10 === 0) log(`locate: paper ${pi + 1}/${papers.length}`);
    const pid = `arxiv:${p.paper_id}`;
    const secIds = new Map<number, string>();
    const docs: Doc[] = [];
    for await (const c of pg.allChunks(id, { kind: "section", prefix: `${pid}#s` })) {
      const m = /#s(\d+)(?:-|$)/.exec(c.id);
      if (!m) continue;
      secIds.set(Number(m[1]), c.id);
      const text = (await pg.content(id, c.id)).text;
      docs.push({ id: c.id, title: c.title, text });
    }
    for await (const _ of pg.allChunks(id, { kind: "element", prefix: `${pid}#` })) elementCount++;
    sectionCount += docs.length;
    const c = await pg.coverage(id, { paper: pid });
    if (c.share !== null) {
      cov.papers++;
      cov.share += c.share;
    }
    for (const t of ["figure", "table", "section", "equation"] as const) {
      counts[t][0] += c.types[t].linked;
      counts[t][1] += c.types[t].total;
    }
    // wink's BM25 needs at least 3 documents to consolidate.
    const bm25 = docs.length >= 3 ? await winkBm25(docs, 1) : null;
    const rs = runs(p);
    for (const [key, e] of Object.entries(p.ref_entries)) {
      if (e.type !== "figure" && e.type !== "table") continue;
      const marker = `{{${e.type}:${key}}}`;
      const gold = new Set<string>();
      rs.forEach((r, i) => {
        const sid = secIds.get(i + 1);
        if (sid && r.paras.some((x) => x.text.includes(marker))) gold.add(sid);
      });
      if (gold.size === 0) continue;
      const caption = oneLine(e.caption ?? "");
      if (!caption) {
        skippedNoCaption++;
        continue;
      }
      elements++;
      const query = caption.slice(0, 8000);
      const t0 = performance.now();
      const a = await pg.locate(id, { paper: pid, query, limit: K, kinds: ["section"], snippets: 0 });
      const b = await pg.locate(id, { paper: pid, query, limit: K, snippets: 0 });
      locateMs += performance.now() - t0;
      locateCalls += 2;
      add(
        sectionsOnly,
        a.items.map((x) => x.chunk),
        gold,
      );
      add(
        withElements,
        b.sections.map((x) => x.chunk),
        gold,
      );
      add(bm, bm25 ? bm25.search(query, K) : docs.map((d) => d.id), gold);
    }
  }

  // ------------------------------------------------------------------ per-node references
  const workOf = new Map<string, string>();
  const works: Doc[] = [];
  const workKey = (b: Paper["bib_entries"][string]): string | null => {
    const forms = [
      b.ids?.arxiv_id ? `arXiv:${b.ids.arxiv_id}` : "",
      b.ids?.doi ? `doi:${b.ids.doi}` : "",
      b.ids?.open_alex_id ?? "",
    ].filter(Boolean);
    const ids = forms.length ? (paperIdentity(forms, "")?.ids ?? []) : [];
    const raw = oneLine(b.bib_entry_raw ?? "");
    if (!ids.length && !raw) return null;
    for (const x of ids) {
      const w = workOf.get(x);
      if (w) {
        for (const y of ids) workOf.set(y, w);
        return w;
      }
    }
    const rawKey = `raw:${raw.toLowerCase()}`;
    const existing = ids.length ? undefined : workOf.get(rawKey);
    if (existing) return existing;
    const w = `work:${works.length + 1}`;
    works.push({ id: w, title: raw.slice(0, 1000) || (ids[0] as string), text: raw || (ids[0] as string) });
    for (const y of ids.length ? ids : [rawKey]) workOf.set(y, w);
    return w;
  };
  const queries: Array<{ query: string; gold: Set<string> }> = [];
  for (const p of papers) {
    const keyOf = new Map<string, string>();
    for (const [k, b] of Object.entries(p.bib_entries)) {
      const w = workKey(b);
      if (w) keyOf.set(k, w);
    }
    for (const r of runs(p)) {
      const gold = new Set<string>();
      for (const para of r.paras) {
        for (const c of para.cite_spans ?? []) {
          const w = keyOf.get(c.ref_id);
          if (w) gold.add(w);
        }
        for (const m of para.text.matchAll(/\{\{cite:([^}]+)\}\}/g)) {
          const w = keyOf.get(m[1] as string);
          if (w) gold.add(w);
        }
      }
      if (gold.size === 0) continue;
      const first = oneLine((r.paras[0] as Para).text.replace(/\{\{\w+:[^}]+\}\}/g, " "));
      queries.push({ query: `${r.heading}\n${first}`.slice(0, 8000), gold });
    }
  }
  const rid = `eval-refs-${Date.now().toString(36)}`;
  const rg = admin.withKey((await admin.createArchive({ id: rid, name: "unarXive bibliography", params })).key.secret);
  for (let i = 0; i < works.length; i += 200)
    await rg.ingest(rid, {
      artifacts: works
        .slice(i, i + 200)
        .map((w) => ({ id: w.id, kind: "paper" as const, title: w.title, content: w.text })),
    });
  const b1 = await winkBm25(works, 1);
  const b2 = await winkBm25(works, 2);
  const refPg = tally();
  const refBm = tally();
  const refBm2 = tally();
  let routeMs = 0;
  let sameSet = 0;
  log(`references: ${queries.length} sections over ${works.length} works`);
  for (const q of queries) {
    const t0 = performance.now();
    const r = await rg.route(rid, { query: q.query, limit: K, filter: { kinds: ["paper"] } });
    routeMs += performance.now() - t0;
    add(
      refPg,
      r.selected.map((x) => x.chunk),
      q.gold,
    );
    const bmTop = b1.search(q.query, K);
    const pgTop = new Set(r.selected.slice(0, K).map((x) => x.chunk));
    if (bmTop.length === pgTop.size && bmTop.every((x) => pgTop.has(x))) sameSet++;
    add(refBm, bmTop, q.gold);
    add(refBm2, b2.search(q.query, K), q.gold);
  }
  const share = (x: [number, number]) => (x[1] ? (100 * x[0]) / x[1] : 0);
  return {
    papers: papers.length,
    chunks: { sections: sectionCount, elements: elementCount },
    locate: {
      elements,
      skippedNoCaption,
      sectionsOnly: done(sectionsOnly),
      withElements: done(withElements),
      bm25: done(bm),
      msPerQuery: locateCalls ? locateMs / locateCalls : 0,
    },
    references: {
      works: works.length,
      sections: queries.length,
      paperguru: done(refPg),
      bm25: done(refBm),
      bm25Title2: done(refBm2),
      sameTop10AsBm25: queries.length ? (100 * sameSet) / queries.length : 0,
      msPerQuery: queries.length ? routeMs / queries.length : 0,
    },
    coverage: {
      papers: cov.papers,
      share: cov.papers ? (100 * cov.share) / cov.papers : 0,
      figures: share(counts.figure),
      tables: share(counts.table),
      sections: share(counts.section),
      equations: share(counts.equation),
    },
  };
}
