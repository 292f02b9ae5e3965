/**
 * Review agents (Paper Circle C33) through REST and MCP in workerd: off by default (409 naming the
 * setting); with a model (OpenAI, mocked by mockFetch with answers built from the prompt) each kept
 * claim is an exact anchor of the version it quotes (POST /verify agrees), unverifiable claims and
 * reports without a claim are dropped and counted, reports are stored as notes, a retry writes nothing.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app";
import { MCP_PATH, serveMcp } from "../../src/mcp/http";
import { type Env, wire } from "../../src/wiring";
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
async function modelApi<T = any>(path: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await withModel.request(`http://paperguru.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

interface Asked {
  system: string;
  prompt: string;
  schema: { properties?: Record<string, unknown> } | undefined;
}

function model(script: Array<(a: Asked) => unknown>) {
  const seen: Asked[] = [];
  mockFetch({
    [CHAT]: async (req) => {
      const body = (await req.json()) as {
        messages: Array<{ role: string; content: string }>;
        response_format?: { json_schema?: { schema?: Asked["schema"] } };
      };
      const asked = {
        system: body.messages[0]?.content ?? "",
        prompt: body.messages[1]?.content ?? "",
        schema: body.response_format?.json_schema?.schema,
      };
      seen.push(asked);
      const next = script.shift();
      if (!next) throw new Error("the model was called more often than scripted");
      return Response.json({
        id: "chatcmpl-1",
        choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(next(asked)) } }],
        usage: { prompt_tokens: 300, completion_tokens: 90 },
      });
    },
  });
  return seen;
}

const PAPER = "paper:routing-memory";
const METHOD = `${PAPER}#s1-method`;
const METHOD_TEXT =
  "We route queries over chunk heads with personalized PageRank. The damping factor is 0.5 in every experiment. Contents are read only after routing.";

async function paperArchive() {
  const a = await newArchive("rvw");
  const r = await api(
    "POST",
    `/v1/archives/${a.id}/ingest`,
    {
      artifacts: [
        {
          id: PAPER,
          kind: "paper",
          title: "Routing Memory",
          content: "Routing memory keeps long-horizon agents on a small verified context.",
          valid_from: "2024-01-01",
        },
        {
          id: METHOD,
          kind: "section",
          title: "Routing Memory: Method",
          content: METHOD_TEXT,
          edges: [{ type: "part-of", target: PAPER }],
          valid_from: "2024-01-01",
        },
        { id: "note:other", kind: "note", title: "Other", content: "Unrelated text that is not part of it." },
      ],
    },
    a.key,
  );
  expect(r.status).toBe(200);
  return a;
}

const answer = () => ({
  reports: [
    {
      reviewer: "experiments",
      summary: "The routing idea is clear; the ablations are thin.",
      score: 6,
      confidence: 4,
      claims: [
        {
          kind: "weakness",
          text: "Only one damping value is tested.",
          source: METHOD,
          quote: "The damping factor is 0.5 in every experiment.",
        },
        {
          kind: "strength",
          text: "Reads contents lazily.",
          source: METHOD,
          quote: "Contents are read before routing and cached.",
        },
        {
          kind: "question",
          text: "Why this floor?",
          source: "note:other",
          quote: "Unrelated text that is not part of it.",
        },
      ],
    },
    {
      reviewer: "clarity",
      summary: "Hard to follow.",
      score: 3,
      confidence: 2,
      claims: [{ kind: "weakness", text: "Vague.", source: PAPER, quote: "a sentence the paper never wrote at all" }],
    },
  ],
});

describe("review agents", () => {
  it("answer 409 naming the setting when no model is configured, and write nothing", async () => {
    const a = await paperArchive();
    const res = await api("POST", `/v1/archives/${a.id}/reviewers`, { paper: PAPER }, a.key);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/no model configured: set DISTILLER or EXTRACTOR and LLM_\*/);
    const notes = await api("GET", `/v1/archives/${a.id}/chunks?boundary=review-report`, undefined, a.key);
    expect(notes.body.chunks).toEqual([]);
  });

  it("keep only claims anchored in the paper's exact versions, count the dropped, store the reports", async () => {
    const a = await paperArchive();
    const seen = model([answer]);
    const res = await modelApi(`/v1/archives/${a.id}/reviewers`, { paper: PAPER, reviewers: 2, focus: "ablations" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The model read the paper and its section (not the unrelated note), ids offered as an enum.
    expect(seen[0]?.prompt).toContain(`Source ${PAPER} (version 1):`);
    expect(seen[0]?.prompt).toContain(`Source ${METHOD} (version 1):`);
    expect(seen[0]?.prompt).not.toContain("Unrelated text");
    expect(seen[0]?.system).toContain("Focus: ablations");
    expect(JSON.stringify(seen[0]?.schema)).toContain(`"enum":["${PAPER}","${METHOD}"]`);
    expect(res.body.read).toEqual([
      { id: PAPER, version: 1 },
      { id: METHOD, version: 1 },
    ]);
    expect(res.body.reports).toHaveLength(1);
    const rep = res.body.reports[0];
    expect(rep).toMatchObject({ reviewer: "experiments", score: 6, confidence: 4, written: "created" });
    expect(rep.claims).toHaveLength(1);
    const start = METHOD_TEXT.indexOf("The damping factor");
    expect(rep.claims[0].anchor).toEqual({
      artifact_id: METHOD,
      version: 1,
      start,
      end: start + "The damping factor is 0.5 in every experiment.".length,
      snippet: "The damping factor is 0.5 in every experiment.",
    });
    expect(res.body.dropped_claims).toBe(3);
    expect(res.body.dropped.filter((x: { what: string }) => x.what === "item")).toHaveLength(1);
    const verified = await api("POST", `/v1/archives/${a.id}/verify`, { anchors: [rep.claims[0].anchor] }, a.key);
    expect(verified.body.all_verified).toBe(true);
    // Stored as a note introduced-by the paper, auto-generated until reviewed.
    const note = await api("GET", `/v1/archives/${a.id}/chunks/${encodeURIComponent(rep.id)}`, undefined, a.key);
    expect(note.status).toBe(200);
    expect(note.body.edges).toContainEqual(expect.objectContaining({ src: rep.id, type: "introduced-by", dst: PAPER }));
    const state = await api("GET", `/v1/archives/${a.id}/review?chunk=${encodeURIComponent(rep.id)}`, undefined, a.key);
    expect(state.body.status).toBe("auto-generated");
    // A retry proposes the same id and writes nothing new, dry run or not.
    model([answer]);
    const again = await modelApi(`/v1/archives/${a.id}/reviewers`, { paper: PAPER, reviewers: 2 });
    expect(again.body.reports[0]).toMatchObject({ id: rep.id, written: "existing" });
    model([answer]);
    const dry = await modelApi(`/v1/archives/${a.id}/reviewers`, {
      paper: METHOD.replace("#s1-method", ""),
      dry_run: true,
    });
    expect(dry.body.reports[0].written).toBe("existing");
  });

  it("refuse what is not a paper, and serve MCP's curate op", async () => {
    const a = await paperArchive();
    model([]);
    const bad = await modelApi(`/v1/archives/${a.id}/reviewers`, { paper: METHOD });
    expect(bad.status).toBe(404);
    expect(bad.body.error.field).toBe("paper");
    const fuzz = await modelApi(`/v1/archives/${a.id}/reviewers`, { paper: PAPER, reviewers: 9 });
    expect(fuzz.status).toBe(400);
    model([answer]);
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
          name: "curate",
          arguments: { archive: a.id, op: "reviewers", args: { paper: PAPER, dry_run: true } },
        },
      }),
    });
    const res = await serveMcp(req, modelApp);
    const out = (await res.json()) as { result: { content: Array<{ text: string }> } };
    const r = JSON.parse(out.result.content[0]?.text ?? "{}");
    expect(r.reports[0]).toMatchObject({ reviewer: "experiments", written: "dry_run" });
    expect(r.dropped_claims).toBeGreaterThan(0);
  });
});
