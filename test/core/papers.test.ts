import { describe, expect, it } from "vitest";
import { bestSentences, type CoverageInput, coverage } from "../../src/core/research/papers";

describe("bestSentences", () => {
  const text = "Agents forget. Recall stays flat as the pool grows. The pool size is 256 heads.";
  it("returns the sentences holding most query terms, exact spans, best first", () => {
    const s = bestSentences(text, "pool size", 2);
    expect(s).toEqual([
      { start: 52, end: 79, text: "The pool size is 256 heads.", score: 1 },
      { start: 15, end: 51, text: "Recall stays flat as the pool grows.", score: 0.5 },
    ]);
    for (const x of s) expect(text.slice(x.start, x.end)).toBe(x.text);
  });
  it("falls back to the first sentence with score 0 and returns nothing for n = 0", () => {
    expect(bestSentences(text, "zebra", 2)).toEqual([{ start: 0, end: 14, text: "Agents forget.", score: 0 }]);
    expect(bestSentences(text, "pool", 0)).toEqual([]);
    expect(bestSentences("", "pool", 2)).toEqual([]);
  });
});

describe("coverage", () => {
  const input: CoverageInput = {
    paper: "p",
    items: [
      { chunk: "p#s1", title: "S1", version: 1, type: "section", entities: [{ id: "method:ppr", type: "method" }] },
      { chunk: "p#s2", title: "S2", version: 1, type: "section", entities: [{ id: "person:ada", type: "person" }] },
      { chunk: "p#s10", title: "S10", version: 2, type: "section", entities: [{ id: "p", type: "paper" }] },
      { chunk: "p#fig1", title: "F1", version: 1, type: "figure", entities: [{ id: "p#fig1", type: "paper" }] },
      { chunk: "p#fig2", title: "F2", version: 1, type: "figure", entities: [{ id: "dataset:x", type: "dataset" }] },
      { chunk: "p#tab1", title: "T1", version: 1, type: "table", entities: [] },
    ],
    discussedIn: [
      { element: "p#fig1", section: "p#s2" },
      // An edge to a chunk that is not a section of the paper references nothing.
      { element: "p#tab1", section: "q#s1" },
    ],
    citing: new Set(["p#s1"]),
  };
  it("applies each rule exactly", () => {
    const ref = coverage(input, "referenced", "micro");
    expect([ref.linked, ref.total, ref.share]).toEqual([3, 6, 0.5]);
    expect(ref.types.section.unlinked.map((x) => x.chunk)).toEqual(["p#s10"]);
    expect(ref.types.table.unlinked.map((x) => x.chunk)).toEqual(["p#tab1"]);
    expect(ref.types.equation).toEqual({ total: 0, linked: 0, share: null, unlinked: [] });
    const gr = coverage(input, "grounded", "micro");
    // s1 (a method) and fig2 (a dataset); a person, the paper itself and the item's own id do not count.
    expect(gr.linked).toBe(2);
    expect(coverage(input, "both", "micro").linked).toBe(1);
    expect(coverage(input, "either", "micro").linked).toBe(4);
  });
  it("lists unlinked items in numeric-aware order and aggregates micro or macro", () => {
    const r = coverage(input, "grounded", "macro");
    expect(r.types.section.unlinked.map((x) => x.chunk)).toEqual(["p#s2", "p#s10"]);
    // sections 1/3, figures 1/2, tables 0/1; equations absent.
    expect(r.share).toBeCloseTo((1 / 3 + 1 / 2 + 0) / 3, 12);
    expect(coverage({ ...input, items: [] }, "either", "micro").share).toBeNull();
  });
});
