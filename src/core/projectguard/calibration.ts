/**
 * Judge calibration (seed 002 §3.4, Table 2): agreement between a judge's rubric scores and human
 * scores on the same component-run pairs, each an integer 0-4.
 * - weighted Cohen's κ with quadratic weights w_ij = (i − j)² / 16: 1 − Σ w·O / Σ w·E, O the observed
 *   joint distribution and E the product of the two marginals; null when Σ w·E is 0 (both raters
 *   give one and the same score to every pair, so chance agreement is total);
 * - exact-match accuracy and the share within ±1;
 * - Spearman's ρ: Pearson's correlation of the ranks (ties get their mean rank); null when either
 *   side is constant;
 * - boundary disagreement: the share of pairs where one side says 2 and the other 3 (and 3 / 4).
 */

import { spearman } from "../review-scores";

export const SCORE_LEVELS = 5;

export interface Calibration {
  pairs: number;
  weighted_kappa: number | null;
  exact: number;
  within_one: number;
  spearman: number | null;
  boundary_2_3: number;
  boundary_3_4: number;
}

function checkScores(xs: readonly number[], side: string): void {
  for (const x of xs)
    if (!Number.isInteger(x) || x < 0 || x >= SCORE_LEVELS)
      throw new RangeError(`${side} scores are integers 0-4, got ${x}`);
}

/** Quadratic-weighted Cohen's κ over scores 0-4; null when the expected weighted disagreement is 0. */
export function weightedKappa(a: readonly number[], b: readonly number[]): number | null {
  if (a.length !== b.length) throw new RangeError(`the two sides differ in length: ${a.length} and ${b.length}`);
  checkScores(a, "first");
  checkScores(b, "second");
  const n = a.length;
  if (n === 0) return null;
  const k = SCORE_LEVELS;
  const ma = new Array<number>(k).fill(0);
  const mb = new Array<number>(k).fill(0);
  let observed = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    ma[x] = (ma[x] as number) + 1;
    mb[y] = (mb[y] as number) + 1;
    observed += (x - y) ** 2;
  }
  let expected = 0;
  for (let i = 0; i < k; i++)
    for (let j = 0; j < k; j++) expected += (i - j) ** 2 * (ma[i] as number) * (mb[j] as number);
  // Both sums are over counts; the weight's 1/(k−1)² and the 1/n² of the distributions cancel.
  expected /= n;
  if (expected === 0) return null;
  return 1 - observed / expected;
}

// Spearman's ρ and mean ranks are review-scores' (one implementation for both metric sets).
export { averageRanks as ranks, spearman } from "../review-scores";

/** Every figure of Table 2 for one pair of raters (judge and human), in pair order. */
export function calibration(judge: readonly number[], human: readonly number[]): Calibration {
  const kappa = weightedKappa(judge, human);
  const n = judge.length;
  let exact = 0;
  let within = 0;
  let b23 = 0;
  let b34 = 0;
  for (let i = 0; i < n; i++) {
    const x = judge[i] as number;
    const y = human[i] as number;
    if (x === y) exact++;
    if (Math.abs(x - y) <= 1) within++;
    if (Math.min(x, y) === 2 && Math.max(x, y) === 3) b23++;
    if (Math.min(x, y) === 3 && Math.max(x, y) === 4) b34++;
  }
  const share = (k: number) => (n ? k / n : 0);
  return {
    pairs: n,
    weighted_kappa: kappa,
    exact: share(exact),
    within_one: share(within),
    spearman: spearman(judge, human),
    boundary_2_3: share(b23),
    boundary_3_4: share(b34),
  };
}
