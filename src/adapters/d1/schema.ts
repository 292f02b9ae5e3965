/**
 * D1 schema (drizzle). D1 is the source of truth for everything small; R2 holds contents and the
 * capital-chunk snapshots; the Durable Object holds a rebuildable in-memory copy of the routing surface.
 * Times are epoch milliseconds; NULL valid_to means open-ended. JSON columns are TEXT typed at the
 * driver (jsonText, jsonList): the rows drizzle returns hold parsed values.
 */

import { type SQL, sql } from "drizzle-orm";
import { customType, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { CodeSymbol } from "../../core/code/table";
import type { Extraction, StoredExtraction } from "../../core/extraction";
import type { EdgeInput } from "../../core/ingest";
import {
  type MentionRecord,
  type PurgePlan,
  type RetrievalAggregate,
  type RetrievalQueryRecord,
  readJsonColumn,
  type SourceState,
  type WebhookOptions,
} from "../../core/ports";
import type { RelationInput } from "../../core/relations";

/**
 * A JSON column: written as JSON.stringify of the value; read with readJsonColumn, so text that is
 * not JSON, or that `accept` refuses, reads as `fallback()` (a fresh value per row). SQL NULL reads
 * as null and a JS null is written as SQL NULL: drizzle maps NULL past these two functions (see
 * jsonNullAsText). Raw SQL reads decode a column's text with its mapFromDriverValue (queries.ts).
 */
export function jsonText<T>(name: string, fallback: () => T, accept: (v: unknown) => boolean = () => true) {
  return customType<{ data: T; driverData: string }>({
    dataType: () => "text",
    toDriver: (value) => JSON.stringify(value),
    fromDriver: (text) => {
      const v = readJsonColumn<unknown>(text, undefined);
      return v !== undefined && accept(v) ? (v as T) : fallback();
    },
  })(name);
}

/** A JSON list column: text that is not a JSON array reads as []. */
export function jsonList<T>(name: string) {
  return jsonText<T[]>(name, () => [], Array.isArray);
}

/**
 * The value to write to a NOT NULL JSON column that may hold JSON null: drizzle binds a JS null as
 * SQL NULL without calling toDriver, so null goes as the text `null` (what JSON.stringify writes).
 */
export function jsonNullAsText<T>(value: T): T | SQL {
  return value === null ? sql`'null'` : value;
}

export const archives = sqliteTable("archives", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  /** JSON of KernelParams overrides. */
  params: jsonText<Record<string, unknown>>("params", () => ({}))
    .notNull()
    .default({}),
  createdAt: integer("created_at").notNull(),
  /** The embedding space of the archive's vectors and head sketches (docs/models.md); NULL before its first embedded ingest. */
  embedModel: text("embed_model"),
  embedDims: integer("embed_dims"),
  /** Since when some heads have no vector (or sketch) in that space; NULL: none. */
  embedStaleAt: integer("embed_stale_at"),
});

/** Re-embeds of an archive into the configured embedder's space (src/app/reembed.ts); at most one running. */
export const reembedJobs = sqliteTable(
  "reembed_jobs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    archiveId: text("archive_id").notNull(),
    /** running | done | failed */
    status: text("status").notNull(),
    model: text("model").notNull(),
    dims: integer("dims").notNull(),
    fromModel: text("from_model"),
    fromDims: integer("from_dims"),
    total: integer("total").notNull(),
    done: integer("done").notNull().default(0),
    removed: integer("removed").notNull().default(0),
    pages: integer("pages").notNull().default(0),
    /** The last chunk id re-embedded; the next page starts after it (NULL: from the first). */
    cursor: text("cursor"),
    attempts: integer("attempts").notNull().default(0),
    /** 1 when a head was written meanwhile without a vector in the target space. */
    targetStale: integer("target_stale").notNull().default(0),
    errors: jsonList<{ at: number; message: string }>("errors").notNull().default([]),
    startedAt: integer("started_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    finishedAt: integer("finished_at"),
  },
  (t) => [
    index("reembed_jobs_archive").on(t.archiveId, t.id),
    uniqueIndex("reembed_jobs_running").on(t.archiveId).where(sql`status = 'running'`),
  ],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    archiveId: text("archive_id").notNull(),
    /** SHA-256 hex of the secret; the secret itself is shown once and never stored. */
    keyHash: text("key_hash").notNull(),
    label: text("label").notNull().default(""),
    /** Comma-separated scopes: read, write. */
    scopes: text("scopes").notNull(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash").on(t.keyHash), index("api_keys_archive").on(t.archiveId)],
);

export const chunks = sqliteTable(
  "chunks",
  {
    archiveId: text("archive_id").notNull(),
    chunkId: text("chunk_id").notNull(),
    kind: text("kind").notNull(),
    latestVersion: integer("latest_version").notNull(),
    firstValidFrom: integer("first_valid_from").notNull(),
    deprecatedAt: integer("deprecated_at"),
    deprecatedBy: text("deprecated_by"),
    /** Id used in the vector index (the chunk id, or a hash when longer than Vectorize's 64 bytes). */
    vectorId: text("vector_id").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.archiveId, t.chunkId] }), index("chunks_vector").on(t.archiveId, t.vectorId)],
);

