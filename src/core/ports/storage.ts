/**
 * Storage ports, one per aggregate: what the application layer asks of the source of truth (D1 in
 * production, src/adapters/d1). Records are plain types with the stored field names; JSON columns
 * are typed values: the adapter parses them where it reads them (text that is not JSON reads as the
 * documented fallback of the field) and stringifies what it is given, so the stored text is
 * JSON.stringify of the value. Callers neither parse nor stringify.
 */

import type { DerivedAt } from "../capital/store";
import type { CodeSymbol } from "../code/symbols";
import type { ArchiveSpaceState, EmbeddingSpace } from "../embed/space";
import type { Result } from "../errors";
import type { ExtensionPlan, ExtensionTarget, Extraction, StoredExtraction } from "../extract";
import type { EdgeInput, ExistingState, IngestPlan } from "../ingest";
import type { RelationInput } from "../relations";
import type { ChangeOp, EventType } from "../types";
import type { AccessLog, SessionEvent, SessionStore, VersionReader } from "./services";

// ------------------------------------------------------------------ records

export interface ArchiveRecord {
  id: string;
  name: string;
  description: string;
  params: Record<string, unknown>;
  createdAt: number;
}

export interface KeyRecord {
  id: string;
  archiveId: string;
  label: string;
  scopes: string[];
  createdAt: number;
  revokedAt: number | null;
}

export interface ChunkRecord {
  archiveId: string;
  chunkId: string;
  kind: string;
  latestVersion: number;
  firstValidFrom: number;
  deprecatedAt: number | null;
  deprecatedBy: string | null;
  vectorId: string;
  createdAt: number;
  updatedAt: number;
}

/** Names the ingest analyser grounded in a version's content: entity and exact [start, end) spans. */
export interface MentionRecord {
  entity: string;
  spans: Array<[number, number]>;
}

/**
 * A stored version. Text of a list column that is not a JSON array reads as []; `relations` reads
 * as null when NULL or not a JSON array; `mentions` and `symbols` as null when NULL, [] when not a
 * JSON array.
 */
export interface VersionRecord {
  archiveId: string;
  chunkId: string;
  version: number;
  kind: string;
  title: string;
  synopsis: string;
  artifactHash: string;
  contentHash: string;
  contentKey: string;
  contentChars: number;
  /** Canonical entity ids. */
  entities: string[];
  boundaries: string[];
  /** The declared edges of this version. */
  edges: EdgeInput[];
  /** The declared relations; null when none. */
  relations: RelationInput[] | null;
  /**
   * Null when none. Absent where a read leaves it out: the history and the exports (an import
   * derives it again), which is every read of a whole version through the ports.
   */
  mentions?: MentionRecord[] | null;
  /** A code unit's declarations with exact signature offsets; null for other chunks; absent in the exports. */
  symbols?: CodeSymbol[] | null;
  /** What a language model extracted from this version at ingest; null (or absent) when nothing was. */
  extracted?: StoredExtraction | null;
  validFrom: number;
  validTo: number | null;
  recordedAt: number;
  source: string;
}

export interface EdgeRecord {
  id: number;
  archiveId: string;
  src: string;
  dst: string;
  type: string;
  weight: number;
  validFrom: number;
  validTo: number | null;
  version: number;
  recordedAt: number;
  context: string | null;
}

/** Filters of a chunk listing; every one optional, all applied in D1 before the page is cut. */
export interface ChunkFilter {
  /** The instant the listing shows: a chunk is listed when it has a version valid then. */
  asOf: number;
  kind?: string | undefined;
  /** A canonical entity id the visible version mentions. */
  entity?: string | undefined;
  /** A boundary tag the visible version carries. */
  boundary?: string | undefined;
  /** Chunk id prefix (case-sensitive). */
  prefix?: string | undefined;
  /** Title prefix (case-insensitive, ASCII folding as SQLite's LIKE). */
  titlePrefix?: string | undefined;
}

/** A listed chunk: its head and the version valid at the listing's instant. */
export interface ChunkListRow {
  chunkId: string;
  kind: string;
  version: number;
  latestVersion: number;
  title: string;
  synopsis: string;
  validFrom: number;
  validTo: number | null;
  contentChars: number;
  boundaries: string[];
  entities: string[];
  deprecatedAt: number | null;
  deprecatedBy: string | null;
  /** Valid-from of the chunk's first version. */
  firstValidFrom: number;
}

export interface EntityFilter {
  type?: string | undefined;
  /** Entity id prefix, e.g. "method:". */
  prefix?: string | undefined;
  /** Include entities merged into another one (default false). */
  merged?: boolean | undefined;
}

export interface EntityRecord {
  archiveId: string;
  entityId: string;
  type: string;
  name: string;
  mergedInto: string | null;
  mergedAt: number | null;
  createdAt: number;
}

export interface AliasRecord {
  archiveId: string;
  entityId: string;
  alias: string;
  aliasNorm: string;
  validFrom: number;
  validTo: number | null;
}

