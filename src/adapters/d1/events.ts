/** D1 adapter for outbound event subscribers and their deliveries (the EventStore port). */
import { and, desc, eq, lt } from "drizzle-orm";
import type { EventDeliveryPatch, EventDeliveryRecord, EventStore, SubscriptionRecord } from "../../core/ports";
import { chunked, type Db, rowsPerInsert, runBatch } from "./queries";
import * as s from "./schema";

export class D1EventStore implements EventStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async putSubscription(row: SubscriptionRecord): Promise<void> {
    await this.#db
      .insert(s.subscriptions)
      .values(row)
      .onConflictDoUpdate({
        target: [s.subscriptions.archiveId, s.subscriptions.name],
        set: { url: row.url, secret: row.secret, events: row.events },
      });
  }

  async getSubscription(archiveId: string, name: string): Promise<SubscriptionRecord | null> {
    const [r] = await this.#db
      .select()
      .from(s.subscriptions)
      .where(and(eq(s.subscriptions.archiveId, archiveId), eq(s.subscriptions.name, name)));
    return r ?? null;
  }

  async listSubscriptions(archiveId: string): Promise<SubscriptionRecord[]> {
    return this.#db
      .select()
      .from(s.subscriptions)
      .where(eq(s.subscriptions.archiveId, archiveId))
      .orderBy(s.subscriptions.name);
  }

  async deleteSubscription(archiveId: string, name: string): Promise<boolean> {
    const existing = await this.getSubscription(archiveId, name);
    if (!existing) return false;
    await runBatch(this.#db, [
      this.#db
        .delete(s.eventDeliveries)
        .where(and(eq(s.eventDeliveries.archiveId, archiveId), eq(s.eventDeliveries.subscription, name))),
      this.#db
        .delete(s.subscriptions)
        .where(and(eq(s.subscriptions.archiveId, archiveId), eq(s.subscriptions.name, name))),
    ]);
    return true;
  }

  async insertEvents(rows: EventDeliveryRecord[]): Promise<void> {
    if (rows.length === 0) return;
    const per = rowsPerInsert(Object.keys(rows[0] as object).length);
    await runBatch(
      this.#db,
      chunked(rows, per).map((part) => this.#db.insert(s.eventDeliveries).values(part).onConflictDoNothing()),
    );
  }

  async getEvent(archiveId: string, id: string): Promise<EventDeliveryRecord | null> {
    const [r] = await this.#db
      .select()
      .from(s.eventDeliveries)
      .where(and(eq(s.eventDeliveries.archiveId, archiveId), eq(s.eventDeliveries.id, id)));
    return r ?? null;
  }

  async updateEvent(archiveId: string, id: string, patch: EventDeliveryPatch): Promise<void> {
    await this.#db
      .update(s.eventDeliveries)
      .set(patch)
      .where(and(eq(s.eventDeliveries.archiveId, archiveId), eq(s.eventDeliveries.id, id)));
  }

  async listEvents(
    archiveId: string,
    subscription: string,
    status: string | undefined,
    before: string | null,
    limit: number,
  ): Promise<EventDeliveryRecord[]> {
    return this.#db
      .select()
      .from(s.eventDeliveries)
      .where(
        and(
          eq(s.eventDeliveries.archiveId, archiveId),
          eq(s.eventDeliveries.subscription, subscription),
          status ? eq(s.eventDeliveries.status, status) : undefined,
          before ? lt(s.eventDeliveries.id, before) : undefined,
        ),
      )
      .orderBy(desc(s.eventDeliveries.id))
      .limit(limit);
  }
}
