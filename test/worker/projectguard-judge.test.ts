/**
 * The bounded rubric judge (seed 002 §3.4, Prompt E) through the model port, against a mocked OpenAI
 * endpoint: the prompt carries the spec and at most `tool_calls` reads of the repository, a verdict
 * above 0 must name a read, and the scores calibrate against human scores.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app";
import { type Env, wire } from "../../src/wiring";
import { mockFetch } from "./fetch-guard";
import { ADMIN, api, newArchive } from "./helpers";

const CHAT = "https://api.openai.com/v1/chat/completions";
const withModel = createApp(() =>
  wire({
    ...env,
    DISTILLER: "openai",
    LLM_BASE_URL: "https://api.openai.com/v1",
    LLM_MODEL: "mock-1",
    LLM_API_KEY: "sk-test",
  } as unknown as Env),
);
// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected structurally in tests
async function modelApi(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await withModel.request(`http://paperguru.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
function model(script: Array<(prompt: string) => unknown>) {
  const seen: string[] = [];
  mockFetch({
    [CHAT]: async (req) => {
      const b = (await req.json()) as { messages: Array<{ role: string; content: string }> };
      const prompt = b.messages.map((m) => m.content).join("\n");
      seen.push(prompt);
      const next = script.shift();
      if (!next) throw new Error("the model was called more often than scripted");
      return Response.json({
        id: "c",
        choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(next(prompt)) } }],
        usage: { prompt_tokens: 50, completion_tokens: 10 },
      });
    },
  });
  return seen;
}

describe("the rubric judge", () => {
  it("scores specs from at most tool_calls reads; evidence must name a read", async () => {
    const { id, key } = await newArchive("pgjudge");
    const base = `/v1/archives/${id}`;
    const files = Array.from({ length: 10 }, (_, i) => ({
      id: `repo/m${i}.py`,
      kind: "code_unit",
      title: `m${i}.py`,
      content:
        i === 3
          ? "def attention_pool(x, w):\n    a = softmax(x @ w)\n    return (a * x).sum(0)\n"
          : `def helper_${i}():\n    return ${i}\n`,
      valid_from: "2025-01-01",
    }));
    await api(
      "POST",
      `${base}/ingest`,
      {
        artifacts: [
          ...files,
          {
            id: "decision:pool",
            kind: "decision",
            title: "Attention pooling",
            content: "Pool with attention.",
            valid_from: "2025-01-01",
          },
        ],
      },
      key,
    );
    await api(
      "POST",
      `${base}/projectguard/spec`,
      {
        record: "decision:pool",
        description: "attention_pool weights token states with softmax attention",
        formula: "h = sum_i softmax(x w)_i x_i",
        inputs: ["x"],
        outputs: ["h"],
        at: "2025-01-02",
      },
      key,
    );
    const seen = model([
      // A score above 0 without a read as evidence is asked once more.
      () => ({ score: 4, evidence: "somewhere", deviation: "none" }),
      () => ({ score: 4, evidence: "repo/m3.py:2", deviation: "none" }),
      () => ({ score: 0, evidence: "not found", deviation: "no ranking code" }),
    ]);
    const r = await modelApi(`${base}/projectguard/judge`, {
      components: [
        "decision:pool",
        { id: "c-rank", description: "reciprocal rank fusion of two rankings" },
        "decision:none",
      ],
      prefix: "repo/",
      tool_calls: 4,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(seen.length).toBe(3);
    expect(seen[0]).toContain("FORMULA: h = sum_i softmax(x w)_i x_i");
    expect(seen[0]).toContain("(4 of at most 4 tool calls)");
    expect(seen[0]).toContain("[read repo/m3.py]");
    expect([...(seen[0] ?? "").matchAll(/^\[read /gmu)].length).toBe(4);
    expect(seen[1]).toContain("needs evidence naming one of the reads");
    expect(r.body.scores).toEqual([
      expect.objectContaining({ component: "decision:pool", score: 4, evidence: "repo/m3.py:2" }),
      expect.objectContaining({ component: "c-rank", score: 0, evidence: "not found" }),
    ]);
    expect(r.body.scores[0].read.length).toBe(4);
    expect(r.body.dropped).toEqual([{ component: "decision:none", reason: expect.stringContaining("has no spec") }]);
    expect(r.body.usage.calls).toBe(3);

    const many = await modelApi(`${base}/projectguard/judge`, {
      components: ["decision:pool"],
      prefix: "repo/",
      tool_calls: 9,
    });
    expect(many.status).toBe(400);
    expect(many.body.error.field).toBe("tool_calls");
    const noModel = await api(
      "POST",
      `${base}/projectguard/judge`,
      { components: ["decision:pool"], prefix: "repo/" },
      key,
    );
    expect(noModel.status).toBe(409);
  });
});
