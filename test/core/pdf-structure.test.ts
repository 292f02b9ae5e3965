/** PDF structure (Paper Circle §3.4): section numbers, display equations, reference entries, passages with pages. */
import { describe, expect, it } from "vitest";
import { readPdf } from "../../src/app/intake/pdf";
import { parsePdf } from "../../src/core/formats/pdf";
import {
  displayEquation,
  marksWithin,
  PASSAGE_CHARS,
  parentNumber,
  passages,
  sectionNumber,
  splitReferences,
} from "../../src/core/formats/pdf-structure";
import { EQUATION_LINE, makeStructuredPdf, STRUCTURED_PID } from "../fixtures/pdf-structured";

describe("pdf structure rules", () => {
  it("number sections and find their parents", () => {
    expect(sectionNumber("2.5 Scoring")).toBe("2.5");
    expect(sectionNumber("3. Results")).toBe("3");
    expect(sectionNumber("Introduction")).toBeNull();
    expect(parentNumber("2.5")).toBe("2");
    expect(parentNumber("2.5.1")).toBe("2.5");
    expect(parentNumber("2")).toBeNull();
  });

  it("tell display equations from prose with a number in parentheses", () => {
    expect(displayEquation("E = mc^2 (3)")).toEqual({ text: "E = mc^2", label: "3" });
    expect(displayEquation(EQUATION_LINE)?.label).toBe("1");
    expect(displayEquation("as reported by Smith and colleagues in their survey (2020)")).toBeNull();
    expect(displayEquation("x = 1. (2)")).toBeNull();
    expect(displayEquation("no math here at all (4)")).toBeNull();
  });

  it("split references at [n], at n. in order, else at paragraph breaks", () => {
    expect(splitReferences("[1] A. One. First title here. 2020. [2] B. Two. Second title here. 2021.")).toEqual([
      "A. One. First title here. 2020.",
      "B. Two. Second title here. 2021.",
    ]);
    expect(splitReferences("1. Alpha, A. Title one goes here. 2. Beta, B. Title two goes here.")).toHaveLength(2);
    expect(splitReferences("Alpha, A. A title of one work.\n\nBeta, B. A title of another work.")).toHaveLength(2);
  });

  it("group paragraphs into passages of at most 1,500 characters, each with its pages", () => {
    const para = (c: string) => `${c.repeat(20)} ${"word ".repeat(100).trim()}.`;
    const text = [para("a"), para("b"), para("c"), para("d"), para("e")].join("\n\n");
    const marks = [
      { page: 1, offset: 0 },
      { page: 2, offset: text.indexOf("ccc") },
    ];
    const ps = passages(text, marks);
    expect(ps.length).toBeGreaterThan(1);
    for (const p of ps) {
      expect(p.text.length).toBeLessThanOrEqual(PASSAGE_CHARS);
      expect(text.slice(p.start, p.end)).toBe(p.text);
      expect(p.marks[0]?.offset).toBe(0);
    }
    // Every character of every paragraph is in a passage, in order.
    expect(ps.map((p) => p.text).join("\n\n")).toBe(text);
    const onTwo = ps.find((p) => p.start <= marks[1]!.offset && p.end > marks[1]!.offset);
    if (onTwo && onTwo.start < marks[1]!.offset)
      expect(onTwo.marks).toEqual([
        { page: 1, offset: 0 },
        { page: 2, offset: marks[1]!.offset - onTwo.start },
      ]);
    expect(passages("short", marks)).toEqual([]);
    // One paragraph longer than the limit is cut at sentence ends.
    const long = Array.from({ length: 90 }, (_, i) => `Sentence number ${i} is here.`).join(" ");
    const cut = passages(long, [{ page: 3, offset: 0 }]);
    expect(cut.length).toBeGreaterThan(1);
    for (const p of cut) expect(p.text).toMatch(/^Sentence number \d+ is here\..*\.$/);
    expect(marksWithin([{ page: 3, offset: 0 }], 100, 200)).toEqual([{ page: 3, offset: 0 }]);
  });
});

describe("a structured PDF", () => {
  it("nests subsections, keeps the equation, parses the references and chunks the long section", async () => {
    const { bytes } = await makeStructuredPdf();
    const doc = await readPdf(bytes);
    if (!doc.ok) throw new Error(doc.error.message);
    const r = parsePdf(doc.value, { source: "structured.pdf" });
    if (!r.ok) throw new Error(r.error.message);
    const plan = r.value;
    expect(plan.paper).toBe(STRUCTURED_PID);
    const byId = new Map(plan.artifacts.map((a) => [a.id, a]));
    const sec = (prefix: string) => plan.artifacts.find((a) => a.id.startsWith(`${STRUCTURED_PID}#${prefix}`));
    const method = sec("s2-2-method");
    const routing = sec("s3-2-1-routing");
    const scoring = sec("s4-2-2-scoring");
    expect(method && routing && scoring).toBeTruthy();
    expect(routing?.edges).toEqual([
      { type: "part-of", target: STRUCTURED_PID },
      { type: "part-of", target: method?.id },
    ]);
    expect(scoring?.edges).toContainEqual({ type: "part-of", target: method?.id });
    expect(method?.edges).toEqual([{ type: "part-of", target: STRUCTURED_PID }]);
    const eq = byId.get(`${STRUCTURED_PID}#eq1`);
    expect(eq).toMatchObject({ kind: "element", content: EQUATION_LINE });
    expect(eq?.boundaries).toEqual(["element:equation", "page:1"]);
    expect(eq?.edges).toContainEqual({ type: "discussed-in", target: scoring?.id });
    // References: ids become cites edges; title-only entries wait for the importer.
    expect(plan.references.map((x) => x.cited)).toEqual([
      "arxiv:2405.14831",
      "doi:10.1145/3397271.3401075",
      null,
      null,
    ]);
    expect(plan.references[2]?.title).toBe("Hierarchical Retrieval over Nested Section Trees");
    expect(byId.get(STRUCTURED_PID)?.edges).toEqual([
      { type: "cites", target: "arxiv:2405.14831" },
      { type: "cites", target: "doi:10.1145/3397271.3401075" },
    ]);
    // The long Results section: passages part-of it, each at most 1,500 characters, with pages.
    const results = sec("s5-3-results");
    expect((results?.content.length ?? 0) > PASSAGE_CHARS).toBe(true);
    const ps = plan.artifacts.filter((a) => a.id.startsWith(`${results?.id}#p`));
    expect(ps.length).toBeGreaterThanOrEqual(2);
    for (const p of ps) {
      expect(p.content.length).toBeLessThanOrEqual(PASSAGE_CHARS);
      expect(results?.content).toContain(p.content);
      expect(p.edges).toEqual([{ type: "part-of", target: results?.id }]);
      expect(p.boundaries?.[0]).toBe("passage");
      expect(p.boundaries?.[1]).toMatch(/^page:\d$/);
    }
    expect(new Set(ps.flatMap((p) => p.boundaries ?? []).filter((b) => /^page:2/.test(b))).size).toBeGreaterThan(0);
    // The References section is not cut into passages, and its entries are not headings.
    expect(plan.artifacts.filter((a) => /#s\d+-references#p/.test(a.id))).toEqual([]);
    expect(plan.artifacts.filter((a) => a.kind === "section").length).toBe(6);
    expect(new Set(ps.map((p) => p.kind))).toEqual(new Set(["record"]));
  });
});
