/**
 * `node --expose-gc --import tsx scripts/heap-per-head.ts <testdata dir> [--out file]`: real heap
 * growth per head of the capital chunk built from plain-text passages (HotpotQA + 2Wiki, stored as
 * `note` artifacts with title and content only, planned by the same ingest code as the Worker),
 * measured as (V8 heap used + ArrayBuffer bytes) after GC, before and after building the store and
 * after a snapshot rebuild, next to the store's own accounting (`stats.bytes`).
 */
import { existsSync } from "node:fs";
import { CapitalStore, capitalStats } from "../src/core/capital";
import { planIngest, prepareBatch } from "../src/core/ingest";
import type { ChangeOp } from "../src/core/types";
import { loadHotpot, loadTwoWiki } from "./lib/datasets";

const dir = process.argv[2];
if (!dir || !existsSync(`${dir}/multihop`)) {
  console.log(`heap-per-head: no data folder at ${dir ?? "(none given)"}; skipped`);
  process.exit(0);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const used = () => {
  gc();
  gc();
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
const before = used();
let store: CapitalStore | null = new CapitalStore();
for (const { seq: s, op } of ops) {
  store.apply(op);
  store.seq = s;
}
const built = used() - before;
const st = capitalStats(store);
const snap = store.serialize();
store = null;
const before2 = used();
const rebuilt = CapitalStore.deserialize(snap);
const rebuiltBytes = used() - before2;
const st2 = capitalStats(rebuilt);
const out = {
  passages: passages.length,
  ops: ops.length,
  heads: st.heads,
  heapPerHeadBuilt: Math.round(built / st.heads),
  heapPerHeadRebuilt: Math.round(rebuiltBytes / st2.heads),
  accountedPerHead: Math.round(st.bytesPerHead),
  accountedPerHeadRebuilt: Math.round(st2.bytesPerHead),
  breakdownPerHead: Object.fromEntries(Object.entries(st2.bytes).map(([k, v]) => [k, Math.round(v / st2.heads)])),
};
console.log(JSON.stringify(out, null, 2));
