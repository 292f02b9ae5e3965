import fc from "fast-check";
import { XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import {
  baseCitationKey,
  citationKeys,
  latexEscape,
  paperMeta,
  referenceYear,
  renderBibtex,
  renderCslItems,
} from "../../src/core/export/biblio";
import { csvField, renderCsv } from "../../src/core/export/csv";
import { mermaidLabel, renderGraphml, renderMermaid } from "../../src/core/export/graph";
import { mdCode, renderContextMarkdown } from "../../src/core/export/markdown";
import { parseDump } from "../../src/core/export/replay";
import type { ChunkRecord, GraphEdge, GraphNode } from "../../src/core/export/types";
import { countTokens } from "../../src/core/text/tokenizer";
import type { EvidenceCard } from "../../src/core/types";

const rec = (over: Partial<ChunkRecord>): ChunkRecord => ({
  id: "arxiv:2005.11401",
  kind: "paper",
  version: 1,
  latestVersion: 1,
  title: "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
  synopsis: "",
  validFrom: Date.UTC(2020, 4, 22),
  validTo: null,
  deprecatedAt: null,
  deprecatedBy: null,
  entities: [],
  boundaries: [],
  source: "",
  content: "Title\nAuthors: Patrick Lewis, Ethan Perez\nDate: 2020-05",
  ...over,
});

describe("csv", () => {
  it("quotes only fields that need it (RFC 4180) and ends rows with CRLF", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('say "hi", then')).toBe('"say ""hi"", then"');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    expect(csvField(null)).toBe("");
    const out = renderCsv([rec({ title: 'A "quoted", title', entities: ["a", "b"] })]);
    const lines = out.split("\r\n");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('"A ""quoted"", title"');
    expect(lines[1]).toContain(",a; b,");
  });
});

describe("bibtex and csl-json", () => {
  it("stable keys: firstauthorYEARfirstword, a/b suffixes in id order, independent of input order", () => {
    const a = rec({ id: "arxiv:2005.11401" });
    const b = rec({ id: "doi:10.1/x", title: "The Retrieval of Things" });
    const c = rec({ id: "arxiv:1234.5678", title: "Graph memory", content: "Authors: Bernal Jiménez Gutiérrez" });
    expect(baseCitationKey(paperMeta(a))).toBe("lewis2020retrieval");
    expect(baseCitationKey(paperMeta(c))).toBe("gutierrez2020graph");
    const k1 = citationKeys([a, b, c].map(paperMeta));
    const k2 = citationKeys([c, b, a].map(paperMeta));
    expect([...k1.entries()].sort()).toEqual([...k2.entries()].sort());
    expect(k1.get("arxiv:2005.11401")).toBe("lewis2020retrievala");
    expect(k1.get("doi:10.1/x")).toBe("lewis2020retrievalb");
    expect(k1.get("arxiv:1234.5678")).toBe("gutierrez2020graph");
  });

  it("escapes LaTeX specials and writes doi / eprint from the canonical ids", () => {
    expect(latexEscape("50% of R&D costs $3 #1 a_b {x} ~ ^ \\")).toBe(
      "50\\% of R\\&D costs \\$3 \\#1 a\\_b \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}",
    );
    const bib = renderBibtex([
      rec({ title: "Costs & {Benefits}", aliases: ["10.5555/Rag.2020"] }),
      rec({ id: "note:x", kind: "note" }),
    ]);
    expect(bib).toContain("@misc{lewis2020costs,");
    expect(bib).toContain("title = {Costs \\& \\{Benefits\\}}");
    expect(bib).toContain("author = {Lewis, Patrick and Perez, Ethan}");
    expect(bib).toContain("doi = {10.5555/rag.2020}");
    expect(bib).toContain("eprint = {2005.11401}");
    expect(bib).not.toContain("note:x");
    const csl = renderCslItems([rec({})]);
    expect(csl).toEqual([
      expect.objectContaining({
        id: "lewis2020retrieval",
        type: "article",
        author: [
          { family: "Lewis", given: "Patrick" },
          { family: "Perez", given: "Ethan" },
        ],
        issued: { "date-parts": [[2020, 5]] },
        URL: "https://arxiv.org/abs/2005.11401",
      }),
    ]);
  });
});

