import { beforeEach, describe, expect, it } from "vitest";
import type { ChatModel, JsonSchema, ModelLimits, StructuredRequest } from "../../src/core/ports";
import { type MockBehaviour, mock } from "../fixtures/mock-models";

/** What the contract drives: one adapter over its mock (test/fixtures/mock-models.ts). */
export interface ChatHarness {
  /**
   * Whether the transport has HTTP statuses and headers. False for the Workers AI binding: its
   * errors are thrown, carry no retry-after and are all retried, so the 401 and retry-after cases
   * do not apply and a thrown error stands for the 429.
   */
  http: boolean;
  /** A fresh adapter over the mock with these limits, the harness's fake sleep and (HTTP) this key. */
  make(opts?: { limits?: Partial<ModelLimits>; apiKey?: string }): ChatModel;
  /** Queue behaviours, one per request, in order. */
  script(...behaviours: MockBehaviour[]): void;
  /** Requests the mock has received since the last reset. */
  requests(): number;
  /** Waits the adapter asked of the fake sleep since the last reset, ms. */
  waits(): number[];
  reset(): void;
}

export const CARD_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    claim: { type: "string", maxLength: 200 },
    anchors: { type: "array", items: { type: "string" }, minItems: 2, maxItems: 4 },
    confidence: { type: "integer", minimum: 0, maximum: 3 },
  },
  required: ["claim", "anchors", "confidence"],
  additionalProperties: false,
};

export const CARD = { claim: "Dual encoders beat BM25 on NQ.", anchors: ["dual encoders", "BM25"], confidence: 2 };

export function cardRequest(over: Partial<StructuredRequest> = {}): StructuredRequest {
  return {
    name: "evidence_card",
    description: "An evidence card for the passage.",
    schema: CARD_SCHEMA,
    messages: [
      { role: "system", content: "You distil passages into evidence cards." },
      {
        role: "user",
        content:
          "Dense passage retrieval uses dual encoders. It beats BM25 on Natural Questions. Training needs hard negatives.",
      },
    ],
    maxOutputTokens: 256,
    ...over,
  };
}

/**
 * ChatModel contract, run against every adapter: a good answer parsed with its usage; a malformed
 * one not retried; 429 waits for retry-after; 5xx and timeouts retried with growing backoff until
 * the retries run out; 401 rejected at once without the key in the message; over budget nothing sent.
 */
