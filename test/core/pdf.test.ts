/**
 * PDF import: the text layer of a generated two-column paper (test/fixtures/pdf-paper.ts, pdf-lib)
 * read with unpdf and laid out by src/core/formats/pdf.ts, and the layout rules on hand-made items.
 */
import { createHash } from "node:crypto";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { readPdf } from "../../src/app/intake/pdf";
import { detectFormat } from "../../src/cli/import";
import {
  type PdfDocument,
  type PdfTextItem,
  pageAt,
  pageBoundaries,
  pageMarks,
  parsePdf,
} from "../../src/core/formats/pdf";
import type { ArtifactInput } from "../../src/core/ingest";
import {
  MARKERS,
  makeEncryptedPdf,
  makePaperPdf,
  makeScannedPdf,
  PAPER_TITLE,
  PARAGRAPHS,
} from "../fixtures/pdf-paper";

const PID = "paper:routing-memory-for-long-horizon-research-agents";

describe("a generated two-column paper", () => {
  let artifacts: ArtifactInput[] = [];
  let pages: Record<keyof typeof MARKERS, number>;
  beforeAll(async () => {
    const g = await makePaperPdf();
    pages = g.pages;
    const doc = await readPdf(g.bytes);
    if (!doc.ok) throw new Error(doc.error.message);
    expect(doc.value.pages).toHaveLength(3);
    const plan = parsePdf(doc.value, { source: "paper.pdf" });
    if (!plan.ok) throw new Error(plan.error.message);
    artifacts = plan.value.artifacts;
  });
  const byId = (id: string) => {
    const a = artifacts.find((x) => x.id === id);
    if (!a) throw new Error(`no ${id}`);
    return a;
  };

  it("takes the title from the largest text of page 1 and splits sections at the headings", () => {
    expect(pages).toEqual({ lighthouse: 1, glacier: 2, orchard: 3 });
    // Passages (sections over 1,500 characters grouped by paragraph, test/core/pdf-structure.test.ts) aside.
    expect(artifacts.some((a) => a.boundaries?.includes("passage"))).toBe(true);
    expect(artifacts.filter((a) => !a.boundaries?.includes("passage")).map((a) => [a.id, a.kind])).toEqual([
      [PID, "paper"],
      [`${PID}#s1-1-introduction`, "section"],
      [`${PID}#s2-2-method`, "section"],
      [`${PID}#s3-3-results`, "section"],
      [`${PID}#s4-4-conclusion`, "section"],
      [`${PID}#fig1`, "element"],
    ]);
    expect(byId(PID).title).toBe(PAPER_TITLE);
    // The abstract is the paper's content, the author line after it.
    expect(byId(PID).content).toMatch(/^Long-horizon agents need memory/);
    expect(byId(PID).content).toContain("Authors: Ada Lovelace and Alan Turing");
    expect(byId(PID).boundaries).toEqual(expect.arrayContaining(["pages:3", "page:1", "year:2024"]));
  });

  it("reads the columns in order and gives back every paragraph whole, hyphens joined", () => {
    const all = artifacts.map((a) => a.content.replace(/\s+/g, " ")).join(" ");
    for (const p of PARAGRAPHS) expect(all).toContain(p);
    // Words hyphenated at line ends by the generator come back whole.
    expect(all).toContain("verifiable");
    expect(all).toContain("increasing");
    expect(all).not.toMatch(/[a-z]- [a-z]/);
  });

  it("drops the running header, page numbers and figure labels; the caption is an element", () => {
    const all = artifacts.map((a) => a.content).join("\n");
    expect(all).not.toContain("Preprint. Under review");
    expect(all).not.toMatch(/\b(64|128|256|512)\b/);
    expect(all).not.toContain("pool size\n");
    const fig = byId(`${PID}#fig1`);
    expect(fig.content).toBe("Figure 1: Recall against pool size for three routers on the largest archive.");
    expect(fig.boundaries).toEqual(["element:figure", "page:2"]);
    expect(fig.edges).toEqual([
      { type: "part-of", target: PID },
      { type: "discussed-in", target: `${PID}#s2-2-method` },
    ]);
    // The caption interrupts the Method section on page 2 but does not end it.
    expect(byId(`${PID}#s2-2-method`).content).not.toContain("Recall against pool size");
  });

  it("keeps the page of every passage", () => {
    for (const [k, phrase] of Object.entries(MARKERS)) {
      const a = artifacts.find((x) => x.content.includes(phrase));
      if (!a) throw new Error(`no chunk holds ${phrase}`);
      const at = a.content.indexOf(phrase);
      expect(pageAt(pageMarks(a.boundaries ?? []), at), phrase).toBe(pages[k as keyof typeof MARKERS]);
    }
    expect(byId(`${PID}#s2-2-method`).boundaries?.[0]).toBe("page:1");
    expect(byId(`${PID}#s2-2-method`).boundaries?.[1]).toMatch(/^page:2@\d+$/);
  });
});

