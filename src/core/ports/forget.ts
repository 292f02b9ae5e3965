/**
 * Hard deletes: what one removed from the source of truth, its audit row, and the purge of what lives
 * elsewhere.
 * Records follow the storage conventions of ./storage.ts.
 */

/** A version's content by its blob key (to re-hash versions a delete rewrites); null when missing. */
export type ContentOf = (contentKey: string) => Promise<string | null>;

/** What one hard delete removed from the source of truth, and what the caller must purge elsewhere. */
export interface ForgetReport {
  /** The audit row written with the delete. */
  auditId: number;
  versions: number;
  edges: number;
  /** Declared entities removed because nothing left mentions them (or the entity deleted). */
  entities: string[];
  /** Change-log entries dropped or rewritten, so no rebuild replays the deleted data. */
  logOps: number;
  /** Content objects no remaining version references (to delete from the blob store). */
  contentKeys: string[];
  /** Vector ids to delete from the archive's namespace. */
  vectorIds: string[];
  /** Rows removed from every other table (archive deletes: keys, webhooks, sources, ...). */
  rows: number;
  /** Annotations of other chunks rewritten or removed because they named the chunk. */
  annotations?: number;
}

/** An audit row of a hard delete; `counts` (never content) reads as {} when its text is not JSON. */
export interface DeletionRecord {
  id: number;
  archiveId: string;
  target: "chunk" | "entity" | "archive";
  targetId: string;
  actor: string;
  at: number;
  counts: Record<string, number>;
  /** A deleted chunk id created again by an explicit ingest: when and by whom. */
  recreated?: { at: number; by: string } | null;
}

/**
 * What a committed hard delete still has to remove outside D1, recorded in its own transaction so a
 * crash between the steps leaves a durable record to finish from (src/app/forget.ts).
 */
export interface PurgePlan {
  /** Who deleted (the audit row's actor): copies deleted on resume are theirs too. */
  actor: string;
  /** The delete's answer, as it was first given (a repeat of the delete answers it again). */
  report: Omit<ForgetReport, "auditId">;
  /** Content objects the deleted versions referenced, and raw bodies: the ones no version still references go. */
  contentKeys: string[];
  /** Vector ids of the deleted chunks; one whose chunk id was created again since stays. */
  vectorIds: string[];
  /** Chunks quoting the deleted one (hubs), deleted with it. */
  copies: string[];
  /** Every blob of the archive goes (an archive delete). */
  everything: boolean;
}

/** A hard delete whose purge has not finished. */
export interface PendingPurge {
  auditId: number;
  archiveId: string;
  target: DeletionRecord["target"];
  targetId: string;
  plan: PurgePlan;
  createdAt: number;
}

/**
 * Hard deletes. Each runs as one D1 transaction that removes the rows, drops or rewrites every
 * change-log entry that would bring the data back on a capital-chunk rebuild, removes the capital
 * snapshots (they hold the old state) and writes the audit row; the caller then purges blobs,
 * vectors and the in-memory capital chunk. Returns null when the target does not exist.
 */
export interface ForgetStore {
  /** `copies` are recorded in the delete's pending purge (quotingCopies, read before). */
  forgetChunk(
    archiveId: string,
    chunkId: string,
    actor: string,
    now: number,
    contentOf: ContentOf,
    copies?: string[],
  ): Promise<ForgetReport | null>;
  forgetEntity(
    archiveId: string,
    entityId: string,
    actor: string,
    now: number,
    contentOf: ContentOf,
  ): Promise<ForgetReport | null>;
  forgetArchive(archiveId: string, actor: string, now: number): Promise<ForgetReport | null>;
  /** Chunks whose content quotes the chunk (hubs citing it), to delete with it. */
  quotingCopies(archiveId: string, chunkId: string): Promise<string[]>;
  /** Snapshot rows written since (a racing snapshot of the old in-memory state): removed. */
  dropSnapshots(archiveId: string): Promise<void>;
  deletions(archiveId: string, limit: number): Promise<DeletionRecord[]>;
  /** Unfinished purges, oldest first: of one target when given, else of every archive. */
  pendingPurges(
    limit: number,
    of?: { archiveId: string; target: DeletionRecord["target"]; targetId: string },
  ): Promise<PendingPurge[]>;
  /** The purge of this delete finished: its record goes. */
  purged(auditId: number): Promise<void>;
  /** Of these content objects, the ones no version of the archive references. */
  unreferenced(archiveId: string, keys: string[]): Promise<string[]>;
  /** Of these vector ids, the ones a chunk of the archive holds (its id was created again after a delete). */
  vectorsInUse(archiveId: string, vectorIds: string[]): Promise<Set<string>>;
}
