/**
 * Embedding spaces (docs/models.md, "Embeddings from an endpoint"). Vectors of two models, or of one
 * model at two dimensions, cannot be compared: a cosine between them is noise that ranks like a
 * signal. Each archive records the space its vectors and head sketches are in (the embedder's model
 * id and dimension, set at its first embedded ingest); this module decides, from that record and the
 * configured embedder, what ingest and queries may do. Pure: the application layer reads the record
 * (src/app/vector-space.ts) and acts on the plan.
 */
import type { ArchiveSpaceState, EmbeddingSpace } from "../types";

/** The model id recorded for an archive whose index held vectors before spaces were recorded. */
export const UNKNOWN_MODEL = "unknown";

export const sameSpace = (a: EmbeddingSpace, b: EmbeddingSpace): boolean => a.model === b.model && a.dims === b.dims;

export const spaceLabel = (s: EmbeddingSpace): string => `${s.model} (${s.dims} dims)`;

/** The text a head is embedded from: at ingest, at a re-embed and for its sketch alike. */
export const headText = (title: string, synopsis: string): string => `${title}. ${synopsis}`;

/**
 * - `current`: the archive's vectors are in the configured embedder's space.
 * - `unrecorded`: no vector yet; the first embedded ingest records the configured space.
 * - `stale`: another space, or some heads without a vector in it; a re-embed is due.
 * - `reembedding`: a re-embed into the configured space is running.
 */
export type SpaceStatus = "current" | "unrecorded" | "stale" | "reembedding";

export interface SpacePlan {
  status: SpaceStatus;
  /**
   * Queries may embed the question, ask the vector index and compare head sketches. False: routing
   * answers from the lexical, entity, graph and recency experts alone.
   */
  semantic: boolean;
  /** Ingest writes its head vectors to the index (they are in the space the index holds or is rebuilt in). */
  writeVectors: boolean;
  /** Ingest records the configured space first (the archive has none yet). */
  record: boolean;
}

/**
 * What ingest and queries may do for an archive in `state` with the embedder `configured`:
 * - no record: record the configured space, then as `current`;
 * - a re-embed running: no semantic seeds until it switches the space; ingest writes its vectors
 *   when they are in the job's target space (the job does not revisit heads it has passed);
 * - the recorded space is the configured one: everything, unless some heads are stale (then no
 *   semantic seeds, but ingest still writes vectors: they are in the right space);
 * - another space: no semantic seeds, and ingest writes no vector (the index holds the other
 *   space, possibly at another dimension); the archive is marked stale.
 */
export function planSpace(state: ArchiveSpaceState, configured: EmbeddingSpace): SpacePlan {
  if (state.job) {
    const into = sameSpace(state.job.target, configured);
    return { status: into ? "reembedding" : "stale", semantic: false, writeVectors: into, record: false };
  }
  if (!state.space) return { status: "unrecorded", semantic: true, writeVectors: true, record: true };
  if (!sameSpace(state.space, configured))
    return { status: "stale", semantic: false, writeVectors: false, record: false };
  if (state.staleSince !== null) return { status: "stale", semantic: false, writeVectors: true, record: false };
  return { status: "current", semantic: true, writeVectors: true, record: false };
}

/** Heads a re-embed message carries: one embedding request (OpenAiEmbedder sends 96 texts at a time). */
export const REEMBED_PAGE = 96;
/** Attempts of one page before the job fails (the queue retries with backoff in between). */
export const REEMBED_ATTEMPTS = 5;
/** A running job that has not moved for this long lost its message: the cron (or a POST) sends it again. */
export const REEMBED_STALL_MS = 10 * 60_000;
/** Errors a job keeps (the latest). */
export const REEMBED_ERRORS_KEPT = 10;
