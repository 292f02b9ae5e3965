/**
 * Cards quote prose only: never a heading, a paper's metadata lines, a raw BibTeX entry or the JSON
 * of research memory; anchors are whole sentences (abbreviations do not end one) and exact spans of
 * the stored content, whatever its format.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cardSchema, checkAnchors } from "../../src/core/distill/card";
import { ExtractiveDistiller } from "../../src/core/distill/extractive";
import { bibtexRegions, jsonRegions } from "../../src/core/distill/structured";
import { parseBibtex } from "../../src/core/formats/bibtex";
import { ENTRY_MARK } from "../../src/core/formats/paper";
import type { DistillInput } from "../../src/core/ports";
import { splitSentences } from "../../src/core/text/sentences";
import type { EvidenceCard } from "../../src/core/types";
import { cpuNow } from "./cpu-clock";

const d = new ExtractiveDistiller();

function distill(content: string, query: string, budget = 400, kind: DistillInput["kind"] = "note") {
  const card = d.distillSync({
    artifactId: "a:1",
    version: 1,
    kind,
    title: "t",
    content,
    query,
    budgetTokens: budget,
    context: { validFrom: Date.UTC(2024, 0, 1), validTo: null, boundaries: [], deprecatedBy: null },
  });
  expect(card).not.toBeNull();
  const c = card as EvidenceCard;
  expect(cardSchema.safeParse(c).success).toBe(true);
  expect(checkAnchors(c, content)).toBe(true);
  return c;
}

const WORD = /[\p{L}\p{N}]/u;
/** The boundary at `i` falls between two letters or digits. */
const insideWord = (s: string, i: number) =>
  i > 0 && i < s.length && WORD.test(s[i - 1] ?? "") && WORD.test(s[i] ?? "");

