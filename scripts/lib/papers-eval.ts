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
 *
 * Per-node references with the papers' full text (the headline rows). A section's references are
 * its `cites` edges, so the question is asked of a section the archive has not seen: the sections
 * of each paper (as `runs` cuts them) alternate between two folds; for fold k the file is imported
 * as a user would (`POST /import?format=fulltext`, 5 papers per request) with fold k's sections
 * removed, and each removed section that cites a work is a query (heading and first paragraph,
 * markers removed). The bibliographies stay whole: the importer makes every work a `paper` chunk
 * and gives the works no remaining section cites a `cites` edge from the paper, so the archive knows
 * which works each paper cites but not which held-out section cites them. Gold = the works the
 * section cites, named as the importer names them (`bibliographyIds`, then the import's merges).
 * Candidates = every `paper` chunk of the archive (the works and the 49 papers) except the query's
 * own paper (route `filter.exclude`; dropped from the baselines' lists too). Compared with
 * Okapi BM25 over the same chunks (title + content as stored) and, as the strongest honest lexical
 * baseline with the same knowledge, BM25 over each work's text plus the text of the kept sections
 * that cite it (citation-context expansion, built from the file by the harness).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PaperGuruClient } from "../../src/client";
import { bibliographyIds } from "../../src/core/formats/fulltext";
import { paperIdentity } from "../../src/core/formats/paper";
import { type Doc, type Ranker, winkBm25 } from "./baselines";
import { harnessFetch, type Server } from "./server";

interface Para {
  section: string | null;
  sec_number?: string | null;
  text: string;
  cite_spans?: Array<{ ref_id: string }>;
}
export interface Paper {
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
    /** With the papers' full text, each query section held out (absent in older runs). */
    heldOut?: HeldOutReferences;
  };
  coverage: { papers: number; share: number; figures: number; tables: number; sections: number; equations: number };
}

export interface HeldOutPool {
  paperguru: PaperMetrics;
  bm25: PaperMetrics;
  bm25Contexts: PaperMetrics;
  /** Per query, PaperGuru's reciprocal rank against the stronger BM25's. */
  vsBest: { better: number; equal: number; worse: number };
  msPerQuery: number;
}
export interface HeldOutReferences {
  folds: number;
  sections: number;
  /** `paper` chunks of the fold archives (works and papers), mean over folds. */
  candidates: number;
  /** Mean size of a query's own paper's bibliography (works). */
  bibliography: number;
  /** Candidates: every paper chunk of the archive but the query's own paper. */
  archive: HeldOutPool;
  /** Candidates: the works the query's paper cites (route `filter.cited_by`). */
  ownBibliography: HeldOutPool;
}

const MARKERS = /\{\{\w+:[^}]+\}\}/g;
const citedKeys = (para: Para): string[] => [
  ...(para.cite_spans ?? []).map((c) => c.ref_id),
  ...[...para.text.matchAll(/\{\{cite:([^}]+)\}\}/g)].map((m) => m[1] as string),
];