export const chunkVersions = sqliteTable(
  "chunk_versions",
  {
    archiveId: text("archive_id").notNull(),
    chunkId: text("chunk_id").notNull(),
    version: integer("version").notNull(),
    kind: text("kind").notNull(),
    title: text("title").notNull(),
    synopsis: text("synopsis").notNull(),
    /** SHA-256 of the normalised artifact (content + head fields): equal hash = idempotent no-op. */
    artifactHash: text("artifact_hash").notNull(),
    /** SHA-256 of the content alone; the R2 key is derived from it. */
    contentHash: text("content_hash").notNull(),
    contentKey: text("content_key").notNull(),
    contentChars: integer("content_chars").notNull(),
    /** JSON string[] of canonical entity ids. */
    entities: jsonList<string>("entities").notNull(),
    /** JSON string[] of boundary tags. */
    boundaries: jsonList<string>("boundaries").notNull(),
    /** JSON of the declared edges of this version. */
    edges: jsonList<EdgeInput>("edges").notNull(),
    /**
     * JSON of the declared relations ({subject, predicate, object, subject_type?, object_type?}); NULL
     * when none. Text that is not a JSON array reads as null.
     */
    relations: jsonText<RelationInput[] | null>("relations", () => null, Array.isArray),
    /**
     * JSON [{entity, spans: [[start, end], ...]}] of the names the ingest analyser grounded in this
     * version's content (concept entities; spans are exact offsets of the content); NULL when none.
     */
    mentions: jsonList<MentionRecord>("mentions"),
    /**
     * JSON [{name, kind, signature, line, exported, start, end}] of a code unit's top-level
     * declarations (TS/JS/Python, by the path in its id or source); [start, end) are exact offsets of
     * the signature line in the content, so a signature is an anchored span. NULL for other chunks.
     */
    symbols: jsonList<CodeSymbol>("symbols"),
    /**
     * JSON of what a language model extracted from this version at ingest (core/extract.ts
     * StoredExtraction: model, entities, relations, ids, added, at); NULL when not extracted. Not
     * part of the artifact hash: the version is the one ingested, extended.
     */
    extracted: jsonText<StoredExtraction | null>(
      "extracted",
      () => null,
      (v) => typeof v === "object" && v !== null && !Array.isArray(v),
    ),
    validFrom: integer("valid_from").notNull(),
    validTo: integer("valid_to"),
    recordedAt: integer("recorded_at").notNull(),
    source: text("source").notNull().default(""),
  },
  (t) => [
    primaryKey({ columns: [t.archiveId, t.chunkId, t.version] }),
    index("versions_time").on(t.archiveId, t.chunkId, t.validFrom),
  ],
);

