/**
 * Hard deletes through every read path (REST queries, history, neighbours, resolve, exports, MCP),
 * before and after the capital chunk is evicted and rebuilt, and in storage itself: no D1 row of any
 * table, no change-log entry, no blob and no snapshot keeps the deleted data; content another chunk
 * still uses stays; the audit row names who and when without content.
 */
import { env } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { R2BlobStore } from "../../src/adapters/r2/blob";
import { PackedBlobStore } from "../../src/core/packs";
import { ADMIN, api, newArchive } from "./helpers";
import { WORKER } from "./worker";
import { createWebhook, sendGeneric, waitDelivery } from "./world";

// A word that exists only in the deleted chunk's second version.
const SECRET = "zyxqvelbrandt";
const TITLE = "Quillfeather Memory Graphs for Agents";
const SHARED = "Quillfeather builds a temporal memory graph; retrieval walks typed edges between notes.";

const PAPER = {
  id: "paper:quill",
  kind: "paper",
  title: TITLE,
  content: SHARED,
  entities: [{ type: "method", id: "method:quillfeather", name: "Quillfeather", aliases: ["Quill Feather"] }],
  valid_from: "2024-01-01",
};

/** Every table with an archive_id column, read from the schema so later tables are covered. */
async function archiveTables(): Promise<string[]> {
  const tables = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'",
  ).all<{ name: string }>();
  const out: string[] = [];
  for (const t of tables.results) {
    const cols = await env.DB.prepare(`PRAGMA table_info(${t.name})`).all<{ name: string }>();
    if (cols.results.some((c) => c.name === "archive_id")) out.push(t.name);
  }
  return out;
}

/** Rows of the archive (all tables but the audit trail) whose text contains one of the needles. */
async function rowsMentioning(archive: string, needles: string[]): Promise<string[]> {
  const hits: string[] = [];
  for (const t of await archiveTables()) {
    if (t === "deletions") continue;
    const rows = await env.DB.prepare(`SELECT * FROM ${t} WHERE archive_id = ?`).bind(archive).all();
    for (const r of rows.results) {
      const text = JSON.stringify(r);
      for (const n of needles) if (text.includes(n)) hits.push(`${t}: ${text.slice(0, 160)}`);
    }
  }
  return hits;
}

/** Blobs of the archive whose bytes contain one of the needles (contents, snapshots, bodies). */
async function blobsMentioning(archive: string, needles: string[]): Promise<string[]> {
  const hits: string[] = [];
  const list = await env.CONTENT.list({ prefix: `archives/${archive}/` });
  for (const o of list.objects) {
    const obj = await env.CONTENT.get(o.key);
    const text = new TextDecoder("latin1").decode(await (obj as R2ObjectBody).arrayBuffer());
    for (const n of needles) if (text.includes(n)) hits.push(o.key);
  }
  return hits;
}

