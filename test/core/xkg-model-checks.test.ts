/**
 * The pure checks of two xKG model roles: the verifier's verdicts (candidate ids only, one verdict
 * per pair) and the README -> paper answer (a title the README writes, or none).
 */
import { describe, expect, it } from "vitest";
import { checkVerdicts, fitCandidates, MAX_VERIFY_PAIRS, verifyPrompt } from "../../src/core/proposals/verify-pairs";
import { readmePaperAnswer, titleRefusal } from "../../src/core/sources/readme-model";

const cand = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `p${i + 1}`,
    technique: { id: `t${i + 1}`, title: `T${i + 1}`, text: "x".repeat(5000) },
    code: i % 2 ? null : { id: `c${i + 1}`, title: `C${i + 1}`, text: "y".repeat(5000) },
  }));

describe("the verifier's check", () => {
  it("accepts candidate ids once each, in the answer's order, and reports the rest", () => {
    const c = cand(3);
    const r = checkVerdicts(
      {
        pairs: [
          { pair: "p3", keep: true, reason: "best" },
          { pair: "p9", keep: true, reason: "invented" },
          { pair: "p3", keep: false, reason: "again" },
          { pair: "p1", keep: "yes", reason: "not a boolean" },
          { pair: "p2", keep: false, reason: "noise" },
        ],
      },
      c,
    );
    expect(typeof r).not.toBe("string");
    if (typeof r === "string") return;
    expect(r.items).toEqual([
      { pair: "p3", keep: true, reason: "best" },
      { pair: "p2", keep: false, reason: "noise" },
    ]);
    expect(r.dropped.map((d) => d.index)).toEqual([1, 2, 3]);
    expect(checkVerdicts({ pairs: [] }, c)).toMatch(/judges none/);
    expect(checkVerdicts([], c)).toMatch(/not a JSON object/);
  });

  it("bounds the prompt: at most MAX_VERIFY_PAIRS pairs, texts cut", () => {
    const fitted = fitCandidates(cand(MAX_VERIFY_PAIRS + 5));
    expect(fitted.length).toBe(MAX_VERIFY_PAIRS);
    const prompt = verifyPrompt("q", fitted);
    expect(prompt.length).toBeLessThan(70_000);
    expect(prompt).toContain(`## p${MAX_VERIFY_PAIRS}\n`);
    expect(prompt).toContain("[code] none stored");
  });
});

describe("the README -> paper answer", () => {
  const readme = "# Repo\n\nThis builds on *Typed Temporal Graphs for Long-Horizons* (2024).\n";
  it("takes a title or null; refuses a title the README does not write", () => {
    expect(readmePaperAnswer({ paper_title: null })).toEqual({ title: null });
    expect(readmePaperAnswer({ paper_title: "None" })).toEqual({ title: null });
    expect(readmePaperAnswer({ paper_title: 3 })).toMatch(/not a string/);
    expect(readmePaperAnswer({ paper_title: ' "Typed Temporal Graphs for Long Horizons". ' })).toEqual({
      title: "Typed Temporal Graphs for Long Horizons",
    });
    // Case, punctuation and markup are folded as aliases are; words must match whole.
    expect(titleRefusal("typed temporal graphs for long horizons", readme)).toBeNull();
    expect(titleRefusal("Typed Temporal Graphs for Long", readme)).toBeNull();
    expect(titleRefusal("Attention Is All You Need", readme)).toMatch(/does not write/);
    expect(titleRefusal("yped Temporal Graphs", readme)).toMatch(/does not write/);
    expect(titleRefusal("Short", readme)).toMatch(/characters/);
  });
});
