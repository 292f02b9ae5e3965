/**
 * The per-aggregate D1 adapters (src/adapters/d1) against local D1: what they write is the stored text
 * the single store wrote before the split (JSON columns, entity-event details, the change log), the
 * shared lookups answer as before (more ids than one IN-list holds, duplicates, unknown ids), and the
 * Durable Object's stores and the joined world-side object answer from the same rows.
 */
import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { d1Stores } from "../../src/adapters/d1";
import { d1Db } from "../../src/adapters/d1/queries";
import * as schema from "../../src/adapters/d1/schema";
import { capitalDeps } from "../../src/adapters/do/capital-object";
import { beforeWindow } from "../../src/core/capital/split";
import { type ArtifactInput, type IngestPlan, planIngest, prepareBatch } from "../../src/core/ingest";
import type { Stores } from "../../src/core/ports";
import type { ChangeOp } from "../../src/core/types";

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

async function seeded(): Promise<{ a: string; stores: ReturnType<typeof d1Stores> }> {
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
    // The rename's entity.upsert carries the new name to the routing object (what resolve shows).
    expect(log.map((e) => e.op.op)).toEqual([
      "head.deprecate",
      "head.deprecate",
      "alias.add",
      "alias.close",
      "entity.upsert",
    ]);
    expect(log.at(-1)?.op).toMatchObject({ op: "entity.upsert", id: "method:rag", name: "RAG-2", type: "method" });
    expect(log.map((e) => e.seq)).toEqual([...log.map((e) => e.seq)].sort((x, y) => x - y));

    const edges = await stores.exports.edgePage(a, 0, 10);
    expect(edges.map((e) => [e.dst, e.validTo])).toEqual([["arxiv:1", null]]);
    expect(await stores.exports.edgePage(a, 0, 10, T0 - 1)).toEqual([]);
    expect((await stores.exports.edgePage(a, 0, 10, T1)).map((e) => e.dst)).toEqual(["arxiv:1"]);
  });

  it("readLogBefore answers what beforeWindow leaves of each change, only before the given position", async () => {
    const a = archive();
    const stores = d1Stores(env.DB);
    const ops: ChangeOp[] = [
      {
        op: "head.upsert",
        chunk: "note:a",
        kind: "note",
        version: 1,
        validFrom: T0,
        recordedAt: T0,
        entities: ["concept:alpha"],
        boundaries: ["x"],
        sketch: "AAAA",
        terms: "alpha:2 beta:1",
        len: 3,
        owns: ["concept:a"],
      },
      {
        op: "head.upsert",
        chunk: "note:b",
        kind: "record",
        version: 1,
        validFrom: T0,
        recordedAt: T0,
        entities: [],
        boundaries: [],
        sketch: "BBBB",
      },
      { op: "head.sketch", chunk: "note:a", version: 1, sketch: "CCCC" },
      { op: "head.extend", chunk: "note:a", version: 1, entities: ["concept:gamma"], at: T1 },
      { op: "edge.upsert", src: "note:a", dst: "note:b", type: "cites", weight: 0.5, validFrom: T0, validTo: null },
      { op: "edge.close", src: "note:a", dst: "note:b", type: "cites", at: T1 },
      { op: "head.deprecate", chunk: "note:b", at: T1, by: "note:a" },
      { op: "entity.upsert", id: "concept:alpha", type: "concept", name: "Alpha", at: T0 },
      { op: "alias.add", entity: "concept:alpha", alias: "Alpha", validFrom: T0, validTo: null },
      { op: "alias.close", entity: "concept:alpha", alias: "Alpha", at: T1 },
      { op: "entity.merge", from: "concept:a", into: "concept:alpha", at: T1 },
    ];
    for (const op of ops)
      await env.DB.prepare("INSERT INTO change_log(archive_id, op, at) VALUES (?, ?, ?)")
        .bind(a, JSON.stringify(op), T0)
        .run();
    const full = await stores.changes.readLog(a, 0, 100);
    expect(full.map((c) => c.op)).toEqual(ops);
    const first = full[0]?.seq as number;
    const last = full.at(-1)?.seq as number;
    const light = await stores.changes.readLogBefore(a, 0, last + 1, 100);
    expect(light).toEqual(full.map((c) => ({ seq: c.seq, op: beforeWindow(c.op) })));
    expect(light[0]?.op).toEqual({
      op: "head.upsert",
      chunk: "note:a",
      kind: "note",
      version: 1,
      validFrom: T0,
      recordedAt: T0,
      entities: [],
      boundaries: [],
      sketch: "",
    });
    // Only the changes after `afterSeq` and before `beforeSeq`, at most `limit` of them.
    expect((await stores.changes.readLogBefore(a, first, first + 4, 100)).map((c) => c.seq)).toEqual([
      first + 1,
      first + 2,
      first + 3,
    ]);
    expect((await stores.changes.readLogBefore(a, first, last + 1, 2)).map((c) => c.seq)).toEqual([
      first + 1,
      first + 2,
    ]);
    // Whole changes at given positions, in order; positions not in the archive's log are left out.
    expect(await stores.changes.readLogAt(a, [last, first, last + 50])).toEqual([full[0], full.at(-1)]);
    expect(await stores.changes.readLogAt(a, [])).toEqual([]);
    expect(await stores.changes.readLogAt(`${a}-other`, [first])).toEqual([]);
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

  it("derived edges: rows by position under an epoch, a mark that only moves forward, a reset that moves the epoch on", async () => {
    const { a, stores } = await seeded();
    const log = stores.changes;
    expect(await log.derivedMark(a)).toEqual({ epoch: 0, seq: 0 });
    const rows = [
      { seq: 5, edges: [[1, 2, 0, T0] as [number, number, number, number]] },
      {
        seq: 9,
        edges: [[3, 1, 1, T1] as [number, number, number, number], [4, 2, 0, T1] as [number, number, number, number]],
      },
    ];
    expect(await log.writeDerived(a, 0, rows, 10)).toBe(true);
    expect(await log.derivedMark(a)).toEqual({ epoch: 0, seq: 10 });
    expect(await log.readDerived(a, 0, 0, 10)).toEqual(rows);
    expect(await log.readDerived(a, 0, 5, 8)).toEqual([]);
    // Written again (a names shard re-deriving after a restart): the same rows, the mark not moved back.
    expect(await log.writeDerived(a, 0, [rows[0] as (typeof rows)[number]], 6)).toBe(true);
    expect(await log.derivedMark(a)).toEqual({ epoch: 0, seq: 10 });
    expect(await log.readDerived(a, 0, 0, 10)).toEqual(rows);
    // A reset (the names shard's storage wiped) drops the rows and moves the epoch on; a names shard
    // loaded under the old epoch can no longer move the mark, and its rows are not read.
    await log.resetDerived(a);
    expect(await log.derivedMark(a)).toEqual({ epoch: 1, seq: 0 });
    expect(await log.readDerived(a, 1, 0, 100)).toEqual([]);
    expect(await log.writeDerived(a, 0, rows, 12)).toBe(false);
    expect(await log.derivedMark(a)).toEqual({ epoch: 1, seq: 0 });
    expect(await log.readDerived(a, 1, 0, 100)).toEqual([]);
    expect(await log.writeDerived(a, 1, rows, 12)).toBe(true);
    expect(await log.readDerived(a, 1, 0, 100)).toEqual(rows);
    // ...nor replace the rows of the newer epoch.
    expect(await log.writeDerived(a, 0, [{ seq: 5, edges: [] }], 12)).toBe(false);
    expect(await log.readDerived(a, 1, 0, 100)).toEqual(rows);
    // An archive with no mark keeps none after a reset (a deleted archive leaves no row).
    const b = archive();
    await log.resetDerived(b);
    expect(await log.derivedMark(b)).toEqual({ epoch: 0, seq: 0 });
  });

  it("the Durable Object's stores and the joined world side answer from the same rows", async () => {
    const { a, stores } = await seeded();
    const old = capitalDeps(env);
    await old.log.recordSnapshot({ archiveId: a, seq: 3, r2Key: "snap/3", bytes: 10, heads: 1, createdAt: T1 });
    expect(await stores.changes.latestSnapshot(a)).toEqual({
      archiveId: a,
      seq: 3,
      r2Key: "snap/3",
      bytes: 10,
      heads: 1,
      createdAt: T1,
    });
    expect(await old.log.readLog(a, 0, 10)).toEqual(await stores.changes.readLog(a, 0, 10));
    expect(await old.archives.getArchive(a)).toEqual({
      id: a,
      name: "d1 stores",
      description: "",
      params: { alpha: 0.8 },
      createdAt: T0,
    });
    expect(await old.log.accessStats(a)).toEqual([]);

    // src/wiring.ts hands `stores.world` to the feed pipelines as all four world-side stores.
    const world = stores.world;
    expect(await world.listWebhooks(a)).toEqual([]);
    expect(await world.listSources(a)).toEqual([]);
    expect(await world.listLog(a, 5)).toEqual([]);
    expect(await world.chunksByIds(a, ["arxiv:2005.11401"])).toEqual(
      await d1Stores(env.DB).world.chunksByIds(a, ["arxiv:2005.11401"]),
    );
  });
});

