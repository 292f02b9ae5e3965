/**
 * Heap per head of the capital chunk as a Durable Object holds it (tables in SQLite storage),
 * measured as real heap growth after GC in Node (V8 heap plus ArrayBuffer bytes) when a store is
 * rebuilt from its checkpoint and has answered a query, against the store's own accounting
 * (`stats.bytes`, what GET /stats reports).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { nodeSql } from "../../scripts/lib/sqlite";
import { syntheticArchive } from "../../scripts/lib/synthetic";
import { CapitalStore, capitalStats, route } from "../../src/core/capital";
import { SqlTables } from "../../src/core/capital/sql-tables";
import type { ChangeOp } from "../../src/core/types";
import { prose, proseOps, queryInput } from "../fixtures/prose";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

async function used(): Promise<number> {
  // External buffers are released by finalizers a few ticks after the collection that found them.
  for (let k = 0; k < 4; k++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * Build over SQLite, checkpoint, then rebuild copies from the checkpoint, each answering a query:
 * bytes per head = heap growth from holding one copy to holding three, halved. Differencing two
 * holdings cancels what a single reading cannot (ArrayBuffers of earlier garbage released a
 * collection or two late, values left in a suspended frame), which otherwise move a reading by a
 * whole store's size.
 */
async function measure(ops: ChangeOp[], query: string) {
  const sql = nodeSql();
  const built = new CapitalStore(undefined, new SqlTables(sql));
  for (const [k, op] of ops.entries()) {
    built.apply(op);
    built.seq = k + 1;
  }
  (built.tables as SqlTables).checkpoint(built.seq, built.serialize());
  const tables = new SqlTables(sql);
  const snap = new Uint8Array(tables.heapSnapshot() as Uint8Array);
  const copies: CapitalStore[] = [];
  const add = (k: number) => {
    for (let j = 0; j < k; j++) {
      const s = CapitalStore.deserialize(snap, tables);
      route(s, queryInput(query)); // allocates the per-query scratch vectors
      copies.push(s);
    }
  };
  add(1);
  const one = await used();
  add(2);
  const measured = ((await used()) - one) / 2 / built.size;
  const st = capitalStats(copies[0] as CapitalStore);
  sql.close();
  console.log(`heap per head: measured ${measured.toFixed(0)} B, accounted ${st.bytesPerHead.toFixed(0)} B`);
  return { measured, accounted: st.bytesPerHead, heads: st.heads };
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
