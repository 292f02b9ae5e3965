/**
 * D1 adapter for chunks and their versions: ingest plans land here atomically (one `db.batch`, which
 * D1 runs as a single transaction), deprecation closes a chunk's head, and the query pipeline reads
 * versions by time and by number. Multi-row inserts are split to stay under D1's 100 bound parameters.
 */
import { and, asc, desc, eq, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import type { CodeSymbol } from "../../core/code/table";
import { fail, ok, type Result } from "../../core/errors";
import type { ExistingChunk, ExistingState, IngestPlan } from "../../core/ingest";
import type {
  ChunkFilter,
  ChunkHistory,
  ChunkListRow,
  ChunkRecord,
  ChunkStore,
  DeprecateArgs,
  StoredVersion,
  VersionRecord,
} from "../../core/ports";
import type { ChunkKind, EdgeType } from "../../core/types";
import {
  changeLogInserts,
  chunked,
  chunkRow,
  closesByTime,
  type Db,
  decoded,
  entityEvent,
  exactVersion,
  IN_CHUNK,
  insertRows,
  newEntityEvents,
  runBatch,
  tupleIn,
  VERSION_FIELDS,
  versionKey,
  versionsOfChunks,
  type Write,
} from "./queries";
import * as s from "./schema";

/** The columns of a version the query pipeline reads (visibleAt, exact): one JSON column, boundaries. */
const STORED_FIELDS = {
  chunkId: s.chunkVersions.chunkId,
  version: s.chunkVersions.version,
  kind: s.chunkVersions.kind,
  title: s.chunkVersions.title,
  synopsis: s.chunkVersions.synopsis,
  contentKey: s.chunkVersions.contentKey,
  contentChars: s.chunkVersions.contentChars,
  boundaries: s.chunkVersions.boundaries,
  validFrom: s.chunkVersions.validFrom,
  validTo: s.chunkVersions.validTo,
};

function toStored(
  r: Pick<
    VersionRecord,
    | "chunkId"
    | "version"
    | "kind"
    | "title"
    | "synopsis"
    | "contentKey"
    | "contentChars"
    | "boundaries"
    | "validFrom"
    | "validTo"
  >,
  deprecatedBy: string | null,
): StoredVersion {
  return {
    chunkId: r.chunkId,
    version: r.version,
    kind: r.kind as ChunkKind,
    title: r.title,
    synopsis: r.synopsis,
    contentKey: r.contentKey,
    contentChars: r.contentChars,
    boundaries: r.boundaries,
    validFrom: r.validFrom,
    validTo: r.validTo,
    deprecatedBy,
  };
}

export class D1ChunkStore implements ChunkStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** UPDATE chunk_versions SET valid_to = `at` on the versions `which` selects. */
  #closeVersions(at: number, which: SQL | undefined): Write {
    return this.#db.update(s.chunkVersions).set({ validTo: at }).where(which);
  }

  // ------------------------------------------------------------------ ingest

  async loadExisting(archiveId: string, chunkIds: string[], entityIds: string[]): Promise<ExistingState> {
    // Every read goes in one D1 batch (one round trip): for 200 ids that is 4-6 SELECTs.
    const chunkParts = chunked(chunkIds, IN_CHUNK);
    const entityParts = chunked(entityIds, IN_CHUNK);
    const heads = chunkParts.map((ids) =>
      this.#db
        .select({
          chunkId: s.chunks.chunkId,
          latestVersion: s.chunks.latestVersion,
          deprecatedAt: s.chunks.deprecatedAt,
          artifactHash: s.chunkVersions.artifactHash,
          validFrom: s.chunkVersions.validFrom,
        })
        .from(s.chunks)
        .innerJoin(
          s.chunkVersions,
          and(
            eq(s.chunkVersions.archiveId, s.chunks.archiveId),
            eq(s.chunkVersions.chunkId, s.chunks.chunkId),
            eq(s.chunkVersions.version, s.chunks.latestVersion),
          ),
        )
        .where(and(eq(s.chunks.archiveId, archiveId), inArray(s.chunks.chunkId, ids))),
    );
    const openEdges = chunkParts.map((ids) =>
      this.#db
        .select({
          src: s.edges.src,
          dst: s.edges.dst,
          type: s.edges.type,
          weight: s.edges.weight,
          validFrom: s.edges.validFrom,
        })
        .from(s.edges)
        .where(and(eq(s.edges.archiveId, archiveId), inArray(s.edges.src, ids), isNull(s.edges.validTo))),
    );
    const known = entityParts.map((ids) =>
      this.#db
        .select({ entityId: s.entities.entityId })
        .from(s.entities)
        .where(and(eq(s.entities.archiveId, archiveId), inArray(s.entities.entityId, ids))),
    );
    const openAliases = entityParts.map((ids) =>
      this.#db
        .select({ entityId: s.entityAliases.entityId, aliasNorm: s.entityAliases.aliasNorm })
        .from(s.entityAliases)
        .where(
          and(
            eq(s.entityAliases.archiveId, archiveId),
            inArray(s.entityAliases.entityId, ids),
            isNull(s.entityAliases.validTo),
          ),
        ),
    );
    const [first, ...rest] = [...heads, ...openEdges, ...known, ...openAliases];
    const results = first ? await this.#db.batch([first, ...rest]) : [];
    let at = 0;
    const take = <T>(n: number): T[] => {
      const rows = results.slice(at, at + n).flat() as T[];
      at += n;
      return rows;
    };
    const chunks = new Map<string, ExistingChunk>();
    type Head = Omit<ExistingChunk, "openEdges">;
    for (const r of take<Head>(heads.length)) chunks.set(r.chunkId, { ...r, openEdges: [] });
    for (const e of take<{ src: string; dst: string; type: string; weight: number; validFrom: number }>(
      openEdges.length,
    ))
      chunks
        .get(e.src)
        ?.openEdges.push({ dst: e.dst, type: e.type as EdgeType, weight: e.weight, validFrom: e.validFrom });
    const entities = new Set(take<{ entityId: string }>(known.length).map((r) => r.entityId));
    const aliases = new Set(
      take<{ entityId: string; aliasNorm: string }>(openAliases.length).map((r) => `${r.entityId}\u0000${r.aliasNorm}`),
    );
    return { chunks, entities, aliases };
  }

  /**
   * Previous versions end where the new ones start: one UPDATE per distinct valid_from (a batch
   * without valid_from has one), each naming up to 45 (chunk, version) pairs.
   */
  #closeSuperseded(archiveId: string, plan: IngestPlan): Write[] {
    const closes = plan.versions.filter((v) => v.closesVersion > 0);
    return closesByTime(
      closes,
      (v) => v.validFrom,
      45,
      (at, part) =>
        this.#closeVersions(
          at,
          and(
            eq(s.chunkVersions.archiveId, archiveId),
            tupleIn(
              [s.chunkVersions.chunkId, s.chunkVersions.version],
              part.map((v) => [v.chunkId, v.closesVersion]),
            ),
          ),
        ),
    );
  }

  /** Execute a plan atomically. A concurrent writer makes the batch fail as a whole (PK conflict). */
  async executePlan(
    archiveId: string,
    plan: IngestPlan,
    now: number,
    vectorIdOf: (chunk: string) => string,
  ): Promise<Result<void>> {
    const stmts = this.#closeSuperseded(archiveId, plan);
    // Row inserts are bound on the D1 binding (insertRows): 20 columns, 5 versions per INSERT.
    stmts.push(
      ...insertRows(
        this.#db,
        s.chunkVersions,
        plan.versions.map((v) => ({
          archiveId,
          chunkId: v.chunkId,
          version: v.version,
          kind: v.kind,
          title: v.title,
          synopsis: v.synopsis,
          artifactHash: v.artifactHash,
          contentHash: v.contentHash,
          contentKey: v.contentKey,
          contentChars: v.contentChars,
          entities: v.entities,
          boundaries: v.boundaries,
          edges: v.edges,
          relations: v.relations?.length ? v.relations : null,
          mentions: v.mentions.length ? v.mentions : null,
          symbols: v.symbols.length ? v.symbols : null,
          validFrom: v.validFrom,
          validTo: null,
          recordedAt: v.recordedAt,
          source: v.source,
        })),
      ),
    );
    // 8 columns (deprecated_at/by stay NULL): 12 chunks per INSERT; an existing chunk takes the new
    // row's latest_version, kind and updated_at (the same values as the row itself).
    stmts.push(
      ...insertRows(
        this.#db,
        s.chunks,
        plan.versions.map((v) => ({
          archiveId,
          chunkId: v.chunkId,
          kind: v.kind,
          latestVersion: v.version,
          firstValidFrom: v.validFrom,
          vectorId: vectorIdOf(v.chunkId),
          createdAt: now,
          updatedAt: now,
        })),
        "ON CONFLICT (archive_id, chunk_id) DO UPDATE SET latest_version = excluded.latest_version, kind = excluded.kind, updated_at = excluded.updated_at",
      ),
    );
    // Open edges a version drops or changes: one UPDATE per distinct time, up to 32 (src, dst, type).
    stmts.push(
      ...closesByTime(
        plan.edgeCloses,
        (e) => e.at,
        32,
        (at, part) =>
          this.#db
            .update(s.edges)
            .set({ validTo: at })
            .where(
              and(
                eq(s.edges.archiveId, archiveId),
                isNull(s.edges.validTo),
                tupleIn(
                  [s.edges.src, s.edges.dst, s.edges.type],
                  part.map((e) => [e.src, e.dst, e.type]),
                ),
              ),
            ),
      ),
    );
    stmts.push(
      ...insertRows(
        this.#db,
        s.edges,
        plan.edgeInserts.map((e) => ({ archiveId, ...e, context: e.context ?? null, recordedAt: now })),
        "ON CONFLICT (archive_id, src, dst, type, valid_from) DO UPDATE SET weight = excluded.weight, valid_to = excluded.valid_to, version = excluded.version, context = excluded.context",
      ),
      ...insertRows(
        this.#db,
        s.entities,
        plan.entityInserts.map((e) => ({
          archiveId,
          entityId: e.entityId,
          type: e.type,
          name: e.name,
          createdAt: now,
        })),
        "ON CONFLICT DO NOTHING",
      ),
      ...insertRows(
        this.#db,
        s.entityAliases,
        plan.aliasInserts.map((a) => ({ archiveId, ...a, validTo: null })),
        "ON CONFLICT DO NOTHING",
      ),
    );
    const events = newEntityEvents(archiveId, plan, now);
    stmts.push(...insertRows(this.#db, s.entityEvents, events));
    stmts.push(...changeLogInserts(this.#db, archiveId, plan.ops, now));
    try {
      await runBatch(this.#db, stmts);
      return ok(undefined);
    } catch (e) {
      const msg = String(e);
      if (/UNIQUE|PRIMARY KEY|constraint/i.test(msg))
        return fail(
          "conflict",
          "a concurrent write changed these artifacts; nothing was stored",
          "artifacts",
          "retry the request",
        );
      throw e;
    }
  }

  // ------------------------------------------------------------------ lifecycle

  async chunkRow(archiveId: string, chunkId: string): Promise<ChunkRecord | null> {
    return chunkRow(this.#db, archiveId, chunkId);
  }

  async deprecate(...[archiveId, chunkId, by, at, reason, now]: DeprecateArgs): Promise<Result<{ version: number }>> {
    const chunk = await this.chunkRow(archiveId, chunkId);
    if (!chunk) return fail("not_found", `chunk ${chunkId} does not exist in archive ${archiveId}`, "id");
    if (chunk.deprecatedAt !== null)
      return fail(
        "conflict",
        `chunk ${chunkId} is already deprecated`,
        "id",
        "deprecation is final; check the chunk's history",
      );
    const latest = await this.exact(archiveId, chunkId, chunk.latestVersion);
    if (latest && at <= latest.validFrom)
      return fail(
        "conflict",
        `deprecation time must be after the current version's valid_from (${new Date(latest.validFrom).toISOString()})`,
        "at",
        "give a later `at` or omit it (defaults to now)",
      );
    if (by === chunkId) return fail("validation", "a chunk cannot be deprecated by itself", "by");
    const stmts: Write[] = [
      this.#db
        .update(s.chunks)
        .set({ deprecatedAt: at, deprecatedBy: by, updatedAt: now })
        .where(and(eq(s.chunks.archiveId, archiveId), eq(s.chunks.chunkId, chunkId), isNull(s.chunks.deprecatedAt))),
      this.#closeVersions(at, versionKey(archiveId, chunkId, chunk.latestVersion)),
      ...changeLogInserts(this.#db, archiveId, [{ op: "head.deprecate", chunk: chunkId, at, by }], now),
    ];
    if (by) {
      stmts.push(
        this.#db
          .insert(s.edges)
          .values({
            archiveId,
            src: chunkId,
            dst: by,
            type: "deprecated-by",
            weight: 1,
            validFrom: at,
            validTo: null,
            version: chunk.latestVersion,
            recordedAt: now,
          })
          .onConflictDoNothing(),
      );
    }
    stmts.push(
      this.#db
        .insert(s.entityEvents)
        .values(entityEvent(archiveId, `chunk:${chunkId}`, "deprecated", { by, reason }, at, now)),
    );
    await runBatch(this.#db, stmts);
    return ok({ version: chunk.latestVersion });
  }

  // ------------------------------------------------------------------ history

  async chunkHistory(archiveId: string, chunkId: string): Promise<ChunkHistory | null> {
    const chunk = await this.chunkRow(archiveId, chunkId);
    if (!chunk) return null;
    // Every column but the analyser's mentions, which nothing reads from a history.
    const versions = await this.#db
      .select({ ...VERSION_FIELDS, symbols: s.chunkVersions.symbols })
      .from(s.chunkVersions)
      .where(and(eq(s.chunkVersions.archiveId, archiveId), eq(s.chunkVersions.chunkId, chunkId)))
      .orderBy(asc(s.chunkVersions.version));
    const edges = await this.#db
      .select()
      .from(s.edges)
      .where(and(eq(s.edges.archiveId, archiveId), or(eq(s.edges.src, chunkId), eq(s.edges.dst, chunkId))))
      .orderBy(asc(s.edges.validFrom), asc(s.edges.id));
    let deprecationReason: string | null = null;
    if (chunk.deprecatedAt !== null) {
      // The reason is kept with the deprecation event (entity id chunk:<id>, op deprecated).
      const [ev] = await this.#db
        .select({ detail: s.entityEvents.detail })
        .from(s.entityEvents)
        .where(
          and(
            eq(s.entityEvents.archiveId, archiveId),
            eq(s.entityEvents.entityId, `chunk:${chunkId}`),
            eq(s.entityEvents.op, "deprecated"),
          ),
        )
        .orderBy(desc(s.entityEvents.id))
        .limit(1);
      const reason = ev?.detail.reason;
      deprecationReason = typeof reason === "string" && reason !== "" ? reason : null;
    }
    return { chunk, versions, edges, deprecationReason };
  }

  async codeModules(
    archiveId: string,
    prefix: string,
    t: number,
    max: number,
  ): Promise<Array<{ chunkId: string; version: number; contentKey: string; symbols: CodeSymbol[] | null }>> {
    const rows = await this.#db.all<{ chunkId: string; version: number; contentKey: string; symbols: string | null }>(
      sql`SELECT v.chunk_id AS chunkId, v.version AS version, v.content_key AS contentKey, v.symbols AS symbols
          FROM chunk_versions v JOIN chunks c ON c.archive_id = v.archive_id AND c.chunk_id = v.chunk_id
          WHERE v.archive_id = ${archiveId} AND v.kind = 'code_unit'
            AND v.chunk_id >= ${prefix} AND substr(v.chunk_id, 1, ${prefix.length}) = ${prefix}
            AND v.valid_from <= ${t} AND (v.valid_to IS NULL OR v.valid_to > ${t})
            AND (c.deprecated_at IS NULL OR c.deprecated_at > ${t})
          ORDER BY v.chunk_id LIMIT ${max}`,
    );
    return rows.map((r) => ({ ...r, symbols: decoded(s.chunkVersions.symbols, r.symbols) }));
  }

  async subtree(archiveId: string, root: string, t: number, max: number): Promise<string[]> {
    // Depth-bounded so a cycle of part-of edges ends; UNION drops repeated (id, depth) rows.
    const rows = await this.#db.all<{ id: string }>(
      sql`WITH RECURSIVE sub(id, depth) AS (
            SELECT ${root}, 0
            UNION
            SELECT e.src, sub.depth + 1 FROM edges e JOIN sub ON e.dst = sub.id
            WHERE e.archive_id = ${archiveId} AND e.type = 'part-of' AND e.valid_from <= ${t}
              AND (e.valid_to IS NULL OR e.valid_to > ${t}) AND sub.depth < 64)
          SELECT DISTINCT id FROM sub LIMIT ${max}`,
    );
    return rows.map((r) => r.id);
  }

  async entitiesAt(
    archiveId: string,
    chunkIds: string[],
    t: number,
  ): Promise<Map<string, Array<{ id: string; type: string }>>> {
    const named = new Map<string, string[]>();
    const fields = {
      chunkId: s.chunkVersions.chunkId,
      entities: s.chunkVersions.entities,
      extracted: s.chunkVersions.extracted,
    };
    // The version's own entities, then the ones a model extracted from it (extraction at ingest).
    for (const r of await versionsOfChunks(this.#db, fields, archiveId, chunkIds, t))
      named.set(r.chunkId, [
        ...new Set(
          [...r.entities, ...(r.extracted?.ids ?? [])].filter((x: unknown): x is string => typeof x === "string"),
        ),
      ]);
    const types = new Map<string, string>();
    for (const ids of chunked([...new Set([...named.values()].flat())], IN_CHUNK)) {
      const rows = await this.#db
        .select({ id: s.entities.entityId, type: s.entities.type })
        .from(s.entities)
        .where(and(eq(s.entities.archiveId, archiveId), inArray(s.entities.entityId, ids)));
      for (const r of rows) types.set(r.id, r.type);
    }
    const out = new Map<string, Array<{ id: string; type: string }>>();
    for (const [chunk, ids] of named)
      out.set(
        chunk,
        ids.map((id) => ({ id, type: types.get(id) ?? "concept" })),
      );
    return out;
  }

  async implementedAt(archiveId: string, t: number): Promise<string[]> {
    const rows = await this.#db.all<{ dst: string }>(
      sql`SELECT DISTINCT dst FROM edges WHERE archive_id = ${archiveId} AND type = 'implements'
          AND valid_from <= ${t} AND (valid_to IS NULL OR valid_to > ${t})`,
    );
    return rows.map((r) => r.dst);
  }

  async edgesAt(
    archiveId: string,
    chunkIds: string[],
    type: string,
    direction: "out" | "in",
    t: number,
  ): Promise<Array<{ from: string; to: string; weight: number }>> {
    const out: Array<{ from: string; to: string; weight: number }> = [];
    for (const ids of chunked([...new Set(chunkIds)], IN_CHUNK)) {
      const near = direction === "out" ? s.edges.src : s.edges.dst;
      const rows = await this.#db
        .select({ src: s.edges.src, dst: s.edges.dst, weight: s.edges.weight })
        .from(s.edges)
        .where(
          and(
            eq(s.edges.archiveId, archiveId),
            eq(s.edges.type, type),
            inArray(near, ids),
            sql`${s.edges.validFrom} <= ${t}`,
            sql`(${s.edges.validTo} IS NULL OR ${s.edges.validTo} > ${t})`,
          ),
        )
        .orderBy(desc(s.edges.weight), asc(direction === "out" ? s.edges.dst : s.edges.src));
      for (const r of rows)
        out.push(
          direction === "out"
            ? { from: r.src, to: r.dst, weight: r.weight }
            : { from: r.dst, to: r.src, weight: r.weight },
        );
    }
    return out;
  }

  /** The listing's conditions: a version visible at f.asOf of a chunk not deprecated then, and the filters. */
  #listed(archiveId: string, f: ChunkFilter, after: string | null): SQL {
    const t = f.asOf;
    const conds: SQL[] = [
      sql`c.archive_id = ${archiveId}`,
      sql`v.valid_from <= ${t}`,
      sql`(v.valid_to IS NULL OR v.valid_to > ${t})`,
      sql`(c.deprecated_at IS NULL OR c.deprecated_at > ${t})`,
    ];
    if (after !== null) conds.push(sql`c.chunk_id > ${after}`);
    // A prefix as a range keeps the primary-key index usable (LIKE would not, and would treat % and _).
    if (f.prefix)
      conds.push(sql`c.chunk_id >= ${f.prefix} AND substr(c.chunk_id, 1, ${f.prefix.length}) = ${f.prefix}`);
    if (f.kind) conds.push(sql`v.kind = ${f.kind}`);
    if (f.titlePrefix) conds.push(sql`lower(substr(v.title, 1, ${f.titlePrefix.length})) = lower(${f.titlePrefix})`);
    if (f.entity)
      conds.push(
        sql`(EXISTS (SELECT 1 FROM json_each(v.entities) j WHERE j.value = ${f.entity})
             OR (v.extracted IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(v.extracted, '$.ids') j WHERE j.value = ${f.entity})))`,
      );
    if (f.boundary) conds.push(sql`EXISTS (SELECT 1 FROM json_each(v.boundaries) j WHERE j.value = ${f.boundary})`);
    return sql.join(conds, sql` AND `);
  }

  async listChunks(archiveId: string, f: ChunkFilter, after: string | null, limit: number): Promise<ChunkListRow[]> {
    const rows = await this.#db.all<
      Omit<ChunkListRow, "boundaries" | "entities"> & { boundaries: string; entities: string }
    >(
      sql`SELECT c.chunk_id AS chunkId, v.kind AS kind, v.version AS version, c.latest_version AS latestVersion,
                 v.title AS title, v.synopsis AS synopsis, v.valid_from AS validFrom, v.valid_to AS validTo,
                 v.content_chars AS contentChars, v.boundaries AS boundaries, v.entities AS entities,
                 c.deprecated_at AS deprecatedAt, c.deprecated_by AS deprecatedBy,
                 c.first_valid_from AS firstValidFrom
          FROM chunks c JOIN chunk_versions v ON v.archive_id = c.archive_id AND v.chunk_id = c.chunk_id
          WHERE ${this.#listed(archiveId, f, after)}
          ORDER BY c.chunk_id LIMIT ${limit}`,
    );
    return rows.map((r) => ({
      ...r,
      boundaries: decoded(s.chunkVersions.boundaries, r.boundaries),
      entities: decoded(s.chunkVersions.entities, r.entities),
    }));
  }

  async listChunkIds(archiveId: string, f: ChunkFilter, after: string | null, limit: number): Promise<string[]> {
    const rows = await this.#db.all<{ chunkId: string }>(
      sql`SELECT c.chunk_id AS chunkId
          FROM chunks c JOIN chunk_versions v ON v.archive_id = c.archive_id AND v.chunk_id = c.chunk_id
          WHERE ${this.#listed(archiveId, f, after)}
          ORDER BY c.chunk_id LIMIT ${limit}`,
    );
    return rows.map((r) => r.chunkId);
  }

  // ------------------------------------------------------------------ versions (VersionReader)

  async visibleAt(archiveId: string, chunkIds: string[], t: number): Promise<Map<string, StoredVersion>> {
    const out = new Map<string, StoredVersion>();
    for (const r of await versionsOfChunks(this.#db, STORED_FIELDS, archiveId, chunkIds, t))
      out.set(r.chunkId, toStored(r, null));
    return out;
  }

  async exact(archiveId: string, chunkId: string, version: number): Promise<StoredVersion | null> {
    const r = await exactVersion(this.#db, STORED_FIELDS, archiveId, chunkId, version);
    if (!r) return null;
    const c = await this.chunkRow(archiveId, chunkId);
    return toStored(r, c?.deprecatedBy ?? null);
  }

  async chunkIdsForVectorIds(archiveId: string, ids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const part of chunked(ids, IN_CHUNK)) {
      const rows = await this.#db
        .select({ chunkId: s.chunks.chunkId, vectorId: s.chunks.vectorId })
        .from(s.chunks)
        .where(and(eq(s.chunks.archiveId, archiveId), inArray(s.chunks.vectorId, part)));
      for (const r of rows) out.set(r.vectorId, r.chunkId);
    }
    return out;
  }

  // ------------------------------------------------------------------ counts

  async counts(archiveId: string): Promise<{ chunks: number; versions: number; edges: number; entities: number }> {
    const [c] = await this.#db.all<{ chunks: number; versions: number; edges: number; entities: number }>(
      sql`SELECT (SELECT COUNT(*) FROM chunks WHERE archive_id = ${archiveId}) AS chunks,
                 (SELECT COUNT(*) FROM chunk_versions WHERE archive_id = ${archiveId}) AS versions,
                 (SELECT COUNT(*) FROM edges WHERE archive_id = ${archiveId}) AS edges,
                 (SELECT COUNT(*) FROM entities WHERE archive_id = ${archiveId}) AS entities`,
    );
    return c ?? { chunks: 0, versions: 0, edges: 0, entities: 0 };
  }
}
