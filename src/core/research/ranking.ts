/**
 * Paper Circle's ranking of a candidate pool (seed 004, Appendix D): per-paper scores in [0, 1],
 * the combined score of Eq. 3 with the mode's weights, single-criterion sorts, and Maximal Marginal
 * Relevance (Eq. 4) for coverage. Pure; the caller gives the pool (never the whole archive).
 *
 * Scores, as the seed defines them:
 * - recency (Eq. 2): (year − year_min) / (year_max − year_min) over the pool; 1 when every paper has
 *   the same year, 0 for a paper without one;
 * - novelty: cosine distance of the paper's TF-IDF vector from the pool's mean vector, divided by
 *   the pool's largest distance (PaperGuru's normalisation; the seed says "distance from the average
 *   document vector" without one);
 * - bm25: the pool's BM25 scores divided by the largest (the seed: "normalized to [0, 1]");
 * - similarity: the caller's query similarity (PaperGuru: the route's cosine), clamped to [0, 1].
 * MMR's relevance term is sim(p, q), the query relevance the caller passes (Eq. 4 as the seed writes
 * it: Sim1 is the query similarity, not the combined score; default the similarity above, PaperGuru's
 * rank-pool passes the route's head score over the pool's best), and sim(p, s) the cosine of TF-IDF
 * vectors; the first pick is the most relevant paper (ties: the better combined score, then pool order).
 */

export const RANKING_MODES = ["stable", "discovery", "balanced"] as const;
export type RankingMode = (typeof RANKING_MODES)[number];

export interface Weights {
  similarity: number;
  recency: number;
  novelty: number;
  bm25: number;
}

/** Eq. 3's weights and Eq. 4's λ per mode (seed 004, D.2 and D.3). */
export const MODES: Record<RankingMode, { weights: Weights; lambda: number }> = {
  stable: { weights: { similarity: 0.5, recency: 0.2, novelty: 0.1, bm25: 0.2 }, lambda: 0.8 },
  discovery: { weights: { similarity: 0.3, recency: 0.1, novelty: 0.4, bm25: 0.2 }, lambda: 0.5 },
  balanced: { weights: { similarity: 0.3, recency: 0.2, novelty: 0.2, bm25: 0.3 }, lambda: 0.65 },
};

export interface Candidate {
  id: string;
  text: string;
  year: number | null;
  similarity: number;
  bm25: number;
  citations: number | null;
}

export interface Scored {
  id: string;
  similarity: number;
  recency: number;
  novelty: number;
  bm25: number;
  citations: number | null;
  combined: number;
}

const tokens = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];

/** L2-normalised TF-IDF vectors over the pool (idf = ln(N / df) + 1). */
export function tfidf(texts: readonly string[]): Array<Map<string, number>> {
  const docs = texts.map((t) => {
    const m = new Map<string, number>();
    for (const w of tokens(t)) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const n = docs.length;
  return docs.map((d) => {
    const v = new Map<string, number>();
    let norm = 0;
    for (const [w, tf] of d) {
      const x = tf * (Math.log(n / (df.get(w) ?? 1)) + 1);
      v.set(w, x);
      norm += x * x;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [w, x] of v) v.set(w, x / norm);
    return v;
  });
}

export function cosine(a: Map<string, number>, b: Map<string, number>): number {
  const [s, l] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [w, x] of s) dot += x * (l.get(w) ?? 0);
  let na = 0;
  let nb = 0;
  for (const x of a.values()) na += x * x;
  for (const x of b.values()) nb += x * x;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** Dot product of two sparse vectors, iterating the smaller: the cosine of L2-normalised ones. */
export function dot(a: Map<string, number>, b: Map<string, number>): number {
  const [s, l] = a.size <= b.size ? [a, b] : [b, a];
  let d = 0;
  for (const [w, x] of s) d += x * (l.get(w) ?? 0);
  return d;
}

function dotOwn(v: Map<string, number>, c: Map<string, number>): number {
  let d = 0;
  for (const [w, x] of v) d += x * (c.get(w) ?? 0);
  return d;
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/**
 * Every candidate's scores and Eq. 3's combined score with `weights`. `vecs`: the pool's tfidf()
 * vectors when the caller has them. O(pool · terms per text): the centroid's norm is taken once and
 * each distance iterates only the candidate's own terms.
 */
export function scorePool(
  pool: readonly Candidate[],
  weights: Weights,
  vecs: ReadonlyArray<Map<string, number>> = tfidf(pool.map((p) => p.text)),
): Scored[] {
  const years = pool.map((p) => p.year).filter((y): y is number => y !== null);
  const yMin = Math.min(...years);
  const yMax = Math.max(...years);
  const centroid = new Map<string, number>();
  for (const v of vecs) for (const [w, x] of v) centroid.set(w, (centroid.get(w) ?? 0) + x / vecs.length);
  let cNorm = 0;
  for (const x of centroid.values()) cNorm += x * x;
  cNorm = Math.sqrt(cNorm);
  // tfidf() vectors are L2-normalised (an empty text's is empty: cosine 0, distance 1).
  // Clamped: a text equal to the centroid's direction gives 1 − 1 ± rounding.
  const dist = vecs.map((v) => Math.max(0, 1 - (cNorm > 0 && v.size > 0 ? dotOwn(v, centroid) / cNorm : 0)));
  const maxDist = Math.max(0, ...dist);
  const maxBm25 = Math.max(0, ...pool.map((p) => p.bm25));
  return pool.map((p, i) => {
    const recency = p.year === null ? 0 : yMax === yMin ? 1 : (p.year - yMin) / (yMax - yMin);
    const novelty = maxDist > 0 ? (dist[i] as number) / maxDist : 0;
    const bm25 = maxBm25 > 0 ? p.bm25 / maxBm25 : 0;
    const similarity = clamp01(p.similarity);
    const combined =
      weights.similarity * similarity + weights.recency * recency + weights.novelty * novelty + weights.bm25 * bm25;
    return { id: p.id, similarity, recency, novelty, bm25, citations: p.citations, combined };
  });
}

/**
 * Eq. 4: repeatedly pick argmax λ·sim(p, q) − (1 − λ)·max_{s∈S} sim(p, s) until `k` are chosen
 * (ties: the better combined score, then pool order).
 * O(k · n) similarity lookups over the TF-IDF vectors (L2-normalised, so the cosine is a dot product).
 */
export function mmr(
  pool: readonly Candidate[],
  scored: readonly Scored[],
  lambda: number,
  k: number,
  vecs: ReadonlyArray<Map<string, number>> = tfidf(pool.map((p) => p.text)),
  relevance: readonly number[] = scored.map((x) => x.similarity),
): string[] {
  const left = new Set(scored.map((_, i) => i));
  const maxSim = scored.map(() => 0);
  const out: string[] = [];
  while (out.length < k && left.size > 0) {
    let best = -1;
    let bestVal = Number.NEGATIVE_INFINITY;
    for (const i of left) {
      const x = scored[i] as Scored;
      const val = lambda * (relevance[i] as number) - (out.length ? (1 - lambda) * (maxSim[i] as number) : 0);
      const tie =
        val === bestVal &&
        (x.combined > (scored[best] as Scored).combined ||
          (x.combined === (scored[best] as Scored).combined && i < best));
      if (val > bestVal || tie) {
        bestVal = val;
        best = i;
      }
    }
    left.delete(best);
    out.push((scored[best] as Scored).id);
    for (const i of left)
      maxSim[i] = Math.max(maxSim[i] as number, dot(vecs[i] as Map<string, number>, vecs[best] as Map<string, number>));
  }
  return out;
}
