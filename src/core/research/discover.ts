/**
 * One-shot discovery's pure parts (seed 004, C.2): each engine's query built from the query spec,
 * a parsed engine answer (an ImportPlan of the source parsers) read as candidate records, the
 * records of all engines merged by DOI, arXiv id and normalised title, the spec's filters, and the
 * query scores (TF-IDF cosine and BM25 over the merged pool) that rank-pool's modes combine.
 */
import type { ImportPlan } from "../formats/types";
import { terms } from "../text/analyze";
import { BM25_B, BM25_K1 } from "../text/lexical";
import { type QuerySpec, specTerms } from "./query-spec";
import { dot, tfidf } from "./ranking";
import { paperYear } from "./stats";

/** The engines one request may search: the scholarly source kinds, through their public APIs. */
export const DISCOVERY_ENGINES = ["arxiv", "openalex", "crossref", "semanticscholar", "dblp"] as const;
export type Engine = (typeof DISCOVERY_ENGINES)[number];

export interface FoundRecord {
  /** The canonical chunk id the source parsers give it (arXiv > DOI > OpenAlex > … > title slug). */
  id: string;
  /** Every canonical id known for it (the id first). */
  ids: string[];
  doi: string | null;
  arxiv: string | null;
  title: string;
  abstract: string;
  year: number | null;
  authors: string[];
  venue: string | null;
  url: string | null;
  citations: number | null;
  /** The engines that returned it, in request order. */
  engines: Engine[];
}

