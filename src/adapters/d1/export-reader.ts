/**
 * D1 reads for exports: pages of chunks, versions, entities, aliases, entity history and edges, each
 * scoped by archive id and ordered by a stable key so an export can page through an archive without
 * holding it in memory. Also the few lookups the idempotent archive re-import needs.
 */
import { and, asc, eq, gt, inArray, like, sql } from "drizzle-orm";
import type {
  AliasRecord,
  ChunkRecord,
  EdgeRecord,
  EntityEventRecord,
  EntityRecord,
  ExportReader,
  VersionRecord,
} from "../../core/ports";
import { chunked, chunkRows, type Db, entityRow, IN_CHUNK, VERSION_FIELDS, validAt, versionsOfChunks } from "./queries";
import * as s from "./schema";

export class D1ExportReader implements ExportReader {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async countChunks(archiveId: string): Promise<number> {
    const [r] = await this.#db.all<{ n: number }>(
      sql`SELECT COUNT(*) AS n FROM chunks WHERE archive_id = ${archiveId}`,
    );
    return r?.n ?? 0;
  }

  /** Chunks in id order after `after` (exclusive). */
  async chunkPage(archiveId: string, after: string | null, limit: number): Promise<ChunkRecord[]> {
    return this.#db
      .select()
      .from(s.chunks)
      .where(and(eq(s.chunks.archiveId, archiveId), after === null ? undefined : gt(s.chunks.chunkId, after)))
      .orderBy(asc(s.chunks.chunkId))
      .limit(limit);
  }

  async chunksByIds(archiveId: string, ids: string[]): Promise<ChunkRecord[]> {
    return chunkRows(this.#db, archiveId, ids);
  }

  /** Every version of the given chunks, by chunk then version (without mentions and symbols). */
  async allVersions(archiveId: string, chunkIds: string[]): Promise<VersionRecord[]> {
    const out: VersionRecord[] = [];
    for (const part of chunked(chunkIds, IN_CHUNK))
      out.push(
        ...(await this.#db
          .select(VERSION_FIELDS)
          .from(s.chunkVersions)
          .where(and(eq(s.chunkVersions.archiveId, archiveId), inArray(s.chunkVersions.chunkId, part)))
          .orderBy(asc(s.chunkVersions.chunkId), asc(s.chunkVersions.version))),
      );
    return out;
  }

  /** One version per chunk: the one valid at `asOf`, or the latest when `asOf` is undefined. */
  async shownVersions(
    archiveId: string,
    chunks: ChunkRecord[],
    asOf: number | undefined,
  ): Promise<Map<string, VersionRecord>> {
    const out = new Map<string, VersionRecord>();
    const latest = new Map(chunks.map((c) => [c.chunkId, c.latestVersion]));
    const rows = await versionsOfChunks(
      this.#db,
      VERSION_FIELDS,
      archiveId,
      chunks.map((c) => c.chunkId),
      asOf,
    );
    for (const r of rows) if (asOf !== undefined || r.version === latest.get(r.chunkId)) out.set(r.chunkId, r);
    return out;
  }

  /**
   * The given (chunk, version) pairs that exist, one query per 45 pairs (at most 91 bound values of
   * D1's 100; not one query per pair: a dump
   * re-import of 7,000 chunks asked 7,000 queries, and the local runtime held a socket for each until
   * it went idle, past the process's 20,000 descriptors).
   */
  async exactVersions(archiveId: string, wanted: Array<{ chunk: string; version: number }>): Promise<VersionRecord[]> {
    const out: VersionRecord[] = [];
    for (const part of chunked(wanted, Math.floor(IN_CHUNK / 2))) {
      const pairs = new Set(part.map((w) => `${w.chunk}\u0000${w.version}`));
      const rows = await this.#db
        .select(VERSION_FIELDS)
        .from(s.chunkVersions)
        .where(
          and(
            eq(s.chunkVersions.archiveId, archiveId),
            inArray(s.chunkVersions.chunkId, [...new Set(part.map((w) => w.chunk))]),
            inArray(s.chunkVersions.version, [...new Set(part.map((w) => w.version))]),
          ),
        );
      for (const r of rows) if (pairs.has(`${r.chunkId}\u0000${r.version}`)) out.push(r);
    }
    return out;
  }

  async entityPage(archiveId: string, after: string | null, limit: number): Promise<EntityRecord[]> {
    return this.#db
      .select()
      .from(s.entities)
      .where(and(eq(s.entities.archiveId, archiveId), after === null ? undefined : gt(s.entities.entityId, after)))
      .orderBy(asc(s.entities.entityId))
      .limit(limit);
  }

  async entitiesByIds(archiveId: string, ids: string[]): Promise<EntityRecord[]> {
    const out: EntityRecord[] = [];
    for (const part of chunked([...new Set(ids)], IN_CHUNK))
      out.push(
        ...(await this.#db
          .select()
          .from(s.entities)
          .where(and(eq(s.entities.archiveId, archiveId), inArray(s.entities.entityId, part)))),
      );
    return out;
  }

  async aliasesOf(archiveId: string, entityIds: string[]): Promise<AliasRecord[]> {
    const out: AliasRecord[] = [];
    for (const part of chunked([...new Set(entityIds)], IN_CHUNK))
      out.push(
        ...(await this.#db
          .select()
          .from(s.entityAliases)
          .where(and(eq(s.entityAliases.archiveId, archiveId), inArray(s.entityAliases.entityId, part)))
          .orderBy(asc(s.entityAliases.entityId), asc(s.entityAliases.validFrom), asc(s.entityAliases.aliasNorm))),
      );
    return out;
  }

  async eventsOf(archiveId: string, entityIds: string[]): Promise<EntityEventRecord[]> {
    const out: EntityEventRecord[] = [];
    for (const part of chunked([...new Set(entityIds)], IN_CHUNK))
      out.push(
        ...(await this.#db
          .select()
          .from(s.entityEvents)
          .where(and(eq(s.entityEvents.archiveId, archiveId), inArray(s.entityEvents.entityId, part)))
          .orderBy(asc(s.entityEvents.id))),
      );
    return out;
  }

  /** Chunk deprecations as recorded in history (`chunk:<id>`, op deprecated): reason and record time. */
  async deprecationEvents(archiveId: string): Promise<EntityEventRecord[]> {
    return this.#db
      .select()
      .from(s.entityEvents)
      .where(
        and(
          eq(s.entityEvents.archiveId, archiveId),
          like(s.entityEvents.entityId, "chunk:%"),
          eq(s.entityEvents.op, "deprecated"),
        ),
      )
      .orderBy(asc(s.entityEvents.id));
  }

  /** Edges by id after `afterId`; with `asOf`, only those valid at that time. */
  async edgePage(archiveId: string, afterId: number, limit: number, asOf?: number): Promise<EdgeRecord[]> {
    return this.#db
      .select()
      .from(s.edges)
      .where(
        and(
          eq(s.edges.archiveId, archiveId),
          gt(s.edges.id, afterId),
          asOf === undefined ? undefined : validAt(s.edges.validFrom, s.edges.validTo, asOf),
        ),
      )
      .orderBy(asc(s.edges.id))
      .limit(limit);
  }

  async aliasRowExists(archiveId: string, entityId: string, aliasNorm: string, validFrom: number): Promise<boolean> {
    const r = await this.#db.query.entityAliases.findFirst({
      where: and(
        eq(s.entityAliases.archiveId, archiveId),
        eq(s.entityAliases.entityId, entityId),
        eq(s.entityAliases.aliasNorm, aliasNorm),
        eq(s.entityAliases.validFrom, validFrom),
      ),
    });
    return !!r;
  }

  async entityRow(archiveId: string, entityId: string): Promise<EntityRecord | null> {
    return entityRow(this.#db, archiveId, entityId);
  }
}