/** An entity event; `detail` reads as {} when its text is not JSON. */
export interface EntityEventRecord {
  id: number;
  archiveId: string;
  entityId: string;
  op: string;
  detail: Record<string, unknown>;
  at: number;
  recordedAt: number;
}

export interface SnapshotRecord {
  archiveId: string;
  seq: number;
  r2Key: string;
  bytes: number;
  heads: number;
  createdAt: number;
}

/** A webhook endpoint's options; {} when its text is not JSON. */
export interface WebhookOptions {
  branches?: string[];
}

/** A webhook endpoint. */
export interface WebhookRecord {
  archiveId: string;
  name: string;
  kind: string;
  secret: string;
  options: WebhookOptions;
  createdAt: number;
}

/** A webhook delivery; `result` is the apply counts (null when none or when its text is not JSON). */
export interface DeliveryRecord {
  archiveId: string;
  webhook: string;
  deliveryId: string;
  kind: string;
  event: string;
  bodyKey: string;
  bodySha: string;
  status: string;
  attempts: number;
  result: object | null;
  error: string | null;
  receivedAt: number;
  updatedAt: number;
  /** The chunk ids a generic delivery carries; null or absent: none recorded. */
  chunkIds?: string[] | null;
}

/** A source's kind-specific state (github: path -> blob sha of what was ingested, and the commit). */
export interface SourceState {
  files?: Record<string, string>;
  commit?: string;
}

/**
 * A registered source; `state` reads as {files: {}} when its text is not JSON, `lastCounts` (the
 * counts of the last run) as null.
 */
export interface SourceRecord {
  archiveId: string;
  id: string;
  kind: string;
  location: string;
  query: string;
  intervalMinutes: number;
  paused: number;
  createdAt: number;
  nextRunAt: number;
  lastRunAt: number | null;
  lastChangeAt: number | null;
  lastStatus: string | null;
  lastError: string | null;
  failures: number;
  etag: string | null;
  lastModified: string | null;
  contentHash: string | null;
  state: SourceState;
  lastCounts: object | null;
}

/** An ingest-log entry; `counts` is the apply counts (null when its text is not JSON). */
export interface LogRecord {
  id: number;
  archiveId: string;
  origin: string;
  ref: string;
  status: string;
  counts: object | null;
  error: string | null;
  at: number;
  durationMs: number;
}

export interface PaperMatch {
  /** Existing paper chunk the match points at. */
  chunkId: string;
  /** The key that matched: an entity id or a normalised alias. */
  key: string;
}

export type EntityOperation =
  | { op: "alias"; entity: string; alias: string; at: number }
  | { op: "rename"; entity: string; newName: string; at: number }
  | { op: "merge"; entity: string; into: string; at: number };

// ------------------------------------------------------------------ ports

/** Archives and their keys (only hashes of key secrets are stored). */
export interface ArchiveStore {
  createArchive(a: ArchiveRecord): Promise<Result<ArchiveRecord>>;
  getArchive(id: string): Promise<ArchiveRecord | null>;
  listArchives(): Promise<ArchiveRecord[]>;
  createKey(k: KeyRecord & { keyHash: string }): Promise<void>;
  listKeys(archiveId: string): Promise<KeyRecord[]>;
  revokeKey(archiveId: string, keyId: string, at: number): Promise<boolean>;
  findKeyByHash(keyHash: string): Promise<KeyRecord | null>;
}

/** Chunks and their versions: ingest plans land here atomically; reads by time and exact version. */
export interface ChunkStore extends VersionReader {
  loadExisting(archiveId: string, chunkIds: string[], entityIds: string[]): Promise<ExistingState>;
  executePlan(
    archiveId: string,
    plan: IngestPlan,
    now: number,
    vectorIdOf: (chunk: string) => string,
  ): Promise<Result<void>>;
  chunkRow(archiveId: string, chunkId: string): Promise<ChunkRecord | null>;
  deprecate(
    archiveId: string,
    chunkId: string,
    by: string | null,
    at: number,
    reason: string,
    now: number,
  ): Promise<Result<{ version: number }>>;
  chunkHistory(
    archiveId: string,
    chunkId: string,
  ): Promise<{
    chunk: ChunkRecord;
    versions: VersionRecord[];
    edges: EdgeRecord[];
    deprecationReason: string | null;
  } | null>;
  /** Code units with an id prefix and a version valid at t, with that version's declarations (null: none). */
  codeModules(
    archiveId: string,
    prefix: string,
    t: number,
    max: number,
  ): Promise<Array<{ chunkId: string; version: number; contentKey: string; symbols: CodeSymbol[] | null }>>;
  /** Chunks reached from `root` backwards over part-of edges valid at t (the root included), at most `max`. */
  subtree(archiveId: string, root: string, t: number, max: number): Promise<string[]>;
  /** The entities (id and type) named by each chunk's version valid at t; chunks with none valid are omitted. */
  entitiesAt(
    archiveId: string,
    chunkIds: string[],
    t: number,
  ): Promise<Map<string, Array<{ id: string; type: string }>>>;
  /** Chunks some chunk `implements` at t (grounded techniques, designs with code). */
  implementedAt(archiveId: string, t: number): Promise<string[]>;
  /** Edges of one type valid at t from (out) or to (in) these chunks, heaviest first per chunk. */
  edgesAt(
    archiveId: string,
    chunkIds: string[],
    type: string,
    direction: "out" | "in",
    t: number,
  ): Promise<Array<{ from: string; to: string; weight: number }>>;
  /** One page of chunks in id order, strictly after `after`; `limit + 1` rows tell whether more follow. */
  listChunks(archiveId: string, f: ChunkFilter, after: string | null, limit: number): Promise<ChunkListRow[]>;
  /** The chunk ids of the same page as listChunks, without reading (or parsing) anything else. */
  listChunkIds(archiveId: string, f: ChunkFilter, after: string | null, limit: number): Promise<string[]>;
  chunkIdsForVectorIds(archiveId: string, ids: string[]): Promise<Map<string, string>>;
  counts(archiveId: string): Promise<{ chunks: number; versions: number; edges: number; entities: number }>;
}

