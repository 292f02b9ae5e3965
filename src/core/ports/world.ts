/**
 * Reads over a whole archive: what the feed pipelines look up before applying a plan, and paged reads
 * for exports and the archive-dump import.
 * Records follow the storage conventions of ./storage.ts.
 */
import type { AliasRecord, ChunkRecord, EdgeRecord, EntityEventRecord, EntityRecord, VersionRecord } from "./chunks";
import type { PaperMatch } from "./intake";

/** A stored version's canonical entity ids and boundaries. */
export type VersionParts = Pick<VersionRecord, "entities" | "boundaries">;

/** The latest version of a paper chunk, sized for "the richer record wins". */
export interface LatestHead {
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
}

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
  latestHead(archiveId: string, chunkId: string): Promise<LatestHead | null>;
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
