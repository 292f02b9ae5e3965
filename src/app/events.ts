/**
 * Outbound events. Subscribers register a URL and a secret per archive; every change the archive
 * reports (chunk created / versioned / deprecated / deleted, import completed, source run finished,
 * inbound delivery dead) becomes one stored delivery per matching subscriber and one queue message.
 * The queue consumer POSTs the stored body, signed like PaperGuru's own generic webhook:
 *   X-PaperGuru-Timestamp: <unix seconds>
 *   X-PaperGuru-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>
 * so a receiver verifies it exactly as PaperGuru verifies inbound webhooks (src/core/signatures.ts).
 * Non-2xx answers, network failures and no answer within DELIVERY_TIMEOUT_MS retry with backoff,
 * 10 s, 20 s, 40 s, 80 s after the failed attempt ended (attempts to a subscriber that never answers
 * start 10 s + delay + up to 1 s of queue batching apart); after the 5th attempt the delivery is dead, listed with its last status and error, and can be redelivered.
 * Payloads carry ids, versions and counts, never content.
 */
import type * as S from "../contract";
import { fail, ok, type Result } from "../core/errors";
import { OutboundRefused, registrationRefusal, urlRefusal } from "../core/net";
import type { EventDeliveryRecord, EventSink } from "../core/ports";
import { genericSignedPayload, signBytes } from "../core/signatures";
import type { EventType } from "../core/types";
import type { EventDeps } from "./deps";
import type { EventMessage } from "./lib/queue";
import { type QueueMessageLike, retryDelaySeconds } from "./lib/queue";
import { decodeCursor, encodeCursor, type In, iso, randomId } from "./lib/wire";

/** Attempts before an event delivery is dead (the same as inbound webhook deliveries). */
export const MAX_EVENT_ATTEMPTS = 5;
/** A subscriber has this long to answer. */
const DELIVERY_TIMEOUT_MS = 10_000;

/** Time-ordered ids: base-36 milliseconds, then random hex (the listing sorts by id). */
function eventId(now: number): string {
  return `evt_${now.toString(36).padStart(9, "0")}${randomId("", 6)}`;
}