export function chatModelContract(name: string, h: ChatHarness) {
  describe(`ChatModel contract: ${name}`, () => {
    beforeEach(() => h.reset());

    it("parses a good answer and reports its usage", async () => {
      h.script(mock.answer(CARD, { input: 120, output: 30 }));
      const out = await h.make().structured(cardRequest());
      expect(out).toMatchObject({ ok: true, value: CARD });
      expect(out.usage).toMatchObject({ inputTokens: 120, outputTokens: 30, requests: 1 });
      expect(out.usage.ms).toBeGreaterThanOrEqual(0);
      expect(h.waits()).toEqual([]);
    });

    it("answers a value built from the schema when nothing is scripted", async () => {
      const out = await h.make().structured(cardRequest());
      expect(out.ok).toBe(true);
      const v = out.ok ? (out.value as typeof CARD) : CARD;
      expect(typeof v.claim).toBe("string");
      expect(v.anchors.length).toBe(2);
      expect(v.confidence).toBe(0);
    });

    it("a malformed answer is `malformed`, not retried", async () => {
      h.script(mock.malformed());
      const out = await h.make().structured(cardRequest());
      expect(out.ok).toBe(false);
      if (out.ok) return;
      expect(out.error.code).toBe("malformed");
      expect(out.usage.requests).toBe(1);
      expect(h.requests()).toBe(1);
    });

    it.runIf(h.http)("429 with retry-after 2: waits at least 2 s, then succeeds", async () => {
      h.script(mock.rateLimited(2), mock.answer(CARD));
      const out = await h.make().structured(cardRequest());
      expect(out).toMatchObject({ ok: true, value: CARD });
      expect(out.usage.requests).toBe(2);
      expect(h.waits()).toHaveLength(1);
      expect(h.waits()[0]).toBeGreaterThanOrEqual(2000);
    });

    it.runIf(!h.http)("a thrown error (capacity) is retried after a backoff, then succeeds", async () => {
      h.script(mock.status(429), mock.answer(CARD));
      const out = await h.make().structured(cardRequest());
      expect(out).toMatchObject({ ok: true, value: CARD });
      expect(out.usage.requests).toBe(2);
      expect(h.waits()).toHaveLength(1);
      expect(h.waits()[0]).toBeGreaterThanOrEqual(400);
    });

    it.runIf(h.http)("a retry-after past maxBackoffMs ends the call as rate_limited at once", async () => {
      h.script(mock.rateLimited(60));
      const out = await h.make({ limits: { maxBackoffMs: 20_000 } }).structured(cardRequest());
      expect(out).toMatchObject({ ok: false, error: { code: "rate_limited", status: 429 } });
      expect(out.usage.requests).toBe(1);
      expect(h.waits()).toEqual([]);
    });

    it.runIf(h.http)("429 until the retries run out is rate_limited", async () => {
      h.script(mock.rateLimited(1), mock.rateLimited(1), mock.rateLimited(1));
      const out = await h.make().structured(cardRequest());
      expect(out).toMatchObject({ ok: false, error: { code: "rate_limited", status: 429 } });
      expect(out.usage.requests).toBe(3);
    });

    it("500 twice then success: retried with a growing backoff", async () => {
      h.script(mock.serverError(), mock.serverError(), mock.answer(CARD, { input: 10, output: 5 }));
      const out = await h.make().structured(cardRequest());
      expect(out).toMatchObject({ ok: true, value: CARD });
      expect(out.usage).toMatchObject({ requests: 3, inputTokens: 10, outputTokens: 5 });
      const [first, second] = h.waits();
      expect(first).toBeGreaterThanOrEqual(400);
      expect(first).toBeLessThanOrEqual(600);
      expect(second).toBeGreaterThanOrEqual(800);
      expect(second).toBeLessThanOrEqual(1200);
    });

    it("a persistent 500 is `unavailable` after 1 + retries requests", async () => {
      h.script(mock.serverError(), mock.serverError(), mock.serverError(), mock.serverError());
      const out = await h.make({ limits: { retries: 2 } }).structured(cardRequest());
      expect(out.ok).toBe(false);
      if (out.ok) return;
      expect(out.error.code).toBe("unavailable");
      if (h.http) expect(out.error.status).toBe(500);
      expect(out.usage.requests).toBe(3);
      expect(h.requests()).toBe(3);
      expect(h.waits()).toHaveLength(2);
    });

    it("529 (overloaded) is retried", async () => {
      h.script(mock.overloaded(), mock.answer(CARD));
      const out = await h.make().structured(cardRequest());
      expect(out).toMatchObject({ ok: true, value: CARD, usage: { requests: 2 } });
    });

    it("a hang is a timeout: retried, then `unavailable`", async () => {
      h.script(mock.hang(), mock.hang());
      const out = await h.make({ limits: { timeoutMs: 200, retries: 1 } }).structured(cardRequest());
      expect(out.ok).toBe(false);
      if (out.ok) return;
      expect(out.error.code).toBe("unavailable");
      expect(out.error.message).toMatch(/timeout/);
      expect(out.usage.requests).toBe(2);
      expect(h.requests()).toBe(2);
    });

    it("a timeout then an answer succeeds", async () => {
      h.script(mock.hang(), mock.answer(CARD));
      const out = await h.make({ limits: { timeoutMs: 200 } }).structured(cardRequest());
      expect(out).toMatchObject({ ok: true, value: CARD, usage: { requests: 2 } });
    });

    it("a slow answer within the timeout succeeds; one past it times out", async () => {
      h.script(mock.slow(30, CARD));
      const ok = await h.make({ limits: { timeoutMs: 1000 } }).structured(cardRequest());
      expect(ok).toMatchObject({ ok: true, value: CARD });
      h.script(mock.slow(5000, CARD));
      const late = await h.make({ limits: { timeoutMs: 200, retries: 0 } }).structured(cardRequest());
      expect(late).toMatchObject({ ok: false, error: { code: "unavailable" }, usage: { requests: 1 } });
    });

    it.runIf(h.http)("401 is `rejected` at once, and the message does not carry the key", async () => {
      const key = "sk-test-SECRET-0123456789abcdef";
      h.script(mock.unauthorized());
      const out = await h.make({ apiKey: key }).structured(cardRequest());
      expect(out.ok).toBe(false);
      if (out.ok) return;
      expect(out.error).toMatchObject({ code: "rejected", status: 401 });
      expect(out.error.message.length).toBeGreaterThan(0);
      expect(out.error.message).not.toContain(key);
      expect(out.error.message).not.toContain("SECRET");
      expect(out.usage.requests).toBe(1);
      expect(h.waits()).toEqual([]);
    });

    it("over budget: `over_budget` and nothing sent", async () => {
      const long = cardRequest({ messages: [{ role: "user", content: "x".repeat(4000) }] });
      const out = await h.make({ limits: { maxTokensPerRequest: 1000 } }).structured(long);
      expect(out).toMatchObject({ ok: false, error: { code: "over_budget" } });
      expect(out.usage).toEqual({ inputTokens: 0, outputTokens: 0, requests: 0, ms: 0 });
      expect(h.requests()).toBe(0);
      // The output tokens count too.
      const big = await h
        .make({ limits: { maxTokensPerRequest: 1000 } })
        .structured(cardRequest({ maxOutputTokens: 1000 }));
      expect(big).toMatchObject({ ok: false, error: { code: "over_budget" } });
      expect(h.requests()).toBe(0);
    });

    it("names its provider and model", () => {
      const m = h.make();
      expect(["openai", "anthropic", "workers-ai"]).toContain(m.provider);
      expect(m.model.length).toBeGreaterThan(0);
    });
  });
}