export async function heldOutReferences(
  admin: PaperGuruClient,
  papers: Paper[],
  params: Params,
): Promise<HeldOutReferences> {
  const FOLDS = 2;
  const pool = () => ({ pg: tally(), bm: tally(), ctx: tally(), vs: { better: 0, equal: 0, worse: 0 }, ms: 0 });
  const pools = { archive: pool(), own: pool() };
  let candidates = 0;
  let bibSize = 0;
  const score = (
    p: ReturnType<typeof pool>,
    gold: Set<string>,
    pgTop: string[],
    bmTop: string[],
    ctxTop: string[],
    ms: number,
  ) => {
    add(p.pg, pgTop, gold);
    add(p.bm, bmTop, gold);
    add(p.ctx, ctxTop, gold);
    p.ms += ms;
    const mine = rankOf(pgTop, gold);
    const best = Math.max(rankOf(bmTop, gold), rankOf(ctxTop, gold));
    if (mine > best) p.vs.better++;
    else if (mine < best) p.vs.worse++;
    else p.vs.equal++;
  };
  for (let fold = 0; fold < FOLDS; fold++) {
    const fid = `eval-refs-held${fold}-${Date.now().toString(36)}`;
    const c = admin.withKey(
      (await admin.createArchive({ id: fid, name: `unarXive, section fold ${fold} held out`, params })).key.secret,
    );
    const queries: Array<{ query: string; gold: Set<string>; paper: string }> = [];
    /** Paper chunk id -> the works its bibliography names (as the importer names them). */
    const bibOf = new Map<string, Set<string>>();
    /** Work id (as the importer names it) -> text of the kept sections citing it. */
    const contexts = new Map<string, string[]>();
    const records: string[] = [];
    for (const p of papers) {
      const ids = bibliographyIds(JSON.parse(JSON.stringify(p))) ?? new Map<string, string>();
      bibOf.set(`arxiv:${p.paper_id}`, new Set(ids.values()));
      const keep: Para[] = [];
      for (const [i, r] of runs(p).entries()) {
        const cited = new Set<string>();
        for (const para of r.paras)
          for (const k of citedKeys(para)) {
            const w = ids.get(k);
            if (w) cited.add(w);
          }
        if (i % FOLDS === fold) {
          const first = oneLine((r.paras[0] as Para).text.replace(MARKERS, " "));
          if (cited.size)
            queries.push({ query: `${r.heading}\n${first}`.slice(0, 8000), gold: cited, paper: `arxiv:${p.paper_id}` });
          continue;
        }
        keep.push(...r.paras);
        const text = `${r.heading} ${oneLine(
          r.paras
            .map((x) => x.text)
            .join(" ")
            .replace(MARKERS, " "),
        )}`;
        for (const w of cited) {
          const list = contexts.get(w) ?? [];
          list.push(text);
          contexts.set(w, list);
        }
      }
      records.push(JSON.stringify({ ...p, body_text: keep }));
    }
    const renamed = new Map<string, string>();
    for (let i = 0; i < records.length; i += 5) {
      const r = await c.importText(
        fid,
        "fulltext",
        records.slice(i, i + 5).join("\n"),
        `unarxive-fold${fold}-${i}.jsonl`,
      );
      for (const m of r.merges) renamed.set(m.from, m.into);
    }
    const named = (w: string) => renamed.get(w) ?? w;
    const docs: Doc[] = [];
    for await (const x of c.allChunks(fid, { kind: "paper" }))
      docs.push({ id: x.id, title: x.title, text: (await c.content(fid, x.id)).text });
    candidates += docs.length / FOLDS;
    const ctxOf = new Map<string, string[]>();
    for (const [w, t] of contexts) ctxOf.set(named(w), [...(ctxOf.get(named(w)) ?? []), ...t]);
    const bm = await winkBm25(docs, 1);
    const bmCtx = await winkBm25(
      docs.map((d) => ({ ...d, text: [d.text, ...(ctxOf.get(d.id) ?? [])].join("\n") })),
      1,
    );
    log(`references, fold ${fold}: ${queries.length} held-out sections over ${docs.length} paper chunks`);
    const docById = new Map(docs.map((d) => [d.id, d]));
    const perPaper = new Map<string, { bm: Ranker | null; ctx: Ranker | null; ids: string[] }>();
    const paperRankers = async (paper: string) => {
      const have = perPaper.get(paper);
      if (have) return have;
      const mine = [...new Set([...(bibOf.get(paper) ?? [])].map(named))]
        .map((w) => docById.get(w))
        .filter((d): d is Doc => d !== undefined);
      // wink's BM25 needs at least 3 documents to consolidate; smaller pools rank in id order.
      const r = {
        bm: mine.length >= 3 ? await winkBm25(mine, 1) : null,
        ctx:
          mine.length >= 3
            ? await winkBm25(
                mine.map((d) => ({ ...d, text: [d.text, ...(ctxOf.get(d.id) ?? [])].join("\n") })),
                1,
              )
            : null,
        ids: mine.map((d) => d.id),
      };
      perPaper.set(paper, r);
      return r;
    };
    for (const q of queries) {
      const gold = new Set([...q.gold].map(named));
      const own = await paperRankers(q.paper);
      bibSize += own.ids.length;
      const t1 = performance.now();
      const inBib = await c.route(fid, { query: q.query, limit: K, filter: { kinds: ["paper"], cited_by: q.paper } });
      const msBib = performance.now() - t1;
      score(
        pools.own,
        gold,
        inBib.selected.map((x) => x.chunk),
        own.bm ? own.bm.search(q.query, K) : own.ids.slice(0, K),
        own.ctx ? own.ctx.search(q.query, K) : own.ids.slice(0, K),
        msBib,
      );
      const t0 = performance.now();
      // The section's own paper is not one of its references: excluded for every method.
      const r = await c.route(fid, { query: q.query, limit: K, filter: { kinds: ["paper"], exclude: [q.paper] } });
      const ms = performance.now() - t0;
      const others = (ids: string[]) => ids.filter((x) => x !== q.paper).slice(0, K);
      score(
        pools.archive,
        gold,
        r.selected.map((x) => x.chunk),
        others(bm.search(q.query, K + 1)),
        others(bmCtx.search(q.query, K + 1)),
        ms,
      );
    }
  }
  const out = (p: ReturnType<typeof pool>): HeldOutPool => ({
    paperguru: done(p.pg),
    bm25: done(p.bm),
    bm25Contexts: done(p.ctx),
    vsBest: p.vs,
    msPerQuery: p.pg.n ? p.ms / p.pg.n : 0,
  });
  const n = pools.archive.pg.n;
  return {
    folds: FOLDS,
    sections: n,
    candidates: Math.round(candidates),
    bibliography: n ? bibSize / n : 0,
    archive: out(pools.archive),
    ownBibliography: out(pools.own),
  };
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
  const heldOut = await heldOutReferences(admin, papers, params);
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
      heldOut,
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