/** Lowercase letters and digits of a title, diacritics dropped, single-spaced. */
export function normTitle(title: string): string {
  return title
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

const quoteIf = (t: string) => (t.includes(" ") ? `"${t}"` : t);

/**
 * The engine's query in its own language (src/core/sources/index.ts validates these forms): arXiv
 * a search_query of `all:` terms joined by AND (required terms, then up to 5 keywords); OpenAlex
 * `search=`; Crossref `query=`; Semantic Scholar and dblp the search text.
 */
export function engineQuery(engine: Engine, spec: QuerySpec): string {
  const text = spec.search || spec.query;
  switch (engine) {
    case "arxiv": {
      const ts = [...spec.required, ...spec.keywords.slice(0, 5)].map((t) => t.replace(/"/g, ""));
      const parts = ts.length ? ts : terms(spec.query).slice(0, 5);
      return parts.map((t) => `all:${quoteIf(t)}`).join(" AND ") || `all:${quoteIf(spec.query.replace(/[&="]/g, " "))}`;
    }
    case "openalex":
      return `search=${text.replace(/[&=]/g, " ")}`;
    case "crossref":
      return `query=${text.replace(/[&="]/g, " ").trim()}`;
    case "semanticscholar":
    case "dblp":
      return text.replace(/"/g, "");
  }
}

/** The paper records of a parsed engine answer (non-paper artifacts are not candidates). */
export function recordsOf(plan: ImportPlan, engine: Engine): FoundRecord[] {
  const cites = new Map<string, number>();
  for (const a of plan.annotations ?? [])
    if (a.key === "citations" && typeof a.value === "number" && Number.isFinite(a.value)) cites.set(a.chunk, a.value);
  const out: FoundRecord[] = [];
  for (const a of plan.artifacts) {
    if (a.kind !== "paper") continue;
    const ents = a.entities ?? [];
    const paper = ents.find((e) => e.type === "paper" && e.id === a.id);
    const ids = [a.id, ...(paper?.aliases ?? []).filter((x) => /^(?:doi|arxiv|openalex|dblp):/i.test(x))];
    const doi =
      ids
        .find((x) => x.startsWith("doi:"))
        ?.slice(4)
        .toLowerCase() ?? null;
    const arxiv = ids.find((x) => x.startsWith("arxiv:"))?.slice(6) ?? null;
    const gap = a.content.indexOf("\n\n");
    const year = paperYear(a.boundaries ?? [], a.valid_from ?? 0);
    out.push({
      id: a.id,
      ids: [...new Set(ids)],
      doi,
      arxiv,
      title: a.title,
      abstract: gap >= 0 ? a.content.slice(gap + 2).trim() : "",
      year,
      authors: ents.filter((e) => e.type === "person").map((e) => e.name),
      venue: ents.find((e) => e.type === "venue")?.name ?? null,
      url: a.source && /^https?:\/\//i.test(a.source) ? a.source : null,
      citations: cites.get(a.id) ?? null,
      engines: [engine],
    });
  }
  return out;
}

export interface MergeOutcome {
  records: FoundRecord[];
  fetched: number;
  byDoi: number;
  byArxiv: number;
  byTitle: number;
}

/**
 * Records of all engines as one list: a record whose DOI, arXiv id or normalised title (at least
 * 8 characters) equals an earlier one's is merged into it (engines united; missing fields filled;
 * the longer abstract and the larger citation count kept); otherwise appended.
 */
export function mergeRecords(lists: ReadonlyArray<readonly FoundRecord[]>): MergeOutcome {
  const records: FoundRecord[] = [];
  const byKey = new Map<string, number>();
  let fetched = 0;
  let byDoi = 0;
  let byArxiv = 0;
  let byTitle = 0;
  for (const list of lists)
    for (const r of list) {
      fetched++;
      const t = normTitle(r.title);
      const keys: Array<[string, "doi" | "arxiv" | "title"]> = [];
      if (r.doi) keys.push([`doi:${r.doi}`, "doi"]);
      if (r.arxiv) keys.push([`arxiv:${r.arxiv.toLowerCase()}`, "arxiv"]);
      if (t.length >= 8) keys.push([`title:${t}`, "title"]);
      const hit = keys.find(([k]) => byKey.has(k));
      if (!hit) {
        records.push({ ...r, ids: [...r.ids], engines: [...r.engines], authors: [...r.authors] });
        for (const [k] of keys) byKey.set(k, records.length - 1);
        continue;
      }
      if (hit[1] === "doi") byDoi++;
      else if (hit[1] === "arxiv") byArxiv++;
      else byTitle++;
      const i = byKey.get(hit[0]) as number;
      const m = records[i] as FoundRecord;
      for (const e of r.engines) if (!m.engines.includes(e)) m.engines.push(e);
      for (const x of r.ids) if (!m.ids.includes(x)) m.ids.push(x);
      m.doi ??= r.doi;
      m.arxiv ??= r.arxiv;
      m.year ??= r.year;
      m.venue ??= r.venue;
      m.url ??= r.url;
      if (r.abstract.length > m.abstract.length) m.abstract = r.abstract;
      if (m.authors.length === 0) m.authors = [...r.authors];
      if (r.citations !== null && (m.citations === null || r.citations > m.citations)) m.citations = r.citations;
      for (const [k] of keys) if (!byKey.has(k)) byKey.set(k, i);
    }
  return { records, fetched, byDoi, byArxiv, byTitle };
}

/**
 * Query scores of each record's title + abstract against the spec's terms (required, keywords,
 * related): similarity = cosine of TF-IDF vectors fitted on the pool and the query together;
 * bm25 = Okapi BM25 (k1 1.2, b 0.75) of the terms (stemmed as the archive's index does) over the pool.
 */
export function queryScores(spec: QuerySpec, texts: readonly string[]): Array<{ similarity: number; bm25: number }> {
  const q = specTerms(spec).join(" ") || spec.query;
  const vecs = tfidf([q, ...texts]);
  const qv = vecs[0] as Map<string, number>;
  const docs = texts.map((t) => terms(t));
  const avg = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const d of docs) for (const w of new Set(d)) df.set(w, (df.get(w) ?? 0) + 1);
  const qTerms = [...new Set(terms(q))];
  const n = docs.length;
  return docs.map((d, i) => {
    const tf = new Map<string, number>();
    for (const w of d) tf.set(w, (tf.get(w) ?? 0) + 1);
    let bm = 0;
    for (const w of qTerms) {
      const f = tf.get(w) ?? 0;
      if (!f) continue;
      const idf = Math.log(1 + (n - (df.get(w) ?? 0) + 0.5) / ((df.get(w) ?? 0) + 0.5));
      bm += (idf * f * (BM25_K1 + 1)) / (f + BM25_K1 * (1 - BM25_B + (BM25_B * d.length) / (avg || 1)));
    }
    return { similarity: dot(qv, vecs[i + 1] as Map<string, number>), bm25: bm };
  });
}
