/**
 * Paper Circle's ranking modes, sorts, MMR and views (seed 004, Appendices D and E.2) applied to a
 * route's candidate pool (the top-M heads after filters, M = 256 by default), never to the archive.
 * Pure; the caller supplies each candidate's text (title + synopsis), year, citations, venues and
 * the route's head score.
 *
 * Cost: scoring is O(pool · terms) (TF-IDF, centroid, Eq. 3), sorting O(pool log pool); MMR adds
 * k · pool TF-IDF cosines (Eq. 4, k = the number of results asked for).
 *
 * Relevance before diversity: with a similarity floor (`minSimilarity`), candidates whose query
 * similarity (the route's cosine, clamped to [0, 1]) is below it leave the pool before any score is
 * normalised, before the views, the sorts and MMR, unless their BM25 is at least LEXICAL_RESCUE of the
 * pool's best, so a view over an archive with few papers on the query returns fewer items, never
 * off-topic ones. A venue filter and a year range apply at the same point. `relevant` counts what remains.
 *
 * PaperGuru's choices where the seed leaves a value out:
 * - mode `poe` (the default) keeps the route's order: its "combined" score is the head score
 *   divided by the pool's best, and MMR in that mode uses λ = 0.8 (the relevance-focused λ of stable);
 * - hidden gems: novelty-sorted items whose combined rank is below 20 (rank 21 on), as the seed says;
 * - canonical: citations ≥ `minCitations` (default 50), or a citation count in the pool's top
 *   `topShare` (default 10%, at least one citation: in-archive counts are small), or a venue in
 *   `venues` (entity id or name, case-insensitive; default none). Ordered by citations, then combined.
 */
import {
  type Candidate,
  dot,
  MODES,
  mmr,
  type RankingMode,
  type Scored,
  scorePool,
  tfidf,
  type Weights,
} from "./ranking";

export const POOL_MODES = ["poe", "stable", "discovery", "balanced"] as const;
export type PoolMode = (typeof POOL_MODES)[number];
export const SORT_KEYS = ["combined", "similarity", "recency", "novelty", "bm25", "citations"] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export const VIEWS = ["hidden_gems", "canonical"] as const;
export type View = (typeof VIEWS)[number];

/** Hidden gems start below this combined rank (seed 004, E.2). */
export const HIDDEN_GEM_RANK = 20;
/** MMR's λ in mode poe (PaperGuru's: stable's relevance-focused 0.8). */
export const POE_LAMBDA = 0.8;
export const CANONICAL_DEFAULTS = { minCitations: 50, topShare: 0.1 } as const;
/**
 * The similarity floor a reordering ranking applies unless the caller gives one. Measured on the
 * unArXive archive (49 papers, 3,810 chunks, local hashed embedder; scripts/pc-views.ts) over the
 * route's pools for 5 queries (137-245 candidates each): 0.2 keeps 23-80% of a pool; of the 308
 * candidates whose title + synopsis share no content term with the query it drops 290, and of the 331
 * whose exact cosine to the query is below 0.1 it drops 314 (the rest pass on the sketch's error,
 * about ±0.1 for a candidate the vector index did not return). A lexical floor alone (a BM25 hit) kept
 * 53-96% of the pools, off-topic sections included. The floor alone cost recall on known-item template
 * queries (eval --only ranking, stable R@50: CiteSeer 0.978 -> 0.929, the unArXive bibliography
 * 0.999 -> 0.837: a short query's cosine to a long reference string is low), hence the lexical rescue
 * (0.978 and 0.995). It is a cosine of the archive's embedder: a model embedder (cosines of unrelated
 * texts around 0.3-0.5) needs its own.
 */
export const DEFAULT_MIN_SIMILARITY = 0.2;
/** Results whose intra-list similarity is reported. */
export const ILS_K = 10;

const clampSim = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
const fold = (s: string) => s.trim().toLowerCase();

export interface PoolCandidate extends Candidate {
  version: number;
  /** The head score the route gave it. */
  poe: number;
  /** Venue entity ids and names (for the canonical view). */
  venues: string[];
}

export interface RankOptions {
  mode: PoolMode;
  weights?: Partial<Weights> | undefined;
  sort?: SortKey | undefined;
  mmr?: boolean | undefined;
  lambda?: number | undefined;
  view?: View | undefined;
  canonical?: { minCitations?: number | undefined; topShare?: number | undefined; venues?: string[] | undefined };
  /** Results wanted (MMR picks this many). */
  k: number;
  /** Candidates with a query similarity below this leave the pool first (0 or absent: none). */
  minSimilarity?: number | undefined;
  /** Only candidates with one of these venues (ids or names, case-insensitive). */
  venues?: readonly string[] | undefined;
  /** Only candidates of a known year within [yearFrom, yearTo] (each bound optional). */
  yearFrom?: number | undefined;
  yearTo?: number | undefined;
}

