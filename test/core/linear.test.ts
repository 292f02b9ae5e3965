/**
 * Text scanning is linear: every function that scans user text at ingest or import grows ~linearly
 * on pathological inputs (long runs that make backtracking regexes retry from every position).
 * 16x the input: linear growth is ~16x, quadratic ~256x; the bound of 100x leaves room for garbage
 * collection and a loaded machine. Inputs from a probe that stalled a Worker for 7-8 s each.
 */
import { describe, expect, it } from "vitest";
import { parseMarkdownPaper } from "../../src/core/formats/markdown";
import { parseReference } from "../../src/core/formats/references";
import { findIdentifiers } from "../../src/core/ids";
import { deriveSynopsis } from "../../src/core/ingest";
import { docTerms } from "../../src/core/text/lexical";
import { extractMentions } from "../../src/core/text/mentions";

const SCANNERS: Record<string, (s: string) => unknown> = {
  findIdentifiers,
  parseMarkdownPaper: (s) => parseMarkdownPaper(s),
  parseReference,
  deriveSynopsis: (s) => deriveSynopsis("t", s),
  docTerms: (s) => docTerms("t", s),
  extractMentions,
};

/** [prefix, unit repeated, suffix]: the shapes that were quadratic, and neighbours of them. */
const INPUTS: Array<[string, string, string]> = [
  ["See 10.1234/", ".", "a"],
  ["# H", " ", "a"],
  ["", "[", "a"],
  ["", "A. ", "a"],
  ["", "_a ", "x"],
  ["", '"', "a"],
  ["", " 1,", "a"],
  ["", "a ", ""],
  ["", "(", "a"],
  ["", "`", "a"],
  ["Author, ", "x, ", "a"],
];

function time(fn: (s: string) => unknown, s: string): number {
  const once = () => {
    const t0 = performance.now();
    fn(s);
    return performance.now() - t0;
  };
  return Math.min(once(), once());
}

describe("linear-time text scanning", () => {
  for (const [name, fn] of Object.entries(SCANNERS))
    it(`${name} grows linearly on pathological inputs`, () => {
      for (const [pre, unit, post] of INPUTS) {
        const make = (n: number) => pre + unit.repeat(n) + post;
        time(fn, make(1000));
        const small = Math.max(2, time(fn, make(4_000)));
        const big = time(fn, make(64_000));
        expect(big / small, `${name} on ${JSON.stringify(pre + unit)}…`).toBeLessThan(100);
      }
    }, 120_000);
});
