/**
 * Review-score metrics (Paper Circle, seed 004 §4): how close predicted review scores are to human
 * ones, over n pairs (predicted p_i, human h_i):
 * - MSE = mean((p_i - h_i)^2), MAE = mean(|p_i - h_i|), RMSE = sqrt(MSE);
 * - Pearson r = cov(p, h) / (sd(p) sd(h)); null when either side is constant (the ratio is 0/0) or n < 2;
 * - Spearman rho = Pearson r of the ranks, tied values taking the mean of the ranks they span;
 * - accuracy within ±t = share of pairs with |p_i - h_i| <= t, for t = 0.5, 1 and 1.5 (the paper's
 *   thresholds), compared with a 1e-9 tolerance so 3.5 vs 4 counts as within 0.5.
 * Pure and linear in n (the ranks sort, n log n).
 */

export const SCORE_THRESHOLDS = [0.5, 1, 1.5] as const;

export interface ScorePair {
  predicted: number;
  human: number;
}

export interface ScoreMetrics {
  n: number;
  mse: number;
  mae: number;
  rmse: number;
  pearson: number | null;
  spearman: number | null;
  /** Keys are the thresholds ("0.5", "1", "1.5"). */
  accuracy_within: Record<string, number>;
}

const TOLERANCE = 1e-9;

function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return xs.length ? s / xs.length : 0;
}

/** Pearson's r of two equal-length series; null when n < 2 or either is constant. */
export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return null;
  const mx = mean(xs.slice(0, n));
  const my = mean(ys.slice(0, n));
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] as number) - mx;
    const dy = (ys[i] as number) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  const den = Math.sqrt(sxx * syy);
  if (!(den > 0) || !Number.isFinite(den)) return null;
  const r = sxy / den;
  if (Number.isNaN(r)) return null;
  // Rounding can leave |r| a few ulps above 1.
  return Math.max(-1, Math.min(1, r));
}

/** 1-based ranks, ties sharing the mean of the ranks they span. */
export function averageRanks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(xs.length).fill(0);
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (
      j + 1 < order.length &&
      (order[j + 1] as readonly [number, number])[0] === (order[i] as readonly [number, number])[0]
    )
      j++;
    const r = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[(order[k] as readonly [number, number])[1]] = r;
    i = j + 1;
  }
  return ranks;
}

export function spearman(xs: readonly number[], ys: readonly number[]): number | null {
  return pearson(averageRanks(xs), averageRanks(ys));
}

/** The metrics of the pairs; n = 0 gives zeros and null correlations. */
export function scoreMetrics(
  pairs: readonly ScorePair[],
  thresholds: readonly number[] = SCORE_THRESHOLDS,
): ScoreMetrics {
  const n = pairs.length;
  const p = pairs.map((x) => x.predicted);
  const h = pairs.map((x) => x.human);
  const err = pairs.map((x) => x.predicted - x.human);
  const mse = mean(err.map((e) => e * e));
  const mae = mean(err.map((e) => Math.abs(e)));
  const accuracy_within: Record<string, number> = {};
  for (const t of thresholds)
    accuracy_within[String(t)] = n ? err.filter((e) => Math.abs(e) <= t + TOLERANCE).length / n : 0;
  return { n, mse, mae, rmse: Math.sqrt(mse), pearson: pearson(p, h), spearman: spearman(p, h), accuracy_within };
}

/** A stored annotation value read as a score: a finite number, or an object's finite `score`. */
export function scoreOf(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "object" && v !== null && !Array.isArray(v)) {
    const s = (v as { score?: unknown }).score;
    if (typeof s === "number" && Number.isFinite(s)) return s;
  }
  return null;
}
