/**
 * Webhooks: receive (verify, deduplicate, store the raw body, enqueue) and process (the queue
 * consumer turns a delivery into an ImportPlan and applies it). Receiving validates the payload
 * fully, so a malformed delivery is refused with a 4xx and leaves nothing behind.
 */
import { FeedBody, toArtifactInput, toMs } from "../../contract";
import { fail, ok, type Result, schemaFailure } from "../../core/errors";
import type { ImportPlan } from "../../core/formats/types";
import { INGEST_LIMITS, prepareBatch, sha256Hex } from "../../core/ingest";
import { runSliced, runSync, type Sliced } from "../../core/pace";
import type { WebhookRecord } from "../../core/ports";
import { verifyGeneric, verifyGithub } from "../../core/signatures";
import { parsePushEvent } from "../../core/sources/github-push";
import type { IntakeDeps } from "../deps";
import type { DeliveryMessage } from "../lib/queue";
import { type QueueMessageLike, retryDelaySeconds } from "../lib/queue";
import { applyPlan } from "./apply";
import { githubPushPlan, HttpError } from "./github";
import type { ApplyOutcome } from "./outcome";
import { queueReadmePapers } from "./readme-queue";

export interface WebhookHeaders {
  get(name: string): string | null;
}

export type ReceiveOutcome =
  | { status: "queued"; delivery: string }
  | { status: "duplicate"; delivery: string; state: string }
  | { status: "ignored"; delivery: string | null; reason: string };

/** Validate a generic delivery into a plan (also used by `url` sources and the json import). */
export function feedPlan(json: unknown): Result<ImportPlan> {
  return runSync(feedPlanSliced(json));
}

/** feedPlan, yielding after the schema check and after each batch's checks (~35 ms per 200 notes). */
export function* feedPlanSliced(json: unknown): Sliced<Result<ImportPlan>> {
  const parsed = FeedBody.safeParse(json);
  if (!parsed.success)
    return {
      ok: false,
      error: schemaFailure(parsed.error.issues, {
        subject: "body",
        fieldFallback: true,
        hint: "send {artifacts: [...], deprecations: [...]} in the ingest format (see /openapi.json, schema Feed)",
      }),
    };
  const artifacts = parsed.data.artifacts.map(toArtifactInput);
  // The same checks as /ingest (sizes, self-edges, duplicate ids), one batch at a time as they will be applied.
  for (let i = 0; i < artifacts.length; i += INGEST_LIMITS.maxArtifacts) {
    yield;
    const prepared = prepareBatch(artifacts.slice(i, i + INGEST_LIMITS.maxArtifacts));
    if (!prepared.ok) {
      const f = prepared.error;
      const shifted = f.field?.replace(/^artifacts\.(\d+)/, (_, n: string) => `artifacts.${Number(n) + i}`);
      return { ok: false, error: { ...f, ...(shifted ? { field: shifted } : {}) } };
    }
  }
  const ids = new Set<string>();
  for (const [i, a] of artifacts.entries()) {
    if (ids.has(a.id))
      return fail(
        "validation",
        `artifact id ${a.id} appears twice`,
        `artifacts.${i}.id`,
        "one artifact per id per delivery",
      );
    ids.add(a.id);
  }
  return ok({
    artifacts,
    deprecations: parsed.data.deprecations.map((d) => ({
      id: d.id,
      by: d.by ?? null,
      at: toMs(d.at),
      reason: d.reason ?? "deprecated by the producer",
    })),
    skipped: [],
  });
}

function parseDeliveryBody(raw: Uint8Array): Result<unknown> {
  try {
    return ok(JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(raw)));
  } catch {
    return fail("validation", "body is not valid UTF-8 JSON", "body", "send the payload as application/json");
  }
}

function branchesOf(row: WebhookRecord): string[] | null {
  return row.options.branches?.length ? row.options.branches : null;
}

