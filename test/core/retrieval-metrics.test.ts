/** Retrieval metrics (hit rate, MRR, Recall@K, Precision@K) on hand-computed rankings, and review statuses. */
import { describe, expect, it } from "vitest";
import { aggregateMetrics, normaliseKs, queryMetrics } from "../../src/core/research/retrieval";
import { edgeReviewKey, readReviewValue, reviewStatusAt, reviewValue } from "../../src/core/review";

describe("retrieval metrics", () => {
  it("match hand-computed values", () => {
    const ks = [1, 2, 4];
    const a = queryMetrics(["x", "g1", "y", "g2", "g3"], ["g1", "g2", "g3"], ks);
    expect(a.first_rank).toBe(2);
    expect(a.reciprocal_rank).toBe(0.5);
    expect(a.hit).toBe(1);
    expect(a.recall).toEqual({ "1": 0, "2": 1 / 3, "4": 2 / 3 });
    expect(a.precision).toEqual({ "1": 0, "2": 0.5, "4": 0.5 });
    const b = queryMetrics(["a"], ["b"], ks);
    expect(b).toEqual({
      hit: 0,
      reciprocal_rank: 0,
      first_rank: null,
      recall: { "1": 0, "2": 0, "4": 0 },
      precision: { "1": 0, "2": 0, "4": 0 },
    });
    // A gold id below max K is no hit, but still has a reciprocal rank.
    const c = queryMetrics(["a", "b", "c", "d", "g"], ["g"], ks);
    expect(c.hit).toBe(0);
    expect(c.reciprocal_rank).toBe(0.2);
    const agg = aggregateMetrics([a, b], ks);
    expect(agg.queries).toBe(2);
    expect(agg.hit_rate).toBe(0.5);
    expect(agg.mrr).toBe(0.25);
    expect(agg.recall["2"]).toBeCloseTo(1 / 6, 12);
    expect(agg.precision["4"]).toBe(0.25);
  });

  it("count a repeated id once and normalise K", () => {
    const m = queryMetrics(["g", "g", "h"], ["g", "h"], [2]);
    expect(m.recall["2"]).toBe(1);
    expect(m.precision["2"]).toBe(1);
    expect(normaliseKs([10, 1, 5, 5, 0])).toEqual([1, 5, 10]);
    expect(aggregateMetrics([], [1]).hit_rate).toBe(0);
  });
});

describe("review statuses", () => {
  it("fold as of a time and ignore values that are not review events", () => {
    const ev = [
      { id: 1, at: 10, value: reviewValue("flag") },
      { id: 2, at: 20, value: "not a review event" },
      { id: 3, at: 30, value: reviewValue("verify") },
      { id: 4, at: 30, value: reviewValue("edit") },
    ];
    expect(reviewStatusAt(ev, 5).status).toBe("auto-generated");
    expect(reviewStatusAt(ev, 25).status).toBe("flagged");
    expect(reviewStatusAt(ev, 30)).toMatchObject({ status: "human-edited", last: { id: 4 } });
    expect(readReviewValue({ status: "flagged", op: "nope" })).toBeNull();
    // Edge keys are short whatever the target's length; events match the edge their value names.
    const long = `doi:10.1/${"x".repeat(500)}`;
    expect(edgeReviewKey("cites", long)).toMatch(/^review:edge:[0-9a-f]{16}$/);
    expect(edgeReviewKey("cites", "a")).not.toBe(edgeReviewKey("cites", "b"));
    expect(edgeReviewKey("cites", "a")).not.toBe(edgeReviewKey("part-of", "a"));
    const e = { type: "cites", to: long };
    const edgeEvents = [
      { id: 1, at: 10, value: reviewValue("verify", e) },
      { id: 2, at: 20, value: reviewValue("flag", { type: "cites", to: "other" }) },
    ];
    expect(reviewStatusAt(edgeEvents, 30, e)).toMatchObject({ status: "human-verified", last: { id: 1 } });
    expect(readReviewValue(reviewValue("flag", e), { type: "cites", to: "other" })).toBeNull();
  });
});
