/**
 * `npx tsx scripts/bench-apply.ts [--passages 30000] [--data ../shared/testdata]`: the capital
 * object's side of ingest in process, on real text (scripts/lib/realtext.ts): the change-log ops of
 * batches of 200 planned as the Worker plans them, applied to a CapitalStore over SqlTables on
 * SQLite (the engine of a Durable Object's storage, here in WebAssembly: scripts/lib/sqlite.ts) with
 * the object's checkpoint rule.
 * Reports ms per batch for apply and checkpoint at each tenth, and the SQLite bytes per head.
 */

import { CapitalStore } from "../src/core/capital";
import { SqlTables } from "../src/core/capital/sql-tables";
import { plannedOps } from "./lib/plan";
import { realTextOrSkip } from "./lib/realtext";
import { nodeSql } from "./lib/sqlite";

const args = process.argv.slice(2);
const at = args.indexOf("--passages");
const N = at >= 0 ? Number(args[at + 1]) || 30000 : 30000;
const rt = realTextOrSkip(args);
const raw = nodeSql();
const stmt = new Map<string, { n: number; ms: number }>();
const timed =
  <A extends unknown[], R>(f: (q: string, ...a: A) => R) =>
  (q: string, ...a: A): R => {
    const t = performance.now();
    const r = f(q, ...a);
    const k = q.slice(0, 60);
    const e = stmt.get(k) ?? { n: 0, ms: 0 };
    e.n++;
    e.ms += performance.now() - t;
    stmt.set(k, e);
    return r;
  };
const sql = { ...raw, all: timed(raw.all), run: timed(raw.run) };
const tables = new SqlTables(sql);
const store = new CapitalStore(undefined, tables);
let seq = 0;
let ckSeq = 0;
let applyMs = 0;
let ckMs = 0;
let cks = 0;
let mergeMs = 0;
const step = Math.max(200, Math.floor(N / 10 / 200) * 200);
const t00 = performance.now();
for (let i = 0; i < N; i += 200) {
  const ops = await plannedOps(rt.batch(i, Math.min(N, i + 200)), Date.UTC(2025, 0, 1) + i * 1000);
  const t0 = performance.now();
  for (const [k, op] of ops.entries()) {
    // As the object does: read ahead per slice of 32 changes.
    if (k % 32 === 0) store.prefetch(ops.slice(k, k + 32));
    store.apply(op, ++seq);
    store.seq = seq;
    const every = Math.max(2000, Math.floor(store.size / 20));
    if (seq - ckSeq >= every || tables.pendingValues() >= 400_000 || tables.heapBytes() >= (64 << 20) / 8) {
      const c0 = performance.now();
      tables.checkpoint(seq, store.serialize());
      ckMs += performance.now() - c0;
      const m0 = performance.now();
      while (tables.merge(20_000));
      mergeMs += performance.now() - m0;
      cks++;
      ckSeq = seq;
    }
  }
  applyMs += performance.now() - t0;
  if ((i + 200) % step === 0) {
    const b = step / 200;
    console.log(
      `${i + 200} heads: apply+ck ${(applyMs / b).toFixed(1)} ms/batch (checkpoint ${(ckMs / b).toFixed(1)}, merges ${(mergeMs / b).toFixed(1)}, ${cks} cks, ${tables.termPosts.segments().length} segments), ops/batch ${(seq / ((i + 200) / 200)).toFixed(0)}, sqlite ${(sql.bytes() / (i + 200)).toFixed(0)} B/head`,
    );
    applyMs = 0;
    ckMs = 0;
    mergeMs = 0;
    cks = 0;
  }
}
if (args.includes("--statements"))
  for (const [k, v] of [...stmt].sort((a, b) => b[1].ms - a[1].ms).slice(0, 14))
    console.log(`${v.ms.toFixed(0).padStart(7)} ms ${String(v.n).padStart(8)}x ${k}`);
console.log(`total ${((performance.now() - t00) / 1000).toFixed(1)} s`);
