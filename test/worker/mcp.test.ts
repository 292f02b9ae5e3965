/**
 * The MCP server at /mcp, driven by the SDK's own Client over streamable HTTP (the transport's fetch
 * is the Worker's fetch handler (./worker), so requests reach the Worker without touching the network).
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { countTokens } from "../../src/core/text/tokenizer";
import { TOOLS } from "../../src/mcp/tools";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

const URL_MCP = "http://paperguru.test/mcp";
const open: Client[] = [];

async function connect(key: string | null): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(URL_MCP), {
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : {},
    fetch: (url, init) => WORKER.fetch(url, init),
  });
  const client = new Client({ name: "paperguru-test", version: "0.0.0" });
  await client.connect(transport);
  open.push(client);
  // As agents do: list the tools first.
  if (key) await client.listTools();
  return client;
}

afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

type Json = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: tool results are inspected structurally
type Any = any;

/** Calls a tool; returns the parsed JSON text, the structured content and the error flag. */
async function call(
  client: Client,
  name: string,
  args: Json,
): Promise<{ isError: boolean; json: Any; structured: Any }> {
  const res = await client.callTool({ name, arguments: args });
  const content = res.content as Array<{ type: string; text: string }>;
  expect(content[0]?.type).toBe("text");
  return {
    isError: res.isError === true,
    json: JSON.parse(content[0]?.text ?? "null"),
    structured: res.structuredContent,
  };
}

