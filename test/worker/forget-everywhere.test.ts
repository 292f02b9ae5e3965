/**
 * After a chunk is hard-deleted, no read path answers anything of it: its content, its title, the
 * names only it held, or its id. The read paths are enumerated, not listed by hand: every GET and
 * every read-scope POST of /openapi.json, every read-only MCP tool (with every op of the research
 * tool), every resource and every prompt. A path this file cannot build a valid request for fails
 * the test and is named, so a route added later is swept or the test says what it needs.
 *
 * The archive holds copies PaperGuru made of the chunk: a hub version quoting it, a draft's evidence
 * anchored in it, an edge review naming it, an annotation naming it, a metrics run with it as gold
 * and a session that opened it. Checked live, after an eviction (rebuild from the scrubbed log) and
 * after a snapshot and another eviction.
 */
import { env } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { ADMIN, api, newArchive } from "./helpers";
import { WORKER } from "./worker";
import { createWebhook, mockFetch, sendGeneric, waitDelivery } from "./world";

const GONE = "note:secret";
const TITLE = "Ward notes of Zephyrine Okonkwo";
const CONTENT =
  "The patient record says diagnosis X-42 for Zephyrine Okonkwo. The ward confirmed diagnosis X-42 on the second visit.";
/** What must not come back: the id, the distinctive words of the content and title. */
const NEEDLES = [GONE, "X-42", "Zephyrine", "Okonkwo"];
const QUERY = "patient diagnosis record ward visit";

interface Param {
  name: string;
  in: string;
  required?: boolean;
  schema?: { enum?: string[] };
}
interface Operation {
  method: string;
  path: string;
  scope: string;
  params: Param[];
  body: boolean;
}

async function operations(): Promise<Operation[]> {
  const doc = (await (await WORKER.fetch("http://paperguru.test/openapi.json")).json()) as {
    paths: Record<
      string,
      Record<string, { security?: Array<Record<string, string[]>>; parameters?: Param[]; requestBody?: unknown }>
    >;
  };
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(methods)) {
      const scopes = (op.security ?? []).flatMap((s) => s.bearer ?? []);
      out.push({
        method: method.toUpperCase(),
        path,
        scope: op.security?.length === 0 ? "none" : (scopes[0] ?? "key"),
        params: op.parameters ?? [],
        body: op.requestBody !== undefined,
      });
    }
  return out;
}

/** A read: every GET, and a POST only with the read scope (the others write). */
const isRead = (o: Operation) => o.method === "GET" || (o.method === "POST" && o.scope === "read");

interface Fixture {
  archive: string;
  key: string;
  chunks: string[];
  entities: string[];
  runs: string[];
  anchor: Record<string, unknown>;
}

/** Values for parameters by name: every one is tried in turn. */
function values(f: Fixture): Record<string, string[]> {
  return {
    archive: [f.archive],
    id: f.chunks,
    chunk: f.chunks,
    entity: f.entities,
    node: ["paper:p"],
    root: ["paper:p"],
    paper: ["paper:p"],
    draft: ["paper:p#draft"],
    from: ["paper:p"],
    to: [GONE],
    mention: [TITLE, "Zephyrine Okonkwo", "X-42"],
    prefix: ["note:", "paper:"],
    title_prefix: ["Ward"],
    boundary: ["sgmc:hub", "sgmc:draft"],
    run: f.runs,
    mode: ["stable", "discovery"],
    platform: ["default"],
    key: ["review"],
    // Nothing of these kinds exists in the fixture: their routes have nothing to answer.
    name: ["feed"],
    source: [],
    delivery: ["w1"],
    event: [],
  };
}

/** Query parameters that only make sense together, by path: these sets instead of one at a time. */
const GROUPS: Record<string, Array<Record<string, string>>> = {
  "/v1/archives/{archive}/chunks/{id}/diff": [{}, { from: "1", to: "2" }],
  "/v1/archives/{archive}/review": [
    { chunk: "paper:p" },
    { chunk: GONE },
    { from: "paper:p", type: "cites", to: GONE },
    { from: "paper:p", type: "cites", to: "note:other" },
  ],
};