async function mcp(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://paperguru.test/mcp"), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (url, init) => WORKER.fetch(url, init),
  });
  const client = new Client({ name: "forget-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

async function mcpText(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const res = await client.callTool({ name, arguments: args });
  return (res.content as Array<{ text: string }>).map((c) => c.text).join("\n");
}

/** Everything the archive answers about the deleted chunk, through every read path, as text. */
async function everyReadPath(id: string, key: string): Promise<string> {
  const out: string[] = [];
  const push = (r: { status: number; body: unknown }) => out.push(JSON.stringify(r.body));
  push(await api("POST", `/v1/archives/${id}/route`, { query: `${SECRET} Quillfeather memory graphs` }, key));
  push(
    await api(
      "POST",
      `/v1/archives/${id}/context`,
      { query: `${SECRET} Quillfeather memory graphs`, budget_tokens: 2000 },
      key,
    ),
  );
  // Requests that name the chunk echo its id in their errors: only what they return counts.
  const exp = await api(
    "POST",
    `/v1/archives/${id}/expand`,
    { query: "Quillfeather", chunks: [{ id: "paper:quill" }, { id: "paper:quill", version: 2 }], budget_tokens: 800 },
    key,
  );
  out.push(JSON.stringify(exp.body.cards));
  for (const path of ["history?chunk=paper%3Aquill", "neighbours?chunk=paper%3Aquill"]) {
    const r = await api("GET", `/v1/archives/${id}/${path}`, undefined, key);
    out.push(r.status === 200 ? JSON.stringify(r.body) : `status ${r.status}`);
  }
  push(await api("GET", `/v1/archives/${id}/neighbours?chunk=note%3Acites`, undefined, key));
  push(await api("GET", `/v1/archives/${id}/neighbours?chunk=note%3Aold`, undefined, key));
  for (const m of [TITLE, "Quill Feather"]) {
    const r = await api("GET", `/v1/archives/${id}/resolve?mention=${encodeURIComponent(m)}`, undefined, key);
    out.push(JSON.stringify(r.body.resolved ?? null));
  }
  const eh = await api("GET", `/v1/archives/${id}/history?entity=method%3Aquillfeather`, undefined, key);
  out.push(eh.status === 200 ? JSON.stringify(eh.body) : `status ${eh.status}`);
  for (const format of ["json", "csv", "bibtex", "csljson", "markdown", "graphml", "mermaid"]) {
    const r = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/export?format=${format}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    out.push(await r.text());
  }
  const client = await mcp(key);
  try {
    out.push(await mcpText(client, "route", { archive: id, query: `${SECRET} Quillfeather` }));
    out.push(await mcpText(client, "context", { archive: id, query: `${SECRET} Quillfeather`, budget_tokens: 1500 }));
    const h = await client.callTool({ name: "history", arguments: { archive: id, chunk: "paper:quill" } });
    out.push(h.isError ? "history: error" : JSON.stringify(h.content));
    out.push(
      JSON.stringify(
        JSON.parse(await mcpText(client, "resolve", { archive: id, mention: "Quill Feather" })).resolved ?? null,
      ),
    );
  } finally {
    await client.close();
  }
  return out.join("\n");
}

describe("hard delete", () => {
  it("a chunk: every version, edge, entity, log entry, snapshot, blob and vector; nothing resurfaces", async () => {
    const { id, key } = await newArchive("forget");
    const other = await newArchive("forget-other");
    const ing = (artifacts: unknown[], k = key, a = id) => api("POST", `/v1/archives/${a}/ingest`, { artifacts }, k);
    expect((await ing([PAPER])).status).toBe(200);
    // Version 2 has content only this chunk ever had; version 1's content is shared with a copy.
    expect(
      (await ing([{ ...PAPER, content: `${SHARED} It was tuned with ${SECRET} weights.`, valid_from: "2024-06-01" }]))
        .status,
    ).toBe(200);
    expect(
      (
        await ing([
          { id: "note:copy", kind: "note", title: "A copy", content: SHARED },
          {
            id: "note:cites",
            kind: "note",
            title: "Related work",
            content: "Graph memories for agents, compared on long dialogues.",
            edges: [{ type: "cites", target: "paper:quill" }],
          },
          {
            id: "note:old",
            kind: "note",
            title: "Old note",
            content: "An older design of agent memory.",
            valid_from: "2023-01-01",
          },
        ])
      ).status,
    ).toBe(200);
    expect(
      (
        await api(
          "POST",
          `/v1/archives/${id}/deprecate`,
          { id: "note:old", by: "paper:quill", reason: "superseded" },
          key,
        )
      ).status,
    ).toBe(200);
    // The same text in another archive is that archive's own and stays.
    expect((await ing([{ ...PAPER, content: `${SHARED} ${SECRET}` }], other.key, other.id)).status).toBe(200);
    // State the delete has to undo: a snapshot, access events, an MCP session.
    await api("POST", `/v1/archives/${id}/route`, { query: "Quillfeather", session_id: "s1" }, key);
    expect((await api("POST", `/v1/archives/${id}/admin/snapshot`, undefined, ADMIN)).status).toBe(200);

    // A stored metrics run naming the chunk as gold (and, likely, as returned).
    const run = await api(
      "POST",
      `/v1/archives/${id}/metrics/retrieval`,
      { queries: [{ query: "graph memories for agents", gold: ["paper:quill", "note:cites"] }], k: [1, 5] },
      key,
    );
    expect(run.status, JSON.stringify(run.body)).toBe(201);

    const before = await everyReadPath(id, key);
    expect(before).toContain(SECRET);
    expect(before).toContain("paper:quill");
    const keysOf = async (chunk: string) =>
      (
        await env.DB.prepare(
          "SELECT content_key FROM chunk_versions WHERE archive_id = ? AND chunk_id = ? ORDER BY version",
        )
          .bind(id, chunk)
          .all<{ content_key: string }>()
      ).results.map((r) => r.content_key);
    const own = await keysOf("paper:quill");
    const [copyKey] = await keysOf("note:copy");
    expect(own).toHaveLength(2);
    const blobs = new PackedBlobStore(new R2BlobStore(env.CONTENT));
    expect(await blobs.get(own[0] as string)).toBe(await blobs.get(copyKey as string));

    const del = await api("DELETE", `/v1/archives/${id}/chunks?chunk=paper%3Aquill`, undefined, key);
    expect(del.status).toBe(200);
    expect(del.body.deleted).toMatchObject({
      target: "chunk",
      id: "paper:quill",
      versions: 2,
      content_objects: 2,
      vectors: 1,
    });
    expect(del.body.deleted.entities).toEqual(["method:quillfeather"]);
    expect(del.body.deleted.edges).toBeGreaterThanOrEqual(2); // cites in, deprecated-by in
    expect((await api("DELETE", `/v1/archives/${id}/chunks?chunk=paper%3Aquill`, undefined, key)).status).toBe(404);

    // Storage: the copy's content stays readable, the chunk's own contents are gone from their packs;
    // no row, log entry or blob names it.
    expect(await blobs.get(copyKey as string)).toBe(SHARED);
    for (const k of own) expect(await blobs.get(k)).toBeNull();
    const needles = ["paper:quill", SECRET, "quillfeather", TITLE];
    expect(await rowsMentioning(id, needles)).toEqual([]);
    expect(await blobsMentioning(id, [SECRET, "paper:quill", "quillfeather"])).toEqual([]);

    // Every read path, live and after an eviction (rebuild from the scrubbed log), then from a new snapshot.
    const check = async () => {
      const after = await everyReadPath(id, key);
      for (const n of [SECRET, "paper:quill", "method:quillfeather", TITLE]) expect(after).not.toContain(n);
    };
    await check();
    // The run keeps its numbers (computed when it ran); the id reads as forgotten.
    const kept = await api("GET", `/v1/archives/${id}/metrics/retrieval/runs/${run.body.id}`, undefined, key);
    expect(kept.body.aggregate).toEqual(run.body.aggregate);
    expect(kept.body.per_query[0].gold).toEqual(["(forgotten)", "note:cites"]);
    expect(JSON.stringify(kept.body)).not.toContain("paper:quill");
    await api("POST", `/v1/archives/${id}/admin/evict`, undefined, ADMIN);
    await check();
    expect((await api("POST", `/v1/archives/${id}/admin/snapshot`, undefined, ADMIN)).status).toBe(200);
    await api("POST", `/v1/archives/${id}/admin/evict`, undefined, ADMIN);
    await check();
    expect(await blobsMentioning(id, ["paper:quill", "quillfeather"])).toEqual([]);

    // The rest of the archive is intact; the other archive still has its own copy.
    const rest = await api("POST", `/v1/archives/${id}/route`, { query: "graph memories long dialogues" }, key);
    expect(rest.body.candidates.map((c: { chunk: string }) => c.chunk)).toContain("note:cites");
    const hist = await api("GET", `/v1/archives/${id}/history?chunk=note%3Aold`, undefined, key);
    expect(hist.body.deprecated_at).not.toBeNull();
    expect(hist.body.deprecated_by).toBeNull();
    const theirs = await api(
      "POST",
      `/v1/archives/${other.id}/context`,
      { query: SECRET, budget_tokens: 1000 },
      other.key,
    );
    expect(JSON.stringify(theirs.body)).toContain(SECRET);

    // The audit row: who, what, when; no content.
    const audit = await api("GET", `/v1/archives/${id}/deletions`, undefined, key);
    expect(audit.body.deletions).toHaveLength(1);
    expect(audit.body.deletions[0]).toMatchObject({ target: "chunk", target_id: "paper:quill" });
    expect(audit.body.deletions[0].actor).toMatch(/^key:/);
    expect(JSON.stringify(audit.body)).not.toContain(SECRET);
    expect(JSON.stringify(audit.body)).not.toContain("Quillfeather");

    // A later ingest under the same id is a new chunk, not the old one coming back.
    expect((await ing([{ ...PAPER, title: "Fresh", content: "Fresh text." }])).body.results[0]).toMatchObject({
      status: "created",
      version: 1,
    });
  }, 60_000);

  it("a chunk's entities: one only it named goes (aliases, postings), one another chunk names stays", async () => {
    const { id, key } = await newArchive("forget-own");
    const only = { type: "method", id: "method:velarith", name: "Velarith", aliases: ["Velarith Walk"] };
    const shared = { type: "dataset", id: "dataset:korvane", name: "Korvane", aliases: ["Korvane Set"] };
    const ing = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      {
        artifacts: [
          {
            id: "note:a",
            kind: "note",
            title: "Velarith on Korvane",
            content: "Velarith walks typed edges; evaluated on Korvane.",
            entities: [only, shared],
          },
          {
            id: "note:b",
            kind: "note",
            title: "Korvane statistics",
            content: "Korvane holds long dialogues.",
            entities: [shared],
          },
        ],
      },
      key,
    );
    expect(ing.status, JSON.stringify(ing.body)).toBe(200);
    const resolved = async (mention: string) =>
      (await api("GET", `/v1/archives/${id}/resolve?mention=${encodeURIComponent(mention)}`, undefined, key)).body
        .resolved ?? null;
    expect(await resolved("Velarith Walk")).not.toBeNull();
    const del = await api("DELETE", `/v1/archives/${id}/chunks?chunk=note%3Aa`, undefined, key);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body.deleted.entities).toEqual(["method:velarith"]);
    for (const evict of [false, true]) {
      if (evict) await api("POST", `/v1/archives/${id}/admin/evict`, undefined, ADMIN);
      expect(await resolved("Velarith")).toBeNull();
      expect(await resolved("Velarith Walk")).toBeNull();
      expect((await api("GET", `/v1/archives/${id}/entities/method%3Avelarith`, undefined, key)).status).toBe(404);
      const kept = await api("GET", `/v1/archives/${id}/entities/dataset%3Akorvane`, undefined, key);
      expect(kept.status).toBe(200);
      expect(kept.body.mentions.map((m: { chunk: string }) => m.chunk)).toEqual(["note:b"]);
      expect(JSON.stringify(await resolved("Korvane Set"))).toContain("dataset:korvane");
      // The entity's postings went with it: a query on its name reaches no entity, the shared one still does.
      const route = await api(
        "POST",
        `/v1/archives/${id}/route`,
        { query: "Velarith Korvane", include_trace: true },
        key,
      );
      expect(JSON.stringify(route.body)).not.toContain("velarith");
      expect(route.body.candidates.map((c: { chunk: string }) => c.chunk)).toEqual(["note:b"]);
    }
    expect(await rowsMentioning(id, ["method:velarith", "velarith"])).toEqual([]);
  }, 60_000);

  it("an entity's mentions: the entity, aliases, grounded mentions in other chunks; their text stays", async () => {
    const { id, key } = await newArchive("forget-ent");
    const ing = (artifacts: unknown[]) => api("POST", `/v1/archives/${id}/ingest`, { artifacts }, key);
    expect(
      (
        await ing([
          {
            id: "bio:1",
            kind: "note",
            title: "Collaborators",
            content: "Paul Erdős wrote papers with many coauthors.",
            entities: [{ type: "person", id: "person:erdos", name: "Paul Erdős", aliases: ["Erdős"] }],
          },
          { id: "bio:2", kind: "note", title: "Numbers", content: "The number counts steps to Paul Erdős in a graph." },
        ])
      ).status,
    ).toBe(200);
    expect(
      (await api("GET", `/v1/archives/${id}/resolve?mention=Paul%20Erd%C5%91s`, undefined, key)).body.resolved,
    ).not.toBeNull();
    const del = await api("DELETE", `/v1/archives/${id}/entities?entity=person%3Aerdos`, undefined, key);
    expect(del.status).toBe(200);
    expect(del.body.deleted.target).toBe("entity");
    for (const evict of [false, true]) {
      if (evict) await api("POST", `/v1/archives/${id}/admin/evict`, undefined, ADMIN);
      const r = await api("GET", `/v1/archives/${id}/resolve?mention=Paul%20Erd%C5%91s`, undefined, key);
      expect(r.body.resolved ?? null).toBeNull();
      expect((await api("GET", `/v1/archives/${id}/history?entity=person%3Aerdos`, undefined, key)).status).toBe(404);
      const ctx = await api("POST", `/v1/archives/${id}/route`, { query: "number counts steps graph" }, key);
      expect(ctx.body.candidates.map((c: { chunk: string }) => c.chunk)).toContain("bio:2");
      expect(JSON.stringify(ctx.body)).not.toContain("person:erdos");
    }
    expect(await rowsMentioning(id, ["person:erdos", "concept:paul-erdos"])).toEqual([]);
    expect((await api("DELETE", `/v1/archives/${id}/entities?entity=person%3Aerdos`, undefined, key)).status).toBe(404);
  }, 60_000);

  it("an archive: keys, webhooks, sources, deliveries, sessions, blobs, vectors and memory; the audit row stays", async () => {
    const { id, key } = await newArchive("forget-all");
    const keep = await newArchive("forget-keep");
    await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [PAPER] }, key);
    await api("POST", `/v1/archives/${keep.id}/ingest`, { artifacts: [PAPER] }, keep.key);
    const secret = await createWebhook(id, "feed", "generic");
    const sent = await sendGeneric(
      id,
      "feed",
      secret,
      { artifacts: [{ ...PAPER, id: "note:hooked", content: SECRET }] },
      {
        delivery: "d-1",
      },
    );
    expect(sent.status).toBe(202);
    await waitDelivery(id, key, "feed", "d-1");
    expect(
      (
        await api(
          "POST",
          `/v1/archives/${id}/sources`,
          { id: "feed", kind: "url", location: "https://example.org/feed.json", paused: true },
          key,
        )
      ).status,
    ).toBe(201);
    await api("POST", `/v1/archives/${id}/sessions/s1/events`, { events: [{ role: "user", text: SECRET }] }, key);
    await api("POST", `/v1/archives/${id}/route`, { query: "Quillfeather", session_id: "s1" }, key);
    await api("POST", `/v1/archives/${id}/admin/snapshot`, undefined, ADMIN);
    expect((await api("DELETE", `/v1/archives/${id}`, undefined, key)).status).toBe(403);

    const del = await api("DELETE", `/v1/archives/${id}`, undefined, ADMIN);
    expect(del.status).toBe(200);
    expect(del.body.deleted).toMatchObject({ target: "archive", id, vectors: 2 });
    expect((await api("POST", `/v1/archives/${id}/route`, { query: "Quillfeather" }, key)).status).toBe(401);
    expect((await api("GET", `/v1/archives/${id}`, undefined, ADMIN)).status).toBe(404);
    for (const t of await archiveTables()) {
      if (t === "deletions") continue;
      const n = await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${t} WHERE archive_id = ?`)
        .bind(id)
        .first<{ n: number }>();
      expect(n?.n, t).toBe(0);
    }
    expect((await env.CONTENT.list({ prefix: `archives/${id}/` })).objects).toEqual([]);

    // Re-created under the same id, the archive starts empty: nothing comes back from memory.
    expect((await api("POST", "/v1/archives", { id, name: "again" }, ADMIN)).status).toBe(201);
    const again = await api("POST", `/v1/archives/${id}/route`, { query: "Quillfeather memory graphs" }, ADMIN);
    expect(again.body.candidates).toEqual([]);
    const kept = await api("POST", `/v1/archives/${keep.id}/route`, { query: "Quillfeather memory graphs" }, keep.key);
    expect(kept.body.candidates.length).toBeGreaterThan(0);

    const audit = await api("GET", `/v1/deletions?archive=${id}`, undefined, ADMIN);
    expect(audit.body.deletions[0]).toMatchObject({ target: "archive", target_id: id, actor: "admin" });
    expect(JSON.stringify(audit.body)).not.toContain(SECRET);
  }, 60_000);

  it("a webhook: its deliveries and the raw bodies kept for replay go with it", async () => {
    const { id, key } = await newArchive("forget-hook");
    const secret = await createWebhook(id, "feed", "generic");
    const body = { artifacts: [{ id: "note:h", kind: "note", title: "Hooked", content: SECRET }] };
    expect((await sendGeneric(id, "feed", secret, body, { delivery: "d-1" })).status).toBe(202);
    await waitDelivery(id, key, "feed", "d-1");
    expect(await blobsMentioning(id, [SECRET])).not.toEqual([]);
    expect((await api("DELETE", `/v1/archives/${id}/webhooks/feed`, undefined, ADMIN)).status).toBe(200);
    expect((await env.CONTENT.list({ prefix: `archives/${id}/webhooks/` })).objects).toEqual([]);
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE archive_id = ?")
      .bind(id)
      .first<{ n: number }>();
    expect(rows?.n).toBe(0);
  }, 60_000);
});
