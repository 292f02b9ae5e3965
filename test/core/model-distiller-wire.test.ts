/**
 * The model distiller over the real adapters (OpenAI-compatible and Anthropic) against the local
 * mock of each wire format: every case of the issue with its documented outcome. No test waits on
 * backoff (fake sleep); the timeout case waits 200 ms per attempt.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AnthropicChat } from "../../src/adapters/models/anthropic";
import { OpenAiChat } from "../../src/adapters/models/openai";
import { checkAnchors } from "../../src/core/distill/card";
import { ExtractiveDistiller } from "../../src/core/distill/extractive";
import { ModelDistiller, newModelMeter } from "../../src/core/distill/model";
import type { ChatModel, DistillInput } from "../../src/core/ports";
import { fakeSleep, MockModelServer, mock, nodeFetch } from "../fixtures/mock-models";

const server = new MockModelServer();
let sleeper = fakeSleep();

beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(() => {
  server.reset();
  sleeper = fakeSleep();
});

const CONTENT =
  "HippoRAG indexes passages into a knowledge graph. It runs Personalized PageRank from the query's entities. " +
  "On multi-hop QA it improves recall@5 by up to 20 points. The damping factor is 0.5.";

const input = (): DistillInput => ({
  query: "How much does HippoRAG improve recall?",
  artifactId: "note:hipporag",
  version: 1,
  kind: "note",
  title: "HippoRAG",
  content: CONTENT,
  context: { validFrom: 0, validTo: null, boundaries: [], deprecatedBy: null },
  budgetTokens: 500,
  meter: newModelMeter(60_000),
});

const GOOD = {
  claim_boundary: "On multi-hop QA it improves recall@5 by up to 20 points.",
  logic_sketch: "It runs Personalized PageRank from the query's entities.",
  assumptions: [],
  quotes: ["On multi-hop QA it improves recall@5 by up to 20 points.", "The damping factor is 0.5."],
};

const providers: Array<[string, () => ChatModel]> = [
  [
    "openai",
    () =>
      new OpenAiChat({
        baseUrl: `${server.url}/v1`,
        model: "m",
        fetch: nodeFetch,
        sleep: sleeper.sleep,
        limits: { timeoutMs: 200 },
      }),
  ],
  [
    "anthropic",
    () =>
      new AnthropicChat({
        baseUrl: `${server.url}/v1`,
        model: "m",
        apiKey: "k",
        fetch: nodeFetch,
        sleep: sleeper.sleep,
        limits: { timeoutMs: 200 },
      }),
  ],
];

describe.each(providers)("model distiller over %s", (name, make) => {
  const distill = async () => {
    const i = input();
    const card = await new ModelDistiller({ model: make(), fallback: new ExtractiveDistiller() }).distill(i);
    expect(card).not.toBeNull();
    expect(checkAnchors(card as NonNullable<typeof card>, CONTENT)).toBe(true);
    return { card: card as NonNullable<typeof card>, meter: i.meter as NonNullable<DistillInput["meter"]> };
  };

  it("good output: the model's card", async () => {
    server.script.push(mock.answer(GOOD));
    const { card, meter } = await distill();
    expect(card.distiller).toBe(`${name}:m`);
    expect(card.claim_boundary).toBe(GOOD.claim_boundary);
    expect(meter.calls).toBe(1);
  });

  it("malformed JSON, then good output: one retry, the model's card", async () => {
    server.script.push(mock.malformed(), mock.answer(GOOD));
    const { card, meter } = await distill();
    expect(card.distiller).toBe(`${name}:m`);
    expect(meter.calls).toBe(2);
    expect(meter.retries).toBe(1);
  });

  it("schema-valid output whose anchors do not verify, twice: the extractive card", async () => {
    const invented = { ...GOOD, quotes: ["HippoRAG beats every retriever.", "It needs no index."] };
    server.script.push(mock.answer(invented), mock.answer(invented));
    const { card, meter } = await distill();
    expect(card.distiller).toBe("extractive-v1");
    expect(meter.reasons).toEqual({ invalid_card: 1 });
    expect(server.requests).toHaveLength(2);
  });

  it("an over-long card, twice: the extractive card", async () => {
    const long = { ...GOOD, logic_sketch: "The graph spreads relevance. ".repeat(60) };
    server.script.push(mock.answer(long), mock.answer(long));
    const { card, meter } = await distill();
    expect(card.distiller).toBe("extractive-v1");
    expect(meter.reasons).toEqual({ invalid_card: 1 });
  });

  it("429 with retry-after: waits as asked, then the model's card", async () => {
    server.script.push(mock.rateLimited(3), mock.answer(GOOD));
    const { card, meter } = await distill();
    expect(card.distiller).toBe(`${name}:m`);
    expect(sleeper.waits.some((w) => w >= 3000)).toBe(true);
    expect(meter.requests).toBe(2);
  });

  it("500 on every attempt: the extractive card, reason unavailable", async () => {
    server.script.push(mock.serverError(), mock.serverError(), mock.serverError());
    const { card, meter } = await distill();
    expect(card.distiller).toBe("extractive-v1");
    expect(meter.reasons).toEqual({ unavailable: 1 });
    expect(meter.requests).toBe(3);
  });

  it("a timeout on every attempt: the extractive card", async () => {
    server.script.push(mock.hang(), mock.hang(), mock.hang());
    const { card, meter } = await distill();
    expect(card.distiller).toBe("extractive-v1");
    expect(meter.reasons).toEqual({ unavailable: 1 });
  });

  it("a slow stream within the timeout: the model's card", async () => {
    server.script.push(mock.slow(100, GOOD));
    const { card } = await distill();
    expect(card.distiller).toBe(`${name}:m`);
  });
});
