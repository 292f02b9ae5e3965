/**
 * D1 adapter for what the feed pipelines look up before applying a plan: which chunks exist, paper
 * entities and chunks reachable from normalised aliases (cross-source deduplication), live entities,
 * a paper's versions and head, and the entity events the pipelines record themselves.
 */
import { and, asc, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { sha256Hex } from "../../core/ingest";
import type { LatestHead, PaperMatch, WorldLookup } from "../../core/ports";
import { chunked, chunkRows, type Db, entityEvent, IN_CHUNK, latestVersion, runBatch } from "./queries";
import * as s from "./schema";

/** The tombstones of these id hashes that no re-creation has lifted. */
function liveTombstones(archiveId: string, idHashes: string[]): SQL | undefined {
  return and(
    eq(s.tombstones.archiveId, archiveId),
    inArray(s.tombstones.idHash, idHashes),
    isNull(s.tombstones.recreatedAt),
  );
}

export class D1WorldLookup implements WorldLookup {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async tombstoned(archiveId: string, ids: string[]): Promise<Map<string, number>> {
    const byHash = new Map<string, string>();
    for (const id of new Set(ids)) byHash.set(await sha256Hex(id), id);
    const out = new Map<string, number>();
    for (const part of chunked([...byHash.keys()], IN_CHUNK)) {
      const rows = await this.#db
        .select({ h: s.tombstones.idHash, at: s.tombstones.deletedAt })
        .from(s.tombstones)
        .where(liveTombstones(archiveId, part));
      for (const r of rows) out.set(byHash.get(r.h) as string, r.at);
    }
    return out;
  }

  async recreated(archiveId: string, ids: string[], actor: string, at: number): Promise<void> {
    const hashes: string[] = [];
    for (const id of new Set(ids)) hashes.push(await sha256Hex(id));
    for (const part of chunked(hashes, IN_CHUNK)) {
      const live = liveTombstones(archiveId, part);
      const undone = await this.#db.select({ auditId: s.tombstones.auditId }).from(s.tombstones).where(live);
      if (undone.length === 0) continue;
      // One transaction: the audit rows' re-creations (append-only) and the tombstones they lift.
      // 4 parameters a row: 20 rows a statement stays under D1's 100 bound parameters.
      await runBatch(this.#db, [
        ...chunked(undone, 20).map((rows) =>
          this.#db
            .insert(s.recreations)
            .values(rows.map((u) => ({ auditId: u.auditId, archiveId, at, by: actor })))
            .onConflictDoNothing(),
        ),
        this.#db.update(s.tombstones).set({ recreatedAt: at, recreatedBy: actor }).where(live),
      ]);
    }
  }

  /** Which of these chunk ids exist, with their kind and deprecation. */
  async chunksByIds(
    archiveId: string,
    ids: string[],
  ): Promise<Map<string, { kind: string; latestVersion: number; deprecatedAt: number | null }>> {
    const rows = await chunkRows(this.#db, archiveId, ids);
    return new Map(
      rows.map((r) => [r.chunkId, { kind: r.kind, latestVersion: r.latestVersion, deprecatedAt: r.deprecatedAt }]),
    );
  }

  /** Chunk ids starting with a prefix (a repository's files), in id order. */
  async chunkIdsWithPrefix(archiveId: string, prefix: string, limit: number): Promise<string[]> {
    // Range scan on the primary key instead of LIKE (ids may contain % and _).
    const rows = await this.#db
      .select({ id: s.chunks.chunkId })
      .from(s.chunks)
      .where(
        and(
          eq(s.chunks.archiveId, archiveId),
          sql`${s.chunks.chunkId} >= ${prefix}`,
          sql`${s.chunks.chunkId} < ${`${prefix}\uffff`}`,
          isNull(s.chunks.deprecatedAt),
        ),
      )
      .orderBy(asc(s.chunks.chunkId))
      .limit(limit);
    return rows.map((r) => r.id);
  }

  /**
   * Paper entities reachable from normalised aliases (identifier forms or titles), following merges:
   * alias -> entity (or the entity it was merged into).
   */
  async paperEntitiesByAliases(archiveId: string, aliasNorms: string[]): Promise<PaperMatch[]> {
    const out: PaperMatch[] = [];
    for (const part of chunked(aliasNorms, IN_CHUNK)) {
      const rows = await this.#db
        .select({
          key: s.entityAliases.aliasNorm,
          chunkId: sql<string>`coalesce(${s.entities.mergedInto}, ${s.entities.entityId})`,
        })
        .from(s.entityAliases)
        .innerJoin(
          s.entities,
          and(eq(s.entities.archiveId, s.entityAliases.archiveId), eq(s.entities.entityId, s.entityAliases.entityId)),
        )
        .where(
          and(
            eq(s.entityAliases.archiveId, archiveId),
            inArray(s.entityAliases.aliasNorm, part),
            eq(s.entities.type, "paper"),
          ),
        );
      for (const r of rows) out.push(r);
    }
    return out;
  }

  /** Paper chunks reachable from normalised aliases: the entity must be a paper chunk's own entity. */
  async papersByAliases(archiveId: string, aliasNorms: string[]): Promise<PaperMatch[]> {
    const out = await this.paperEntitiesByAliases(archiveId, aliasNorms);
    if (out.length === 0) return out;
    const chunks = await this.chunksByIds(archiveId, [...new Set(out.map((m) => m.chunkId))]);
    return out.filter((m) => chunks.get(m.chunkId)?.kind === "paper");
  }

  /** Entities that exist under these ids and are not merged into another. */
  async liveEntities(archiveId: string, ids: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (const part of chunked(ids, IN_CHUNK)) {
      const rows = await this.#db
        .select({ id: s.entities.entityId })
        .from(s.entities)
        .where(
          and(eq(s.entities.archiveId, archiveId), inArray(s.entities.entityId, part), isNull(s.entities.mergedInto)),
        );
      for (const r of rows) out.add(r.id);
    }
    return out;
  }

  /** Every version's source, artifact hash, entity ids and boundaries, oldest first (a paper has a handful). */
  async versionsOf(
    archiveId: string,
    chunkId: string,
  ): Promise<
    Array<{
      version: number;
      source: string;
      artifactHash: string;
      contentKey: string;
      entities: string[];
      boundaries: string[];
    }>
  > {
    return this.#db
      .select({
        version: s.chunkVersions.version,
        source: s.chunkVersions.source,
        artifactHash: s.chunkVersions.artifactHash,
        contentKey: s.chunkVersions.contentKey,
        entities: s.chunkVersions.entities,
        boundaries: s.chunkVersions.boundaries,
      })
      .from(s.chunkVersions)
      .where(and(eq(s.chunkVersions.archiveId, archiveId), eq(s.chunkVersions.chunkId, chunkId)))
      .orderBy(asc(s.chunkVersions.version));
  }

  /** Size of a paper chunk's latest version, for "the richer record wins". */
  async latestHead(archiveId: string, chunkId: string): Promise<LatestHead | null> {
    const v = s.chunkVersions;
    const row = await latestVersion(
      this.#db,
      {
        title: v.title,
        contentKey: v.contentKey,
        contentChars: v.contentChars,
        synopsis: v.synopsis,
        validFrom: v.validFrom,
        source: v.source,
        entities: v.entities,
        boundaries: v.boundaries,
        edges: v.edges,
        relations: v.relations,
      },
      archiveId,
      chunkId,
    );
    if (!row) return null;
    return {
      title: row.title,
      contentKey: row.contentKey,
      contentChars: row.contentChars,
      entities: row.entities.length,
      edges: row.edges.length,
      synopsis: row.synopsis,
      validFrom: row.validFrom,
      source: row.source,
      parts: { entities: row.entities, boundaries: row.boundaries, edges: row.edges, relations: row.relations },
    };
  }

  /** Normalised aliases an entity already has (open or closed). */
  async aliasNormsOf(archiveId: string, entityId: string): Promise<Set<string>> {
    const rows = await this.#db
      .select({ n: s.entityAliases.aliasNorm })
      .from(s.entityAliases)
      .where(and(eq(s.entityAliases.archiveId, archiveId), eq(s.entityAliases.entityId, entityId)));
    return new Set(rows.map((r) => r.n));
  }

  async recordEntityEvent(
    archiveId: string,
    entityId: string,
    op: string,
    detail: Record<string, unknown>,
    at: number,
  ): Promise<void> {
    await this.#db.insert(s.entityEvents).values(entityEvent(archiveId, entityId, op, detail, at, at));
  }
}