/** Where a deleted chunk's id is the record itself (the audit trail), only its content must not be. */
const AUDIT = new Set(["/v1/archives/{archive}/deletions", "/v1/deletions"]);

/** Bodies of the read-scope POSTs, by path. */
function bodies(f: Fixture): Record<string, unknown[]> {
  const ctx = { query: QUERY, budget_tokens: 2000 };
  return {
    "/v1/archives/{archive}/brief": [{ request: QUERY }],
    "/v1/archives/{archive}/render": [{}],
    "/v1/archives/{archive}/code-pairs": [{ query: QUERY, threshold: -1 }],
    "/v1/archives/{archive}/route": [{ query: QUERY }, { query: QUERY, session_id: "s1" }],
    "/v1/archives/{archive}/expand": [{ query: QUERY, chunks: f.chunks.map((id) => ({ id })) }],
    "/v1/archives/{archive}/context": [ctx, { ...ctx, session_id: "s1" }],
    "/v1/archives/{archive}/verify": [{ anchors: [f.anchor] }],
    "/v1/archives/{archive}/assemble": [{ root: "paper:p", require_converged: false }],
    "/v1/archives/{archive}/feedback/select": [{}],
    "/v1/archives/{archive}/references/select": [{ node: "paper:p" }, { ids: f.chunks }],
    "/v1/archives/{archive}/export/context": ["json", "markdown", "csljson", "bibtex", "csv"].map((format) => ({
      ...ctx,
      format,
    })),
    "/v1/archives/{archive}/locate": [{ paper: "paper:p", query: QUERY }],
    "/v1/archives/{archive}/query-spec": [{ query: QUERY }],
    "/v1/archives/{archive}/ranking/stats": [
      { query: QUERY },
      { query: QUERY, ranking: { mode: "balanced" }, top: 50 },
    ],
    "/v1/archives/{archive}/discover": [{ query: QUERY, engines: ["openalex"] }],
    "/v1/archives/{archive}/metrics/review-scores": [reviewScores(f)],
    "/v1/archives/{archive}/projectguard/calibration": [calibrationBody(f)],
    "/v1/archives/{archive}/paperbench/score": [PAPERBENCH],
  };
}

/** A PaperBench rubric with one leaf graded (the route reads nothing of the archive). */
const PAPERBENCH = {
  rubric: {
    id: "root",
    requirements: "The paper has been reproduced",
    weight: 1,
    sub_tasks: [
      { id: "a", requirements: "The method is implemented", weight: 1, sub_tasks: [] },
      { id: "b", requirements: "The experiments were run", weight: 1, sub_tasks: [] },
    ],
  },
  grades: { a: 1 },
};

/** Review-score metrics over stored annotations of every fixture chunk. */
const reviewScores = (f: Fixture) => ({
  annotations: { chunks: f.chunks, predicted_key: "review", human_key: "score" },
  pairs: [{ predicted: 1, human: 2 }],
});

/** Judge calibration with the fixture's chunk ids as component ids. */
const calibrationBody = (f: Fixture) => ({
  human: f.chunks.map((component) => ({ component, score: 2 })),
  judge: f.chunks.map((component, i) => ({ component, score: i % 5 })),
});

