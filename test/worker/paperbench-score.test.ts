/**
 * POST /v1/archives/{archive}/paperbench/score in workerd: a rubric scored from grades (the
 * hand-computed fixture), the refusals (each a 400 naming the field), `missing` and `duplicate_ids`,
 * the leaf judge off by default (409 naming the setting) and, with a model configured (OpenAI,
 * mocked by mockFetch), judging the ungraded leaves with verified answers, a retry, an unusable
 * answer kept as missing, a provider failure as a 503, and the MCP op `paperbench_score`.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app";
import { MCP_PATH, serveMcp } from "../../src/mcp/http";
import { type Env, wire } from "../../src/wiring";
import MINI from "../fixtures/paperbench/mini.rubric.json";
import { mockFetch } from "./fetch-guard";
import { ADMIN, api, newArchive } from "./helpers";

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

/** The mocked chat endpoint: `answer(leaf id, prompt)` is the model's JSON (a number: that HTTP status). */
function model(answer: (leaf: string, prompt: string) => unknown) {
  const prompts: string[] = [];
  mockFetch({
    [CHAT]: async (req) => {
      const body = (await req.json()) as { messages: Array<{ role: string; content: string }> };
      const prompt = body.messages[1]?.content ?? "";
      prompts.push(prompt);
      const leaf = /\(leaf (\S+?)[,)]/.exec(prompt)?.[1] ?? "";
      const a = answer(leaf, body.messages.at(-1)?.content ?? "");
      if (typeof a === "number") return Response.json({ error: { message: "invalid api key" } }, { status: a });
      return Response.json({
        id: "chatcmpl-1",
        choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(a) } }],
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      });
    },
  });
  return prompts;
}

const GRADES = { "setup-data": 1, "setup-model": 0, "method-ppr": 1, "method-run": 0, results: 1 };
const path = (a: string) => `/v1/archives/${a}/paperbench/score`;
const leaf = (id: string, weight = 1) => ({ id, requirements: `req ${id}`, weight, sub_tasks: [] });

