import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { convergence, rouge1, rougeTokens } from "../../src/core/research/rouge";

/**
 * An independent reference written the slow, obvious way: characters scanned one by one into tokens
 * (ASCII letters lowered, digits; anything else ends a token), then each candidate token matched to
 * the first unused equal reference token (O(n·m)), P = matched / |candidate|, R = matched / |reference|.
 */
function referenceRouge1(candidate: string, reference: string): { precision: number; recall: number; f1: number } {
  const tokens = (text: string) => {
    const out: string[] = [];
    let cur = "";
    for (const ch of text.toLowerCase()) {
      if ((ch >= "a" && ch <= "z") || (ch >= "0" && ch <= "9")) cur += ch;
      else if (cur) {
        out.push(cur);
        cur = "";
      }
    }
    if (cur) out.push(cur);
    return out;
  };
  const c = tokens(candidate);
  const r = tokens(reference);
  const used = r.map(() => false);
  let matched = 0;
  for (const t of c) {
    const j = r.findIndex((x, k) => !used[k] && x === t);
    if (j >= 0) {
      used[j] = true;
      matched++;
    }
  }
  const precision = c.length ? matched / c.length : 0;
  const recall = r.length ? matched / r.length : 0;
  return { precision, recall, f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 };
}

/** rouge1 and the reference agree on precision, recall and F1 to 12 digits. */
function expectReference(candidate: string, reference: string): void {
  const ours = rouge1(candidate, reference);
  const ref = referenceRouge1(candidate, reference);
  expect(ours.precision).toBeCloseTo(ref.precision, 12);
  expect(ours.recall).toBeCloseTo(ref.recall, 12);
  expect(ours.f1).toBeCloseTo(ref.f1, 12);
}

describe("ROUGE-1", () => {
  it("equals published rouge-score results and an independent reference on fixed vectors", () => {
    // Values other projects' tests assert for rouge-score / ROUGE-1 (prediction, target):
    // "hello world!!!" vs "hello " -> F 0.667 (P 1/2, R 1); "the cat was found under the bed" vs
    // "the cat was under the bed" -> P 6/7; "big cat on bed" vs "My little cat is on bed!" -> P 3/4, R 3/6.
    expect(rouge1("hello world!!!", "hello ")).toEqual({ precision: 0.5, recall: 1, f1: 2 / 3 });
    expect(rouge1("the cat was found under the bed", "the cat was under the bed").precision).toBeCloseTo(6 / 7, 12);
    expect(rouge1("the cat was found under the bed", "the cat was under the bed").recall).toBe(1);
    const big = rouge1("big cat on bed", "My little cat is on bed!");
    expect([big.precision, big.recall]).toEqual([3 / 4, 3 / 6]);
    const vectors: Array<[string, string]> = [
      ["the cat was found under the bed", "the cat was under the bed"],
      ["Graph-RAG's top_k=10, PPR!", "graph rag top k 10"],
      ["café au lait, naïve résumé", "caf au lait na ve r sum"],
      ["a a a b", "a b b b"],
      ["PaperGuru routes heads first; content is read last.", "Routing reads heads; content is expanded lazily."],
      ["", ""],
      ["   ", "x"],
      ["1,000 tokens in 2 passes", "2 passes of 1000 tokens"],
    ];
    for (const [c, r] of vectors) {
      expectReference(c, r);
    }
  });

  it("property: equals the independent reference on random texts", () => {
    const word = fc.constantFrom("a", "B", "c-d", "the", "x1", "Ünï", "é", "top_k", "2.5", "!!", "  ");
    const text = fc.array(word, { maxLength: 30 }).map((w) => w.join(" "));
    fc.assert(
      fc.property(text, text, (a, b) => expectReference(a, b)),
      { numRuns: 300 },
    );
  });

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
