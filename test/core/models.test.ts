/**
 * The model adapters (src/adapters/models) against the mock model server on a local port and the
 * Workers AI binding stub: the ChatModel contract for each, then what is specific to each wire
 * format, the shared request loop and the provider tables. No test waits on backoff (fake sleep);
 * the timeout cases wait 200 ms per attempt.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ANTHROPIC_VERSION, AnthropicChat } from "../../src/adapters/models/anthropic";
import {
  DEFAULT_MODEL_LIMITS,
  estimateInputTokens,
  redact,
  resolveLimits,
  retryAfterMs,
  withRetries,
} from "../../src/adapters/models/http";
import {
  CHAT_PROVIDER_NAMES,
  CHAT_PROVIDERS,
  EMBEDDER_PROVIDER_NAMES,
  EMBEDDER_PROVIDERS,
} from "../../src/adapters/models/index";
import { parseJsonAnswer } from "../../src/adapters/models/json";
import { OpenAiChat, readCompletion, refusesResponseFormat } from "../../src/adapters/models/openai";
import { type AiRunner, WorkersAiChat } from "../../src/adapters/models/workers-ai";
import type { ChatModel, ModelLimits } from "../../src/core/ports";
import { CARD, CARD_SCHEMA, type ChatHarness, cardRequest, chatModelContract } from "../contracts/chat-model.contract";
import { fakeSleep, MockAi, MockModelServer, mock, nodeFetch, valueForSchema } from "../fixtures/mock-models";

const server = new MockModelServer();
const ai = new MockAi();
let sleeper = fakeSleep();

beforeAll(async () => {
  await server.start();
});
afterAll(async () => {
  await server.stop();
  ai.reset();
});

type Make = (o: { limits?: Partial<ModelLimits>; apiKey?: string }) => ChatModel;

function httpHarness(make: Make): ChatHarness {
  return {
    http: true,
    make: (o = {}) => make(o),
    script: (...b) => server.script.push(...b),
    requests: () => server.requests.length,
    waits: () => sleeper.waits,
    reset: () => {
      server.reset();
      sleeper = fakeSleep();
    },
  };
}

const openai = (o: { limits?: Partial<ModelLimits>; apiKey?: string } = {}) =>
  new OpenAiChat({
    baseUrl: `${server.url}/v1`,
    model: "mock-gpt",
    apiKey: o.apiKey,
    fetch: nodeFetch,
    limits: o.limits,
    sleep: sleeper.sleep,
  });
const anthropic = (o: { limits?: Partial<ModelLimits>; apiKey?: string } = {}) =>
  new AnthropicChat({
    baseUrl: `${server.url}/v1`,
    model: "mock-claude",
    apiKey: o.apiKey,
    fetch: nodeFetch,
    limits: o.limits,
    sleep: sleeper.sleep,
  });
const workersAi = (o: { limits?: Partial<ModelLimits> } = {}) =>
  new WorkersAiChat({ ai, model: "@cf/mock/llama", limits: o.limits, sleep: sleeper.sleep });

chatModelContract("OpenAI-compatible chat completions", httpHarness(openai));
chatModelContract("Anthropic messages", httpHarness(anthropic));
chatModelContract("Workers AI binding", {
  http: false,
  make: (o = {}) => workersAi(o),
  script: (...b) => ai.script.push(...b),
  requests: () => ai.calls.length,
  waits: () => sleeper.waits,
  reset: () => {
    ai.reset();
    sleeper = fakeSleep();
  },
});

const body = (i: number) => server.requests[i]?.body as Record<string, unknown>;
const headers = (i: number) => server.requests[i]?.headers ?? {};

describe("OpenAiChat", () => {
  beforeEach(() => {
    server.reset();
    sleeper = fakeSleep();
  });

  it("sends a strict json_schema response format, temperature, max_tokens and the key as Bearer", async () => {
    await openai({ apiKey: "sk-abc" }).structured(cardRequest({ temperature: 0.3 }));
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/v1/chat/completions" });
    expect(headers(0)).toMatchObject({ authorization: "Bearer sk-abc", "content-type": "application/json" });
    expect(body(0)).toEqual({
      model: "mock-gpt",
      messages: cardRequest().messages,
      temperature: 0.3,
      max_tokens: 256,
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "evidence_card",
          description: "An evidence card for the passage.",
          schema: CARD_SCHEMA,
          strict: true,
        },
      },
    });
  });

  it("sends no Authorization header without a key, and temperature 0 by default", async () => {
    await openai().structured(cardRequest());
    expect(headers(0).authorization).toBeUndefined();
    expect(body(0).temperature).toBe(0);
  });

  it("a base URL with a trailing slash still reaches {base}/chat/completions", async () => {
    const m = new OpenAiChat({ baseUrl: `${server.url}/v1/`, model: "m", fetch: nodeFetch, sleep: sleeper.sleep });
    expect((await m.structured(cardRequest())).ok).toBe(true);
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
  });

  for (const mode of ["rejected", "unknown-field"] as const) {
    it(`a server without response_format (${mode}): asked again once with the schema in the system message, then never sent`, async () => {
      server.responseFormat = mode;
      const m = openai();
      server.script.push(mock.answer(CARD, { input: 50, output: 20 }));
      const out = await m.structured(cardRequest());
      expect(out).toMatchObject({ ok: true, value: CARD, usage: { requests: 2, inputTokens: 50, outputTokens: 20 } });
      expect(server.requests).toHaveLength(2);
      expect(body(0).response_format).toBeDefined();
      expect(body(1).response_format).toBeUndefined();
      const [system, user] = body(1).messages as Array<{ role: string; content: string }>;
      expect(system?.role).toBe("system");
      expect(system?.content).toMatch(/^You distil passages into evidence cards\.\n\n/);
      expect(system?.content).toContain("JSON");
      expect(system?.content).toContain(JSON.stringify(CARD_SCHEMA));
      expect(user?.role).toBe("user");
      expect(m.usesResponseFormat).toBe(false);
      // Remembered: the next call goes without it at once.
      const again = await m.structured(cardRequest());
      expect(again.ok).toBe(true);
      expect(server.requests).toHaveLength(3);
      expect(body(2).response_format).toBeUndefined();
      // A new instance tries response_format again.
      expect(openai().usesResponseFormat).toBe(true);
    });
  }

  it("the fallback adds a system message when the request has none; the default answer follows the schema", async () => {
    server.responseFormat = "rejected";
    const out = await openai().structured(
      cardRequest({ messages: [{ role: "user", content: "First sentence. Second one. Third." }] }),
    );
    const msgs = body(1).messages as Array<{ role: string; content: string }>;
    expect(msgs.map((x) => x.role)).toEqual(["system", "user"]);
    expect(out).toMatchObject({
      ok: true,
      value: { claim: "First sentence.", anchors: ["Second one.", "Third."], confidence: 0 },
    });
  });

  it("a 400 that is not about response_format is `rejected` with the provider's message, without a fallback", async () => {
    server.script.push(mock.status(400, {}, "The model `mock-gpt` does not exist"));
    const m = openai();
    const out = await m.structured(cardRequest());
    expect(out).toMatchObject({ ok: false, error: { code: "rejected", status: 400 } });
    expect(out.ok ? "" : out.error.message).toContain("does not exist");
    expect(server.requests).toHaveLength(1);
    expect(m.usesResponseFormat).toBe(true);
  });

  it("reads JSON in a fenced block, or one object inside prose", async () => {
    server.script.push(mock.fenced(CARD), mock.text(`Sure! {"claim": "a {b} c", "anchors": ["x", "y"]} Done.`));
    expect(await openai().structured(cardRequest())).toMatchObject({ ok: true, value: CARD });
    expect(await openai().structured(cardRequest())).toMatchObject({
      ok: true,
      value: { claim: "a {b} c", anchors: ["x", "y"] },
    });
  });

  it("an answer cut at the token cap is `malformed`, naming the cap", async () => {
    server.script.push(mock.truncated());
    const out = await openai().structured(cardRequest({ maxOutputTokens: 64 }));
    expect(out).toMatchObject({ ok: false, error: { code: "malformed" } });
    expect(out.ok ? "" : out.error.message).toMatch(/token cap \(max_tokens 64\)/);
    expect(out.usage.outputTokens).toBeGreaterThan(0);
  });

  it("a refusal is `rejected`; a body without choices or with null content is `malformed`", () => {
    const refused = readCompletion({ choices: [{ message: { content: null, refusal: "I can't help" } }] }, 10);
    expect(refused).toMatchObject({ kind: "fail", error: { code: "rejected" } });
    expect(readCompletion({}, 10)).toMatchObject({ kind: "fail", error: { code: "malformed" } });
    expect(readCompletion({ choices: [{ message: { content: null } }] }, 10)).toMatchObject({
      kind: "fail",
      error: { code: "malformed" },
    });
    // Content parts (some servers).
    expect(
      readCompletion({ choices: [{ message: { content: [{ type: "text", text: '{"a":1}' }] } }] }, 10),
    ).toMatchObject({ kind: "ok", value: { a: 1 } });
  });

  it("recognises the ways servers refuse response_format", () => {
    const r = (status: number, message: string) => refusesResponseFormat({ code: "rejected", status, message });
    expect(r(400, "HTTP 400: 'response_format' is not supported")).toBe(true);
    expect(r(422, "HTTP 422: unknown field `response_format`")).toBe(true);
    expect(r(400, "HTTP 400: Unrecognized request argument supplied: foo")).toBe(true);
    expect(r(400, "HTTP 400: The model `x` does not exist")).toBe(false);
    expect(
      r(
        400,
        "HTTP 400: Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens'",
      ),
    ).toBe(false);
    expect(r(401, "HTTP 401: response_format")).toBe(false);
    expect(refusesResponseFormat({ code: "unavailable", status: 500, message: "response_format" })).toBe(false);
  });

  it("a 200 whose body is not JSON is `malformed`", async () => {
    const m = new OpenAiChat({
      baseUrl: "https://llm.example.com/v1",
      model: "m",
      fetch: async () => new Response("<html>gateway</html>", { status: 200 }),
      sleep: sleeper.sleep,
    });
    expect(await m.structured(cardRequest())).toMatchObject({ ok: false, error: { code: "malformed", status: 200 } });
  });
});

describe("AnthropicChat", () => {
  beforeEach(() => {
    server.reset();
    sleeper = fakeSleep();
  });

  it("sends one forced tool with the schema, the system prompt top-level, x-api-key and anthropic-version", async () => {
    server.script.push(mock.answer(CARD, { input: 90, output: 40 }));
    const out = await anthropic({ apiKey: "sk-ant-key" }).structured(cardRequest());
    expect(out).toMatchObject({ ok: true, value: CARD, usage: { inputTokens: 90, outputTokens: 40, requests: 1 } });
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/v1/messages" });
    expect(headers(0)).toMatchObject({ "x-api-key": "sk-ant-key", "anthropic-version": ANTHROPIC_VERSION });
    expect(ANTHROPIC_VERSION).toBe("2023-06-01");
    expect(headers(0).authorization).toBeUndefined();
    expect(body(0)).toEqual({
      model: "mock-claude",
      max_tokens: 256,
      temperature: 0,
      system: "You distil passages into evidence cards.",
      messages: [{ role: "user", content: cardRequest().messages[1]?.content }],
      tools: [{ name: "evidence_card", description: "An evidence card for the passage.", input_schema: CARD_SCHEMA }],
      tool_choice: { type: "tool", name: "evidence_card" },
    });
  });

  it("omits `system` when there is no system message, and x-api-key when there is no key", async () => {
    await anthropic().structured(cardRequest({ messages: [{ role: "user", content: "Hello." }] }));
    expect(body(0)).not.toHaveProperty("system");
    expect(headers(0)["x-api-key"]).toBeUndefined();
  });

  it("stop_reason max_tokens is `malformed`, naming the cap", async () => {
    server.script.push(mock.truncated());
    const out = await anthropic().structured(cardRequest({ maxOutputTokens: 32 }));
    expect(out).toMatchObject({ ok: false, error: { code: "malformed" } });
    expect(out.ok ? "" : out.error.message).toMatch(/token cap \(max_tokens 32\)/);
  });

  it("a text answer without a tool call: JSON in it is still read; prose is `malformed`", async () => {
    server.script.push(mock.fenced(CARD), mock.malformed());
    expect(await anthropic().structured(cardRequest())).toMatchObject({ ok: true, value: CARD });
    const out = await anthropic().structured(cardRequest());
    expect(out).toMatchObject({ ok: false, error: { code: "malformed" } });
    expect(out.ok ? "" : out.error.message).toContain("no tool_use");
  });

  it("a persistent 529 is `unavailable` with status 529", async () => {
    server.script.push(mock.overloaded(), mock.overloaded(), mock.overloaded());
    const out = await anthropic().structured(cardRequest());
    expect(out).toMatchObject({ ok: false, error: { code: "unavailable", status: 529 }, usage: { requests: 3 } });
    expect(out.ok ? "" : out.error.message).toContain("Overloaded");
  });

  it("defaults to https://api.anthropic.com/v1/messages", async () => {
    const urls: string[] = [];
    const m = new AnthropicChat({
      model: "claude",
      apiKey: "k",
      fetch: async (req) => {
        urls.push(req.url);
        return Response.json({
          content: [{ type: "tool_use", id: "t", name: "evidence_card", input: CARD }],
          stop_reason: "tool_use",
          usage: { input_tokens: 1, output_tokens: 1 },
        });
      },
    });
    expect(await m.structured(cardRequest())).toMatchObject({ ok: true, value: CARD });
    expect(urls).toEqual(["https://api.anthropic.com/v1/messages"]);
  });
});

describe("WorkersAiChat", () => {
  beforeEach(() => {
    ai.reset();
    sleeper = fakeSleep();
  });

  it("runs the model with messages, a json_schema response format, max_tokens and temperature", async () => {
    ai.script.push(mock.answer(CARD, { input: 70, output: 25 }));
    const out = await workersAi().structured(cardRequest());
    expect(out).toMatchObject({ ok: true, value: CARD, usage: { inputTokens: 70, outputTokens: 25, requests: 1 } });
    expect(ai.calls).toEqual([
      {
        model: "@cf/mock/llama",
        inputs: {
          messages: cardRequest().messages,
          response_format: { type: "json_schema", json_schema: CARD_SCHEMA },
          max_tokens: 256,
          temperature: 0,
        },
      },
    ]);
  });

  it("takes `response` as an object or as a JSON string", async () => {
    ai.script.push(mock.answer(CARD));
    expect(await workersAi().structured(cardRequest())).toMatchObject({ ok: true, value: CARD });
    ai.responseAsString = true;
    ai.script.push(mock.answer(CARD), mock.fenced(CARD));
    expect(await workersAi().structured(cardRequest())).toMatchObject({ ok: true, value: CARD });
    expect(await workersAi().structured(cardRequest())).toMatchObject({ ok: true, value: CARD });
  });

  it("a persistently thrown error is `unavailable` with its message", async () => {
    ai.script.push(mock.status(500, {}, "boom"), mock.status(500, {}, "boom"), mock.status(500, {}, "boom"));
    const out = await workersAi().structured(cardRequest());
    expect(out).toMatchObject({ ok: false, error: { code: "unavailable" }, usage: { requests: 3 } });
    expect(out.ok ? "" : out.error.message).toContain("AiError: 500: boom");
  });

  it("a result without `response` is `malformed`", async () => {
    const m = new WorkersAiChat({ ai: { run: async () => ({ nothing: true }) }, model: "m" });
    expect(await m.structured(cardRequest())).toMatchObject({ ok: false, error: { code: "malformed" } });
  });

  it("env.AI satisfies the binding interface", () => {
    const asRunner = (binding: Ai): AiRunner => binding;
    expect(typeof asRunner).toBe("function");
  });
});

describe("the request loop (http.ts)", () => {
  const loopReq = cardRequest();

  it("has the documented defaults", () => {
    expect(DEFAULT_MODEL_LIMITS).toEqual({
      timeoutMs: 60_000,
      retries: 2,
      backoffMs: 500,
      maxBackoffMs: 20_000,
      maxTokensPerRequest: 32_000,
    });
    expect(resolveLimits({ retries: 0 })).toEqual({ ...DEFAULT_MODEL_LIMITS, retries: 0 });
    expect(() => resolveLimits({ timeoutMs: -1 })).toThrow(RangeError);
    expect(() => resolveLimits({ retries: 1.5 })).toThrow(RangeError);
  });

  it("doubles the backoff with jitter in [0.8, 1.2) and caps it at maxBackoffMs", async () => {
    const run = async (random: () => number, limits: Partial<ModelLimits>) => {
      const s = fakeSleep();
      await withRetries(resolveLimits(limits), { sleep: s.sleep, random }, async () => ({
        kind: "retry",
        code: "unavailable",
        message: "down",
      }));
      return s.waits;
    };
    expect(await run(() => 0, { retries: 4 })).toEqual([400, 800, 1600, 3200]);
    expect(await run(() => 0.5, { retries: 3 })).toEqual([500, 1000, 2000]);
    expect(await run(() => 0.5, { retries: 3, maxBackoffMs: 1500 })).toEqual([500, 1000, 1500]);
  });

  it("reads retry-after as seconds or an HTTP date, and retry-after-ms", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    const h = (o: Record<string, string>) => new Headers(o);
    expect(retryAfterMs(h({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(h({ "retry-after": "0.5" }), now)).toBe(500);
    expect(retryAfterMs(h({ "retry-after": "Wed, 01 Jan 2025 00:00:07 GMT" }), now)).toBe(7000);
    expect(retryAfterMs(h({ "retry-after": "Tue, 31 Dec 2024 23:00:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(h({ "retry-after-ms": "250", "retry-after": "1" }), now)).toBe(250);
    expect(retryAfterMs(h({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(h({}), now)).toBeUndefined();
  });

  it("an HTTP-date retry-after is waited for", async () => {
    server.reset();
    sleeper = fakeSleep();
    const at = new Date(Date.now() + 5000).toUTCString();
    server.script.push(mock.status(429, { "retry-after": at }), mock.answer(CARD));
    expect(await openai().structured(loopReq)).toMatchObject({ ok: true, usage: { requests: 2 } });
    expect(sleeper.waits[0]).toBeGreaterThanOrEqual(3000);
  });

  it("a 503 with a retry-after past maxBackoffMs also ends the call (rate_limited)", async () => {
    server.reset();
    sleeper = fakeSleep();
    server.script.push(mock.status(503, { "retry-after": "120" }));
    const out = await openai().structured(loopReq);
    expect(out).toMatchObject({ ok: false, error: { code: "rate_limited", status: 503 }, usage: { requests: 1 } });
    expect(out.ok ? "" : out.error.message).toContain("120 s");
  });

  it("a refused connection is retried, then `unavailable`", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const s = fakeSleep();
    const m = new OpenAiChat({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "m", fetch: nodeFetch, sleep: s.sleep });
    const out = await m.structured(loopReq);
    expect(out).toMatchObject({ ok: false, error: { code: "unavailable" }, usage: { requests: 3 } });
    expect(out.ok ? "" : out.error.message).toMatch(/network error/);
    expect(s.waits).toHaveLength(2);
  });

  it("estimates input tokens as every character sent / 4", () => {
    const chars =
      loopReq.name.length +
      loopReq.description.length +
      JSON.stringify(loopReq.schema).length +
      loopReq.messages.reduce((n, m) => n + m.content.length, 0);
    expect(estimateInputTokens(loopReq)).toBe(Math.ceil(chars / 4));
  });

  it("redacts the key and key-shaped strings", () => {
    expect(redact("bad key sk-live-abcdef123456 given", undefined)).toBe("bad key [redacted] given");
    expect(redact("key=my-own-secret!", "my-own-secret!")).toBe("key=[redacted]");
    expect(redact("Authorization: Bearer abc.def", undefined)).toBe("Authorization: [redacted]");
  });

  it("parseJsonAnswer: whole text, fenced block, first balanced object, or nothing", () => {
    expect(parseJsonAnswer(' {"a": 1} ')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonAnswer('```json\n{"a": [1, 2]}\n```')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(parseJsonAnswer('```\n{"a": 2}\n```')).toEqual({ ok: true, value: { a: 2 } });
    expect(parseJsonAnswer('Note {not json}. Answer: {"s": "}{\\"", "n": {"m": null}} bye')).toEqual({
      ok: true,
      value: { s: '}{"', n: { m: null } },
    });
    expect(parseJsonAnswer('{"a": 1')).toEqual({ ok: false });
    expect(parseJsonAnswer("")).toEqual({ ok: false });
    expect(parseJsonAnswer("no json here")).toEqual({ ok: false });
  });
});

describe("the provider tables (index.ts)", () => {
  beforeEach(() => {
    server.reset();
    sleeper = fakeSleep();
  });

  it("build every chat provider by name", async () => {
    expect(Object.keys(CHAT_PROVIDERS).sort()).toEqual([...CHAT_PROVIDER_NAMES].sort());
    expect(Object.keys(EMBEDDER_PROVIDERS)).toEqual([...EMBEDDER_PROVIDER_NAMES]);
    const common = {
      baseUrl: `${server.url}/v1`,
      model: "m",
      fetch: nodeFetch,
      sleep: sleeper.sleep,
      ai,
      allowHosts: ["127.0.0.1"],
    };
    for (const name of CHAT_PROVIDER_NAMES) {
      const m = CHAT_PROVIDERS[name](common);
      expect(m.provider).toBe(name);
      expect(await m.structured(cardRequest())).toMatchObject({ ok: true });
    }
    const e = EMBEDDER_PROVIDERS.openai({ ...common, dims: 384 });
    expect((await e.embed(["graph retrieval"]))[0]?.length).toBe(384);
  });

  it("refuse a base URL the outbound rules refuse, and missing parts", () => {
    const o = { model: "m", fetch: nodeFetch };
    expect(() => CHAT_PROVIDERS.openai({ ...o, baseUrl: `${server.url}/v1` })).toThrow(/http: .*OUTBOUND_ALLOW_HOSTS/);
    expect(() => CHAT_PROVIDERS.openai({ ...o, baseUrl: "https://169.254.169.254/v1" })).toThrow(
      /not a public address/,
    );
    expect(() => CHAT_PROVIDERS.openai({ ...o, baseUrl: "https://user:pw@api.example.com/v1" })).toThrow(/credentials/);
    expect(() => CHAT_PROVIDERS.openai(o)).toThrow(/base URL/);
    expect(() => CHAT_PROVIDERS.openai({ model: "m", baseUrl: "https://api.openai.com/v1" })).toThrow(/fetch/);
    expect(() => CHAT_PROVIDERS["workers-ai"]({ model: "m" })).toThrow(/AI binding/);
    expect(CHAT_PROVIDERS.anthropic(o).provider).toBe("anthropic");
    expect(CHAT_PROVIDERS.openai({ ...o, baseUrl: "https://api.openai.com/v1" }).model).toBe("m");
  });
});

describe("the mock's value for a schema", () => {
  it("fills every property, arrays to minItems, strings from the text's sentences, numbers at their minimum", () => {
    const schema = {
      type: "object",
      properties: {
        title: { type: "string" },
        tags: { type: "array", items: { type: "string" }, minItems: 3, uniqueItems: true },
        kind: { enum: ["claim", "method"] },
        year: { type: "integer", minimum: 1990 },
        score: { type: "number", exclusiveMinimum: 0, maximum: 1 },
        flag: { type: "boolean" },
        note: { type: ["string", "null"], maxLength: 5 },
        ref: { $ref: "#/$defs/ref" },
        alt: { anyOf: [{ type: "null" }, { type: "integer" }] },
      },
      $defs: { ref: { type: "object", properties: { id: { type: "string", minLength: 12 } } } },
    };
    expect(valueForSchema(schema, "One. Two! Three? Four.")).toEqual({
      title: "One.",
      tags: ["Two!", "Three?", "Four."],
      kind: "claim",
      year: 1990,
      score: 0.5,
      flag: false,
      note: "One.",
      ref: { id: "Two!........" },
      alt: 0,
    });
  });
});
