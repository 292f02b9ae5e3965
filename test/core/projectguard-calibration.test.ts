/** The judge calibration figures of seed 002's Table 2: hand-worked values and fast-check properties. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { calibration, ranks, spearman, weightedKappa } from "../../src/core/projectguard/calibration";

const score = fc.integer({ min: 0, max: 4 });
const pairs = fc.array(fc.tuple(score, score), { minLength: 1, maxLength: 60 });
const split = (ps: Array<[number, number]>) => [ps.map((p) => p[0]), ps.map((p) => p[1])] as const;

/** κ from its textbook definition: normalised distributions and an explicit weight matrix. */
function kappaByMatrix(a: number[], b: number[]): number | null {
  const n = a.length;
  const O = Array.from({ length: 5 }, () => new Array<number>(5).fill(0));
  for (let i = 0; i < n; i++) {
    const row = O[a[i] as number] as number[];
    row[b[i] as number] = (row[b[i] as number] as number) + 1 / n;
  }
  const ra = O.map((row) => row.reduce((s, x) => s + x, 0));
  const cb = [0, 1, 2, 3, 4].map((j) => O.reduce((s, row) => s + (row[j] as number), 0));
  let num = 0;
  let den = 0;
  for (let i = 0; i < 5; i++)
    for (let j = 0; j < 5; j++) {
      const w = (i - j) ** 2 / 16;
      num += w * ((O[i] as number[])[j] as number);
      den += w * (ra[i] as number) * (cb[j] as number);
    }
  return den < 1e-12 ? null : 1 - num / den;
}

describe("weighted κ, Spearman and the shares (hand-worked)", () => {
  it("one swapped pair of five: κ = 0.9 and ρ = 0.9", () => {
    const a = [0, 1, 2, 3, 4];
    const b = [0, 1, 2, 4, 3];
    expect(weightedKappa(a, b)).toBeCloseTo(0.9, 12);
    expect(spearman(a, b)).toBeCloseTo(0.9, 12);
    const c = calibration(a, b);
    expect(c).toMatchObject({ pairs: 5, exact: 0.6, within_one: 1, boundary_2_3: 0, boundary_3_4: 0.4 });
  });

  it("independent raters: κ = 0 and ρ = 0; ties get mean ranks", () => {
    expect(weightedKappa([0, 0, 1, 1], [0, 1, 0, 1])).toBeCloseTo(0, 12);
    expect(spearman([0, 0, 1, 1], [0, 1, 0, 1])).toBeCloseTo(0, 12);
    expect(ranks([3, 1, 3, 2])).toEqual([3.5, 1, 3.5, 2]);
  });

  it("undefined cases are null, not a number; bad scores are refused", () => {
    expect(weightedKappa([2, 2, 2], [2, 2, 2])).toBeNull();
    expect(spearman([1, 1, 1], [0, 2, 4])).toBeNull();
    expect(weightedKappa([], [])).toBeNull();
    expect(() => weightedKappa([5], [1])).toThrow(RangeError);
    expect(() => weightedKappa([1.5], [1])).toThrow(RangeError);
    expect(() => calibration([1, 2], [1])).toThrow(RangeError);
  });
});

describe("calibration properties", () => {
  it("κ equals the textbook matrix definition", () => {
    fc.assert(
      fc.property(pairs, (ps) => {
        const [a, b] = split(ps);
        const k = weightedKappa(a, b);
        const want = kappaByMatrix(a, b);
        if (want === null) expect(k).toBeNull();
        else expect(k).toBeCloseTo(want, 9);
      }),
    );
  });

  it("every figure is symmetric in the two raters and ignores pair order", () => {
    fc.assert(
      fc.property(pairs, fc.integer(), (ps, seed) => {
        const [a, b] = split(ps);
        const shuffled = [...ps].sort(
          (p, q) => ((p[0] * 7 + p[1] * 13 + seed) % 5) - ((q[0] * 7 + q[1] * 13 + seed) % 5),
        );
        const [sa, sb] = split(shuffled);
        const c = calibration(a, b);
        const flip = calibration(b, a);
        const moved = calibration(sa, sb);
        for (const other of [flip, moved]) {
          expect(other.exact).toBeCloseTo(c.exact, 12);
          expect(other.within_one).toBeCloseTo(c.within_one, 12);
          if (c.weighted_kappa === null) expect(other.weighted_kappa).toBeNull();
          else expect(other.weighted_kappa).toBeCloseTo(c.weighted_kappa, 9);
          if (c.spearman === null) expect(other.spearman).toBeNull();
          else expect(other.spearman).toBeCloseTo(c.spearman, 9);
        }
      }),
    );
  });

  it("bounds: κ ≤ 1, ρ in [-1, 1], exact ≤ within ±1, boundary disagreements ≤ 1 − exact", () => {
    fc.assert(
      fc.property(pairs, (ps) => {
        const c = calibration(...split(ps));
        if (c.weighted_kappa !== null) expect(c.weighted_kappa).toBeLessThanOrEqual(1 + 1e-12);
        if (c.spearman !== null) {
          expect(c.spearman).toBeGreaterThanOrEqual(-1);
          expect(c.spearman).toBeLessThanOrEqual(1);
        }
        expect(c.exact).toBeLessThanOrEqual(c.within_one);
        expect(c.boundary_2_3 + c.boundary_3_4).toBeLessThanOrEqual(1 - c.exact + 1e-12);
      }),
    );
  });

  it("a rater agreeing with itself scores 1 wherever the figure is defined; reversing one side negates ρ", () => {
    fc.assert(
      fc.property(fc.array(score, { minLength: 2, maxLength: 60 }), (a) => {
        const c = calibration(a, a);
        expect(c.exact).toBe(1);
        if (c.weighted_kappa !== null) expect(c.weighted_kappa).toBeCloseTo(1, 12);
        const rho = spearman(a, a);
        const back = spearman(
          a,
          a.map((x) => 4 - x),
        );
        if (rho === null) expect(back).toBeNull();
        else {
          expect(rho).toBeCloseTo(1, 12);
          expect(back).toBeCloseTo(-1, 12);
        }
      }),
    );
  });
});
