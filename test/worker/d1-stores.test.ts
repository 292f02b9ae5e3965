/**
 * The per-aggregate D1 adapters (src/adapters/d1) against local D1: what they write is the stored text
 * the single store wrote before the split (JSON columns, entity-event details, the change log), the
 * shared lookups answer as before (more ids than one IN-list holds, duplicates, unknown ids), and the
 * earlier composed classes (D1Store, WorldStore) delegate to the same rows.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { D1Store, d1Stores, WorldStore } from "../../src/adapters/d1";
import { type ArtifactInput, type IngestPlan, planIngest, prepareBatch } from "../../src/core/ingest";
import type { Stores } from "../../src/core/ports";

let n = 0;
const archive = () => `d1-${Date.now().toString(36)}-${(n++).toString(36)}`;
const T0 = Date.parse("2024-01-01T00:00:00Z");
const T1 = Date.parse("2024-06-01T00:00:00Z");

function plan(chunkId: string): IngestPlan {
  return {
    results: [{ id: chunkId, status: "created", version: 1 }],
    versions: [
      {
        chunkId,
        version: 1,
        kind: "paper",
        title: "Retrieval-augmented generation",
        synopsis: "RAG combines a retriever with a generator.",
        artifactHash: "a1",
        contentHash: "c1",
        contentKey: "content/c1",
        content: "RAG combines a retriever with a generator.",
        contentChars: 42,
        entities: [chunkId, "method:rag"],
        mentions: [{ entity: "method:rag", spans: [[0, 3]] }],
        symbols: [],
        boundaries: ["nlp"],
        edges: [{ type: "cites", target: "arxiv:1", weight: 0.5 }],
        relations: [{ subject: "RAG", predicate: "uses", object: "retriever" }],
        validFrom: T0,
        recordedAt: T0,
        source: "test",
        closesVersion: 0,
      },
    ],
    edgeInserts: [
      { src: chunkId, dst: "arxiv:1", type: "cites", weight: 0.5, validFrom: T0, validTo: null, version: 1 },
    ],
    edgeCloses: [],
    entityInserts: [{ entityId: "method:rag", type: "method", name: "RAG" }],
    aliasInserts: [{ entityId: "method:rag", alias: "RAG", aliasNorm: "rag", validFrom: T0 }],
    ops: [{ op: "head.deprecate", chunk: "placeholder", at: T0, by: null }],
  };
}

async function seeded(): Promise<{ a: string; stores: Stores }> {
  const a = archive();
  const stores = d1Stores(env.DB);
  const created = await stores.archives.createArchive({
    id: a,
    name: "d1 stores",
    description: "",
    params: { alpha: 0.8 },
    createdAt: T0,
  });
  expect(created.ok).toBe(true);
  const res = await stores.chunks.executePlan(a, plan("arxiv:2005.11401"), T0, (c) => `v:${c}`);
  expect(res.ok).toBe(true);
  return { a, stores };
}

describe("D1 stores split by aggregate", () => {
  it("chunk versions keep their JSON text; reads by time, number and head agree", async () => {
    const { a, stores } = await seeded();
    const row = await env.DB.prepare(
      "SELECT entities, boundaries, edges, relations, mentions FROM chunk_versions WHERE archive_id = ?",
    )
      .bind(a)
      .first();
    expect(row).toEqual({
      entities: '["arxiv:2005.11401","method:rag"]',
      boundaries: '["nlp"]',
      edges: '[{"type":"cites","target":"arxiv:1","weight":0.5}]',
      relations: '[{"subject":"RAG","predicate":"uses","object":"retriever"}]',
      mentions: '[{"entity":"method:rag","spans":[[0,3]]}]',
    });
    const events = await env.DB.prepare("SELECT op, detail, at FROM entity_events WHERE archive_id = ? ORDER BY id")
      .bind(a)
      .all();
    expect(events.results).toEqual([
      { op: "created", detail: '{"type":"method","name":"RAG"}', at: T0 },
      { op: "alias", detail: '{"alias":"RAG"}', at: T0 },
    ]);

    const id = "arxiv:2005.11401";
    const visible = await stores.chunks.visibleAt(a, [id, id, "unknown"], T1);
    expect([...visible.keys()]).toEqual([id]);
    expect(visible.get(id)?.boundaries).toEqual(["nlp"]);
    expect(await stores.chunks.visibleAt(a, [id], T0 - 1)).toEqual(new Map());
    expect(await stores.chunks.exact(a, id, 1)).toEqual({ ...visible.get(id), deprecatedBy: null });

    const [shown] = (
      await stores.exports.shownVersions(a, await stores.exports.chunksByIds(a, [id]), undefined)
    ).values();
    const [exact] = await stores.exports.exactVersions(a, [{ chunk: id, version: 1 }]);
    expect(shown).toEqual(exact);
    expect(exact?.entities).toEqual([id, "method:rag"]);
    expect(await stores.world.latestHead(a, id)).toEqual({
      title: exact?.title,
      contentKey: exact?.contentKey,
      contentChars: 42,
      entities: 2,
      edges: 1,
      synopsis: "RAG combines a retriever with a generator.",
      validFrom: T0,
      source: "test",
      parts: {
        entities: exact?.entities,
        boundaries: exact?.boundaries,
        edges: exact?.edges,
        relations: exact?.relations,
      },
    });
    expect(await stores.chunks.counts(a)).toEqual({ chunks: 1, versions: 1, edges: 1, entities: 1 });
    expect(await stores.chunks.chunkIdsForVectorIds(a, [`v:${id}`, "v:none"])).toEqual(new Map([[`v:${id}`, id]]));
  });

  it("chunk lookups over more ids than one IN-list, with duplicates and unknown ids", async () => {
    const { a, stores } = await seeded();
    const id = "arxiv:2005.11401";
    const ids = [...Array.from({ length: 150 }, (_, i) => `missing:${i}`), id, id];
    expect(await stores.world.chunksByIds(a, ids)).toEqual(
      new Map([[id, { kind: "paper", latestVersion: 1, deprecatedAt: null }]]),
    );
    expect((await stores.exports.chunksByIds(a, ids)).map((c) => c.chunkId)).toEqual([id]);
    expect(await stores.world.liveEntities(a, ["method:rag", ...ids])).toEqual(new Set(["method:rag"]));
    expect(await stores.world.paperEntitiesByAliases(a, ["rag"])).toEqual([]);
  });

  it("deprecation and entity operations write the same history, change log and edges", async () => {
    const { a, stores } = await seeded();
    const id = "arxiv:2005.11401";
    const dep = await stores.chunks.deprecate(a, id, null, T1, "retracted", T1);
    expect(dep).toEqual({ ok: true, value: { version: 1 } });
    const [event] = await stores.exports.deprecationEvents(a);
    expect(event?.detail).toEqual({ by: null, reason: "retracted" });
    const stored = await env.DB.prepare("SELECT detail FROM entity_events WHERE archive_id = ? AND op = 'deprecated'")
      .bind(a)
      .first();
    expect(stored).toEqual({ detail: '{"by":null,"reason":"retracted"}' });
    expect(await stores.chunks.visibleAt(a, [id], T1)).toEqual(new Map());

    await stores.entities.entityOp(
      a,
      { op: "rename", entity: "method:rag", newName: "RAG-2", at: T1 },
      (s) => s.toLowerCase(),
      T1,
    );
    const history = await stores.entities.entityHistory(a, "method:rag");
    expect(history?.entity.name).toBe("RAG-2");
    expect(history?.events.map((e) => [e.op, e.detail])).toEqual([
      ["created", { type: "method", name: "RAG" }],
      ["alias", { alias: "RAG" }],
      ["rename", { from: "RAG", to: "RAG-2" }],
    ]);
    expect(history?.aliases.map((x) => [x.aliasNorm, x.validTo])).toEqual([
      ["rag", T1],
      ["rag-2", null],
    ]);
    expect(history?.mentions).toEqual([{ chunk_id: id, version: 1, valid_from: T0, valid_to: T1 }]);

    const log = await stores.changes.readLog(a, 0, 10);
    expect(log.map((e) => e.op.op)).toEqual(["head.deprecate", "head.deprecate", "alias.add", "alias.close"]);
    expect(log.map((e) => e.seq)).toEqual([...log.map((e) => e.seq)].sort((x, y) => x - y));

    const edges = await stores.exports.edgePage(a, 0, 10);
    expect(edges.map((e) => [e.dst, e.validTo])).toEqual([["arxiv:1", null]]);
    expect(await stores.exports.edgePage(a, 0, 10, T0 - 1)).toEqual([]);
    expect((await stores.exports.edgePage(a, 0, 10, T1)).map((e) => e.dst)).toEqual(["arxiv:1"]);
  });

  it("webhook options, delivery results, source state and ingest-log counts are stored as given", async () => {
    const { a, stores } = await seeded();
    const text = async (sql: string) => await env.DB.prepare(sql).bind(a).first();
    await stores.webhooks.putWebhook({
      archiveId: a,
      name: "gh",
      kind: "github",
      secret: "s3cret",
      options: { branches: ["main"] },
      createdAt: T0,
    });
    const hook = await stores.webhooks.getWebhook(a, "gh");
    expect(hook?.options).toEqual({ branches: ["main"] });
    expect(await text("SELECT options FROM webhooks WHERE archive_id = ?")).toEqual({
      options: '{"branches":["main"]}',
    });
    expect(await stores.webhooks.listWebhooks(a)).toEqual([
      { archiveId: a, name: "gh", kind: "github", options: { branches: ["main"] }, createdAt: T0 },
    ]);

    const delivery = {
      archiveId: a,
      webhook: "gh",
      deliveryId: "d1",
      kind: "github",
      event: "push",
      bodyKey: "bodies/d1",
      bodySha: "sha",
      status: "received",
      attempts: 0,
      result: null,
      error: null,
      receivedAt: T0,
      updatedAt: T0,
    };
    expect(await stores.webhooks.insertDelivery(delivery)).toBe(true);
    expect(await stores.webhooks.insertDelivery(delivery)).toBe(false);
    const counts = { created: 1, updated: 0, unchanged: 2, deprecated: 0, failed: 0 };
    await stores.webhooks.updateDelivery(a, "gh", "d1", { status: "ingested", result: counts });
    const [listed] = await stores.webhooks.listDeliveries(a, "gh", "ingested", 10);
    expect(listed?.result).toEqual(counts);
    expect(await text("SELECT result FROM webhook_deliveries WHERE archive_id = ?")).toEqual({
      result: JSON.stringify(counts),
    });

    await stores.log.appendLog({
      archiveId: a,
      origin: "webhook",
      ref: "d1",
      status: "ok",
      counts,
      error: null,
      at: T1,
      durationMs: 5,
    });
    const [entry] = await stores.log.listLog(a, 10);
    expect(entry?.counts).toEqual(counts);
    expect(await text("SELECT counts FROM ingest_log WHERE archive_id = ?")).toEqual({
      counts: JSON.stringify(counts),
    });
    expect(await stores.log.listLog(a, 10, entry?.id)).toEqual([]);

    expect(
      await stores.sources.createSource({
        archiveId: a,
        id: "s1",
        kind: "github",
        location: "o/r",
        query: "",
        intervalMinutes: 60,
        paused: 0,
        createdAt: T0,
        nextRunAt: T0,
        lastRunAt: null,
        lastChangeAt: null,
        lastStatus: null,
        lastError: null,
        failures: 0,
        etag: null,
        lastModified: null,
        contentHash: null,
        state: {},
        lastCounts: null,
      }),
    ).toBe(true);
    expect(await text("SELECT state, last_counts FROM sources WHERE archive_id = ?")).toEqual({
      state: "{}",
      last_counts: null,
    });
    await stores.sources.updateSource(a, "s1", { state: { files: { "a.ts": "sha1" } }, lastCounts: counts });
    const source = await stores.sources.getSource(a, "s1");
    expect(source?.state.files).toEqual({ "a.ts": "sha1" });
    expect(source?.lastCounts).toEqual(counts);
    expect(await text("SELECT state, last_counts FROM sources WHERE archive_id = ?")).toEqual({
      state: '{"files":{"a.ts":"sha1"}}',
      last_counts: JSON.stringify(counts),
    });
    expect(await stores.sources.claimSource(a, "s1", T0, T1)).toBe(true);
    expect(await stores.sources.claimSource(a, "s1", T0, T1)).toBe(false);
  });

  it("sessions and the access log page their inserts and read back in order", async () => {
    const { a, stores } = await seeded();
    const events = Array.from({ length: 45 }, (_, i) => ({ role: "user", text: `t${i}`, tokens: 1, at: T0 + i }));
    await stores.sessions.appendSession(a, "s", events);
    expect((await stores.sessions.recent(a, "s", T0 + 44, 3)).map((e) => e.text)).toEqual(["t44", "t43", "t42"]);
    const access = Array.from({ length: 45 }, (_, i) => ({
      chunk: `c${i % 3}`,
      channel: "routing" as const,
      at: T0 + i,
    }));
    await stores.sessions.record(a, access, "s");
    expect(await stores.sessions.recentForSession(a, "s", T1)).toEqual([
      { chunk: "c2", at: T0 + 44 },
      { chunk: "c1", at: T0 + 43 },
      { chunk: "c0", at: T0 + 42 },
    ]);
    const stats = await stores.changes.accessStats(a);
    expect(stats.map((s) => [s.chunk, s.count]).sort()).toEqual([
      ["c0", 15],
      ["c1", 15],
      ["c2", 15],
    ]);
  });

  it("D1Store and WorldStore answer from the same rows (the Durable Object builds a D1Store)", async () => {
    const { a, stores } = await seeded();
    const old = new D1Store(env.DB);
    await old.recordSnapshot({ archiveId: a, seq: 3, r2Key: "snap/3", bytes: 10, heads: 1, createdAt: T1 });
    expect(await stores.changes.latestSnapshot(a)).toEqual({
      archiveId: a,
      seq: 3,
      r2Key: "snap/3",
      bytes: 10,
      heads: 1,
      createdAt: T1,
    });
    expect(await old.readLog(a, 0, 10)).toEqual(await stores.changes.readLog(a, 0, 10));
    expect(await old.getArchive(a)).toEqual({
      id: a,
      name: "d1 stores",
      description: "",
      params: { alpha: 0.8 },
      createdAt: T0,
    });
    expect(await old.accessStats(a)).toEqual([]);

    // src/wiring.ts hands `stores.world` to the feed pipelines as all four world-side stores.
    const world = stores.world as WorldStore;
    expect(world).toBeInstanceOf(WorldStore);
    expect(await world.listWebhooks(a)).toEqual([]);
    expect(await world.listSources(a)).toEqual([]);
    expect(await world.listLog(a, 5)).toEqual([]);
    expect(await new WorldStore(env.DB).chunksByIds(a, ["arxiv:2005.11401"])).toEqual(
      await stores.world.chunksByIds(a, ["arxiv:2005.11401"]),
    );
  });
});

/**
 * A D1 binding that records, per bound statement, how many parameters it binds, and per batch how
 * many statements it holds. Every statement drizzle runs is bound once; one that is not part of a
 * batch is a round trip of its own.
 */
