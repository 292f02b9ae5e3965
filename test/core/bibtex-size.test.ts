/**
 * BibTeX is measured before it is parsed: @string macros that double each other, values over
 * BIBTEX_MAX_VALUE_CHARS, expansions over the CPU budget and files that make the parser rescan
 * itself after every syntax error are refused with a 413 naming the cause, in one linear pass,
 * without the parser running. Sizes are checked by counted work (parts, steps), never by time.
 */
import * as bibtexParser from "@retorquere/bibtex-parser";
import { describe, expect, it, vi } from "vitest";
import { parseBibtex } from "../../src/core/formats/bibtex";
import {
  BIBTEX_MAX_SCAN_STEPS,
  BIBTEX_MAX_VALUE_CHARS,
  bibtexWithinBudget,
  measureBibtex,
} from "../../src/core/formats/bibtex-size";
import { cpuBudgetChars } from "../../src/core/limits";

vi.mock("@retorquere/bibtex-parser", async (importOriginal) => {
  const real = await importOriginal<typeof import("@retorquere/bibtex-parser")>();
  return { ...real, parse: vi.fn(real.parse) };
});
const parseCalls = () => vi.mocked(bibtexParser.parse).mock.calls.length;

/** `@string{a0 = "xx"}`, then a_i = a_(i-1) # a_(i-1): a_k is 2^(k+1) characters. */
function doubling(k: number, use = `@misc{bomb, title = a${k}}`): string {
  const lines = ['@string{a0="xx"}'];
  for (let i = 1; i <= k; i++) lines.push(`@string{a${i}=a${i - 1}#a${i - 1}}`);
  return `${lines.join("\n")}\n${use}\n`;
}

