/**
 * `npm run bench [-- --quick] [-- --sizes 1000,10000,100000]`: routing cost vs archive size, in one
 * process and on the same graphs: PaperGuru's route() (seeds -> local diffusion -> head scoring ->
 * router), a full-graph personalised PageRank by power iteration (HippoRAG-style), and flat top-k
 * cosine over all head embeddings. Reports p50/p99, ratios to PaperGuru, PaperGuru's growth ratio
 * latency(N)/latency(1k), top-10 agreement of local vs full PPR, and bytes per head. Then the
 * end-to-end pass (scripts/bench-e2e.ts: structured papers and plain-text prose through the Worker).
 * A full run writes bench/results/latest.json (`npm run report` puts it into README.md) and then runs
 * `npm run bench:shards` (bench/results/shards-latest.json); --quick,
 * --sizes and --no-e2e runs write bench/results/latest-partial.json (or --out <file>).
 */
import { execSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ExactCosineSpace } from "../src/adapters/local/memory-vectors";
import { CapitalStore, capitalStats, fullPpr, localPpr, route } from "../src/core/capital";
import { SqlTables } from "../src/core/capital/sql-tables";
import { simhash } from "../src/core/sketch";
import { DEFAULT_PARAMS, type RouteInput } from "../src/core/types";
import { checkpointAndMerge } from "./lib/checkpoint";
import { measureCpuCosts } from "./lib/cpu-costs";
import { rebuiltHeapPerHead } from "./lib/heap";
import { measureRankingCost } from "./lib/ranking-cost";
import { sourceState } from "./lib/server";
import { nodeSql } from "./lib/sqlite";
import { rng, SYNTHETIC_VOCABULARY, syntheticArchive, zipfSampler } from "./lib/synthetic";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const sizesArg = args[args.indexOf("--sizes") + 1];
const sizes =
  args.includes("--sizes") && sizesArg
    ? sizesArg.split(",").map(Number)
    : quick
      ? [1000, 10000]
      : [1000, 10000, 100000, 300000, 1000000];
// Fewer queries on the largest graphs: building the 1M-head graph alone takes about 7 minutes on 2
// cores, and the whole run about 30 (bench/results/latest.json durationMs).
const queriesFor = (n: number) => (quick ? 60 : n >= 300000 ? 50 : n >= 100000 ? 100 : 200);
/** The full-graph PPR baseline costs seconds per query past 100k heads (its p50 in latest.json): a subset of queries there. */
const baselineQueriesFor = (n: number) => (n >= 1000000 ? 5 : n >= 300000 ? 20 : queriesFor(n));
const e2eHeads = args.includes("--no-e2e") ? null : quick ? "1000" : "10000,100000";
/**
 * Only a full run (no --quick, --sizes or --no-e2e) replaces bench/results/latest.json, the file
 * README's tables come from; other runs write latest-partial.json unless --out says otherwise.
 */
const full = !quick && !args.includes("--sizes") && !args.includes("--no-e2e");
const outArg = args[args.indexOf("--out") + 1];
const outFile =
  args.includes("--out") && outArg ? outArg : full ? "bench/results/latest.json" : "bench/results/latest-partial.json";
/** Plain-text passages for the end-to-end ingest run (and half as many again with queries). */
const e2eProse = quick ? 400 : 3000;
const DIMS = 384;
/** The code measured: taken before the run, since the working tree may change during it. */
const source = sourceState();
const started = performance.now();

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

function time<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const v = fn();
  return [v, performance.now() - t0];
}

