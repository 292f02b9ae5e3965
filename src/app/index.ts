/**
 * The application layer: every use case of PaperGuru, grouped by resource. REST (src/http), MCP
 * (src/mcp), the queue consumer and cron (src/index.ts) call these and nothing else; each returns a
 * plain payload or a typed Result whose failures the interfaces map to their own error form.
 */

import { accessUseCases } from "./access";
import { annotationUseCases } from "./annotations";
import { archiveUseCases } from "./archives";
import { authorize, type Need, readableArchives, whoami } from "./auth";
import { browseUseCases } from "./browse";
import { codePairUseCases } from "./code-pairs";
import type { AppDeps } from "./deps";
import { discoveryUseCases } from "./discovery";
import { eventUseCases } from "./events";
import { type ExportFormatQuery, exportUseCases } from "./exports";
import { extractUseCases } from "./extract";
import { forgetUseCases } from "./forget";
import { importUseCases, sourceUseCases, webhookUseCases } from "./intake/world";
import { memoryUseCases } from "./memory";
import { metricsUseCases } from "./metrics";
import { paperbenchUseCases } from "./paperbench";
import { paperUseCases } from "./papers";
import { projectUseCases } from "./project";
import { queryUseCases } from "./query";
import { readmePaperUseCases } from "./readme-paper";
import { reembedUseCases } from "./reembed";
import { researchUseCases } from "./research";
import { reviewUseCases } from "./review";
import { techniqueRewriteUseCases } from "./technique-rewrite";
import { techniqueUseCases } from "./techniques";

export type { Need } from "./auth";
export type { AppDeps } from "./deps";
export type { ExportFormatQuery };

export function createUseCases(d: AppDeps) {
  return {
    /** Authorise an `Authorization` header value for an archive (or none) and a scope. */
    authorize: (authorization: string | undefined, archive: string | null, need: Need) =>
      authorize(d, authorization, archive, need),
    /** The archives an `Authorization` header value may read (MCP resources/list). */
    readableArchives: (authorization: string | undefined) => readableArchives(d, authorization),
    /** Who an `Authorization` header value is: the admin key or one archive key, with its archives and scopes. */
    whoami: (authorization: string | undefined) => whoami(d, authorization),
    archives: archiveUseCases(d),
    memory: memoryUseCases(d),
    query: queryUseCases(d),
    browse: browseUseCases(d),
    annotations: annotationUseCases(d),
    /** Access counts per channel (routing, expansion, verification) per session or chunk. */
    access: accessUseCases(d),
    metrics: metricsUseCases(d),
    project: projectUseCases(d, browseUseCases(d)),
    codePairs: codePairUseCases(d),
    techniques: { ...techniqueUseCases(d), ...techniqueRewriteUseCases(d) },
    research: researchUseCases(d),
    papers: paperUseCases(d),
    /** PaperBench rubric trees scored from leaf grades or the leaf judge. */
    paperbench: paperbenchUseCases(d),
    webhooks: webhookUseCases(d),
    sources: sourceUseCases(d),
    imports: importUseCases(d),
    exports: exportUseCases(d),
    forget: forgetUseCases(d),
    discovery: discoveryUseCases(d),
    events: eventUseCases(d.events),
    /** Extraction at ingest: the queue consumer of `extract` messages. */
    extract: extractUseCases(d),
    review: reviewUseCases(d),
    /** Re-embedding an archive into the configured embedder's space (a queued job). */
    reembed: reembedUseCases(d),
    /** README -> paper by the model (xKG App. C.2): the queue consumer of `readme_paper` messages. */
    readmePapers: readmePaperUseCases(d),
  };
}

export type UseCases = ReturnType<typeof createUseCases>;