export const entities = sqliteTable(
  "entities",
  {
    archiveId: text("archive_id").notNull(),
    entityId: text("entity_id").notNull(),
    type: text("type").notNull(),
    name: text("name").notNull(),
    mergedInto: text("merged_into"),
    mergedAt: integer("merged_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.archiveId, t.entityId] })],
);

export const entityAliases = sqliteTable(
  "entity_aliases",
  {
    archiveId: text("archive_id").notNull(),
    entityId: text("entity_id").notNull(),
    alias: text("alias").notNull(),
    aliasNorm: text("alias_norm").notNull(),
    validFrom: integer("valid_from").notNull(),
    validTo: integer("valid_to"),
  },
  (t) => [
    primaryKey({ columns: [t.archiveId, t.entityId, t.aliasNorm, t.validFrom] }),
    index("aliases_norm").on(t.archiveId, t.aliasNorm),
  ],
);

/** Entity history: creation, alias, rename, merge, with the time each took effect. */
export const entityEvents = sqliteTable(
  "entity_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    archiveId: text("archive_id").notNull(),
    entityId: text("entity_id").notNull(),
    op: text("op").notNull(),
    /** JSON object; text that is not JSON reads as {}. */
    detail: jsonText<Record<string, unknown>>("detail", () => ({})).notNull(),
    at: integer("at").notNull(),
    recordedAt: integer("recorded_at").notNull(),
  },
  (t) => [index("entity_events_entity").on(t.archiveId, t.entityId)],
);

export const edges = sqliteTable(
  "edges",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    archiveId: text("archive_id").notNull(),
    src: text("src").notNull(),
    dst: text("dst").notNull(),
    type: text("type").notNull(),
    weight: real("weight").notNull(),
    validFrom: integer("valid_from").notNull(),
    validTo: integer("valid_to"),
    /** Version of the source chunk that declared the edge (0 for lifecycle edges). */
    version: integer("version").notNull(),
    recordedAt: integer("recorded_at").notNull(),
    /** Why the edge exists in the source's words (e.g. the citing sentence), if given. */
    context: text("context"),
  },
  (t) => [
    index("edges_src").on(t.archiveId, t.src),
    index("edges_dst").on(t.archiveId, t.dst),
    uniqueIndex("edges_unique").on(t.archiveId, t.src, t.dst, t.type, t.validFrom),
  ],
);

/**
 * What a language model extracted from a content (core/extract.ts), keyed by the content's SHA-256
 * and the model (with the prompt's version): another version, chunk or archive with the same
 * content is not sent to the model again. A result is derived from the content alone, so an archive
 * reading it learns nothing it does not hold. Forgetting a content's last copy drops its rows.
 */
export const extractionCache = sqliteTable(
  "extraction_cache",
  {
    contentHash: text("content_hash").notNull(),
    model: text("model").notNull(),
    /** JSON {entities, relations}; text that is not a JSON object reads as null (a miss). */
    result: jsonText<Extraction | null>(
      "result",
      () => null,
      (v) => typeof v === "object" && v !== null && !Array.isArray(v),
    ),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.contentHash, t.model] })],
);

/** Ordered changes the capital chunk replays (after its latest snapshot). */
export const changeLog = sqliteTable(
  "change_log",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    archiveId: text("archive_id").notNull(),
    op: text("op").notNull(),
    at: integer("at").notNull(),
  },
  (t) => [index("change_log_archive").on(t.archiveId, t.seq)],
);

/**
 * The shards of an archive's capital chunk beyond the first: shard k holds the nodes whose ids first
 * appear in the change log at or after first_seq (and before the next shard's). A row is written,
 * with first_seq past every change committed so far, before any change it covers.
 */
export const capitalShards = sqliteTable(
  "capital_shards",
  {
    archiveId: text("archive_id").notNull(),
    shard: integer("shard").notNull(),
    firstSeq: integer("first_seq").notNull(),
    openedAt: integer("opened_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.archiveId, t.shard] })],
);

/**
 * Edges the names shard (shard 0) of a sharded archive derived from its name tables (mentions,
 * timelines) while applying the change at `seq`: JSON [ga, gb, type, at] per edge, nodes by
 * archive-wide number. The other shards apply them after that change. `epoch` is the mark's epoch
 * the names shard loaded under; rows of another epoch are ignored.
 */
export const capitalDerived = sqliteTable(
  "capital_derived",
  {
    archiveId: text("archive_id").notNull(),
    seq: integer("seq").notNull(),
    epoch: integer("epoch").notNull(),
    edges: text("edges").notNull(),
  },
  (t) => [primaryKey({ columns: [t.archiveId, t.seq] })],
);

/**
 * How far the names shard has derived (every change up to `seq`), per archive. A hard delete, which
 * renumbers nodes, bumps `epoch` and sets `seq` to 0 in its own batch; a names shard writes the mark
 * only under the epoch it loaded under.
 */
export const capitalDerivedMark = sqliteTable("capital_derived_mark", {
  archiveId: text("archive_id").primaryKey(),
  epoch: integer("epoch").notNull(),
  seq: integer("seq").notNull(),
});

/**
 * One row per hard-deleted chunk id (its SHA-256, not the id): automated writes (imports, webhook
 * deliveries and their replays, source runs) skip it; an explicit ingest creates the id again and
 * records when and by whom here.
 */
export const tombstones = sqliteTable(
  "tombstones",
  {
    archiveId: text("archive_id").notNull(),
    idHash: text("id_hash").notNull(),
    deletedAt: integer("deleted_at").notNull(),
    /** The deletions row of the delete. */
    auditId: integer("audit_id").notNull(),
    recreatedAt: integer("recreated_at"),
    recreatedBy: text("recreated_by"),
  },
  (t) => [primaryKey({ columns: [t.archiveId, t.idHash] })],
);

export const capitalSnapshots = sqliteTable(
  "capital_snapshots",
  {
    archiveId: text("archive_id").notNull(),
    seq: integer("seq").notNull(),
    r2Key: text("r2_key").notNull(),
    bytes: integer("bytes").notNull(),
    heads: integer("heads").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.archiveId, t.seq] })],
);