/** Canonical entities: aliases, renames and merges, each from a time on. */
export interface EntityStore {
  entityRow(archiveId: string, entityId: string): Promise<EntityRecord | null>;
  entityOp(
    archiveId: string,
    op: EntityOperation,
    normAlias: (s: string) => string,
    now: number,
  ): Promise<Result<void>>;
  /** One page of entities in id order, strictly after `after`, with their alias counts. */
  listEntities(
    archiveId: string,
    f: EntityFilter,
    after: string | null,
    limit: number,
  ): Promise<Array<EntityRecord & { aliases: number }>>;
  entityHistory(
    archiveId: string,
    entityId: string,
  ): Promise<{
    entity: EntityRecord;
    aliases: AliasRecord[];
    events: EntityEventRecord[];
    mentions: Array<{ chunk_id: string; version: number; valid_from: number; valid_to: number | null }>;
  } | null>;
}

/** Agent sessions (short-term events) and the access log (recency). */
/** Access counts per channel for one group (a session, null for none, or a chunk). */
export interface AccessCountRow {
  key: string | null;
  routing: number;
  expansion: number;
  verification: number;
  total: number;
  last: number;
}

export interface AccessCountQuery {
  by: "session" | "chunk";
  sessionId?: string | undefined;
  chunkId?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
  limit: number;
  offset: number;
}

export interface SessionLog extends SessionStore, AccessLog {
  /**
   * Access counts per channel grouped by session or chunk (most accesses first, ties by key; null
   * first), one page, with the totals over every matching access and the number of groups.
   */
  accessCounts(
    archiveId: string,
    q: AccessCountQuery,
  ): Promise<{ totals: Omit<AccessCountRow, "key" | "last">; groups: number; rows: AccessCountRow[] }>;
  appendSession(
    archiveId: string,
    sessionId: string,
    events: Array<{ role: string; text: string; tokens: number; at: number }>,
  ): Promise<void>;
  recent(archiveId: string, sessionId: string, asOf: number, limit: number): Promise<SessionEvent[]>;
}

/** The change log the capital chunk replays, and its snapshots. */
/** A shard of an archive's capital chunk beyond the first (which holds everything from 0 on). */
export interface ShardRecord {
  shard: number;
  /** The shard holds the nodes whose ids first appear at or after this change-log position. */
  firstSeq: number;
}

export interface DerivedMark {
  epoch: number;
  seq: number;
}

export interface ChangeLog {
  readLog(archiveId: string, afterSeq: number, limit: number): Promise<Array<{ seq: number; op: ChangeOp }>>;
  /**
   * The changes after `afterSeq` and before `beforeSeq`, at most `limit`, each as
   * `beforeWindow` (core/capital/split.ts) leaves it: what a shard that derives nothing needs of
   * the changes before its window, without a head's terms, sketch and names.
   */
  readLogBefore(
    archiveId: string,
    afterSeq: number,
    beforeSeq: number,
    limit: number,
  ): Promise<Array<{ seq: number; op: ChangeOp }>>;
  /** The changes at these positions, whole (those not in the log are left out), in order. */
  readLogAt(archiveId: string, seqs: readonly number[]): Promise<Array<{ seq: number; op: ChangeOp }>>;
  /** The archive's shards beyond the first, in order. */
  shards(archiveId: string): Promise<ShardRecord[]>;
  /**
   * Open shard `shard` (idempotent): its first position is past every change committed so far,
   * chosen and written in one statement, so no change it covers was applied before it existed.
   */
  openShard(archiveId: string, shard: number, at: number): Promise<void>;
  /**
   * How far the names shard of a sharded archive has derived edges: every change up to `seq`, under
   * `epoch` (both 0 before it ever has). A hard delete bumps the epoch and starts again from 0.
   */
  derivedMark(archiveId: string): Promise<DerivedMark>;
  /** The derived edges of this epoch at change-log positions in (after, upto], in order. */
  readDerived(archiveId: string, epoch: number, after: number, upto: number): Promise<DerivedAt[]>;
  /**
   * Store the edges derived at some positions and move the mark to `upto` (never back), in one
   * batch, under `epoch` only: false when the epoch has moved on (a hard delete since the names
   * shard loaded), and then the mark is not moved.
   */
  writeDerived(archiveId: string, epoch: number, rows: DerivedAt[], upto: number): Promise<boolean>;
  /** Drop the derived edges and move the epoch on (the names shard's storage was wiped). */
  resetDerived(archiveId: string): Promise<void>;
  latestSnapshot(archiveId: string): Promise<SnapshotRecord | null>;
  recordSnapshot(row: SnapshotRecord): Promise<void>;
  accessStats(
    archiveId: string,
  ): Promise<Array<{ chunk: string; last: number; count: number; channels: Record<string, number> }>>;
}