describe("readPdf failures", () => {
  it("a PDF without text answers unprocessable naming OCR", async () => {
    const doc = await readPdf(await makeScannedPdf());
    if (!doc.ok) throw new Error(doc.error.message);
    const plan = parsePdf(doc.value);
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.error.kind).toBe("unprocessable");
    expect(plan.error.message).toMatch(/^no text layer/);
    expect(plan.error.hint).toMatch(/run OCR first/);
  });

  it("not a PDF, a damaged PDF and an oversized one are refused with the fix", async () => {
    const notPdf = await readPdf(new TextEncoder().encode("hello, this is not a pdf"));
    expect(!notPdf.ok && notPdf.error.kind).toBe("validation");
    const damaged = await readPdf(new TextEncoder().encode(`%PDF-1.7\n${"garbage ".repeat(50)}\n%%EOF`));
    expect(!damaged.ok && damaged.error.kind).toBe("validation");
    expect(!damaged.ok && damaged.error.message).toMatch(/cannot be read/);
    const big = new Uint8Array(16 * 1024 * 1024 + 1);
    big.set(new TextEncoder().encode("%PDF-1.7\n"));
    const huge = await readPdf(big);
    expect(!huge.ok && huge.error.kind).toBe("too_large");
  });

  it("an encrypted PDF is refused naming the password", async () => {
    const md5 = (b: Uint8Array) => new Uint8Array(createHash("md5").update(b).digest());
    const r = await readPdf(makeEncryptedPdf(md5));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ kind: "validation", field: "body" });
    expect(r.error.message).toBe("this PDF is encrypted with a password");
    expect(r.error.hint).toMatch(/qpdf --decrypt/);
  });

  it("the CLI detects .pdf files", () => {
    expect(detectFormat("papers/Paper.PDF", "%PDF-1.7")).toBe("pdf");
  });

  it("more than 80 pages is a 413 naming the split", async () => {
    const d = await PDFDocument.create();
    const font = await d.embedFont(StandardFonts.Helvetica);
    for (let i = 0; i < 81; i++) d.addPage([200, 200]).drawText(`page ${i + 1}`, { x: 20, y: 100, font, size: 10 });
    const r = await readPdf(await d.save());
    expect(!r.ok && r.error.kind).toBe("too_large");
    expect(!r.ok && r.error.message).toMatch(/81 pages; one request reads at most 80/);
  });
});

// Hand-made items: one page of 612 x 792 points.
const item = (str: string, x: number, y: number, size = 10, w = str.length * size * 0.45): PdfTextItem => ({
  str,
  x,
  y,
  w,
  size,
  upright: true,
});
const doc1 = (items: PdfTextItem[], info: PdfDocument["info"] = {}): PdfDocument => ({
  pages: [{ width: 612, height: 792, items }],
  info,
});