export const accessEvents = sqliteTable(
  "access_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    archiveId: text("archive_id").notNull(),
    chunkId: text("chunk_id").notNull(),
    channel: text("channel").notNull(),
    at: integer("at").notNull(),
    /** The caller's session (route / expand / context / verify with `session_id`); NULL without one. */
    sessionId: text("session_id"),
  },
  (t) => [
    index("access_chunk").on(t.archiveId, t.chunkId),
    index("access_time").on(t.archiveId, t.at),
    index("access_session").on(t.archiveId, t.sessionId, t.at),
  ],
);

export const sessionEvents = sqliteTable(
  "session_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    archiveId: text("archive_id").notNull(),
    sessionId: text("session_id").notNull(),
    role: text("role").notNull(),
    text: text("text").notNull(),
    tokens: integer("tokens").notNull(),
    at: integer("at").notNull(),
  },
  (t) => [index("session_events_session").on(t.archiveId, t.sessionId, t.id)],
);

// ------------------------------------------------------------------ ingest from the world (issue 4)

/**
 * Per-archive webhook endpoints. The HMAC secret must be readable to verify signatures, so it is
 * stored as given (D1 is encrypted at rest; it never leaves through the API after creation).
 */
export const webhooks = sqliteTable(
  "webhooks",
  {
    archiveId: text("archive_id").notNull(),
    /** Path segment: /v1/archives/{archive}/webhooks/{name}. */
    name: text("name").notNull(),
    /** "generic" (signed ingest JSON) or "github" (push events). */
    kind: text("kind").notNull(),
    secret: text("secret").notNull(),
    /** JSON options, e.g. {"branches":["main"]} for github; text that is not JSON reads as {}. */
    options: jsonText<WebhookOptions>("options", () => ({}))
      .notNull()
      .default({}),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.archiveId, t.name] })],
);

/**
 * Every accepted delivery, keyed by its delivery id: a redelivery finds its row and is acknowledged
 * without a second ingest. Status: received -> queued -> ingested | ignored | retrying -> dead.
 * Dead rows are the dead-letter list an operator reads and replays.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    archiveId: text("archive_id").notNull(),
    webhook: text("webhook").notNull(),
    deliveryId: text("delivery_id").notNull(),
    kind: text("kind").notNull(),
    /** GitHub event name or "ingest". */
    event: text("event").notNull(),
    /** R2 key of the raw body (verified bytes, kept for replay). */
    bodyKey: text("body_key").notNull(),
    bodySha: text("body_sha").notNull(),
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** JSON counts of the last successful run; text that is not JSON reads as null. */
    result: jsonText<object | null>("result", () => null),
    error: text("error"),
    receivedAt: integer("received_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /**
     * JSON string[]: the chunk ids a generic delivery's body carries (null for GitHub pushes, whose
     * bodies name files, not content): a hard delete of one of them removes the raw body.
     */
    chunkIds: jsonList<string>("chunk_ids"),
  },
  (t) => [
    primaryKey({ columns: [t.archiveId, t.webhook, t.deliveryId] }),
    index("deliveries_status").on(t.archiveId, t.status, t.receivedAt),
    // A body accepted once is never applied again under another delivery id (replay protection).
    index("deliveries_body").on(t.archiveId, t.webhook, t.bodySha),
  ],
);

