/**
 * D1 adapter for ingest from the world: webhook endpoints and deliveries (the dead-letter list is the
 * deliveries with status "dead"), registered sources with their run status, the ingest log, and the
 * lookups the cross-source deduplication needs. Every query is scoped by archive id, except the cron
 * scan for due sources, which returns archive ids with the rows it dispatches.
 */
import { and, asc, desc, eq, inArray, isNull, lt, lte, sql } from "drizzle-orm";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import type {
  DeliveryRecord,
  IngestLogStore,
  LogRecord,
  PaperMatch,
  SourceRecord,
  SourceStore,
  WebhookRecord,
  WebhookStore,
  WorldLookup,
} from "../../core/ports";
import { IN_CHUNK } from "./queries";
import * as s from "./schema";

type Db = DrizzleD1Database<typeof s>;

export type WebhookRow = WebhookRecord;
export type DeliveryRow = DeliveryRecord;
export type SourceRow = SourceRecord;
export type LogRow = LogRecord;
export type { PaperMatch };

export class WorldStore implements WebhookStore, SourceStore, IngestLogStore, WorldLookup {
  readonly db: Db;

  /** Over a D1 binding, or over a drizzle instance shared with the other D1 adapters. */
  constructor(d1: D1Database | Db) {
    this.db = "batch" in d1 && "query" in d1 && "$client" in d1 ? d1 : drizzle(d1 as D1Database, { schema: s });
  }

  // ------------------------------------------------------------------ webhooks

  async putWebhook(row: WebhookRow): Promise<void> {
    await this.db
      .insert(s.webhooks)
      .values(row)
      .onConflictDoUpdate({
        target: [s.webhooks.archiveId, s.webhooks.name],
        set: { kind: row.kind, secret: row.secret, options: row.options },
      });
  }

  async getWebhook(archiveId: string, name: string): Promise<WebhookRow | null> {
    return (
      (await this.db.query.webhooks.findFirst({
        where: and(eq(s.webhooks.archiveId, archiveId), eq(s.webhooks.name, name)),
      })) ?? null
    );
  }

  async listWebhooks(archiveId: string): Promise<Array<Omit<WebhookRow, "secret">>> {
    const rows = await this.db.select().from(s.webhooks).where(eq(s.webhooks.archiveId, archiveId));
    return rows.map(({ secret: _secret, ...rest }) => rest);
  }

  async deleteWebhook(archiveId: string, name: string): Promise<boolean> {
    const res = await this.db
      .delete(s.webhooks)
      .where(and(eq(s.webhooks.archiveId, archiveId), eq(s.webhooks.name, name)))
      .returning({ name: s.webhooks.name });
    return res.length > 0;
  }

  // ------------------------------------------------------------------ deliveries

  async getDelivery(archiveId: string, webhook: string, deliveryId: string): Promise<DeliveryRow | null> {
    return (
      (await this.db.query.webhookDeliveries.findFirst({
        where: and(
          eq(s.webhookDeliveries.archiveId, archiveId),
          eq(s.webhookDeliveries.webhook, webhook),
          eq(s.webhookDeliveries.deliveryId, deliveryId),
        ),
      })) ?? null
    );
  }

  async deliveryByBody(archiveId: string, webhook: string, bodySha: string): Promise<DeliveryRow | null> {
    const rows = await this.db
      .select()
      .from(s.webhookDeliveries)
      .where(
        and(
          eq(s.webhookDeliveries.archiveId, archiveId),
          eq(s.webhookDeliveries.webhook, webhook),
          eq(s.webhookDeliveries.bodySha, bodySha),
        ),
      )
      .orderBy(asc(s.webhookDeliveries.receivedAt))
      .limit(1);
    return rows[0] ?? null;
  }

  /** Insert unless the delivery id is known; false = a concurrent or earlier delivery has it. */
  async insertDelivery(row: DeliveryRow): Promise<boolean> {
    const res = await this.db
      .insert(s.webhookDeliveries)
      .values(row)
      .onConflictDoNothing()
      .returning({ id: s.webhookDeliveries.deliveryId });
    return res.length > 0;
  }