describe("POST /paperbench/score", () => {
  it("scores the rubric from grades, with every node's score and share", async () => {
    const { id, key } = await newArchive("pb");
    const r = await api("POST", path(id), { rubric: MINI, grades: GRADES }, key);
    expect(r.status).toBe(200);
    expect(r.body.score).toBeCloseTo(4.25 / 6, 12);
    expect(r.body).toMatchObject({ root: "root", nodes: 8, leaves: 5, graded: 5, judged: 0, missing: [] });
    const by = Object.fromEntries(r.body.breakdown.map((n: { id: string }) => [n.id, n]));
    expect(by.setup).toMatchObject({ score: 0.5, depth: 1, parent: "root", leaf: false, normalized_weight: 2 / 6 });
    expect(by.method).toMatchObject({ score: 0.75, normalized_weight: 0.5 });
    expect(by["method-ppr"]).toMatchObject({ score: 1, leaf: true, source: "grade", normalized_weight: 0.75 });
    expect(by["method-ppr"].contribution).toBeCloseTo(0.375, 12);
    expect(by["method-ppr"].path).toBe("rubric.sub_tasks.1.sub_tasks.0");
    // Code Development: setup-data, setup-model (1/6 each) and method-ppr (3/8); 1/6 + 3/8 of it met.
    expect(r.body.by_category["Code Development"].leaves).toBe(3);
    expect(r.body.by_category["Code Development"].contribution).toBeCloseTo(1 / 3 + 3 / 8, 12);
    expect(r.body.by_category["Code Development"].score).toBeCloseTo(1 / 6 + 3 / 8, 12);
    const sum = Object.values(r.body.by_category as Record<string, { score: number }>).reduce((s, c) => s + c.score, 0);
    expect(sum).toBeCloseTo(r.body.score, 12);

    // A subtree, and the breakdown cut at a depth.
    const sub = await api("POST", path(id), { rubric: MINI, grades: GRADES, root: "method", breakdown_depth: 0 }, key);
    expect(sub.body).toMatchObject({ score: 0.75, root: "method", nodes: 3, leaves: 2 });
    expect(sub.body.breakdown.map((n: { id: string }) => n.id)).toEqual(["method"]);
  });

  it("scores leaves without a grade 0 and lists them, or refuses them with missing: error", async () => {
    const { id, key } = await newArchive("pb");
    const r = await api("POST", path(id), { rubric: MINI, grades: { "method-ppr": 1 } }, key);
    expect(r.status).toBe(200);
    expect(r.body.score).toBeCloseTo(0.375, 12);
    expect(r.body.missing).toEqual(["setup-data", "setup-model", "method-run", "results"]);
    expect(r.body.breakdown.find((n: { id: string }) => n.id === "results")).toMatchObject({
      source: "missing",
      score: 0,
    });
    const e = await api("POST", path(id), { rubric: MINI, grades: { "method-ppr": 1 }, missing: "error" }, key);
    expect(e.status).toBe(400);
    expect(e.body.error.field).toBe("grades.setup-data");
    expect(e.body.error.message).toContain("4 leaves have no grade");
  });

  it("refuses bad input with a 400 naming the field, never a 500", async () => {
    const { id, key } = await newArchive("pb");
    const cases: Array<[unknown, string, string]> = [
      [{ rubric: { ...leaf("r"), sub_tasks: [leaf("a"), leaf("b", -1)] } }, "rubric.sub_tasks.1.weight", ">=0"],
      [{ rubric: { ...leaf("r"), sub_tasks: [leaf("a", 0), leaf("b", 0)] } }, "rubric.sub_tasks", "sum to 0"],
      [{ rubric: { ...leaf("r"), sub_tasks: [leaf("a"), leaf("a")] } }, "rubric.sub_tasks.1.id", "ids must be unique"],
      [{ rubric: MINI, grades: { nope: 1 } }, "grades.nope", "no node of the rubric"],
      [{ rubric: MINI, grades: { method: 1 } }, "grades.method", "has sub_tasks"],
      [{ rubric: MINI, grades: { results: 1.5 } }, "grades.results", "<=1"],
      [{ rubric: MINI, root: "nope" }, "root", "no node"],
      [
        { rubric: MINI, judge: { evidence: "x", evidence_by_leaf: { method: "y" } } },
        "judge.evidence_by_leaf.method",
        "has sub_tasks",
      ],
      [{ rubric: MINI, grade: {} }, "grade", "did you mean grades"],
      [
        { rubric: { ...leaf("r"), sub_tasks: [{ ...leaf("a"), score: 1 }] } },
        "rubric.sub_tasks.0.score",
        "Unrecognized",
      ],
    ];
    for (const [body, field, text] of cases) {
      const r = await api("POST", path(id), body, key);
      expect(r.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(r.body.error.field, JSON.stringify(r.body)).toBe(field);
      expect(r.body.error.message).toContain(text);
    }
    let deep: unknown = leaf("bottom");
    for (let i = 0; i < 5000; i++) deep = { ...leaf(`n${i}`), sub_tasks: [deep] };
    const d = await api("POST", path(id), { rubric: deep }, key);
    expect(d.status).toBe(400);
    expect(d.body.error.message).toContain("deeper than 64");
    // Repeated identical leaves may share one grade on request.
    const dup = { ...leaf("r"), sub_tasks: [{ ...leaf("m"), sub_tasks: [leaf("x"), leaf("y")] }, leaf("x")] };
    const shared = await api("POST", path(id), { rubric: dup, grades: { x: 1 }, duplicate_ids: "shared" }, key);
    expect(shared.status).toBe(200);
    expect(shared.body).toMatchObject({ score: 0.75, leaves: 3, graded: 2, missing: ["y"] });
    expect((await api("POST", path("no-such-archive"), { rubric: MINI })).status).toBe(404);
  });

  it("judges only with a configured model: a 409 naming the setting", async () => {
    const { id, key } = await newArchive("pb");
    const r = await api("POST", path(id), { rubric: MINI, judge: { evidence: "README" } }, key);
    expect(r.status).toBe(409);
    expect(r.body.error.field).toBe("model");
    expect(r.body.error.message).toContain("DISTILLER");
    // Every leaf graded: nothing to judge, no model needed.
    const all = await api("POST", path(id), { rubric: MINI, grades: GRADES, judge: { evidence: "x" } }, key);
    expect(all.status).toBe(200);
  });

  it("judges the ungraded leaves through the port, each answer verified", async () => {
    const { id } = await newArchive("pb");
    const verdicts: Record<string, unknown> = {
      "setup-model": { score: 1, reason: "The README loads the embedding model." },
      "method-run": { score: 0.5, reason: "Only part of the dev split was run." },
    };
    let retried = 0;
    const prompts = model((leafId, last) => {
      // results: first out of range (retried, naming why), then valid.
      if (leafId === "results") {
        if (last.includes("outside [0, 1]")) {
          retried++;
          return { score: 0, reason: "No recall table in the logs." };
        }
        return { score: 7, reason: "Out of range." };
      }
      return verdicts[leafId] ?? { score: 1, reason: "" };
    });
    const r = await modelApi(path(id), {
      rubric: MINI,
      grades: { "setup-data": 1, "method-ppr": 1 },
      judge: { evidence: "README: we load the model and run PPR.", evidence_by_leaf: { results: "logs: no table" } },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ graded: 2, judged: 3, missing: [] });
    expect(retried).toBe(1);
    // setup 1, method (3 + 0.5) / 4, results 0: (2 + 3·0.875 + 0) / 6.
    expect(r.body.score).toBeCloseTo((2 + 3 * 0.875) / 6, 12);
    const by = Object.fromEntries(r.body.breakdown.map((n: { id: string }) => [n.id, n]));
    expect(by["method-run"]).toMatchObject({
      source: "judge",
      score: 0.5,
      reason: "Only part of the dev split was run.",
    });
    expect(by["setup-data"]).toMatchObject({ source: "grade" });
    expect(r.body.judge).toMatchObject({ model: "openai:mock-1", calls: 4, retries: 1 });
    // Only the ungraded leaves were asked, each with its requirement, ancestors and evidence.
    expect(prompts.filter((p) => p.includes("(leaf setup-data")).length).toBe(0);
    const run = prompts.find((p) => p.includes("(leaf method-run")) ?? "";
    expect(run).toContain("The routing experiment has been run on the dev split");
    expect(run).toContain("- The routing method has been implemented");
    expect(run).toContain("README: we load the model and run PPR.");
    expect(prompts.find((p) => p.includes("(leaf results")) ?? "").toContain("logs: no table");

    // An empty reason twice: unusable, so the leaf is missing (0) with the reason why.
    model((leafId) => (leafId === "results" ? { score: 1, reason: " " } : { score: 1, reason: "Shown." }));
    const u = await modelApi(path(id), { rubric: MINI, grades: GRADES, judge: { evidence: "x" }, root: "root" });
    expect(u.status).toBe(200);
    const v = await modelApi(path(id), {
      rubric: MINI,
      grades: { ...GRADES, results: undefined },
      judge: { evidence: "x" },
    });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    expect(v.body.missing).toEqual(["results"]);
    expect(v.body.breakdown.find((n: { id: string }) => n.id === "results").reason).toContain("reason is missing");

    // A provider failure is a 503; too many leaves to judge a 400 before any call.
    model(() => 401);
    const f = await modelApi(path(id), { rubric: MINI, judge: { evidence: "x" } });
    expect(f.status).toBe(503);
    const many = await modelApi(path(id), { rubric: MINI, judge: { evidence: "x", max_leaves: 2 } });
    expect(many.status).toBe(400);
    expect(many.body.error.field).toBe("judge.max_leaves");
  });

  it("is the MCP research op paperbench_score", async () => {
    const { id } = await newArchive("pb");
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
        params: {
          name: "research",
          arguments: { archive: id, op: "paperbench_score", args: { rubric: MINI, grades: GRADES } },
        },
      }),
    });
    const res = (await (await serveMcp(req, modelApp)).json()) as {
      result: { structuredContent?: { score: number }; isError?: boolean };
    };
    expect(res.result.isError ?? false).toBe(false);
    expect(res.result.structuredContent?.score).toBeCloseTo(4.25 / 6, 12);
  });
});
