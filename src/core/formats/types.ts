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

/** A value the source gives a record that is not text: set as an annotation after the artifacts land. */
export interface PlanAnnotation {
  /** Chunk id as planned (renames by deduplication are followed). */
  chunk: string;
  key: string;
  /** Any JSON value; written only when it differs from the key's current value (re-imports add nothing). */
  value: unknown;
}

export interface ImportPlan {
  artifacts: ArtifactInput[];
  deprecations: Deprecation[];
  /** Optional: attributes kept as annotations (xKG's weights, package lists, positions). */
  annotations?: PlanAnnotation[];
  /** Records a parser could not use, with why; a malformed whole input is a Failure instead. */
  skipped: Array<{ ref: string; reason: string }>;
}

export const emptyPlan = (): ImportPlan => ({ artifacts: [], deprecations: [], skipped: [] });