/** Arguments of the read-only MCP tools (`archive` added), and of each op of `research`. */
function mcpArgs(f: Fixture): Record<string, Array<Record<string, unknown>>> {
  const v = values(f);
  return {
    context: [{ query: QUERY }, { query: QUERY, session_id: "s1" }],
    route: [{ query: QUERY }],
    expand: [{ query: QUERY, chunks: f.chunks.map((id) => ({ id })) }],
    verify: [{ anchors: [f.anchor] }],
    list: [{ of: "chunks" }, { of: "entities" }, ...(v.boundary ?? []).map((boundary) => ({ of: "chunks", boundary }))],
    read: f.chunks.map((chunk) => ({ chunk })),
    history: [...f.chunks.map((chunk) => ({ chunk })), ...f.entities.map((entity) => ({ entity }))],
    neighbours: f.chunks.map((chunk) => ({ chunk })),
    resolve: (v.mention ?? []).map((mention) => ({ mention })),
    project: [{}, { request: QUERY }],
    export: [
      ...["bibtex", "csljson", "markdown", "csv", "mermaid", "graphml", "html", "graph-html", "xkg"].map((format) => ({
        format,
      })),
      { format: "graph-html", within: "paper:p" },
    ],
    "research:tree": [{ root: "paper:p" }],
    "research:hub": [{ node: "paper:p" }],
    "research:draft": [{ node: "paper:p" }],
    "research:convergence": [{ draft: "paper:p#draft" }],
    "research:assemble": [{ root: "paper:p", require_converged: false }],
    "research:feedback": [{}],
    "research:references": [{ node: "paper:p" }, { ids: f.chunks }],
    "research:scaffold": [{ root: "paper:p" }, { root: "paper:p", format: "markdown" }],
    "research:stats": [{}],
    "research:locate": [{ paper: "paper:p", query: QUERY }],
    "research:coverage": [{ paper: "paper:p" }],
    "research:review_state": [{ chunk: "paper:p" }, { from: "paper:p", type: "cites", to: GONE }],
    "research:runs": [{}],
    "research:review_scores": [reviewScores(f)],
    "research:run": f.runs.map((run) => ({ run })),
    "research:dir": [{ prefix: "paper:" }, { prefix: "note:" }],
    "research:grounding": [{}, { kind: "note" }],
    "research:code_pairs": [{ query: QUERY, threshold: -1 }],
    "research:diff": f.chunks.map((chunk) => ({ chunk })),
    "research:schema": [{}],
    "research:access_counts": [{}, { by: "chunk" }],
    "research:modes": [{}],
    "research:project_metrics": [{}, { paper: "paper:p" }],
    "research:calibration": [calibrationBody(f)],
    "research:query_spec": [{ query: QUERY }],
    "research:ranking_stats": [{ query: QUERY }],
    "research:discover": [{ query: QUERY, engines: ["openalex"] }],
    "research:paperbench_score": [PAPERBENCH],
  };
}

interface Answer {
  what: string;
  request: string;
  status: number;
  text: string;
  audit?: boolean;
}

/** What a request may echo back: the needles it carries itself; an audit record, the id. */
function leaks(a: Answer): string[] {
  return NEEDLES.filter((n) => !a.request.includes(n) && !(a.audit && n === GONE) && a.text.includes(n));
}

const enc = encodeURIComponent;