/** A successful call: the text is the structured result, and it matches the tool's output schema. */
async function ok(client: Client, name: string, args: Json): Promise<Any> {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.json)}`);
  expect(r.structured).toEqual(r.json);
  const schema = TOOLS.find((t) => t.name === name)?.output;
  const checked = schema?.safeParse(r.json);
  expect(checked?.success, `${name} output: ${JSON.stringify(checked?.error?.issues?.slice(0, 3))}`).toBe(true);
  return r.json;
}

async function toolError(
  client: Client,
  name: string,
  args: Json,
): Promise<{ type: string; message: string; field?: string; hint?: string }> {
  const r = await call(client, name, args);
  expect(r.isError, JSON.stringify(r.json)).toBe(true);
  expect(r.structured).toBeUndefined();
  return r.json.error;
}

const HIPPO = {
  id: "arxiv:2405.14831",
  kind: "paper",
  title: "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",
  content:
    "HippoRAG indexes a corpus by extracting open information extraction triples with an LLM, forming a schemaless knowledge graph. At query time, named entities in the question select seed nodes, and Personalized PageRank spreads probability over the graph. Passages are ranked by the PageRank mass of the nodes they contain. The method improves multi-hop retrieval on MuSiQue and 2WikiMultiHopQA over dense retrievers.",
  entities: [{ type: "method", id: "method:hipporag", name: "HippoRAG", aliases: ["Hippo RAG"] }],
  boundaries: ["task:multi-hop-qa"],
  edges: [{ type: "cites", target: "arxiv:2004.04906" }],
  valid_from: "2024-05-23",
  source: "https://arxiv.org/abs/2405.14831v1",
};

const DPR = {
  id: "arxiv:2004.04906",
  kind: "paper",
  title: "Dense Passage Retrieval for Open-Domain Question Answering",
  content:
    "Dense Passage Retrieval (DPR) trains two BERT encoders, one for questions and one for passages, so that relevant pairs have a high inner product. Training uses in-batch negatives plus one BM25 hard negative per question. At inference all passages are pre-encoded into a FAISS index. DPR outperforms a strong BM25 baseline in top-20 passage retrieval accuracy on several open-domain QA datasets.",
  entities: [{ type: "method", id: "method:dpr", name: "DPR", aliases: ["Dense Passage Retrieval"] }],
  boundaries: ["task:open-domain-qa"],
  valid_from: "2020-04-10T00:00:00Z",
  source: "https://arxiv.org/abs/2004.04906v1",
};

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const TOOL_NAMES = [
  "annotate",
  "context",
  "curate",
  "deprecate",
  "entity",
  "expand",
  "export",
  "forget",
  "history",
  "list",
  "neighbours",
  "project",
  "read",
  "remember",
  "research",
  "resolve",
  "route",
  "session",
  "verify",
];
const WRITERS = ["remember", "deprecate", "forget", "entity", "session", "annotate", "curate"];

describe("MCP: discovery", () => {
  it("lists the nineteen tools in at most 16 KB, with the arguments an agent needs", async () => {
    const { key } = await newArchive("mcp");
    const client = await connect(key);
    expect(client.getServerVersion()?.name).toBe("paperguru");
    expect(client.getInstructions()).toContain("context");
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(TOOL_NAMES);
    const schemaOf = (n: string) => {
      const t = byName.get(n);
      if (!t) throw new Error(`no tool ${n}`);
      return t.inputSchema;
    };
    const required = (n: string) => schemaOf(n).required ?? [];
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(required(t.name)).toContain("archive");
      expect(t.description?.length ?? 0).toBeGreaterThan(40);
      expect(t.title).toBeUndefined();
      // readOnlyHint is left out of writers: false is the MCP default.
      expect(t.annotations?.readOnlyHint ?? false, t.name).toBe(!WRITERS.includes(t.name));
      expect(t.annotations?.openWorldHint).toBe(false);
      if (!t.annotations?.readOnlyHint)
        expect(t.annotations?.destructiveHint, t.name).toBe(["forget", "deprecate"].includes(t.name));
    }
    expect(required("context")).toEqual(["archive", "query"]);
    expect(required("route")).toContain("query");
    expect(required("expand")).toContain("chunks");
    expect(required("verify")).toContain("anchors");
    expect(required("remember")).toContain("artifacts");
    expect(required("deprecate")).toContain("id");
    expect(required("neighbours")).toContain("chunk");
    expect(required("resolve")).toContain("mention");
    expect(required("history")).toEqual(["archive"]);
    expect(required("list")).toEqual(["archive", "of"]);
    expect(required("entity")).toEqual(["archive", "op", "entity"]);
    const budget = (schemaOf("context").properties as Json).budget_tokens as Json;
    expect(budget).toMatchObject({ type: "integer", default: 2000 });

    // The listing's size, as an agent's context pays it: the JSON-RPC response body.
    const res = await WORKER.fetch(URL_MCP, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    const bytes = new TextEncoder().encode(await res.text()).length;
    console.log(`mcp tools/list response: ${bytes} bytes for ${tools.length} tools`);
    expect(bytes).toBeLessThanOrEqual(16 * 1024);
  });

  it("a POST without the Accept header MCP requires is a 406 naming the header", async () => {
    const { key } = await newArchive("mcp");
    const res = await WORKER.fetch(URL_MCP, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(406);
    expect(await res.text()).toMatch(/Accept/i);
  });
});

describe("MCP: every tool, end to end", () => {
  it("remember, route, context (budget, as_of), expand, verify, revise, history, deprecate, neighbours, resolve", async () => {
    const { id, key } = await newArchive("mcp");
    const client = await connect(key);

    const stored = await ok(client, "remember", { archive: id, artifacts: [HIPPO, DPR] });
    expect(stored.counts).toEqual({ created: 2, updated: 0, unchanged: 0 });
    expect(stored.recorded_at).toMatch(ISO);
    const again = await ok(client, "remember", { archive: id, artifacts: [DPR] });
    expect(again.results).toEqual([{ id: DPR.id, status: "unchanged", version: 1 }]);

    const routed = await ok(client, "route", { archive: id, query: "How does HippoRAG use Personalized PageRank?" });
    expect(routed.as_of).toMatch(ISO);
    expect(routed.candidates[0].chunk).toBe(HIPPO.id);
    expect(Object.keys(routed.candidates[0].experts).sort()).toEqual(["graph", "lex", "rec", "sem", "sym", "thread"]);
    // The trace only when asked: it is most of a result's size.
    expect(routed.trace).toBeUndefined();
    const traced = await ok(client, "route", {
      archive: id,
      query: "How does HippoRAG use Personalized PageRank?",
      include_trace: true,
    });
    expect(traced.trace.mentions.map((m: Json) => m.entity)).toContain("method:hipporag");
    expect(JSON.stringify(routed).length).toBeLessThan(JSON.stringify(traced).length / 2);
    const sizes: string[] = [];
    for (const budget_tokens of [900, 2000, 4000]) {
      const q = { archive: id, query: "How does HippoRAG rank passages?", budget_tokens };
      const bare = await ok(client, "context", q);
      const full = await ok(client, "context", { ...q, include_trace: true });
      expect(bare.trace).toBeUndefined();
      expect(full.trace).toBeDefined();
      // Everything the agent reads (the whole text, cards in the prompt form) fits the budget.
      expect(countTokens(JSON.stringify(bare))).toBeLessThanOrEqual(budget_tokens);
      expect(bare.budget.remaining).toBe(
        budget_tokens - countTokens(JSON.stringify({ ...bare, budget: { ...bare.budget, remaining: 0 } })),
      );
      sizes.push(`${budget_tokens}: ${JSON.stringify(bare).length} / ${JSON.stringify(full).length}`);
    }
    console.log(`mcp context result characters without / with trace, by budget: ${sizes.join("; ")}`);

    const ctx = await ok(client, "context", {
      archive: id,
      query: "How does HippoRAG rank passages?",
      budget_tokens: 900,
      as_of: "2025-01-01",
    });
    expect(ctx.as_of).toBe("2025-01-01T00:00:00.000Z");
    expect(ctx.cards.length).toBeGreaterThan(0);
    expect(ctx.budget.total).toBe(900);
    expect(ctx.budget.cards).toBeLessThanOrEqual(900);
    const hippoCard = ctx.cards.find((c: Json) => c.artifact_id === HIPPO.id);
    expect(hippoCard.version).toBe(1);
    expect(hippoCard.anchored_spans.length).toBeGreaterThanOrEqual(2);
    // Without a budget: the 2,000-token default, as on REST and in the CLI.
    expect((await ok(client, "context", { archive: id, query: "HippoRAG" })).budget.total).toBe(2000);

    // Before HippoRAG existed, only DPR is visible.
    const early = await ok(client, "context", {
      archive: id,
      query: "How does HippoRAG rank passages?",
      budget_tokens: 900,
      as_of: "2022-01-01T00:00:00Z",
    });
    expect(early.cards.map((c: Json) => c.artifact_id)).not.toContain(HIPPO.id);

    const expanded = await ok(client, "expand", { archive: id, chunks: [{ id: DPR.id }], query: "BM25 negatives" });
    expect(expanded.cards.map((c: Json) => c.artifact_id)).toEqual([DPR.id]);
    expect(expanded.tokens).toBe(expanded.cards[0].tokens);

    const anchors = expanded.cards[0].anchored_spans;
    const verified = await ok(client, "verify", { archive: id, anchors });
    expect(verified.all_verified).toBe(true);
    expect(verified.results.every((r: Json) => r.reason === "ok")).toBe(true);
    // A context card's anchors in prompt form (no snippet, card's id and version implied): verify reads
    // the exact text back, which is what the claim quotes.
    const promptAnchors = hippoCard.anchored_spans.map((a: Json) => ({
      artifact_id: hippoCard.artifact_id,
      version: hippoCard.version,
      start: a.start,
      end: a.end,
    }));
    const readBack = await ok(client, "verify", { archive: id, anchors: promptAnchors });
    expect(readBack.all_verified).toBe(true);
    expect(readBack.results[0].text.length).toBe(promptAnchors[0].end - promptAnchors[0].start);
    expect(HIPPO.content.slice(promptAnchors[0].start, promptAnchors[0].end)).toBe(readBack.results[0].text);
    const tampered = await ok(client, "verify", {
      archive: id,
      anchors: [{ ...anchors[0], snippet: `${anchors[0].snippet}!` }],
    });
    expect(tampered.all_verified).toBe(false);
    expect(tampered.results[0].reason).toBe("snippet_mismatch");

    const revised = await ok(client, "remember", {
      archive: id,
      revise: true,
      artifacts: [
        {
          ...HIPPO,
          content: `${HIPPO.content} A revision adds recognition memory for filtering triples.`,
          valid_from: "2025-02-01",
        },
      ],
    });
    expect(revised.results).toEqual([{ id: HIPPO.id, status: "updated", version: 2 }]);

    const hist = await ok(client, "history", { archive: id, chunk: HIPPO.id });
    expect(hist.versions.map((v: Json) => v.version)).toEqual([1, 2]);
    expect(hist.versions[0].valid_from).toBe("2024-05-23T00:00:00.000Z");
    expect(hist.versions[0].valid_to).toBe("2025-02-01T00:00:00.000Z");
    expect(hist.versions[1].valid_from).toBe("2025-02-01T00:00:00.000Z");
    expect(hist.versions[1].valid_to).toBeNull();
    expect(hist.latest_version).toBe(2);
    // The version-1 anchors still read back after the revision (versions are immutable).
    expect((await ok(client, "verify", { archive: id, anchors: promptAnchors })).results[0].text).toBe(
      readBack.results[0].text,
    );
    const v1 = await ok(client, "read", { archive: id, chunk: HIPPO.id, version: 1, start: 0, end: 8 });
    expect(v1).toMatchObject({ version: 1, text: "HippoRAG", truncated: false });
    const listed = await ok(client, "list", { archive: id, of: "chunks", limit: 1 });
    expect(listed.chunks).toHaveLength(1);
    const rest2 = await ok(client, "list", { archive: id, of: "chunks", limit: 1, cursor: listed.next_cursor });
    expect(rest2.chunks[0].id).not.toBe(listed.chunks[0].id);
    expect(rest2.next_cursor).toBeNull();
    const ents = await ok(client, "list", { archive: id, of: "entities", prefix: "method:" });
    expect(ents.entities.map((e: Json) => e.id)).toEqual(["method:dpr", "method:hipporag"]);
    const bib = await ok(client, "export", { archive: id, format: "bibtex" });
    expect(bib.text).toContain("HippoRAG");
    expect((await ok(client, "export", { archive: id, format: "markdown", max_chars: 20 })).truncated).toBe(true);

    const dep = await ok(client, "deprecate", {
      archive: id,
      id: DPR.id,
      by: HIPPO.id,
      at: "2025-06-01",
      reason: "superseded in our notes",
    });
    expect(dep).toEqual({ deprecated: DPR.id, by: HIPPO.id, version: 1 });
    const depHist = await ok(client, "history", { archive: id, chunk: DPR.id });
    expect(depHist.deprecated_at).toBe("2025-06-01T00:00:00.000Z");
    expect(depHist.deprecation_reason).toBe("superseded in our notes");
    expect(depHist.edges.some((e: Json) => e.type === "deprecated-by" && e.dst === HIPPO.id)).toBe(true);

    const nb = await ok(client, "neighbours", { archive: id, chunk: HIPPO.id, as_of: "2025-03-01" });
    expect(nb.head.chunk).toBe(HIPPO.id);
    expect(nb.head.latest_version).toBe(2);
    expect(nb.head.first_valid_from).toBe("2024-05-23T00:00:00.000Z");
    expect(nb.neighbours).toContainEqual(expect.objectContaining({ chunk: DPR.id, type: "cites", direction: "out" }));
    const nbLater = await ok(client, "neighbours", { archive: id, chunk: DPR.id, as_of: "2025-07-01" });
    expect(nbLater.head.deprecated).toBe(true);
    expect(nbLater.head.end_at).toBe("2025-06-01T00:00:00.000Z");

    const res = await ok(client, "resolve", { archive: id, mention: "Hippo RAG" });
    expect(res.mention).toBe("Hippo RAG");
    expect(res.resolved.entity).toBe("method:hipporag");
    expect((await ok(client, "resolve", { archive: id, mention: "nothing like this" })).resolved).toBeNull();

    await ok(client, "entity", { archive: id, op: "alias", entity: "method:hipporag", name: "HPRAG" });
    expect((await ok(client, "resolve", { archive: id, mention: "HPRAG" })).resolved.entity).toBe("method:hipporag");
    await ok(client, "entity", { archive: id, op: "rename", entity: "method:hipporag", name: "HippoRAG 2" });
    const ent = await ok(client, "history", { archive: id, entity: "method:hipporag" });
    expect(ent.id).toBe("method:hipporag");
    expect(ent.name).toBe("HippoRAG 2");
    expect(ent.aliases.map((a: Json) => a.alias)).toEqual(expect.arrayContaining(["HippoRAG", "Hippo RAG"]));
    expect(ent.mentions.map((m: Json) => m.version)).toEqual([1, 2]);
    expect(ent.mentions[0].valid_from).toMatch(ISO);

    // The same store as REST: what MCP wrote, REST reads.
    const rest = await api("GET", `/v1/archives/${id}/history?chunk=${encodeURIComponent(HIPPO.id)}`, undefined, key);
    expect(rest.body.versions).toHaveLength(2);
  });
});

describe("MCP: context fits the budget it was given", () => {
  it("the whole result, envelope included, stays within budget_tokens on a crowded archive", async () => {
    const { id, key } = await newArchive("mcp-budget");
    const client = await connect(key);
    const notes = Array.from({ length: 40 }, (_, i) => ({
      id: `note:${i}`,
      kind: "note",
      title: `Damping study ${i}`,
      content: `Study ${i} sets the PageRank damping to 0.${50 + i}. It reports recall on multi-hop questions. The damping matters for hubs. We tried ${i} settings before this one.`,
    }));
    await ok(client, "remember", { archive: id, artifacts: notes });
    // Below the envelope's own size the budget is refused, naming the field.
    expect(
      await toolError(client, "context", { archive: id, query: "Which PageRank damping?", budget_tokens: 60 }),
    ).toMatchObject({ field: "budget_tokens" });
    // Nothing found: the note is in the envelope, and the envelope still fits the smallest budget.
    const none = await ok(client, "context", {
      archive: id,
      query: "Who won the 1998 FIFA World Cup final?",
      budget_tokens: 160,
    });
    expect(none.evidence.found).toBe(false);
    expect(countTokens(JSON.stringify(none))).toBeLessThanOrEqual(160);
    for (const budget_tokens of [160, 300, 900]) {
      const r = await ok(client, "context", { archive: id, query: "Which PageRank damping?", budget_tokens });
      const used = countTokens(JSON.stringify(r));
      expect(used, `budget ${budget_tokens}`).toBeLessThanOrEqual(budget_tokens);
      // Below one card plus the envelope nothing fits; from 300 tokens on there is evidence.
      if (budget_tokens >= 300) expect(r.cards.length).toBeGreaterThan(0);
      expect(r.omitted).toBeGreaterThan(0);
      expect(r.skipped).toBeUndefined();
    }
  });
});

describe("MCP: errors are tool errors with the REST error body", () => {
  it("not found, validation naming the field, conflict; the session survives", async () => {
    const { id, key } = await newArchive("mcp");
    const client = await connect(key);

    const nf = await toolError(client, "history", { archive: id, chunk: "no:such-chunk" });
    expect(nf).toMatchObject({ type: "not_found", field: "chunk" });
    expect(await toolError(client, "neighbours", { archive: id, chunk: "no:such-chunk" })).toMatchObject({
      type: "not_found",
      field: "chunk",
    });
    expect(await toolError(client, "remember", { archive: id, revise: true, artifacts: [DPR] })).toMatchObject({
      type: "not_found",
      field: "id",
    });
    expect(await toolError(client, "entity", { archive: id, op: "merge", entity: "method:x" })).toMatchObject({
      type: "validation",
      field: "into",
    });
    expect(await toolError(client, "read", { archive: id, chunk: "no:such-chunk" })).toMatchObject({
      type: "not_found",
    });
    expect(await toolError(client, "deprecate", { archive: id, id: "no:such-chunk" })).toMatchObject({
      type: "not_found",
    });

    const budget = await toolError(client, "context", { archive: id, query: "x", budget_tokens: 10 });
    expect(budget).toMatchObject({ type: "validation", field: "budget_tokens" });
    expect(budget.message).toMatch(/^budget_tokens: /);
    expect(budget.hint).toBeTruthy();
    expect(await toolError(client, "route", { archive: id, query: "x", as_of: "yesterday" })).toMatchObject({
      type: "validation",
      field: "as_of",
    });
    expect(
      await toolError(client, "remember", {
        archive: id,
        artifacts: [DPR, { ...HIPPO, valid_from: "23 May 2024" }],
      }),
    ).toMatchObject({ type: "validation", field: "artifacts.1.valid_from" });
    expect(await toolError(client, "route", { archive: id, query: "x", budget: 5 })).toMatchObject({
      type: "validation",
      field: "budget",
    });
    expect(await toolError(client, "history", { archive: id })).toMatchObject({ type: "validation", field: "chunk" });
    expect(await toolError(client, "route", { query: "x" })).toMatchObject({ type: "validation", field: "archive" });

    await ok(client, "remember", { archive: id, artifacts: [DPR] });
    expect(
      await toolError(client, "remember", {
        archive: id,
        revise: true,
        artifacts: [{ ...DPR, content: "older", valid_from: "2019-01-01" }],
      }),
    ).toMatchObject({ type: "conflict" });
    await ok(client, "deprecate", { archive: id, id: DPR.id });
    expect(await toolError(client, "deprecate", { archive: id, id: DPR.id })).toMatchObject({ type: "conflict" });

    // Unknown tools are protocol errors (not tool errors); the session still works afterwards.
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(/unknown tool nope/);
    expect((await ok(client, "history", { archive: id, chunk: DPR.id })).versions).toHaveLength(1);
  });
});

describe("MCP: authentication and archive isolation", () => {
  it("a missing or invalid key is an HTTP 401 with the REST error body, before any MCP handling", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "0" } },
    };
    const post = (headers: Record<string, string>) =>
      WORKER.fetch(URL_MCP, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(init),
      });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await none.json()).toMatchObject({ error: { type: "unauthorized", field: "Authorization" } });
    const bad = await post({ authorization: "Bearer pgk_not_a_key" });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: { type: "unauthorized" } });
    await expect(connect(null)).rejects.toThrow();

    // A valid key gets a JSON-RPC answer (plain JSON: the server is stateless, no session id).
    const { key } = await newArchive("mcp");
    const good = await post({ authorization: `Bearer ${key}` });
    expect(good.status).toBe(200);
    expect(good.headers.get("mcp-session-id")).toBeNull();
    expect(await good.json()).toMatchObject({ id: 1, result: { serverInfo: { name: "paperguru" } } });
    // No standalone stream in stateless mode.
    const get = await WORKER.fetch(URL_MCP, {
      headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" },
    });
    expect(get.status).toBe(405);
  });

  it("one archive's key can neither read nor write another archive", async () => {
    const a = await newArchive("mcpa");
    const b = await newArchive("mcpb");
    const asA = await connect(a.key);
    const asB = await connect(b.key);
    await ok(asB, "remember", { archive: b.id, artifacts: [DPR] });

    const reads: Array<[string, Json]> = [
      ["route", { query: "dense passage retrieval" }],
      ["context", { query: "dense passage retrieval", budget_tokens: 800 }],
      ["expand", { chunks: [{ id: DPR.id }] }],
      ["verify", { anchors: [{ artifact_id: DPR.id, version: 1, start: 0, end: 5, snippet: "Dense" }] }],
      ["history", { chunk: DPR.id }],
      ["neighbours", { chunk: DPR.id }],
      ["resolve", { mention: "DPR" }],
      ["list", { of: "chunks" }],
      ["read", { chunk: DPR.id }],
      ["export", { format: "markdown" }],
      ["project", { request: "dense retrieval" }],
      ["research", { op: "tree", args: { root: DPR.id } }],
    ];
    const writes: Array<[string, Json]> = [
      ["remember", { artifacts: [HIPPO] }],
      ["remember", { revise: true, artifacts: [{ ...DPR, content: "overwritten by A" }] }],
      ["deprecate", { id: DPR.id }],
      ["entity", { op: "rename", entity: "method:dpr", name: "X" }],
      ["session", { session_id: "s1", events: [{ role: "user", text: "hi" }] }],
      ["forget", { chunk: DPR.id }],
      ["annotate", { chunk: DPR.id, key: "status", value: "committed" }],
      ["curate", { op: "review", args: { op: "verify", chunk: DPR.id } }],
    ];
    expect(new Set([...reads, ...writes].map(([n]) => n)).size).toBe(TOOL_NAMES.length);
    for (const [name, args] of [...reads, ...writes]) {
      const err = await toolError(asA, name, { archive: b.id, ...args });
      expect(err, name).toMatchObject({ type: "forbidden", field: "Authorization" });
      expect(JSON.stringify(err), name).not.toContain("Dense Passage");
    }
    // Invalid arguments for another archive are still "forbidden": nothing is learnt from validation.
    expect(await toolError(asA, "context", { archive: b.id, query: "x" })).toMatchObject({ type: "forbidden" });

    // B is untouched; A's own archive is empty.
    const hist = await ok(asB, "history", { archive: b.id, chunk: DPR.id });
    expect(hist.versions).toHaveLength(1);
    expect(hist.deprecated_at).toBeNull();
    expect(await toolError(asB, "history", { archive: b.id, chunk: HIPPO.id })).toMatchObject({ type: "not_found" });
    expect(await toolError(asA, "history", { archive: a.id, chunk: DPR.id })).toMatchObject({ type: "not_found" });
    expect((await ok(asA, "route", { archive: a.id, query: "dense passage retrieval" })).candidates).toEqual([]);
  });

  it("a read-only key reads but cannot write", async () => {
    const { id, key } = await newArchive("mcp");
    const issued = await api("POST", `/v1/archives/${id}/keys`, { scopes: ["read"], label: "reader" });
    const reader = await connect(issued.body.secret as string);
    const writer = await connect(key);
    await ok(writer, "remember", { archive: id, artifacts: [DPR] });
    expect((await ok(reader, "history", { archive: id, chunk: DPR.id })).versions).toHaveLength(1);
    for (const [name, args] of [
      ["remember", { artifacts: [HIPPO] }],
      ["deprecate", { id: DPR.id }],
      ["entity", { op: "alias", entity: "method:dpr", name: "X" }],
      ["session", { session_id: "s1", events: [{ role: "user", text: "hi" }] }],
    ] as Array<[string, Json]>) {
      const err = await toolError(reader, name, { archive: id, ...args });
      expect(err, name).toMatchObject({ type: "forbidden" });
      expect(err.message).toContain("'write'");
    }
  });
});

describe("MCP: forget", () => {
  it("deletes a chunk for good, audited under the calling key; a read-only key cannot", async () => {
    const { id, key } = await newArchive("mcp-forget");
    const client = await connect(key);
    await ok(client, "remember", { archive: id, artifacts: [HIPPO, DPR] });
    expect((await toolError(client, "forget", { archive: id })).field).toBe("chunk");
    const readOnly = (await api("POST", `/v1/archives/${id}/keys`, { scopes: ["read"] })).body.secret as string;
    const ro = await connect(readOnly);
    expect((await toolError(ro, "forget", { archive: id, chunk: HIPPO.id })).type).toBe("forbidden");
    const gone = await ok(client, "forget", { archive: id, chunk: HIPPO.id });
    expect(gone.deleted).toMatchObject({ target: "chunk", id: HIPPO.id, versions: 1 });
    expect((await toolError(client, "history", { archive: id, chunk: HIPPO.id })).type).toBe("not_found");
    const routed = await ok(client, "route", { archive: id, query: "HippoRAG Personalized PageRank" });
    expect(routed.candidates.map((c: Json) => c.chunk)).not.toContain(HIPPO.id);
    const audit = await api("GET", `/v1/archives/${id}/deletions`, undefined, key);
    expect(audit.body.deletions[0].actor).toMatch(/^key:/);
  });
});

describe("MCP: resources and prompts", () => {
  it("lists the key's archive and its chunks as resources, page by page, and reads exact text", async () => {
    const { id, key } = await newArchive("mcp-res");
    const other = await newArchive("mcp-res-other");
    const client = await connect(key);
    const many = Array.from({ length: 120 }, (_, i) => ({
      id: `note:${String(i).padStart(3, "0")}`,
      kind: "note",
      title: `Note ${i}`,
      content: `Observation number ${i} about damping.`,
    }));
    await ok(client, "remember", { archive: id, artifacts: many.slice(0, 100) });
    await ok(client, "remember", { archive: id, artifacts: [...many.slice(100), HIPPO] });
    const first = await client.listResources();
    expect(first.resources[0]).toMatchObject({ uri: `paperguru://${id}`, mimeType: "application/json" });
    expect(first.resources).toHaveLength(100);
    expect(first.nextCursor).toBeTruthy();
    const second = await client.listResources({ cursor: first.nextCursor as string });
    const uris = [...first.resources, ...second.resources].map((r) => r.uri);
    expect(uris).toHaveLength(1 + 121);
    expect(new Set(uris).size).toBe(uris.length);
    expect(second.nextCursor).toBeUndefined();
    // Another archive never appears for this key.
    expect(uris.some((u) => u.includes(other.id))).toBe(false);

    const hippoUri = `paperguru://${id}/chunks/${encodeURIComponent(HIPPO.id)}`;
    expect(uris).toContain(hippoUri);
    const read = await client.readResource({ uri: hippoUri });
    expect(read.contents[0]).toMatchObject({ uri: `${hippoUri}/v/1`, mimeType: "text/plain", text: HIPPO.content });
    const meta = await client.readResource({ uri: `paperguru://${id}` });
    expect(JSON.parse((meta.contents[0] as { text: string }).text)).toMatchObject({
      archive: id,
      counts: { chunks: 121 },
    });
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.name)).toEqual(["chunk", "chunk-version"]);
    await expect(client.readResource({ uri: `paperguru://${other.id}` })).rejects.toThrow(/forbidden/);
    await expect(client.readResource({ uri: `paperguru://${id}/chunks/no%3Asuch` })).rejects.toThrow(/not_found/);
    await expect(client.readResource({ uri: "https://example.com/x" })).rejects.toThrow(/unknown resource/);
    await expect(client.listResources({ cursor: "bm90IG1pbmU" })).rejects.toThrow(/cursor/);
  });

  it("brief and changes prompts inline evidence as of the times asked; session events feed short_term", async () => {
    const { id, key } = await newArchive("mcp-prompts");
    const client = await connect(key);
    await ok(client, "remember", { archive: id, artifacts: [HIPPO, DPR] });
    await ok(client, "remember", {
      archive: id,
      revise: true,
      artifacts: [
        { ...HIPPO, content: `${HIPPO.content} Version two adds recognition memory.`, valid_from: "2025-02-01" },
      ],
    });
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["brief", "changes"]);
    const brief = await client.getPrompt({
      name: "brief",
      arguments: { archive: id, topic: "HippoRAG", as_of: "2024-12-01" },
    });
    const text = (brief.messages[0] as { content: { text: string } }).content.text;
    expect(text).toContain("as of 2024-12-01T00:00:00.000Z");
    expect(text).toContain(`[${HIPPO.id} v1]`);
    const changes = await client.getPrompt({
      name: "changes",
      arguments: { archive: id, topic: "HippoRAG", since: "2024-12-01", until: "2025-03-01" },
    });
    const ct = (changes.messages[0] as { content: { text: string } }).content.text;
    expect(ct).toMatch(/Now in a different version \(1\):\n1\. .*\[arxiv:2405\.14831 v2\]/);
    await expect(client.getPrompt({ name: "brief", arguments: { archive: id } })).rejects.toThrow(/topic/);
    await expect(
      client.getPrompt({ name: "brief", arguments: { archive: id, topic: "x", as_of: "last week" } }),
    ).rejects.toThrow(/ISO 8601/);
    const other = await newArchive("mcp-prompts-other");
    await expect(client.getPrompt({ name: "brief", arguments: { archive: other.id, topic: "x" } })).rejects.toThrow(
      /forbidden/,
    );

    const logged = await ok(client, "session", {
      archive: id,
      session_id: "s-1",
      events: [{ role: "user", text: "Keep the damping at 0.85." }],
    });
    expect(logged.appended).toBe(1);
    const ctx = await ok(client, "context", { archive: id, query: "damping", session_id: "s-1" });
    expect(ctx.short_term.map((e: Json) => e.text)).toEqual(["Keep the damping at 0.85."]);
    expect(ctx.short_term[0].at).toMatch(ISO);
  });
});

