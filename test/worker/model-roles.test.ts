/**
 * The seed systems' model roles through REST, in workerd with real local D1 / R2: the Worker wired
 * with DISTILLER=openai against a mocked OpenAI endpoint (answers built from the prompt the model
 * was sent), and the default Worker (no model) for the 409. Proposals carry verified provenance and
 * go through each system's review path; a model failure writes nothing; a retry writes nothing new.
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

/** The Worker's use cases with a language model configured (OpenAI, mocked by mockFetch), and its REST app. */
const modelApp = wire({
  ...env,
  DISTILLER: "openai",
  LLM_BASE_URL: "https://api.openai.com/v1",
  LLM_MODEL: "mock-1",
  LLM_API_KEY: "sk-test",
} as unknown as Env);
const withModel = createApp(() => modelApp);

/** One MCP tools/call, with or without the model; the tool's result. */
// biome-ignore lint/suspicious/noExplicitAny: MCP results are inspected structurally in tests
async function mcpTool(model: boolean, name: string, args: Record<string, unknown>): Promise<any> {
  const req = new Request(`http://paperguru.test${MCP_PATH}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${ADMIN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const res = model ? await serveMcp(req, modelApp) : await WORKER.fetch(req);
  const body = (await res.json()) as { result: unknown };
  return body.result;
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected structurally in tests
async function modelApi<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await withModel.request(`http://paperguru.test${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

interface Asked {
  system: string;
  prompt: string;
  messages: Array<{ role: string; content: string }>;
  schema: string;
}

/**
 * The mocked chat endpoint: each call answers the next function of `script` with what the model was
 * asked; a number answers that HTTP status. Returns the requests it saw.
 */
function model(script: Array<((a: Asked) => unknown) | number>) {
  const seen: Asked[] = [];
  mockFetch({
    [CHAT]: async (req) => {
      const body = (await req.json()) as {
        messages: Array<{ role: string; content: string }>;
        response_format?: { json_schema?: { name?: string } };
      };
      const asked: Asked = {
        system: body.messages[0]?.content ?? "",
        prompt: body.messages[1]?.content ?? "",
        messages: body.messages,
        schema: body.response_format?.json_schema?.name ?? "",
      };
      seen.push(asked);
      const next = script.shift();
      if (next === undefined) throw new Error("the model was called more often than scripted");
      if (typeof next === "number")
        return Response.json(
          { error: { message: "invalid api key", type: "invalid_request_error" } },
          { status: next },
        );
      return Response.json({
        id: "chatcmpl-1",
        choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(next(asked)) } }],
        usage: { prompt_tokens: 120, completion_tokens: 40 },
      });
    },
  });
  return seen;
}

/** The turn ids of a commitments prompt, in order, with their roles. */
const turnIds = (prompt: string) => [...prompt.matchAll(/^\[turn (\S+)\] (\S+)$/gmu)].map((m) => m[1] as string);

const SESSION_EVENTS = [
  { role: "user", text: "Keep the heads in a Durable Object cache, one per archive.", at: "2025-01-10T09:00:00Z" },
  { role: "assistant", text: "Shall I evict at random, or by least recent use?", at: "2025-01-10T09:01:00Z" },
  {
    role: "user",
    text: "Evict the least recently used head first when the cache is full.",
    at: "2025-01-10T09:02:00Z",
  },
];

const goodAnswer = (a: Asked) => {
  const [first, , third] = turnIds(a.prompt);
  return {
    records: [
      {
        kind: "design",
        title: "Heads live in a Durable Object cache",
        content: "Each archive keeps its heads in one Durable Object cache.",
        design: "",
        evidence: [{ turn: first, quote: "Keep the heads in a Durable Object cache, one per archive." }],
      },
      {
        kind: "decision",
        title: "Evict least recently used heads",
        content: "When the cache is full, the least recently used head is evicted first.",
        design: "Heads live in a Durable Object cache",
        evidence: [{ turn: third, quote: "Evict the least recently used head   first" }],
      },
    ],
  };
};

async function sessionArchive() {
  const a = await newArchive("pgm");
  const s = await api("POST", `/v1/archives/${a.id}/sessions/s-1/events`, { events: SESSION_EVENTS });
  expect(s.status).toBe(200);
  return a;
}