describe("years are never invented", () => {
  it("reads a reference's year: parenthesised first, else the last standing year, never an identifier's digits", () => {
    const cases: Array<[string, number | null]> = [
      ["A. Author, B. Author, Title of it, Phys. Rev. Lett. 120, 2012 (2018).", 2018],
      ["Lewis, P. (2020a). Retrieval-augmented generation. NeurIPS.", 2020],
      ["Snellen, I. A. G., de Kok, R. J., et al. 2013, , 764, 182", 2013],
      ["Field computation by moment methods, 1969", 1969],
      ["T. Brown et al. Language models are few-shot learners. arXiv:2005.14165", null],
      ["Roberta: A robustly optimized bert pretraining approach. arXiv preprint arXiv:1907.11692, 2019.", 2019],
      ["M. Laine, JHEP 02, 004 (2004) doi:10.1088/1126-6708/2004/02/004", 2004],
      ["J. Smith. A method. https://example.org/2017/paper.pdf", null],
      ["The Spin dependent two loop splitting functions, Nucl. Phys. B 475", null],
      ["Proceedings, pages 1999-2005.", null],
      ["Cambridge University Press", null],
      ["An 1850 treatise, reprinted 2101", null],
    ];
    for (const [text, want] of cases) expect(referenceYear(text), text).toBe(want);
  });

  it("a work known only from a bibliography: the year its text states, else no year, no issued, no 1970", () => {
    const standIn = (content: string) =>
      rec({
        id: `paper:${content.length}`,
        title: "A cited work",
        content,
        validFrom: 0,
        boundaries: ["reference-only"],
      });
    const dated = standIn("K. Author, A cited work, J. Phys. 12, 34 (2016).");
    const undated = standIn("K. Author. A cited work. Some Press.");
    expect([paperMeta(dated).year, paperMeta(undated).year]).toEqual([2016, null]);
    const bib = renderBibtex([dated, undated]);
    expect(bib).toContain("year = {2016}");
    expect(bib.match(/year = /g)).toHaveLength(1);
    expect(bib).not.toContain("1970");
    const csl = renderCslItems([dated, undated]);
    expect(csl.map((x) => JSON.stringify(x.issued ?? null)).sort()).toEqual(["null", '{"date-parts":[[2016]]}']);
    expect(JSON.stringify(csl)).not.toContain("1970");
    // A record of its own without a date (valid from the epoch) has no year either.
    expect(paperMeta(rec({ content: "Title only", validFrom: 0 })).year).toBeNull();
    // A record of its own with a real valid_from keeps that year.
    expect(paperMeta(rec({ content: "Title only" })).year).toBe(2020);
  });
});

const nodes: GraphNode[] = [
  {
    id: 'a:"x"<&>',
    kind: "paper",
    version: 2,
    title: 'T <b> & "q" [x] #1 `c` |p|',
    deprecatedAt: null,
    external: false,
  },
  { id: "doi:10.1/y", kind: "external", version: 0, title: "doi:10.1/y", deprecatedAt: null, external: true },
];
const edges: GraphEdge[] = [
  {
    src: 'a:"x"<&>',
    dst: "doi:10.1/y",
    type: "cites",
    weight: 1,
    validFrom: 0,
    validTo: null,
    context: "ctl\u0001 & <tag>",
  },
];

