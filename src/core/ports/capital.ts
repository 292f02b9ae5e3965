/**
 * The capital chunk of one archive, as the application layer uses it: a Durable Object in the
 * Worker (src/adapters/do), bound to one archive when obtained. Every read first applies the change
 * log committed since the last one (read-your-writes).
 */
import type { capitalStats, HeadInfo, NeighbourInfo } from "../capital";
import type { AccessChannel, KernelParams } from "../types";
import type { CapitalRouter } from "./services";

/** How the object was last rebuilt: from which snapshot, how many changes replayed, how long. */
export interface RebuildReport {
  ms: number;
  fromSnapshotSeq: number | null;
  snapshotBytes: number;
  replayed: number;
  seq: number;
}

export type CapitalStats = ReturnType<typeof capitalStats> & {
  seq: number;
  lastRebuild: RebuildReport | null;
  params: KernelParams;
  /** Bytes of the object's own SQLite storage (summed over the shards when there are several). */
  storageBytes?: number;
  /** Per shard, when the archive has several (the figures above are their sums). */
  shards?: Array<{ heads: number; bytes: number; seq: number; storageBytes?: number }>;
};

/** What the newest shard of the capital chunk holds against its heap budget (params.heapBudgetBytes). */
export interface CapitalCapacity {
  bytes: number;
  heads: number;
  budget: number;
  /** Shards of the archive (new heads go to the newest). */
  shards?: number;
}

export interface CapitalPort extends CapitalRouter {
  /** Heap held and the budget, read before an ingest writes anything. */
  capacity(): Promise<CapitalCapacity>;
  /** Open a new shard for the heads the newest one has no room for; returns the number of shards. */
  openShard(): Promise<number>;
  /**
   * Start warming the shard that opens next, before it opens (docs/sharding.md): it replays the
   * change log as it stands in the background, so the write that opens it waits only for the
   * changes since. Answers at once.
   */
  warmNext(): Promise<void>;
  /** Apply the changes committed since the last applied sequence number. */
  sync(): Promise<{ seq: number; applied: number }>;
  /** Access statistics for /neighbours and stats (rebuilt from the access log on load). */
  recordAccess(events: Array<{ chunk: string; channel: AccessChannel; at: number }>): Promise<void>;
  /** A head and its bounded neighbour table valid at t; null for an unknown chunk. */
  neighbours(chunk: string, t: number): Promise<{ head: HeadInfo | null; neighbours: NeighbourInfo[] } | null>;
  /** The canonical entity a mention denotes at t, or null. */
  resolve(
    mention: string,
    t: number,
  ): Promise<{
    entity: string;
    name: string;
    via: string;
    candidates?: Array<{ entity: string; name: string }>;
  } | null>;
  stats(): Promise<CapitalStats>;
  /** Checkpoint now (rebuilds start from the latest checkpoint). */
  snapshot(): Promise<{ seq: number; bytes: number; key: string }>;
  /** Drop the in-memory copy, as an eviction would; the next call rebuilds it. */
  evict(): Promise<void>;
  /** After a hard delete: drop the in-memory copy and the object's stored checkpoint and tables. */
  forget(): Promise<void>;
}

/** The capital port of an archive. */
export type CapitalFor = (archiveId: string) => CapitalPort;
