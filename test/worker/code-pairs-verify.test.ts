/**
 * xKG's verifier (seed 003 §2.4) on POST /code-pairs `verify: true`, through REST in workerd: the
 * Worker wired with DISTILLER=openai against a mocked OpenAI endpoint whose verdicts are built from
 * the prompt it was sent. Kept pairs come back in the verifier's order with its reasons, dropped ones
 * are listed; ids the model invents and second verdicts are ignored; without a model, a 409.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app";
import { MCP_PATH, serveMcp } from "../../src/mcp/http";
import { type Env, wire } from "../../src/wiring";
import { mockFetch } from "./fetch-guard";
import { ADMIN, api, newArchive } from "./helpers";
import { WORKER } from "./worker";

const CHAT = "https://api.openai.com/v1/chat/completions";
const modelApp = wire({
  ...env,
  DISTILLER: "openai",
  LLM_BASE_URL: "https://api.openai.com/v1",
  LLM_MODEL: "mock-1",
  LLM_API_KEY: "sk-test",
} as unknown as Env);
const withModel = createApp(() => modelApp);

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected structurally in tests
async function modelApi(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await withModel.request(`http://paperguru.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** The candidates a verifier prompt lists: pair id -> technique id, in order. */
function candidates(prompt: string): Array<{ pair: string; technique: string }> {
  return [...prompt.matchAll(/^## (p\d+)\n<?.*?^\[technique (\S+)\]/gmsu)].map((m) => ({
    pair: m[1] as string,
    technique: m[2] as string,
  }));
}

/** The mocked chat endpoint answering `script` in order (a number answers that HTTP status); the prompts. */
function model(script: Array<((prompt: string) => unknown) | number>) {
  const seen: string[] = [];
  mockFetch({
    [CHAT]: async (req) => {
      const body = (await req.json()) as { messages: Array<{ role: string; content: string }> };
      const prompt = body.messages[1]?.content ?? "";
      seen.push(prompt);
      const next = script.shift();
      if (next === undefined) throw new Error("the model was called more often than scripted");
      if (typeof next === "number")
        return Response.json(
          { error: { message: "invalid api key", type: "invalid_request_error" } },
          { status: next },
        );
      return Response.json({
        id: "chatcmpl-1",
        choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(next(prompt)) } }],
        usage: { prompt_tokens: 200, completion_tokens: 50 },
      });
    },
  });
  return seen;
}

async function importXkg(archive: string, doc: unknown) {
  const res = await WORKER.fetch(`http://paperguru.test/v1/archives/${archive}/import?format=xkg&name=kg.json`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "text/plain" },
    body: JSON.stringify(doc),
  });
  expect(res.status).toBe(200);
}

const code = (implementation: string, documentation: string) => ({
  implementation,
  test: "",
  documentation,
  package: [],
});

const KG = [
  {
    paper_title: "Classifier-Free Diffusion Guidance",
    paper_abstract: "Guidance for diffusion models without a classifier.",
    techniques: [
      {
        name: "Classifier-free guidance sampling",
        description: "Combine the conditional and unconditional noise predictions with a guidance weight.",
        weight: 1,
        code: code(
          "def guided_eps(eps_cond, eps_uncond, w):\n    return (1 + w) * eps_cond - w * eps_uncond\n",
          "Mixes conditional and unconditional predictions.",
        ),
        components: [
          {
            name: "Conditioning dropout",
            description: "Drop the class label with a fixed probability during training.",
            weight: 0.5,
            code: null,
            components: [],
          },
        ],
      },
    ],
  },
  {
    paper_title: "Rethinking Experience Replay",
    paper_abstract: "Tricks for rehearsal-based continual learning.",
    techniques: [
      {
        name: "Reservoir sampling buffer",
        description: "Keep a fixed-size memory of past examples, each kept with equal probability.",
        weight: 1,
        code: code(
          "def reservoir_add(buffer, item, seen, size):\n    buffer.append(item)\n",
          "Reservoir sampling into a replay buffer.",
        ),
        components: [],
      },
    ],
  },
];

const QUERY = { query: "classifier-free guidance: mix conditional and unconditional predictions", threshold: -1 };

