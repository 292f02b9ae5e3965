/**
 * D1 adapter for canonical entities: aliases, renames and merges, each from a time on, recorded in
 * entity history and in the change log the capital chunk replays.
 */
import { and, asc, eq, isNull, lte, type SQL, sql } from "drizzle-orm";
import { fail, ok, type Result } from "../../core/errors";
import type { EntityFilter, EntityHistory, EntityOperation, EntityRecord, EntityStore } from "../../core/ports";
import { type ChangeOp, ENTITY_TYPES, type EntityType } from "../../core/types";
import { changeLogInserts, type Db, entityEvent, entityRow, runBatch, type Write } from "./queries";
import * as s from "./schema";

export class D1EntityStore implements EntityStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async entityRow(archiveId: string, entityId: string): Promise<EntityRecord | null> {
    return entityRow(this.#db, archiveId, entityId);
  }

  /** alias / rename / merge, each with the time it takes effect, recorded in entity history. */
  async entityOp(
    archiveId: string,
    op: EntityOperation,
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
    const stmts: Write[] = [];
    const ops: ChangeOp[] = [];
    if (op.op === "alias" || op.op === "rename") {
      const text = op.op === "alias" ? op.alias : op.newName;
      const norm = normAlias(text);
      if (!norm)
        return fail("validation", "the name has no letters or digits", op.op === "alias" ? "alias" : "new_name");
      stmts.push(
        this.#db
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
            this.#db
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
          this.#db
            .update(s.entities)
            .set({ name: op.newName })
            .where(and(eq(s.entities.archiveId, archiveId), eq(s.entities.entityId, op.entity))),
        );
        // The routing object's name for the entity (what resolve shows) follows the rename too.
        const type = (ENTITY_TYPES as readonly string[]).includes(ent.type) ? (ent.type as EntityType) : "concept";
        ops.push({ op: "entity.upsert", id: op.entity, type, name: op.newName, at: op.at });
      }
      const detail = op.op === "alias" ? { alias: op.alias } : { from: ent.name, to: op.newName };
      stmts.push(this.#db.insert(s.entityEvents).values(entityEvent(archiveId, op.entity, op.op, detail, op.at, now)));
    } else {
      if (op.into === op.entity) return fail("validation", "an entity cannot be merged into itself", "into");
      const into = await this.entityRow(archiveId, op.into);
      if (!into) return fail("not_found", `entity ${op.into} does not exist in archive ${archiveId}`, "into");
      if (into.mergedInto)
        return fail("conflict", `entity ${op.into} was itself merged into ${into.mergedInto}`, "into");
      stmts.push(
        this.#db
          .update(s.entities)
          .set({ mergedInto: op.into, mergedAt: op.at })
          .where(and(eq(s.entities.archiveId, archiveId), eq(s.entities.entityId, op.entity))),
        this.#db
          .insert(s.entityEvents)
          .values([
            entityEvent(archiveId, op.entity, "merged_into", { into: op.into }, op.at, now),
            entityEvent(archiveId, op.into, "absorbed", { from: op.entity }, op.at, now),
          ]),
      );
      ops.push({ op: "entity.merge", from: op.entity, into: op.into, at: op.at });
    }
    stmts.push(...changeLogInserts(this.#db, archiveId, ops, now));
    await runBatch(this.#db, stmts);
    return ok(undefined);
  }

  async listEntities(
    archiveId: string,
    f: EntityFilter,
    after: string | null,
    limit: number,
  ): Promise<Array<EntityRecord & { aliases: number }>> {
    const conds: SQL[] = [sql`e.archive_id = ${archiveId}`];
    if (after !== null) conds.push(sql`e.entity_id > ${after}`);
    if (f.prefix)
      conds.push(sql`e.entity_id >= ${f.prefix} AND substr(e.entity_id, 1, ${f.prefix.length}) = ${f.prefix}`);
    if (f.type) conds.push(sql`e.type = ${f.type}`);
    if (!f.merged) conds.push(sql`e.merged_into IS NULL`);
    return this.#db.all<EntityRecord & { aliases: number }>(
      sql`SELECT e.archive_id AS archiveId, e.entity_id AS entityId, e.type AS type, e.name AS name,
                 e.merged_into AS mergedInto, e.merged_at AS mergedAt, e.created_at AS createdAt,
                 (SELECT COUNT(*) FROM entity_aliases a WHERE a.archive_id = e.archive_id AND a.entity_id = e.entity_id) AS aliases
          FROM entities e WHERE ${sql.join(conds, sql` AND `)} ORDER BY e.entity_id LIMIT ${limit}`,
    );
  }

  async entityHistory(archiveId: string, entityId: string): Promise<EntityHistory | null> {
    const entity = await this.entityRow(archiveId, entityId);
    if (!entity) return null;
    const aliases = await this.#db
      .select()
      .from(s.entityAliases)
      .where(and(eq(s.entityAliases.archiveId, archiveId), eq(s.entityAliases.entityId, entityId)))
      .orderBy(asc(s.entityAliases.validFrom));
    const events = await this.#db
      .select()
      .from(s.entityEvents)
      .where(and(eq(s.entityEvents.archiveId, archiveId), eq(s.entityEvents.entityId, entityId)))
      .orderBy(asc(s.entityEvents.at), asc(s.entityEvents.id));
    const mentions = await this.#db.all<{
      chunk_id: string;
      version: number;
      valid_from: number;
      valid_to: number | null;
    }>(
      // Versions naming it, or whose extraction at ingest named it.
      sql`SELECT v.chunk_id, v.version, v.valid_from, v.valid_to FROM chunk_versions v
          WHERE v.archive_id = ${archiveId}
            AND (EXISTS (SELECT 1 FROM json_each(v.entities) j WHERE j.value = ${entityId})
                 OR (v.extracted IS NOT NULL
                     AND EXISTS (SELECT 1 FROM json_each(v.extracted, '$.ids') j WHERE j.value = ${entityId})))
          ORDER BY v.valid_from LIMIT 500`,
    );
    return { entity, aliases, events, mentions };
  }
}
