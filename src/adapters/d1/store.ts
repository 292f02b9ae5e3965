/**
 * D1 adapter: the source of truth. Every multi-row write goes through one `db.batch`, which D1
 * runs as a single transaction, so an ingest batch or a lifecycle operation lands whole or not at all.
 * D1 allows at most 100 bound parameters per statement: multi-row inserts are split accordingly.
 */
import { and, asc, desc, eq, gt, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import { fail, ok, type Result } from "../../core/errors";
import type { ExistingChunk, ExistingState, IngestPlan } from "../../core/ingest";
import type {
  ArchiveRecord,
  ArchiveStore,
  ChangeLog,
  ChunkStore,
  EntityStore,
  KeyRecord,
  SessionEvent,
  SessionLog,
  StoredVersion,
} from "../../core/ports";
import type { AccessChannel, ChangeOp, ChunkKind, EdgeType, EntityType } from "../../core/types";
import { chunked, IN_CHUNK, versionsOfChunks } from "./queries";
import * as s from "./schema";

const MAX_PARAMS = 100;

function rowsPerInsert(columns: number): number {
  return Math.max(1, Math.floor(MAX_PARAMS / columns));
}

export type ArchiveRow = ArchiveRecord;
export type KeyRow = KeyRecord;

type Db = DrizzleD1Database<typeof s>;
type Stmt = BatchItem<"sqlite">;

export class D1Store implements ArchiveStore, ChunkStore, EntityStore, SessionLog, ChangeLog {
  readonly db: Db;

  /** Over a D1 binding, or over a drizzle instance shared with the other D1 adapters. */
  constructor(d1: D1Database | Db) {
    this.db = "batch" in d1 && "query" in d1 && "$client" in d1 ? d1 : drizzle(d1 as D1Database, { schema: s });
  }

  // ------------------------------------------------------------------ archives and keys

  async createArchive(a: ArchiveRow): Promise<Result<ArchiveRow>> {
    const res = await this.db
      .insert(s.archives)
      .values({
        id: a.id,
        name: a.name,
        description: a.description,
        params: JSON.stringify(a.params),
        createdAt: a.createdAt,
      })
      .onConflictDoNothing()
      .returning();
    if (res.length === 0)
      return fail("conflict", `archive ${a.id} already exists`, "id", "choose another id or omit it");
    return ok(a);
  }

  async getArchive(id: string): Promise<ArchiveRow | null> {
    const row = await this.db.query.archives.findFirst({ where: eq(s.archives.id, id) });
    return row ? { ...row, params: JSON.parse(row.params) as Record<string, unknown> } : null;
  }

  async listArchives(): Promise<ArchiveRow[]> {
    const rows = await this.db.select().from(s.archives).orderBy(asc(s.archives.createdAt));
    return rows.map((r) => ({ ...r, params: JSON.parse(r.params) as Record<string, unknown> }));
  }

  async createKey(k: KeyRow & { keyHash: string }): Promise<void> {
    await this.db.insert(s.apiKeys).values({ ...k, scopes: k.scopes.join(",") });
  }

  async listKeys(archiveId: string): Promise<KeyRow[]> {
    const rows = await this.db.select().from(s.apiKeys).where(eq(s.apiKeys.archiveId, archiveId));
    return rows.map(({ keyHash: _h, ...r }) => ({ ...r, scopes: r.scopes.split(",") }));
  }

  async revokeKey(archiveId: string, keyId: string, at: number): Promise<boolean> {
    const res = await this.db
      .update(s.apiKeys)
      .set({ revokedAt: at })
      .where(and(eq(s.apiKeys.archiveId, archiveId), eq(s.apiKeys.id, keyId), isNull(s.apiKeys.revokedAt)))
      .returning();
    return res.length > 0;
  }

  async findKeyByHash(keyHash: string): Promise<KeyRow | null> {
    const r = await this.db.query.apiKeys.findFirst({ where: eq(s.apiKeys.keyHash, keyHash) });
    if (!r) return null;
    const { keyHash: _h, ...rest } = r;
    return { ...rest, scopes: r.scopes.split(",") };
  }

  // ------------------------------------------------------------------ ingest

  async loadExisting(archiveId: string, chunkIds: string[], entityIds: string[]): Promise<ExistingState> {
    const chunks = new Map<string, ExistingChunk>();
    for (const ids of chunked(chunkIds, IN_CHUNK)) {
      const rows = await this.db
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
        .where(and(eq(s.chunks.archiveId, archiveId), inArray(s.chunks.chunkId, ids)));
      for (const r of rows) chunks.set(r.chunkId, { ...r, openEdges: [] });
      const edges = await this.db
        .select()
        .from(s.edges)
        .where(and(eq(s.edges.archiveId, archiveId), inArray(s.edges.src, ids), isNull(s.edges.validTo)));
      for (const e of edges) {
        chunks
          .get(e.src)
          ?.openEdges.push({ dst: e.dst, type: e.type as EdgeType, weight: e.weight, validFrom: e.validFrom });
      }
    }
    const entities = new Set<string>();
    const aliases = new Set<string>();
    for (const ids of chunked(entityIds, IN_CHUNK)) {
      const rows = await this.db
        .select({ entityId: s.entities.entityId })
        .from(s.entities)
        .where(and(eq(s.entities.archiveId, archiveId), inArray(s.entities.entityId, ids)));
      for (const r of rows) entities.add(r.entityId);
      const al = await this.db
        .select({ entityId: s.entityAliases.entityId, aliasNorm: s.entityAliases.aliasNorm })
        .from(s.entityAliases)
        .where(
          and(
            eq(s.entityAliases.archiveId, archiveId),
            inArray(s.entityAliases.entityId, ids),
            isNull(s.entityAliases.validTo),
          ),
        );
      for (const r of al) aliases.add(`${r.entityId}\u0000${r.aliasNorm}`);
    }
    return { chunks, entities, aliases };
  }

  private logStatements(archiveId: string, ops: ChangeOp[], at: number): Stmt[] {
    const rows = ops.map((op) => ({ archiveId, op: JSON.stringify(op), at }));
    return chunked(rows, rowsPerInsert(3)).map((r) => this.db.insert(s.changeLog).values(r));
  }

  /** Execute a plan atomically. A concurrent writer makes the batch fail as a whole (PK conflict). */
  async executePlan(
    archiveId: string,
    plan: IngestPlan,
    now: number,
    vectorIdOf: (chunk: string) => string,
  ): Promise<Result<void>> {
    const stmts: Stmt[] = [];
    for (const v of plan.versions) {
      if (v.closesVersion > 0) {
        stmts.push(
          this.db
            .update(s.chunkVersions)
            .set({ validTo: v.validFrom })
            .where(
              and(
                eq(s.chunkVersions.archiveId, archiveId),
                eq(s.chunkVersions.chunkId, v.chunkId),
                eq(s.chunkVersions.version, v.closesVersion),
              ),
            ),
        );
      }
      stmts.push(
        this.db.insert(s.chunkVersions).values({
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
          entities: JSON.stringify(v.entities),
          boundaries: JSON.stringify(v.boundaries),
          edges: JSON.stringify(v.edges),
          relations: v.relations?.length ? JSON.stringify(v.relations) : null,
          mentions: v.mentions.length ? JSON.stringify(v.mentions) : null,
          validFrom: v.validFrom,
          validTo: null,
          recordedAt: v.recordedAt,
          source: v.source,
        }),
      );
      stmts.push(
        this.db
          .insert(s.chunks)
          .values({
            archiveId,
            chunkId: v.chunkId,
            kind: v.kind,
            latestVersion: v.version,
            firstValidFrom: v.validFrom,
            vectorId: vectorIdOf(v.chunkId),
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoUpdate({
            target: [s.chunks.archiveId, s.chunks.chunkId],
            set: { latestVersion: v.version, kind: v.kind, updatedAt: now },
          }),
      );
    }
    for (const e of plan.edgeCloses) {
      stmts.push(
        this.db
          .update(s.edges)
          .set({ validTo: e.at })
          .where(
            and(
              eq(s.edges.archiveId, archiveId),
              eq(s.edges.src, e.src),
              eq(s.edges.dst, e.dst),
              eq(s.edges.type, e.type),
              isNull(s.edges.validTo),
            ),
          ),
      );
    }
    for (const rows of chunked(plan.edgeInserts, rowsPerInsert(10))) {
      stmts.push(
        this.db
          .insert(s.edges)
          .values(rows.map((e) => ({ archiveId, ...e, context: e.context ?? null, recordedAt: now })))
          .onConflictDoUpdate({
            target: [s.edges.archiveId, s.edges.src, s.edges.dst, s.edges.type, s.edges.validFrom],
            set: {
              weight: sql`excluded.weight`,
              validTo: sql`excluded.valid_to`,
              version: sql`excluded.version`,
              context: sql`excluded.context`,
            },
          }),
      );
    }
    for (const rows of chunked(plan.entityInserts, rowsPerInsert(5))) {
      stmts.push(
        this.db
          .insert(s.entities)
          .values(rows.map((e) => ({ archiveId, ...e, createdAt: now })))
          .onConflictDoNothing(),
      );
    }
    for (const rows of chunked(plan.aliasInserts, rowsPerInsert(6))) {
      stmts.push(
        this.db
          .insert(s.entityAliases)
          .values(rows.map((a) => ({ archiveId, ...a, validTo: null })))
          .onConflictDoNothing(),
      );
    }
    const events = [
      ...plan.entityInserts.map((e) => ({
        archiveId,
        entityId: e.entityId,
        op: "created",
        detail: JSON.stringify({ type: e.type, name: e.name }),
        at: plan.aliasInserts.find((a) => a.entityId === e.entityId)?.validFrom ?? now,
        recordedAt: now,
      })),
      ...plan.aliasInserts.map((a) => ({
        archiveId,
        entityId: a.entityId,
        op: "alias",
        detail: JSON.stringify({ alias: a.alias }),
        at: a.validFrom,
        recordedAt: now,
      })),
    ];
    for (const rows of chunked(events, rowsPerInsert(6))) stmts.push(this.db.insert(s.entityEvents).values(rows));
    stmts.push(...this.logStatements(archiveId, plan.ops, now));
    if (stmts.length === 0) return ok(undefined);
    try {
      await this.db.batch(stmts as [Stmt, ...Stmt[]]);
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

  async chunkRow(archiveId: string, chunkId: string) {
    return (
      (await this.db.query.chunks.findFirst({
        where: and(eq(s.chunks.archiveId, archiveId), eq(s.chunks.chunkId, chunkId)),
      })) ?? null
    );
  }

  async deprecate(
    archiveId: string,
    chunkId: string,
    by: string | null,
    at: number,
    reason: string,
    now: number,
  ): Promise<Result<{ version: number }>> {
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
    const stmts: Stmt[] = [
      this.db
        .update(s.chunks)
        .set({ deprecatedAt: at, deprecatedBy: by, updatedAt: now })
        .where(and(eq(s.chunks.archiveId, archiveId), eq(s.chunks.chunkId, chunkId), isNull(s.chunks.deprecatedAt))),
      this.db
        .update(s.chunkVersions)
        .set({ validTo: at })
        .where(
          and(
            eq(s.chunkVersions.archiveId, archiveId),
            eq(s.chunkVersions.chunkId, chunkId),
            eq(s.chunkVersions.version, chunk.latestVersion),
          ),
        ),
      ...this.logStatements(archiveId, [{ op: "head.deprecate", chunk: chunkId, at, by }], now),
    ];
    if (by) {
      stmts.push(
        this.db
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
      this.db.insert(s.entityEvents).values({
        archiveId,
        entityId: `chunk:${chunkId}`,
        op: "deprecated",
        detail: JSON.stringify({ by, reason }),
        at,
        recordedAt: now,
      }),
    );
    await this.db.batch(stmts as [Stmt, ...Stmt[]]);
    return ok({ version: chunk.latestVersion });
  }

  async entityRow(archiveId: string, entityId: string) {
    return (
      (await this.db.query.entities.findFirst({
        where: and(eq(s.entities.archiveId, archiveId), eq(s.entities.entityId, entityId)),
      })) ?? null
    );
  }

  /** alias / rename / merge, each with the time it takes effect, recorded in entity history. */
  async entityOp(
    archiveId: string,
    op:
      | { op: "alias"; entity: string; alias: string; at: number }
      | { op: "rename"; entity: string; newName: string; at: number }
      | { op: "merge"; entity: string; into: string; at: number },
    normAlias: (s: string) => string,
    now: number,
  ): Promise<Result<void>> {
    const ent = await this.entityRow(archiveId, op.entity);
    if (!ent) return fail("not_found", `entity ${op.entity} does not exist in archive ${archiveId}`, "entity");
    if (ent.mergedInto)
      return fail(
        "conflict",
        `entity ${op.entity} was merged into ${ent.mergedInto}`,
        "entity",
        `use ${ent.mergedInto}`,
      );
    const stmts: Stmt[] = [];
    const ops: ChangeOp[] = [];
    if (op.op === "alias" || op.op === "rename") {
      const text = op.op === "alias" ? op.alias : op.newName;
      const norm = normAlias(text);
      if (!norm)
        return fail("validation", "the name has no letters or digits", op.op === "alias" ? "alias" : "new_name");
      stmts.push(
        this.db
          .insert(s.entityAliases)
          .values({ archiveId, entityId: op.entity, alias: text, aliasNorm: norm, validFrom: op.at, validTo: null })
          .onConflictDoNothing(),
      );
      ops.push({ op: "alias.add", entity: op.entity, alias: text, validFrom: op.at, validTo: null });
      if (op.op === "rename") {
        // The old name stops being current but keeps resolving historically (resolver fallback).
        const oldNorm = normAlias(ent.name);
        if (oldNorm !== norm) {
          stmts.push(
            this.db
              .update(s.entityAliases)
              .set({ validTo: op.at })
              .where(
                and(
                  eq(s.entityAliases.archiveId, archiveId),
                  eq(s.entityAliases.entityId, op.entity),
                  eq(s.entityAliases.aliasNorm, oldNorm),
                  isNull(s.entityAliases.validTo),
                  lte(s.entityAliases.validFrom, op.at),
                ),
              ),
          );
          ops.push({ op: "alias.close", entity: op.entity, alias: ent.name, at: op.at });
        }
        stmts.push(
          this.db
            .update(s.entities)
            .set({ name: op.newName })
            .where(and(eq(s.entities.archiveId, archiveId), eq(s.entities.entityId, op.entity))),
        );
      }
      stmts.push(
        this.db.insert(s.entityEvents).values({
          archiveId,
          entityId: op.entity,
          op: op.op,
          detail: JSON.stringify(op.op === "alias" ? { alias: op.alias } : { from: ent.name, to: op.newName }),
          at: op.at,
          recordedAt: now,
        }),
      );
    } else {
      if (op.into === op.entity) return fail("validation", "an entity cannot be merged into itself", "into");
      const into = await this.entityRow(archiveId, op.into);
      if (!into) return fail("not_found", `entity ${op.into} does not exist in archive ${archiveId}`, "into");
      if (into.mergedInto)
        return fail("conflict", `entity ${op.into} was itself merged into ${into.mergedInto}`, "into");
      stmts.push(
        this.db
          .update(s.entities)
          .set({ mergedInto: op.into, mergedAt: op.at })
          .where(and(eq(s.entities.archiveId, archiveId), eq(s.entities.entityId, op.entity))),
        this.db.insert(s.entityEvents).values([
          {
            archiveId,
            entityId: op.entity,
            op: "merged_into",
            detail: JSON.stringify({ into: op.into }),
            at: op.at,
            recordedAt: now,
          },
          {
            archiveId,
            entityId: op.into,
            op: "absorbed",
            detail: JSON.stringify({ from: op.entity }),
            at: op.at,
            recordedAt: now,
          },
        ]),
      );
      ops.push({ op: "entity.merge", from: op.entity, into: op.into, at: op.at });
    }
    stmts.push(...this.logStatements(archiveId, ops, now));
    await this.db.batch(stmts as [Stmt, ...Stmt[]]);
    return ok(undefined);
  }

  // ------------------------------------------------------------------ history

  async chunkHistory(archiveId: string, chunkId: string) {
    const chunk = await this.chunkRow(archiveId, chunkId);
    if (!chunk) return null;
    const versions = await this.db
      .select()
      .from(s.chunkVersions)
      .where(and(eq(s.chunkVersions.archiveId, archiveId), eq(s.chunkVersions.chunkId, chunkId)))
      .orderBy(asc(s.chunkVersions.version));
    const edges = await this.db
      .select()
      .from(s.edges)
      .where(and(eq(s.edges.archiveId, archiveId), or(eq(s.edges.src, chunkId), eq(s.edges.dst, chunkId))))
      .orderBy(asc(s.edges.validFrom), asc(s.edges.id));
    return { chunk, versions, edges };
  }

  async entityHistory(archiveId: string, entityId: string) {
    const entity = await this.entityRow(archiveId, entityId);
    if (!entity) return null;
    const aliases = await this.db
      .select()
      .from(s.entityAliases)
      .where(and(eq(s.entityAliases.archiveId, archiveId), eq(s.entityAliases.entityId, entityId)))
      .orderBy(asc(s.entityAliases.validFrom));
    const events = await this.db
      .select()
      .from(s.entityEvents)
      .where(and(eq(s.entityEvents.archiveId, archiveId), eq(s.entityEvents.entityId, entityId)))
      .orderBy(asc(s.entityEvents.at), asc(s.entityEvents.id));
    const mentions = await this.db.all<{
      chunk_id: string;
      version: number;
      valid_from: number;
      valid_to: number | null;
    }>(
      sql`SELECT v.chunk_id, v.version, v.valid_from, v.valid_to FROM chunk_versions v, json_each(v.entities) j
          WHERE v.archive_id = ${archiveId} AND j.value = ${entityId} ORDER BY v.valid_from LIMIT 500`,
    );
    return { entity, aliases, events, mentions };
  }

  // ------------------------------------------------------------------ versions (VersionReader)

  private toStored(r: typeof s.chunkVersions.$inferSelect, deprecatedBy: string | null): StoredVersion {
    return {
      chunkId: r.chunkId,
      version: r.version,
      kind: r.kind as ChunkKind,
      title: r.title,
      synopsis: r.synopsis,
      contentKey: r.contentKey,
      contentChars: r.contentChars,
      boundaries: JSON.parse(r.boundaries) as string[],
      validFrom: r.validFrom,
      validTo: r.validTo,
      deprecatedBy,
    };
  }

  async visibleAt(archiveId: string, chunkIds: string[], t: number): Promise<Map<string, StoredVersion>> {
    const out = new Map<string, StoredVersion>();
    for (const r of await versionsOfChunks(this.db, archiveId, chunkIds, t)) out.set(r.chunkId, this.toStored(r, null));
    return out;
  }

  async exact(archiveId: string, chunkId: string, version: number): Promise<StoredVersion | null> {
    const r = await this.db.query.chunkVersions.findFirst({
      where: and(
        eq(s.chunkVersions.archiveId, archiveId),
        eq(s.chunkVersions.chunkId, chunkId),
        eq(s.chunkVersions.version, version),
      ),
    });
    if (!r) return null;
    const c = await this.chunkRow(archiveId, chunkId);
    return this.toStored(r, c?.deprecatedBy ?? null);
  }

  async chunkIdsForVectorIds(archiveId: string, ids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const part of chunked(ids, IN_CHUNK)) {
      const rows = await this.db
        .select({ chunkId: s.chunks.chunkId, vectorId: s.chunks.vectorId })
        .from(s.chunks)
        .where(and(eq(s.chunks.archiveId, archiveId), inArray(s.chunks.vectorId, part)));
      for (const r of rows) out.set(r.vectorId, r.chunkId);
    }
    return out;
  }

  // ------------------------------------------------------------------ sessions, access, change log

  async appendSession(
    archiveId: string,
    sessionId: string,
    events: Array<{ role: string; text: string; tokens: number; at: number }>,
  ): Promise<void> {
    const rows = events.map((e) => ({ archiveId, sessionId, ...e }));
    const stmts = chunked(rows, rowsPerInsert(6)).map((r) => this.db.insert(s.sessionEvents).values(r));
    if (stmts.length) await this.db.batch(stmts as unknown as [Stmt, ...Stmt[]]);
  }

  async recent(archiveId: string, sessionId: string, asOf: number, limit: number): Promise<SessionEvent[]> {
    const rows = await this.db
      .select()
      .from(s.sessionEvents)
      .where(
        and(
          eq(s.sessionEvents.archiveId, archiveId),
          eq(s.sessionEvents.sessionId, sessionId),
          lte(s.sessionEvents.at, asOf),
        ),
      )
      .orderBy(desc(s.sessionEvents.at), desc(s.sessionEvents.id))
      .limit(limit);
    return rows.map((r) => ({ role: r.role, text: r.text, tokens: r.tokens, at: r.at }));
  }

  async record(
    archiveId: string,
    events: Array<{ chunk: string; channel: AccessChannel; at: number }>,
    sessionId?: string | undefined,
  ): Promise<void> {
    const session = sessionId ?? null;
    const rows = events.map((e) => ({ archiveId, chunkId: e.chunk, channel: e.channel, at: e.at, sessionId: session }));
    const stmts = chunked(rows, rowsPerInsert(5)).map((r) => this.db.insert(s.accessEvents).values(r));
    if (stmts.length) await this.db.batch(stmts as unknown as [Stmt, ...Stmt[]]);
  }

  /** Reads the index access_session (archive_id, session_id, at). */
  async recentForSession(
    archiveId: string,
    sessionId: string,
    asOf: number,
    limit = 64,
  ): Promise<Array<{ chunk: string; at: number }>> {
    const rows = await this.db.all<{ chunk_id: string; at: number }>(
      sql`SELECT chunk_id, MAX(at) AS at FROM access_events
          WHERE archive_id = ${archiveId} AND session_id = ${sessionId} AND at <= ${asOf}
          GROUP BY chunk_id ORDER BY at DESC, chunk_id ASC LIMIT ${limit}`,
    );
    return rows.map((r) => ({ chunk: r.chunk_id, at: r.at }));
  }

  async accessStats(
    archiveId: string,
  ): Promise<Array<{ chunk: string; last: number; count: number; channels: Record<string, number> }>> {
    const rows = await this.db.all<{ chunk_id: string; channel: string; last: number; n: number }>(
      sql`SELECT chunk_id, channel, MAX(at) AS last, COUNT(*) AS n FROM access_events WHERE archive_id = ${archiveId} GROUP BY chunk_id, channel`,
    );
    const by = new Map<string, { chunk: string; last: number; count: number; channels: Record<string, number> }>();
    for (const r of rows) {
      const cur = by.get(r.chunk_id) ?? { chunk: r.chunk_id, last: 0, count: 0, channels: {} };
      cur.last = Math.max(cur.last, r.last);
      cur.count += r.n;
      cur.channels[r.channel] = r.n;
      by.set(r.chunk_id, cur);
    }
    return [...by.values()];
  }

  async readLog(archiveId: string, afterSeq: number, limit: number): Promise<Array<{ seq: number; op: ChangeOp }>> {
    const rows = await this.db
      .select()
      .from(s.changeLog)
      .where(and(eq(s.changeLog.archiveId, archiveId), gt(s.changeLog.seq, afterSeq)))
      .orderBy(asc(s.changeLog.seq))
      .limit(limit);
    return rows.map((r) => ({ seq: r.seq, op: JSON.parse(r.op) as ChangeOp }));
  }

  async latestSnapshot(archiveId: string) {
    return (
      (await this.db.query.capitalSnapshots.findFirst({
        where: eq(s.capitalSnapshots.archiveId, archiveId),
        orderBy: desc(s.capitalSnapshots.seq),
      })) ?? null
    );
  }

  async recordSnapshot(row: typeof s.capitalSnapshots.$inferInsert): Promise<void> {
    await this.db.insert(s.capitalSnapshots).values(row).onConflictDoNothing();
  }

  async counts(archiveId: string) {
    const [c] = await this.db.all<{ chunks: number; versions: number; edges: number; entities: number }>(
      sql`SELECT (SELECT COUNT(*) FROM chunks WHERE archive_id = ${archiveId}) AS chunks,
                 (SELECT COUNT(*) FROM chunk_versions WHERE archive_id = ${archiveId}) AS versions,
                 (SELECT COUNT(*) FROM edges WHERE archive_id = ${archiveId}) AS edges,
                 (SELECT COUNT(*) FROM entities WHERE archive_id = ${archiveId}) AS entities`,
    );
    return c ?? { chunks: 0, versions: 0, edges: 0, entities: 0 };
  }
}

export type { EntityType };