/**
 * A candidate under the similarity floor stays when its BM25 is at least this share of the pool's
 * best: the query's words, its rarest among them, are in its text (a short query's cosine to a long
 * text is low even when the text holds the query's phrase).
 */
export const LEXICAL_RESCUE = 0.5;

/**
 * Whether a candidate passes the venue and year filters and the similarity floor (or, under the
 * floor, the lexical rescue; `maxBm25` = the pool's largest raw BM25).
 */
export function inScope(p: PoolCandidate, o: Omit<RankOptions, "mode" | "k">, maxBm25 = 0): boolean {
  if (o.venues?.length) {
    const want = new Set(o.venues.map(fold));
    if (!p.venues.some((v) => want.has(fold(v)))) return false;
  }
  if (o.yearFrom !== undefined || o.yearTo !== undefined) {
    if (p.year === null) return false;
    if (o.yearFrom !== undefined && p.year < o.yearFrom) return false;
    if (o.yearTo !== undefined && p.year > o.yearTo) return false;
  }
  const floor = o.minSimilarity ?? 0;
  if (floor <= 0 || clampSim(p.similarity) >= floor) return true;
  return maxBm25 > 0 && p.bm25 >= LEXICAL_RESCUE * maxBm25;
}

export interface RankedItem extends Scored {
  version: number;
  year: number | null;
  /** 1-based position in the combined ranking (the mode's Eq. 3 score, or PoE). */
  combinedRank: number;
  /** 1-based MMR pick order, null when MMR is off or the item was not picked. */
  mmrRank: number | null;
}

export interface RankOutcome {
  mode: PoolMode;
  weights: Weights | null;
  lambda: number | null;
  /** The final order: the view, the sort, MMR's picks then the rest, or the combined ranking. */
  items: RankedItem[];
  pool: number;
  /** Candidates at or above the similarity floor (= pool without one): what was ranked. */
  relevant: number;
  minSimilarity: number;
  /** Mean pairwise TF-IDF cosine of the first ILS_K items (0 with fewer than 2). */
  intraListSimilarity: number;
  /** Pairwise similarity evaluations MMR made (k · pool at most). */
  mmrComparisons: number;
  /** Mean scores over every ranked candidate (the relevant pool, not only the first k). */
  scoreStats: ScoreStats;
}

/** Leaderboard entries a stats export lists by default (seed 004, E.3's stats.json leaderboard). */
export const LEADERBOARD_K = 10;

/**
 * Seed 004, E.3's score statistics: the mean similarity, recency, novelty and BM25 (each in [0, 1]
 * as the pool normalises them) and the mean combined score over the `ranked` candidates; all 0
 * when none was ranked.
 */
export interface ScoreStats {
  ranked: number;
  mean: { similarity: number; recency: number; novelty: number; bm25: number; combined: number };
}

export function scoreStats(items: readonly Scored[]): ScoreStats {
  const sum = { similarity: 0, recency: 0, novelty: 0, bm25: 0, combined: 0 };
  for (const x of items) {
    sum.similarity += x.similarity;
    sum.recency += x.recency;
    sum.novelty += x.novelty;
    sum.bm25 += x.bm25;
    sum.combined += x.combined;
  }
  const n = items.length;
  const avg = (v: number) => (n ? v / n : 0);
  return {
    ranked: n,
    mean: {
      similarity: avg(sum.similarity),
      recency: avg(sum.recency),
      novelty: avg(sum.novelty),
      bm25: avg(sum.bm25),
      combined: avg(sum.combined),
    },
  };
}

const byCombined = (a: RankedItem, b: RankedItem) =>
  b.combined - a.combined || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Mean pairwise cosine of the given L2-normalised TF-IDF vectors. */
export function intraListSimilarity(vecs: ReadonlyArray<Map<string, number>>): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < vecs.length; i++)
    for (let j = i + 1; j < vecs.length; j++) {
      sum += dot(vecs[i] as Map<string, number>, vecs[j] as Map<string, number>);
      n++;
    }
  return n ? sum / n : 0;
}

