/**
 * Which embedding space each archive's vectors are in, and the re-embeds that move it.
 * Records follow the storage conventions of ./storage.ts.
 */
import type { ArchiveSpaceState, EmbeddingSpace } from "../types";

/** A re-embed of an archive into one embedding space (src/app/reembed.ts). */
export interface ReembedJobRecord {
  id: number;
  archiveId: string;
  status: "running" | "done" | "failed";
  /** The space it writes: the embedder configured when it started. */
  target: EmbeddingSpace;
  /** The archive's space when it started (null: none recorded). */
  from: EmbeddingSpace | null;
  /** Chunks the archive held when it started. */
  total: number;
  /** Heads re-embedded so far. */
  done: number;
  /** Chunks of a page that were gone (forgotten) by the time it ran. */
  removed: number;
  pages: number;
  /** The last chunk id of the last page done; the next page starts after it (null: none yet). */
  cursor: string | null;
  /** Failed attempts of the page in flight. */
  attempts: number;
  /** A head was written meanwhile without a vector in the target space: the new space starts stale. */
  targetStale: boolean;
  /** The latest errors, oldest first. */
  errors: Array<{ at: number; message: string }>;
  startedAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

/** A chunk's latest version as a re-embed reads it. */
export interface HeadRow {
  chunkId: string;
  /** Its id in the vector index (the chunk id, or a hash of a long one). */
  vectorId: string;
  version: number;
  title: string;
  synopsis: string;
}

/** Which embedding space each archive's vectors are in, and the re-embeds that move it. */
export interface EmbeddingStore {
  /** The archive's recorded space, stale mark and running job; null when the archive does not exist. */
  state(archiveId: string): Promise<ArchiveSpaceState | null>;
  /** Record the space when none is recorded yet (a concurrent first record wins; read the state after). */
  adopt(archiveId: string, space: EmbeddingSpace): Promise<void>;
  /**
   * Heads were written without a vector in the archive's space: mark the archive stale (an earlier
   * mark keeps its time) and a running job's target too, in one batch.
   */
  markStale(archiveId: string, at: number): Promise<void>;
  /**
   * Start a job at `at` and mark the archive stale (its index is rewritten in place); null when one
   * is running already (the unique index decides between two racing starts).
   */
  startJob(
    archiveId: string,
    target: EmbeddingSpace,
    from: EmbeddingSpace | null,
    total: number,
    at: number,
  ): Promise<ReembedJobRecord | null>;
  job(id: number): Promise<ReembedJobRecord | null>;
  latestJob(archiveId: string): Promise<ReembedJobRecord | null>;
  /** Running jobs not updated since `before` (their message was lost), oldest first. */
  stalledJobs(before: number, limit: number): Promise<ReembedJobRecord[]>;
  /**
   * A page is done: move the cursor from `after` to `cursor` and add the counts, only while the
   * cursor is still `after`; false when another delivery of the page moved it first.
   */
  advance(
    id: number,
    after: string | null,
    cursor: string,
    counts: { done: number; removed: number },
    at: number,
  ): Promise<boolean>;
  /** A failed attempt of the page in flight (the latest errors are kept); `fail` ends the job as failed. */
  recordError(id: number, message: string, at: number, fail: boolean): Promise<void>;
  /** Touch a running job (its message was sent again), so the stall check waits again. */
  touch(id: number, at: number): Promise<void>;
  /**
   * The job is done: in one batch it ends, and the archive's space becomes its target, stale from
   * `at` if a head was written meanwhile without a vector in it (else not stale).
   */
  finish(id: number, at: number): Promise<void>;
  /** How many chunks the archive holds. */
  countHeads(archiveId: string): Promise<number>;
  /** Chunk ids strictly after `after` (null: from the first), in id order, at most `limit`. */
  headIds(archiveId: string, after: string | null, limit: number): Promise<string[]>;
  /** The latest version's head fields of these chunks; missing (forgotten) chunks are left out. */
  heads(archiveId: string, ids: string[]): Promise<HeadRow[]>;
  /**
   * Append a `head.sketch` change per head, each only if its version is still the chunk's latest (a
   * newer version has its own sketch; a forgotten chunk gets none), in one batch.
   */
  writeSketches(
    archiveId: string,
    sketches: Array<{ chunk: string; version: number; sketch: string }>,
    at: number,
  ): Promise<void>;
}