describe("ProjectGuard commitments proposed by a model", () => {
  it("answers 409 naming the setting when no model is configured, and writes nothing", async () => {
    const a = await sessionArchive();
    const res = await api("POST", `/v1/archives/${a.id}/commitments/propose`, { session: "s-1" });
    expect(res.status).toBe(409);
    expect(res.body.error.type).toBe("conflict");
    expect(res.body.error.message).toMatch(/no model configured: set DISTILLER or EXTRACTOR and LLM_\*/);
    expect(res.body.error.message).toContain("docs/models.md");
    const list = await api("GET", `/v1/archives/${a.id}/chunks?kind=decision`);
    expect(list.body.chunks).toEqual([]);
  });

  it("proposes records with verified anchors into the review path; a retry writes nothing new", async () => {
    const a = await sessionArchive();
    const seen = model([goodAnswer, goodAnswer]);
    const res = await modelApi("POST", `/v1/archives/${a.id}/commitments/propose`, { session: "s-1", last: 10 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.schema).toBe("commitments");
    expect(turnIds(seen[0]?.prompt ?? "")).toHaveLength(3);
    expect(res.body.model).toBe("openai:mock-1");
    expect(res.body.usage).toMatchObject({ calls: 1, requests: 1, retries: 0, input_tokens: 120, output_tokens: 40 });
    expect(res.body.read.map((t: { role: string }) => t.role)).toEqual(["user", "assistant", "user"]);
    const [design, decision] = res.body.proposals;
    expect(design).toMatchObject({ kind: "design", status: "proposed", written: "created", part_of: null });
    expect(decision).toMatchObject({ kind: "decision", part_of: design.id, written: "created" });
    expect(decision.id).toMatch(/^decision:evict-least-recently-used-heads-[0-9a-f]{12}$/);
    // The whitespace the model changed is the turn's own text in the anchor.
    expect(decision.anchors[0].snippet).toBe("Evict the least recently used head first");

    // Every anchor verifies against the stored turn record.
    const anchors = res.body.proposals.flatMap((p: { anchors: unknown[] }) => p.anchors);
    const verified = await api("POST", `/v1/archives/${a.id}/verify`, { anchors });
    expect(verified.body.all_verified).toBe(true);

    // Stored: discussed-in edges to the turn records, the model as source, status proposed.
    const chunk = await api("GET", `/v1/archives/${a.id}/chunks/${encodeURIComponent(decision.id)}`);
    expect(chunk.status).toBe(200);
    const edges = JSON.stringify(chunk.body);
    expect(edges).toContain("discussed-in");
    expect(edges).toContain(decision.sources[0]);
    expect(edges).toContain("model:openai:mock-1");
    const turn = await api("GET", `/v1/archives/${a.id}/chunks/${encodeURIComponent(decision.sources[0])}`);
    expect(turn.body.kind).toBe("record");
    const notes = await api("GET", `/v1/archives/${a.id}/chunks/${encodeURIComponent(decision.id)}/annotations`);
    expect(notes.body.values.status.value).toBe("proposed");
    expect(notes.body.values.proposal.value).toMatchObject({ model: "openai:mock-1", sources: decision.sources });

    // Pending until accepted: the brief holds it back, then briefs it once committed.
    const brief = await api("POST", `/v1/archives/${a.id}/brief`, { request: "cache eviction of heads" });
    expect(brief.body.commitments).toEqual([]);
    expect(brief.body.held_back).toContainEqual({ id: decision.id, status: "proposed" });
    await api("POST", `/v1/archives/${a.id}/chunks/${encodeURIComponent(decision.id)}/annotations`, {
      key: "status",
      value: "committed",
    });
    const after = await api("POST", `/v1/archives/${a.id}/brief`, { request: "cache eviction of heads" });
    expect(after.body.commitments.map((c: { id: string }) => c.id)).toContain(decision.id);

    // The same answer again: the same ids, already there, nothing written (the commit stays).
    const again = await modelApi("POST", `/v1/archives/${a.id}/commitments/propose`, { session: "s-1", last: 10 });
    expect(again.body.proposals.map((p: { id: string; written: string }) => [p.id, p.written])).toEqual([
      [design.id, "existing"],
      [decision.id, "existing"],
    ]);
    const still = await api("GET", `/v1/archives/${a.id}/chunks/${encodeURIComponent(decision.id)}/annotations`);
    expect(still.body.values.status.value).toBe("committed");
    expect((await api("GET", `/v1/archives/${a.id}/chunks?kind=decision`)).body.chunks).toHaveLength(1);
  });

  it("retries once when the answer cites an unread turn or misquotes, dropping what does not verify", async () => {
    const a = await sessionArchive();
    const seen = model([
      () => ({
        records: [
          {
            kind: "decision",
            title: "Random eviction",
            content: "Evict at random.",
            design: "",
            evidence: [{ turn: "turn:s-9/1-00000000", quote: "Evict at random when the cache is full." }],
          },
        ],
      }),
      (asked) => {
        const ids = turnIds(asked.prompt);
        return {
          records: [
            {
              kind: "decision",
              title: "Evict least recently used heads",
              content: "Least recently used first.",
              design: "",
              evidence: [{ turn: ids[2], quote: "Evict the least recently used head first" }],
            },
            {
              kind: "decision",
              title: "Paraphrase",
              content: "x",
              design: "",
              evidence: [{ turn: ids[1], quote: "evict heads randomly or by recency" }],
            },
          ],
        };
      },
    ]);
    const res = await modelApi("POST", `/v1/archives/${a.id}/commitments/propose`, { session: "s-1" });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(2);
    expect(seen[1]?.messages.at(-1)?.content).toMatch(/a turn it was not given/);
    expect(res.body.usage).toMatchObject({ calls: 2, retries: 1, input_tokens: 240 });
    expect(res.body.proposals.map((p: { title: string }) => p.title)).toEqual(["Evict least recently used heads"]);
    expect(res.body.dropped).toContainEqual(expect.objectContaining({ title: "Paraphrase", what: "item" }));
  });

  it("a model failure is a 503 naming it, and nothing is written", async () => {
    const a = await sessionArchive();
    model([401]);
    const res = await modelApi("POST", `/v1/archives/${a.id}/commitments/propose`, { session: "s-1" });
    expect(res.status).toBe(503);
    expect(res.body.error.message).toMatch(/the model failed \(rejected\).*nothing was written/);
    expect(res.body.error.hint).toMatch(/LLM_API_KEY/);
    expect((await api("GET", `/v1/archives/${a.id}/chunks`)).body.chunks).toEqual([]);
  });

  it("dry_run proposes without writing; turn records named by id are read at as_of", async () => {
    const a = await newArchive("pgm");
    const ing = await api("POST", `/v1/archives/${a.id}/ingest`, {
      artifacts: SESSION_EVENTS.map((e, i) => ({
        id: `chat/t${i}`,
        kind: "record",
        title: `${e.role} turn`,
        content: e.text,
        boundaries: [`role:${e.role}`],
        valid_from: e.at,
      })),
    });
    expect(ing.status).toBe(200);
    const seen = model([goodAnswer]);
    const res = await modelApi("POST", `/v1/archives/${a.id}/commitments/propose`, {
      turns: ["chat/t2", "chat/t0", "chat/t1"],
      dry_run: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(turnIds(seen[0]?.prompt ?? "")).toEqual(["chat/t0", "chat/t1", "chat/t2"]);
    expect(res.body.proposals.map((p: { written: string }) => p.written)).toEqual(["dry_run", "dry_run"]);
    expect(res.body.proposals[1].sources).toEqual(["chat/t2"]);
    const verified = await api("POST", `/v1/archives/${a.id}/verify`, { anchors: res.body.proposals[1].anchors });
    expect(verified.body.all_verified).toBe(true);
    expect((await api("GET", `/v1/archives/${a.id}/chunks?kind=decision`)).body.chunks).toEqual([]);

    const missing = await modelApi("POST", `/v1/archives/${a.id}/commitments/propose`, { turns: ["chat/nope"] });
    expect(missing.status).toBe(404);
    const both = await modelApi("POST", `/v1/archives/${a.id}/commitments/propose`, {
      turns: ["chat/t0"],
      session: "s",
    });
    expect(both.status).toBe(400);
  });

  it("is the curate tool's commitments op over MCP; without a model the tool fails naming the setting", async () => {
    const a = await sessionArchive();
    const off = await mcpTool(false, "curate", { archive: a.id, op: "commitments", args: { session: "s-1" } });
    expect(off.isError).toBe(true);
    expect(JSON.stringify(off.content)).toMatch(/no model configured: set DISTILLER or EXTRACTOR/);
    model([goodAnswer]);
    const on = await mcpTool(true, "curate", {
      archive: a.id,
      op: "commitments",
      args: { session: "s-1", dry_run: true },
    });
    expect(on.isError ?? false, JSON.stringify(on)).toBe(false);
    expect(on.structuredContent.proposals).toHaveLength(2);
    expect(on.structuredContent.usage.calls).toBe(1);
    const xkg = await mcpTool(false, "curate", { archive: a.id, op: "techniques", args: { paper: "paper:x" } });
    expect(JSON.stringify(xkg.content)).toMatch(/no model configured/);
    const sgmc = await mcpTool(false, "curate", { archive: a.id, op: "critique", args: { node: "n", request: "r" } });
    expect(JSON.stringify(sgmc.content)).toMatch(/no model configured/);
  });
});

/** The ids a techniques prompt lists, by kind. */
const listed = (prompt: string, kind: "section" | "unit") =>
  [...prompt.matchAll(new RegExp(`^\\[${kind} (\\S+)\\]`, "gmu"))].map((m) => m[1] as string);

const PAPER = "paper:ccs";
const PAPER_ARTIFACTS = [
  {
    id: PAPER,
    kind: "paper",
    title: "Discovering Latent Knowledge in Language Models Without Supervision",
    content: "We propose Contrast-Consistent Search (CCS), an unsupervised way to find truth directions.",
  },
  {
    id: `${PAPER}#s2-method`,
    kind: "section",
    title: "Method",
    content:
      "We build contrast pairs from each yes-no question. We then learn a probe whose probabilities on the two halves of a pair sum to one, and which is confident.",
    edges: [{ type: "part-of", target: PAPER }],
  },
  {
    id: `${PAPER}#t:ccs#code`,
    kind: "code_unit",
    title: "CCS (implementation)",
    content: "import torch\n\ndef ccs_loss(p0, p1):\n    return ((p0 - (1 - p1)) ** 2).mean()\n",
    boundaries: ["xkg:code"],
    edges: [{ type: "part-of", target: PAPER }],
  },
  {
    id: "gh:acme/ccs/probe.py",
    kind: "code_unit",
    title: "probe.py",
    content: "class LinearProbe:\n    def __init__(self, dim):\n        self.dim = dim\n",
    valid_from: "2024-01-01T00:00:00Z",
  },
];

const techniqueAnswer = (a: Asked) => {
  const [, method] = listed(a.prompt, "section");
  const units = listed(a.prompt, "unit");
  return {
    techniques: [
      {
        name: "Contrast-Consistent Search",
        type: "Methodology",
        description: "Learns a probe whose probabilities on the two halves of a contrast pair sum to one.",
        parent: "",
        evidence: [
          { section: method, quote: "learn a probe whose probabilities on the two halves of a pair sum to one" },
        ],
        code: [
          { unit: units.find((u) => u.endsWith("#code")), quote: "def ccs_loss(p0, p1):" },
          { unit: "gh:acme/ccs/probe.py", quote: "class LinearProbe:" },
        ],
      },
      {
        name: "Contrast pairs",
        type: "Technique",
        description: "Each yes-no question becomes a pair of statements.",
        parent: "Contrast-Consistent Search",
        evidence: [{ section: method, quote: "We build contrast pairs from each yes-no question." }],
        code: [],
      },
      {
        name: "Invented",
        type: "Technique",
        description: "Not in the paper.",
        parent: "",
        evidence: [{ section: "paper:elsewhere#s1", quote: "We build contrast pairs from each yes-no question." }],
        code: [],
      },
    ],
  };
};

describe("xKG techniques proposed by a model", () => {
  it("answers 409 naming the setting when no model is configured", async () => {
    const a = await newArchive("xkgm");
    const res = await api("POST", `/v1/archives/${a.id}/techniques/propose`, { paper: PAPER });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/no model configured: set DISTILLER or EXTRACTOR and LLM_\*/);
  });

  it("ingests techniques part-of the paper, discussed-in their sections, implemented by the linked code", async () => {
    const a = await newArchive("xkgm");
    expect((await api("POST", `/v1/archives/${a.id}/ingest`, { artifacts: PAPER_ARTIFACTS })).status).toBe(200);
    const seen = model([techniqueAnswer, techniqueAnswer]);
    const body = { paper: PAPER, code_prefix: "gh:acme/ccs/" };
    const res = await modelApi("POST", `/v1/archives/${a.id}/techniques/propose`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(seen).toHaveLength(1);
    expect(listed(seen[0]?.prompt ?? "", "section")).toEqual([PAPER, `${PAPER}#s2-method`]);
    expect(listed(seen[0]?.prompt ?? "", "unit").sort()).toEqual(["gh:acme/ccs/probe.py", `${PAPER}#t:ccs#code`]);
    expect(res.body.read.code_units).toHaveLength(2);
    const [ccs, pairs] = res.body.proposals;
    expect(res.body.proposals).toHaveLength(2);
    expect(res.body.dropped).toContainEqual(expect.objectContaining({ title: "Invented", what: "item" }));
    expect(ccs).toMatchObject({ type: "Methodology", parent: null, written: "created" });
    expect(ccs.id).toMatch(/^paper:ccs#mt:contrast-consistent-search-[0-9a-f]{12}$/);
    expect(pairs.parent).toBe(ccs.id);
    expect(ccs.code.map((c: { id: string }) => c.id).sort()).toEqual(["gh:acme/ccs/probe.py", `${PAPER}#t:ccs#code`]);
    const anchors = [...ccs.anchors, ...ccs.code.map((c: { anchor: unknown }) => c.anchor), ...pairs.anchors];
    expect((await api("POST", `/v1/archives/${a.id}/verify`, { anchors })).body.all_verified).toBe(true);

    // The technique: part-of the paper, discussed-in the section, the model as source.
    const t = await api("GET", `/v1/archives/${a.id}/chunks/${encodeURIComponent(ccs.id)}`);
    const text = JSON.stringify(t.body);
    expect(t.body.kind).toBe("technique");
    expect(text).toContain("discussed-in");
    expect(text).toContain("model:openai:mock-1");
    // The code link: an implements edge on the code unit's next version, not yet reviewed.
    const code = await api("GET", `/v1/archives/${a.id}/chunks/${encodeURIComponent("gh:acme/ccs/probe.py")}`);
    expect(
      code.body.edges.some(
        (e: { type: string; dst: string; valid_to: string | null }) =>
          e.type === "implements" && e.dst === ccs.id && e.valid_to === null,
      ),
    ).toBe(true);
    const review = await api(
      "GET",
      `/v1/archives/${a.id}/review?from=${encodeURIComponent("gh:acme/ccs/probe.py")}&type=implements&to=${encodeURIComponent(ccs.id)}`,
    );
    expect(review.body).toMatchObject({ status: "auto-generated", edge: { exists: true } });
    const grounding = await api("GET", `/v1/archives/${a.id}/metrics/grounding?kind=technique`);
    expect(grounding.body).toMatchObject({ total: 2, grounded: 1 });

    // Again: the same ids, nothing written, no further code versions.
    const before = code.body.versions.length;
    expect(before).toBe(2);
    const again = await modelApi("POST", `/v1/archives/${a.id}/techniques/propose`, body);
    expect(again.body.proposals.map((p: { written: string }) => p.written)).toEqual(["existing", "existing"]);
    const after = await api("GET", `/v1/archives/${a.id}/chunks/${encodeURIComponent("gh:acme/ccs/probe.py")}`);
    expect(after.body.versions.length).toBe(before);
  });

  it("a model failure writes nothing; an unknown paper is a 404", async () => {
    const a = await newArchive("xkgm");
    await api("POST", `/v1/archives/${a.id}/ingest`, { artifacts: PAPER_ARTIFACTS });
    model([401]);
    const res = await modelApi("POST", `/v1/archives/${a.id}/techniques/propose`, { paper: PAPER });
    expect(res.status).toBe(503);
    expect((await api("GET", `/v1/archives/${a.id}/chunks?kind=technique`)).body.chunks).toEqual([]);
    const missing = await modelApi("POST", `/v1/archives/${a.id}/techniques/propose`, { paper: "paper:none" });
    expect(missing.status).toBe(404);
  });
});

describe("SGMC feedback proposed from a model's critique", () => {
  const NODE = "rev/retrieval";
  const DRAFT_TEXT = "Dense retrievers beat BM25 everywhere. HippoRAG improves recall by 30 points over ColBERTv2.";

  async function draftArchive() {
    const a = await newArchive("sgmcm");
    const src = {
      id: "arxiv:2405.14831",
      kind: "paper",
      title: "HippoRAG",
      content: "On multi-hop QA it improves recall@5 by up to 20 points over ColBERTv2.",
    };
    await api("POST", `/v1/archives/${a.id}/ingest`, {
      artifacts: [
        src,
        { id: NODE, kind: "section", title: "Retrieval", content: "Retrieval methods.", boundaries: ["outline"] },
      ],
    });
    const quote = "improves recall@5 by up to 20 points";
    const start = src.content.indexOf(quote);
    const anchor = { artifact_id: src.id, version: 1, start, end: start + quote.length, snippet: quote };
    const d = await api("POST", `/v1/archives/${a.id}/drafts`, { node: NODE, text: DRAFT_TEXT, evidence: [anchor] });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    return a;
  }

  const critique = () => ({
    feedback: [
      {
        title: "Check each number against its cited passage",
        text: "The source says up to 20 points at recall@5, not 30.",
        category: "citation",
        quotes: ["HippoRAG improves recall by 30 points"],
      },
      {
        title: "Qualify absolute claims",
        text: "No cited evidence supports 'everywhere'.",
        category: "accuracy",
        quotes: ["beat BM25 on all benchmarks"],
      },
    ],
  });

  it("answers 409 naming the setting when no model is configured", async () => {
    const a = await draftArchive();
    const res = await api("POST", `/v1/archives/${a.id}/feedback/propose`, { node: NODE, request: "Check citations." });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/no model configured: set DISTILLER or EXTRACTOR and LLM_\*/);
  });

  it("proposes feedback records anchored in the draft, which Eq. 12 selects only once a user verifies them", async () => {
    const a = await draftArchive();
    const seen = model([critique, critique]);
    const body = { node: NODE, request: "Check that every number matches its citation.", scope: "agent:drafter" };
    const res = await modelApi("POST", `/v1/archives/${a.id}/feedback/propose`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(seen[0]?.prompt).toContain(DRAFT_TEXT);
    expect(seen[0]?.prompt).toContain("improves recall@5 by up to 20 points");
    expect(res.body.read).toEqual({ draft: `${NODE}#draft`, version: 1, evidence: ["arxiv:2405.14831"] });
    expect(res.body.proposals).toHaveLength(1);
    const [fb] = res.body.proposals;
    expect(fb).toMatchObject({ category: "citation", status: "auto-generated", written: "created" });
    expect(fb.id).toMatch(/^rev\/retrieval#draft\/feedback-[0-9a-f]{12}$/);
    expect(res.body.dropped).toContainEqual(
      expect.objectContaining({ title: "Qualify absolute claims", what: "item" }),
    );
    expect((await api("POST", `/v1/archives/${a.id}/verify`, { anchors: fb.anchors })).body.all_verified).toBe(true);
    const chunk = await api("GET", `/v1/archives/${a.id}/chunks/${encodeURIComponent(fb.id)}`);
    expect(chunk.body.kind).toBe("note");
    expect(JSON.stringify(chunk.body)).toContain("introduced-by");
    expect(chunk.body.versions[0].boundaries).toEqual(
      expect.arrayContaining(["feedback", "agent:drafter", "feedback:citation"]),
    );

    // Pending: not a candidate until verified.
    const select = () => api("POST", `/v1/archives/${a.id}/feedback/select`, { scope: "agent:drafter" });
    expect((await select()).body).toMatchObject({ records: 0, pending_proposals: 1, selected: null });
    const verified = await api("POST", `/v1/archives/${a.id}/review`, { op: "verify", chunk: fb.id });
    expect(verified.status).toBe(201);
    expect((await select()).body).toMatchObject({ records: 1, pending_proposals: 0, selected: { id: fb.id } });

    // A retry: the same id, nothing new.
    const again = await modelApi("POST", `/v1/archives/${a.id}/feedback/propose`, body);
    expect(again.body.proposals.map((p: { id: string; written: string }) => [p.id, p.written])).toEqual([
      [fb.id, "existing"],
    ]);
  });

  it("a model failure writes nothing; a node without a draft is a 404", async () => {
    const a = await draftArchive();
    model([401]);
    const res = await modelApi("POST", `/v1/archives/${a.id}/feedback/propose`, { node: NODE, request: "x" });
    expect(res.status).toBe(503);
    expect((await api("POST", `/v1/archives/${a.id}/feedback/select`, {})).body).toMatchObject({
      records: 0,
      pending_proposals: 0,
    });
    const none = await modelApi("POST", `/v1/archives/${a.id}/feedback/propose`, { node: "rev/none", request: "x" });
    expect(none.status).toBe(404);
  });
});
