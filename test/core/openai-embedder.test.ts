/**
 * OpenAiEmbedder against the mock model server's /embeddings (hashed bag-of-words vectors, scaled
 * and in reverse index order, so the client must sort and normalise): the Embedder contract, then
 * batching, empty texts, the dimension check and failures.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EMBED_BATCH, OpenAiEmbedder } from "../../src/adapters/models/openai-embedder";
import { HashedEmbedder } from "../../src/core/embed/hashed";
import type { ModelLimits } from "../../src/core/ports";
import { embedderContract } from "../contracts/embedder.contract";
import { fakeSleep, MockModelServer, mock, nodeFetch } from "../fixtures/mock-models";

const server = new MockModelServer({ dims: 384 });
let sleeper = fakeSleep();

beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await server.stop();
});

const make = (o: { dims?: number; apiKey?: string; limits?: Partial<ModelLimits> } = {}) =>
  new OpenAiEmbedder({
    baseUrl: `${server.url}/v1`,
    model: "mock-embed",
    dims: o.dims ?? 384,
    apiKey: o.apiKey,
    fetch: nodeFetch,
    limits: o.limits,
    sleep: sleeper.sleep,
  });

embedderContract("OpenAI-compatible embeddings (mock server)", () => make());

describe("OpenAiEmbedder", () => {
  beforeEach(() => {
    server.reset();
    sleeper = fakeSleep();
  });

  const hashed = new HashedEmbedder({ dims: 384 });

  it("posts {model, input} to {base}/embeddings in batches of at most 96, answers in input order", async () => {
    const texts = Array.from({ length: 200 }, (_, i) => `paper ${i} about graph retrieval number ${i * 7}`);
    const vs = await make({ apiKey: "sk-embed" }).embed(texts);
    const sent = server.requestsTo("embeddings");
    expect(sent.map((r) => (r.body as { input: string[] }).input.length)).toEqual([EMBED_BATCH, EMBED_BATCH, 8]);
    expect(sent[0]?.path).toBe("/v1/embeddings");
    expect(sent[0]?.headers.authorization).toBe("Bearer sk-embed");
    expect(sent[0]?.body).toMatchObject({ model: "mock-embed" });
    for (const i of [0, 95, 96, 150, 199]) {
      const want = hashed.embedOne(texts[i] as string);
      const got = vs[i] as Float32Array;
      for (let j = 0; j < want.length; j++) expect(got[j]).toBeCloseTo(want[j] as number, 5);
    }
  });

  it("embeds empty texts to zero vectors without sending them; all empty sends nothing", async () => {
    const vs = await make().embed(["", "graph retrieval", "   "]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body).toEqual({ model: "mock-embed", input: ["graph retrieval"] });
    expect(vs[0]?.every((x) => x === 0)).toBe(true);
    expect(vs[2]?.every((x) => x === 0)).toBe(true);
    server.reset();
    expect((await make().embed(["", ""])).map((v) => v.length)).toEqual([384, 384]);
    expect(await make().embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it("a dimension mismatch throws, naming the model and both dimensions, without retrying", async () => {
    server.setDims(64);
    const err = await make({ dims: 384 })
      .embed(["graph retrieval"])
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(Error);
    const message = (err as Error).message;
    expect(message).toContain("mock-embed");
    expect(message).toContain("384");
    expect(message).toContain("64");
    expect(server.requests).toHaveLength(1);
  });

  it("retries a 500 and a 429, and throws a clear Error once the retries are spent", async () => {
    server.script.push(mock.serverError(), mock.rateLimited(1));
    expect((await make().embed(["graph"]))[0]?.length).toBe(384);
    expect(server.requests).toHaveLength(3);
    expect(sleeper.waits[1]).toBeGreaterThanOrEqual(1000);
    server.reset();
    server.script.push(mock.serverError(), mock.serverError(), mock.serverError());
    await expect(make().embed(["graph"])).rejects.toThrow(/mock-embed.*unavailable.*HTTP 500.*3 requests/);
  });

  it("a 401 throws at once, without the key in the message", async () => {
    server.script.push(mock.unauthorized());
    const err = await make({ apiKey: "sk-embed-SECRET-123456" })
      .embed(["graph"])
      .then(
        () => null,
        (e: unknown) => e as Error,
      );
    expect(err?.message).toMatch(/rejected: HTTP 401/);
    expect(err?.message).not.toContain("SECRET");
    expect(server.requests).toHaveLength(1);
  });

  it("a hang times out and is retried", async () => {
    server.script.push(mock.hang());
    const vs = await make({ limits: { timeoutMs: 200 } }).embed(["graph"]);
    expect(vs[0]?.length).toBe(384);
    expect(server.requests).toHaveLength(2);
  });

  it("rejects a non-positive dims at construction", () => {
    expect(() => make({ dims: 0 })).toThrow(RangeError);
  });
});
