/**
 * The model distiller over a scripted ChatModel: a card from the model with every anchor an exact
 * span, one retry on an unusable card, the extractive card after that (or at once when the model
 * call fails or the request's model budget is spent), and the cache.
 */
import { describe, expect, it } from "vitest";
import { checkAnchors } from "../../src/core/distill/card";
import { ExtractiveDistiller } from "../../src/core/distill/extractive";
import { locateQuote, ModelDistiller, newModelMeter } from "../../src/core/distill/model";
import type { ChatModel, DistillInput, StructuredOutcome, StructuredRequest } from "../../src/core/ports";

const CONTENT = [
  "HippoRAG indexes passages into a knowledge graph of noun phrases.",
  "At query time it runs Personalized PageRank from the query's entities,",
  "  with a damping factor of 0.5.",
  "On multi-hop QA it improves recall@5 by up to 20 points over ColBERTv2.",
].join(" ");

const input = (over: Partial<DistillInput> = {}): DistillInput => ({
  query: "How much does HippoRAG improve recall?",
  artifactId: "arxiv:2405.14831",
  version: 2,
  kind: "paper",
  title: "HippoRAG",
  content: CONTENT,
  context: { validFrom: Date.UTC(2024, 4, 23), validTo: null, boundaries: [], deprecatedBy: null },
  budgetTokens: 400,
  ...over,
});

const usage = { inputTokens: 100, outputTokens: 50, requests: 1, ms: 1 };
const good = {
  claim_boundary: "HippoRAG improves multi-hop QA recall@5 by up to 20 points over ColBERTv2.",
  logic_sketch: "It runs Personalized PageRank from the query's entities over a graph of noun phrases.",
  assumptions: ["multi-hop QA benchmarks"],
  quotes: [
    "On multi-hop QA it improves recall@5 by up to 20 points over ColBERTv2.",
    // Whitespace changed by the model: located word for word.
    "At query time it runs Personalized PageRank from the query's entities, with a damping factor of 0.5.",
  ],
};

/** A ChatModel answering from a script, recording what it was asked. */
function scripted(answers: Array<StructuredOutcome | unknown>) {
  const asked: StructuredRequest[] = [];
  const model: ChatModel = {
    provider: "openai",
    model: "mock-1",
    async structured(req) {
      asked.push(req);
      const next = answers.shift();
      if (next && typeof next === "object" && "ok" in next) return next as StructuredOutcome;
      return { ok: true, value: next, usage };
    },
  };
  return { model, asked };
}

const distiller = (model: ChatModel) => new ModelDistiller({ model, fallback: new ExtractiveDistiller() });

describe("model distiller", () => {
  it("makes the card from the model's answer, every anchor an exact span of the version", async () => {
    const { model, asked } = scripted([good]);
    const meter = newModelMeter(60_000);
    const card = await distiller(model).distill(input({ meter }));
    expect(card?.distiller).toBe("openai:mock-1");
    expect(card?.claim_boundary).toBe(good.claim_boundary);
    expect(card?.anchored_spans).toHaveLength(2);
    expect(checkAnchors(card as NonNullable<typeof card>, CONTENT)).toBe(true);
    // The quote with changed whitespace anchors the document's own text.
    expect(card?.anchored_spans[0]?.snippet).toMatch(/entities, {3}with a damping factor of 0\.5\.$/);
    expect(card?.assumptions).toEqual([
      "valid from 2024-05-23",
      "current version as of query time",
      "multi-hop QA benchmarks",
    ]);
    expect(card?.tokens).toBeLessThanOrEqual(400);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.messages[1]?.content).toContain(CONTENT);
    expect(meter).toMatchObject({ calls: 1, requests: 1, inputTokens: 100, outputTokens: 50, fallbacks: 0 });
  });

  it("retries once when the quotes are not in the document, naming them", async () => {
    const invented = { ...good, quotes: ["HippoRAG is the best retriever ever built.", good.quotes[0]] };
    const { model, asked } = scripted([invented, good]);
    const meter = newModelMeter(60_000);
    const card = await distiller(model).distill(input({ meter }));
    expect(card?.distiller).toBe("openai:mock-1");
    expect(asked).toHaveLength(2);
    expect(asked[1]?.messages.at(-1)?.content).toContain('not found: "HippoRAG is the best retriever ever built."');
    expect(meter.retries).toBe(1);
  });

  it("falls back to the extractive card after two unusable answers (schema, token caps, budget)", async () => {
    const long = { ...good, claim_boundary: "word ".repeat(200) };
    const cases: unknown[][] = [
      [{ claim: "no" }, "not json at all"],
      [long, long],
      [
        { ...good, quotes: [] },
        { ...good, quotes: ["x y z q"] },
      ],
    ];
    for (const answers of cases) {
      const { model, asked } = scripted(answers);
      const meter = newModelMeter(60_000);
      const card = await distiller(model).distill(input({ meter }));
      expect(card?.distiller).toBe("extractive-v1");
      expect(checkAnchors(card as NonNullable<typeof card>, CONTENT)).toBe(true);
      expect(asked).toHaveLength(2);
      expect(meter.reasons).toEqual({ invalid_card: 1 });
    }
    // A card over the request's budget is refused too.
    const { model } = scripted([good, good]);
    const meter = newModelMeter(60_000);
    const small = await distiller(model).distill(input({ meter, budgetTokens: 120 }));
    expect(small?.distiller).toBe("extractive-v1");
    expect((small?.tokens ?? 999) <= 120).toBe(true);
  });

  it("a failed call (rate limit, outage, rejected key) gives the extractive card without a second attempt", async () => {
    for (const code of ["rate_limited", "unavailable", "rejected"] as const) {
      const { model, asked } = scripted([{ ok: false, error: { code, message: code }, usage }]);
      const meter = newModelMeter(60_000);
      const card = await distiller(model).distill(input({ meter }));
      expect(card?.distiller).toBe("extractive-v1");
      expect(asked).toHaveLength(1);
      expect(meter.reasons).toEqual({ [code]: 1 });
    }
  });

  it("sends nothing once the request's model budget is spent", async () => {
    const { model, asked } = scripted([good]);
    const meter = newModelMeter(100);
    const card = await distiller(model).distill(input({ meter }));
    expect(card?.distiller).toBe("extractive-v1");
    expect(asked).toHaveLength(0);
    expect(meter.reasons).toEqual({ over_budget: 1 });
  });

  it("answers a repeated request from its cache, keyed by content as well as id and version", async () => {
    const { model, asked } = scripted([good, good]);
    const d = distiller(model);
    const meter = newModelMeter(60_000);
    const a = await d.distill(input({ meter }));
    const b = await d.distill(input({ meter }));
    expect(b).toEqual(a);
    expect(asked).toHaveLength(1);
    expect(meter.cacheHits).toBe(1);
    // Same id and version, other content (another archive): asked again.
    await d.distill(input({ meter, content: `${CONTENT} More text.` }));
    expect(asked).toHaveLength(2);
  });

  it("locates quotes exactly or word for word, and nothing else", () => {
    expect(locateQuote(CONTENT, "damping factor of 0.5")).toEqual({
      start: CONTENT.indexOf("damping"),
      end: CONTENT.indexOf("damping") + "damping factor of 0.5".length,
    });
    expect(locateQuote(CONTENT, '"entities, with a damping"')).not.toBeNull();
    expect(locateQuote(CONTENT, "damping factor of 0.85")).toBeNull();
    expect(locateQuote(CONTENT, "x")).toBeNull();
  });
});
