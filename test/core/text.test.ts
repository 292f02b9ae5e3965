import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalPaperId, findIdentifiers } from "../../src/core/ids";
import { STOPWORDS, stem, terms, termsWithBigrams } from "../../src/core/text/analyze";
import { extractMentions, MAX_CANDIDATES } from "../../src/core/text/mentions";
import { MAX_SPAN_CHARS, splitSentences, splitWords } from "../../src/core/text/sentences";
import {
  APPROX_TOKENIZER_NAME,
  countApproxTokens,
  countTokens,
  loadTokenizer,
  TOKENIZER_NAME,
  TOKENIZERS,
  truncateToApproxTokens,
  truncateToTokens,
} from "../../src/core/text/tokenizer";
import { cpuNow } from "./cpu-clock";

const pieces = [
  "HippoRAG",
  "retrieval",
  "graph",
  "We",
  "The",
  "e.g.",
  "i.e.",
  "et al.",
  "Fig.",
  "Eq.",
  "vs.",
  "Dr.",
  "No.",
  "v1.2",
  "3.5",
  "Fig. 2",
  ".",
  "!",
  "?",
  ";",
  ",",
  "\n",
  "\n\n",
  "- item",
  "# Head",
  "* star",
  "1. first",
  " ",
  "  ",
  "\t",
  "PageRank",
  "🧠",
  "检索。",
  "(DPR)",
  '"quote."',
  "don't",
  "1234567",
];
const textArb = fc.array(fc.constantFrom(...pieces), { maxLength: 150 }).map((xs) => xs.join(" "));
/** Long runs with few separators, to exercise the 400-character split. */
const longArb = fc
  .array(fc.constantFrom("retrieval", "graph", "a", "; ", ", ", "x".repeat(120), "🧠", " "), { maxLength: 300 })
  .map((xs) => xs.join(""));
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const anyText = fc.oneof(
  textArb,
  longArb,
  fc.string({ maxLength: 1500 }),
  fc.string({ unit: "grapheme", maxLength: 600 }),
);

/** Token counts of OpenAI's cl100k_base (measured once with js-tiktoken 1.0.21, not a dependency). */
const CL100K: Array<[string, number]> = [
  ["The paper replaces recurrence and convolution in sequence transduction with attention alone.", 14],
  ["At query time Personalized PageRank spreads probability from the query entities over the graph.", 17],
  [
    "Karpukhin et al. (2020) train a dual encoder with in-batch negatives; DPR beats BM25 by 9-19% top-20 accuracy on NQ.",
    39,
  ],
  ["HippoRAG, ColBERTv2, RAPTOR, GraphRAG and MemGPT were evaluated on MuSiQue, 2WikiMultiHopQA and HotpotQA.", 39],
  ["We don't re-rank; it's cheaper. They'll see what we've done, I'm sure.", 23],
  [
    '{"artifact_id":"arxiv:2405.14831","version":2,"kind":"paper","title":"HippoRAG","claim_boundary":"Passages are ranked by PageRank mass.","logic_sketch":"","assumptions":["valid from 2024-05-23","current version as of query time","version 2","boundary: task:multi-hop-qa"],"anchored_spans":[{"artifact_id":"arxiv:2405.14831","version":2,"start":0,"end":36,"snippet":"Passages are ranked by PageRank mass."},{"artifact_id":"arxiv:2405.14831","version":2,"start":37,"end":60,"snippet":"The damping factor is 0.5."}],"distiller":"extractive-v1"}',
    164,
  ],
  [
    "export function countTokens(text: string): number {\n  return scan(text, Number.POSITIVE_INFINITY).count;\n}\n",
    23,
  ],
  ["for (let i = 0; i < n; i++) {\n    if (a[i] !== b[i]) return false;\n  }", 30],
  ["    indented\n\t\ttabs\n\n\n", 8],
  ["检索增强生成是一种方法。我们提出了一个新的记忆系统，它可以在长时间内保存信息。", 33],
  ["🧠 memory 🚀🔥 → ≥ ≤ × ± ∑ ∈ ° ✓ ★ ©", 22],
  ["Ünïcödé naïve café résumé; ααβγ δεζ; Привет мир, как дела? مرحبا بالعالم", 43],
  ["https://arxiv.org/abs/2405.14831v2 doi:10.1145/3397271.3401075 2024-05-23T00:00:00.000Z 3.14159", 50],
  // Punctuation runs that cl100k does not merge in pairs (why a run costs its length).
  ["_+)>", 3],
  ["&%%*", 3],
  ["@}\\%$)", 5],
];