describe("JSON columns typed at the adapter", () => {
  const id = "arxiv:2005.11401";
  const codeId = "code:repo/src/lru.ts";
  const symbols = [
    {
      name: "evictLru",
      kind: "function" as const,
      signature: "export function evictLru()",
      line: 1,
      exported: true,
      start: 0,
      end: 26,
    },
  ];
  const annotation = { status: "ok", anchors: [{ artifact_id: id, start: 0, end: 3 }], weight: 0.25 };
  const counts = { created: 1, updated: 0, unchanged: 2, deprecated: 0, failed: 0 };
  const payload = {
    id: "evt_1",
    type: "chunk.created",
    archive: "x",
    created_at: "2024-01-01T00:00:00.000Z",
    data: { id },
  };
  const aggregate = { queries: 1, hit_rate: 1, mrr: 0.5, recall: { "1": 0, "5": 1 }, precision: { "1": 0, "5": 0.2 } };
  const perQuery = [
    {
      query: "rag",
      gold: [id],
      returned: ["x", id],
      hit: 1,
      reciprocal_rank: 0.5,
      first_rank: 2,
      recall: { "1": 0, "5": 1 },
      precision: { "1": 0, "5": 0.2 },
    },
  ];

  /** Every store with a JSON column written once through its port; `b` is an archive deleted whole. */
  async function populated() {
    const { a, stores } = await seeded();
    const code = plan(codeId);
    const v = code.versions[0];
    if (!v) throw new Error("no version");
    code.versions[0] = { ...v, kind: "code_unit", entities: [], mentions: [], relations: undefined, symbols };
    code.edgeInserts = [];
    code.entityInserts = [];
    code.aliasInserts = [];
    code.results = [{ id: codeId, status: "created", version: 1 }];
    expect((await stores.chunks.executePlan(a, code, T0, (c) => `v:${c}`)).ok).toBe(true);
    const base = { archiveId: a, chunkId: id, version: 1, op: "set", actor: "t", reason: "", at: T0, recordedAt: T0 };
    await stores.annotations.appendAnnotation({ ...base, key: "note", value: annotation, eventId: "e1" });
    await stores.annotations.appendAnnotation({ ...base, key: "empty", value: null, eventId: "e2" });
    await stores.annotations.appendAnnotations([
      { ...base, key: "many", value: null, eventId: null },
      { ...base, key: "count", value: 3, eventId: null },
    ]);
    await stores.webhooks.putWebhook({
      archiveId: a,
      name: "gh",
      kind: "github",
      secret: "s",
      options: {},
      createdAt: T0,
    });
    await stores.webhooks.insertDelivery({
      archiveId: a,
      webhook: "gh",
      deliveryId: "d1",
      kind: "generic",
      event: "ingest",
      bodyKey: "bodies/d1",
      bodySha: "sha",
      status: "ingested",
      attempts: 1,
      result: counts,
      error: null,
      receivedAt: T0,
      updatedAt: T0,
      chunkIds: [id],
    });
    await stores.events.putSubscription({
      archiveId: a,
      name: "sub",
      url: "https://example.com/hook",
      secret: "s",
      events: ["chunk.created"],
      createdAt: T0,
    });
    await stores.events.insertEvents([
      {
        archiveId: a,
        id: "evt_1",
        subscription: "sub",
        type: "chunk.created",
        payload,
        status: "pending",
        attempts: 0,
        responseStatus: null,
        error: null,
        createdAt: T0,
        updatedAt: T0,
      },
    ]);
    await stores.retrievalRuns.insertRun({
      archiveId: a,
      id: "run_1",
      name: "baseline",
      createdAt: T0,
      asOf: T0,
      ks: [1, 5],
      queries: 1,
      aggregate,
      perQuery,
      actor: "t",
    });
    await stores.log.appendLog({
      archiveId: a,
      origin: "import",
      ref: "r",
      status: "ok",
      counts,
      error: null,
      at: T0,
      durationMs: 1,
    });
    const b = `${a}-gone`;
    await stores.archives.createArchive({ id: b, name: "gone", description: "", params: {}, createdAt: T0 });
    expect(await stores.forget.forgetArchive(b, "admin", T1)).not.toBeNull();
    return { a, b, stores };
  }

  const raw = (sql: string, ...binds: unknown[]) =>
    env.DB.prepare(sql)
      .bind(...binds)
      .first();
  /** A version's mentions as the column reads them (no port returns them; the hard delete reads them). */
  const mentionsOf = async (a: string, chunk: string) => {
    const v = schema.chunkVersions;
    const [row] = await d1Db(env.DB)
      .select({ mentions: v.mentions })
      .from(v)
      .where(and(eq(v.archiveId, a), eq(v.chunkId, chunk)));
    return row?.mentions;
  };

  it("reads back the values written, stored as the JSON.stringify text written before", async () => {
    const { a, b, stores } = await populated();
    const p = plan(id).versions[0];
    const [version] = (await stores.chunks.chunkHistory(a, id))?.versions ?? [];
    expect(version?.entities).toEqual(p?.entities);
    expect(version?.boundaries).toEqual(p?.boundaries);
    expect(version?.edges).toEqual(p?.edges);
    expect(version?.relations).toEqual(p?.relations);
    expect(version && "mentions" in version).toBe(false);
    expect(await mentionsOf(a, id)).toEqual(p?.mentions);
    expect(version?.symbols).toBeNull();
    expect(
      await raw(
        "SELECT entities, boundaries, edges, relations, mentions, symbols FROM chunk_versions WHERE archive_id = ? AND chunk_id = ?",
        a,
        id,
      ),
    ).toEqual({
      entities: JSON.stringify(p?.entities),
      boundaries: JSON.stringify(p?.boundaries),
      edges: JSON.stringify(p?.edges),
      relations: JSON.stringify(p?.relations),
      mentions: JSON.stringify(p?.mentions),
      symbols: null,
    });
    // A code unit: no relations or mentions (NULL), its declarations as written.
    const [code] = (await stores.chunks.chunkHistory(a, codeId))?.versions ?? [];
    expect([code?.relations, code?.symbols, await mentionsOf(a, codeId)]).toEqual([null, symbols, null]);
    expect((await stores.chunks.codeModules(a, "code:", T1, 10)).map((m) => m.symbols)).toEqual([symbols]);
    expect(
      await raw(
        "SELECT symbols, relations, mentions FROM chunk_versions WHERE chunk_id = ? AND archive_id = ?",
        codeId,
        a,
      ),
    ).toEqual({
      symbols: JSON.stringify(symbols),
      relations: null,
      mentions: null,
    });
    const listed = await stores.chunks.listChunks(a, { asOf: T1 }, null, 10);
    expect(listed.map((r) => [r.chunkId, r.entities, r.boundaries])).toEqual([
      [id, [id, "method:rag"], ["nlp"]],
      [codeId, [], ["nlp"]],
    ]);
    // The ids of the same page, nothing else read.
    expect(await stores.chunks.listChunkIds(a, { asOf: T1 }, null, 10)).toEqual([id, codeId]);
    expect(await stores.chunks.listChunkIds(a, { asOf: T1, kind: "code_unit" }, null, 10)).toEqual([codeId]);
    expect(await stores.chunks.listChunkIds(a, { asOf: T1 }, id, 10)).toEqual([codeId]);

    // Annotation values: any JSON value; null is stored as the text null.
    const notes = await stores.annotations.annotationsOf(a, [id], undefined, T1);
    expect(Object.fromEntries(notes.map((n) => [n.key, n.value]))).toEqual({
      note: annotation,
      empty: null,
      many: null,
      count: 3,
    });
    expect((await stores.annotations.annotationByEventId(a, "e1"))?.value).toEqual(annotation);
    const stored = await env.DB.prepare("SELECT key, value FROM annotations WHERE archive_id = ? ORDER BY id")
      .bind(a)
      .all();
    expect(stored.results).toEqual([
      { key: "note", value: JSON.stringify(annotation) },
      { key: "empty", value: "null" },
      { key: "many", value: "null" },
      { key: "count", value: "3" },
    ]);

    expect((await stores.webhooks.getWebhook(a, "gh"))?.options).toEqual({});
    const delivery = await stores.webhooks.getDelivery(a, "gh", "d1");
    expect([delivery?.result, delivery?.chunkIds]).toEqual([counts, [id]]);
    expect(await raw("SELECT result, chunk_ids FROM webhook_deliveries WHERE archive_id = ?", a)).toEqual({
      result: JSON.stringify(counts),
      chunk_ids: JSON.stringify([id]),
    });
    expect(await raw("SELECT options FROM webhooks WHERE archive_id = ?", a)).toEqual({ options: "{}" });
    expect((await stores.events.getSubscription(a, "sub"))?.events).toEqual(["chunk.created"]);
    expect((await stores.events.getEvent(a, "evt_1"))?.payload).toEqual(payload);
    expect(await raw("SELECT events FROM subscriptions WHERE archive_id = ?", a)).toEqual({
      events: '["chunk.created"]',
    });
    expect(await raw("SELECT payload FROM event_deliveries WHERE archive_id = ?", a)).toEqual({
      payload: JSON.stringify(payload),
    });
    const run = await stores.retrievalRuns.getRun(a, "run_1");
    expect([run?.ks, run?.aggregate, run?.perQuery]).toEqual([[1, 5], aggregate, perQuery]);
    expect((await stores.retrievalRuns.listRuns(a, null, 5)).map((r) => [r.ks, r.aggregate])).toEqual([
      [[1, 5], aggregate],
    ]);
    expect(await raw("SELECT ks, aggregate, per_query FROM retrieval_runs WHERE archive_id = ?", a)).toEqual({
      ks: "[1,5]",
      aggregate: JSON.stringify(aggregate),
      per_query: JSON.stringify(perQuery),
    });
    const [deletion] = await stores.forget.deletions(b, 5);
    const deleted = { chunks: 0, versions: 0, edges: 0, entities: 0, log_ops: 0 };
    expect(deletion?.counts).toEqual(deleted);
    expect(await raw("SELECT counts FROM deletions WHERE archive_id = ?", b)).toEqual({
      counts: JSON.stringify(deleted),
    });
    expect(await raw("SELECT params FROM archives WHERE id = ?", a)).toEqual({ params: '{"alpha":0.8}' });
  });

  it("reads text that is not JSON (or not a JSON array in a list column) as each field's fallback", async () => {
    const { a, b, stores } = await populated();
    const corrupt = async (table: string, set: string, key = "archive_id", value: string = a) =>
      await env.DB.prepare(`UPDATE ${table} SET ${set} WHERE ${key} = ?`).bind(value).run();
    await corrupt(
      "chunk_versions",
      `entities = '{"not":"a list"}', boundaries = '["nlp"', edges = 'oops', relations = '{}', mentions = '[', symbols = 'x'`,
    );
    await corrupt("entity_events", "detail = '{'");
    await corrupt("annotations", "value = 'not json'");
    await corrupt("webhooks", "options = '{'");
    await corrupt("webhook_deliveries", "result = '{', chunk_ids = '\"x\"'");
    await corrupt("subscriptions", "events = '{'");
    await corrupt("event_deliveries", "payload = '{'");
    await corrupt("retrieval_runs", "ks = '{', aggregate = '[', per_query = 'null'");
    await corrupt("ingest_log", "counts = '{'");
    await corrupt("archives", "params = '{'", "id");
    await corrupt("deletions", "counts = '{'", "archive_id", b);

    const [version] = (await stores.chunks.chunkHistory(a, id))?.versions ?? [];
    expect(version && { ...version }).toMatchObject({
      entities: [],
      boundaries: [],
      edges: [],
      relations: null,
      symbols: [],
    });
    expect(await mentionsOf(a, id)).toEqual([]);
    expect((await stores.chunks.visibleAt(a, [id], T1)).get(id)?.boundaries).toEqual([]);
    expect((await stores.chunks.exact(a, id, 1))?.boundaries).toEqual([]);
    expect((await stores.chunks.entitiesAt(a, [id], T1)).get(id)).toEqual([]);
    expect((await stores.chunks.codeModules(a, "code:", T1, 10)).map((m) => m.symbols)).toEqual([[]]);
    expect((await stores.chunks.listChunks(a, { asOf: T1 }, null, 10)).map((r) => [r.entities, r.boundaries])).toEqual([
      [[], []],
      [[], []],
    ]);
    const [paper] = await stores.discovery.papersOf(a, [id], T1);
    expect([paper?.entities, paper?.boundaries]).toEqual([[], []]);
    const [shown] = (
      await stores.exports.shownVersions(a, await stores.exports.chunksByIds(a, [id]), undefined)
    ).values();
    expect([shown?.entities, shown?.edges, shown?.relations]).toEqual([[], [], null]);
    expect((await stores.world.latestHead(a, id))?.parts).toEqual({
      entities: [],
      boundaries: [],
      edges: [],
      relations: null,
    });
    expect((await stores.entities.entityHistory(a, "method:rag"))?.events.map((e) => e.detail)).toEqual([{}, {}]);

    expect(new Set((await stores.annotations.annotationsOf(a, [id], undefined, T1)).map((n) => n.value))).toEqual(
      new Set([null]),
    );
    expect((await stores.webhooks.getWebhook(a, "gh"))?.options).toEqual({});
    const delivery = await stores.webhooks.getDelivery(a, "gh", "d1");
    expect([delivery?.result, delivery?.chunkIds]).toEqual([null, []]);
    expect((await stores.events.listSubscriptions(a)).map((s) => s.events)).toEqual([[]]);
    expect((await stores.events.getEvent(a, "evt_1"))?.payload).toEqual({});
    const run = await stores.retrievalRuns.getRun(a, "run_1");
    expect([run?.ks, run?.aggregate, run?.perQuery]).toEqual([
      [],
      { queries: 0, hit_rate: 0, mrr: 0, recall: {}, precision: {} },
      [],
    ]);
    expect((await stores.log.listLog(a, 5)).map((e) => e.counts)).toEqual([null]);
    expect((await stores.archives.getArchive(a))?.params).toEqual({});
    expect((await stores.forget.deletions(b, 5)).map((d) => d.counts)).toEqual([{}]);
  });

  it("source state and last counts read as their fallbacks when not JSON", async () => {
    const { a, stores } = await seeded();
    const source = {
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
      state: { files: { "a.ts": "sha1" }, commit: "c1" },
      lastCounts: counts,
    };
    expect(await stores.sources.createSource(source)).toBe(true);
    expect(await stores.sources.getSource(a, "s1")).toEqual(source);
    await env.DB.prepare("UPDATE sources SET state = 'nope', last_counts = '{' WHERE archive_id = ?").bind(a).run();
    const [read] = await stores.sources.listSources(a);
    expect([read?.state, read?.lastCounts]).toEqual([{ files: {} }, null]);
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
