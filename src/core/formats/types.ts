/**
 * What every importer (files, webhooks, scheduled sources) produces: artifacts in the ingest format
 * plus the lifecycle changes the source reported. Pure data; the service applies it (dedup, batches
 * of at most 200, deprecations) and records the outcome in the ingest log.
 */
import type { ArtifactInput } from "../ingest";

export interface Deprecation {
  /** Chunk id to deprecate (it may not exist in the archive: then it is reported, not an error). */
  id: string;
  /** epoch ms; defaults to the time the service applies it */
  at?: number | undefined;
  /** Chunk that supersedes it (becomes a `deprecated-by` edge), if any. */
  by?: string | null | undefined;
  /** Why, in words a user will read in the chunk's history: "withdrawn on arXiv", "file deleted in abc123". */
  reason: string;
}

export interface ImportPlan {
  artifacts: ArtifactInput[];
  deprecations: Deprecation[];
  /** Records a parser could not use, with why; a malformed whole input is a Failure instead. */
  skipped: Array<{ ref: string; reason: string }>;
}

export const emptyPlan = (): ImportPlan => ({ artifacts: [], deprecations: [], skipped: [] });