describe("POST /code-pairs verify: true (xKG's verifier)", () => {
  it("answers 409 naming the setting when no model is configured", async () => {
    const { id, key } = await newArchive("verify");
    const res = await api("POST", `/v1/archives/${id}/code-pairs`, { ...QUERY, verify: true }, key);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/no model configured: set DISTILLER/);
    expect(res.body.error.field).toBe("model");
    // verify: false (the default) needs no model.
    expect((await api("POST", `/v1/archives/${id}/code-pairs`, { ...QUERY, verify: false }, key)).status).toBe(200);
  });

  it("keeps, drops and reorders the pairs; invented ids and second verdicts are ignored", async () => {
    const { id } = await newArchive("verify");
    for (const doc of KG) await importXkg(id, doc);
    const plain = await api("POST", `/v1/archives/${id}/code-pairs`, QUERY);
    expect(plain.status).toBe(200);
    expect(plain.body.verifier).toBeUndefined();
    const routed = (plain.body.pairs as Array<{ technique: { id: string } }>).map((p) => p.technique.id);
    expect(routed.length).toBe(3);

    let listed: Array<{ pair: string; technique: string }> = [];
    const seen = model([
      (prompt) => {
        listed = candidates(prompt);
        const find = (suffix: string) => listed.find((c) => c.technique.endsWith(suffix))?.pair as string;
        return {
          pairs: [
            // The dropout component (no code) first, then guidance sampling; the reservoir is noise.
            { pair: find("/conditioning-dropout"), keep: true, reason: "The training half of guidance." },
            { pair: "p99", keep: true, reason: "An id the model made up." },
            { pair: find("#t:classifier-free-guidance-sampling"), keep: true, reason: "Implements the mix." },
            { pair: find("/conditioning-dropout"), keep: false, reason: "A second verdict." },
            { pair: find("#t:reservoir-sampling-buffer"), keep: false, reason: "Replay buffers are unrelated." },
          ],
        };
      },
    ]);
    const res = await modelApi(`/v1/archives/${id}/code-pairs`, { ...QUERY, verify: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(seen.length).toBe(1);
    // The prompt lists every pair above the threshold in the router's order, with its code.
    expect(listed.map((c) => c.technique)).toEqual(routed);
    expect(seen[0]).toContain("def guided_eps(eps_cond, eps_uncond, w):");
    const ids = (res.body.pairs as Array<{ technique: { id: string }; verifier_reason: string }>).map(
      (p) => p.technique.id,
    );
    expect(ids).toEqual([
      expect.stringMatching(/\/conditioning-dropout$/),
      expect.stringMatching(/#t:classifier-free-guidance-sampling$/),
    ]);
    expect(res.body.pairs[1].verifier_reason).toBe("Implements the mix.");
    expect(res.body.pairs[1].code.id).toMatch(/#code$/);
    expect(res.body.verifier).toMatchObject({ model: "openai:mock-1", candidates: 3, kept: 2 });
    expect(res.body.verifier.dropped).toEqual([
      expect.objectContaining({
        technique: expect.stringMatching(/#t:reservoir-sampling-buffer$/),
        code: expect.stringMatching(/#code$/),
        reason: "Replay buffers are unrelated.",
      }),
    ]);
    expect(res.body.verifier.ignored).toEqual([
      { index: 1, pair: "p99", reason: '"p99" is not a candidate pair id' },
      expect.objectContaining({ index: 3, reason: expect.stringMatching(/a second verdict/) }),
    ]);
    // The code cap applies to what the verifier kept, in its order.
    model([
      (prompt) => ({
        pairs: candidates(prompt).map((c) => ({
          pair: c.pair,
          keep: !c.technique.includes("reservoir"),
          reason: "ok",
        })),
      }),
    ]);
    const capped = await modelApi(`/v1/archives/${id}/code-pairs`, { ...QUERY, verify: true, max_code_bytes: 10 });
    expect(capped.status).toBe(200);
    expect(capped.body.pairs.length).toBe(2);
    expect(capped.body.code_bytes).toBeLessThanOrEqual(10);
  });

  it("asks once more when every id is invented; drops pairs given no verdict; a model failure is a 503", async () => {
    const { id } = await newArchive("verify");
    for (const doc of KG) await importXkg(id, doc);
    const seen = model([
      () => ({ pairs: [{ pair: "pair-1", keep: true, reason: "made up" }] }),
      (prompt) => ({ pairs: [{ pair: candidates(prompt)[0]?.pair, keep: true, reason: "The best match." }] }),
    ]);
    const res = await modelApi(`/v1/archives/${id}/code-pairs`, { ...QUERY, verify: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(seen.length).toBe(2);
    expect(seen[1]).toBe(seen[0]);
    expect(res.body.pairs.length).toBe(1);
    expect(res.body.verifier.kept).toBe(1);
    expect(res.body.verifier.usage).toMatchObject({ calls: 2, retries: 1 });
    expect(res.body.verifier.dropped.map((x: { reason: string }) => x.reason)).toEqual([
      "the verifier gave it no verdict",
      "the verifier gave it no verdict",
    ]);

    model([401]);
    const failed = await modelApi(`/v1/archives/${id}/code-pairs`, { ...QUERY, verify: true });
    expect(failed.status).toBe(503);
    expect(failed.body.error.message).toMatch(/the model failed/);
  });

  it("is the research tool's code_pairs op over MCP", async () => {
    const { id } = await newArchive("verify");
    for (const doc of KG) await importXkg(id, doc);
    model([(prompt) => ({ pairs: candidates(prompt).map((c) => ({ pair: c.pair, keep: false, reason: "noise" })) })]);
    const req = new Request(`http://paperguru.test${MCP_PATH}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${ADMIN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "research", arguments: { archive: id, op: "code_pairs", args: { ...QUERY, verify: true } } },
      }),
    });
    const out = (await (await serveMcp(req, modelApp)).json()) as {
      result: { isError?: boolean; content: Array<{ text: string }> };
    };
    expect(out.result.isError ?? false).toBe(false);
    const body = JSON.parse(out.result.content[0]?.text ?? "null");
    expect(body.pairs).toEqual([]);
    expect(body.verifier).toMatchObject({ kept: 0, candidates: 3 });
    expect(body.verifier.dropped.length).toBe(3);
  });
});
