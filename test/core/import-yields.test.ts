/**
 * Importers give the thread back while they parse (src/core/pace.ts): each format's parser is a
 * generator that yields between slices of its work, and the import pauses at every yield, so a
 * request at a format's size limit never holds the Worker (and every other request) for the whole
 * parse. Counted in yields per record, never in time. Also: the Markdown synopsis, now read from
 * the first lines only, is the one the whole passage gave.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseImportSliced } from "../../src/app/intake/imports";
import { readPdf } from "../../src/app/intake/pdf";
import { synopsisOf } from "../../src/core/formats/common";
import { parseMarkdownPaper } from "../../src/core/formats/markdown";
import { parsePdfSliced } from "../../src/core/formats/pdf";
import { pacer, runSliced, runSync, type Sliced, slicer } from "../../src/core/pace";
import { makePaperPdf } from "../fixtures/pdf-paper";

function drive<T>(work: Sliced<T>): { value: T; yields: number } {
  let yields = 0;
  for (;;) {
    const step = work.next();
    if (step.done) return { value: step.value, yields };
    yields++;
  }
}

const words = (i: number) =>
  `Memory routing for long-horizon agents number ${i} keeps evidence cards anchored to exact spans.`;

describe("pace", () => {
  it("runs sliced work to the same end with or without pauses, pausing at each yield", async () => {
    function* work(): Sliced<number> {
      const slice = slicer(3);
      let sum = 0;
      for (let i = 1; i <= 10; i++) {
        yield* slice();
        sum += i;
      }
      return sum;
    }
    let pauses = 0;
    expect(runSync(work())).toBe(55);
    expect(await runSliced(work(), async () => void pauses++)).toBe(55);
    expect(pauses).toBe(3);
    expect(drive(work()).yields).toBe(3);
    const pace = pacer(async () => void pauses++, 100);
    pauses = 0;
    for (let i = 0; i < 10; i++) await pace(45);
    expect(pauses).toBe(3);
  });
});

describe("importers yield between slices of their work", () => {
  it("markdown: at least every 500 references and every 20,000 lines", () => {
    const refs = Array.from(
      { length: 5000 },
      (_, i) => `${i + 1}. A. Author and B. Writer. ${words(i)} In Proc. X, 2021.`,
    );
    const text = `# A Survey of Memory\n\n## Abstract\n\n${words(0)}\n\n## References\n\n${refs.join("\n")}\n`;
    const { value, yields } = drive(parseImportSliced("markdown", text, "survey.md"));
    expect(value.ok).toBe(true);
    expect(yields).toBeGreaterThanOrEqual(5000 / 500);
  });

  it("bibtex: once per piece and every 100 entries", () => {
    const text = Array.from(
      { length: 300 },
      (_, i) =>
        `@article{k${i}, title = {${words(i)}}, author = {Lewis, Patrick}, year = 2020, abstract = {${words(i + 1)}}}\n`,
    ).join("");
    const { value, yields } = drive(parseImportSliced("bibtex", text, "refs.bib"));
    expect(value.ok && value.value.artifacts.length).toBe(300);
    expect(yields).toBeGreaterThanOrEqual(300 / 100 + 2);
  });

  it("openie: every 50 docs", () => {
    const docs = Array.from({ length: 1000 }, (_, i) => ({
      idx: i,
      passage: `Doc ${i}\n${words(i)}`,
      extracted_entities: ["memory"],
      extracted_triples: [["memory", "helps", "agents"]],
    }));
    const { value, yields } = drive(parseImportSliced("openie", JSON.stringify({ docs }), "openie.json"));
    expect(value.ok && value.value.artifacts.length).toBe(1000);
    expect(yields).toBeGreaterThanOrEqual(1000 / 50);
  });

  it("xkg: every 500 references and every 50 techniques", () => {
    const paper = {
      paper_title: "Discovering Latent Knowledge in Language Models Without Supervision",
      paper_abstract: words(0),
      arxiv_id: "2212.03827",
      paper_references: Array.from({ length: 5000 }, (_, i) => `A study of latent representations number ${i}`),
      techniques: Array.from({ length: 300 }, (_, i) => ({
        name: `T${i}`,
        description: "Scales x.",
        code: { implementation: `def f${i}(x): return ${i} * x` },
      })),
    };
    const { value, yields } = drive(parseImportSliced("xkg", JSON.stringify(paper), "kg.json"));
    expect(value.ok).toBe(true);
    expect(yields).toBeGreaterThanOrEqual(5000 / 500 + 300 / 50);
  });

  it("fulltext: after every paper", () => {
    const papers = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({
        paper_id: `p${i}`,
        metadata: { title: `Paper ${i}: ${words(i)}` },
        body_text: [{ section: "Intro", text: words(i) }],
      }),
    );
    const { value, yields } = drive(parseImportSliced("fulltext", papers.join("\n"), "papers.jsonl"));
    expect(value.ok).toBe(true);
    expect(yields).toBeGreaterThanOrEqual(40);
  });

  it("json feed: after each batch of 200 checked artifacts", () => {
    const artifacts = Array.from({ length: 1000 }, (_, i) => ({
      id: `n:${i}`,
      kind: "note",
      title: `N ${i}`,
      content: words(i),
    }));
    const { value, yields } = drive(parseImportSliced("json", JSON.stringify({ artifacts }), "feed.json"));
    expect(value.ok && value.value.artifacts.length).toBe(1000);
    expect(yields).toBeGreaterThanOrEqual(1000 / 200);
  });

  it("pdf: a pause after every page read and a yield after every page laid out", async () => {
    const pdf = await makePaperPdf();
    let pauses = 0;
    const doc = await readPdf(pdf.bytes, async () => void pauses++);
    expect(doc.ok).toBe(true);
    if (!doc.ok) return;
    expect(pauses).toBeGreaterThanOrEqual(pdf.pageCount);
    const { value, yields } = drive(parsePdfSliced(doc.value, { source: "paper.pdf" }));
    expect(value.ok).toBe(true);
    expect(yields).toBeGreaterThanOrEqual(2 * pdf.pageCount);
  });
});

describe("Markdown synopsis from the first lines", () => {
  /** The whole-passage rule it replaces: every line read, then trimmed. */
  const wholeProse = (md: string) =>
    md
      .split("\n")
      .filter((l) => !/^\s{0,3}#/.test(l))
      .join("\n")
      .replace(/(\*\*|__|`)/g, "")
      .trim();

  it("is the synopsis of the whole passage (property)", () => {
    const line = fc.oneof(
      fc.constantFrom(
        "",
        "   ",
        "\t",
        "#### Not a section",
        "  # heading-like",
        "**bold** and __under__ and `code`",
        "*",
        "_",
      ),
      fc.nat(500).map((i) => words(i)),
      fc.nat(50).map((n) => "x".repeat(n * 40)),
      fc.nat(20).map((n) => `${" ".repeat(n)}${words(n)}.`),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 200 }), (lines) => {
        const body = lines.join("\n");
        const text = `# The Title\n${body}`;
        const r = parseMarkdownPaper(text, { source: "p.md" });
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        const expected =
          synopsisOf("The Title", wholeProse(body)) ?? synopsisOf("The Title", wholeProse(text.slice(0)));
        expect(r.value.artifacts[0]?.synopsis).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });
});
