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
import { CapitalStore, capitalStats } from "../src/core/capital";
import { SqlTables } from "../src/core/capital/sql-tables";
import { loadHotpot, loadTwoWiki } from "./lib/datasets";
import { rebuiltHeapPerHead } from "./lib/heap";
import { plannedOps, queryInput } from "./lib/plan";
import { sourceState } from "./lib/server";
import { nodeSql } from "./lib/sqlite";

const dir = process.argv[2];
if (!dir || !existsSync(`${dir}/multihop`)) {
  console.log(`heap-per-head: no data folder at ${dir ?? "(none given)"}; skipped`);
  process.exit(0);
}
const outArg = process.argv[process.argv.indexOf("--out") + 1];
const outFile = process.argv.includes("--out") && outArg ? outArg : "bench/results/heap-latest.json";
const source = sourceState();
const passages = [...(loadHotpot(dir)?.passages ?? []), ...(loadTwoWiki(dir) ?? [])];
const ops = (
  await plannedOps(passages.map((p) => ({ id: p.id, kind: "note" as const, title: p.title, content: p.text })))
).map((op, k) => ({ seq: k + 1, op }));
const now = Date.UTC(2026, 0, 1);
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
const snap = new Uint8Array(new SqlTables(sql).heapSnapshot() as Uint8Array);
const { perHead, store: rebuilt } = await rebuiltHeapPerHead(snap, () => new SqlTables(sql), queryInput("river", now));
const rebuiltBytes = perHead * rebuilt.size;
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