describe("tokenizer", () => {
  beforeAll(() => loadTokenizer("o200k_base"));

  it("counts exactly with cl100k_base by default", () => {
    expect(TOKENIZER_NAME).toBe("cl100k_base");
    expect(countTokens("")).toBe(0);
    expect(countTokens("the cat sat")).toBe(3);
    expect(countTokens("1234567")).toBe(3);
    expect(countTokens("don't")).toBe(2);
    expect(countTokens("HippoRAG")).toBe(4); // H|ippo|R|AG
  });

  it("equals OpenAI's cl100k_base on English, JSON cards, code and mixed scripts (js-tiktoken counts)", () => {
    for (const [text, cl100k] of CL100K) expect(countTokens(text), text).toBe(cl100k);
  });

  it("property: exact counts are non-negative integers, 0 only for the empty string, at most the UTF-8 bytes", () => {
    const utf8 = new TextEncoder();
    fc.assert(
      fc.property(anyText, fc.constantFrom(...TOKENIZERS), (a, enc) => {
        const n = countTokens(a, enc);
        expect(Number.isInteger(n) && n >= 0).toBe(true);
        expect(n === 0).toBe(a.length === 0);
        // Byte-level BPE never emits more tokens than bytes.
        expect(n).toBeLessThanOrEqual(utf8.encode(a).length);
      }),
      { numRuns: 300 },
    );
  });

  it("property: truncation returns a trimmed prefix within the cap, growing with the cap", () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 0, max: 120 }), fc.constantFrom(...TOKENIZERS), (s, n, enc) => {
        const t = truncateToTokens(s, n, enc);
        expect(s.startsWith(t)).toBe(true);
        expect(countTokens(t, enc)).toBeLessThanOrEqual(n);
        expect(t).toBe(t.trimEnd());
        // More room never gives a shorter prefix, and enough room gives the whole (trimmed) text.
        expect(truncateToTokens(s, n + 5, enc).startsWith(t)).toBe(true);
        expect(truncateToTokens(s, countTokens(s, enc), enc)).toBe(s.trimEnd());
      }),
      { numRuns: 300 },
    );
  });

  it("truncates at piece boundaries", () => {
    expect(truncateToTokens("the cat sat on the mat", 3)).toBe("the cat sat");
    expect(truncateToTokens("the cat sat", 0)).toBe("");
    // " transduction" is 2 tokens (" trans|duction"): it does not fit in 2 and is never cut in half.
    expect(countTokens("a transduction")).toBe(3);
    expect(truncateToTokens("a transduction", 2)).toBe("a");
  });

  it("counts 100 KB in a few milliseconds", () => {
    const big = "Personalized PageRank spreads probability over the graph, e.g. 0.85; HippoRAG 2.\n".repeat(1250);
    expect(big.length).toBeGreaterThan(100_000);
    countTokens("warm-up");
    const t0 = cpuNow();
    const n = countTokens(big);
    const ms = cpuNow() - t0;
    expect(n).toBe(31_250);
    expect(ms).toBeLessThan(300); // generous for CI; 4-9 ms of CPU on a 2-core dev machine
  });
});