interface Row {
  heads: number;
  edges: number;
  buildMs: number;
  /**
   * Change-log ops applied per second while building over SQLite tables, the tables' write buffer
   * flushed every 50,000 ops and the segment merges it starts run to the end, as the object runs
   * them (merges counted from 2026-12-08 on); the heap snapshot is written once, at the end
   * (checkpointMs).
   */
  applyPerSec: number;
  /** One checkpoint at this size (heap snapshot + tables + position) and the snapshot's bytes. */
  checkpointMs: number;
  snapshotBytes: number;
  /** The store's own accounting (stats.bytes.total / heads). */
  bytesPerHead: number;
  /** Measured heap per head of a store rebuilt from its checkpoint (one copy vs three, after GC). */
  heapPerHead: number;
  /** SQLite bytes per head (tables and checkpoint), outside the heap. */
  storagePerHead: number;
  paperguru: { p50: number; p99: number };
  fullPpr: { p50: number; p99: number };
  flatCosine: { p50: number; p99: number };
  localPpr: { p50: number; p99: number; touched: number };
  top10Agreement: number;
  /** Same, with pushEpsilon 1e-4 (more exact, slower). */
  precise: { p50: number; p99: number; touched: number; top10Agreement: number };
  /**
   * route() with a filter before the top-M cut: `kinds: ["paper"]` (a fifth of the heads) and `only`
   * (an exact set of 256 heads, what a `within` subtree resolves to). Absent in older results.
   */
  filtered?: { kinds: { p50: number; p99: number }; only: { p50: number; p99: number } };
}

const PRECISE = { ...DEFAULT_PARAMS, pushEpsilon: 1e-4, maxFrontier: 4096 };

