/**
 * Archives, their keys, chunks with their versions, and canonical entities: the records and the ports
 * of the source of truth at the heart of an archive.
 * Records follow the storage conventions of ./storage.ts.
 */
import type { CodeSymbol } from "../code/table";
import type { Result } from "../errors";
import type { StoredExtraction } from "../extraction";
import type { EdgeInput, ExistingState, IngestPlan } from "../ingest";
import type { RelationInput } from "../relations";
import type { VersionReader } from "./services";

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

/** A chunk's head (latest version, deprecation) with the fields of one version of it, the one shown. */
export interface ShownChunk {
  kind: string;
  /** The version shown: in a listing the one valid at its instant, in an export the latest or the one at as_of. */
  version: number;
  latestVersion: number;
  title: string;
  synopsis: string;
  validFrom: number;
  validTo: number | null;
  boundaries: string[];
  entities: string[];
  deprecatedAt: number | null;
  deprecatedBy: string | null;
}

/** A listed chunk: its head and the version valid at the listing's instant. */
export interface ChunkListRow extends ShownChunk {
  chunkId: string;
  contentChars: number;
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

export type EntityOperation =
  | { op: "alias"; entity: string; alias: string; at: number }
  | { op: "rename"; entity: string; newName: string; at: number }
  | { op: "merge"; entity: string; into: string; at: number };

/** A chunk with all its versions, its edges and why it was deprecated (null: not deprecated). */
export interface ChunkHistory {
  chunk: ChunkRecord;
  versions: VersionRecord[];
  edges: EdgeRecord[];
  deprecationReason: string | null;
}

/** An entity with its aliases, its events and the chunk versions that mention it. */
export interface EntityHistory {
  entity: EntityRecord;
  aliases: AliasRecord[];
  events: EntityEventRecord[];
  mentions: Array<{ chunk_id: string; version: number; valid_from: number; valid_to: number | null }>;
}

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

/**
 * ChunkStore.deprecate's arguments: close the chunk's head at `at`, replaced `by` a chunk or null,
 * for `reason`, recorded at `now`.
 */
export type DeprecateArgs = [
  archiveId: string,
  chunkId: string,
  by: string | null,
  at: number,
  reason: string,
  now: number,
];

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
  deprecate(...args: DeprecateArgs): Promise<Result<{ version: number }>>;
  chunkHistory(archiveId: string, chunkId: string): Promise<ChunkHistory | null>;
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
  entityHistory(archiveId: string, entityId: string): Promise<EntityHistory | null>;
}
