import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cardSchema, checkAnchors } from "../../src/core/distill/card";
import { ExtractiveDistiller } from "../../src/core/distill/extractive";
import { HashedEmbedder } from "../../src/core/embed/hashed";
import type { DistillInput } from "../../src/core/ports";
import { countTokens } from "../../src/core/text/tokenizer";
import { embedderContract } from "../contracts/embedder.contract";

embedderContract("hashed TF (local)", () => new HashedEmbedder());

const d = new ExtractiveDistiller();
const input = (content: string, budget: number, query = "pagerank graph"): DistillInput => ({
  query,
  artifactId: "arxiv:2405.14831",
  version: 2,
  kind: "paper",
  title: "HippoRAG",
  content,
  context: {
    validFrom: Date.parse("2024-05-23"),
    validTo: null,
    boundaries: ["task:multi-hop-qa"],
    deprecatedBy: null,
  },
  budgetTokens: budget,
});

const word = fc.constantFrom(
  "graph",
  "PageRank",
  "retrieval",
  "the",
  "passage",
  "node",
  "🧠",
  "检索",
  "0.5",
  "HippoRAG",
  "e.g.",
  "split",
  "v2",
);
const sentence = fc.array(word, { minLength: 1, maxLength: 30 }).map((w) => `${w.join(" ")}.`);
const content = fc
  .array(sentence, { minLength: 1, maxLength: 40 })
  .chain((ss) => fc.constantFrom(ss.join(" "), ss.join("\n"), ss.join("\n\n")));

describe("extractive distiller", () => {
  it("property: cards follow the schema, anchors are exact, tokens stay within the budget", async () => {
    await fc.assert(
      fc.asyncProperty(content, fc.integer({ min: 60, max: 800 }), async (text, budget) => {
        const card = await d.distill(input(text, budget));
        if (card === null) return;
        expect(cardSchema.safeParse(card).success).toBe(true);
        expect(checkAnchors(card, text)).toBe(true);
        expect(card.tokens).toBeLessThanOrEqual(budget);
        expect(card.anchored_spans.length).toBeGreaterThanOrEqual(2);
        expect(card.anchored_spans.length).toBeLessThanOrEqual(5);
        expect(countTokens(card.claim_boundary)).toBeLessThanOrEqual(80);
        expect(countTokens(card.logic_sketch)).toBeLessThanOrEqual(150);
      }),
      { numRuns: 200 },
    );
  });

  it("puts the sentence that matches the query in the claim, and is deterministic", async () => {
    const text =
      "HippoRAG indexes a corpus with open information extraction. Synonymy edges join similar noun phrases. " +
      "At query time Personalized PageRank spreads probability from the query entities over the graph. " +
      "Passages are ranked by the mass of their nodes. The damping factor is 0.5 in all experiments.";
    const a = await d.distill(input(text, 600, "How does Personalized PageRank spread probability?"));
    const b = await d.distill(input(text, 600, "How does Personalized PageRank spread probability?"));
    expect(a?.claim_boundary).toContain("Personalized PageRank spreads probability");
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a?.assumptions).toContain("version 2");
    expect(a?.assumptions.some((x) => x.includes("damping factor"))).toBe(true);
  });

  it("returns null when not even a two-anchor card fits", async () => {
    expect(await d.distill(input("Some text here. More text there.", 10))).toBeNull();
  });

  it("anchors a one-word content twice rather than breaking the 2-anchor contract", async () => {
    const card = await d.distill(input("PageRank", 300));
    expect(card?.anchored_spans.length).toBe(2);
    expect(checkAnchors(card as NonNullable<typeof card>, "PageRank")).toBe(true);
  });

  it("distils 100 KB of prose quickly (bounded scan)", async () => {
    const big = Array.from(
      { length: 1200 },
      (_, i) => `Sentence ${i} talks about graph retrieval and PageRank mass number ${i}.`,
    ).join(" ");
    expect(big.length).toBeGreaterThan(80_000);
    const t0 = performance.now();
    const card = await d.distill(input(big, 500));
    const ms = performance.now() - t0;
    expect(card && checkAnchors(card, big)).toBe(true);
    expect(ms).toBeLessThan(2000); // generous: this guards against quadratic behaviour, not speed
  });
});