describe("approximate tokenizer (synopses)", () => {
  it("has a stable name and counts simple text", () => {
    expect(APPROX_TOKENIZER_NAME).toBe("pg-approx-cl100k-v1");
    expect(countApproxTokens("")).toBe(0);
    expect(countApproxTokens("the cat sat")).toBe(3);
    // A long word costs ceil(L / 4): "transduction" = 12 letters = 3.
    expect(countApproxTokens("transduction")).toBe(3);
    // Digits in groups of three; a space before a number is not free.
    expect(countApproxTokens("1234567")).toBe(3);
    expect(countApproxTokens("a 1")).toBe(3);
    // Punctuation runs cost their length; contractions are one token.
    expect(countApproxTokens('":"')).toBe(3);
    expect(countApproxTokens("don't")).toBe(2);
    // Newlines cost, a single space before a word does not.
    expect(countApproxTokens("a\nb")).toBe(3);
    expect(countApproxTokens("a b")).toBe(2);
  });

  it("never counts fewer tokens than cl100k_base on English, JSON cards, code and mixed scripts", () => {
    for (const [text, cl100k] of CL100K) expect(countApproxTokens(text), text).toBeGreaterThanOrEqual(cl100k);
  });

  it("splits CamelCase and ALLCAPS, which cl100k tokenises finely", () => {
    // cl100k: H|ippo|R|AG.
    expect(countApproxTokens("HippoRAG")).toBeGreaterThanOrEqual(4);
    expect(countApproxTokens("NQ")).toBeGreaterThanOrEqual(2);
  });

  it("property: count is non-negative, integral, and does not drop when text is appended", () => {
    fc.assert(
      fc.property(anyText, anyText, (a, b) => {
        const n = countApproxTokens(a);
        expect(Number.isInteger(n) && n >= 0).toBe(true);
        expect(countApproxTokens(a + b)).toBeGreaterThanOrEqual(n);
        // Joining two texts merges at most one junction (a word, a space before a number).
        expect(countApproxTokens(a + b)).toBeLessThanOrEqual(n + countApproxTokens(b) + 2);
      }),
      { numRuns: 300 },
    );
  });

  it("property: truncation returns the longest trimmed prefix within the cap", () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 0, max: 120 }), (s, n) => {
        const t = truncateToApproxTokens(s, n);
        expect(s.startsWith(t)).toBe(true);
        expect(countApproxTokens(t)).toBeLessThanOrEqual(n);
        expect(t).toBe(t.trimEnd());
        expect(truncateToApproxTokens(s, n + 5).startsWith(t)).toBe(true);
        expect(truncateToApproxTokens(s, countApproxTokens(s))).toBe(s.trimEnd());
      }),
      { numRuns: 300 },
    );
  });

  it("truncates at piece boundaries (the synopsis cut, unchanged)", () => {
    expect(truncateToApproxTokens("the cat sat on the mat", 3)).toBe("the cat sat");
    expect(truncateToApproxTokens("the cat sat", 0)).toBe("");
    // "transduction" costs 3: it does not fit in 2 and is never cut in half.
    expect(truncateToApproxTokens("a transduction", 3)).toBe("a");
  });
});