describe("cards never quote structure", () => {
  it("headings are neither claim, sketch nor anchor", () => {
    const md = [
      "# PageRank graph retrieval",
      "",
      "## Method",
      "",
      "Personalized PageRank spreads probability mass over the passage graph from the query's entities.",
      "",
      "### Results of PageRank graph retrieval",
      "The damping of 0.85 gave the best recall on every split.",
      "",
      "Setext PageRank heading",
      "=======================",
      "",
      "We keep every version of every passage.",
    ].join("\n");
    for (const budget of [120, 200, 400]) {
      const c = distill(md, "PageRank graph retrieval", budget);
      for (const a of c.anchored_spans) {
        expect(a.snippet.startsWith("#")).toBe(false);
        expect(a.snippet).not.toContain("PageRank graph retrieval\n");
        expect(a.snippet).not.toContain("Setext");
        expect(a.snippet).not.toContain("===");
      }
      expect(c.claim_boundary).not.toContain("#");
      expect(c.logic_sketch).not.toContain("#");
      expect(c.logic_sketch).not.toContain("Setext");
    }
    // Only a heading: a short card anchored on its words, not on the markup.
    const only = distill("## Graph retrieval", "graph");
    expect(only.claim_boundary).toBe("");
    expect(only.anchored_spans.map((a) => a.snippet)).toEqual(["Graph retrieval"]);
  });

  it("a BibTeX-imported paper: claim and anchors from the abstract, never the metadata or the entry", () => {
    const bib = `@inproceedings{lewis2020rag,
  title = {Retrieval-Augmented Generation for Knowledge-Intensive {NLP} Tasks},
  author = {Lewis, Patrick and Perez, Ethan and Piktus, Aleksandra},
  booktitle = {Advances in Neural Information Processing Systems},
  year = {2020},
  doi = {10.5555/3495724.3496517},
  abstract = {Large pre-trained language models store factual knowledge in their parameters. We explore a general-purpose fine-tuning recipe for retrieval-augmented generation. RAG models set the state of the art on three open-domain QA tasks.}
}`;
    const r = parseBibtex(bib);
    if (!r.ok) throw new Error("parse");
    const paper = r.value.artifacts[0];
    const content = paper?.content ?? "";
    const entryAt = content.lastIndexOf(ENTRY_MARK);
    expect(entryAt).toBeGreaterThan(0);
    for (const budget of [150, 250, 600]) {
      const c = distill(content, "retrieval-augmented generation open-domain QA", budget, "paper");
      expect(c.claim_boundary.length).toBeGreaterThan(0);
      expect(content.slice(0, entryAt)).toContain(c.claim_boundary.replace(/…$/, ""));
      for (const a of c.anchored_spans) {
        expect(a.end).toBeLessThanOrEqual(entryAt);
        for (const bad of ["Authors:", "In:", "Date:", "Type:", "DOI:", "Abstract:", "@inproceedings", "BibTeX:", "="])
          expect(a.snippet).not.toContain(bad);
      }
      for (const s of [c.claim_boundary, c.logic_sketch]) {
        expect(s).not.toContain("Authors:");
        expect(s).not.toContain("Abstract:");
        expect(s).not.toContain("{");
      }
    }
  });

  it("a raw BibTeX entry: claim from the abstract field, anchors on the exact field values", () => {
    const raw = `@article{vaswani2017,
  title = {Attention Is All You Need},
  author = "Vaswani, Ashish and Shazeer, Noam",
  journal = nips,
  year = 2017,
  abstract = "The dominant sequence transduction models are based on recurrent networks. We propose the Transformer, based solely on attention mechanisms."
}`;
    const c = distill(raw, "Transformer attention mechanisms");
    expect(c.claim_boundary).toBe("We propose the Transformer, based solely on attention mechanisms.");
    const values = bibtexRegions(raw) ?? [];
    expect(values.map((v) => raw.slice(v.start, v.end))).toEqual([
      "Attention Is All You Need",
      "The dominant sequence transduction models are based on recurrent networks. We propose the Transformer, based solely on attention mechanisms.",
    ]);
    for (const a of c.anchored_spans) {
      expect(values.some((v) => v.start <= a.start && a.end <= v.end)).toBe(true);
      expect(a.snippet).not.toMatch(/[=@{}"]/);
    }
    // Title only: the title is the claim; no fields to quote: a short anchor on the first value.
    const titled = distill("@misc{k, title = {Graph memory for agents}, year = {2021}}", "graph memory");
    expect(titled.claim_boundary).toBe("Graph memory for agents");
    expect(titled.anchored_spans.map((a) => a.snippet)).toEqual(["Graph memory for agents"]);
    const bare = distill("@misc{k, author = {Ada Lovelace}, year = {1843}}", "Lovelace");
    expect(bare.claim_boundary).toBe("");
    expect(bare.anchored_spans.map((a) => a.snippet)).toEqual(["Ada Lovelace"]);
  });

  it("JSON and JSON Lines (a research hub): quotes string values, never keys or syntax", () => {
    const hub = [
      '{"query":"differential entropy features"}',
      '{"artifact_id":"paper:de","version":1,"start":0,"end":68,"snippet":"Differential entropy features work well for EEG emotion recognition."}',
      '{"artifact_id":"paper:gnn","version":1,"start":0,"end":59,"snippet":"Graph neural networks model electrodes as nodes of a graph."}',
    ].join("\n");
    const c = distill(hub, "differential entropy EEG");
    expect(c.claim_boundary).toBe("Differential entropy features work well for EEG emotion recognition.");
    for (const a of c.anchored_spans) expect(a.snippet).not.toMatch(/["{}:]/);
    const doc = JSON.stringify({ title: "x", body: { text: 'Graphs link passages. Links carry "typed" edges.' } });
    const j = distill(doc, "typed edges");
    for (const a of j.anchored_spans) {
      expect(a.snippet).not.toContain("body");
      expect(a.snippet.startsWith('"')).toBe(false);
    }
    expect(jsonRegions("{not json")).toBeNull();
    expect(jsonRegions('{"a":1}')).toEqual([]);
  });

  it("reads data formats in linear time, pathological ones included", () => {
    // The least of three runs: a run preempted by other work on the machine says nothing of the scan.
    const time = (f: () => unknown) => {
      let best = Number.POSITIVE_INFINITY;
      for (let k = 0; k < 3; k++) {
        const t0 = cpuNow();
        f();
        best = Math.min(best, cpuNow() - t0);
      }
      return best;
    };
    const cases = (n: number) => [
      `@ab{k, t = {${"@ab{k, t = {".repeat(n / 12)}`,
      `@ab{k, t = "${'@ab{k, t = "'.repeat(n / 12)}`,
      `@ab{${"@ab{".repeat(n / 4)}`,
      `@ab{k, ${"x = {y z}, ".repeat(n / 11)}}`,
      `[${'"a b", '.repeat(n / 7)}"c d"]`,
      `{"a": "${'\\"'.repeat(n / 2)}"}`,
    ];
    const big = cases(400_000);
    // 8x the input: a linear scan takes ~8x the time, a quadratic one ~64x.
    const small = cases(50_000);
    big.forEach((text, k) => {
      const scan = (t: string) => bibtexRegions(t) ?? jsonRegions(t);
      scan(small[k] as string); // warm up (JIT), then time the small input before the big one
      const base = Math.max(
        2,
        time(() => scan(small[k] as string)),
      );
      const ratio = time(() => scan(text)) / base;
      expect(ratio, text.slice(0, 20)).toBeLessThan(24);
      // Every region is an in-bounds span.
      for (const r of scan(text) ?? []) {
        expect(r.start).toBeLessThan(r.end);
        expect(r.end).toBeLessThanOrEqual(text.length);
      }
    });
  });
});

// Sentences built from words, abbreviations that never end a sentence, and numbers with points.
const ABBREVIATIONS = ["e.g.", "i.e.", "et al.", "Fig. 3", "Eq. 2", "U.S.", "O.F.M.", "Dr.", "Prof.", "vs.", "cf."];
const INITIALS = ["J. R. R. Tolkien", "A. Vaswani", "Ph.D. students", "version 3.5", "v1.2", "p. 12"];
const word = fc.constantFrom(
  "graph",
  "memory",
  "retrieval",
  "PageRank",
  "agents",
  "passages",
  "keeps",
  "every",
  "version",
  "Brother",
  "William",
  "abbey",
);
const piece = fc.oneof({ weight: 4, arbitrary: word }, fc.constantFrom(...ABBREVIATIONS), fc.constantFrom(...INITIALS));
// A sentence ends on a plain word: "... like e.g. Then" is ambiguous to any splitter.
const sentence = fc
  .tuple(word, fc.array(piece, { minLength: 2, maxLength: 25 }), word, fc.constantFrom(".", "!", "?"))
  .map(([first, rest, last, end]) => `${first[0]?.toUpperCase()}${first.slice(1)} ${rest.join(" ")} ${last}${end}`);

describe("anchors on sentence boundaries", () => {
  it("property: a one-sentence note with abbreviations gives one anchor, the sentence whole", () => {
    fc.assert(
      fc.property(sentence, fc.constantFrom("", " ", "\n"), (s, pad) => {
        const text = `${pad}${s}${pad}`;
        expect(splitSentences(text).map((x) => x.text)).toEqual([s]);
        const c = distill(text, "graph memory William", 400);
        expect(c.anchored_spans.map((a) => a.snippet)).toEqual([s]);
      }),
      { numRuns: 200 },
    );
  });

  it("property: anchors never start or end inside a word, at any budget", () => {
    fc.assert(
      fc.property(
        fc.array(sentence, { minLength: 1, maxLength: 12 }),
        fc.constantFrom(" ", "\n", "\n\n"),
        fc.integer({ min: 100, max: 600 }),
        (sentences, sep, budget) => {
          const text = sentences.join(sep);
          const card = d.distillSync({
            artifactId: "a:1",
            version: 1,
            kind: "note",
            title: "t",
            content: text,
            query: "graph retrieval memory",
            budgetTokens: budget,
            context: { validFrom: 0, validTo: null, boundaries: [], deprecatedBy: null },
          });
          if (card === null) return;
          expect(checkAnchors(card, text)).toBe(true);
          for (const a of card.anchored_spans) {
            expect(insideWord(text, a.start), `start of ${JSON.stringify(a.snippet)}`).toBe(false);
            expect(insideWord(text, a.end), `end of ${JSON.stringify(a.snippet)}`).toBe(false);
          }
          // Whole sentences when the budget allows: every anchor of a 600-token card is one.
          if (budget >= 600 && sentences.every((s) => s.length <= 300))
            for (const a of card.anchored_spans) expect(sentences).toContain(a.snippet);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("splits at real sentence ends next to abbreviations", () => {
    expect(
      splitSentences("Mt. Everest is high. St. Paul is a city. The U.S. Senate met. Then it rose.").map((s) => s.text),
    ).toEqual(["Mt. Everest is high.", "St. Paul is a city.", "The U.S. Senate met.", "Then it rose."]);
    expect(splitSentences("It is the state of the art. A fourth sentence.").map((s) => s.text)).toHaveLength(2);
  });
});
