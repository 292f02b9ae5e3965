/**
 * A checkpoint of a store over SQLite tables as the Durable Object makes one, followed by the
 * segment merges it schedules, run to the end here (the object runs them in slices of 16,000
 * postings between requests: src/adapters/do/capital-object.ts). Without the merges a store built
 * from 10M changes reads every list from 200 level-0 segments, which no object ever does.
 */
import type { CapitalStore } from "../../src/core/capital";
import type { SqlTables } from "../../src/core/capital/sql-tables";

/** The object's merge slice, in postings. */
const MERGE_SLICE = 16_000;

/** Checkpoint `s` at its position with `heap` as the snapshot; `closed`: a closed shard, whose term postings merge down. */
export function checkpointAndMerge(s: CapitalStore, heap: Uint8Array, closed = false): void {
  const tables = s.tables as SqlTables;
  tables.checkpoint(s.seq, heap);
  if (closed) tables.sealTerms();
  while (tables.merge(MERGE_SLICE));
}
