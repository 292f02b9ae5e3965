/** Review-score metrics: hand-computed values and properties over random score pairs. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { averageRanks, pearson, scoreMetrics, scoreOf, spearman } from "../../src/core/review-scores";

/** Scores on a review scale: 0 to 10 in steps of 0.05. */
const score = fc.integer({ min: 0, max: 200 }).map((x) => x / 20);
const pairs = fc.array(fc.record({ predicted: score, human: score }), { minLength: 1, maxLength: 60 });

describe("review-score metrics", () => {
  it("match hand-computed values", () => {
    const m = scoreMetrics([
      { predicted: 6, human: 5 },
      { predicted: 3.5, human: 4 },
      { predicted: 8, human: 8 },
    ]);
    expect(m.n).toBe(3);
    expect(m.mse).toBeCloseTo(1.25 / 3, 12);
    expect(m.mae).toBeCloseTo(0.5, 12);
    expect(m.rmse).toBeCloseTo(Math.sqrt(1.25 / 3), 12);
    // sxy = 8.8333, sxx = 10.1667, syy = 8.6667.
    expect(m.pearson).toBeCloseTo(8.83333333 / Math.sqrt(10.16666667 * 8.66666667), 6);
    expect(m.spearman).toBe(1);
    expect(m.accuracy_within).toEqual({ "0.5": 2 / 3, "1": 1, "1.5": 1 });
  });

  it("rank ties by their mean rank and give Spearman of a monotone map 1", () => {
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
    expect(spearman([1, 2, 3, 4], [1, 8, 27, 64])).toBe(1);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1);
    expect(pearson([1, 2, 3], [5, 5, 5])).toBeNull();
    expect(pearson([1], [1])).toBeNull();
  });

  it("read stored values as numbers or objects with a numeric score", () => {
    expect(scoreOf(4.5)).toBe(4.5);
    expect(scoreOf({ score: 7 })).toBe(7);
    expect(scoreOf("7")).toBeNull();
    expect(scoreOf({ score: "7" })).toBeNull();
    expect(scoreOf(null)).toBeNull();
    expect(scoreOf([7])).toBeNull();
  });

  it("MSE >= 0, RMSE^2 = MSE, MAE <= RMSE, correlations in [-1, 1], accuracy monotone in t", () => {
    fc.assert(
      fc.property(pairs, (ps) => {
        const m = scoreMetrics(ps);
        expect(m.mse).toBeGreaterThanOrEqual(0);
        expect(m.rmse * m.rmse).toBeCloseTo(m.mse, 9);
        expect(m.mae).toBeLessThanOrEqual(m.rmse + 1e-9);
        for (const r of [m.pearson, m.spearman])
          if (r !== null) {
            expect(r).toBeGreaterThanOrEqual(-1);
            expect(r).toBeLessThanOrEqual(1);
          }
        const a = m.accuracy_within;
        expect(a["0.5"]).toBeLessThanOrEqual(a["1"] as number);
        expect(a["1"]).toBeLessThanOrEqual(a["1.5"] as number);
      }),
    );
  });

  it("identical inputs give 0 error, full accuracy and correlation 1 (when not constant)", () => {
    fc.assert(
      fc.property(fc.array(score, { minLength: 2, maxLength: 60 }), (xs) => {
        const m = scoreMetrics(xs.map((x) => ({ predicted: x, human: x })));
        expect(m.mse).toBe(0);
        expect(m.mae).toBe(0);
        expect(m.accuracy_within["0.5"]).toBe(1);
        if (new Set(xs).size > 1) {
          expect(m.pearson).toBeCloseTo(1, 9);
          expect(m.spearman).toBeCloseTo(1, 9);
        } else expect(m.pearson).toBeNull();
      }),
    );
  });

  it("are symmetric in predicted and human, and Pearson is invariant under a positive affine map", () => {
    fc.assert(
      fc.property(
        pairs,
        fc.integer({ min: 1, max: 100 }).map((x) => x / 10),
        score,
        (ps, a, b) => {
          const m = scoreMetrics(ps);
          const swapped = scoreMetrics(ps.map((p) => ({ predicted: p.human, human: p.predicted })));
          expect(swapped.mse).toBeCloseTo(m.mse, 9);
          expect(swapped.pearson === null).toBe(m.pearson === null);
          const mapped = pearson(
            ps.map((p) => a * p.predicted + b),
            ps.map((p) => p.human),
          );
          if (m.pearson !== null && mapped !== null) expect(mapped).toBeCloseTo(m.pearson, 6);
        },
      ),
    );
  });
});