type DeliveryPatch = Partial<Pick<DeliveryRecord, "updatedAt" | "status" | "attempts" | "result" | "error">>;

/** Webhook endpoints and their deliveries (the raw bodies are blobs). */
export interface WebhookStore {
  putWebhook(row: WebhookRecord): Promise<void>;
  getWebhook(archiveId: string, name: string): Promise<WebhookRecord | null>;
  listWebhooks(archiveId: string): Promise<Array<Omit<WebhookRecord, "secret">>>;
  /** The endpoint and every delivery row of it (their bodies are blobs the caller removes). */
  deleteWebhook(archiveId: string, name: string): Promise<boolean>;
  getDelivery(archiveId: string, webhook: string, deliveryId: string): Promise<DeliveryRecord | null>;
  /** The earliest delivery of this endpoint whose raw body had this SHA-256, or null. */
  deliveryByBody(archiveId: string, webhook: string, bodySha: string): Promise<DeliveryRecord | null>;
  insertDelivery(row: DeliveryRecord): Promise<boolean>;
  updateDelivery(archiveId: string, webhook: string, deliveryId: string, patch: DeliveryPatch): Promise<void>;
  deleteDelivery(archiveId: string, webhook: string, deliveryId: string): Promise<void>;
  listDeliveries(
    archiveId: string,
    webhook: string,
    status: string | undefined,
    limit: number,
  ): Promise<DeliveryRecord[]>;
  /** Deliveries of any archive left received or queued since before `before`, oldest first. */
  stuckDeliveries(before: number, limit: number): Promise<DeliveryRecord[]>;
}

/** Sources cron re-ingests, with their validators and status. */
export interface SourceStore {
  createSource(row: SourceRecord): Promise<boolean>;
  getSource(archiveId: string, id: string): Promise<SourceRecord | null>;
  listSources(archiveId: string): Promise<SourceRecord[]>;
  updateSource(archiveId: string, id: string, patch: Partial<Omit<SourceRecord, "archiveId" | "id">>): Promise<void>;
  deleteSource(archiveId: string, id: string): Promise<boolean>;
  dueSources(now: number, limit: number): Promise<SourceRecord[]>;
  claimSource(archiveId: string, id: string, seenNextRun: number, leaseUntil: number): Promise<boolean>;
}

/** A version extraction at ingest may extend (core/extract.ts), with what decides whether it may now. */
export interface ExtractionTargetRecord {
  target: ExtensionTarget;
  contentKey: string;
  /** SHA-256 of the content: with the model, the cache key. */
  contentHash: string;
  /**
   * `ready`: its chunk's live head, not extracted yet. Otherwise it takes no extraction: a later
   * version superseded it, its chunk is deprecated, or it was extracted already.
   */
  state: "ready" | "superseded" | "deprecated" | "extracted";
}

/** Extraction at ingest: the version an extraction extends, the write, and the cache by content. */
export interface ExtractionStore {
  /** The version (its declared entities with their names and aliases); null when it does not exist. */
  target(archiveId: string, chunkId: string, version: number): Promise<ExtractionTargetRecord | null>;
  /**
   * The plan's writes in one transaction (entity and alias rows, entity events, change-log entries,
   * the version's `extracted` column), made only if the version is still its chunk's live head and
   * not extracted yet: a forgotten, deprecated or superseded version is never written to. Whether
   * they were made.
   */
  extend(archiveId: string, plan: ExtensionPlan, now: number): Promise<boolean>;
  /** A model's earlier answer for this content (model names the model and the prompt's version). */
  cached(contentHash: string, model: string): Promise<Extraction | null>;
  cache(contentHash: string, model: string, value: Extraction, now: number): Promise<void>;
}

/** The ingest log (webhook deliveries, source runs, file imports). */
export interface IngestLogStore {
  appendLog(row: Omit<LogRecord, "id">): Promise<void>;
  listLog(archiveId: string, limit: number, before?: number): Promise<LogRecord[]>;
}

/** A stored version's canonical entity ids and boundaries. */
export type VersionParts = Pick<VersionRecord, "entities" | "boundaries">;