  async updateDelivery(
    archiveId: string,
    webhook: string,
    deliveryId: string,
    patch: Partial<Pick<DeliveryRow, "status" | "attempts" | "result" | "error" | "updatedAt">>,
  ): Promise<void> {
    await this.db
      .update(s.webhookDeliveries)
      .set(patch)
      .where(
        and(
          eq(s.webhookDeliveries.archiveId, archiveId),
          eq(s.webhookDeliveries.webhook, webhook),
          eq(s.webhookDeliveries.deliveryId, deliveryId),
        ),
      );
  }

  async deleteDelivery(archiveId: string, webhook: string, deliveryId: string): Promise<void> {
    await this.db
      .delete(s.webhookDeliveries)
      .where(
        and(
          eq(s.webhookDeliveries.archiveId, archiveId),
          eq(s.webhookDeliveries.webhook, webhook),
          eq(s.webhookDeliveries.deliveryId, deliveryId),
        ),
      );
  }

  async listDeliveries(
    archiveId: string,
    webhook: string,
    status: string | undefined,
    limit: number,
  ): Promise<DeliveryRow[]> {
    const scope = and(eq(s.webhookDeliveries.archiveId, archiveId), eq(s.webhookDeliveries.webhook, webhook));
    return this.db
      .select()
      .from(s.webhookDeliveries)
      .where(status ? and(scope, eq(s.webhookDeliveries.status, status)) : scope)
      .orderBy(desc(s.webhookDeliveries.receivedAt))
      .limit(limit);
  }

  // ------------------------------------------------------------------ sources

  /** false when the id is taken. */
  async createSource(row: SourceRow): Promise<boolean> {
    const res = await this.db.insert(s.sources).values(row).onConflictDoNothing().returning({ id: s.sources.id });
    return res.length > 0;
  }

  async getSource(archiveId: string, id: string): Promise<SourceRow | null> {
    return (
      (await this.db.query.sources.findFirst({
        where: and(eq(s.sources.archiveId, archiveId), eq(s.sources.id, id)),
      })) ?? null
    );
  }

  async listSources(archiveId: string): Promise<SourceRow[]> {
    return this.db.select().from(s.sources).where(eq(s.sources.archiveId, archiveId)).orderBy(asc(s.sources.id));
  }

  async updateSource(archiveId: string, id: string, patch: Partial<Omit<SourceRow, "archiveId" | "id">>) {
    await this.db
      .update(s.sources)
      .set(patch)
      .where(and(eq(s.sources.archiveId, archiveId), eq(s.sources.id, id)));
  }

  async deleteSource(archiveId: string, id: string): Promise<boolean> {
    const res = await this.db
      .delete(s.sources)
      .where(and(eq(s.sources.archiveId, archiveId), eq(s.sources.id, id)))
      .returning({ id: s.sources.id });
    return res.length > 0;
  }

  /** Due, unpaused sources across archives, most overdue first (the index covers paused, next_run_at). */
  async dueSources(now: number, limit: number): Promise<SourceRow[]> {
    return this.db
      .select()
      .from(s.sources)
      .where(and(eq(s.sources.paused, 0), lte(s.sources.nextRunAt, now)))
      .orderBy(asc(s.sources.nextRunAt))
      .limit(limit);
  }

  /**
   * Claim a due source for one run: moves next_run_at forward only if it still holds the value the
   * scan saw, so two overlapping cron invocations never run the same source twice.
   */
  async claimSource(archiveId: string, id: string, seenNextRun: number, leaseUntil: number): Promise<boolean> {
    const res = await this.db
      .update(s.sources)
      .set({ nextRunAt: leaseUntil })
      .where(and(eq(s.sources.archiveId, archiveId), eq(s.sources.id, id), eq(s.sources.nextRunAt, seenNextRun)))
      .returning({ id: s.sources.id });
    return res.length > 0;
  }

  // ------------------------------------------------------------------ ingest log

  async appendLog(row: Omit<LogRow, "id">): Promise<void> {
    await this.db.insert(s.ingestLog).values(row);
  }

