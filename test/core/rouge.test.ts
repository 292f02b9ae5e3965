import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { convergence, rouge1, rougeTokens } from "../../src/core/research/rouge";

describe("ROUGE-1", () => {
  it("equals the rouge-score package's values on fixed texts", () => {
    // rouge_scorer.RougeScorer(["rouge1"]).score(target, prediction), by hand:
    // target "the cat sat on the mat" (6 tokens), prediction "the cat was on the mat today" (7 tokens):
    // overlap the×2, cat, on, mat = 5 -> P 5/7, R 5/6.
    const r = rouge1("the cat was on the mat today", "the cat sat on the mat");
    expect(r.precision).toBeCloseTo(5 / 7, 12);
    expect(r.recall).toBeCloseTo(5 / 6, 12);
    expect(r.f1).toBeCloseTo((2 * (5 / 7) * (5 / 6)) / (5 / 7 + 5 / 6), 12);
    // Tokenisation: case folded, punctuation and underscores separate, digits kept.
    expect(rougeTokens("Graph-RAG's top_k=10, PPR!")).toEqual(["graph", "rag", "s", "top", "k", "10", "ppr"]);
    expect(rouge1("A B b", "b c")).toEqual({ precision: 1 / 3, recall: 1 / 2, f1: 0.4 });
    expect(rouge1("", "x")).toEqual({ precision: 0, recall: 0, f1: 0 });
  });

  it("property: symmetric F1, P and R swap, values in [0, 1], identical texts score 1", () => {
    const text = fc.array(fc.constantFrom("a", "b", "c", "d", "the", "x1"), { maxLength: 20 }).map((w) => w.join(" "));
    fc.assert(
      fc.property(text, text, (a, b) => {
        const x = rouge1(a, b);
        const y = rouge1(b, a);
        expect(x.f1).toBeCloseTo(y.f1, 12);
        expect(x.precision).toBeCloseTo(y.recall, 12);
        for (const v of [x.precision, x.recall, x.f1]) expect(v >= 0 && v <= 1).toBe(true);
        if (rougeTokens(a).length) expect(rouge1(a, a).f1).toBe(1);
      }),
    );
  });

  it("Eq. 10: stops at the first draft more similar than epsilon to the one before, else at t_max", () => {
    const d1 = "graph memory routes queries over heads";
    const d2 = "graph memory routes queries over heads and diffuses mass";
    const d3 = "graph memory routes queries over heads and diffuses mass locally";
    expect(convergence([d1, d2, d3], 0.9)).toMatchObject({ stop: 3, reason: "similar" });
    expect(convergence([d1, d2, d3], 0.5)).toMatchObject({ stop: 2, reason: "similar" });
    expect(convergence([d1, d2], 0.99)).toMatchObject({ stop: null, reason: null });
    expect(convergence([d1, "x y z", d1, "q r s"], 0.99)).toMatchObject({ stop: 4, reason: "t_max" });
  });
});