/** What the feed pipelines look up before applying a plan (dedup, links, unchanged records). */
export interface WorldLookup {
  /**
   * Of these chunk ids, the ones hard-deleted and not created again since (by an explicit ingest),
   * with when they were deleted: automated writes skip them.
   */
  tombstoned(archiveId: string, ids: string[]): Promise<Map<string, number>>;
  /** Record that an explicit ingest created these deleted ids again (the tombstones stop applying). */
  recreated(archiveId: string, ids: string[], actor: string, at: number): Promise<void>;
  chunksByIds(
    archiveId: string,
    ids: string[],
  ): Promise<Map<string, { kind: string; latestVersion: number; deprecatedAt: number | null }>>;
  chunkIdsWithPrefix(archiveId: string, prefix: string, limit: number): Promise<string[]>;
  paperEntitiesByAliases(archiveId: string, aliasNorms: string[]): Promise<PaperMatch[]>;
  papersByAliases(archiveId: string, aliasNorms: string[]): Promise<PaperMatch[]>;
  liveEntities(archiveId: string, ids: string[]): Promise<Set<string>>;
  /** Every version of a chunk, oldest first: its source, artifact hash, content key, entity ids and boundaries. */
  versionsOf(
    archiveId: string,
    chunkId: string,
  ): Promise<Array<{ version: number; source: string; artifactHash: string; contentKey: string } & VersionParts>>;
  latestHead(
    archiveId: string,
    chunkId: string,
  ): Promise<{
    title: string;
    contentKey: string;
    contentChars: number;
    entities: number;
    edges: number;
    synopsis: string;
    validFrom: number;
    source: string;
    /** The stored version's declared entity ids, boundaries, edges and relations. */
    parts: Pick<VersionRecord, "entities" | "boundaries" | "edges" | "relations">;
  } | null>;
  aliasNormsOf(archiveId: string, entityId: string): Promise<Set<string>>;
  recordEntityEvent(
    archiveId: string,
    entityId: string,
    op: string,
    detail: Record<string, unknown>,
    at: number,
  ): Promise<void>;
}

/** Paged reads for exports and the archive-dump import; versions come without `mentions` and `symbols`. */
export interface ExportReader {
  countChunks(archiveId: string): Promise<number>;
  chunkPage(archiveId: string, after: string | null, limit: number): Promise<ChunkRecord[]>;
  chunksByIds(archiveId: string, ids: string[]): Promise<ChunkRecord[]>;
  allVersions(archiveId: string, chunkIds: string[]): Promise<VersionRecord[]>;
  shownVersions(
    archiveId: string,
    chunks: ChunkRecord[],
    asOf: number | undefined,
  ): Promise<Map<string, VersionRecord>>;
  exactVersions(archiveId: string, wanted: Array<{ chunk: string; version: number }>): Promise<VersionRecord[]>;
  entityPage(archiveId: string, after: string | null, limit: number): Promise<EntityRecord[]>;
  entitiesByIds(archiveId: string, ids: string[]): Promise<EntityRecord[]>;
  aliasesOf(archiveId: string, entityIds: string[]): Promise<AliasRecord[]>;
  eventsOf(archiveId: string, entityIds: string[]): Promise<EntityEventRecord[]>;
  deprecationEvents(archiveId: string): Promise<EntityEventRecord[]>;
  edgePage(archiveId: string, afterId: number, limit: number, asOf?: number): Promise<EdgeRecord[]>;
  aliasRowExists(archiveId: string, entityId: string, aliasNorm: string, validFrom: number): Promise<boolean>;
  entityRow(archiveId: string, entityId: string): Promise<EntityRecord | null>;
}

/** A version's content by its blob key (to re-hash versions a delete rewrites); null when missing. */
export type ContentOf = (contentKey: string) => Promise<string | null>;

/** What one hard delete removed from the source of truth, and what the caller must purge elsewhere. */
export interface ForgetReport {
  /** The audit row written with the delete. */
  auditId: number;
  versions: number;
  edges: number;
  /** Declared entities removed because nothing left mentions them (or the entity deleted). */
  entities: string[];
  /** Change-log entries dropped or rewritten, so no rebuild replays the deleted data. */
  logOps: number;
  /** Content objects no remaining version references (to delete from the blob store). */
  contentKeys: string[];
  /** Vector ids to delete from the archive's namespace. */
  vectorIds: string[];
  /** Rows removed from every other table (archive deletes: keys, webhooks, sources, ...). */
  rows: number;
  /** Annotations of other chunks rewritten or removed because they named the chunk. */
  annotations?: number;
}

/** An audit row of a hard delete; `counts` (never content) reads as {} when its text is not JSON. */
export interface DeletionRecord {
  id: number;
  archiveId: string;
  target: "chunk" | "entity" | "archive";
  targetId: string;
  actor: string;
  at: number;
  counts: Record<string, number>;
  /** A deleted chunk id created again by an explicit ingest: when and by whom. */
  recreated?: { at: number; by: string } | null;
}

/**
 * What a committed hard delete still has to remove outside D1, recorded in its own transaction so a
 * crash between the steps leaves a durable record to finish from (src/app/forget.ts).
 */
