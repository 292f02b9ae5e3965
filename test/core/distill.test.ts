import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cardSchema, cardTokens, checkAnchors, promptCard } from "../../src/core/distill/card";
import { ExtractiveDistiller } from "../../src/core/distill/extractive";
import type { DistillInput } from "../../src/core/ports";
import { countTokens } from "../../src/core/text/tokenizer";
import type { EvidenceCard } from "../../src/core/types";
import { cpuNow } from "./cpu-clock";

const d = new ExtractiveDistiller();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const input = (
  content: string,
  budget: number,
  query = "pagerank graph",
  context: Partial<DistillInput["context"]> = {},
): DistillInput => ({
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
    ...context,
  },
  budgetTokens: budget,
});

/** Everything the contract promises about a card distilled from `content` within `budget`. */
function expectValidCard(card: EvidenceCard, content: string, budget: number) {
  const parsed = cardSchema.safeParse(card);
  expect(parsed.success, parsed.success ? "" : JSON.stringify(parsed.error.issues)).toBe(true);
  expect(checkAnchors(card, content)).toBe(true);
  // Two anchors, one when the content has a single sentence (distinct spans either way).
  expect(card.anchored_spans.length).toBeGreaterThanOrEqual(1);
  expect(card.anchored_spans.length).toBeLessThanOrEqual(5);
  expect(new Set(card.anchored_spans.map((a) => `${a.start}:${a.end}`)).size).toBe(card.anchored_spans.length);
  const { tokens, ...rest } = card;
  expect(tokens).toBe(cardTokens(rest));
  expect(tokens).toBeLessThanOrEqual(budget);
  expect(countTokens(card.claim_boundary)).toBeLessThanOrEqual(80);
  expect(countTokens(card.logic_sketch)).toBeLessThanOrEqual(150);
  for (const a of card.anchored_spans) {
    expect(a.snippet.length).toBeLessThanOrEqual(300);
    // Cuts never split a surrogate pair (the generated contents have none of their own).
    expect(LONE_SURROGATE.test(a.snippet)).toBe(false);
  }
  expect(card.distiller).toBe("extractive-v1");
}

const word = fc.oneof(
  fc.constantFrom(
    "graph",
    "PageRank",
    "retrieval",
    "the",
    "passage",
    "node",
    "We",
    "propose",
    "must",
    "🧠",
    "检索",
    "0.5",
    "HippoRAG",
    "e.g.",
    "split",
    "v2",
    "batch size",
    "≥",
    "x".repeat(350),
    `a${"🧠".repeat(170)}`,
  ),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }).filter((s) => s.trim().length > 0),
);
const sentence = fc
  .tuple(fc.array(word, { minLength: 1, maxLength: 40 }), fc.constantFrom(".", "!", "?", "", ";"))
  .map(([w, end]) => `${w.join(" ")}${end}`);
const content = fc
  .tuple(fc.array(sentence, { minLength: 1, maxLength: 40 }), fc.constantFrom(" ", "\n", "\n\n", "\n- "))
  .map(([ss, sep]) => ss.join(sep))
  .filter((s) => s.trim().length > 0);

const PAPER =
  "HippoRAG indexes a corpus with open information extraction. Synonymy edges join similar noun phrases. " +
  "At query time Personalized PageRank spreads probability from the query entities over the graph. " +
  "Passages are ranked by the mass of their nodes. The damping factor is 0.5 in all experiments.";

