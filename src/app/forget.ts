/**
 * Hard deletes: a chunk with all its versions, an entity with its mentions, a whole archive. D1 goes
 * first in one transaction (rows, change-log scrub, snapshots, audit row, tombstone and the pending
 * purge: what is left outside D1); then the purge runs its steps (the capital shards' storage,
 * content blobs and snapshot blobs, vectors, quoting copies, snapshot rows a racing sync may have
 * written, the chunk.deleted event) and removes the pending record. Every step is idempotent, so a
 * crash between two steps is finished by whoever comes next: a second delete of the target (which
 * answers as the first did), the first request of a new isolate, or a cron tick (`resume`).
 * Deprecation stays the non-destructive path.
 */
import { fail, ok, type Result } from "../core/errors";
import type { DeletionRecord, ForgetReport, PendingPurge } from "../core/ports";
import { actorOf } from "./auth";
import type { AppDeps } from "./deps";

type Target = DeletionRecord["target"];

/** Unfinished purges finished per `resume` call (each cron tick, each new isolate's first request). */
export const RESUME_BATCH = 20;

function view(target: Target, id: string, r: ForgetReport, blobs: number, copies: string[]) {
  return {
    deleted: {
      target,
      id,
      versions: r.versions,
      edges: r.edges,
      entities: r.entities,
      log_ops: r.logOps,
      content_objects: blobs,
      vectors: r.vectorIds.length,
      annotations: r.annotations ?? 0,
      copies,
    },
    audit_id: r.auditId,
  };
}

export function forgetUseCases(d: AppDeps) {
  const forget = d.stores.forget;

  /** The purge of one committed delete, step by step; the pending record goes last. */
  async function finish(p: PendingPurge): Promise<number> {
    const { archiveId: archive, plan } = p;
    const keys = plan.everything ? [] : await forget.unreferenced(archive, plan.contentKeys);
    // A vector whose chunk id was created again since (an explicit re-create) is the new chunk's.
    const inUse = plan.vectorIds.length ? await forget.vectorsInUse(archive, plan.vectorIds) : new Set<string>();
    const blobs = await d.kernel.purge(archive, {
      contentKeys: keys,
      vectorIds: plan.vectorIds.filter((v) => !inUse.has(v)),
      everything: plan.everything,
    });
    for (const copy of plan.copies) {
      // Deleted now, or by an earlier attempt: either way its own pending record finishes it.
      await forget.forgetChunk(archive, copy, plan.actor, d.clock.now(), d.kernel.contentOf);
      for (const q of await forget.pendingPurges(1, { archiveId: archive, target: "chunk", targetId: copy }))
        await finish(q);
    }
    await forget.dropSnapshots(archive);
    if (p.target === "chunk")
      await d.intake.events.emit(archive, "chunk.deleted", {
        id: p.targetId,
        versions: plan.report.versions,
        audit_id: p.auditId,
      });
    await forget.purged(p.auditId);
    return blobs;
  }

  async function run(
    archive: string,
    target: Target,
    id: string,
    authorization: string | undefined,
    step: (actor: string, now: number, copies: string[]) => Promise<ForgetReport | null>,
  ): Promise<Result<ReturnType<typeof view>>> {
    // Chunks PaperGuru wrote by quoting this one (hubs) go with it, each with its own audit row.
    const copies = target === "chunk" ? await forget.quotingCopies(archive, id) : [];
    const actor = await actorOf(d, authorization);
    const r = await step(actor, d.clock.now(), copies);
    // Committed, unless the delete already committed before and its purge was interrupted: either
    // way the pending record says what is left, and the answer is the delete's own.
    const [p] = await forget.pendingPurges(1, { archiveId: archive, target, targetId: id });
    if (!p) {
      if (!r) return fail("not_found", `${target} ${id} does not exist in archive ${archive}`, target);
      // A concurrent repeat of the delete finished the purge between the commit and this read.
      return ok(view(target, id, r, 0, copies));
    }
    const blobs = await finish(p);
    return ok(view(target, id, { auditId: p.auditId, ...p.plan.report }, blobs, p.plan.copies));
  }

  const rows = (list: DeletionRecord[]) => ({
    deletions: list.map((r) => ({
      id: r.id,
      archive: r.archiveId,
      target: r.target,
      target_id: r.targetId,
      actor: r.actor,
      at: new Date(r.at).toISOString(),
      counts: r.counts,
      recreated: r.recreated ? { at: new Date(r.recreated.at).toISOString(), by: r.recreated.by } : null,
    })),
  });
  return {
    chunk: (archive: string, chunk: string, authorization: string | undefined) =>
      run(archive, "chunk", chunk, authorization, (actor, now, copies) =>
        forget.forgetChunk(archive, chunk, actor, now, d.kernel.contentOf, copies),
      ),
    entity: (archive: string, entity: string, authorization: string | undefined) =>
      run(archive, "entity", entity, authorization, (actor, now) =>
        forget.forgetEntity(archive, entity, actor, now, d.kernel.contentOf),
      ),
    archive: (archive: string, authorization: string | undefined) =>
      run(archive, "archive", archive, authorization, (actor, now) => forget.forgetArchive(archive, actor, now)),
    deletions: async (archive: string, limit: number) => rows(await forget.deletions(archive, limit)),
    /**
     * Finish purges a crash interrupted, oldest first, at most RESUME_BATCH per call; one that fails
     * again stays pending for the next call. Answers how many finished and how many are left failing.
     */
    resume: async (): Promise<{ finished: number; failed: number }> => {
      let finished = 0;
      let failed = 0;
      for (const p of await forget.pendingPurges(RESUME_BATCH)) {
        try {
          await finish(p);
          finished++;
        } catch (err) {
          failed++;
          console.error(`resume purge ${p.auditId} (${p.target} ${p.targetId}): ${String(err)}`);
        }
      }
      return { finished, failed };
    },
  };
}
