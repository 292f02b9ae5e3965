/**
 * Retrieval metrics against given gold ids (Paper Circle, seed 004 §E): per query, over the ranked
 * list a retriever returned,
 * - hit@K = 1 when a gold id is among the first K, else 0; the hit rate is hit@max(K);
 * - reciprocal rank = 1 / (rank of the first gold id), 0 when no gold id is in the list (MRR is its mean);
 * - Recall@K = |gold ∩ top K| / |gold|; Precision@K = |gold ∩ top K| / K (K, not the list length, so
 *   a short list is not rewarded).
 * Aggregates are plain means over the queries. Repeated ids in a ranking count once (first rank).
 * Linear in the list and the gold set.
 */

export interface QueryMetrics {
  hit: number;
  reciprocal_rank: number;
  /** 1-based rank of the first gold id, null when none was returned. */
  first_rank: number | null;
  recall: Record<string, number>;
  precision: Record<string, number>;
}

export interface AggregateMetrics {
  queries: number;
  hit_rate: number;
  mrr: number;
  recall: Record<string, number>;
  precision: Record<string, number>;
}

/** Metrics of one ranking against its gold ids at each K (K >= 1, deduplicated, ascending). */
export function queryMetrics(ranked: readonly string[], gold: readonly string[], ks: readonly number[]): QueryMetrics {
  const goldSet = new Set(gold);
  const seen = new Set<string>();
  const hitRanks: number[] = [];
  let rank = 0;
  for (const id of ranked) {
    if (seen.has(id)) continue;
    seen.add(id);
    rank++;
    if (goldSet.has(id)) hitRanks.push(rank);
  }
  const maxK = Math.max(...ks);
  const first = hitRanks[0] ?? null;
  const recall: Record<string, number> = {};
  const precision: Record<string, number> = {};
  for (const k of ks) {
    const n = hitRanks.filter((r) => r <= k).length;
    recall[String(k)] = goldSet.size ? n / goldSet.size : 0;
    precision[String(k)] = n / k;
  }
  return {
    hit: first !== null && first <= maxK ? 1 : 0,
    reciprocal_rank: first !== null ? 1 / first : 0,
    first_rank: first,
    recall,
    precision,
  };
}

/** Means over the queries (all zero for none). */
export function aggregateMetrics(per: readonly QueryMetrics[], ks: readonly number[]): AggregateMetrics {
  const n = per.length;
  const mean = (f: (m: QueryMetrics) => number) => (n ? per.reduce((s, m) => s + f(m), 0) / n : 0);
  const recall: Record<string, number> = {};
  const precision: Record<string, number> = {};
  for (const k of ks) {
    recall[String(k)] = mean((m) => m.recall[String(k)] ?? 0);
    precision[String(k)] = mean((m) => m.precision[String(k)] ?? 0);
  }
  return { queries: n, hit_rate: mean((m) => m.hit), mrr: mean((m) => m.reciprocal_rank), recall, precision };
}

/** The K values of a request: integers >= 1, deduplicated and ascending. */
export function normaliseKs(ks: readonly number[]): number[] {
  return [...new Set(ks.map((k) => Math.trunc(k)).filter((k) => k >= 1))].sort((a, b) => a - b);
}