async function bench(n: number): Promise<Row> {
  const QUERIES = queriesFor(n);
  // 60 distinct words per head: the lexical expert does its real work in every query.
  const arch = syntheticArchive({ heads: n, seed: 7, termsPerHead: 60 });
  const qword = zipfSampler(SYNTHETIC_VOCABULARY, rng(123));
  // As the Durable Object holds it: tables in SQLite. The object writes a heap snapshot with every
  // checkpoint (every max(2,000, heads/20) changes); here the write buffer is flushed every 50,000
  // changes without one, and one full checkpoint at the end is timed on its own.
  const sql = nodeSql();
  const [first, buildMs] = time(() => {
    const s = new CapitalStore(DEFAULT_PARAMS, new SqlTables(sql));
    for (const [k, op] of arch.ops.entries()) {
      s.apply(op);
      s.seq = k + 1;
      if (s.seq % 50_000 === 0) checkpointAndMerge(s, new Uint8Array(0));
    }
    return s;
  });
  const [snapshotBytes, checkpointMs] = time(() => {
    const heap = first.serialize();
    (first.tables as SqlTables).checkpoint(first.seq, heap);
    return heap.byteLength;
  });
  // The merges the object schedules after that checkpoint, before the queries (not timed).
  while ((first.tables as SqlTables).merge(1_000_000));
  // The built store is not used past this line, so it is collected before the first reading (one
  // collected between the readings would be subtracted from them).
  const snap = new Uint8Array((first.tables as SqlTables).heapSnapshot() as Uint8Array);
  const { perHead: heapPerHead, store } = await rebuiltHeapPerHead(snap, () => new SqlTables(sql), {
    mentions: [],
    identifiers: [],
    boundaries: [],
    semantic: [],
    querySketch: new Uint8Array(32),
    terms: ["w200"],
    asOf: arch.end,
    now: arch.end,
    limit: 10,
  });
  const storagePerHead = sql.bytes() / n;
  const r = rng(99);
  // Head embeddings for the flat baseline and the semantic seeds (the vector index's role).
  const space = new ExactCosineSpace();
  const vecs: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const v = new Float32Array(DIMS);
    let norm = 0;
    for (let d = 0; d < DIMS; d++) {
      const x = r() * 2 - 1;
      v[d] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    for (let d = 0; d < DIMS; d++) v[d] = (v[d] as number) / norm;
    vecs.push(v);
    space.upsert(`c${i}`, v);
  }
  const pg: number[] = [];
  const full: number[] = [];
  const flat: number[] = [];
  const local: number[] = [];
  let touched = 0;
  let agree = 0;
  const byKind: number[] = [];
  const byOnly: number[] = [];
  const precise: number[] = [];
  let pTouched = 0;
  let pAgree = 0;
  const asOf = arch.end;
  for (let q = 0; q < QUERIES; q++) {
    // A query "about" a random head: its embedding plus noise, and two of the entities it mentions.
    const target = Math.floor(r() * n);
    const qv = Float32Array.from(vecs[target] as Float32Array, (x) => x + (r() - 0.5) * 0.05);
    const ents = [arch.entities[Math.floor(r() * Math.min(arch.entities.length, 2000))] as string];
    const [semantic, flatMs] = time(() => space.query(qv, 100));
    if (q < baselineQueriesFor(n)) flat.push(flatMs);
    const input: RouteInput = {
      mentions: ents.map((e) => `method ${e.slice("method:m".length)}`),
      identifiers: [],
      boundaries: [],
      semantic: semantic.slice(0, 20).map((m) => ({ chunk: m.id, score: m.score })),
      querySketch: simhash(qv),
      // Eight query words, Zipf like the corpus but past its 100 most frequent words (those play
      // the role of stopwords, which queries drop): mid-frequency words cost long posting lists.
      terms: Array.from({ length: 8 }, () => `w${100 + (qword() % (SYNTHETIC_VOCABULARY - 100))}`),
      asOf,
      now: asOf,
      limit: 16,
    };
    const [res, ms] = time(() => route(store, input, DEFAULT_PARAMS));
    pg.push(ms);
    byKind.push(time(() => route(store, { ...input, filter: { kinds: ["paper"] } }, DEFAULT_PARAMS))[1]);
    const only = Array.from({ length: 256 }, (_, j) => `c${(target + j * 37) % n}`);
    byOnly.push(time(() => route(store, { ...input, filter: { only } }, DEFAULT_PARAMS))[1]);
    // Diffusion alone, local vs global, from the same seeds.
    const seeds = new Map<number, number>();
    for (const s of res.trace.seeds) {
      const idx = Number(s.chunk.slice(1));
      seeds.set(idx, s.weight);
    }
    if (seeds.size === 0) seeds.set(target, 1);
    const [lp, lms] = time(() => localPpr(store, seeds, asOf, DEFAULT_PARAMS));
    local.push(lms);
    touched += lp.touched;
    if (q >= baselineQueriesFor(n)) continue;
    const [fp, fms] = time(() => fullPpr(store, seeds, asOf, DEFAULT_PARAMS));
    full.push(fms);
    const top = (m: Map<number, number>) =>
      [...m.entries()]
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, 10)
        .map(([k]) => k);
    const exact = top(fp.mass);
    const a = new Set(top(lp.mass));
    agree += exact.filter((k) => a.has(k)).length / 10;
    const [, pms] = time(() => route(store, input, PRECISE));
    precise.push(pms);
    const pp = localPpr(store, seeds, asOf, PRECISE);
    pTouched += pp.touched;
    const pa = new Set(top(pp.mass));
    pAgree += exact.filter((k) => pa.has(k)).length / 10;
  }
  const stats = capitalStats(store);
  sql.close();
  return {
    heads: n,
    edges: arch.edges,
    buildMs,
    applyPerSec: arch.ops.length / (buildMs / 1000),
    checkpointMs,
    snapshotBytes,
    bytesPerHead: stats.bytesPerHead,
    heapPerHead,
    storagePerHead,
    paperguru: { p50: pct(pg, 50), p99: pct(pg, 99) },
    fullPpr: { p50: pct(full, 50), p99: pct(full, 99) },
    flatCosine: { p50: pct(flat, 50), p99: pct(flat, 99) },
    localPpr: { p50: pct(local, 50), p99: pct(local, 99), touched: touched / QUERIES },
    top10Agreement: agree / Math.min(QUERIES, baselineQueriesFor(n)),
    precise: {
      p50: pct(precise, 50),
      p99: pct(precise, 99),
      touched: pTouched / Math.min(QUERIES, baselineQueriesFor(n)),
      top10Agreement: pAgree / Math.min(QUERIES, baselineQueriesFor(n)),
    },
    filtered: {
      kinds: { p50: pct(byKind, 50), p99: pct(byKind, 99) },
      only: { p50: pct(byOnly, 50), p99: pct(byOnly, 99) },
    },
  };
}