describe("graph", () => {
  it("GraphML is well-formed XML with escaped ids, titles and contexts", () => {
    const xml = renderGraphml({ nodes, edges }, { archive: "a&b", asOf: 0 });
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<node id="a:&quot;x&quot;&lt;&amp;&gt;">');
    expect(xml).not.toContain("\u0001");
  });

  it("Mermaid uses n0.. ids, entity-escaped labels, and caps its size", () => {
    const mmd = renderMermaid({ nodes, edges }, { archive: "a", asOf: 0 });
    expect(mmd).toContain("flowchart LR");
    expect(mmd).toMatch(/^ {2}n0\["[^"]*"\]$/m);
    expect(mmd).toContain("n0 -->|cites| n1");
    for (const line of mmd.split("\n").filter((l) => /^ {2}n\d/.test(l)))
      expect(line.replace(/\["[^"]*"\]|\(\["[^"]*"\]\)/g, "")).toMatch(/^[\sn0-9|a-z>.-]*$/);
    expect(mermaidLabel('a"b#c<d>[e]|f')).toBe("a#quot;b#35;c#lt;d#gt;#91;e#93;#124;f");
    const many: GraphNode[] = Array.from({ length: 30 }, (_, i) => ({ ...nodes[0]!, id: `c${i}`, title: `c${i}` }));
    const capped = renderMermaid({ nodes: many, edges: [] }, { archive: "a", asOf: 0 }, { maxNodes: 10, maxEdges: 5 });
    expect(capped.match(/^ {2}n\d+\[/gm)).toHaveLength(10);
    expect(capped).toContain("nodes 10 of 30");
  });
});

describe("markdown", () => {
  it("renders cards with anchors `id@vN [start,end)` and quoted snippets", () => {
    const md = renderContextMarkdown({
      query: "what *is* HippoRAG?",
      asOf: 0,
      cards: [
        {
          artifact_id: "arxiv:2405.14831",
          version: 2,
          kind: "paper",
          title: "HippoRAG",
          claim_boundary: "It uses PPR.",
          logic_sketch: "",
          assumptions: ["v2 valid from 2024"],
          anchored_spans: [
            { artifact_id: "arxiv:2405.14831", version: 2, start: 10, end: 22, snippet: "line1\nline2" },
          ],
          tokens: 100,
          distiller: "extractive",
        },
      ],
      budget: { total: 1000, cards: 100, shortTerm: 0, tokenizer: "cl100k_base" },
      skipped: [],
    });
    expect(md).toContain("# Context: what \\*is\\* HippoRAG?");
    expect(md).toContain("`arxiv:2405.14831@v2 [10,22)`");
    expect(md).toContain("> line1\n> line2");
    expect(mdCode("a`b")).toBe("``a`b``");
  });
});

describe("markdown within its budget", () => {
  const word = fc.constantFrom(
    "owl",
    "kestrel",
    "tower",
    "rye",
    "bakery",
    "PageRank",
    "damping",
    "0.85",
    "line",
    "station",
  );
  const sentence = fc.array(word, { minLength: 3, maxLength: 14 }).map((w) => `${w.join(" ")}.`);
  const card = (k: number) =>
    fc.record({ claim: sentence, sketch: sentence, other: sentence, many: fc.integer({ min: 0, max: 3 }) }).map(
      (x): EvidenceCard => ({
        artifact_id: `note:${k}`,
        version: 1,
        kind: "note",
        title: `Note ${k}`,
        claim_boundary: x.claim,
        logic_sketch: x.sketch,
        assumptions: [],
        // The claim's own sentence among the evidence (as extractive cards have it), then others.
        anchored_spans: [
          { artifact_id: `note:${k}`, version: 1, start: 0, end: x.claim.length, snippet: x.claim },
          ...Array.from({ length: x.many }, (_, j) => ({
            artifact_id: `note:${k}`,
            version: 1,
            start: 100 * (j + 1),
            end: 100 * (j + 1) + x.other.length,
            snippet: x.other,
          })),
        ],
        tokens: 50,
        distiller: "extractive",
      }),
    );
  it("holds at most budget tokens, takes cards in rank order, and prints no sentence twice (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, k) => card(k)))),
        fc.integer({ min: 120, max: 2500 }),
        fc.array(fc.constantFrom("over_budget", "not_visible"), { maxLength: 30 }),
        (cards, total, reasons) => {
          const md = renderContextMarkdown({
            query: "Which damping does the owl tower use?",
            asOf: 0,
            cards,
            budget: { total, cards: 0, shortTerm: 0, tokenizer: "cl100k_base" },
            skipped: reasons.map((reason, k) => ({ chunk: `note:s${k}`, reason })),
          });
          const tokens = countTokens(md, "cl100k_base");
          expect(tokens).toBeLessThanOrEqual(total);
          // The header states the document's own count.
          expect(md).toContain(`${tokens} of ${total} tokens`);
          const shown = [...md.matchAll(/^## \d+\. Note (\d+)$/gm)].map((m) => Number(m[1]));
          expect(shown).toEqual([...shown].sort((a, b) => a - b));
          for (const c of cards) {
            // The claim's sentence is the claim, never quoted again as evidence.
            expect(md.includes(`> ${c.claim_boundary}`) && md.includes(`**Claim.** ${c.claim_boundary}`)).toBe(false);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("dump validation", () => {
  it("names the failing path and rejects overlapping versions", () => {
    const bad = parseDump('{"format":"paperguru.archive","schema_version":2}');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.field).toBe("schema_version");
    expect(parseDump("not json").ok).toBe(false);
    const v = (version: number, valid_from: number) => ({
      version,
      kind: "note",
      title: "t",
      synopsis: "s",
      content: "c",
      content_hash: "h",
      artifact_hash: "h",
      entities: [],
      boundaries: [],
      edges: [],
      valid_from,
      valid_to: null,
      recorded_at: 0,
      source: "",
    });
    const dump = {
      format: "paperguru.archive",
      schema_version: 1,
      exported_at: 0,
      archive: { id: "a", name: "a" },
      chunks: [
        {
          id: "n",
          kind: "note",
          latest_version: 2,
          first_valid_from: 5,
          deprecated_at: null,
          deprecated_by: null,
          versions: [v(2, 5), v(1, 5)],
        },
      ],
      entities: [],
    };
    const r = parseDump(JSON.stringify(dump));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe("chunks.0.versions.1.valid_from");
  });
});