/** Registered sources that cron re-ingests. */
export const sources = sqliteTable(
  "sources",
  {
    archiveId: text("archive_id").notNull(),
    id: text("id").notNull(),
    kind: text("kind").notNull(),
    location: text("location").notNull(),
    query: text("query").notNull().default(""),
    /** Minutes between runs. */
    intervalMinutes: integer("interval_minutes").notNull(),
    paused: integer("paused").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    nextRunAt: integer("next_run_at").notNull(),
    lastRunAt: integer("last_run_at"),
    lastChangeAt: integer("last_change_at"),
    /** ok | not_modified | unchanged | error | partial */
    lastStatus: text("last_status"),
    lastError: text("last_error"),
    /** Consecutive failures; drives exponential backoff. */
    failures: integer("failures").notNull().default(0),
    etag: text("etag"),
    lastModified: text("last_modified"),
    /** SHA-256 of the last response body that was ingested. */
    contentHash: text("content_hash"),
    /** JSON kind-specific state (github: path -> blob sha of what was ingested); not JSON: {files: {}}. */
    state: jsonText<SourceState>("state", () => ({ files: {} }))
      .notNull()
      .default({}),
    /** JSON counts of the last run; text that is not JSON reads as null. */
    lastCounts: jsonText<object | null>("last_counts", () => null),
  },
  (t) => [primaryKey({ columns: [t.archiveId, t.id] }), index("sources_due").on(t.paused, t.nextRunAt)],
);

/** One row per ingest run from the world: webhook delivery, source run or file import. */
export const ingestLog = sqliteTable(
  "ingest_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    archiveId: text("archive_id").notNull(),
    /** webhook | source | import */
    origin: text("origin").notNull(),
    /** delivery id, source id or format. */
    ref: text("ref").notNull(),
    status: text("status").notNull(),
    /** JSON counts; text that is not JSON reads as null. */
    counts: jsonText<object | null>("counts", () => null)
      .notNull()
      .default({}),
    error: text("error"),
    at: integer("at").notNull(),
    durationMs: integer("duration_ms").notNull(),
  },
  (t) => [index("ingest_log_archive").on(t.archiveId, t.id)],
);

/**
 * The audit trail of hard deletes: who deleted what and when, with counts and never any content.
 * Not keyed to a live archive, so a deleted archive's own deletion stays on record.
 */
export const deletions = sqliteTable(
  "deletions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    archiveId: text("archive_id").notNull(),
    /** chunk | entity | archive */
    target: text("target").notNull(),
    targetId: text("target_id").notNull(),
    /** "admin" or "key:<key id>". */
    actor: text("actor").notNull(),
    at: integer("at").notNull(),
    /** JSON counts of what was removed (versions, edges, entities, blobs, vectors, log ops); not JSON: {}. */
    counts: jsonText<Record<string, number>>("counts", () => ({}))
      .notNull()
      .default({}),
  },
  (t) => [index("deletions_archive").on(t.archiveId, t.id)],
);

/** Outbound event subscribers: a URL and an HMAC secret per archive, with the event types they take. */
export const subscriptions = sqliteTable(
  "subscriptions",
  {
    archiveId: text("archive_id").notNull(),
    name: text("name").notNull(),
    url: text("url").notNull(),
    secret: text("secret").notNull(),
    /** JSON string[] of event types; [] = every type. */
    events: jsonList<string>("events").notNull().default([]),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.archiveId, t.name] })],
);

/** One event for one subscriber: its payload (ids and counts, never content) and delivery state. */
export const eventDeliveries = sqliteTable(
  "event_deliveries",
  {
    archiveId: text("archive_id").notNull(),
    id: text("id").notNull(),
    subscription: text("subscription").notNull(),
    type: text("type").notNull(),
    /** The JSON body sent (the signature covers its bytes); text that is not JSON reads as {}. */
    payload: jsonText<Record<string, unknown>>("payload", () => ({})).notNull(),
    /** pending | retrying | delivered | dead */
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    responseStatus: integer("response_status"),
    error: text("error"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.archiveId, t.id] }),
    index("event_deliveries_sub").on(t.archiveId, t.subscription, t.createdAt),
  ],
);

/**
 * Append-only annotations of a chunk (statuses, counters): `set` replaces a key's value, `add` adds
 * a number to it; the value at t folds the events with `at <= t` in (at, id) order.
 */
