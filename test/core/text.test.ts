import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalPaperId, findIdentifiers } from "../../src/core/ids";
import { stem, terms } from "../../src/core/text/analyze";
import { extractMentions } from "../../src/core/text/mentions";
import { MAX_SPAN_CHARS, splitSentences } from "../../src/core/text/sentences";
import { countTokens, truncateToTokens } from "../../src/core/text/tokenizer";

const pieces = [
  "HippoRAG",
  "retrieval",
  "e.g.",
  "et al.",
  "v1.2",
  "3.5",
  "Fig. 2",
  ".",
  "!",
  "?",
  "\n",
  "\n\n",
  "- item",
  "# Head",
  " ",
  "  ",
  "PageRank",
  "🧠",
  "检索",
  "(DPR)",
  '"quote."',
  "1. first",
];
const textArb = fc.array(fc.constantFrom(...pieces), { maxLength: 120 }).map((xs) => xs.join(" "));

describe("tokenizer", () => {
  it("counts common text and never returns negative", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("the cat sat")).toBe(3);
    expect(countTokens("Personalized PageRank")).toBeGreaterThanOrEqual(2);
  });
  it("truncation returns a prefix within the cap", () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: 0, max: 80 }), (s, n) => {
        const t = truncateToTokens(s, n);
        expect(s.startsWith(t)).toBe(true);
        expect(countTokens(t)).toBeLessThanOrEqual(n);
      }),
    );
  });
});

describe("sentences", () => {
  it("spans are exact, ordered, non-overlapping, non-empty and bounded", () => {
    fc.assert(
      fc.property(fc.oneof(textArb, fc.string({ maxLength: 2000 })), (text) => {
        let last = 0;
        for (const s of splitSentences(text)) {
          expect(text.slice(s.start, s.end)).toBe(s.text);
          expect(s.end).toBeGreaterThan(s.start);
          expect(s.start).toBeGreaterThanOrEqual(last);
          expect(s.text.trim()).toBe(s.text);
          expect(s.end - s.start).toBeLessThanOrEqual(MAX_SPAN_CHARS + 1);
          last = s.end;
        }
      }),
      { numRuns: 300 },
    );
  });
  it("does not split after abbreviations or inside numbers", () => {
    const s = splitSentences(
      "We use e.g. BM25 and DPR et al. in v1.2 with 3.5 points. Then HippoRAG wins! Does it? Yes.",
    );
    expect(s.map((x) => x.text)).toEqual([
      "We use e.g. BM25 and DPR et al. in v1.2 with 3.5 points.",
      "Then HippoRAG wins!",
      "Does it?",
      "Yes.",
    ]);
  });
  it("splits on blank lines and list items", () => {
    const s = splitSentences("# Method\nWe build a graph\n- step one\n- step two\n\nResults follow");
    expect(s.map((x) => x.text)).toEqual(["# Method\nWe build a graph", "- step one", "- step two", "Results follow"]);
  });
});

describe("analysis", () => {
  it("stems inflections to one key", () => {
    expect(new Set(["retrieval", "retrieve", "retrieved", "retrieving"].map(stem)).size).toBe(1);
    expect(stem("graphs")).toBe("graph");
    expect(terms("The graphs of the Retrieval")).toEqual(["graph", stem("retrieval")]);
  });
});

describe("identifiers and mentions", () => {
  it("normalises arXiv, DOI and OpenAlex ids", () => {
    expect(canonicalPaperId("arXiv:2405.14831v2")).toBe("arxiv:2405.14831");
    expect(canonicalPaperId("https://arxiv.org/abs/2405.14831v1")).toBe("arxiv:2405.14831");
    expect(canonicalPaperId("2405.14831")).toBe("arxiv:2405.14831");
    expect(canonicalPaperId("cs/0112017v1")).toBe("arxiv:cs/0112017");
    expect(canonicalPaperId("https://doi.org/10.1145/3397271.3401075")).toBe("doi:10.1145/3397271.3401075");
    expect(canonicalPaperId("DOI:10.18653/V1/2020.EMNLP-MAIN.550")).toBe("doi:10.18653/v1/2020.emnlp-main.550");
    expect(canonicalPaperId("https://openalex.org/W2741809807")).toBe("openalex:W2741809807");
    expect(canonicalPaperId("HippoRAG")).toBeNull();
  });
  it("finds identifiers in running text", () => {
    const ids = findIdentifiers("See arXiv:2405.14831v1, doi:10.1145/3397271.3401075. and W2741809807.").map(
      (x) => x.id,
    );
    expect(ids).toEqual(["doi:10.1145/3397271.3401075", "arxiv:2405.14831", "openalex:W2741809807"]);
  });
  it("produces alias candidates for names, n-grams and joined variants", () => {
    const m = extractMentions("How does HippoRAG 2 compare with ColBERT v2 on From RAG to Memory?");
    expect(m.candidates).toContain("hipporag 2");
    expect(m.candidates).toContain("hipporag");
    expect(m.candidates).toContain("colbertv2");
    expect(m.candidates).toContain("from rag to memory");
    expect(m.candidates).not.toContain("how");
  });
  it("bounds the number of candidates and keeps single words of long queries", () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    const m = extractMentions(long);
    expect(m.candidates.length).toBeLessThanOrEqual(256);
    expect(m.candidates).toContain("word199");
  });
});