/** Every REST read, with each parameter value in turn; unbuildable operations are listed. */
async function restSweep(f: Fixture): Promise<{ answers: Answer[]; unbuildable: string[] }> {
  const v = values(f);
  const b = bodies(f);
  const answers: Answer[] = [];
  const unbuildable: string[] = [];
  for (const op of (await operations()).filter(isRead)) {
    if (op.scope === "none" || op.path === "/openapi.json" || op.path === "/docs") continue;
    const what = `${op.method} ${op.path}`;
    const pathParams = op.params.filter((p) => p.in === "path");
    const query = op.params.filter((p) => p.in === "query");
    // Path parameters: every combination of their values (one list per name; at most a few).
    let paths = [op.path];
    let missing = false;
    for (const p of pathParams) {
      const vals = v[p.name];
      if (vals === undefined) {
        unbuildable.push(`${what}: path parameter ${p.name}`);
        missing = true;
        break;
      }
      paths = paths.flatMap((x) => vals.map((val) => x.replace(`{${p.name}}`, enc(val))));
    }
    if (missing || paths.length === 0) continue;
    const valuesOf = (p: Param) => p.schema?.enum ?? v[p.name];
    const required: Record<string, string> = {};
    for (const p of query.filter((q) => q.required)) {
      const first = valuesOf(p)?.[0];
      if (first === undefined) {
        unbuildable.push(`${what}: query parameter ${p.name}`);
        missing = true;
      } else required[p.name] = first;
    }
    if (missing) continue;
    const queries: Array<Record<string, string>> = GROUPS[op.path] ?? [required];
    if (!GROUPS[op.path])
      for (const p of query) for (const val of valuesOf(p) ?? []) queries.push({ ...required, [p.name]: val });
    let payloads: unknown[] = [undefined];
    if (op.body) {
      const given = b[op.path];
      if (!given) {
        unbuildable.push(`${what}: body`);
        continue;
      }
      payloads = given;
    }
    const key = op.scope === "read" ? f.key : ADMIN;
    const seen = new Set<string>();
    for (const path of paths)
      for (const q of queries)
        for (const payload of payloads) {
          const qs = Object.entries(q)
            .map(([k, x]) => `${enc(k)}=${enc(x)}`)
            .join("&");
          const url = `${path}${qs ? `?${qs}` : ""}`;
          const request = `${op.method} ${decodeURIComponent(url)} ${payload === undefined ? "" : JSON.stringify(payload)}`;
          if (seen.has(request)) continue;
          seen.add(request);
          const res = await WORKER.fetch(`http://paperguru.test${url}`, {
            method: op.method,
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: payload === undefined ? undefined : JSON.stringify(payload),
          });
          answers.push({ what, request, status: res.status, text: await res.text(), audit: AUDIT.has(op.path) });
        }
  }
  return { answers, unbuildable };
}

