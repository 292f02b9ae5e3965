/**
 * Re-embedding an archive into the configured embedder's space (docs/models.md, "Embeddings from
 * an endpoint"), as a queued job. POST starts it: the archive is marked stale (queries skip
 * semantic seeds until it finishes), a local index of another dimension is emptied, and the first
 * page of chunk ids (96, one embedding request) goes to the queue. Each message re-embeds its page
 * (Kernel.reembedHeads), moves the job's cursor and sends the next page; after the last one the
 * archive's recorded space becomes the job's, in one batch with the job's end. A message whose page
 * is not the one after the cursor (a duplicate delivery) does nothing; a failed page is retried
 * with backoff, 5 times, then the job fails and the archive stays stale. A job whose message was
 * lost is sent again by the cron after 10 minutes without progress (or by a POST).
 */
import type * as S from "../contract";
import {
  planSpace,
  REEMBED_ATTEMPTS,
  REEMBED_PAGE,
  REEMBED_STALL_MS,
  sameSpace,
  spaceLabel,
} from "../core/embed/space";
import { fail, ok, type Result } from "../core/errors";
import type { ReembedJobRecord } from "../core/ports";
import type { ArchiveSpaceState } from "../core/types";
import type { AppDeps } from "./deps";
import { type QueueMessageLike, type ReembedMessage, retryDelaySeconds } from "./lib/queue";
import { type In, iso, isoOrNull } from "./lib/wire";

function jobView(j: ReembedJobRecord): In<typeof S.ReembedJobSchema> {
  return {
    id: j.id,
    status: j.status,
    target: j.target,
    from: j.from,
    done: j.done,
    total: j.total,
    removed: j.removed,
    pages: j.pages,
    started_at: iso(j.startedAt),
    updated_at: iso(j.updatedAt),
    finished_at: isoOrNull(j.finishedAt),
    errors: j.errors.map((e) => ({ at: iso(e.at), message: e.message })),
  };
}

export function reembedUseCases(d: AppDeps) {
  const store = d.stores.embedding;
  const queue = d.intake.queue;
  const now = () => d.clock.now();

  function guard() {
    const spaces = d.kernel.spaces;
    if (!spaces)
      return fail("unavailable", "this deployment has no embedding space guard", "EMBEDDER", "see docs/models.md");
    return ok(spaces);
  }

  function statusView(archive: string, state: ArchiveSpaceState, job: ReembedJobRecord | null) {
    const spaces = d.kernel.spaces;
    const embedder = spaces?.configured ?? { model: "", dims: 0 };
    return {
      archive,
      embedding: {
        status: planSpace(state, embedder).status,
        archive: state.space,
        embedder,
        stale_since: isoOrNull(state.staleSince),
      },
      job: job ? jobView(job) : null,
    };
  }

  /** Send the page after the job's cursor, or finish the job when there is none. */
  async function sendNext(job: ReembedJobRecord, after: string | null): Promise<void> {
    const ids = await store.headIds(job.archiveId, after, REEMBED_PAGE);
    if (ids.length === 0) {
      await store.finish(job.id, now());
      return;
    }
    const message: ReembedMessage = { kind: "reembed", archive: job.archiveId, job: job.id, after, ids };
    await queue.send(message);
  }

  async function status(archive: string): Promise<Result<In<typeof S.ReembedStatus>>> {
    const state = await store.state(archive);
    if (!state) return fail("not_found", `archive ${archive} does not exist`, "archive");
    const job = state.job ? await store.job(state.job.id) : await store.latestJob(archive);
    return ok(statusView(archive, state, job));
  }

  /** One page: re-embed it, move the cursor, send the next (or finish). Throws to retry. */
  async function page(msg: ReembedMessage): Promise<void> {
    const job = await store.job(msg.job);
    if (!job || job.archiveId !== msg.archive || job.status !== "running") return;
    const last = msg.ids[msg.ids.length - 1] ?? null;
    // This page is done but the next was not sent (a failure between the two): send it again.
    if (last !== null && job.cursor === last && job.cursor !== msg.after) return sendNext(job, last);
    if (job.cursor !== msg.after || last === null) return;
    const spaces = d.kernel.spaces;
    if (!spaces || !sameSpace(spaces.configured, job.target))
      throw new Error(
        `this Worker's embedder is ${spaces ? spaceLabel(spaces.configured) : "none"}; the job re-embeds into ${spaceLabel(job.target)} (EMBEDDER changed while it ran: start it again)`,
      );
    const res = await d.kernel.reembedHeads(msg.archive, msg.ids);
    if (!(await store.advance(job.id, msg.after, last, { done: res.embedded, removed: res.removed }, now()))) return;
    await sendNext(job, last);
  }

  return {
    status,

    /**
     * Start a re-embed into the configured embedder's space. Idempotent: while one runs, answers it
     * (started: false), sending its page again if it has stalled; an archive already in the space
     * (and not stale) is left alone unless `force`.
     */
    async start(archive: string, b: In<typeof S.ReembedBody>): Promise<Result<In<typeof S.ReembedStarted>>> {
      const g = guard();
      if (!g.ok) return g;
      const spaces = g.value;
      // The dimension check first: a fixed index of another dimension can never hold the new space.
      await spaces.shape(archive);
      const state = await store.state(archive);
      if (!state) return fail("not_found", `archive ${archive} does not exist`, "archive");
      const target = spaces.configured;
      if (state.job) {
        const running = await store.job(state.job.id);
        if (running && !sameSpace(running.target, target))
          return fail(
            "conflict",
            `a re-embed into ${spaceLabel(running.target)} is running, but the embedder is now ${spaceLabel(target)}`,
            "EMBEDDER",
            "it fails once its pages meet the new embedder; start again after that (GET .../reembed shows it)",
          );
        if (running && running.updatedAt < now() - REEMBED_STALL_MS) {
          await store.touch(running.id, now());
          await sendNext(running, running.cursor);
        }
        return ok({ started: false, ...statusView(archive, state, running) });
      }
      if (!b.force && state.space && sameSpace(state.space, target) && state.staleSince === null)
        return ok({ started: false, ...statusView(archive, state, await store.latestJob(archive)) });
      const total = await store.countHeads(archive);
      const job = await store.startJob(archive, target, state.space, total, now());
      // Another start won the race: answer its job.
      if (!job) return status(archive).then((r) => (r.ok ? ok({ started: false, ...r.value }) : r));
      await spaces.prepareIndex(archive);
      await sendNext(job, null);
      const after = await status(archive);
      return after.ok ? ok({ started: true, ...after.value }) : after;
    },

    /** The queue consumer for re-embed pages: retry with backoff, the job fails after the last attempt. */
    async consume(messages: readonly QueueMessageLike[]): Promise<void> {
      for (const m of messages) {
        const msg = m.body as ReembedMessage;
        try {
          await page(msg);
          m.ack();
        } catch (e) {
          const job = await store.job(msg.job);
          const attempts = (job?.attempts ?? 0) + 1;
          const dead = attempts >= REEMBED_ATTEMPTS;
          const message = e instanceof Error ? e.message : String(e);
          await store.recordError(msg.job, message, now(), dead);
          if (dead) m.ack();
          else m.retry({ delaySeconds: retryDelaySeconds(attempts) });
        }
      }
    },

    /** Cron: running jobs without progress for 10 minutes lost their message; send their page again. */
    async reconcile(): Promise<number> {
      const stalled = await store.stalledJobs(now() - REEMBED_STALL_MS, 10);
      for (const job of stalled) {
        await store.touch(job.id, now());
        await sendNext(job, job.cursor);
      }
      return stalled.length;
    },
  };
}
