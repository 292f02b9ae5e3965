/**
 * D1 reads for exports (issue 5): pages of chunks, versions, entities, aliases, entity history and
 * edges, each scoped by archive id and ordered by a stable key so an export can page through an archive
 * without holding it in memory. Also the few lookups the idempotent archive re-import needs.
 */
import { and, asc, eq, gt, inArray, isNull, like, lte, or, sql } from "drizzle-orm";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import type {
  AliasRecord,
  ChunkRecord,
  EdgeRecord,
  EntityEventRecord,
  EntityRecord,
  ExportReader,
  VersionRecord,
} from "../../core/ports";
import { chunked, IN_CHUNK, versionsOfChunks } from "./queries";
import * as s from "./schema";

type Db = DrizzleD1Database<typeof s>;

export type ChunkRow = ChunkRecord;
export type VersionRow = VersionRecord;
export type EntityRow = EntityRecord;
export type AliasRow = AliasRecord;
export type EntityEventRow = EntityEventRecord;
export type EdgeRow = EdgeRecord;

export class ExportStore implements ExportReader {
  /** Shares the D1Store's drizzle handle (`pg.store.db`), or opens one on a binding. */
  constructor(readonly db: Db) {}

  static of(d1: D1Database): ExportStore {
    return new ExportStore(drizzle(d1, { schema: s }));
  }

  async countChunks(archiveId: string): Promise<number> {
    const [r] = await this.db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM chunks WHERE archive_id = ${archiveId}`);
    return r?.n ?? 0;
  }

  /** Chunks in id order after `after` (exclusive). */
  async chunkPage(archiveId: string, after: string | null, limit: number): Promise<ChunkRow[]> {
    return this.db
      .select()
      .from(s.chunks)
      .where(and(eq(s.chunks.archiveId, archiveId), after === null ? undefined : gt(s.chunks.chunkId, after)))
      .orderBy(asc(s.chunks.chunkId))
      .limit(limit);
  }

  async chunksByIds(archiveId: string, ids: string[]): Promise<ChunkRow[]> {
    const out: ChunkRow[] = [];
    for (const part of chunked([...new Set(ids)], IN_CHUNK))
      out.push(
        ...(await this.db
          .select()
          .from(s.chunks)
          .where(and(eq(s.chunks.archiveId, archiveId), inArray(s.chunks.chunkId, part)))),
      );
    return out;
  }

  /** Every version of the given chunks, by chunk then version. */
  async allVersions(archiveId: string, chunkIds: string[]): Promise<VersionRow[]> {
    const out: VersionRow[] = [];
    for (const part of chunked(chunkIds, IN_CHUNK))
      out.push(
        ...(await this.db
          .select()
          .from(s.chunkVersions)
          .where(and(eq(s.chunkVersions.archiveId, archiveId), inArray(s.chunkVersions.chunkId, part)))
          .orderBy(asc(s.chunkVersions.chunkId), asc(s.chunkVersions.version))),
      );
    return out;
  }

  /** One version per chunk: the one valid at `asOf`, or the latest when `asOf` is undefined. */
  async shownVersions(
    archiveId: string,
    chunks: ChunkRow[],
    asOf: number | undefined,
  ): Promise<Map<string, VersionRow>> {
    const out = new Map<string, VersionRow>();
    const latest = new Map(chunks.map((c) => [c.chunkId, c.latestVersion]));
    const rows = await versionsOfChunks(
      this.db,
      archiveId,
      chunks.map((c) => c.chunkId),
      asOf,
    );
    for (const r of rows) if (asOf !== undefined || r.version === latest.get(r.chunkId)) out.set(r.chunkId, r);
    return out;
  }

  async exactVersions(archiveId: string, wanted: Array<{ chunk: string; version: number }>): Promise<VersionRow[]> {
    const out: VersionRow[] = [];
    for (const w of wanted) {
      const r = await this.db.query.chunkVersions.findFirst({
        where: and(
          eq(s.chunkVersions.archiveId, archiveId),
          eq(s.chunkVersions.chunkId, w.chunk),
          eq(s.chunkVersions.version, w.version),
        ),
      });
      if (r) out.push(r);
    }
    return out;
  }

  async entityPage(archiveId: string, after: string | null, limit: number): Promise<EntityRow[]> {
    return this.db
      .select()
      .from(s.entities)
      .where(and(eq(s.entities.archiveId, archiveId), after === null ? undefined : gt(s.entities.entityId, after)))
      .orderBy(asc(s.entities.entityId))
      .limit(limit);
  }

  async entitiesByIds(archiveId: string, ids: string[]): Promise<EntityRow[]> {
    const out: EntityRow[] = [];
    for (const part of chunked([...new Set(ids)], IN_CHUNK))
      out.push(
        ...(await this.db
          .select()
          .from(s.entities)
          .where(and(eq(s.entities.archiveId, archiveId), inArray(s.entities.entityId, part)))),
      );
    return out;
  }

  async aliasesOf(archiveId: string, entityIds: string[]): Promise<AliasRow[]> {
    const out: AliasRow[] = [];
    for (const part of chunked([...new Set(entityIds)], IN_CHUNK))
      out.push(
        ...(await this.db
          .select()
          .from(s.entityAliases)
          .where(and(eq(s.entityAliases.archiveId, archiveId), inArray(s.entityAliases.entityId, part)))
          .orderBy(asc(s.entityAliases.entityId), asc(s.entityAliases.validFrom), asc(s.entityAliases.aliasNorm))),
      );
    return out;
  }

  async eventsOf(archiveId: string, entityIds: string[]): Promise<EntityEventRow[]> {
    const out: EntityEventRow[] = [];
    for (const part of chunked([...new Set(entityIds)], IN_CHUNK))
      out.push(
        ...(await this.db
          .select()
          .from(s.entityEvents)
          .where(and(eq(s.entityEvents.archiveId, archiveId), inArray(s.entityEvents.entityId, part)))
          .orderBy(asc(s.entityEvents.id))),
      );
    return out;
  }

  /** Chunk deprecations as recorded in history (`chunk:<id>`, op deprecated): reason and record time. */
  async deprecationEvents(archiveId: string): Promise<EntityEventRow[]> {
    return this.db
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
  async edgePage(archiveId: string, afterId: number, limit: number, asOf?: number): Promise<EdgeRow[]> {
    return this.db
      .select()
      .from(s.edges)
      .where(
        and(
          eq(s.edges.archiveId, archiveId),
          gt(s.edges.id, afterId),
          asOf === undefined
            ? undefined
            : and(lte(s.edges.validFrom, asOf), or(isNull(s.edges.validTo), gt(s.edges.validTo, asOf))),
        ),
      )
      .orderBy(asc(s.edges.id))
      .limit(limit);
  }

  async aliasRowExists(archiveId: string, entityId: string, aliasNorm: string, validFrom: number): Promise<boolean> {
    const r = await this.db.query.entityAliases.findFirst({
      where: and(
        eq(s.entityAliases.archiveId, archiveId),
        eq(s.entityAliases.entityId, entityId),
        eq(s.entityAliases.aliasNorm, aliasNorm),
        eq(s.entityAliases.validFrom, validFrom),
      ),
    });
    return !!r;
  }

  async entityRow(archiveId: string, entityId: string): Promise<EntityRow | null> {
    return (
      (await this.db.query.entities.findFirst({
        where: and(eq(s.entities.archiveId, archiveId), eq(s.entities.entityId, entityId)),
      })) ?? null
    );
  }
}