describe("layout rules", () => {
  it("prefers a metadata title that reads like one, and reads an arXiv id from a rotated stamp", () => {
    const items = [
      item("Large Title Text", 200, 700, 18),
      item("1 Introduction", 54, 600, 12),
      item("Body text of the introduction goes here.", 54, 580),
      { ...item("arXiv:2405.14831v2 [cs.CL] 1 May 2024", 20, 300), upright: false },
    ];
    const meta = parsePdf(doc1(items, { title: "HippoRAG: Neurobiologically Inspired Memory" }));
    expect(meta.ok && meta.value.artifacts[0]?.title).toBe("HippoRAG: Neurobiologically Inspired Memory");
    expect(meta.ok && meta.value.artifacts[0]?.id).toBe("arxiv:2405.14831");
    const junk = parsePdf(doc1(items, { title: "Microsoft Word - draft7.docx" }));
    expect(junk.ok && junk.value.artifacts[0]?.title).toBe("Large Title Text");
  });

  it("keeps a hyphen the document writes elsewhere, and does not take contents lines for headings", () => {
    const r = parsePdf(
      doc1([
        item("Title Of The Paper", 200, 740, 18),
        item("1 Introduction 3", 54, 700),
        item("2 Method . . . . . . 5", 54, 688),
        item("1 Introduction", 54, 650, 12),
        item("A long-horizon agent works on a task for a long-", 54, 630),
        item("horizon, and re-reads its mem-", 54, 618),
        item("ory often.", 54, 606),
      ]),
    );
    if (!r.ok) throw new Error(r.error.message);
    const sections = r.value.artifacts.filter((a) => a.kind === "section");
    expect(sections.map((s) => s.title)).toEqual(["Title Of The Paper: 1 Introduction"]);
    expect(sections[0]?.content).toBe(
      "A long-horizon agent works on a task for a long-horizon, and re-reads its memory often.",
    );
  });

  it("reads the whole letter run before a line-end hyphen, however long, across joined lines", () => {
    // The section text is kept in pieces (testing the end of one growing string was quadratic):
    // the letters before a final hyphen run past the first 64 characters read, and across the
    // line joined before ("ab-" + "xxx…x-" + "flag"). The document writes the hyphenated form inside
    // a line, so the hyphen is kept.
    const long = "x".repeat(150);
    const r = parsePdf(
      doc1([
        item("Title Of The Paper", 200, 740, 18),
        item("1 Introduction", 54, 650, 12),
        item("We keep ab-", 54, 630),
        item(`${long}-`, 54, 618),
        item(`flag as written, since ab${long}-flag is how the text writes it.`, 54, 606),
      ]),
    );
    if (!r.ok) throw new Error(r.error.message);
    const section = r.value.artifacts.find((a) => a.kind === "section");
    expect(section?.content).toBe(`We keep ab${long}-flag as written, since ab${long}-flag is how the text writes it.`);
  });

  it("page marks round-trip through boundaries", () => {
    const b = pageBoundaries([
      { page: 2, offset: 0 },
      { page: 3, offset: 120 },
      { page: 4, offset: 900 },
    ]);
    expect(b).toEqual(["page:2", "page:3@120", "page:4@900"]);
    const m = pageMarks(["element:figure", ...b.reverse()]);
    expect([0, 119, 120, 899, 900, 5000].map((o) => pageAt(m, o))).toEqual([2, 2, 3, 3, 4, 4]);
    expect(pageAt(pageMarks(["year:2024"]), 0)).toBeNull();
  });
});

describe("lines", () => {
  it("reads a two-column page in bands cut by a full-width caption", () => {
    const r = parsePdf(
      doc1([
        item("Title Of The Paper", 200, 740, 18),
        item("1 Introduction", 54, 700, 12),
        item("Alpha left top.", 54, 680),
        item("Beta right top.", 320, 680),
        item("Figure 1: Wide caption.", 54, 500, 10, 500),
        item("Gamma left bottom.", 54, 300),
        item("Delta right bottom.", 320, 300),
      ]),
    );
    if (!r.ok) throw new Error(r.error.message);
    const s = r.value.artifacts.find((a) => a.kind === "section");
    expect(s?.content).toBe("Alpha left top. Beta right top. Gamma left bottom. Delta right bottom.");
    expect(r.value.artifacts.find((a) => a.kind === "element")?.content).toBe("Figure 1: Wide caption.");
  });

  it("keeps a superscript on its line and two columns' halves apart", () => {
    const r = parsePdf(
      doc1([
        item("Title Of The Paper", 200, 740, 18),
        item("1 Introduction", 54, 700, 12),
        item("Memory matters", 54, 680),
        item("12", 130, 683, 7, 6),
        item("for agents.", 140, 680),
        item("Right column text", 320, 680),
        item("continues here.", 320, 668),
        item("Left column line two.", 54, 668),
        item("Another left line.", 54, 656),
        item("More right text.", 320, 656),
      ]),
    );
    if (!r.ok) throw new Error(r.error.message);
    const s = r.value.artifacts.find((a) => a.kind === "section");
    expect(s?.content).toBe(
      "Memory matters 12 for agents. Left column line two. Another left line. Right column text continues here. More right text.",
    );
  });
});
