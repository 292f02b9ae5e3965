/**
 * Commitment extraction after each turn (seed 002 B.1, Fig. 5): with a language model configured,
 * every append of session events enqueues one `commitments` message naming the session and the
 * newest event's time; the consumer runs POST …/commitments/propose with `per_turn` for it (the
 * session's last TURN_WINDOW events at that time), so the model proposes additions and revisions of
 * the kept records after the turn. Per-turn extraction is idempotent: a redelivered message asks no
 * model and writes nothing (the turn record keeps the first answer). A model outage or rate limit
 * retries with the queue's backoff up to MAX_TURN_ATTEMPTS deliveries; other failures are acknowledged.
 */
import type * as S from "../../contract";
import { toMs } from "../../contract";
import type { AppDeps } from "../deps";
import { type CommitmentsMessage, type QueueMessageLike, retryDelaySeconds } from "../lib/queue";
import { type In, iso } from "../lib/wire";

type Propose = (
  archive: string,
  b: In<typeof S.CommitmentsBody>,
  authorization: string | undefined,
) => Promise<{ ok: true } | { ok: false; error: { kind: string } }>;

/** Session events one turn's extraction reads (the newest last). */
export const TURN_WINDOW = 20;
/** Deliveries of one message before a retryable failure is acknowledged. */
export const MAX_TURN_ATTEMPTS = 5;

/** After an append: one message for the newest event, when a model is configured (else nothing). */
export async function queueTurn(
  d: AppDeps,
  archive: string,
  session: string,
  events: ReadonlyArray<{ at?: string | undefined }>,
): Promise<void> {
  if (!d.models.llm || events.length === 0) return;
  const now = d.clock.now();
  const at = Math.max(...events.map((e) => toMs(e.at) ?? now));
  const message: CommitmentsMessage = { kind: "commitments", archive, session, at };
  await d.intake.queue.send(message);
}

/** The queue consumer of `commitments` messages. */
export function turnConsumer(propose: Propose) {
  return {
    async consumeTurns(messages: readonly QueueMessageLike[]): Promise<void> {
      for (const m of messages) {
        const msg = m.body as CommitmentsMessage;
        let res: Awaited<ReturnType<Propose>>;
        try {
          res = await propose(
            msg.archive,
            { session: msg.session, last: TURN_WINDOW, as_of: iso(msg.at), per_turn: true, dry_run: false },
            undefined,
          );
        } catch {
          res = { ok: false, error: { kind: "unavailable" } };
        }
        if (res.ok || res.error.kind !== "unavailable" || m.attempts >= MAX_TURN_ATTEMPTS) m.ack();
        else m.retry({ delaySeconds: retryDelaySeconds(m.attempts) });
      }
    },
  };
}