/** The delivery headers the receiver reads; each is at most MAX_HEADER_CHARS long (ids, hex digests, seconds). */
export const SIGNED_HEADERS = [
  "X-PaperGuru-Signature",
  "X-PaperGuru-Timestamp",
  "X-PaperGuru-Delivery",
  "X-Hub-Signature-256",
  "X-GitHub-Delivery",
  "X-GitHub-Event",
] as const;
export const MAX_HEADER_CHARS = 200;
/** A random secret per isolate, made on first use (Workers allow no random values at load time). */
let decoySecret: string | null = null;
function decoy(): string {
  decoySecret ??= [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return decoySecret;
}

/** Verify and accept one delivery. Nothing is stored unless it is authentic, fresh, new and well-formed. */
export async function receiveWebhook(
  deps: IntakeDeps,
  archiveId: string,
  name: string,
  headers: WebhookHeaders,
  raw: Uint8Array,
): Promise<Result<ReceiveOutcome>> {
  for (const h of SIGNED_HEADERS) {
    const v = headers.get(h);
    if (v !== null && v.length > MAX_HEADER_CHARS)
      return fail("validation", `${h} is longer than ${MAX_HEADER_CHARS} characters`, h);
  }
  const now = deps.apply.now();
  const hook = await deps.world.getWebhook(archiveId, name);
  if (!hook) {
    // An anonymous caller must not learn which endpoints exist: an unknown one fails exactly as a
    // known one with a wrong secret does (verified against a random secret of this isolate).
    const check = headers.get("x-hub-signature-256")
      ? await verifyGithub(decoy(), headers.get("x-hub-signature-256"), raw)
      : await verifyGeneric(
          decoy(),
          { signature: headers.get("x-paperguru-signature"), timestamp: headers.get("x-paperguru-timestamp") },
          raw,
          now,
        );
    return check.ok ? fail("unauthorized", "signature does not match the body", "X-PaperGuru-Signature") : check;
  }
  let deliveryId: string | null;
  let event: string;
  /** The chunk ids the body carries (generic deliveries): a hard delete of one removes the body. */
  let carried: string[] | null = null;
  if (hook.kind === "github") {
    const v = await verifyGithub(hook.secret, headers.get("x-hub-signature-256"), raw);
    if (!v.ok) return v;
    event = headers.get("x-github-event") ?? "";
    deliveryId = headers.get("x-github-delivery");
    if (event === "ping") return ok({ status: "ignored", delivery: deliveryId, reason: "ping: webhook is set up" });
    if (event !== "push")
      return ok({ status: "ignored", delivery: deliveryId, reason: `event ${event || "(none)"} is not ingested` });
    if (!deliveryId) return fail("validation", "missing X-GitHub-Delivery header", "X-GitHub-Delivery");
    const json = parseDeliveryBody(raw);
    if (!json.ok) return json;
    const push = parsePushEvent(json.value);
    if (!push.ok) return push;
  } else {
    const v = await verifyGeneric(
      hook.secret,
      { signature: headers.get("x-paperguru-signature"), timestamp: headers.get("x-paperguru-timestamp") },
      raw,
      now,
    );
    if (!v.ok) return v;
    event = "ingest";
    deliveryId = headers.get("x-paperguru-delivery");
    if (!deliveryId)
      return fail(
        "validation",
        "missing X-PaperGuru-Delivery header",
        "X-PaperGuru-Delivery",
        "send a unique id per delivery (reuse it on retries, so a retry is not ingested twice)",
      );
    const json = parseDeliveryBody(raw);
    if (!json.ok) return json;
    const plan = await runSliced(feedPlanSliced(json.value), deps.pause);
    if (!plan.ok) return plan;
    carried = plan.value.artifacts.map((a) => a.id);
  }
  if (deliveryId.length > 200) return fail("validation", "delivery id longer than 200 characters", "delivery");

  const seen = await deps.world.getDelivery(archiveId, name, deliveryId);
  // In flight (queued within its lease) or done: a duplicate. A queued delivery past its lease lost
  // its queue message (a crash between the enqueue and the consumer): this re-send enqueues it again.
  if (seen && seen.status !== "received" && !stuck(seen, now))
    return ok({ status: "duplicate", delivery: deliveryId, state: seen.status });
  // Replay protection: the signature does not cover the delivery id (GitHub's has no timestamp at
  // all), so a captured body re-sent under a new id is recognised by its SHA-256 and never applied
  // again; sending the same bytes twice can only ever mean the same change.
  const bodySha = await sha256Hex(new TextDecoder().decode(raw));
  if (!seen) {
    const same = await deps.world.deliveryByBody(archiveId, name, bodySha);
    if (same && same.deliveryId !== deliveryId)
      return ok({ status: "duplicate", delivery: deliveryId, state: `same body as delivery ${same.deliveryId}` });
  }
  const msg: DeliveryMessage = { archive: archiveId, webhook: name, delivery: deliveryId };
  if (!seen) {
    const bodyKey = `${webhookBodyPrefix(archiveId, name)}${await sha256Hex(deliveryId)}`;
    await deps.blobs.put(bodyKey, new TextDecoder().decode(raw));
    const inserted = await deps.world.insertDelivery({
      archiveId,
      webhook: name,
      deliveryId,
      kind: hook.kind,
      event,
      bodyKey,
      bodySha,
      status: "received",
      attempts: 0,
      result: null,
      error: null,
      receivedAt: now,
      updatedAt: now,
      chunkIds: carried ?? null,
    });
    if (!inserted) {
      const again = await deps.world.getDelivery(archiveId, name, deliveryId);
      return ok({ status: "duplicate", delivery: deliveryId, state: again?.status ?? "received" });
    }
  }
  // A row left "received" means an earlier enqueue failed: the redelivery enqueues it now.
  try {
    await deps.queue.send(msg);
  } catch (e) {
    return fail("unavailable", `could not enqueue the delivery: ${String(e)}`, "queue", "retry the delivery");
  }
  await deps.world.updateDelivery(archiveId, name, deliveryId, { status: "queued", updatedAt: now });
  return ok({ status: "queued", delivery: deliveryId });
}

/** Errors that a retry cannot fix: the delivery goes straight to the dead letters. */
export class PermanentError extends Error {}

/**
 * Process one delivery (the queue consumer's unit of work). Returns the outcome, "ignored", or
 * null when there is nothing to do (unknown or already processed: queues deliver at least once).
 * Throws on failures; the consumer decides between retry and dead letter.
 */
export async function processDelivery(
  deps: IntakeDeps,
  msg: DeliveryMessage,
): Promise<{ outcome: ApplyOutcome | null; ignored?: string } | null> {
  const row = await deps.world.getDelivery(msg.archive, msg.webhook, msg.delivery);
  if (!row || row.status === "ingested" || row.status === "ignored") return null;
  const started = Date.now();
  const body = await deps.blobs.get(row.bodyKey);
  if (body === null) throw new PermanentError(`raw body ${row.bodyKey} is missing`);
  const json = parseDeliveryBody(new TextEncoder().encode(body));
  if (!json.ok) throw new PermanentError(json.error.message);
  let plan: ImportPlan;
  if (row.kind === "github") {
    const hook = await deps.world.getWebhook(msg.archive, msg.webhook);
    const push = parsePushEvent(json.value);
    if (!push.ok) throw new PermanentError(push.error.message);
    const p = push.value;
    const branches = hook ? branchesOf(hook) : null;
    const wanted = branches ? branches.includes(p.branch) : p.isDefaultBranch;
    if (p.deletedRef || !wanted) {
      const reason = p.deletedRef ? `ref ${p.ref} deleted` : `branch ${p.branch || p.ref} is not ingested`;
      await finish(deps, row, "ignored", { ignored: reason }, null, started);
      return { outcome: null, ignored: reason };
    }
    plan = await githubPushPlan(deps, msg.archive, p);
  } else {
    const fp = await runSliced(feedPlanSliced(json.value), deps.pause);
    if (!fp.ok) throw new PermanentError(fp.error.message);
    plan = fp.value;
  }
  const outcome = await applyPlan(deps.apply, msg.archive, plan);
  if (row.kind === "github") await queueReadmePapers(deps, msg.archive, plan, outcome);
  await finish(deps, row, "ingested", outcome.counts, outcome.failures[0]?.message ?? null, started);
  return { outcome };
}

async function finish(
  deps: IntakeDeps,
  row: { archiveId: string; webhook: string; deliveryId: string; attempts: number },
  status: string,
  counts: object,
  error: string | null,
  started: number,
) {
  const now = deps.apply.now();
  await deps.world.updateDelivery(row.archiveId, row.webhook, row.deliveryId, {
    status,
    attempts: row.attempts + 1,
    result: counts,
    error,
    updatedAt: now,
  });
  await deps.world.appendLog({
    archiveId: row.archiveId,
    origin: "webhook",
    ref: `${row.webhook}/${row.deliveryId}`,
    status: status === "ignored" ? "ignored" : error ? "partial" : "ok",
    counts,
    error,
    at: now,
    durationMs: Date.now() - started,
  });
}

/** Attempts before a delivery becomes a dead letter (the queue's max_retries is set above this). */
export const MAX_DELIVERY_ATTEMPTS = 5;

/** The queue consumer: process each message; retry with backoff; dead-letter after the last attempt. */
export async function consumeDeliveries(deps: IntakeDeps, messages: readonly QueueMessageLike[]): Promise<void> {
  for (const m of messages) {
    const msg = m.body as DeliveryMessage;
    if (
      !msg ||
      typeof msg.archive !== "string" ||
      typeof msg.webhook !== "string" ||
      typeof msg.delivery !== "string"
    ) {
      m.ack();
      continue;
    }
    try {
      await processDelivery(deps, msg);
      m.ack();
    } catch (e) {
      const permanent = e instanceof PermanentError;
      const dead = permanent || m.attempts >= MAX_DELIVERY_ATTEMPTS;
      const now = deps.apply.now();
      const message = e instanceof Error ? e.message : String(e);
      await deps.world.updateDelivery(msg.archive, msg.webhook, msg.delivery, {
        status: dead ? "dead" : "retrying",
        attempts: m.attempts,
        error: message.slice(0, 2000),
        updatedAt: now,
      });
      if (dead) {
        await deps.world.appendLog({
          archiveId: msg.archive,
          origin: "webhook",
          ref: `${msg.webhook}/${msg.delivery}`,
          status: "dead",
          counts: {},
          error: message.slice(0, 2000),
          at: now,
          durationMs: 0,
        });
        await deps.events.emit(msg.archive, "delivery.dead", {
          webhook: msg.webhook,
          delivery: msg.delivery,
          attempts: m.attempts,
          error: message.slice(0, 2000),
        });
        m.ack();
      } else {
        // A rate-limited upstream says when to come back; Queues accept delays up to 12 hours.
        const wait = e instanceof HttpError && e.retryAfterS !== null ? Math.ceil(e.retryAfterS) : 0;
        m.retry({ delaySeconds: Math.min(43_200, Math.max(retryDelaySeconds(m.attempts), wait)) });
      }
    }
  }
}

/**
 * How long a delivery may stay received or queued before it counts as lost: the queue hands a
 * message to the consumer within seconds, and a consumer run takes at most a few minutes.
 */
export const DELIVERY_LEASE_MS = 15 * 60_000;

/** A delivery received or queued longer ago than its lease: its queue message is gone. */
function stuck(row: { status: string; updatedAt: number }, now: number): boolean {
  return (row.status === "received" || row.status === "queued") && row.updatedAt < now - DELIVERY_LEASE_MS;
}

/** Deliveries re-enqueued per reconciler run (one cron tick). */
const RECONCILE_BATCH = 100;

/**
 * The reconciler (each cron tick): deliveries acknowledged to their sender but left received or
 * queued past their lease are enqueued again, each with a new lease. The consumer applies a
 * delivery at most once to completion (processDelivery skips one already ingested), so a message
 * that was only late, not lost, changes nothing twice.
 */
export async function reconcileDeliveries(deps: IntakeDeps): Promise<number> {
  const now = deps.apply.now();
  const rows = await deps.world.stuckDeliveries(now - DELIVERY_LEASE_MS, RECONCILE_BATCH);
  for (const r of rows) {
    await deps.queue.send({ archive: r.archiveId, webhook: r.webhook, delivery: r.deliveryId });
    await deps.world.updateDelivery(r.archiveId, r.webhook, r.deliveryId, { status: "queued", updatedAt: now });
  }
  return rows.length;
}

/** Put a dead (or any) delivery back on the queue. */
export async function replayDelivery(
  deps: IntakeDeps,
  archiveId: string,
  webhook: string,
  deliveryId: string,
): Promise<Result<{ delivery: string; previous: string }>> {
  const row = await deps.world.getDelivery(archiveId, webhook, deliveryId);
  if (!row) return fail("not_found", `no delivery ${deliveryId} for webhook ${webhook}`, "delivery");
  if (row.bodyKey === "")
    return fail(
      "conflict",
      `delivery ${deliveryId} cannot be replayed: its raw body was removed by a hard delete of a chunk it carried`,
      "delivery",
      "send the artifacts again (an explicit ingest) if they should be stored",
    );
  if ((row.status === "queued" || row.status === "retrying") && !stuck(row, deps.apply.now()))
    return fail(
      "conflict",
      `delivery ${deliveryId} is already ${row.status}`,
      "delivery",
      `wait for it to finish (a queued delivery not taken within ${DELIVERY_LEASE_MS / 60_000} minutes can be replayed)`,
    );
  await deps.world.updateDelivery(archiveId, webhook, deliveryId, {
    status: "queued",
    attempts: 0,
    error: null,
    updatedAt: deps.apply.now(),
  });
  await deps.queue.send({ archive: archiveId, webhook, delivery: deliveryId });
  return ok({ delivery: deliveryId, previous: row.status });
}

/** Where the verified raw bodies of one webhook's deliveries are kept (for replay). */
export function webhookBodyPrefix(archiveId: string, name: string): string {
  return `archives/${archiveId}/webhooks/${name}/`;
}
