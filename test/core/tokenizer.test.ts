import { describe, expect, it } from "vitest";
import {
  countTokens,
  DEFAULT_TOKENIZER,
  isTokenizerName,
  LONG_PIECE,
  loadTokenizer,
  tokenizerLoaded,
  truncateToTokens,
} from "../../src/core/text/tokenizer";
import { cpuNow } from "./cpu-clock";

/**
 * [text, cl100k_base, o200k_base]. The first four cl100k_base counts are the worked examples of
 * OpenAI's cookbook "How to count tokens with tiktoken" (tiktoken is great! = 6,
 * antidisestablishmentarianism = 6, 2 + 2 = 4 = 7, お誕生日おめでとう = 9); "hello world" is 2 in
 * both. The rest were computed with gpt-tokenizer 3.4.0 itself, to pin the behaviour.
 */
const COUNTS: Array<[string, number, number]> = [
  ["tiktoken is great!", 6, 6],
  ["antidisestablishmentarianism", 6, 6],
  ["2 + 2 = 4", 7, 7],
  ["お誕生日おめでとう", 9, 8],
  ["hello world", 2, 2],
  ["", 0, 0],
  [" ", 1, 1],
  ["\n\n", 1, 1],
  ["HippoRAG", 4, 4],
  ["The quick brown fox jumps over the lazy dog.", 10, 10],
  ["Personalized PageRank spreads probability over the graph.", 10, 10],
  ["检索增强生成是一种方法。", 11, 8],
  ["🧠", 3, 3],
  ["don't", 2, 1],
  ["1234567", 3, 3],
  ['{"start":0,"end":59}', 9, 9],
  // Special-token strings are ordinary text in a card.
  ["<|endoftext|>", 7, 7],
];

describe("exact tokenizers", () => {
  it("loads o200k_base on demand; cl100k_base is always there", async () => {
    expect(DEFAULT_TOKENIZER).toBe("cl100k_base");
    expect(tokenizerLoaded("cl100k_base")).toBe(true);
    expect(tokenizerLoaded("o200k_base")).toBe(false);
    expect(() => countTokens("hello", "o200k_base")).toThrow(/loadTokenizer/);
    await Promise.all([loadTokenizer("o200k_base"), loadTokenizer("o200k_base")]);
    expect(tokenizerLoaded("o200k_base")).toBe(true);
    expect(countTokens("hello world", "o200k_base")).toBe(2);
    expect(isTokenizerName("o200k_base") && isTokenizerName("cl100k_base") && !isTokenizerName("p50k_base")).toBe(true);
  });

  it("counts known strings exactly in both encodings", async () => {
    await loadTokenizer("o200k_base");
    for (const [text, cl, o] of COUNTS) {
      expect(countTokens(text), `cl100k_base ${JSON.stringify(text)}`).toBe(cl);
      expect(countTokens(text, "cl100k_base")).toBe(cl);
      expect(countTokens(text, "o200k_base"), `o200k_base ${JSON.stringify(text)}`).toBe(o);
    }
  });

  it("counts within a few per cent of each other on English prose", async () => {
    await loadTokenizer("o200k_base");
    const prose =
      "HippoRAG is a retrieval framework inspired by the hippocampal indexing theory of human long-term memory. " +
      "It builds a schemaless knowledge graph from a corpus with an instruction-tuned language model, and at query " +
      "time it runs Personalized PageRank from the entities named in the question. On multi-hop question answering " +
      "benchmarks it outperforms dense retrievers by up to 20 per cent while being ten to thirty times cheaper.";
    const cl = countTokens(prose);
    const o = countTokens(prose, "o200k_base");
    expect(Math.abs(o - cl) / cl).toBeLessThan(0.05);
  });

  it("stays linear on very long pieces (no whitespace or punctuation for 50,000 characters)", async () => {
    await loadTokenizer("o200k_base");
    const cjk = "漢字仮名交じり文".repeat(6250);
    const letters = "a".repeat(50_000);
    const t0 = cpuNow();
    for (const enc of ["cl100k_base", "o200k_base"] as const) {
      for (const s of [cjk, letters, " ".repeat(50_000), "!?".repeat(25_000)]) {
        const n = countTokens(s, enc);
        expect(n).toBeGreaterThan(0);
        expect(n).toBeLessThanOrEqual(new TextEncoder().encode(s).length);
        // Truncation can cut inside such a piece (at a code point) and stays within the cap.
        const t = truncateToTokens(s, 100, enc);
        expect(t.length > 0).toBe(s.trim().length > 0); // whitespace is trimmed away
        expect(s.startsWith(t)).toBe(true);
        expect(countTokens(t, enc)).toBeLessThanOrEqual(100);
      }
    }
    // Quadratic merging would take tens of seconds here; sliced pieces take ~30 ms of CPU.
    expect(cpuNow() - t0).toBeLessThan(5000);
    // Pieces up to LONG_PIECE characters are encoded whole (exact).
    expect(countTokens("a".repeat(LONG_PIECE))).toBe(32);
  });
});