/** The sink the kernel and the feeds emit into. A failure is logged, never thrown: the change it reports already happened. */
export function eventSink(d: EventDeps): EventSink {
  return {
    async emit(archiveId: string, type: EventType, data: Record<string, unknown>) {
      try {
        const subs = (await d.store.listSubscriptions(archiveId)).filter((s) => {
          const only = s.events;
          return only.length === 0 || only.includes(type);
        });
        if (subs.length === 0) return;
        const now = d.clock.now();
        const rows: EventDeliveryRecord[] = subs.map((s) => {
          const id = eventId(now);
          return {
            archiveId,
            id,
            subscription: s.name,
            type,
            payload: { id, type, archive: archiveId, created_at: iso(now), data },
            status: "pending",
            attempts: 0,
            responseStatus: null,
            error: null,
            createdAt: now,
            updatedAt: now,
          };
        });
        await d.store.insertEvents(rows);
        for (const r of rows) await d.queue.send({ kind: "event", archive: archiveId, event: r.id });
      } catch (e) {
        console.error(`events: ${type} for ${archiveId} not queued: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
  };
}

class PermanentDeliveryError extends Error {}

async function deliver(d: EventDeps, row: EventDeliveryRecord, url: string, secret: string): Promise<number> {
  const refused = urlRefusal(url, { allowHosts: d.allowHosts, allowHttpHosts: d.allowHosts });
  if (refused) throw new PermanentDeliveryError(`refused to deliver to ${url.slice(0, 200)}: it ${refused}`);
  const ts = String(Math.floor(d.clock.now() / 1000));
  // The stored text is JSON.stringify of the payload, so these are its bytes.
  const body = new TextEncoder().encode(JSON.stringify(row.payload));
  const signature = await signBytes(secret, genericSignedPayload(ts, body));
  let res: Response;
  try {
    res = await d.http(
      new Request(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "PaperGuru-Events/1",
          "x-paperguru-event": row.type,
          "x-paperguru-event-id": row.id,
          "x-paperguru-timestamp": ts,
          "x-paperguru-signature": signature,
        },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      }),
    );
  } catch (e) {
    const name = e instanceof Error ? e.name : "";
    throw new Error(
      name === "TimeoutError"
        ? `no response within ${DELIVERY_TIMEOUT_MS / 1000} s`
        : e instanceof OutboundRefused
          ? `refused: ${e.message}`
          : `could not connect: ${e instanceof Error ? e.message.slice(0, 300) : String(e)}`,
    );
  }
  await res.body?.cancel();
  return res.status;
}

/** The queue consumer for event messages: deliver, retry with backoff, dead after the last attempt. */
export async function consumeEvents(d: EventDeps, messages: readonly QueueMessageLike[]): Promise<void> {
  for (const m of messages) {
    const msg = m.body as EventMessage;
    const row = await d.store.getEvent(msg.archive, msg.event);
    // Gone (subscription or archive deleted) or already delivered (a duplicate message): nothing to do.
    if (!row || row.status === "delivered") {
      m.ack();
      continue;
    }
    const sub = await d.store.getSubscription(msg.archive, row.subscription);
    if (!sub) {
      m.ack();
      continue;
    }
    let status: number | null = null;
    try {
      status = await deliver(d, row, sub.url, sub.secret);
      if (status < 200 || status >= 300) throw new Error(`HTTP ${status} from the subscriber`);
      await d.store.updateEvent(msg.archive, row.id, {
        status: "delivered",
        attempts: row.attempts + 1,
        responseStatus: status,
        error: null,
        updatedAt: d.clock.now(),
      });
      m.ack();
    } catch (e) {
      const attempts = row.attempts + 1;
      const dead = e instanceof PermanentDeliveryError || attempts >= MAX_EVENT_ATTEMPTS;
      await d.store.updateEvent(msg.archive, row.id, {
        status: dead ? "dead" : "retrying",
        attempts,
        responseStatus: status,
        error: (e instanceof Error ? e.message : String(e)).slice(0, 2000),
        updatedAt: d.clock.now(),
      });
      if (dead) m.ack();
      else m.retry({ delaySeconds: retryDelaySeconds(attempts) });
    }
  }
}

function subscriptionView(s: { name: string; url: string; events: string[]; createdAt: number }) {
  return { name: s.name, url: s.url, events: s.events, created_at: iso(s.createdAt) };
}

function eventView(r: EventDeliveryRecord): In<typeof S.EventView> {
  return {
    id: r.id,
    type: r.type,
    status: r.status as In<typeof S.EventView>["status"],
    attempts: r.attempts,
    response_status: r.responseStatus,
    error: r.error,
    created_at: iso(r.createdAt),
    updated_at: iso(r.updatedAt),
    payload: r.payload,
  };
}

export function eventUseCases(d: EventDeps) {
  const notFound = (archive: string, name: string) =>
    fail("not_found", `no subscription ${name} in archive ${archive}`, "name", "list them with GET …/subscriptions");
  return {
    async put(
      archive: string,
      name: string,
      b: In<typeof S.PutSubscription>,
    ): Promise<Result<In<typeof S.SubscriptionCreated>>> {
      const refused = urlRefusal(b.url, { allowHosts: d.allowHosts, allowHttpHosts: d.allowHosts });
      if (refused) return fail("validation", `url ${refused}`, "url", "give an https URL on a public host");
      // By address too, when created and when changed: a public name may point at loopback or metadata.
      const unreachable = await registrationRefusal(d.addresses, b.url, "url");
      if (unreachable) return { ok: false, error: unreachable };
      const row = {
        archiveId: archive,
        name,
        url: b.url,
        secret: b.secret ?? randomId("", 32),
        events: b.events ?? [],
        createdAt: d.clock.now(),
      };
      const existing = await d.store.getSubscription(archive, name);
      await d.store.putSubscription(row);
      return ok({
        ...subscriptionView({ ...row, createdAt: existing?.createdAt ?? row.createdAt }),
        secret: row.secret,
      });
    },
    async list(archive: string): Promise<In<typeof S.SubscriptionList>> {
      return { subscriptions: (await d.store.listSubscriptions(archive)).map(subscriptionView) };
    },
    async remove(archive: string, name: string): Promise<Result<{ deleted: string }>> {
      return (await d.store.deleteSubscription(archive, name)) ? ok({ deleted: name }) : notFound(archive, name);
    },
    async events(
      archive: string,
      name: string,
      q: In<typeof S.EventListQuery>,
    ): Promise<Result<In<typeof S.EventList>>> {
      if (!(await d.store.getSubscription(archive, name))) return notFound(archive, name);
      const before = decodeCursor(q.cursor);
      if (!before.ok) return before;
      const rows = await d.store.listEvents(archive, name, q.status, before.value, q.limit + 1);
      const more = rows.length > q.limit;
      const page = more ? rows.slice(0, q.limit) : rows;
      const last = page[page.length - 1];
      return ok({ events: page.map(eventView), next_cursor: more && last ? encodeCursor(last.id) : null });
    },
    /** Queue a delivered or dead event again, with a fresh attempt count. */
    async redeliver(archive: string, name: string, event: string): Promise<Result<In<typeof S.Redelivered>>> {
      const row = await d.store.getEvent(archive, event);
      if (!row || row.subscription !== name)
        return fail("not_found", `no event ${event} for subscription ${name}`, "event");
      await d.store.updateEvent(archive, event, {
        status: "pending",
        attempts: 0,
        error: null,
        updatedAt: d.clock.now(),
      });
      await d.queue.send({ kind: "event", archive, event });
      return ok({ event, status: "pending" as const });
    },
    consume: (messages: readonly QueueMessageLike[]) => consumeEvents(d, messages),
  };
}
