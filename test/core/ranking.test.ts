import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Candidate, MODES, mmr, scorePool } from "../../src/core/research/ranking";

const pool: Candidate[] = [
  { id: "a", text: "graph retrieval memory agents", year: 2020, similarity: 0.9, bm25: 12, citations: 50 },
  {
    id: "b",
    text: "graph retrieval memory agents personalised pagerank",
    year: 2024,
    similarity: 0.85,
    bm25: 10,
    citations: 5,
  },
  { id: "c", text: "protein folding with diffusion", year: 2022, similarity: 0.2, bm25: 1, citations: 900 },
  { id: "d", text: "graph retrieval memory agents survey", year: null, similarity: 0.8, bm25: 6, citations: null },
];

describe("Paper Circle ranking", () => {
  it("Eq. 2 recency, normalised BM25 and Eq. 3 with each mode's weights", () => {
    const s = scorePool(pool, MODES.stable.weights);
    const by = new Map(s.map((x) => [x.id, x]));
    expect(by.get("a")?.recency).toBe(0);
    expect(by.get("b")?.recency).toBe(1);
    expect(by.get("c")?.recency).toBe(0.5);
    expect(by.get("d")?.recency).toBe(0);
    expect(by.get("a")?.bm25).toBe(1);
    expect(by.get("b")?.bm25).toBeCloseTo(10 / 12, 12);
    for (const x of s)
      expect(x.combined).toBeCloseTo(0.5 * x.similarity + 0.2 * x.recency + 0.1 * x.novelty + 0.2 * x.bm25, 12);
    // The off-topic paper is the novel one.
    expect(Math.max(...s.map((x) => x.novelty))).toBe(by.get("c")?.novelty);
    expect(MODES.discovery.weights).toEqual({ similarity: 0.3, recency: 0.1, novelty: 0.4, bm25: 0.2 });
    expect(MODES.balanced.weights).toEqual({ similarity: 0.3, recency: 0.2, novelty: 0.2, bm25: 0.3 });
    expect([MODES.stable.lambda, MODES.discovery.lambda, MODES.balanced.lambda]).toEqual([0.8, 0.5, 0.65]);
  });

  it("Eq. 4: λ = 1 is the query-similarity ranking; a lower λ pushes a near-duplicate down", () => {
    const s = scorePool(pool, MODES.stable.weights);
    const bySim = [...s].sort((x, y) => y.similarity - x.similarity).map((x) => x.id);
    expect(bySim).toEqual(["a", "b", "d", "c"]);
    expect(mmr(pool, s, 1, 4)).toEqual(bySim);
    const diverse = mmr(pool, s, 0.3, 4);
    expect(diverse[0]).toBe(bySim[0]);
    expect(diverse.indexOf("c")).toBeLessThan(bySim.indexOf("c"));
  });

  it("property: scores in [0, 1], MMR returns k distinct ids of the pool", () => {
    const cand = fc.record({
      id: fc.uuid(),
      text: fc
        .array(fc.constantFrom("graph", "memory", "protein", "diffusion", "agents", "rag"), { maxLength: 8 })
        .map((w) => w.join(" ")),
      year: fc.option(fc.integer({ min: 1990, max: 2026 }), { nil: null }),
      similarity: fc.double({ min: -1, max: 1, noNaN: true }),
      bm25: fc.double({ min: 0, max: 50, noNaN: true }),
      citations: fc.option(fc.nat(), { nil: null }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(cand, { minLength: 1, maxLength: 12, selector: (c) => c.id }), fc.nat(12), (ps, k) => {
        const s = scorePool(ps, MODES.balanced.weights);
        for (const x of s)
          for (const v of [x.similarity, x.recency, x.novelty, x.bm25, x.combined])
            expect(v >= 0 && v <= 1.0000001).toBe(true);
        const picked = mmr(ps, s, MODES.balanced.lambda, k);
        expect(picked.length).toBe(Math.min(k, ps.length));
        expect(new Set(picked).size).toBe(picked.length);
      }),
    );
  });
});