  async listLog(archiveId: string, limit: number, before?: number): Promise<LogRow[]> {
    return this.db
      .select()
      .from(s.ingestLog)
      .where(
        before === undefined
          ? eq(s.ingestLog.archiveId, archiveId)
          : and(eq(s.ingestLog.archiveId, archiveId), lt(s.ingestLog.id, before)),
      )
      .orderBy(desc(s.ingestLog.id))
      .limit(limit);
  }

  // ------------------------------------------------------------------ deduplication lookups

  /** Which of these chunk ids exist, with their kind and deprecation. */
  async chunksByIds(
    archiveId: string,
    ids: string[],
  ): Promise<Map<string, { kind: string; latestVersion: number; deprecatedAt: number | null }>> {
    const out = new Map<string, { kind: string; latestVersion: number; deprecatedAt: number | null }>();
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const rows = await this.db
        .select({
          id: s.chunks.chunkId,
          kind: s.chunks.kind,
          latestVersion: s.chunks.latestVersion,
          deprecatedAt: s.chunks.deprecatedAt,
        })
        .from(s.chunks)
        .where(and(eq(s.chunks.archiveId, archiveId), inArray(s.chunks.chunkId, ids.slice(i, i + IN_CHUNK))));
      for (const r of rows) out.set(r.id, r);
    }
    return out;
  }

  /** Chunk ids starting with a prefix (a repository's files), in id order. */
  async chunkIdsWithPrefix(archiveId: string, prefix: string, limit: number): Promise<string[]> {
    // Range scan on the primary key instead of LIKE (ids may contain % and _).
    const rows = await this.db
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
    for (let i = 0; i < aliasNorms.length; i += IN_CHUNK) {
      const part = aliasNorms.slice(i, i + IN_CHUNK);
      const rows = await this.db
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
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const rows = await this.db
        .select({ id: s.entities.entityId })
        .from(s.entities)
        .where(
          and(
            eq(s.entities.archiveId, archiveId),
            inArray(s.entities.entityId, ids.slice(i, i + IN_CHUNK)),
            isNull(s.entities.mergedInto),
          ),
        );
      for (const r of rows) out.add(r.id);
    }
    return out;
  }

  /** Every version's source and artifact hash, oldest first (a paper has a handful). */
  async versionsOf(
    archiveId: string,
    chunkId: string,
  ): Promise<Array<{ version: number; source: string; artifactHash: string }>> {
    return this.db
      .select({
        version: s.chunkVersions.version,
        source: s.chunkVersions.source,
        artifactHash: s.chunkVersions.artifactHash,
      })
      .from(s.chunkVersions)
      .where(and(eq(s.chunkVersions.archiveId, archiveId), eq(s.chunkVersions.chunkId, chunkId)))
      .orderBy(asc(s.chunkVersions.version));
  }

  /** Size of a paper chunk's latest version, for "the richer record wins". */
  async latestHead(
    archiveId: string,
    chunkId: string,
  ): Promise<{
    contentChars: number;
    entities: number;
    edges: number;
    synopsis: string;
    validFrom: number;
    source: string;
  } | null> {
    const row = await this.db.query.chunkVersions.findFirst({
      where: and(eq(s.chunkVersions.archiveId, archiveId), eq(s.chunkVersions.chunkId, chunkId)),
      orderBy: desc(s.chunkVersions.version),
    });
    if (!row) return null;
    return {
      contentChars: row.contentChars,
      entities: (JSON.parse(row.entities) as unknown[]).length,
      edges: (JSON.parse(row.edges) as unknown[]).length,
      synopsis: row.synopsis,
      validFrom: row.validFrom,
      source: row.source,
    };
  }

  /** Normalised aliases an entity already has (open or closed). */
  async aliasNormsOf(archiveId: string, entityId: string): Promise<Set<string>> {
    const rows = await this.db
      .select({ n: s.entityAliases.aliasNorm })
      .from(s.entityAliases)
      .where(and(eq(s.entityAliases.archiveId, archiveId), eq(s.entityAliases.entityId, entityId)));
    return new Set(rows.map((r) => r.n));
  }

  async recordEntityEvent(archiveId: string, entityId: string, op: string, detail: unknown, at: number) {
    await this.db.insert(s.entityEvents).values({
      archiveId,
      entityId,
      op,
      detail: JSON.stringify(detail),
      at,
      recordedAt: at,
    });
  }
}