export function rankPool(all: readonly PoolCandidate[], o: RankOptions): RankOutcome {
  const minSimilarity = o.minSimilarity ?? 0;
  const maxBm25 = Math.max(0, ...all.map((p) => (Number.isFinite(p.bm25) ? p.bm25 : 0)));
  const pool = all.filter((p) => inScope(p, o, maxBm25));
  const base = o.mode === "poe" ? null : MODES[o.mode as RankingMode];
  const weights = base ? { ...base.weights, ...definedOnly(o.weights ?? {}) } : null;
  const vecs = tfidf(pool.map((p) => p.text));
  // poe: the other scores are still computed (shown per item); combined is PoE / max PoE.
  const scored = scorePool(pool, weights ?? { similarity: 0, recency: 0, novelty: 0, bm25: 0 }, vecs);
  if (!weights) {
    const maxPoe = Math.max(0, ...pool.map((p) => p.poe));
    scored.forEach((s, i) => {
      s.combined = maxPoe > 0 ? (pool[i] as PoolCandidate).poe / maxPoe : 0;
    });
  }
  const items: RankedItem[] = scored.map((s, i) => ({
    ...s,
    version: (pool[i] as PoolCandidate).version,
    year: (pool[i] as PoolCandidate).year,
    combinedRank: 0,
    mmrRank: null,
  }));
  const combinedOrder = [...items].sort(byCombined);
  combinedOrder.forEach((x, i) => {
    x.combinedRank = i + 1;
  });
  const lambda = o.mmr ? (o.lambda ?? base?.lambda ?? POE_LAMBDA) : null;
  let order = combinedOrder;
  let comparisons = 0;
  if (o.view === "hidden_gems") {
    order = combinedOrder
      .filter((x) => x.combinedRank > HIDDEN_GEM_RANK)
      .sort((a, b) => b.novelty - a.novelty || byCombined(a, b));
  } else if (o.view === "canonical") {
    const minCitations = o.canonical?.minCitations ?? CANONICAL_DEFAULTS.minCitations;
    const topShare = o.canonical?.topShare ?? CANONICAL_DEFAULTS.topShare;
    const venues = new Set((o.canonical?.venues ?? []).map(fold));
    const counts = items.map((x) => x.citations ?? 0).sort((a, b) => b - a);
    const topN = Math.ceil(topShare * items.length);
    const cut = topN > 0 ? Math.max(1, counts[topN - 1] ?? 0) : Number.POSITIVE_INFINITY;
    const byId = new Map(pool.map((p) => [p.id, p]));
    order = combinedOrder
      .filter((x) => {
        const c = x.citations ?? 0;
        const v = byId.get(x.id)?.venues ?? [];
        return c >= minCitations || c >= cut || v.some((n) => venues.has(fold(n)));
      })
      .sort((a, b) => (b.citations ?? 0) - (a.citations ?? 0) || byCombined(a, b));
  } else if (lambda !== null) {
    const byId = new Map(items.map((x) => [x.id, x]));
    // sim(p, q) as the kernel measures it: the route's head score over the pool's best (lexical,
    // dense and graph experts), not the mode's combined score, which mixes in recency and novelty.
    const maxPoe = Math.max(0, ...pool.map((p) => p.poe));
    const relevance = pool.map((p) => (maxPoe > 0 ? p.poe / maxPoe : 0));
    const picks = mmr(pool, scored, lambda, Math.min(o.k, pool.length), vecs, relevance);
    comparisons = picks.length > 1 ? (picks.length - 1) * pool.length : 0;
    picks.forEach((id, i) => {
      (byId.get(id) as RankedItem).mmrRank = i + 1;
    });
    const picked = new Set(picks);
    order = [...picks.map((id) => byId.get(id) as RankedItem), ...combinedOrder.filter((x) => !picked.has(x.id))];
  } else if (o.sort && o.sort !== "combined") {
    const key = o.sort;
    const val = (x: RankedItem) => (key === "citations" ? (x.citations ?? -1) : x[key]);
    order = [...combinedOrder].sort((a, b) => val(b) - val(a) || byCombined(a, b));
  }
  const index = new Map(pool.map((p, i) => [p.id, i]));
  const top = order.slice(0, ILS_K).map((x) => vecs[index.get(x.id) as number] as Map<string, number>);
  return {
    mode: o.mode,
    weights,
    lambda,
    items: order,
    pool: all.length,
    relevant: pool.length,
    minSimilarity,
    intraListSimilarity: intraListSimilarity(top),
    mmrComparisons: comparisons,
    scoreStats: scoreStats(items),
  };
}

function definedOnly(w: Partial<Weights>): Partial<Weights> {
  return Object.fromEntries(Object.entries(w).filter(([, v]) => v !== undefined)) as Partial<Weights>;
}
