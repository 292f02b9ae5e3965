/**
 * `npx tsx scripts/heap-per-head.ts <testdata dir> [--out file]`: real heap
 * growth per head of the capital chunk built from plain-text passages (HotpotQA + 2Wiki, stored as
 * `note` artifacts with title and content only, planned by the same ingest code as the Worker),
 * measured as (V8 heap used + ArrayBuffer bytes) after GC, before and after building the store and
 * after a snapshot rebuild, next to the store's own accounting (`stats.bytes`).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { CapitalStore, capitalStats, route } from "../src/core/capital";
import { SqlTables } from "../src/core/capital/sql-tables";
import { planIngest, prepareBatch } from "../src/core/ingest";
import type { ChangeOp } from "../src/core/types";
import { loadHotpot, loadTwoWiki } from "./lib/datasets";
import { sourceState } from "./lib/server";
import { nodeSql } from "./lib/sqlite";

const dir = process.argv[2];
if (!dir || !existsSync(`${dir}/multihop`)) {
  console.log(`heap-per-head: no data folder at ${dir ?? "(none given)"}; skipped`);
  process.exit(0);
}
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const outArg = process.argv[process.argv.indexOf("--out") + 1];
const outFile = process.argv.includes("--out") && outArg ? outArg : "bench/results/heap-latest.json";
const source = sourceState();
/** Heap used plus ArrayBuffer bytes after GC; external buffers are released by finalizers a few ticks later. */
const used = async () => {
  for (let k = 0; k < 4; k++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const passages = [...(loadHotpot(dir)?.passages ?? []), ...(loadTwoWiki(dir) ?? [])];
const ops: Array<{ seq: number; op: ChangeOp }> = [];
let seq = 0;
const now = Date.UTC(2026, 0, 1);
for (let i = 0; i < passages.length; i += 200) {
  const batch = passages.slice(i, i + 200).map((p) => ({
    id: p.id,
    kind: "note" as const,
    title: p.title,
    content: p.text,
  }));
  const prep = prepareBatch(batch);
  if (!prep.ok) throw new Error(prep.error.message);
  const plan = await planIngest(
    "a",
    prep.value,
    { chunks: new Map(), entities: new Set(), aliases: new Set() },
    now,
    async () => "",
  );
  if (!plan.ok) throw new Error(plan.error.message);
  for (const op of plan.value.ops) ops.push({ seq: ++seq, op });
}
// The Durable Object's layout: tables in SQLite (outside the heap), checkpointed like the object
// does (every 2,000 changes), the heap snapshot written with each checkpoint.
const sql = nodeSql();
const t0 = performance.now();
let store: CapitalStore | null = new CapitalStore(undefined, new SqlTables(sql));
let since = 0;
for (const { seq: s, op } of ops) {
  store.apply(op);
  store.seq = s;
  if (++since >= 2000) {
    (store.tables as SqlTables).checkpoint(store.seq, store.serialize());
    since = 0;
  }
}
(store.tables as SqlTables).checkpoint(store.seq, store.serialize());
const applyMs = performance.now() - t0;
const st = capitalStats(store);
store = null;
const tables = new SqlTables(sql);
const snap = new Uint8Array(tables.heapSnapshot() as Uint8Array);
// One copy, then three: the difference cancels late-released garbage (see test/core/heap.test.ts).
const copies: CapitalStore[] = [];
const add = (k: number) => {
  for (let j = 0; j < k; j++) {
    const c = CapitalStore.deserialize(snap, tables);
    route(c, {
      mentions: [],
      identifiers: [],
      boundaries: [],
      semantic: [],
      querySketch: new Uint8Array(32),
      terms: ["river"],
      asOf: now,
      now,
      limit: 10,
    });
    copies.push(c);
  }
};
add(1);
const one = await used();
add(2);
const rebuiltBytes = ((await used()) - one) / 2;
const rebuilt = copies[0] as CapitalStore;
const st2 = capitalStats(rebuilt);
const out = {
  date: new Date().toISOString(),
  commit: source.commit,
  source,
  machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? "unknown", node: process.version },
  corpus: "HotpotQA + 2WikiMultihopQA passages (testdata/multihop), notes with title and content",
  passages: passages.length,
  ops: ops.length,
  heads: st.heads,
  applyPerSec: Math.round(ops.length / (applyMs / 1000)),
  heapPerHeadRebuilt: Math.round(rebuiltBytes / st2.heads),
  accountedPerHead: Math.round(st.bytesPerHead),
  accountedPerHeadRebuilt: Math.round(st2.bytesPerHead),
  sqliteBytesPerHead: Math.round(sql.bytes() / st2.heads),
  breakdownPerHead: Object.fromEntries(Object.entries(st2.bytes).map(([k, v]) => [k, Math.round(v / st2.heads)])),
};
console.log(JSON.stringify(out, null, 2));
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, `${JSON.stringify(out, null, 2)}\n`);
console.log(`wrote ${outFile}`);
