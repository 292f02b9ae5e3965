/**
 * Memory use cases: write and revise artifacts, deprecate them, name entities (alias, rename,
 * merge), and read their history, neighbours and resolution (src/app/operations.ts does the work).
 */
import type { z } from "zod";
import type * as S from "../contract";
import { actorOf } from "./auth";
import type { AppDeps } from "./deps";
import { recordExplicitCreates } from "./intake/tombstones";
import * as Op from "./operations";

type In<T extends z.ZodType> = z.infer<T>;

export function memoryUseCases(d: AppDeps) {
  const kernel = d.kernel;
  return {
    ingest: (archive: string, artifacts: In<typeof S.ArtifactSchema>[]) => Op.ingestOp(kernel, archive, artifacts),
    /**
     * POST /ingest with its options (near_duplicates: revise): an explicit write, so an id deleted
     * before is created again, and its tombstone records when and by whom.
     */
    ingestBatch: async (archive: string, b: In<typeof S.IngestBody>, authorization?: string | undefined) => {
      const res = await (b.near_duplicates === "revise"
        ? Op.ingestRevisingOp(kernel, d.stores.chunks, archive, b, d.clock.now())
        : Op.ingestOp(kernel, archive, b.artifacts));
      if (res.ok) {
        const created = res.value.results.filter((r) => r.status === "created").map((r) => r.id);
        if (created.length)
          await recordExplicitCreates(d.intake.world, archive, created, await actorOf(d, authorization), d.clock.now());
      }
      return res;
    },
    revise: (archive: string, artifact: In<typeof S.ArtifactSchema>) =>
      Op.reviseOp(kernel, d.stores.chunks, archive, artifact),
    deprecate: (archive: string, b: In<typeof S.DeprecateBody>) => Op.deprecateOp(kernel, archive, b),
    alias: (archive: string, b: In<typeof S.AliasBody>) =>
      Op.entityOp(kernel, archive, { op: "alias", entity: b.entity, alias: b.alias, at: b.at }),
    rename: (archive: string, b: In<typeof S.RenameBody>) =>
      Op.entityOp(kernel, archive, { op: "rename", entity: b.entity, newName: b.new_name, at: b.at }),
    merge: (archive: string, b: In<typeof S.MergeBody>) =>
      Op.entityOp(kernel, archive, { op: "merge", entity: b.entity, into: b.into, at: b.at }),
    history: (archive: string, q: In<typeof S.HistoryQuery>) =>
      Op.historyOp(
        {
          chunkHistory: (a, c) => d.stores.chunks.chunkHistory(a, c),
          entityHistory: (a, e) => d.stores.entities.entityHistory(a, e),
        },
        archive,
        q,
      ),
    neighbours: (archive: string, q: In<typeof S.ChunkQuery>) => Op.neighboursOp(kernel, archive, q),
    resolve: (archive: string, q: In<typeof S.ResolveQuery>) => Op.resolveOp(kernel, archive, q),
  };
}
