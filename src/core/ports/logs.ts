/**
 * Agent sessions (short-term events) and the access log (recency); the change log the capital chunk
 * replays, and its snapshots.
 * Records follow the storage conventions of ./storage.ts.
 */
import type { DerivedAt } from "../capital/records";
import type { ChangeOp } from "../types";
import type { SnapshotRecord } from "./chunks";
import type { AccessLog, SessionEvent, SessionStore } from "./services";

/** Access counts per channel for one group (a session, null for none, or a chunk). */
export interface AccessCountRow {
  key: string | null;
  routing: number;
  expansion: number;
  verification: number;
  total: number;
  last: number;
}

export interface AccessCountQuery {
  by: "session" | "chunk";
  sessionId?: string | undefined;
  chunkId?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
  limit: number;
  offset: number;
}

export interface SessionLog extends SessionStore, AccessLog {
  /**
   * Access counts per channel grouped by session or chunk (most accesses first, ties by key; null
   * first), one page, with the totals over every matching access and the number of groups.
   */
  accessCounts(
    archiveId: string,
    q: AccessCountQuery,
  ): Promise<{ totals: Omit<AccessCountRow, "key" | "last">; groups: number; rows: AccessCountRow[] }>;
  appendSession(
    archiveId: string,
    sessionId: string,
    events: Array<{ role: string; text: string; tokens: number; at: number }>,
  ): Promise<void>;
  recent(archiveId: string, sessionId: string, asOf: number, limit: number): Promise<SessionEvent[]>;
}

/** A shard of an archive's capital chunk beyond the first (which holds everything from 0 on). */
export interface ShardRecord {
  shard: number;
  /** The shard holds the nodes whose ids first appear at or after this change-log position. */
  firstSeq: number;
}

export interface DerivedMark {
  epoch: number;
  seq: number;
}

export interface ChangeLog {
  readLog(archiveId: string, afterSeq: number, limit: number): Promise<Array<{ seq: number; op: ChangeOp }>>;
  /**
   * The changes after `afterSeq` and before `beforeSeq`, at most `limit`, each as
   * `beforeWindow` (core/capital/split.ts) leaves it: what a shard that derives nothing needs of
   * the changes before its window, without a head's terms, sketch and names.
   */
  readLogBefore(
    archiveId: string,
    afterSeq: number,
    beforeSeq: number,
    limit: number,
  ): Promise<Array<{ seq: number; op: ChangeOp }>>;
  /** The changes at these positions, whole (those not in the log are left out), in order. */
  readLogAt(archiveId: string, seqs: readonly number[]): Promise<Array<{ seq: number; op: ChangeOp }>>;
  /** The archive's shards beyond the first, in order. */
  shards(archiveId: string): Promise<ShardRecord[]>;
  /**
   * Open shard `shard` (idempotent): its first position is past every change committed so far,
   * chosen and written in one statement, so no change it covers was applied before it existed.
   */
  openShard(archiveId: string, shard: number, at: number): Promise<void>;
  /**
   * How far the names shard of a sharded archive has derived edges: every change up to `seq`, under
   * `epoch` (both 0 before it ever has). A hard delete bumps the epoch and starts again from 0.
   */
  derivedMark(archiveId: string): Promise<DerivedMark>;
  /** The derived edges of this epoch at change-log positions in (after, upto], in order. */
  readDerived(archiveId: string, epoch: number, after: number, upto: number): Promise<DerivedAt[]>;
  /**
   * Store the edges derived at some positions and move the mark to `upto` (never back), in one
   * batch, under `epoch` only: false when the epoch has moved on (a hard delete since the names
   * shard loaded), and then the mark is not moved.
   */
  writeDerived(archiveId: string, epoch: number, rows: DerivedAt[], upto: number): Promise<boolean>;
  /** Drop the derived edges and move the epoch on (the names shard's storage was wiped). */
  resetDerived(archiveId: string): Promise<void>;
  latestSnapshot(archiveId: string): Promise<SnapshotRecord | null>;
  recordSnapshot(row: SnapshotRecord): Promise<void>;
  accessStats(
    archiveId: string,
  ): Promise<Array<{ chunk: string; last: number; count: number; channels: Record<string, number> }>>;
}
