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
import { cpuNow } from "./cpu-clock";

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

/**
 * The fastest of three runs of each input, the two inputs taken in turn: a busy machine slows both
 * sizes alike instead of one, and the fastest run is the one least disturbed.
 */
function times(fn: (s: string) => unknown, a: string, b: string): [number, number] {
  const once = (s: string) => {
    const t0 = cpuNow();
    fn(s);
    return cpuNow() - t0;
  };
  let ta = Number.POSITIVE_INFINITY;
  let tb = Number.POSITIVE_INFINITY;
  for (let k = 0; k < 3; k++) {
    ta = Math.min(ta, once(a));
    tb = Math.min(tb, once(b));
  }
  return [ta, tb];
}

describe("linear-time text scanning", () => {
  for (const [name, fn] of Object.entries(SCANNERS))
    it(`${name} grows linearly on pathological inputs`, () => {
      for (const [pre, unit, post] of INPUTS) {
        const make = (n: number) => pre + unit.repeat(n) + post;
        fn(make(1000));
        const [fast, big] = times(fn, make(4_000), make(64_000));
        const small = Math.max(2, fast);
        expect(big / small, `${name} on ${JSON.stringify(pre + unit)}…`).toBeLessThan(100);
      }
    }, 120_000);
});
