/**
 * D1 adapter for extraction at ingest (the ExtractionStore port): the version an extraction
 * extends, the write that extends it, and the cache of model answers by content SHA-256.
 *
 * The write is one D1 batch (one transaction) whose every statement carries the same guard: the
 * version exists, is its chunk's latest version, the chunk is not deprecated and the version has no
 * extraction yet. A version forgotten, deprecated or superseded while the model was answering is
 * therefore never written to (nothing is brought back), and a redelivered message writes nothing.
 * The `extracted` column is set by the batch's last statement, so the guard holds for all others.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { ExtensionPlan, Extraction } from "../../core/extraction";
import type { EntityInput } from "../../core/ingest";
import type { ExtractionStore, ExtractionTargetRecord } from "../../core/ports";
import type { EntityType } from "../../core/types";
import { chunked, type Db, IN_CHUNK, newEntityEvents, versionKey } from "./queries";
import * as s from "./schema";

/** The guard of every statement: 3 parameters (archive, chunk, version). */
const GUARD = `EXISTS (SELECT 1 FROM chunk_versions AS gv JOIN chunks AS gc
    ON gc.archive_id = gv.archive_id AND gc.chunk_id = gv.chunk_id
  WHERE gv.archive_id = ? AND gv.chunk_id = ? AND gv.version = ? AND gv.extracted IS NULL
    AND gc.latest_version = gv.version AND gc.deprecated_at IS NULL)`;

/** D1 binds at most 100 parameters per statement; the guard takes 3. */
const ROW_PARAMS = 97;

type Value = string | number | null;

/**
 * Guarded multi-row inserts: `INSERT INTO t (cols) SELECT column1.. FROM (VALUES ...) WHERE guard`,
 * rows kept in order by a trailing ordinal column (the change log's order is its meaning).
 */