describe("MCP: coding-agent memory", () => {
  it("annotate sets and counts; project briefs only committed records and renders the state", async () => {
    const { id, key } = await newArchive("mcp");
    const client = await connect(key);
    await ok(client, "remember", {
      archive: id,
      artifacts: [
        {
          id: "design:cache",
          kind: "design",
          title: "Heads are cached in the Durable Object",
          content: "Every archive keeps its chunk heads cached in one Durable Object; eviction is least recently used.",
        },
        {
          id: "design:queue",
          kind: "design",
          title: "Ingest goes through a queue",
          content: "Large imports are split into queue messages of at most 200 artifacts each.",
        },
      ],
    });
    const set = await ok(client, "annotate", {
      archive: id,
      chunk: "design:cache",
      key: "status",
      value: "committed",
      reason: "approved",
    });
    expect(set.current).toMatchObject({ value: "committed", events: 1 });
    await ok(client, "annotate", { archive: id, chunk: "design:queue", key: "status", value: "rejected" });
    const count = { archive: id, chunk: "design:cache", key: "uses", add: 1, event_id: "turn-7" };
    const first = await ok(client, "annotate", count);
    const again = await ok(client, "annotate", count);
    // A retry gets the first answer unchanged and counts nothing.
    expect(again).toEqual(first);
    expect(again).toMatchObject({ duplicate: false, current: { value: 1 } });
    expect((await toolError(client, "annotate", { archive: id, chunk: "design:cache", key: "status" })).field).toBe(
      "value",
    );

    const brief = await ok(client, "project", {
      archive: id,
      request: "Change how cached heads are evicted and how imports are queued",
      budget_tokens: 1500,
    });
    expect(brief.commitments.map((c: { id: string }) => c.id)).toEqual(["design:cache"]);
    expect(brief.held_back).toEqual([{ id: "design:queue", status: "rejected" }]);
    const render = await ok(client, "project", { archive: id });
    expect(JSON.stringify(render)).toContain("design:cache");
    expect((await toolError(client, "project", { archive: id, recent_requests: ["earlier"] })).field).toBe("request");

    // remember with near_duplicates: revise stores a reworded design as the next version of the match.
    const revised = await ok(client, "remember", {
      archive: id,
      near_duplicates: "revise",
      artifacts: [
        {
          id: "design:cache-draft",
          kind: "design",
          title: "Heads are cached in the Durable Object",
          content:
            "Every archive keeps its chunk heads cached in one Durable Object; eviction is least frequently used.",
        },
      ],
    });
    expect(revised.results[0]).toMatchObject({ id: "design:cache", version: 2, requested_id: "design:cache-draft" });

    // route with code_pairs: techniques with the code that implements them (xKG).
    await ok(client, "remember", {
      archive: id,
      artifacts: [
        {
          id: "t:lru",
          kind: "technique",
          title: "Least recently used eviction",
          content: "Evict the least recently used entry when the cache is full.",
        },
        {
          id: "code:lru",
          kind: "code_unit",
          title: "lru.ts",
          content: "export function evictLru(cache: Map<string, number>) { cache.delete(cache.keys().next().value); }",
          edges: [{ type: "implements", target: "t:lru" }],
        },
      ],
    });
    const pairs = await ok(client, "route", { archive: id, query: "least recently used eviction", code_pairs: true });
    expect(pairs.pairs[0]).toMatchObject({ technique: { id: "t:lru" }, code: { id: "code:lru" }, grounded: true });
  });
});

