/**
 * The application layer: every use case of PaperGuru, grouped by resource. REST (src/http), MCP
 * (src/mcp), the queue consumer and cron (src/index.ts) call these and nothing else; each returns a
 * plain payload or a typed Result whose failures the interfaces map to their own error form.
 */

import type { z } from "zod";
import type * as S from "../contract";
import { annotationUseCases } from "./annotations";
import { archiveUseCases } from "./archives";
import { actorOf, authorize, type Need, readableArchives, whoami } from "./auth";
import { browseUseCases } from "./browse";
import { codePairUseCases } from "./code-pairs";
import type { AppDeps } from "./deps";
import { discoveryUseCases } from "./discovery";
import { eventUseCases } from "./events";
import { type ExportFormatQuery, exportUseCases } from "./exports";
import { forgetUseCases } from "./forget";
import { metricsUseCases } from "./metrics";
import * as Op from "./operations";
import { paperUseCases } from "./papers";
import { projectUseCases } from "./project";
import { researchUseCases } from "./research";
import { reviewUseCases } from "./review";
import { importUseCases, sourceUseCases, webhookUseCases } from "./world";

type In<T extends z.ZodType> = z.infer<T>;

export type { Need } from "./auth";
export type { AppDeps } from "./deps";
export type { ExportFormatQuery };

export function createUseCases(d: AppDeps) {
  const kernel = d.kernel;
  const reads = { discovery: d.stores.discovery, annotations: d.stores.annotations };
  return {
    /** Authorise an `Authorization` header value for an archive (or none) and a scope. */
    authorize: (authorization: string | undefined, archive: string | null, need: Need) =>
      authorize(d, authorization, archive, need),
    /** The archives an `Authorization` header value may read (MCP resources/list). */
    readableArchives: (authorization: string | undefined) => readableArchives(d, authorization),
    /** Who an `Authorization` header value is: the admin key or one archive key, with its archives and scopes. */
    whoami: (authorization: string | undefined) => whoami(d, authorization),
    archives: archiveUseCases(d),
    memory: {
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
            await d.intake.world.recreated(archive, created, await actorOf(d, authorization), d.clock.now());
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
    },
    query: {
      route: (archive: string, b: In<typeof S.RouteBody>) => Op.routeOp(kernel, d.stores.chunks, archive, b, reads),
      expand: (archive: string, b: In<typeof S.ExpandBody>) => Op.expandOp(kernel, d.stores.chunks, archive, b),
      context: (archive: string, b: In<typeof S.ContextBody>) =>
        Op.contextOp(kernel, d.stores.chunks, archive, b, reads),
      verify: (archive: string, b: In<typeof S.VerifyBody>) => Op.verifyOp(kernel, archive, b),
      appendSession: (archive: string, session: string, b: In<typeof S.SessionEventsBody>) =>
        Op.appendSessionOp(kernel, archive, session, b),
    },
    browse: browseUseCases(d),
    annotations: annotationUseCases(d),
    metrics: metricsUseCases(d),
    project: projectUseCases(d, browseUseCases(d)),
    codePairs: codePairUseCases(d),
    research: researchUseCases(d),
    papers: paperUseCases(d),
    webhooks: webhookUseCases(d),
    sources: sourceUseCases(d),
    imports: importUseCases(d),
    exports: exportUseCases(d),
    forget: forgetUseCases(d),
    discovery: discoveryUseCases(d),
    events: eventUseCases(d.events),
    review: reviewUseCases(d),
  };
}

export type UseCases = ReturnType<typeof createUseCases>;