export interface PurgePlan {
  /** Who deleted (the audit row's actor): copies deleted on resume are theirs too. */
  actor: string;
  /** The delete's answer, as it was first given (a repeat of the delete answers it again). */
  report: Omit<ForgetReport, "auditId">;
  /** Content objects the deleted versions referenced, and raw bodies: the ones no version still references go. */
  contentKeys: string[];
  /** Vector ids of the deleted chunks; one whose chunk id was created again since stays. */
  vectorIds: string[];
  /** Chunks quoting the deleted one (hubs), deleted with it. */
  copies: string[];
  /** Every blob of the archive goes (an archive delete). */
  everything: boolean;
}

/** A hard delete whose purge has not finished. */
export interface PendingPurge {
  auditId: number;
  archiveId: string;
  target: DeletionRecord["target"];
  targetId: string;
  plan: PurgePlan;
  createdAt: number;
}

/**
 * Hard deletes. Each runs as one D1 transaction that removes the rows, drops or rewrites every
 * change-log entry that would bring the data back on a capital-chunk rebuild, removes the capital
 * snapshots (they hold the old state) and writes the audit row; the caller then purges blobs,
 * vectors and the in-memory capital chunk. Returns null when the target does not exist.
 */
export interface ForgetStore {
  /** `copies` are recorded in the delete's pending purge (quotingCopies, read before). */
  forgetChunk(
    archiveId: string,
    chunkId: string,
    actor: string,
    now: number,
    contentOf: ContentOf,
    copies?: string[],
  ): Promise<ForgetReport | null>;
  forgetEntity(
    archiveId: string,
    entityId: string,
    actor: string,
    now: number,
    contentOf: ContentOf,
  ): Promise<ForgetReport | null>;
  forgetArchive(archiveId: string, actor: string, now: number): Promise<ForgetReport | null>;
  /** Chunks whose content quotes the chunk (hubs citing it), to delete with it. */
  quotingCopies(archiveId: string, chunkId: string): Promise<string[]>;
  /** Snapshot rows written since (a racing snapshot of the old in-memory state): removed. */
  dropSnapshots(archiveId: string): Promise<void>;
  deletions(archiveId: string, limit: number): Promise<DeletionRecord[]>;
  /** Unfinished purges, oldest first: of one target when given, else of every archive. */
  pendingPurges(
    limit: number,
    of?: { archiveId: string; target: DeletionRecord["target"]; targetId: string },
  ): Promise<PendingPurge[]>;
  /** The purge of this delete finished: its record goes. */
  purged(auditId: number): Promise<void>;
  /** Of these content objects, the ones no version of the archive references. */
  unreferenced(archiveId: string, keys: string[]): Promise<string[]>;
  /** Of these vector ids, the ones a chunk of the archive holds (its id was created again after a delete). */
  vectorsInUse(archiveId: string, vectorIds: string[]): Promise<Set<string>>;
}