describe("MCP: research memory (research reads, curate writes)", () => {
  it("ops take the REST request as args: an outline tree, a draft with verified evidence, its convergence; bad args name the field", async () => {
    const { id, key } = await newArchive("mcp-research");
    const client = await connect(key);
    const section = (sid: string, title: string, extra: Json[]) => ({
      id: sid,
      kind: "section",
      title,
      content: `${title}: what the review says about it.`,
      boundaries: ["outline"],
      edges: extra,
      valid_from: "2024-01-01T00:00:00Z",
    });
    await ok(client, "remember", {
      archive: id,
      artifacts: [
        {
          id: "paper:de",
          kind: "paper",
          title: "Differential entropy features for EEG emotion recognition",
          content: "Differential entropy of band-passed EEG signals is a strong feature for emotion recognition.",
          valid_from: "2023-01-01T00:00:00Z",
        },
        section("rev", "EEG emotion recognition review", []),
        section("rev/features", "Features", [
          { type: "part-of", target: "rev" },
          { type: "cites", target: "paper:de" },
        ]),
      ],
    });
    const tree = await ok(client, "research", { archive: id, op: "tree", args: { root: "rev" } });
    expect(tree.nodes.map((n: Json) => n.id)).toEqual(["rev", "rev/features"]);
    const features = tree.nodes.find((n: Json) => n.id === "rev/features");
    expect(features.references.map((r: Json) => r.id)).toEqual(["paper:de"]);

    // A draft resting on an exact span of the paper; curate writes it, research reads it back.
    const drafted = await call(client, "curate", {
      archive: id,
      op: "draft",
      args: {
        node: "rev/features",
        text: "Differential entropy features dominate.",
        evidence: [{ artifact_id: "paper:de", version: 1, start: 0, end: 20, snippet: "Differential entropy" }],
        at: "2024-02-01T00:00:00Z",
      },
    });
    expect(drafted.isError, JSON.stringify(drafted.json)).toBe(false);
    const read = await ok(client, "research", { archive: id, op: "draft", args: { node: "rev/features" } });
    expect(JSON.stringify(read)).toContain("Differential entropy features dominate.");
    const conv = await ok(client, "research", {
      archive: id,
      op: "convergence",
      args: { draft: "rev/features#draft" },
    });
    expect(conv).toBeTypeOf("object");

    // Paper Circle reads: statistics over the archive, and context ranked by a mode with MMR.
    const stats = await ok(client, "research", { archive: id, op: "stats", args: {} });
    expect(JSON.stringify(stats)).toContain("year");
    const ranked = await ok(client, "context", {
      archive: id,
      query: "differential entropy features",
      mode: "discovery",
      mmr: true,
      include_trace: true,
    });
    expect(ranked.cards.length).toBeGreaterThan(0);
    const badMode = await call(client, "context", { archive: id, query: "x", mode: "fancy" });
    expect(badMode.isError).toBe(true);
    expect(badMode.json.error.field).toBe("mode");

    // Bad args name the field under args; an unknown op names op.
    const bad = await call(client, "research", { archive: id, op: "tree", args: {} });
    expect(bad.isError).toBe(true);
    expect(bad.json.error.field).toBe("args.root");
    const wrongOp = await call(client, "research", { archive: id, op: "gather", args: {} });
    expect(wrongOp.isError).toBe(true);
    expect(wrongOp.json.error.field).toBe("op");
    const badEvidence = await call(client, "curate", {
      archive: id,
      op: "draft",
      args: {
        node: "rev/features",
        text: "x",
        evidence: [{ artifact_id: "paper:de", version: 1, start: 0, end: 5, snippet: "Nope!" }],
      },
    });
    expect(badEvidence.isError).toBe(true);

    // A read-only key may call research but not curate.
    const readOnly = (await api("POST", `/v1/archives/${id}/keys`, { scopes: ["read"] })).body.secret as string;
    const reader = await connect(readOnly);
    await ok(reader, "research", { archive: id, op: "tree", args: { root: "rev" } });
    const refused = await call(reader, "curate", {
      archive: id,
      op: "draft",
      args: { node: "rev/features", text: "y" },
    });
    expect(refused.isError).toBe(true);
    expect(refused.json.error.type).toBe("forbidden");
  });
});
