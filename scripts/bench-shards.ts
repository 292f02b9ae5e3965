/**
 * `npm run bench:shards [-- --sizes 10000,100000] [-- --shards 4,8]`: one archive's capital chunk
 * split over shards by arrival (each shard takes an equal share of the heads, as a budget of
 * 1/S of the whole would), in process over SQLite tables like the Durable Objects hold them.
 * Reports per shard count: the largest shard's accounted heap against one store's, the work of
 * applying every change on every shard, route p50/p99 through the directory (rounds run in
 * process, so RPC time is not in it) against route() over one store, rounds per query, and the
 * share of queries whose top 16 is the one-store answer. Writes bench/results/shards-latest.json.
 */
import { writeFileSync } from "node:fs";
import { CapitalStore, capitalStats, route } from "../src/core/capital";
import { routeSharded } from "../src/core/capital/directory";
import { inProcess } from "../src/core/capital/shard";
import { cutsFor, type DerivedLog, takeDerived } from "../src/core/capital/split";
import { SqlTables } from "../src/core/capital/sql-tables";
import { type ChangeOp, DEFAULT_PARAMS, type RouteInput } from "../src/core/types";
import { checkpointAndMerge } from "./lib/checkpoint";
import { machine } from "./lib/results";
import { sourceState } from "./lib/server";
import { nodeSql } from "./lib/sqlite";
import { rng, SYNTHETIC_VOCABULARY, syntheticArchive, zipfSampler } from "./lib/synthetic";

const args = process.argv.slice(2);
const listArg = (name: string, fallback: number[]) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? (args[i + 1] as string).split(",").map(Number) : fallback;
};
const sizes = listArg("--sizes", [10_000, 100_000]);
const shardCounts = listArg("--shards", [4, 8]);
const QUERIES = 100;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

/** A checkpoint as the object makes one (the heap snapshot compacts slots and ghosts); its bytes. */
function checkpointed(s: CapitalStore): number {
  checkpointAndMerge(s, s.serialize(), s.seq >= s.ownTo);
  return capitalStats(s).bytes.total;
}

/**
 * Every change applied to one store (a shard when `to` is given); the accounted heap when the
 * shard closed (its window's end) and at the end, both after a checkpoint.
 */
function build(
  ops: ChangeOp[],
  from: number,
  to: number,
  sharded: boolean,
  derived: DerivedLog = new Map(),
): { store: CapitalStore; ms: number; atClose: number; atEnd: number } {
  const s = new CapitalStore(DEFAULT_PARAMS, new SqlTables(nodeSql()));
  if (sharded) s.shard(from, to);
  let ms = 0;
  let atClose = 0;
  for (const [k, op] of ops.entries()) {
    if (k + 1 === to) atClose = checkpointed(s);
    const t0 = performance.now();
    s.apply(op, k + 1);
    s.seq = k + 1;
    if (!s.derives) s.applyDerived(derived.get(k + 1) ?? []);
    if (s.seq % 50_000 === 0) checkpointAndMerge(s, new Uint8Array(0), sharded && s.seq >= to);
    ms += performance.now() - t0;
  }
  const atEnd = checkpointed(s);
  // The names shard's derived edges, for the shards built after it.
  if (sharded && s.derives) takeDerived(s, derived);
  return { store: s, ms, atClose: atClose || atEnd, atEnd };
}

const rows: Array<Record<string, number>> = [];
for (const n of sizes) {
  const arch = syntheticArchive({ heads: n, seed: 7, termsPerHead: 60 });
  const one = build(arch.ops, 0, Number.POSITIVE_INFINITY, false);
  const oneBytes = capitalStats(one.store).bytes.total;
  const r = rng(99);
  const qword = zipfSampler(SYNTHETIC_VOCABULARY, rng(123));
  const inputs: RouteInput[] = Array.from({ length: QUERIES }, () => ({
    mentions: [`method ${Math.floor(r() * Math.min(arch.entities.length, 2000))}`],
    identifiers: [],
    boundaries: [],
    semantic: [],
    querySketch: new Uint8Array(32),
    terms: Array.from({ length: 8 }, () => `w${100 + (qword() % (SYNTHETIC_VOCABULARY - 100))}`),
    asOf: arch.end,
    now: arch.end,
    limit: 16,
  }));
  const oneMs: number[] = [];
  const expected = inputs.map((q) => {
    const t0 = performance.now();
    const res = route(one.store, q, DEFAULT_PARAMS);
    oneMs.push(performance.now() - t0);
    return res.selected.map((s) => s.chunk).join(" ");
  });
  for (const S of shardCounts) {
    const starts = [0, ...cutsFor(arch.ops, S)];
    const derived: DerivedLog = new Map();
    const shards = starts.map((from, k) =>
      build(arch.ops, from, starts[k + 1] ?? Number.POSITIVE_INFINITY, true, derived),
    );
    const ports = shards.map((s) => inProcess(s.store));
    const ms: number[] = [];
    const rounds: number[] = [];
    let same = 0;
    for (const [k, q] of inputs.entries()) {
      const t0 = performance.now();
      const res = await routeSharded(ports, q, DEFAULT_PARAMS);
      ms.push(performance.now() - t0);
      rounds.push(res.trace.shards?.rounds ?? 0);
      if (res.selected.map((s) => s.chunk).join(" ") === expected[k]) same++;
    }
    const bytes = shards.map((s) => s.atEnd);
    const growth = shards.slice(0, -1).map((s) => s.atEnd / s.atClose);
    const row = {
      heads: n,
      ops: arch.ops.length,
      shards: S,
      oneBytesPerHead: oneBytes / n,
      largestShardBytes: Math.max(...bytes),
      oneBytes,
      largestShare: Math.max(...bytes) / oneBytes,
      ghosts: shards.reduce((a, s) => a + s.store.ghostCount, 0),
      closedGrowthMax: Math.max(...growth),
      closedGrowthMean: growth.reduce((a, x) => a + x, 0) / growth.length,
      applyMsOne: one.ms,
      applyMsAllShards: shards.reduce((a, s) => a + s.ms, 0),
      routeOneP50: pct(oneMs, 50),
      routeOneP99: pct(oneMs, 99),
      routeShardedP50: pct(ms, 50),
      routeShardedP99: pct(ms, 99),
      roundsMean: rounds.reduce((a, x) => a + x, 0) / rounds.length,
      roundsMax: Math.max(...rounds),
      sameTop: same / inputs.length,
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
}

const source = sourceState();
const out = {
  date: new Date().toISOString(),
  commit: source.commit,
  source,
  machine: machine(),
  queries: QUERIES,
  rows,
};
const file =
  args.includes("--sizes") || args.includes("--shards")
    ? "bench/results/shards-partial.json"
    : "bench/results/shards-latest.json";
writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
console.log(`wrote ${file}`);