async function mcpClient(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://paperguru.test/mcp"), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (url, init) => WORKER.fetch(url, init),
  });
  const client = new Client({ name: "forget-everywhere", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

/** Every read-only MCP tool (each research op), every resource, every prompt. */
async function mcpSweep(f: Fixture): Promise<{ answers: Answer[]; unbuildable: string[] }> {
  const args = mcpArgs(f);
  const answers: Answer[] = [];
  const unbuildable: string[] = [];
  const client = await mcpClient(f.key);
  try {
    const call = async (what: string, name: string, a: Record<string, unknown>) => {
      const full = { archive: f.archive, ...a };
      const res = await client.callTool({ name, arguments: full });
      const text = JSON.stringify(res.content);
      // A tool error carries the REST error body: only a validation error means the call was wrong.
      const invalid = res.isError && /\\"type\\":\\"validation\\"/.test(text);
      answers.push({
        what,
        request: `${name} ${JSON.stringify(full)}`,
        status: invalid ? 400 : res.isError ? 404 : 200,
        text,
      });
    };
    for (const tool of (await client.listTools()).tools) {
      if (tool.annotations?.readOnlyHint !== true) continue;
      const ops = (tool.inputSchema.properties?.op as { enum?: string[] } | undefined)?.enum;
      for (const op of ops ?? [null]) {
        const label = op === null ? tool.name : `${tool.name}:${op}`;
        const list = args[label];
        if (!list) {
          unbuildable.push(`MCP tool ${label}`);
          continue;
        }
        for (const a of list) await call(`MCP ${label}`, tool.name, op === null ? a : { op, args: a });
      }
    }
    for (let cursor: string | undefined, page = 0; page < 20; page++) {
      const res = await client.listResources(cursor ? { cursor } : {});
      answers.push({ what: "MCP resources/list", request: "resources/list", status: 200, text: JSON.stringify(res) });
      for (const r of res.resources)
        if (r.uri.includes(f.archive)) {
          const read = await client.readResource({ uri: r.uri });
          answers.push({
            what: "MCP resources/read",
            request: decodeURIComponent(r.uri),
            status: 200,
            text: JSON.stringify(read),
          });
        }
      cursor = res.nextCursor;
      if (!cursor) break;
    }
    for (const chunk of f.chunks) {
      const uri = `paperguru://${f.archive}/chunks/${enc(chunk)}`;
      const read = await client.readResource({ uri }).then(
        (r) => ({ status: 200, text: JSON.stringify(r) }),
        (e: Error) => ({ status: 404, text: e.message }),
      );
      answers.push({ what: "MCP resources/read", request: decodeURIComponent(uri), ...read });
    }
    for (const p of (await client.listPrompts()).prompts) {
      const a: Record<string, string> = { archive: f.archive, topic: QUERY, since: "2000-01-01T00:00:00Z" };
      const missing = (p.arguments ?? []).filter((x) => x.required && a[x.name] === undefined);
      if (missing.length) {
        unbuildable.push(`MCP prompt ${p.name}: ${missing.map((x) => x.name).join(", ")}`);
        continue;
      }
      const res = await client.getPrompt({ name: p.name, arguments: a });
      answers.push({
        what: `MCP prompt ${p.name}`,
        request: JSON.stringify(a),
        status: 200,
        text: JSON.stringify(res),
      });
    }
  } finally {
    await client.close();
  }
  return { answers, unbuildable };
}

async function sweep(f: Fixture): Promise<Answer[]> {
  const rest = await restSweep(f);
  const mcp = await mcpSweep(f);
  expect([...rest.unbuildable, ...mcp.unbuildable], "read paths this test cannot build a request for").toEqual([]);
  const answers = [...rest.answers, ...mcp.answers];
  // Each path must have answered at least one request this file built (a 400 sweeps nothing).
  const valid = new Set(answers.filter((a) => a.status !== 400).map((a) => a.what));
  const never = [...new Set(answers.map((a) => a.what))].filter((w) => !valid.has(w));
  expect(
    never.map((w) => `${w}: ${answers.find((a) => a.what === w)?.text.slice(0, 200)}`),
    "read paths that answered every request of this test with 400",
  ).toEqual([]);
  expect(answers.filter((a) => a.status >= 500).map((a) => `${a.request} -> ${a.status}`)).toEqual([]);
  return answers;
}

describe("forgetting reaches every read path", () => {
  it("no REST route, MCP tool, resource or prompt answers anything of a deleted chunk", async () => {
    // Discovery's engine (an empty answer: what comes back is the archive's, not the engine's).
    mockFetch({ "https://api.openalex.org/works": () => Response.json({ meta: { count: 0 }, results: [] }) });
    const { id, key } = await newArchive("everywhere");
    const post = async (path: string, body: unknown) => {
      const r = await api("POST", `/v1/archives/${id}${path}`, body, key);
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
      return r.body;
    };
    await post("/ingest", {
      artifacts: [
        { id: GONE, kind: "note", title: TITLE, content: CONTENT },
        {
          id: "paper:p",
          kind: "paper",
          title: "Clinical memory survey",
          content: "A survey of clinical memory systems for agents that keep patient records over many visits.",
          boundaries: ["outline"],
          edges: [
            { type: "cites", target: GONE },
            { type: "cites", target: "note:other" },
          ],
        },
        {
          id: "note:other",
          kind: "note",
          title: "Ward rota",
          content: "The ward rota lists who visits each patient record on which day.",
        },
      ],
    });
    // Second versions (diffs read both).
    await post("/ingest", {
      artifacts: [
        { id: GONE, kind: "note", title: TITLE, content: `${CONTENT} Follow-up: X-42 resolved.` },
        {
          id: "note:other",
          kind: "note",
          title: "Ward rota",
          content: "The ward rota lists who visits each patient record on which day, and who covers nights.",
        },
      ],
    });
    // A webhook delivery carrying the chunk (its raw body is kept for replay).
    const secret = await createWebhook(id, "feed", "generic");
    const sent = await sendGeneric(
      id,
      "feed",
      secret,
      { artifacts: [{ id: GONE, kind: "note", title: TITLE, content: `${CONTENT} Follow-up: X-42 resolved.` }] },
      { delivery: "w1" },
    );
    expect(sent.status).toBe(202);
    await waitDelivery(id, key, "feed", "w1");
    // Copies PaperGuru makes: a hub quoting the chunk, a draft resting on it, reviews and notes.
    const hub = await post("/hubs/gather", { node: "paper:p", query: QUERY });
    const anchors = JSON.stringify(hub);
    expect(anchors).toContain("X-42");
    const ctx = await post("/context", { query: QUERY, session_id: "s1", budget_tokens: 2000 });
    const card = (ctx.cards as Array<{ anchored_spans: Array<Record<string, unknown>> }>).find((c) =>
      c.anchored_spans.some((a) => a.artifact_id === GONE),
    );
    const anchor = card?.anchored_spans.find((a) => a.artifact_id === GONE) as Record<string, unknown>;
    expect(anchor).toBeDefined();
    await post("/drafts", {
      node: "paper:p",
      text: "One case in the survey rests on a ward note [1].",
      evidence: [anchor],
    });
    await post("/review", { op: "verify", edge: { from: "paper:p", type: "cites", to: GONE } });
    await post("/review", { op: "flag", chunk: GONE, reason: "check the diagnosis" });
    await post(`/chunks/${enc("paper:p")}/annotations`, { key: "see-also", value: GONE });
    const run = await post("/metrics/retrieval", { queries: [{ query: QUERY, gold: [GONE] }], k: [1, 5] });
    const entities = (
      (await api("GET", `/v1/archives/${id}/entities?limit=200`, undefined, key)).body.entities as Array<{ id: string }>
    ).map((e) => e.id);
    const f: Fixture = {
      archive: id,
      key,
      chunks: [GONE, "paper:p", "paper:p#hub", "paper:p#draft", "note:other"],
      entities,
      runs: [String(run.id)],
      anchor,
    };

    // Before: the sweep sees the chunk (the test can fail).
    const before = await sweep(f);
    expect(before.some((a) => a.text.includes("X-42"))).toBe(true);

    const del = await api("DELETE", `/v1/archives/${id}/chunks?chunk=${enc(GONE)}`, undefined, key);
    expect(del.status, JSON.stringify(del.body)).toBe(200);

    const check = async (when: string) => {
      const hits = (await sweep(f)).flatMap((a) => leaks(a).map((n) => `${a.request.slice(0, 160)} -> ${n}`));
      expect(hits, `read paths answering the deleted chunk ${when}`).toEqual([]);
    };
    await check("live");
    await api("POST", `/v1/archives/${id}/admin/evict`, undefined, ADMIN);
    await check("after an eviction");
    expect((await api("POST", `/v1/archives/${id}/admin/snapshot`, undefined, ADMIN)).status).toBe(200);
    await api("POST", `/v1/archives/${id}/admin/evict`, undefined, ADMIN);
    await check("after a snapshot and an eviction");

    // Stored copies: no row of the archive's tables (the audit trail aside) and no blob holds it.
    const tables = (
      await env.DB.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%archive_id%' AND name <> 'deletions'",
      ).all<{ name: string }>()
    ).results.map((r) => r.name);
    for (const t of tables) {
      const rows = await env.DB.prepare(`SELECT * FROM ${t} WHERE archive_id = ?`).bind(id).all();
      const text = JSON.stringify(rows.results);
      for (const n of NEEDLES) expect(text.includes(n), `${t} holds ${n}`).toBe(false);
    }
    const list = await env.CONTENT.list({ prefix: `archives/${id}/` });
    for (const o of list.objects) {
      const text = await ((await env.CONTENT.get(o.key)) as R2ObjectBody).text();
      for (const n of NEEDLES) expect(text.includes(n), `${o.key} holds ${n}`).toBe(false);
    }
  }, 240_000);
});
