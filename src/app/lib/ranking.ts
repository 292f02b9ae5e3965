/**
 * A request's `ranking` (Paper Circle's modes, sorts, MMR and views over the route's candidate pool)
 * as the core's PoolRanking, and a ranked pool (src/core/research/pool-reads.ts) on the wire.
 */
import type * as S from "../../contract";
import { type PoolRanking, type PoolReads, type RankedPool, rankCandidatesAt } from "../../core/research/pool-reads";
import { DEFAULT_MIN_SIMILARITY, type RankedItem } from "../../core/research/rank-pool";
import type { Candidate } from "../../core/types";
import { wireScoreStats } from "./query-spec";
import { type In, round4 } from "./wire";

/** Whether the ranking orders by Paper Circle's scores (mode poe alone keeps the route's order). */
const reranks = (r: In<typeof S.RankingSchema>) =>
  r.mode !== "poe" || r.mmr || r.view !== undefined || (r.sort !== undefined && r.sort !== "combined");

/** Whether the ranking input narrows the pool (a similarity floor, venues or a year range given). */
const narrows = (r: In<typeof S.RankingSchema>) =>
  r.min_similarity !== undefined || r.venues !== undefined || r.year_from !== undefined || r.year_to !== undefined;

/**
 * Whether the ranking input changes the route's result: a reordering, or a narrowing of the pool
 * (mode poe alone only adds the scores).
 */
export const reorders = (r: In<typeof S.RankingSchema>) => reranks(r) || narrows(r);

/** The similarity floor: the caller's, else the default when the ranking reorders, else none. */
export const floorOf = (r: In<typeof S.RankingSchema>) => r.min_similarity ?? (reranks(r) ? DEFAULT_MIN_SIMILARITY : 0);

/** The wire ranking as the core's: its options (snake_case to camelCase) and whether it reorders. */
export function poolRanking(r: In<typeof S.RankingSchema>): PoolRanking {
  return {
    options: {
      mode: r.mode,
      weights: r.weights,
      sort: r.sort,
      mmr: r.mmr,
      lambda: r.lambda,
      view: r.view,
      canonical: r.canonical && {
        minCitations: r.canonical.min_citations,
        topShare: r.canonical.top_share,
        venues: r.canonical.venues,
      },
      minSimilarity: floorOf(r),
      venues: r.venues,
      yearFrom: r.year_from,
      yearTo: r.year_to,
    },
    reorders: reorders(r),
  };
}

/** A ranked item's scores on the wire (4 decimals), as items and leaderboard entries show them. */
export const itemScores = (x: RankedItem) => ({
  year: x.year,
  similarity: round4(x.similarity),
  recency: round4(x.recency),
  novelty: round4(x.novelty),
  bm25: round4(x.bm25),
  citations: x.citations,
});

/** A ranked pool on the wire: its first k items with their scores, the pool's figures and timings. */
export function wireRanking(p: RankedPool): In<typeof S.RankingResult> {
  const out = p.outcome;
  const items = out.items.slice(0, p.k).map((x, i) => {
    const { citations, ...scores } = itemScores(x);
    return {
      chunk: x.id,
      version: x.version,
      rank: i + 1,
      combined_rank: x.combinedRank,
      mmr_rank: x.mmrRank,
      ...scores,
      citations,
      citations_from: p.citationsFrom.get(x.id) ?? null,
      combined: round4(x.combined),
    };
  });
  return {
    mode: out.mode,
    weights: out.weights,
    lambda: out.lambda,
    sort: p.sort ?? "combined",
    view: p.view,
    pool: out.pool,
    relevant: out.relevant,
    min_similarity: out.minSimilarity,
    intra_list_similarity: round4(out.intraListSimilarity),
    mmr_comparisons: out.mmrComparisons,
    score_stats: wireScoreStats(out.scoreStats),
    items,
    timings_ms: { read: round4(p.timings.read), rank: round4(p.timings.rank) },
  };
}

/**
 * Ranks the route's candidates (never more: the pool is the top-M after filters) with the scores
 * read for them at t: title + synopsis, year, citations, venues. `k` = results wanted.
 */
export async function rankCandidates(
  reads: PoolReads,
  archive: string,
  candidates: readonly Candidate[],
  r: In<typeof S.RankingSchema>,
  t: number,
  k: number,
): Promise<{
  order: Array<{ chunk: string; version: number; score: number }>;
  result: In<typeof S.RankingResult>;
  /** Every ranked item in the final order, with its title (for a leaderboard). */
  ranked: Array<RankedItem & { title: string }>;
}> {
  const p = await rankCandidatesAt(reads, archive, candidates, poolRanking(r).options, t, k);
  return {
    order: p.outcome.items.map((x) => ({ chunk: x.id, version: x.version, score: x.combined })),
    ranked: p.outcome.items.map((x) => ({ ...x, title: p.titles.get(x.id) ?? "" })),
    result: wireRanking(p),
  };
}