/** A re-embed of an archive into one embedding space (src/app/reembed.ts). */
export interface ReembedJobRecord {
  id: number;
  archiveId: string;
  status: "running" | "done" | "failed";
  /** The space it writes: the embedder configured when it started. */
  target: EmbeddingSpace;
  /** The archive's space when it started (null: none recorded). */
  from: EmbeddingSpace | null;
  /** Chunks the archive held when it started. */
  total: number;
  /** Heads re-embedded so far. */
  done: number;
  /** Chunks of a page that were gone (forgotten) by the time it ran. */
  removed: number;
  pages: number;
  /** The last chunk id of the last page done; the next page starts after it (null: none yet). */
  cursor: string | null;
  /** Failed attempts of the page in flight. */
  attempts: number;
  /** A head was written meanwhile without a vector in the target space: the new space starts stale. */
  targetStale: boolean;
  /** The latest errors, oldest first. */
  errors: Array<{ at: number; message: string }>;
  startedAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

/** A chunk's latest version as a re-embed reads it. */
export interface HeadRow {
  chunkId: string;
  /** Its id in the vector index (the chunk id, or a hash of a long one). */
  vectorId: string;
  version: number;
  title: string;
  synopsis: string;
}

/** Which embedding space each archive's vectors are in, and the re-embeds that move it. */
export interface EmbeddingStore {
  /** The archive's recorded space, stale mark and running job; null when the archive does not exist. */
  state(archiveId: string): Promise<ArchiveSpaceState | null>;
  /** Record the space when none is recorded yet (a concurrent first record wins; read the state after). */
  adopt(archiveId: string, space: EmbeddingSpace): Promise<void>;
  /**
   * Heads were written without a vector in the archive's space: mark the archive stale (an earlier
   * mark keeps its time) and a running job's target too, in one batch.
   */
  markStale(archiveId: string, at: number): Promise<void>;
  /**
   * Start a job at `at` and mark the archive stale (its index is rewritten in place); null when one
   * is running already (the unique index decides between two racing starts).
   */
  startJob(
    archiveId: string,
    target: EmbeddingSpace,
    from: EmbeddingSpace | null,
    total: number,
    at: number,
  ): Promise<ReembedJobRecord | null>;
  job(id: number): Promise<ReembedJobRecord | null>;
  latestJob(archiveId: string): Promise<ReembedJobRecord | null>;
  /** Running jobs not updated since `before` (their message was lost), oldest first. */
  stalledJobs(before: number, limit: number): Promise<ReembedJobRecord[]>;
  /**
   * A page is done: move the cursor from `after` to `cursor` and add the counts, only while the
   * cursor is still `after`; false when another delivery of the page moved it first.
   */
  advance(
    id: number,
    after: string | null,
    cursor: string,
    counts: { done: number; removed: number },
    at: number,
  ): Promise<boolean>;
  /** A failed attempt of the page in flight (the latest errors are kept); `fail` ends the job as failed. */
  recordError(id: number, message: string, at: number, fail: boolean): Promise<void>;
  /** Touch a running job (its message was sent again), so the stall check waits again. */
  touch(id: number, at: number): Promise<void>;
  /**
   * The job is done: in one batch it ends, and the archive's space becomes its target, stale from
   * `at` if a head was written meanwhile without a vector in it (else not stale).
   */
  finish(id: number, at: number): Promise<void>;
  /** How many chunks the archive holds. */
  countHeads(archiveId: string): Promise<number>;
  /** Chunk ids strictly after `after` (null: from the first), in id order, at most `limit`. */
  headIds(archiveId: string, after: string | null, limit: number): Promise<string[]>;
  /** The latest version's head fields of these chunks; missing (forgotten) chunks are left out. */
  heads(archiveId: string, ids: string[]): Promise<HeadRow[]>;
  /**
   * Append a `head.sketch` change per head, each only if its version is still the chunk's latest (a
   * newer version has its own sketch; a forgotten chunk gets none), in one batch.
   */
  writeSketches(
    archiveId: string,
    sketches: Array<{ chunk: string; version: number; sketch: string }>,
    at: number,
  ): Promise<void>;
}

/** Every store, as the composition root builds them. */
/** An outbound event subscriber; `events`: the types it takes ([] = every type, also when not a JSON array). */
export interface SubscriptionRecord {
  archiveId: string;
  name: string;
  url: string;
  secret: string;
  events: string[];
  createdAt: number;
}

/**
 * One event for one subscriber: its body and delivery state. The body sent is JSON.stringify of
 * `payload`, which is the stored text ({} when that text is not JSON).
 */
export interface EventDeliveryRecord {
  archiveId: string;
  id: string;
  subscription: string;
  type: string;
  payload: Record<string, unknown>;
  /** pending | retrying | delivered | dead */
  status: string;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

export type EventDeliveryPatch = Partial<
  Pick<EventDeliveryRecord, "status" | "attempts" | "responseStatus" | "error" | "updatedAt">
>;

export interface EventStore {
  putSubscription(row: SubscriptionRecord): Promise<void>;
  getSubscription(archiveId: string, name: string): Promise<SubscriptionRecord | null>;
  listSubscriptions(archiveId: string): Promise<SubscriptionRecord[]>;
  /** Deletes the subscriber and every event queued or kept for it. */
  deleteSubscription(archiveId: string, name: string): Promise<boolean>;
  insertEvents(rows: EventDeliveryRecord[]): Promise<void>;
  getEvent(archiveId: string, id: string): Promise<EventDeliveryRecord | null>;
  updateEvent(archiveId: string, id: string, patch: EventDeliveryPatch): Promise<void>;
  /** Newest first, ids strictly below `before`; `limit + 1` rows tell whether more follow. */
  listEvents(
    archiveId: string,
    subscription: string,
    status: string | undefined,
    before: string | null,
    limit: number,
  ): Promise<EventDeliveryRecord[]>;
}

/** A stored annotation event; `value` is any JSON value (null also when its text is not JSON). */
export interface AnnotationRecord {
  id: number;
  archiveId: string;
  chunkId: string;
  version: number | null;
  key: string;
  op: string;
  value: unknown;
  actor: string;
  reason: string;
  at: number;
  recordedAt: number;
  eventId: string | null;
}

/** The stored outcome of an event id: in flight (`body` null) or its first answer (JSON text). */
export interface EventOutcomeRecord {
  /** The operation and target the id was first used for. */
  request: string;
  claim: string;
  claimedAt: number;
  body: string | null;
}

export interface AnnotationStore {
  /** Appends one event; with an eventId already stored, returns that event and appends nothing. */
  appendAnnotation(row: Omit<AnnotationRecord, "id">): Promise<{ row: AnnotationRecord; duplicate: boolean }>;
  /**
   * Appends events without an eventId (an import's), in order, in multi-row statements (a handful of
   * round trips for thousands of rows, not one each); returns how many were appended.
   */
  appendAnnotations(rows: Array<Omit<AnnotationRecord, "id"> & { eventId: null }>): Promise<number>;
  /** The event stored under this eventId, or null. */
  annotationByEventId(archiveId: string, eventId: string): Promise<AnnotationRecord | null>;
  /**
   * Claims an event id for one request under the random token `claim` (one atomic insert): null
   * when this call claimed it, else the outcome already there (in flight or answered).
   */
  claimEvent(
    archiveId: string,
    eventId: string,
    request: string,
    claim: string,
    now: number,
  ): Promise<EventOutcomeRecord | null>;
  /** Takes over a claim still held by the token `stale` (its request died): true when this call took it. */
  takeOverEvent(archiveId: string, eventId: string, stale: string, claim: string, now: number): Promise<boolean>;
  /**
   * Stores the answer of the claim `claim`, tied to the annotation its effect wrote (deleted with
   * it). When that annotation is gone, or the claim was taken over, nothing is stored (and a claim
   * still held is dropped): false.
   */
  answerEvent(archiveId: string, eventId: string, claim: string, annotationId: number, body: string): Promise<boolean>;
  /** Drops the claim `claim` while unanswered: the request failed and the id stays free. */
  releaseEvent(archiveId: string, eventId: string, claim: string): Promise<void>;
  /** The events of these chunks (optionally one key), at <= asOf, in (at, id) order. */
  annotationsOf(
    archiveId: string,
    chunkIds: string[],
    key: string | undefined,
    asOf: number,
  ): Promise<AnnotationRecord[]>;
}

/** A chunk's version visible at t with what discovery reads beside it. */
export interface PaperRow {
  chunkId: string;
  version: number;
  kind: string;
  title: string;
  synopsis: string;
  boundaries: string[];
  entities: string[];
  validFrom: number;
  source: string;
  /** Distinct chunks with a `cites` edge to it valid at t. */
  citesIn: number;
}

/** Exact reads for ranking pools and collection statistics (batched under D1's 100 parameters). */
export interface DiscoveryStore {
  /** The versions of these chunks visible at t (not deprecated at t), with their cites in-degree at t. */
  papersOf(archiveId: string, chunkIds: string[], t: number): Promise<PaperRow[]>;
  /** Chunks visible at t of these kinds (any) with any of these boundaries (any), id order, at most `limit`. */
  papersIn(
    archiveId: string,
    f: {
      kinds?: string[] | undefined;
      boundariesAny?: string[] | undefined;
      /** Leave out chunks carrying this boundary (after the others). */
      boundaryNot?: string | undefined;
    },
    t: number,
    limit: number,
  ): Promise<PaperRow[]>;
  /** Current names of these entities (missing ids are omitted). */
  entityNames(archiveId: string, entityIds: string[]): Promise<Map<string, string>>;
}

/** Where the application announces changes (outbound events); never fails the change it reports. */
export interface EventSink {
  emit(archiveId: string, type: EventType, data: Record<string, unknown>): Promise<void>;
}

/** Figures by K (the keys are the K values). */
export type KFigures = Record<string, number>;

/** The aggregate metrics of a retrieval run. */
export interface RetrievalAggregate {
  queries: number;
  hit_rate: number;
  mrr: number;
  recall: KFigures;
  precision: KFigures;
}

/** One query of a retrieval run: its gold and returned ids and its metrics. */
export interface RetrievalQueryRecord {
  query: string;
  gold: string[];
  returned: string[];
  hit: number;
  reciprocal_rank: number;
  first_rank: number | null;
  recall: KFigures;
  precision: KFigures;
}

/**
 * A stored retrieval-metrics run. Text that is not JSON reads as: `ks` and `perQuery` [], `aggregate`
 * zero queries with empty figures.
 */
export interface RetrievalRunRecord {
  archiveId: string;
  id: string;
  name: string;
  createdAt: number;
  asOf: number;
  ks: number[];
  queries: number;
  aggregate: RetrievalAggregate;
  perQuery: RetrievalQueryRecord[];
  actor: string;
}

export interface RetrievalRunStore {
  insertRun(row: RetrievalRunRecord): Promise<void>;
  getRun(archiveId: string, id: string): Promise<RetrievalRunRecord | null>;
  /** Newest first, strictly before the cursor (created_at, id); `limit + 1` rows tell whether more follow. */
  listRuns(
    archiveId: string,
    before: { createdAt: number; id: string } | null,
    limit: number,
  ): Promise<Array<Omit<RetrievalRunRecord, "perQuery">>>;
}

export interface Stores {
  archives: ArchiveStore;
  chunks: ChunkStore;
  entities: EntityStore;
  sessions: SessionLog;
  changes: ChangeLog;
  webhooks: WebhookStore;
  sources: SourceStore;
  log: IngestLogStore;
  world: WorldLookup;
  exports: ExportReader;
  forget: ForgetStore;
  events: EventStore;
  annotations: AnnotationStore;
  retrievalRuns: RetrievalRunStore;
  discovery: DiscoveryStore;
  embedding: EmbeddingStore;
  extractions: ExtractionStore;
}

/**
 * Parse JSON text PaperGuru wrote (a JSON column, at the D1 adapter; a line of a stored blob);
 * `fallback` when the text is null or not JSON.
 */
export function readJsonColumn<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
