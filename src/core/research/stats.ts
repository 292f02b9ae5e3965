/**
 * Collection statistics and insights (seed 004, Appendices E.3 and E.4) over papers the caller has
 * read exactly (as of a time, within a scope). Pure and linear in the papers and their title words.
 *
 * PaperGuru's definitions:
 * - year: the `year:<yyyy>` boundary; none for a record with UNDATED (`year:unknown`: an importer
 *   read no date, so valid_from is the import's time) or valid from the epoch; else the UTC year of
 *   valid_from (importers set both);
 * - source: the host of the version's `source` URL without `www.` (arxiv.org, openalex.org), else
 *   its text before the first `:` or `#` (a DOI prefix, an imported file's name), else `(none)`;
 * - authors and venues: the paper's `person:` and `venue:` entities;
 * - citations: the `citations` annotation at as_of when set (a source's count), else the in-archive
 *   `cites` in-degree at as_of;
 * - title keywords: each title's distinct words (letters or digits, ≥ 3 characters, not a stop word,
 *   not a number), counted once per title;
 * - open access is known for a paper with an `open_access` annotation (true or false), an
 *   `open-access` boundary, or an arxiv.org source (arXiv is open access); the share is over the
 *   papers where it is known, null when none is.
 */
import { STOPWORDS } from "../text/analyze";
import { UNDATED } from "../types";

export interface StatsPaper {
  chunk: string;
  title: string;
  boundaries: string[];
  validFrom: number;
  source: string;
  authors: Array<{ id: string; name: string }>;
  venues: Array<{ id: string; name: string }>;
  citations: number;
  citationsFrom: "annotation" | "cites";
  openAccess: boolean | null;
}

export const TOP_AUTHORS = 10;
export const TOP_VENUES = 10;
export const TOP_KEYWORDS = 20;
export const HOT_TOPICS = 5;

export function paperYear(boundaries: readonly string[], validFrom: number): number | null {
  for (const b of boundaries) {
    const m = /^year:(\d{4})$/.exec(b);
    if (m) return Number(m[1]);
  }
  if (boundaries.includes(UNDATED)) return null;
  // Valid from the epoch: a work known only from a bibliography, date unknown.
  return validFrom <= 0 ? null : new Date(validFrom).getUTCFullYear();
}

export function sourceName(source: string): string {
  const s = source.trim();
  if (!s) return "(none)";
  if (/^https?:\/\//i.test(s)) {
    try {
      return new URL(s).hostname.toLowerCase().replace(/^www\./, "");
    } catch {
      return s.slice(0, 200);
    }
  }
  const cut = s.search(/[:#]/);
  return (cut > 0 ? s.slice(0, cut) : s).slice(0, 200);
}

export function titleWords(title: string): string[] {
  const out = new Set<string>();
  for (const w of title.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    if (w.length >= 3 && !STOPWORDS.has(w) && !/^\p{N}+$/u.test(w)) out.add(w);
  return [...out];
}

const desc =
  <T extends { count: number }>(key: (x: T) => string) =>
  (a: T, b: T) =>
    b.count - a.count || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

function tally(papers: readonly StatsPaper[], pick: (p: StatsPaper) => Array<{ id: string; name: string }>) {
  const m = new Map<string, { entity: string; name: string; count: number }>();
  for (const p of papers)
    for (const e of new Map(pick(p).map((x) => [x.id, x])).values()) {
      const cur = m.get(e.id) ?? { entity: e.id, name: e.name, count: 0 };
      cur.count++;
      m.set(e.id, cur);
    }
  return [...m.values()].sort(desc((x) => x.entity));
}

export function collectionStats(papers: readonly StatsPaper[]) {
  const years = new Map<number, number>();
  const sources = new Map<string, number>();
  const words = new Map<string, number>();
  for (const p of papers) {
    const y = paperYear(p.boundaries, p.validFrom);
    if (y !== null) years.set(y, (years.get(y) ?? 0) + 1);
    const s = sourceName(p.source);
    sources.set(s, (sources.get(s) ?? 0) + 1);
    for (const w of titleWords(p.title)) words.set(w, (words.get(w) ?? 0) + 1);
  }
  const yearList = [...years].map(([year, count]) => ({ year, count })).sort((a, b) => a.year - b.year);
  const sourceList = [...sources].map(([source, count]) => ({ source, count })).sort(desc((x) => x.source));
  const authors = tally(papers, (p) => p.authors);
  const venues = tally(papers, (p) => p.venues);
  const keywords = [...words]
    .map(([term, count]) => ({ term, count }))
    .sort(desc((x) => x.term))
    .slice(0, TOP_KEYWORDS);
  const cites = papers.map((p) => p.citations).sort((a, b) => a - b);
  const total = cites.reduce((s, x) => s + x, 0);
  const n = cites.length;
  const median =
    n === 0
      ? null
      : n % 2
        ? (cites[(n - 1) / 2] as number)
        : ((cites[n / 2 - 1] as number) + (cites[n / 2] as number)) / 2;
  let leader: StatsPaper | null = null;
  for (const p of papers)
    if (!leader || p.citations > leader.citations || (p.citations === leader.citations && p.chunk < leader.chunk))
      leader = p;
  const peak = [...yearList].sort((a, b) => b.count - a.count || b.year - a.year)[0] ?? null;
  const primary = sourceList[0] ?? null;
  const known = papers.filter((p) => p.openAccess !== null);
  const open = known.filter((p) => p.openAccess).length;
  return {
    papers: n,
    years: yearList,
    sources: sourceList,
    top_authors: authors.slice(0, TOP_AUTHORS),
    top_venues: venues.slice(0, TOP_VENUES),
    title_keywords: keywords,
    citations: {
      total,
      mean: n ? total / n : null,
      median,
      min: n ? (cites[0] as number) : null,
      max: n ? (cites[n - 1] as number) : null,
      from_annotation: papers.filter((p) => p.citationsFrom === "annotation").length,
      from_cites: papers.filter((p) => p.citationsFrom === "cites").length,
    },
    insights: {
      peak_year: peak,
      primary_source: primary && { ...primary, share: primary.count / n },
      prolific_authors: authors.filter((a) => a.count >= 2).slice(0, TOP_AUTHORS),
      citation_leader: leader && n ? { chunk: leader.chunk, title: leader.title, citations: leader.citations } : null,
      hot_topics: keywords.slice(0, HOT_TOPICS).map((k) => k.term),
      open_access: { known: known.length, open, share: known.length ? open / known.length : null },
    },
  };
}

export type CollectionStats = ReturnType<typeof collectionStats>;

/** Open access as PaperGuru knows it (see the module comment); null when unknown. */
export function openAccessOf(annotation: unknown, boundaries: readonly string[], source: string): boolean | null {
  if (typeof annotation === "boolean") return annotation;
  if (boundaries.includes("open-access")) return true;
  if (sourceName(source) === "arxiv.org") return true;
  return null;
}