function countingD1(db: D1Database) {
  const log = { params: [] as number[], batches: [] as number[] };
  const wrapped = new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare")
        return (query: string) => {
          const stmt = target.prepare(query);
          const bind = stmt.bind.bind(stmt);
          stmt.bind = (...values: unknown[]) => {
            log.params.push(values.length);
            return bind(...values);
          };
          return stmt;
        };
      if (prop === "batch")
        return (stmts: D1PreparedStatement[]) => {
          log.batches.push(stmts.length);
          return target.batch(stmts);
        };
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { db: wrapped, log };
}

describe("ingest writes in D1", () => {
  // 200 artifacts, each with 3 edges and 2 entities (one of them shared by the whole batch).
  const batch = (content: string, edges: number): ArtifactInput[] =>
    Array.from({ length: 200 }, (_, i) => ({
      id: `note:${i}`,
      kind: "note",
      title: `Note ${i}`,
      content: `${content} ${i}.`,
      entities: [
        { type: "method", id: `method:m${i}`, name: `Method ${i}` },
        { type: "dataset", id: "dataset:shared", name: "Shared" },
      ],
      edges: Array.from({ length: edges }, (_, k) => ({ type: "cites" as const, target: `note:${(i + k + 1) % 200}` })),
      valid_from: content.startsWith("Second") ? T1 : T0,
    }));

  async function ingestBatch(stores: Stores, a: string, artifacts: ArtifactInput[]) {
    const prepared = prepareBatch(artifacts);
    if (!prepared.ok) throw new Error(prepared.error.message);
    const existing = await stores.chunks.loadExisting(a, prepared.value.chunkIds, prepared.value.entityIds);
    const planned = await planIngest(a, prepared.value, existing, T1, async () => "");
    if (!planned.ok) throw new Error(planned.error.message);
    return { existing, plan: planned.value };
  }

  it("loads what exists in one batch and writes 200 artifacts in multi-row statements of <= 100 parameters", async () => {
    const a = archive();
    const { db, log } = countingD1(env.DB);
    const stores = d1Stores(db);
    await stores.archives.createArchive({ id: a, name: "ingest writes", description: "", params: {}, createdAt: T0 });
    log.params.length = 0;

    const first = await ingestBatch(stores, a, batch("First text of the note", 3));
    // loadExisting: one batch of SELECTs (3 IN-lists of chunk ids x 2 tables + 3 of entity ids x 2), nothing else.
    expect(log.batches).toEqual([12]);
    expect(log.params).toHaveLength(12);
    log.params.length = 0;
    log.batches.length = 0;
    expect((await stores.chunks.executePlan(a, first.plan, T0, (c) => c)).ok).toBe(true);
    expect(log.batches).toHaveLength(1);
    // 200 versions in rows of 5, 200 chunk rows in rows of 12, 600 edges in rows of 10, 201
    // entities in rows of 20, 401 aliases in rows of 16, 602 entity events in rows of 16, 1,402
    // change-log ops in rows of 33: 40 + 17 + 60 + 11 + 26 + 38 + 43 = 235 statements (one INSERT
    // per version and one per chunk row made it 578).
    expect(log.batches[0]).toBe(235);
    expect(log.params).toHaveLength(235);
    expect(Math.max(...log.params)).toBeLessThanOrEqual(100);

    // A second version of every artifact drops two of its three edges and keeps one.
    log.params.length = 0;
    log.batches.length = 0;
    const second = await ingestBatch(stores, a, batch("Second text of the note", 1));
    expect(log.batches).toHaveLength(1);
    expect(second.existing.chunks.size).toBe(200);
    expect(second.existing.chunks.get("note:7")?.openEdges).toHaveLength(3);
    expect(second.existing.entities.size).toBe(201);
    expect(second.existing.aliases.size).toBe(401);
    expect(second.plan.edgeCloses).toHaveLength(400);
    log.params.length = 0;
    log.batches.length = 0;
    expect((await stores.chunks.executePlan(a, second.plan, T1, (c) => c)).ok).toBe(true);
    // Closes: 200 versions (one valid_from) in UPDATEs of 45, 400 edges (one time) in UPDATEs of 32.
    expect(log.batches).toHaveLength(1);
    expect(Math.max(...log.params)).toBeLessThanOrEqual(100);
    const closed = await env.DB.prepare(
      "SELECT (SELECT COUNT(*) FROM chunk_versions WHERE archive_id = ?1 AND version = 1 AND valid_to = ?2) AS versions, (SELECT COUNT(*) FROM edges WHERE archive_id = ?1 AND valid_to = ?2) AS edges, (SELECT COUNT(*) FROM edges WHERE archive_id = ?1 AND valid_to IS NULL) AS open, (SELECT COUNT(*) FROM chunks WHERE archive_id = ?1 AND latest_version = 2 AND updated_at = ?2) AS heads",
    )
      .bind(a, T1)
      .first();
    expect(closed).toEqual({ versions: 200, edges: 400, open: 200, heads: 200 });
  });
});
