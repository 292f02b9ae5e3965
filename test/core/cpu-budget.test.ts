/**
 * The per-request CPU budget: work that grows with the input is estimated from its size before it
 * starts and refused with a 413 naming the estimate and the budget; the CLI's BibTeX pieces stay
 * inside it.
 */
import { describe, expect, it } from "vitest";
import { BIBTEX_PIECE_CHARS, RefusedFile, splitRecords } from "../../src/cli/import";
import { measureBibtex } from "../../src/core/formats/bibtex-size";
import { prepareBatch } from "../../src/core/ingest";
import { CPU_BUDGET_MS, cpuBudgetChars, cpuEstimateMs, withinCpuBudget } from "../../src/core/limits";

describe("CPU budget", () => {
  it("estimates from the measured cost per MB and refuses over the budget, naming both", () => {
    expect(cpuEstimateMs("bibtex", 1_000_000)).toBe(2300);
    expect(withinCpuBudget([["bibtex", 800_000]], "parsing", "body", "split").ok).toBe(true);
    const r = withinCpuBudget(
      [
        ["bibtex", 1_000_000],
        ["analyse", 1_000_000],
      ],
      "parsing this file",
      "body",
      "split it",
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ kind: "too_large", field: "body", hint: "split it" });
    expect(r.error.message).toBe(
      `parsing this file needs an estimated 2,420 ms of CPU; the per-request CPU budget is ${CPU_BUDGET_MS.toLocaleString("en-US")} ms`,
    );
  });

  it("an ingest batch over the budget is refused before any analysis", () => {
    const big = "Sparse retrieval remains a strong baseline. ".repeat(50_000); // 2.2 MB
    const n = Math.ceil(cpuBudgetChars("analyse") / big.length) + 1;
    const batch = Array.from({ length: n }, (_, i) => ({
      id: `c${i}`,
      kind: "note" as const,
      title: "t",
      content: big.slice(0, 2 * 1024 * 1024),
    }));
    const r = prepareBatch(batch);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe("too_large");
      expect(r.error.field).toBe("artifacts");
      expect(r.error.message).toContain("per-request CPU budget");
    }
    expect(prepareBatch(batch.slice(0, 2)).ok).toBe(true);
  });

  it("the CLI sends BibTeX in pieces inside the budget, every entry once, macros in each piece", () => {
    const entry = (i: number) =>
      `@article{k${i},\n  title = {Entry ${i}},\n  journal = acl,\n  abstract = {${"word ".repeat(600)}}\n}\n`;
    const text = `@string{acl = {ACL}}\n${Array.from({ length: 400 }, (_, i) => entry(i)).join("")}`;
    expect(text.length).toBeGreaterThan(cpuBudgetChars("bibtex"));
    const pieces = splitRecords("refs.bib", text);
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(BIBTEX_PIECE_CHARS);
      expect(p.startsWith("@string{acl = {ACL}}")).toBe(true);
    }
    const keys = pieces.flatMap((p) => [...p.matchAll(/@article\{(k\d+),/g)].map((m) => m[1]));
    expect(keys).toEqual(Array.from({ length: 400 }, (_, i) => `k${i}`));
  });

  it("the CLI sizes BibTeX pieces by their text with macros expanded, and refuses a macro bomb before sending", () => {
    // A 65,536-character macro (16 doublings, ~400 bytes) used by 40 short entries: 2.6 million
    // characters expanded from a file of ~2,000.
    const header = [
      '@string{a0 = "xx"}',
      ...Array.from({ length: 15 }, (_, i) => `@string{a${i + 1} = a${i} # a${i}}`),
    ];
    const entries = Array.from({ length: 40 }, (_, i) => `@misc{k${i}, title = {Entry ${i}}, note = a15}\n`);
    const text = `${header.join("\n")}\n${entries.join("")}`;
    expect(text.length).toBeLessThan(BIBTEX_PIECE_CHARS);
    const pieces = splitRecords("refs.bib", text);
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) expect(measureBibtex(p).expanded).toBeLessThanOrEqual(BIBTEX_PIECE_CHARS);
    const keys = pieces.flatMap((p) => [...p.matchAll(/@misc\{(k\d+),/g)].map((m) => m[1]));
    expect(keys).toEqual(entries.map((_, i) => `k${i}`));

    const bomb = `${header.join("\n")}\n@string{a16 = a15 # a15}\n@misc{x, title = a16}\n`;
    expect(() => splitRecords("bomb.bib", bomb)).toThrow(RefusedFile);
    expect(() => splitRecords("bomb.bib", bomb)).toThrow(/@string a16 expands to 131,072 characters/);
  });
});
