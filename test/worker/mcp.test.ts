/**
 * The MCP server at /mcp, driven by the SDK's own Client over streamable HTTP (the transport's fetch
 * is SELF.fetch, so requests reach the Worker without touching the network).
 */
import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const URL_MCP = "http://paperguru.test/mcp";
const open: Client[] = [];

async function connect(key: string | null): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(URL_MCP), {
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : {},
    fetch: (url, init) => SELF.fetch(url, init),
  });
  const client = new Client({ name: "paperguru-test", version: "0.0.0" });
  await client.connect(transport);
  open.push(client);
  // As agents do: list the tools first. The client then checks every structured result against the
  // tool's output schema (and fails the call when it does not match).
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

async function ok(client: Client, name: string, args: Json): Promise<Any> {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.json)}`);
  expect(r.structured).toEqual(r.json);
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

describe("MCP: discovery", () => {
  it("lists the eleven tools with precise input and output schemas", async () => {
    const { key } = await newArchive("mcp");
    const client = await connect(key);
    expect(client.getServerVersion()?.name).toBe("paperguru");
    expect(client.getInstructions()).toContain("context");
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(
      [
        "context",
        "deprecate",
        "expand",
        "forget",
        "history",
        "neighbours",
        "remember",
        "resolve",
        "revise",
        "route",
        "verify",
      ].sort(),
    );
    const schemaOf = (n: string) => {
      const t = byName.get(n);
      if (!t) throw new Error(`no tool ${n}`);
      return t.inputSchema;
    };
    const required = (n: string) => schemaOf(n).required ?? [];
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(required(t.name)).toContain("archive");
      expect(t.outputSchema?.type).toBe("object");
      expect(t.description?.length ?? 0).toBeGreaterThan(100);
      expect(t.annotations?.readOnlyHint).toBe(!["remember", "revise", "deprecate", "forget"].includes(t.name));
      if (t.name === "forget" || t.annotations?.readOnlyHint)
        expect(t.annotations?.destructiveHint).toBe(t.name === "forget");
    }
    expect(required("context")).toEqual(expect.arrayContaining(["query", "budget_tokens"]));
    expect(required("route")).toContain("query");
    expect(required("expand")).toContain("chunks");
    expect(required("verify")).toContain("anchors");
    expect(required("remember")).toContain("artifacts");
    expect(required("revise")).toEqual(expect.arrayContaining(["id", "kind", "title", "content"]));
    expect(required("deprecate")).toContain("id");
    expect(required("neighbours")).toContain("chunk");
    expect(required("resolve")).toContain("mention");
    expect(required("history")).toEqual(["archive"]);
    const budget = (schemaOf("context").properties as Json).budget_tokens as Json;
    expect(budget).toMatchObject({ type: "integer", minimum: 50, maximum: 200000 });
    expect(budget.description).toMatch(/token/);
    // Unknown arguments are refused, not ignored: the schema says so.
    expect((schemaOf("route") as Json).additionalProperties).toBe(false);
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
    expect(Object.keys(routed.candidates[0].experts).sort()).toEqual(["graph", "lex", "rec", "sem", "sym"]);
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
    const used = ctx.cards.reduce((s: number, c: Json) => s + (c.tokens as number), 0);
    expect(used).toBeLessThanOrEqual(900);
    expect(ctx.budget.cards).toBe(used);
    const hippoCard = ctx.cards.find((c: Json) => c.artifact_id === HIPPO.id);
    expect(hippoCard.version).toBe(1);
    expect(hippoCard.anchored_spans.length).toBeGreaterThanOrEqual(2);

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

    const anchors = [...hippoCard.anchored_spans, ...expanded.cards[0].anchored_spans];
    const verified = await ok(client, "verify", { archive: id, anchors });
    expect(verified.all_verified).toBe(true);
    expect(verified.results.every((r: Json) => r.reason === "ok")).toBe(true);
    const tampered = await ok(client, "verify", {
      archive: id,
      anchors: [{ ...anchors[0], snippet: `${anchors[0].snippet}!` }],
    });
    expect(tampered.all_verified).toBe(false);
    expect(tampered.results[0].reason).toBe("snippet_mismatch");

    const revised = await ok(client, "revise", {
      archive: id,
      ...HIPPO,
      content: `${HIPPO.content} A revision adds recognition memory for filtering triples.`,
      valid_from: "2025-02-01",
    });
    expect(revised.results).toEqual([{ id: HIPPO.id, status: "updated", version: 2 }]);

    const hist = await ok(client, "history", { archive: id, chunk: HIPPO.id });
    expect(hist.versions.map((v: Json) => v.version)).toEqual([1, 2]);
    expect(hist.versions[0].validFrom).toBe("2024-05-23T00:00:00.000Z");
    expect(hist.versions[0].validTo).toBe("2025-02-01T00:00:00.000Z");
    expect(hist.versions[1].validFrom).toBe("2025-02-01T00:00:00.000Z");
    expect(hist.versions[1].validTo).toBeNull();
    expect(hist.chunk.latestVersion).toBe(2);
    // The version-1 anchors still verify after the revision (versions are immutable).
    expect((await ok(client, "verify", { archive: id, anchors: hippoCard.anchored_spans })).all_verified).toBe(true);

    const dep = await ok(client, "deprecate", {
      archive: id,
      id: DPR.id,
      by: HIPPO.id,
      at: "2025-06-01",
      reason: "superseded in our notes",
    });
    expect(dep).toEqual({ deprecated: DPR.id, by: HIPPO.id, version: 1 });
    const depHist = await ok(client, "history", { archive: id, chunk: DPR.id });
    expect(depHist.chunk.deprecatedAt).toBe("2025-06-01T00:00:00.000Z");
    expect(depHist.edges.some((e: Json) => e.type === "deprecated-by" && e.dst === HIPPO.id)).toBe(true);

    const nb = await ok(client, "neighbours", { archive: id, chunk: HIPPO.id, as_of: "2025-03-01" });
    expect(nb.head.chunk).toBe(HIPPO.id);
    expect(nb.head.latestVersion).toBe(2);
    expect(nb.head.firstValidFrom).toBe("2024-05-23T00:00:00.000Z");
    expect(nb.neighbours).toContainEqual(expect.objectContaining({ chunk: DPR.id, type: "cites", direction: "out" }));
    const nbLater = await ok(client, "neighbours", { archive: id, chunk: DPR.id, as_of: "2025-07-01" });
    expect(nbLater.head.deprecated).toBe(true);
    expect(nbLater.head.endAt).toBe("2025-06-01T00:00:00.000Z");

    const res = await ok(client, "resolve", { archive: id, mention: "Hippo RAG" });
    expect(res.mention).toBe("Hippo RAG");
    expect(res.resolved.entity).toBe("method:hipporag");
    expect((await ok(client, "resolve", { archive: id, mention: "nothing like this" })).resolved).toBeNull();

    const ent = await ok(client, "history", { archive: id, entity: "method:hipporag" });
    expect(ent.entity.entityId).toBe("method:hipporag");
    expect(ent.aliases.map((a: Json) => a.alias)).toEqual(expect.arrayContaining(["HippoRAG", "Hippo RAG"]));
    expect(ent.mentions.map((m: Json) => m.version)).toEqual([1, 2]);
    expect(ent.mentions[0].valid_from).toMatch(ISO);

    // The same store as REST: what MCP wrote, REST reads.
    const rest = await api("GET", `/v1/archives/${id}/history?chunk=${encodeURIComponent(HIPPO.id)}`, undefined, key);
    expect(rest.body.versions).toHaveLength(2);
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
    expect(await toolError(client, "revise", { archive: id, ...DPR })).toMatchObject({
      type: "not_found",
      field: "id",
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
    expect(await toolError(client, "context", { archive: id, query: "x" })).toMatchObject({
      type: "validation",
      field: "budget_tokens",
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
      await toolError(client, "revise", { archive: id, ...DPR, content: "older", valid_from: "2019-01-01" }),
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
      SELF.fetch(URL_MCP, {
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
    const get = await SELF.fetch(URL_MCP, { headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" } });
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
    ];
    const writes: Array<[string, Json]> = [
      ["remember", { artifacts: [HIPPO] }],
      ["revise", { ...DPR, content: "overwritten by A" }],
      ["deprecate", { id: DPR.id }],
    ];
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
    expect(hist.chunk.deprecatedAt).toBeNull();
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
      ["revise", { ...DPR, content: "changed" }],
      ["deprecate", { id: DPR.id }],
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
