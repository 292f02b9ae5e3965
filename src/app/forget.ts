/**
 * Hard deletes: a chunk with all its versions, an entity with its mentions, a whole archive. D1 goes
 * first in one transaction (rows, change-log scrub, snapshots, audit row); then the capital chunk's
 * memory, blobs and vectors are purged; then snapshot rows a racing sync may have written from the
 * old in-memory state are dropped. Deprecation stays the non-destructive path.
 */
import { fail, ok, type Result } from "../core/errors";
import type { DeletionRecord, ForgetReport } from "../core/ports";
import { actorOf } from "./auth";
import type { AppDeps } from "./deps";

type Target = DeletionRecord["target"];

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
  async function run(
    archive: string,
    target: Target,
    id: string,
    authorization: string | undefined,
    step: (actor: string, now: number) => Promise<ForgetReport | null>,
  ): Promise<Result<ReturnType<typeof view>>> {
    // Chunks PaperGuru wrote by quoting this one (hubs) go with it, each with its own audit row.
    const copies = target === "chunk" ? await forget.quotingCopies(archive, id) : [];
    const actor = await actorOf(d, authorization);
    const r = await step(actor, d.clock.now());
    if (!r) return fail("not_found", `${target} ${id} does not exist in archive ${archive}`, target);
    const blobs = await purge(archive, target, id, r);
    for (const copy of copies) {
      const c = await forget.forgetChunk(archive, copy, actor, d.clock.now(), d.kernel.contentOf);
      if (c) await purge(archive, "chunk", copy, c);
    }
    await forget.dropSnapshots(archive);
    return ok(view(target, id, r, blobs, copies));
  }
  async function purge(archive: string, target: Target, id: string, r: ForgetReport): Promise<number> {
    const blobs = await d.kernel.purge(archive, {
      contentKeys: r.contentKeys,
      vectorIds: r.vectorIds,
      everything: target === "archive",
    });
    if (target === "chunk")
      await d.intake.events.emit(archive, "chunk.deleted", { id, versions: r.versions, audit_id: r.auditId });
    return blobs;
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
      run(archive, "chunk", chunk, authorization, (actor, now) =>
        forget.forgetChunk(archive, chunk, actor, now, d.kernel.contentOf),
      ),
    entity: (archive: string, entity: string, authorization: string | undefined) =>
      run(archive, "entity", entity, authorization, (actor, now) =>
        forget.forgetEntity(archive, entity, actor, now, d.kernel.contentOf),
      ),
    archive: (archive: string, authorization: string | undefined) =>
      run(archive, "archive", archive, authorization, (actor, now) => forget.forgetArchive(archive, actor, now)),
    deletions: async (archive: string, limit: number) => rows(await forget.deletions(archive, limit)),
  };
}
