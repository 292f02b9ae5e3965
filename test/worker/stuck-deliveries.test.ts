/**
 * A delivery acknowledged to its sender (202) whose queue message was lost (the runtime killed
 * between the enqueue and the consumer) is not stuck forever: the cron reconciler enqueues it again
 * once its lease is over and it is ingested exactly once; the sender's re-send and a replay are
 * accepted instead of answered "duplicate" / 409.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DELIVERY_LEASE_MS, webhookBodyPrefix } from "../../src/app/intake/webhooks";
import { sha256Hex } from "../../src/core/ingest";
import worker from "../../src/index";
import { api, newArchive } from "./helpers";
import { createWebhook, sendGeneric, waitDelivery } from "./world";

/** A delivery row as the receiver leaves it after its 202, with its raw body kept; no queue message. */
async function lostDelivery(archive: string, webhook: string, delivery: string, body: string, age: number) {
  const bodyKey = `${webhookBodyPrefix(archive, webhook)}${await sha256Hex(delivery)}`;
  await env.CONTENT.put(bodyKey, body);
  const at = Date.now() - age;
  await env.DB.prepare(
    `INSERT INTO webhook_deliveries (archive_id, webhook, delivery_id, kind, event, body_key, body_sha, status, attempts, received_at, updated_at)
     VALUES (?, ?, ?, 'generic', 'ingest', ?, ?, 'queued', 0, ?, ?)`,
  )
    .bind(archive, webhook, delivery, bodyKey, await sha256Hex(body), at, at)
    .run();
}

async function cron() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

const artifact = (id: string) => ({ id, kind: "note", title: `Note ${id}`, content: `Delivered ${id}.` });

describe("acknowledged deliveries whose queue message was lost", () => {
  it("the reconciler enqueues them after their lease, once; re-sends and replays are accepted", async () => {
    const { id, key } = await newArchive("stuck");
    const secret = await createWebhook(id, "feed", "generic");
    await lostDelivery(
      id,
      "feed",
      "lost-1",
      JSON.stringify({ artifacts: [artifact("note:lost")] }),
      DELIVERY_LEASE_MS + 60_000,
    );
    await lostDelivery(id, "feed", "fresh-1", JSON.stringify({ artifacts: [artifact("note:fresh")] }), 1_000);

    await cron();
    expect(await waitDelivery(id, key, "feed", "lost-1")).toMatchObject({ status: "ingested", result: { created: 1 } });
    // Within its lease a queued delivery is in flight: left alone.
    const fresh = await api("GET", `/v1/archives/${id}/webhooks/feed/deliveries/fresh-1`, undefined, key);
    expect(fresh.body.status).toBe("queued");

    // Another tick: nothing is applied twice.
    await cron();
    await new Promise((r) => setTimeout(r, 1500));
    const h = await api("GET", `/v1/archives/${id}/history?chunk=note%3Alost`, undefined, key);
    expect(h.body.versions).toHaveLength(1);
    const lost = await api("GET", `/v1/archives/${id}/webhooks/feed/deliveries/lost-1`, undefined, key);
    expect(lost.body).toMatchObject({ status: "ingested", attempts: 1 });

    // The sender's re-send of a lost delivery is enqueued, not "duplicate"; so is a replay.
    const body = { artifacts: [artifact("note:resend")] };
    await lostDelivery(id, "feed", "lost-2", JSON.stringify(body), DELIVERY_LEASE_MS + 60_000);
    const resent = await sendGeneric(id, "feed", secret, body, { delivery: "lost-2" });
    expect(resent.status, JSON.stringify(resent.body)).toBe(202);
    expect(await waitDelivery(id, key, "feed", "lost-2")).toMatchObject({ status: "ingested", result: { created: 1 } });
    await lostDelivery(
      id,
      "feed",
      "lost-3",
      JSON.stringify({ artifacts: [artifact("note:replayed")] }),
      DELIVERY_LEASE_MS + 60_000,
    );
    const replay = await api("POST", `/v1/archives/${id}/webhooks/feed/deliveries/lost-3/replay`, undefined, key);
    expect(replay.status, JSON.stringify(replay.body)).toBe(202);
    expect(await waitDelivery(id, key, "feed", "lost-3")).toMatchObject({ status: "ingested" });
    // Within its lease the replay is still refused (it is in flight).
    expect(
      (await api("POST", `/v1/archives/${id}/webhooks/feed/deliveries/fresh-1/replay`, undefined, key)).status,
    ).toBe(409);
  });
});