describe("extractive distiller", () => {
  it("property: null or a card that follows the schema, with exact anchors, within the budget", async () => {
    await fc.assert(
      fc.asyncProperty(
        content,
        fc.integer({ min: 60, max: 800 }),
        fc.string({ maxLength: 40 }),
        async (text, budget, q) => {
          const card = await d.distill(input(text, budget, q));
          if (card !== null) expectValidCard(card, text, budget);
        },
      ),
      { numRuns: 250 },
    );
  });

  it("property: a generous budget always yields a card", async () => {
    await fc.assert(
      fc.asyncProperty(content, async (text) => {
        const card = await d.distill(input(text, 4000));
        expect(card).not.toBeNull();
        expectValidCard(card as EvidenceCard, text, 4000);
      }),
      { numRuns: 100 },
    );
  });

  it("puts the sentence that matches the query in the claim, and is deterministic", async () => {
    const q = "How does Personalized PageRank spread probability?";
    const a = await d.distill(input(PAPER, 600, q));
    const b = await d.distill(input(PAPER, 600, q));
    expect(a?.claim_boundary).toBe(
      "At query time Personalized PageRank spreads probability from the query entities over the graph.",
    );
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expectValidCard(a as EvidenceCard, PAPER, 600);
    // The claim's sentence is anchored verbatim.
    expect(a?.anchored_spans.some((s) => s.snippet === a.claim_boundary)).toBe(true);
    // A different query picks a different claim.
    const c = await d.distill(input(PAPER, 600, "synonymy edges between noun phrases"));
    expect(c?.claim_boundary).toBe("Synonymy edges join similar noun phrases.");
  });

  it("carries validity, deprecation, boundaries and parameter sentences not quoted elsewhere as assumptions", async () => {
    const open = await d.distill(input(PAPER, 600, "PageRank"));
    // The version is the card's own field and is not repeated; the damping sentence is already in
    // the sketch, so it is not repeated either.
    expect(open?.assumptions).toEqual([
      "valid from 2024-05-23",
      "current version as of query time",
      "boundary: task:multi-hop-qa",
    ]);
    expect(open?.logic_sketch).toContain("The damping factor is 0.5 in all experiments.");
    const text = `${PAPER} We train with batch size 32 on the 80/10/10 split. Results use seed 7. The learning rate is 0.001 throughout.`;
    const closed = await d.distill(
      input(text, 800, "PageRank", {
        validTo: Date.parse("2025-01-01T12:30:00Z"),
        deprecatedBy: "arxiv:2502.14802",
        boundaries: ["task:multi-hop-qa", "dataset:musique", "task:multi-hop-qa"],
      }),
    );
    // Hyper-parameter cues ("seed", "learning rate") mark the conditions the claim holds under; at most
    // two, best ranked first, none that the sketch (at most 4 sentences) already quotes; boundaries once.
    expect(closed?.assumptions).toEqual([
      "valid from 2024-05-23",
      "valid until 2025-01-01T12:30:00Z",
      "deprecated by arxiv:2502.14802",
      "boundary: task:multi-hop-qa",
      "boundary: dataset:musique",
      "Results use seed 7.",
      "The learning rate is 0.001 throughout.",
    ]);
    expect(closed?.logic_sketch).toContain("We train with batch size 32 on the 80/10/10 split.");
  });

  it("shrinks in order: extra anchors, sketch sentences, optional assumptions, claim (to a clause); then null", async () => {
    const text =
      "At query time, Personalized PageRank spreads probability from the query entities over the knowledge graph, and the mass that settles on each passage node decides its rank. " +
      "HippoRAG indexes a corpus with open information extraction, turning every passage into a set of noun phrases and relation triples that become nodes and edges of one graph. " +
      "Synonymy edges join noun phrases whose embeddings are close. " +
      "Passages are ranked by the mass of their nodes after twenty iterations of the walk.\n\n" +
      "| damping | 0.5 |\n|---|---|\n| iterations | 20 |";
    const q = "How does Personalized PageRank spread probability over the graph?";
    const full = (await d.distill(input(text, 5000, q))) as EvidenceCard;
    // The claim, three sketch sentences, and one extra anchor on the table (anchors may point anywhere).
    expect(full.anchored_spans.length).toBe(5);
    const extras = (c: EvidenceCard) => promptCard(c).anchored_spans.filter((a) => a.snippet !== undefined).length;
    expect(extras(full)).toBe(1);
    const seen = { extras: false, sketch: false, clause: false, assumptions: false, claim: false };
    let wasNull = false;
    for (let budget = full.tokens; budget >= 60; budget -= 2) {
      const card = await d.distill(input(text, budget, q));
      if (card === null) {
        wasNull = true;
        continue;
      }
      // Once null, always null for smaller budgets.
      expect(wasNull).toBe(false);
      expectValidCard(card, text, budget);
      if (extras(card) < extras(full)) seen.extras = true;
      if (card.logic_sketch !== full.logic_sketch) {
        // The extra anchor went first (one comes back only when the sketch is empty).
        expect(extras(card)).toBe(card.logic_sketch === "" ? 1 : 0);
        seen.sketch = true;
      }
      // The last sentence left is cut to a clause rather than dropped for a snippet.
      if (card.logic_sketch === "HippoRAG indexes a corpus with open information extraction…") seen.clause = true;
      if (!card.assumptions.includes("boundary: task:multi-hop-qa")) {
        // The sketch is down to a clause (or, with a short snippet in its place, empty).
        expect(["HippoRAG indexes a corpus with open information extraction…", ""]).toContain(card.logic_sketch);
        seen.assumptions = true;
      }
      if (card.claim_boundary !== full.claim_boundary) {
        expect(card.assumptions).toEqual(["valid from 2024-05-23", "current version as of query time"]);
        expect(card.claim_boundary).toBe(
          "At query time, Personalized PageRank spreads probability from the query entities over the knowledge graph…",
        );
        seen.claim = true;
      }
    }
    expect(wasNull).toBe(true);
    expect(seen).toEqual({ extras: true, sketch: true, clause: true, assumptions: true, claim: true });
  });

  it("shortens the second anchor's snippet to a word boundary, not below ~60 characters, when no clause is left", async () => {
    const text =
      "Personalized PageRank spreads probability from the query entities over the graph. " +
      "Every passage node then receives the probability mass of the entities that it mentions in its text.";
    const q = "PageRank probability query entities";
    const lengths = new Set<number>();
    for (let budget = 200; budget >= 60; budget--) {
      const card = await d.distill(input(text, budget, q));
      if (!card) break;
      expectValidCard(card, text, budget);
      expect(card.claim_boundary).toBe(
        "Personalized PageRank spreads probability from the query entities over the graph.",
      );
      const second = card.anchored_spans[1] as EvidenceCard["anchored_spans"][number];
      expect(second.snippet.length).toBeGreaterThanOrEqual(55);
      expect(text[second.end] === undefined || text[second.end] === " ").toBe(true);
      lengths.add(second.snippet.length);
    }
    expect(Math.min(...lengths)).toBeLessThan(99);
  });

  it("returns null when not even a two-anchor card fits", async () => {
    expect(await d.distill(input("Some text here. More text there.", 10))).toBeNull();
    expect(await d.distill(input(PAPER, 60))).toBeNull();
  });

  it("anchors a one-sentence content once, whole, and a two-sentence content twice", async () => {
    const one = "Personalized PageRank spreads probability over the graph";
    const card = await d.distill(input(one, 400));
    expect(card?.anchored_spans.map((a) => a.snippet)).toEqual([one]);
    // The claim quotes the sentence whole, so its snippet is not repeated.
    expect(card?.claim_boundary).toBe(one);
    expect(promptCard(card as EvidenceCard).anchored_spans.every((a) => a.snippet === undefined)).toBe(true);
    const word = await d.distill(input("PageRank", 400));
    expect(word?.anchored_spans.map((a) => a.snippet)).toEqual(["PageRank"]);
    expectValidCard(word as EvidenceCard, "PageRank", 400);
    const two = `${one}. It converges in 30 iterations.`;
    for (const budget of [120, 400]) {
      const c = (await d.distill(input(two, budget))) as EvidenceCard;
      expect(c.anchored_spans).toHaveLength(2);
      expectValidCard(c, two, budget);
    }
  });

  it("cuts long sentences to word-boundary snippets of at most 300 characters", async () => {
    const long = `${"PageRank graph retrieval ".repeat(15).trim()}. Short second sentence here.`;
    const card = await d.distill(input(long, 800));
    expectValidCard(card as EvidenceCard, long, 800);
    const first = card?.anchored_spans[0];
    expect(first?.start).toBe(0);
    expect((first?.snippet.length ?? 0) <= 300 && /\S$/.test(first?.snippet ?? "")).toBe(true);
    expect(long[first?.end ?? 0]).toBe(" ");
  });

  it("distils 100 KB of prose quickly (bounded, linear scan)", async () => {
    const big = Array.from(
      { length: 1300 },
      (_, i) => `Sentence ${i} talks about graph retrieval and PageRank mass, e.g. node number ${i}.`,
    ).join(" ");
    expect(big.length).toBeGreaterThan(100_000);
    await d.distill(input(big, 500)); // warm-up (JIT)
    const t0 = cpuNow();
    const card = await d.distill(input(big, 500, "Which node carries the PageRank mass?"));
    const ms = cpuNow() - t0;
    console.log(`distill 100 KB (${big.length} chars): ${ms.toFixed(1)} ms`);
    expect(card && checkAnchors(card, big)).toBe(true);
    expect(ms).toBeLessThan(200); // generous for slow CI; guards against quadratic behaviour
  });

  it("scans a bounded prefix of very large contents (1 MB)", async () => {
    const huge = `${"Filler sentence about nothing in particular. ".repeat(22_000)}PageRank graph retrieval wins.`;
    expect(huge.length).toBeGreaterThan(900_000);
    const t0 = cpuNow();
    const card = await d.distill(input(huge, 500, "PageRank graph retrieval"));
    expect(cpuNow() - t0).toBeLessThan(300);
    expectValidCard(card as EvidenceCard, huge, 500);
    // Beyond the scanned 200 KB nothing is anchored, even a perfect match.
    for (const a of card?.anchored_spans ?? []) expect(a.end).toBeLessThanOrEqual(200_000);
  });
});
