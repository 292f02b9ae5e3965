/**
 * Writes that carry a caller's event id answer every repeat with the first answer. The first
 * request claims the id (one atomic insert of an unanswered outcome row), runs, and stores its
 * answer tied to the annotation it wrote; a repeat, concurrent or later, waits for that answer and
 * gets it byte for byte. A request that fails stores nothing and drops its claim, so the id stays
 * free and the next repeat runs again (and, the failure being about the request, fails the same
 * way). The same id naming another operation or target is a 409.
 */
import type { z } from "zod";
import { fail, ok, type Result } from "../../core/errors";
import type { AnnotationStore } from "../../core/ports";

/** A claim older than this is a request that died: a repeat takes it over and runs again. */
export const STALE_CLAIM_MS = 60_000;
/** A repeat polls the first request's claim, 10 ms at first, backing off to 250 ms, about 15 s in all. */
const POLL_FIRST_MS = 10;
const POLL_MAX_MS = 250;
const POLLS = 70;

/** An answer and whether it is a stored first answer given again. */
export interface Once<T> {
  value: T;
  replayed: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface OnceDeps {
  annotations: Pick<AnnotationStore, "claimEvent" | "takeOverEvent" | "answerEvent" | "releaseEvent">;
  clock: { now(): number };
}

/**
 * Runs `run` once per (archive, eventId). `request` names the operation and target (equal strings
 * are the same request); `field` and `label` word the conflict; `schema` checks a stored answer
 * before it is given again. `run` returns its answer and the id of the annotation it wrote.
 */
export async function onceByEventId<T>(
  d: OnceDeps,
  o: {
    archive: string;
    eventId: string;
    label: string;
    request: string;
    schema: z.ZodType<T>;
    run: () => Promise<Result<{ value: T; annotationId: number }>>;
  },
): Promise<Result<Once<T>>> {
  const store = d.annotations;
  const claim = crypto.randomUUID();
  for (let i = 0; ; i++) {
    const held = await store.claimEvent(o.archive, o.eventId, o.request, claim, d.clock.now());
    if (held === null) return own(d, o, claim);
    if (held.request !== o.request)
      return fail(
        "conflict",
        `event_id ${o.label} was already used for another operation (${held.request})`,
        "event_id",
        "use a new event_id for a new operation",
      );
    if (held.body !== null) {
      const stored = parse(held.body, o.schema);
      if (stored !== undefined) return ok({ value: stored, replayed: true });
      return fail("unavailable", `the stored answer of event_id ${o.label} could not be read`, "event_id");
    }
    if (
      d.clock.now() - held.claimedAt > STALE_CLAIM_MS &&
      (await store.takeOverEvent(o.archive, o.eventId, held.claim, claim, d.clock.now()))
    )
      return own(d, o, claim);
    if (i >= POLLS)
      return fail(
        "unavailable",
        `event_id ${o.label} is still being applied by an earlier request`,
        "event_id",
        "retry in a few seconds: a retry gets that request's answer",
      );
    await sleep(Math.min(POLL_MAX_MS, POLL_FIRST_MS * 1.5 ** i));
  }
}

/** The first request: run, then store the answer (success) or drop the claim (failure). */
async function own<T>(
  d: OnceDeps,
  o: { archive: string; eventId: string; run: () => Promise<Result<{ value: T; annotationId: number }>> },
  claim: string,
): Promise<Result<Once<T>>> {
  const store = d.annotations;
  let res: Result<{ value: T; annotationId: number }>;
  try {
    res = await o.run();
  } catch (e) {
    await store.releaseEvent(o.archive, o.eventId, claim).catch(() => undefined);
    throw e;
  }
  if (!res.ok) {
    await store.releaseEvent(o.archive, o.eventId, claim);
    return res;
  }
  await store.answerEvent(o.archive, o.eventId, claim, res.value.annotationId, JSON.stringify(res.value.value));
  return ok({ value: res.value.value, replayed: false });
}

/** The stored JSON text as the answer it was (fields in their first order), or undefined. */
function parse<T>(text: string, schema: z.ZodType<T>): T | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  // The parsed object itself, not zod's copy: it keeps the first answer's field order.
  return schema.safeParse(v).success ? (v as T) : undefined;
}