describe("sentences", () => {
  it("property: spans are exact, ordered, non-overlapping, non-empty, trimmed, bounded and cover all text", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        let last = 0;
        const covered = new Uint8Array(text.length);
        for (const s of splitSentences(text)) {
          expect(text.slice(s.start, s.end)).toBe(s.text);
          expect(s.end).toBeGreaterThan(s.start);
          expect(s.start).toBeGreaterThanOrEqual(last);
          expect(s.text.trim()).toBe(s.text);
          expect(s.end - s.start).toBeLessThanOrEqual(MAX_SPAN_CHARS);
          covered.fill(1, s.start, s.end);
          last = s.end;
        }
        // Only whitespace falls between spans.
        for (let i = 0; i < text.length; i++) if (!covered[i]) expect(/\s/.test(text[i] as string)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it("does not split after abbreviations or inside numbers and versions", () => {
    const s = splitSentences(
      "We use e.g. BM25 and DPR et al. in v1.2 with 3.5 points. Then HippoRAG wins! Does it? Yes. " +
        "See Fig. 3 and Eq. 2, i.e. the loss vs. BM25 by Dr. Smith and Mr. Jones in No. 5 of J. Doe's list. Done.",
    );
    expect(s.map((x) => x.text)).toEqual([
      "We use e.g. BM25 and DPR et al. in v1.2 with 3.5 points.",
      "Then HippoRAG wins!",
      "Does it?",
      "Yes.",
      "See Fig. 3 and Eq. 2, i.e. the loss vs. BM25 by Dr. Smith and Mr. Jones in No. 5 of J. Doe's list.",
      "Done.",
    ]);
  });

  it("splits before capitals, digits, quotes and brackets, keeps closing quotes, not before lowercase", () => {
    expect(
      splitSentences('He said "stop." Then left. 3 days passed. (Really.) "Yes." ok. no').map((x) => x.text),
    ).toEqual(['He said "stop."', "Then left.", "3 days passed.", "(Really.)", '"Yes." ok. no']);
  });

  it("splits on blank lines, list items and headings, and after CJK full stops", () => {
    const s = splitSentences(
      "# Method\nWe build a graph\nthat spans lines\n- step one\n* step two\n1. step three\n\nResults follow\n## Next",
    );
    expect(s.map((x) => x.text)).toEqual([
      "# Method",
      "We build a graph\nthat spans lines",
      "- step one",
      "* step two",
      "1. step three",
      "Results follow",
      "## Next",
    ]);
    expect(splitSentences("检索增强。生成模型！好吗？").map((x) => x.text)).toEqual([
      "检索增强。",
      "生成模型！",
      "好吗？",
    ]);
  });

  it("splits long sentences at clause boundaries first, never above 400 characters", () => {
    const clause = "the router expands typed edges from the capital chunk";
    const long = Array.from({ length: 20 }, () => clause).join("; ");
    const spans = splitSentences(long);
    expect(spans.length).toBeGreaterThan(1);
    for (const s of spans) {
      expect(s.text.length).toBeLessThanOrEqual(400);
      expect(s.text.endsWith(";") || s === spans[spans.length - 1]).toBe(true);
    }
    const noSpaces = "x".repeat(1000);
    expect(splitSentences(noSpaces).map((s) => s.text.length)).toEqual([400, 400, 200]);
    // A hard cut never separates a surrogate pair.
    const emoji = `a${"🧠".repeat(300)}`;
    const cut = splitSentences(emoji);
    expect(cut.length).toBeGreaterThan(1);
    for (const s of cut) expect(LONE_SURROGATE.test(s.text)).toBe(false);
  });

  it("property: word spans are exact and inside the range", () => {
    fc.assert(
      fc.property(anyText, fc.nat(), fc.nat(), (text, x, y) => {
        const a = text.length ? x % (text.length + 1) : 0;
        const b = text.length ? y % (text.length + 1) : 0;
        const [start, end] = a <= b ? [a, b] : [b, a];
        let last = start;
        for (const w of splitWords(text, start, end)) {
          expect(text.slice(w.start, w.end)).toBe(w.text);
          expect(w.start).toBeGreaterThanOrEqual(last);
          expect(w.end).toBeLessThanOrEqual(end);
          expect(/\s/.test(w.text)).toBe(false);
          last = w.end;
        }
      }),
    );
    expect(splitWords("  ab  cd ", 0, 9).map((w) => [w.start, w.end])).toEqual([
      [2, 4],
      [6, 8],
    ]);
  });
});

describe("analysis", () => {
  it("stems inflections to one key", () => {
    const same = (...ws: string[]) => expect(new Set(ws.map(stem)).size, ws.join(",")).toBe(1);
    same("retrieval", "retrieve", "retrieved", "retrieving", "retrieves", "retriever");
    same("graph", "graphs");
    same("compute", "computation", "computed", "computing");
    same("embed", "embedding", "embeddings", "embedded");
    same("query", "queries", "queried", "querying");
    same("improve", "improvement", "improved");
    same("validate", "validation", "valid");
    same("effective", "effectiveness");
    same("quick", "quickly");
    same("based", "base");
    expect(stem("graphs")).toBe("graph");
    expect(stem("family")).not.toBe("fami");
    expect(stem("paper")).toBe("paper");
    // Non-ASCII and digit-bearing words are left alone.
    expect(stem("bm25s")).toBe("bm25s");
    expect(stem("检索")).toBe("检索");
  });

  it("terms: NFKC, lowercase, stopwords and single letters dropped, digits kept, stemmed", () => {
    expect(STOPWORDS.size).toBeGreaterThan(150);
    expect(terms("The graphs of the Retrieval")).toEqual(["graph", stem("retrieval")]);
    expect(terms("top 5 of a b C")).toEqual(["top", "5"]);
    // NFKC folds the "ﬁ" ligature and full-width letters.
    expect(terms("ﬁle ＲＡＧ")).toEqual(["file", "rag"]);
    expect(termsWithBigrams("Dense passage retrieval")).toEqual({
      unigrams: ["dens", "passag", "retriev"],
      bigrams: ["dens passag", "passag retriev"],
    });
  });
});

describe("identifiers and mentions", () => {
  it("normalises arXiv, DOI and OpenAlex ids", () => {
    expect(canonicalPaperId("arXiv:2405.14831v2")).toBe("arxiv:2405.14831");
    expect(canonicalPaperId("https://doi.org/10.1145/3397271.3401075")).toBe("doi:10.1145/3397271.3401075");
    expect(canonicalPaperId("https://openalex.org/W2741809807")).toBe("openalex:W2741809807");
  });

  it("extracts identifiers: arXiv with a version suffix and DOIs", () => {
    const m = extractMentions("Compare arXiv:2405.14831v2 with https://doi.org/10.1145/3397271.3401075 please");
    expect(m.identifiers.map((x) => x.id)).toEqual(["doi:10.1145/3397271.3401075", "arxiv:2405.14831"]);
    expect(findIdentifiers("no ids here")).toEqual([]);
    // Identifier fragments are not alias candidates; the words around them still are.
    expect(m.candidates).toEqual(["compare", "please"]);
  });

  it("produces alias candidates for names, n-grams and spelling variants", () => {
    const m = extractMentions("How does HippoRAG 2 compare with ColBERT v2 and RAPTOR on From RAG to Memory?");
    for (const c of ["hipporag 2", "hipporag", "colbert v2", "colbertv2", "raptor", "from rag to memory"])
      expect(m.candidates).toContain(c);
    // Stopword-only n-grams name nothing.
    for (const c of ["how", "how does", "does", "and", "to"]) expect(m.candidates).not.toContain(c);
    // Joined spellings split back: "ColBERTv2" -> "colbert v2", "GPT4" -> "gpt 4".
    expect(extractMentions("ColBERTv2 vs GPT4").candidates).toEqual(expect.arrayContaining(["colbert v2", "gpt 4"]));
    // Capitalised phrases may be joined by title-case function words, beyond the 6-gram window.
    expect(extractMentions("we need the Bag of Words baseline").candidates).toContain("bag of words");
    expect(
      extractMentions(
        "What did Lewis et al. propose in Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks?",
      ).candidates,
    ).toContain("retrieval augmented generation for knowledge intensive nlp tasks");
    // Joined spellings are not built from function words.
    expect(m.candidates).not.toContain("howdoes");
    expect(m.candidates).not.toContain("doeshipporag");
  });

  it("orders candidates longest first, without duplicates", () => {
    const c = extractMentions(
      "Personalized PageRank over the HippoRAG knowledge graph, personalized pagerank",
    ).candidates;
    expect(new Set(c).size).toBe(c.length);
    for (let i = 1; i < c.length; i++)
      expect((c[i - 1] as string).length).toBeGreaterThanOrEqual((c[i] as string).length);
    expect(c).toContain("personalized pagerank");
  });

  it("bounds the number of candidates and keeps single words of long queries", () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    const m = extractMentions(long);
    expect(m.candidates.length).toBeLessThanOrEqual(MAX_CANDIDATES);
    expect(MAX_CANDIDATES).toBe(256);
    expect(m.candidates).toContain("word199");
    expect(extractMentions("").candidates).toEqual([]);
  });

  it("property: candidates are normalised, bounded and deterministic", () => {
    fc.assert(
      fc.property(fc.oneof(textArb, fc.string({ maxLength: 300 })), (q) => {
        const a = extractMentions(q);
        expect(a.candidates.length).toBeLessThanOrEqual(MAX_CANDIDATES);
        for (const c of a.candidates) {
          expect(c).toBe(c.normalize("NFKC").toLowerCase().trim());
          expect(c.length).toBeGreaterThan(0);
          expect(STOPWORDS.has(c)).toBe(false);
        }
        expect(extractMentions(q)).toEqual(a);
      }),
      { numRuns: 200 },
    );
  });
});
