/** What the capital store answers of a head and its neighbours, and the edges a names shard derives. */
import type { ChunkKind, EdgeType } from "../types";

export interface HeadInfo {
  chunk: string;
  kind: ChunkKind | null;
  latestVersion: number;
  firstValidFrom: number | null;
  endAt: number | null;
  deprecated: boolean;
  lastAccess: number | null;
  accessCount: number;
}

export interface NeighbourInfo {
  chunk: string;
  type: EdgeType;
  weight: number;
  direction: "out" | "in";
  visible: boolean;
}

/**
 * An edge the names shard derived while applying one change (a mention or timeline link):
 * archive-wide numbers of both ends, the type (0 mentions, 1 follows) and its start. Weight 1,
 * open-ended, as linkMentions and linkTimeline add them.
 */
export type DerivedEdge = [ga: number, gb: number, type: number, at: number];
/** The edges derived while applying the change at one change-log position, in the order added. */
export interface DerivedAt {
  seq: number;
  edges: DerivedEdge[];
}