export const annotations = sqliteTable(
  "annotations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    archiveId: text("archive_id").notNull(),
    chunkId: text("chunk_id").notNull(),
    /** The version the event is about; NULL: the chunk as a whole. */
    version: integer("version"),
    key: text("key").notNull(),
    /** set | add */
    op: text("op").notNull(),
    /** JSON: the value (set) or the number added (add); text that is not JSON reads as null. */
    value: jsonText<unknown>("value", () => null).notNull(),
    actor: text("actor").notNull(),
    reason: text("reason").notNull().default(""),
    at: integer("at").notNull(),
    recordedAt: integer("recorded_at").notNull(),
    /** The caller's id for the event: a retry with the same id is the same event. */
    eventId: text("event_id"),
  },
  (t) => [
    index("annotations_chunk").on(t.archiveId, t.chunkId, t.key, t.at),
    uniqueIndex("annotations_event").on(t.archiveId, t.eventId),
  ],
);

/**
 * Stored retrieval-metric runs (hit rate, MRR, Recall@K, Precision@K against gold ids), kept so runs
 * can be compared over time. `id` is random; listings page by (created_at, id), newest first.
 */
export const retrievalRuns = sqliteTable(
  "retrieval_runs",
  {
    archiveId: text("archive_id").notNull(),
    id: text("id").notNull(),
    name: text("name").notNull().default(""),
    createdAt: integer("created_at").notNull(),
    /** The as_of the queries ran at (epoch ms). */
    asOf: integer("as_of").notNull(),
    /** JSON array of the K values. */
    ks: jsonList<number>("ks").notNull(),
    queries: integer("queries").notNull(),
    /** JSON: the aggregate metrics; text that is not JSON reads as zero queries. */
    aggregate: jsonText<RetrievalAggregate>("aggregate", () => ({
      queries: 0,
      hit_rate: 0,
      mrr: 0,
      recall: {},
      precision: {},
    })).notNull(),
    /** JSON: per query (text, gold, returned ids, metrics). */
    perQuery: jsonList<RetrievalQueryRecord>("per_query").notNull(),
    actor: text("actor").notNull(),
  },
  (t) => [primaryKey({ columns: [t.archiveId, t.id] }), index("retrieval_runs_created").on(t.archiveId, t.createdAt)],
);

/**
 * Hard deletes whose D1 part committed and whose purge outside D1 (the capital shards' storage,
 * content blobs, vectors, quoting copies, the chunk.deleted event) has not finished: written in the
 * delete's own batch, removed when the purge completes. A second delete of the target, the first
 * request of a new isolate and each cron tick finish what a crash left (src/app/forget.ts). Holds
 * ids and blob keys, never content.
 */
export const pendingPurges = sqliteTable(
  "pending_purges",
  {
    /** The deletions row of the delete. */
    auditId: integer("audit_id").primaryKey(),
    archiveId: text("archive_id").notNull(),
    /** chunk | entity | archive */
    target: text("target").notNull(),
    targetId: text("target_id").notNull(),
    /** JSON: what the purge removes and what the delete answered (PendingPurge.plan). */
    plan: jsonText<PurgePlan | null>("plan", () => null),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("pending_purges_target").on(t.archiveId, t.target, t.targetId)],
);

/**
 * The first answer of each write that carries a caller's event id (review, annotations), keyed by
 * the id as its annotation stores it. A request claims the id with one insert (body NULL: in
 * flight), runs, then stores its answer; a failed request drops its claim. `annotation_id` ties the
 * answer to the event it wrote, so deleting the annotation (a hard delete of the chunk or the
 * archive) deletes the answer with it.
 */
export const eventOutcomes = sqliteTable(
  "event_outcomes",
  {
    archiveId: text("archive_id").notNull(),
    eventId: text("event_id").notNull(),
    /** The operation and target the id was first used for; another use is a conflict. */
    request: text("request").notNull(),
    /** The random token of the request holding the claim. */
    claim: text("claim").notNull(),
    claimedAt: integer("claimed_at").notNull(),
    annotationId: integer("annotation_id").references(() => annotations.id, { onDelete: "cascade" }),
    /** The answer's JSON text; NULL while the claiming request runs. */
    body: text("body"),
  },
  (t) => [primaryKey({ columns: [t.archiveId, t.eventId] }), index("event_outcomes_annotation").on(t.annotationId)],
);

/**
 * Append-only: each explicit re-creation of a hard-deleted id, on the audit row of the delete it
 * undid (at most one per delete: a later delete of the id is a new audit row). The tombstone's own
 * recreated_at says whether the id is live now; this keeps what every audit row said.
 */
export const recreations = sqliteTable("recreations", {
  auditId: integer("audit_id").primaryKey(),
  archiveId: text("archive_id").notNull(),
  at: integer("at").notNull(),
  by: text("by").notNull(),
});
