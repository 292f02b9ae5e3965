/**
 * D1 adapter for webhook endpoints and their deliveries. A delivery row is keyed by its delivery id,
 * so a redelivery finds it and is acknowledged without a second ingest; the dead-letter list is the
 * deliveries with status "dead". The HMAC secret is stored as given: verifying a signature needs it.
 */
import { and, asc, desc, eq, inArray, lt, type SQL } from "drizzle-orm";
import type { DeliveryRecord, WebhookRecord, WebhookStore } from "../../core/ports";
import type { Db } from "./queries";
import * as s from "./schema";

/** The deliveries of one webhook, narrowed by `more`. */
function ofWebhook(archiveId: string, webhook: string, ...more: SQL[]): SQL | undefined {
  return and(eq(s.webhookDeliveries.archiveId, archiveId), eq(s.webhookDeliveries.webhook, webhook), ...more);
}

/** One delivery of a webhook, by its delivery id. */
function deliveryKey(archiveId: string, webhook: string, deliveryId: string): SQL | undefined {
  return ofWebhook(archiveId, webhook, eq(s.webhookDeliveries.deliveryId, deliveryId));
}

export class D1WebhookStore implements WebhookStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async putWebhook(row: WebhookRecord): Promise<void> {
    await this.#db
      .insert(s.webhooks)
      .values(row)
      .onConflictDoUpdate({
        target: [s.webhooks.archiveId, s.webhooks.name],
        set: { kind: row.kind, secret: row.secret, options: row.options },
      });
  }

  async getWebhook(archiveId: string, name: string): Promise<WebhookRecord | null> {
    return (
      (await this.#db.query.webhooks.findFirst({
        where: and(eq(s.webhooks.archiveId, archiveId), eq(s.webhooks.name, name)),
      })) ?? null
    );
  }

  async listWebhooks(archiveId: string): Promise<Array<Omit<WebhookRecord, "secret">>> {
    const rows = await this.#db.select().from(s.webhooks).where(eq(s.webhooks.archiveId, archiveId));
    return rows.map(({ secret: _secret, ...rest }) => rest);
  }

  async deleteWebhook(archiveId: string, name: string): Promise<boolean> {
    const [res] = await this.#db.batch([
      this.#db
        .delete(s.webhooks)
        .where(and(eq(s.webhooks.archiveId, archiveId), eq(s.webhooks.name, name)))
        .returning({ name: s.webhooks.name }),
      this.#db.delete(s.webhookDeliveries).where(ofWebhook(archiveId, name)),
    ]);
    return res.length > 0;
  }

  // ------------------------------------------------------------------ deliveries

  async deliveryByBody(archiveId: string, webhook: string, bodySha: string): Promise<DeliveryRecord | null> {
    const rows = await this.#db
      .select()
      .from(s.webhookDeliveries)
      .where(ofWebhook(archiveId, webhook, eq(s.webhookDeliveries.bodySha, bodySha)))
      .orderBy(asc(s.webhookDeliveries.receivedAt))
      .limit(1);
    return rows[0] ?? null;
  }

  async getDelivery(archiveId: string, webhook: string, deliveryId: string): Promise<DeliveryRecord | null> {
    return (
      (await this.#db.query.webhookDeliveries.findFirst({ where: deliveryKey(archiveId, webhook, deliveryId) })) ?? null
    );
  }

  /** Insert unless the delivery id is known; false = a concurrent or earlier delivery has it. */
  async insertDelivery(row: DeliveryRecord): Promise<boolean> {
    const res = await this.#db
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
    patch: Partial<Pick<DeliveryRecord, "status" | "attempts" | "result" | "error" | "updatedAt">>,
  ): Promise<void> {
    await this.#db
      .update(s.webhookDeliveries)
      .set(patch)
      .where(deliveryKey(archiveId, webhook, deliveryId));
  }

  async deleteDelivery(archiveId: string, webhook: string, deliveryId: string): Promise<void> {
    await this.#db.delete(s.webhookDeliveries).where(deliveryKey(archiveId, webhook, deliveryId));
  }

  async listDeliveries(
    archiveId: string,
    webhook: string,
    status: string | undefined,
    limit: number,
  ): Promise<DeliveryRecord[]> {
    const scope = ofWebhook(archiveId, webhook);
    return this.#db
      .select()
      .from(s.webhookDeliveries)
      .where(status ? and(scope, eq(s.webhookDeliveries.status, status)) : scope)
      .orderBy(desc(s.webhookDeliveries.receivedAt))
      .limit(limit);
  }

  async stuckDeliveries(before: number, limit: number): Promise<DeliveryRecord[]> {
    const d = s.webhookDeliveries;
    return this.#db
      .select()
      .from(d)
      .where(and(inArray(d.status, ["received", "queued"]), lt(d.updatedAt, before)))
      .orderBy(asc(d.updatedAt))
      .limit(limit);
  }
}
