/**
 * `npm start` with DISTILLER=openai against a local mock of an OpenAI-compatible server
 * (test/fixtures/mock-models.ts): cards made by the model, every anchor verified by POST /verify,
 * the model's spending in the trace, the extractive card when the model fails, and a model server
 * the deployment did not allow refused at start.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import { PaperGuruClient } from "../../src/client";
import { MockModelServer, mock } from "../fixtures/mock-models";

let model: MockModelServer;
let server: Server;
let client: PaperGuruClient;
let archive: string;

const NOTE = [
  "HippoRAG indexes passages into a knowledge graph of noun phrases.",
  "At query time it runs Personalized PageRank from the query's entities.",
  "On multi-hop QA it improves recall@5 by up to 20 points over ColBERTv2.",
  "The damping factor is 0.5 in every experiment.",
  "Indexing costs one LLM call per passage.",
].join(" ");

beforeAll(async () => {
  model = new MockModelServer();
  const origin = await model.start();
  server = await startServer({
    fresh: true,
    allowHosts: "127.0.0.1",
    vars: { DISTILLER: "openai", LLM_BASE_URL: `${origin}/v1`, LLM_MODEL: "m" },
  });
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const a = await admin.createArchive({ id: "llm", name: "Model distiller" });
  archive = a.archive.id;
  client = new PaperGuruClient(server.url, a.key.secret);
  await client.ingest(archive, {
    artifacts: [
      { id: "note:hipporag", kind: "note", title: "HippoRAG", content: NOTE },
      {
        id: "note:colbert",
        kind: "note",
        title: "ColBERTv2",
        content: "ColBERTv2 is a late-interaction retriever. It stores token vectors.",
      },
    ],
  });
});

afterAll(async () => {
  server?.stop();
  await model?.stop();
});

it("makes cards with the model; every anchor verifies; the trace says what it spent", async () => {
  model.reset();
  const r = await client.context(archive, {
    query: "How much does HippoRAG improve recall?",
    budget_tokens: 2000,
    include_trace: true,
  });
  expect(r.cards.length).toBeGreaterThan(0);
  for (const c of r.cards) expect(c.distiller).toBe("openai:m");
  const anchors = r.cards.flatMap((c) => c.anchored_spans);
  expect(anchors.length).toBeGreaterThanOrEqual(2 * r.cards.length);
  const v = await client.verify(archive, { anchors });
  expect(v.all_verified).toBe(true);
  expect(r.trace?.model).toMatchObject({ distiller: "openai:m", fallbacks: 0, limit_tokens: 60_000 });
  expect(r.trace?.model?.calls).toBe(r.cards.length);
  // The wire format: the card schema as json_schema structured output, to the configured model.
  const chat = model.requests.filter((q) => q.path.endsWith("/chat/completions"));
  expect(chat.length).toBe(r.cards.length);
  const body = chat[0]?.body as { model: string; response_format: { type: string; json_schema: { name: string } } };
  expect(body.model).toBe("m");
  expect(body.response_format.type).toBe("json_schema");
  expect(body.response_format.json_schema.name).toBe("evidence_card");
});

it("falls back to the extractive card when the model fails, and says why", async () => {
  model.reset();
  model.script.push(mock.unauthorized());
  const r = await client.expand(archive, {
    query: "What does ColBERTv2 store?",
    chunks: [{ id: "note:colbert" }],
    budget_tokens: 800,
  });
  expect(r.cards[0]?.distiller).toBe("extractive-v1");
  expect(r.trace.model).toMatchObject({ fallbacks: 1, fallback_reasons: { rejected: 1 }, requests: 1 });
  const v = await client.verify(archive, { anchors: r.cards[0]?.anchored_spans ?? [] });
  expect(v.all_verified).toBe(true);
});

it("with the default distiller no model is asked and the trace has no model part", async () => {
  const plain = await startServer({ fresh: true });
  try {
    const admin = new PaperGuruClient(plain.url, plain.adminKey);
    const a = await admin.createArchive({ id: "plain", name: "Extractive" });
    const c = new PaperGuruClient(plain.url, a.key.secret);
    await c.ingest(a.archive.id, { artifacts: [{ id: "n", kind: "note", title: "HippoRAG", content: NOTE }] });
    const r = await c.context(a.archive.id, { query: "HippoRAG recall", budget_tokens: 1000, include_trace: true });
    expect(r.cards[0]?.distiller).toBe("extractive-v1");
    expect(r.trace).toBeDefined();
    expect(r.trace?.model).toBeUndefined();
  } finally {
    plain.stop();
  }
});