const rows: Row[] = [];
for (const n of sizes) {
  process.stdout.write(`building and querying ${n} heads ... `);
  const row = await bench(n);
  rows.push(row);
  console.log(
    `done (${(row.buildMs / 1000).toFixed(1)} s build, ${row.applyPerSec.toFixed(0)} ops/s, checkpoint ${row.checkpointMs.toFixed(0)} ms (${(row.snapshotBytes / 1048576).toFixed(1)} MiB), heap ${row.heapPerHead.toFixed(0)} B/head measured, ${row.bytesPerHead.toFixed(0)} accounted, SQLite ${row.storagePerHead.toFixed(0)} B/head)`,
  );
}
const base = rows[0]?.paperguru.p50 ?? 1;
const f = (x: number) => (x < 10 ? x.toFixed(3) : x.toFixed(1));
console.log("\nRouting latency per query (ms), same process, same graphs");
console.log(
  "| heads | edges | PaperGuru route p50 / p99 | growth vs 1k | full PPR p50 / p99 | full PPR / PG | flat cosine p50 / p99 | flat / PG | nodes with mass | top-10 vs full PPR | PG eps=1e-4: route p50, top-10 | bytes/head |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(
    `| ${r.heads} | ${r.edges} | ${f(r.paperguru.p50)} / ${f(r.paperguru.p99)} | ${(r.paperguru.p50 / base).toFixed(2)}x | ${f(r.fullPpr.p50)} / ${f(r.fullPpr.p99)} | ${(r.fullPpr.p50 / r.paperguru.p50).toFixed(1)}x | ${f(r.flatCosine.p50)} / ${f(r.flatCosine.p99)} | ${(r.flatCosine.p50 / r.paperguru.p50).toFixed(1)}x | ${r.localPpr.touched.toFixed(0)} | ${(r.top10Agreement * 100).toFixed(0)}% | ${f(r.precise.p50)} ms, ${(r.precise.top10Agreement * 100).toFixed(0)}% | ${r.bytesPerHead.toFixed(0)} |`,
  );
}
const commit = source.commit;
// End to end through the real Worker (a throwaway local server), merged into the same JSON.
let e2e: unknown = null;
if (e2eHeads) {
  console.log(`\nEnd to end through the Worker (${e2eHeads} heads):`);
  // Its own output file, so a concurrent `npm run bench:e2e` cannot swap results under this run.
  const e2eFile = join(mkdtempSync(join(tmpdir(), "paperguru-bench-")), "e2e.json");
  execSync(`npx tsx scripts/bench-e2e.ts --heads ${e2eHeads} --prose ${e2eProse} --out ${e2eFile}`, {
    stdio: "inherit",
  });
  e2e = JSON.parse(readFileSync(e2eFile, "utf8"));
}
// The per-request CPU budget's cost model (src/core/limits.ts), re-measured on this machine.
const cpuCosts = await measureCpuCosts(quick ? 0.5 : 2);
console.log("\nCPU per MB of input (ms): measured here / configured in CPU_MS_PER_MB");
for (const [work, c] of Object.entries(cpuCosts))
  console.log(
    `  ${work}: ${c.measured} / ${c.configured}${c.measured > c.configured ? "  (over: the budget under-estimates here)" : ""}`,
  );
// Paper Circle's ranking modes and MMR over a route's candidate pool (top-M = 256): O(pool), MMR O(k·pool).
const rankingCost = measureRankingCost(quick ? 10 : 30);
console.log("\nRanking a candidate pool (median CPU ms: combined / MMR k=10 / MMR k=50)");
for (const c of rankingCost) console.log(`  pool ${c.pool}: ${c.combined} / ${c.mmr10} / ${c.mmr50}`);
const out = {
  date: new Date().toISOString(),
  commit,
  source,
  machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? "unknown", node: process.version },
  durationMs: performance.now() - started,
  queriesPerSize: Object.fromEntries(sizes.map((n) => [n, queriesFor(n)])),
  params: DEFAULT_PARAMS,
  routing: rows,
  cpuCosts,
  rankingCost,
  e2e,
};
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, `${JSON.stringify(out, null, 2)}\n`);
console.log(`\nwrote ${outFile}`);
// A full run also measures the capital chunk over shards (bench/results/shards-latest.json).
if (full) {
  console.log("\nShards (npm run bench:shards)");
  execSync(`npx tsx ${JSON.stringify(join(import.meta.dirname, "bench-shards.ts"))}`, { stdio: "inherit" });
}