function guardedInserts(
  db: Db,
  table: string,
  columns: string[],
  rows: Value[][],
  guard: Value[],
  suffix = "",
): D1PreparedStatement[] {
  const width = columns.length + 1;
  const per = Math.max(1, Math.floor(ROW_PARAMS / width));
  const out: D1PreparedStatement[] = [];
  let ordinal = 0;
  for (const part of chunked(rows, per)) {
    const tuple = `(${Array.from({ length: width }, () => "?").join(", ")})`;
    const select = columns.map((_, i) => `column${i + 1}`).join(", ");
    const sql = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) SELECT ${select} FROM (VALUES ${part
      .map(() => tuple)
      .join(", ")}) WHERE ${GUARD} ORDER BY column${width}${suffix ? ` ${suffix}` : ""}`;
    const params: Value[] = [];
    for (const r of part) params.push(...r, ordinal++);
    out.push(db.$client.prepare(sql).bind(...params, ...guard));
  }
  return out;
}

export class D1ExtractionStore implements ExtractionStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async target(archiveId: string, chunkId: string, version: number): Promise<ExtractionTargetRecord | null> {
    const db = this.#db;
    const [row] = await db
      .select({
        validFrom: s.chunkVersions.validFrom,
        contentKey: s.chunkVersions.contentKey,
        contentHash: s.chunkVersions.contentHash,
        entities: s.chunkVersions.entities,
        mentions: s.chunkVersions.mentions,
        relations: s.chunkVersions.relations,
        extracted: s.chunkVersions.extracted,
        latestVersion: s.chunks.latestVersion,
        deprecatedAt: s.chunks.deprecatedAt,
      })
      .from(s.chunkVersions)
      .innerJoin(
        s.chunks,
        and(eq(s.chunks.archiveId, s.chunkVersions.archiveId), eq(s.chunks.chunkId, s.chunkVersions.chunkId)),
      )
      .where(versionKey(archiveId, chunkId, version));
    if (!row) return null;
    const state: ExtractionTargetRecord["state"] =
      row.extracted !== null
        ? "extracted"
        : row.deprecatedAt !== null
          ? "deprecated"
          : row.latestVersion !== version
            ? "superseded"
            : "ready";
    const declared: EntityInput[] = [];
    if (state === "ready" && row.entities.length) {
      const names = new Map<string, string[]>();
      for (const part of chunked(row.entities, IN_CHUNK)) {
        const aliases = await db
          .select({ entityId: s.entityAliases.entityId, alias: s.entityAliases.alias })
          .from(s.entityAliases)
          .where(and(eq(s.entityAliases.archiveId, archiveId), inArray(s.entityAliases.entityId, part)));
        for (const a of aliases) names.set(a.entityId, [...(names.get(a.entityId) ?? []), a.alias]);
        const ents = await db
          .select({ id: s.entities.entityId, type: s.entities.type, name: s.entities.name })
          .from(s.entities)
          .where(and(eq(s.entities.archiveId, archiveId), inArray(s.entities.entityId, part)));
        for (const e of ents)
          declared.push({ type: e.type as EntityType, id: e.id, name: e.name, aliases: names.get(e.id) ?? [] });
      }
      // The version's own order (first declared first): relationEntities lets the first name win.
      const at = new Map(row.entities.map((id, i) => [id, i]));
      declared.sort((a, b) => (at.get(a.id ?? "") ?? 0) - (at.get(b.id ?? "") ?? 0));
    }
    return {
      target: {
        chunk: chunkId,
        version,
        validFrom: row.validFrom,
        entities: row.entities,
        posted: [...new Set([...row.entities, ...(row.mentions ?? []).map((m) => m.entity)])],
        relations: row.relations ?? [],
        declared,
      },
      contentKey: row.contentKey,
      contentHash: row.contentHash,
      state,
    };
  }

  async extend(archiveId: string, plan: ExtensionPlan, now: number): Promise<boolean> {
    const db = this.#db;
    const guard: Value[] = [archiveId, plan.chunk, plan.version];
    // An entity exists from the version's start (event time), as the ingest's entities do.
    const events = newEntityEvents(archiveId, plan, now);
    const stmts: D1PreparedStatement[] = [
      ...guardedInserts(
        db,
        "entities",
        ["archive_id", "entity_id", "type", "name", "created_at"],
        plan.entityInserts.map((e) => [archiveId, e.entityId, e.type, e.name, now]),
        guard,
        "ON CONFLICT DO NOTHING",
      ),
      ...guardedInserts(
        db,
        "entity_aliases",
        ["archive_id", "entity_id", "alias", "alias_norm", "valid_from", "valid_to"],
        plan.aliasInserts.map((a) => [archiveId, a.entityId, a.alias, a.aliasNorm, a.validFrom, null]),
        guard,
        "ON CONFLICT DO NOTHING",
      ),
      ...guardedInserts(
        db,
        "entity_events",
        ["archive_id", "entity_id", "op", "detail", "at", "recorded_at"],
        events.map((e) => [e.archiveId, e.entityId, e.op, JSON.stringify(e.detail), e.at, e.recordedAt]),
        guard,
      ),
      ...guardedInserts(
        db,
        "change_log",
        ["archive_id", "op", "at"],
        plan.ops.map((op) => [archiveId, JSON.stringify(op), now]),
        guard,
      ),
      db.$client
        .prepare(
          `UPDATE chunk_versions SET extracted = ? WHERE archive_id = ? AND chunk_id = ? AND version = ? AND ${GUARD}`,
        )
        .bind(JSON.stringify(plan.stored), ...guard, ...guard),
    ];
    const results = await db.$client.batch(stmts);
    return (results[results.length - 1]?.meta.changes ?? 0) > 0;
  }

  async cached(contentHash: string, model: string): Promise<Extraction | null> {
    const [row] = await this.#db
      .select({ result: s.extractionCache.result })
      .from(s.extractionCache)
      .where(and(eq(s.extractionCache.contentHash, contentHash), eq(s.extractionCache.model, model)));
    const r = row?.result;
    return r && Array.isArray(r.entities) && Array.isArray(r.relations) ? r : null;
  }

  async cache(contentHash: string, model: string, value: Extraction, now: number): Promise<void> {
    await this.#db
      .insert(s.extractionCache)
      .values({ contentHash, model, result: value, createdAt: now })
      .onConflictDoNothing();
  }
}