describe("measureBibtex", () => {
  it("refuses the 23-doubling bomb at the first macro over the cap, naming it, without parsing", () => {
    const bomb = doubling(23);
    expect(bomb.length).toBeLessThan(560);
    const m = measureBibtex(bomb);
    // a16 = 2^17 = 131,072 > 100,000; a15 = 65,536 is the last one under it.
    expect(m.over).toEqual({ what: "@string a16", chars: 131_072 });
    expect(m.macros.get("A15")).toBe(65_536);
    // Work: one part per literal or macro use, each character scanned about once.
    expect(m.parts).toBe(1 + 2 * 16);
    expect(m.steps).toBeLessThanOrEqual(bomb.length);

    const calls = parseCalls();
    const r = parseBibtex(bomb);
    expect(parseCalls()).toBe(calls);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe("too_large");
    expect(r.error.message).toBe(
      `@string a16 expands to 131,072 characters; one BibTeX value may expand to at most ${BIBTEX_MAX_VALUE_CHARS.toLocaleString("en-US")} (what one request may parse within its 2,000 ms CPU budget)`,
    );
    expect(r.error.hint).toMatch(/a # a/);
  });

  it("stays linear however deep the doubling goes, and its sums saturate instead of overflowing", () => {
    for (const k of [23, 2000]) {
      const text = doubling(k);
      const m = measureBibtex(text);
      expect(m.over?.what).toBe("@string a16");
      expect(m.steps).toBeLessThanOrEqual(text.length);
    }
    // Without a cap every definition is read: 2^2001 would be Infinity; the sum stops at 2^53 - 1.
    const text = doubling(2000);
    const m = measureBibtex(text, { cap: Number.POSITIVE_INFINITY });
    expect(m.over).toBeNull();
    expect(m.parts).toBe(1 + 2 * 2000 + 1);
    expect(m.steps).toBeLessThanOrEqual(text.length);
    expect(m.macros.get("A2000")).toBe(Number.MAX_SAFE_INTEGER);
    expect(m.expanded).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("reads definitions in file order: a redefinition doubles, a cycle cannot loop", () => {
    const redefined = `@string{a = "xx"}\n${"@string{a = a # a}\n".repeat(40)}@misc{k, title = a}`;
    expect(measureBibtex(redefined).over).toEqual({ what: "@string a", chars: 131_072 });
    // b is not yet defined when a uses it: a = "{{b}}" (5), as the parser writes an unknown name.
    const cyclic = "@string{a = b}\n@string{b = a # a}\n@string{a = b # b}\n@misc{k, title = a # b}";
    const m = measureBibtex(cyclic);
    expect(Object.fromEntries(m.macros)).toEqual({ A: 20, B: 10 });
    expect(m.expanded).toBe(5 + 10 + 20 + 30);
  });

  it("names a field that expands past the cap", () => {
    const text = doubling(15, "@article{key1, title = {T}, journal = a15 # a15 # {!}}");
    expect(measureBibtex(text).over).toEqual({ what: "field journal of @article{key1}", chars: 131_073 });
  });

  it("counts exactly what the parser joins: literals, numbers, macros and built-in month names", () => {
    const text = `@string{j = "Journal"}\n@article{k, title = {Ab}, journal = j # " X", year = 2020, month = dec, x = nope}`;
    const m = measureBibtex(text);
    // j 7; title 2; journal 7 + 2; year 4; month "12" 2; an unknown name becomes "{{nope}}" 8.
    expect(m.expanded).toBe(7 + 2 + 9 + 4 + 2 + 8);
    expect(m.used).toEqual(["j"]);
    expect(bibtexWithinBudget(text).ok).toBe(true);
  });

  it("refuses values that expand past the request's budget together, naming the macro that adds most", () => {
    // a15 (65,536) used 14 times: 917,504 characters, each value under the cap.
    const fields = Array.from({ length: 14 }, (_, i) => `f${i} = a15`).join(", ");
    const text = doubling(15, `@misc{k, title = {T}, ${fields}}`);
    expect(text.length).toBeLessThan(2000);
    const r = bibtexWithinBudget(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe("too_large");
    expect(r.error.message).toContain("917,504 of them from 14 uses of @string a15");
    expect(r.error.message).toContain("per-request CPU budget");
    expect(14 * 65_536).toBeGreaterThan(cpuBudgetChars("bibtex"));
  });

  it("refuses a file the parser would rescan after every syntax error, within a bounded number of steps", () => {
    // Each `@a{k,t={` opens a value that never closes; the parser scans to the end from each one.
    const text = "@a{k,t={".repeat(100_000);
    const m = measureBibtex(text);
    expect(m.tooManySteps).toBe(true);
    expect(m.steps).toBeLessThanOrEqual(BIBTEX_MAX_SCAN_STEPS + text.length + m.errors);
    const calls = parseCalls();
    const r = parseBibtex(text);
    expect(r.ok ? "" : r.error.message).toMatch(/rescans the file after each one/);
    expect(parseCalls()).toBe(calls);
    // A few broken entries in a normal file are far inside the limit.
    const broken = `@misc{a, title = {unclosed}\n${"@misc{k, title = {A title}}\n".repeat(1000)}`;
    const b = measureBibtex(broken);
    expect(b.tooManySteps).toBe(false);
    expect(b.errors).toBe(1);
  });

  it("still parses normal files with @string macros; an entry carries only the macros its values use", () => {
    const text = [
      '@string{neurips = "Advances in Neural Information Processing Systems"}',
      "@string{acl = {ACL}}",
      "@inproceedings{lewis2020, title = {Retrieval-Augmented Generation}, booktitle = neurips, year = 2020}",
      "@misc{note1, title = {Setting x = acl in a title is text}, year = 2021}",
    ].join("\n");
    const calls = parseCalls();
    const r = parseBibtex(text);
    expect(parseCalls()).toBe(calls + 1);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [rag, note] = r.value.artifacts;
    expect(rag?.content).toContain("In: Advances in Neural Information Processing Systems");
    expect(rag?.content).toContain(
      "@string{neurips = {Advances in Neural Information Processing Systems}}\n@inproceedings{lewis2020",
    );
    expect(rag?.content).not.toContain("@string{acl");
    // `= acl` inside braces is title text, not a use of the macro.
    expect(note?.content).not.toContain("@string{");
  });

  it("refuses entries that inherit more than the budget through crossref, naming the parent", () => {
    // 100 children each inherit the parent's 10,000-character publisher: 1 million characters of
    // fields (and of records) from a 15 KB file.
    const parent = `@proceedings{proc1, title = {P}, publisher = {${"pub ".repeat(2500)}}}\n`;
    const kids = Array.from({ length: 100 }, (_, i) => `@inproceedings{k${i}, crossref = {proc1}, title = {T${i}}}\n`);
    const text = parent + kids.join("");
    expect(bibtexWithinBudget(text).ok).toBe(true);
    const r = parseBibtex(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe("too_large");
    expect(r.error.message).toContain("1,000,000 of them inherited through crossref from proc1");
    expect(r.error.hint).toContain("proc1");
    // Ten children inherit 100,000 characters: imported as before, the publisher in each record
    // (the parent's and its ten children's).
    const few = parseBibtex(parent + kids.slice(0, 10).join(""));
    expect(few.ok && few.value.artifacts.filter((a) => a.content.includes("Publisher: pub pub")).length).toBe(11);
  });
});
