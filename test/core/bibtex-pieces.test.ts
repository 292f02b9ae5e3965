/**
 * A BibTeX file is parsed piece by piece, with a yield between pieces, so a 500 KB import never
 * holds the thread for the whole parse (src/core/formats/bibtex-size.ts planBibtexPieces). The pieces
 * must read exactly as the whole file does: same entries, errors and macros, so the same plan. These
 * tests compare the two on generated files (a fast-check property over the constructs that carry
 * state from one entry to the next: @string macros, @preamble commands, unknown macros, comments and
 * junk between entries), check that the files a piece cannot read alike are parsed whole, and count
 * the yields (never time).
 */
import { parse } from "@retorquere/bibtex-parser";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseBibtex, parseBibtexSliced, readLibrary } from "../../src/core/formats/bibtex";
import { planBibtexPieces } from "../../src/core/formats/bibtex-size";
import { runSync } from "../../src/core/pace";

const WHOLE = Number.POSITIVE_INFINITY;
const OPTIONS = { sentenceCase: false, applyCrossRef: true, unsupported: "ignore" } as const;

/** What parseBibtex reads of a library: its entries, errors and macros. */
const read = (lib: Pick<ReturnType<typeof parse>, "entries" | "errors" | "strings">) => ({
  entries: lib.entries,
  errors: lib.errors,
  strings: lib.strings,
});
/** The parser's own reading of the whole file. */
const wholeLibrary = (text: string) => read(parse(text, OPTIONS));
/** The reading in pieces of about `chars` characters. */
const inPieces = (text: string, chars: number) => read(runSync(readLibrary(text, chars)));

function entry(i: number, extra = ""): string {
  return `@article{key${i},
  title = {A {Study} of K{\\"u}ttler's Memory ${i}},
  author = {Lewis, Patrick and Gutiérrez, Bernal and {\\'E}mile Zola},
  journal = {Advances in Neural Information Processing Systems},
  year = {${2000 + (i % 25)}}, month = ${["jan", "mar", "dec"][i % 3]},
  keywords = {memory, retrieval; agents},
  abstract = {We study ${i} things \\emph{carefully} with $x^2$ and 50\\% more.}${extra}
}
`;
}

