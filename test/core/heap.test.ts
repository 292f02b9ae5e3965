/**
 * Heap per head of the capital chunk as a Durable Object holds it (tables in SQLite storage),
 * measured as real heap growth after GC in Node (V8 heap plus ArrayBuffer bytes) when a store is
 * rebuilt from its checkpoint and has answered a query, against the store's own accounting
 * (`stats.bytes`, what GET /stats reports).
 */
import { describe, expect, it } from "vitest";
import { rebuiltHeapPerHead } from "../../scripts/lib/heap";
import { nodeSql } from "../../scripts/lib/sqlite";
import { syntheticArchive } from "../../scripts/lib/synthetic";
import { CapitalStore, capitalStats } from "../../src/core/capital";
import { SqlTables } from "../../src/core/capital/sql-tables";
import type { ChangeOp } from "../../src/core/types";
import { prose, proseOps, queryInput } from "../fixtures/prose";

/** Build over SQLite, checkpoint, then measure copies rebuilt from the checkpoint (scripts/lib/heap.ts). */
async function measure(ops: ChangeOp[], query: string) {
  const sql = nodeSql();
  const built = new CapitalStore(undefined, new SqlTables(sql));
  for (const [k, op] of ops.entries()) {
    built.apply(op);
    built.seq = k + 1;
  }
  (built.tables as SqlTables).checkpoint(built.seq, built.serialize());
  const snap = new Uint8Array(new SqlTables(sql).heapSnapshot() as Uint8Array);
  // The median of three readings: one reading under load has drifted 5% above the others (GC timing).
  const readings: number[] = [];
  let store: CapitalStore | null = null;
  for (let k = 0; k < 3; k++) {
    const r = await rebuiltHeapPerHead(snap, () => new SqlTables(sql), queryInput(query));
    readings.push(r.perHead);
    store ??= r.store;
  }
  const perHead = readings.sort((a, b) => a - b)[1] as number;
  const st = capitalStats(store as CapitalStore);
  sql.close();
  console.log(`heap per head: measured ${perHead.toFixed(0)} B, accounted ${st.bytesPerHead.toFixed(0)} B`);
  return { measured: perHead, accounted: st.bytesPerHead, heads: st.heads };
}

describe("capital chunk heap per head", () => {
  it("plain text: at most 300 B/head, and stats within 20% of the measured heap growth", async () => {
    const passages = prose(6000, 11);
    const r = await measure(await proseOps(passages), `Who described ${passages[0]?.title}?`);
    expect(r.heads).toBe(6000);
    expect(r.measured).toBeLessThanOrEqual(300);
    expect(Math.abs(r.accounted - r.measured) / r.measured).toBeLessThanOrEqual(0.2);
  }, 120_000);

  it("structured heads with citations: at most 300 B/head, stats within 20%", async () => {
    const arch = syntheticArchive({ heads: 6000, seed: 3, termsPerHead: 40 });
    const r = await measure(arch.ops, "method 3 and method 17");
    expect(r.measured).toBeLessThanOrEqual(300);
    expect(Math.abs(r.accounted - r.measured) / r.measured).toBeLessThanOrEqual(0.2);
  }, 120_000);
});
