/**
 * Extraction at ingest, the queue consumer (docs/models.md, "Extraction at ingest"). The kernel's
 * ingest sends one `extract` message per created or updated version when EXTRACTOR names a provider;
 * here each one is answered from the cache (same content SHA-256 and model) or by the model once
 * (one retry on an unusable answer), and applied to that same version (Kernel.extend): its head is
 * posted under the new entities, its row keeps the extraction. Every outcome that did something
 * is a row of the ingest log (origin `extract`): what was added, or what failed. A failure leaves
 * the version's deterministic analysis as it was; rate limits and outages retry with the queue's
 * backoff up to MAX_EXTRACT_ATTEMPTS, other failures are acknowledged.
 */
import { EXTRACTION_VERSION, type ExtractOutcome, extractWithModel, groundedCount } from "../core/extract";
import type { Extraction } from "../core/extraction";
import type { ModelFailureCode, ModelUsage } from "../core/ports";
import type { AppDeps } from "./deps";
import { type ExtractMessage, type QueueMessageLike, retryDelaySeconds } from "./lib/queue";

/** Deliveries of one message before a retryable failure is logged and acknowledged (as events). */
export const MAX_EXTRACT_ATTEMPTS = 5;

/** Failures worth the queue's backoff: the provider may answer later. */
const RETRYABLE: ReadonlySet<ModelFailureCode> = new Set(["rate_limited", "unavailable"]);

type Deps = Pick<AppDeps, "kernel" | "stores" | "models" | "clock">;

const msgOf = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 1000);

async function logRun(
  d: Deps,
  msg: ExtractMessage,
  status: "ok" | "error",
  counts: Record<string, unknown>,
  error: string | null,
  started: number,
): Promise<void> {
  await d.stores.log.appendLog({
    archiveId: msg.archive,
    origin: "extract",
    ref: `${msg.chunk}@v${msg.version}`.slice(0, 300),
    status,
    // `chunk` is what forgetting the chunk finds the row by.
    counts: { chunk: msg.chunk, version: msg.version, ...counts },
    error,
    at: d.clock.now(),
    durationMs: Date.now() - started,
  });
}

/** Model calls of one batch by content and model: a content twice in a batch is asked once. */
type InFlight = Map<string, Promise<ExtractOutcome>>;

/** One message: acknowledged, or retried (rate limit, outage, storage error) with the queue's backoff. */
async function consumeOne(d: Deps, m: QueueMessageLike, inflight: InFlight): Promise<void> {
  const msg = m.body as ExtractMessage;
  const model = d.models.extractor ? d.models.llm : null;
  // Extraction turned off since the message was sent: nothing to do.
  if (!model) return m.ack();
  const started = Date.now();
  const name = `${model.provider}:${model.model}`;
  const target = await d.stores.extractions.target(msg.archive, msg.chunk, msg.version);
  // Forgotten (or its archive deleted), superseded, deprecated, or already extracted (a redelivery):
  // nothing is written and nothing logged (a forgotten chunk's id is not written anywhere again).
  if (target?.state !== "ready") return m.ack();
  const content = await d.kernel.contentOf(target.contentKey);
  const cacheKey = `${name}#${EXTRACTION_VERSION}`;
  let x: Extraction | null = await d.stores.extractions.cached(target.contentHash, cacheKey);
  let cached = x !== null;
  let usage: ModelUsage = { inputTokens: 0, outputTokens: 0, requests: 0, ms: 0 };
  let skipped = 0;
  if (!x) {
    if (content === null) throw new Error(`the content of ${msg.chunk} v${msg.version} could not be read`);
    const key = `${target.contentHash}\u0000${cacheKey}`;
    let call = inflight.get(key);
    // Another message of this batch asks the model for the same content: its answer serves both.
    cached = call !== undefined;
    if (!call) {
      call = (async () => {
        const out = await extractWithModel(model, content);
        if (out.ok) await d.stores.extractions.cache(target.contentHash, cacheKey, out.extraction, d.clock.now());
        return out;
      })();
      inflight.set(key, call);
    }
    const out = await call;
    if (!cached) usage = out.usage;
    if (!out.ok) {
      if (RETRYABLE.has(out.code) && m.attempts < MAX_EXTRACT_ATTEMPTS)
        return m.retry({ delaySeconds: retryDelaySeconds(m.attempts) });
      await logRun(
        d,
        msg,
        "error",
        { model: name, attempts: m.attempts, requests: usage.requests, input_tokens: usage.inputTokens },
        `${out.code}: ${out.message}`.slice(0, 2000),
        started,
      );
      return m.ack();
    }
    x = out.extraction;
    skipped = out.skipped;
  }
  const res = await d.kernel.extend(msg.archive, { chunk: msg.chunk, version: msg.version }, x, name, target);
  if (res.status === "extended")
    await logRun(
      d,
      msg,
      "ok",
      {
        model: name,
        cached,
        entities: res.entities,
        relations: res.relations,
        entities_added: res.added,
        new_entities: res.newEntities,
        // Entities none of whose names the content writes as words: a sign of invention, not removed.
        ungrounded: content === null ? null : x.entities.length - groundedCount(content, x),
        skipped: skipped + res.dropped,
        requests: usage.requests,
        input_tokens: usage.inputTokens,
        output_tokens: usage.outputTokens,
      },
      null,
      started,
    );
  return m.ack();
}

/**
 * Messages of one batch handled this many at a time: the model call is the wait (up to the adapter's
 * timeout and retries each), and a queue consumer has 15 minutes of wall time for its batch.
 */
export const EXTRACT_CONCURRENCY = 4;

async function handle(d: Deps, m: QueueMessageLike, inflight: InFlight): Promise<void> {
  try {
    await consumeOne(d, m, inflight);
  } catch (e) {
    // Storage or the capital chunk failed: retry with backoff; after the last attempt, log and ack.
    if (m.attempts < MAX_EXTRACT_ATTEMPTS) return m.retry({ delaySeconds: retryDelaySeconds(m.attempts) });
    const msg = m.body as ExtractMessage;
    try {
      await logRun(d, msg, "error", { attempts: m.attempts }, `internal: ${msgOf(e)}`, Date.now());
    } catch {
      console.error(`extract: ${msg.archive} ${msg.chunk}@v${msg.version} failed: ${msgOf(e)}`);
    }
    m.ack();
  }
}

/** The queue consumer for `extract` messages, EXTRACT_CONCURRENCY at a time. */
export async function consumeExtractions(d: Deps, messages: readonly QueueMessageLike[]): Promise<void> {
  let next = 0;
  const inflight: InFlight = new Map();
  const worker = async () => {
    while (next < messages.length) await handle(d, messages[next++] as QueueMessageLike, inflight);
  };
  await Promise.all(Array.from({ length: Math.min(EXTRACT_CONCURRENCY, messages.length) }, worker));
}

export function extractUseCases(d: Deps) {
  return {
    consume: (messages: readonly QueueMessageLike[]) => consumeExtractions(d, messages),
  };
}