describe("planBibtexPieces", () => {
  it("cuts a file into pieces that give the same library and plan as the whole file", () => {
    const text = [
      "% a file written by hand\n",
      '@string{neurips = "Advances in Neural Information Processing Systems"}\n',
      "@preamble{ {\\newcommand{\\noopsort}[1]{}} }\n",
      ...Array.from({ length: 60 }, (_, i) => entry(i, i % 7 === 0 ? ",\n  booktitle = neurips # { (Workshop)}" : "")),
      "junk between entries that the parser skips\n",
      "@comment{jabref-meta: databaseType:bibtex;}\n",
      '@string{later = "Defined after the first pieces"}\n',
      ...Array.from({ length: 30 }, (_, i) => entry(100 + i, ",\n  note = later # { and } # undefinedmacro")),
    ].join("");
    const plan = planBibtexPieces(text, 2000);
    expect("pieces" in plan && plan.pieces.length).toBeGreaterThan(10);
    expect(inPieces(text, 2000)).toEqual(wholeLibrary(text));
    const pieces = parseBibtex(text, { source: "refs.bib", pieceChars: 2000 });
    expect(pieces).toEqual(parseBibtex(text, { source: "refs.bib", pieceChars: WHOLE }));
    // The unknown macro's error is listed once, as the whole file lists it.
    expect(pieces.ok && pieces.value.skipped.filter((s) => s.reason.includes("undefinedmacro")).length).toBe(1);
  });

  it("parses whole what a piece would read differently", () => {
    const cases: Array<[string, RegExp]> = [
      [`${entry(1)}@article{broken, title = {unclosed\n${entry(2)}`, /syntax errors/],
      [`@proceedings{conf, title = {Proc}, publisher = {P}}\n${entry(1, ",\n  crossref = {conf}")}`, /crossref/],
      [`@string{x = ""}\n${entry(1, ",\n  note = x")}`, /defined empty/],
      [`@string{x = "a"}\n${entry(1)}@string{x = "b"}\n${entry(2, ",\n  note = x")}`, /defined twice/],
      [`${entry(1, ",\n  note = {\\newcommand{\\foo}{bar}}")}${entry(2, ",\n  note = {\\foo}")}`, /defines a command/],
      [`${entry(1, ',\n  note = "\\\\new" # "command{\\\\foo}{bar}"')}${entry(2)}`, /joins a part with a backslash/],
      [
        `@string{p = "\\\\newcommand{\\\\foo}{x}"}\n@preamble{p}\n${entry(1)}`,
        /defines a command|preamble uses a macro/,
      ],
    ];
    for (const [text, why] of cases) {
      const plan = planBibtexPieces(text, 1);
      expect("whole" in plan ? plan.whole : "cut").toMatch(why);
      expect(inPieces(text, 1)).toEqual(wholeLibrary(text));
    }
  });

  it("reads any mix of macros, preambles, comments and entries alike in pieces (property)", () => {
    const part = fc.oneof(
      fc.nat(50).map((i) => entry(i)),
      fc.nat(50).map((i) => entry(i, ",\n  note = mac1 # { vol. } # 12")),
      fc.nat(50).map((i) => entry(i, ",\n  note = nomacro")),
      fc
        .nat(50)
        .map((i) => `@misc(paren${i}, title = "Quoted {T}itle ${i}", howpublished = {\\url{https://x.org/${i}}})\n`),
      fc.nat(20).map((k) => `@string{mac${k} = "Journal of " # {Things ${k}}}\n`),
      fc.nat(20).map((k) => `@string{alt${k} = mac${k % 3} # " and Stuff"}\n`),
      fc.constantFrom(
        "@preamble{ {\\newcommand{\\sortkey}[1]{}} }\n",
        '@preamble{"\\providecommand{\\x}{}"}\n',
        "@comment{a comment @ with an at sign}\n",
        "% a TeX comment line\n",
        "plain text between entries\n",
        "@misc{untitled, year = 2020}\n",
        "@misc{dup, title = {Same}}\n@misc{dup2, title = {Same}, doi = {10.1/x}}\n",
        "@misc{weird, title = {A \\unknowncommand{b} c}, author = {A and B, C, D, E}}\n",
      ),
    );
    let cutRuns = 0;
    fc.assert(
      fc.property(fc.array(part, { minLength: 3, maxLength: 25 }), fc.integer({ min: 1, max: 600 }), (parts, cut) => {
        const text = parts.join("");
        const plan = planBibtexPieces(text, cut);
        if ("pieces" in plan && plan.pieces.length > 1) cutRuns++;
        expect(inPieces(text, cut)).toEqual(wholeLibrary(text));
        expect(parseBibtex(text, { pieceChars: cut })).toEqual(parseBibtex(text, { pieceChars: WHOLE }));
      }),
      { numRuns: 60 },
    );
    // Most runs are cut (the rest are small files or carry a hazard): the property tests the pieces.
    expect(cutRuns).toBeGreaterThan(40);
  });
});

describe("parseBibtexSliced", () => {
  it("yields at least once per piece of the file and every 100 entries, counted, not timed", () => {
    const text = Array.from({ length: 400 }, (_, i) => entry(i)).join("");
    const plan = planBibtexPieces(text);
    const pieces = "pieces" in plan ? plan.pieces.length : 0;
    expect(pieces).toBeGreaterThan(5);
    const work = parseBibtexSliced(text);
    let yields = 0;
    let step = work.next();
    while (!step.done) {
      yields++;
      step = work.next();
    }
    expect(step.value.ok && step.value.value.artifacts.length).toBe(400);
    expect(yields).toBeGreaterThanOrEqual(pieces + 400 / 100);
    // No piece is larger than its share: the parser never reads more than ~2 pieces' worth between yields.
    if ("pieces" in plan) for (const p of plan.pieces) expect(p.text.length).toBeLessThan(30_000);
  });
});
