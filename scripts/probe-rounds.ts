/**
 * `npx tsx scripts/probe-rounds.ts [--passages 10000] [--shards 4] [--queries 100] [--data DIR]`:
 * the directory's rounds and shard calls per query on real text (scripts/lib/realtext.ts), in
 * process: the change-log ops of the passages applied to one store and to shards opened at equal
 * shares of the heads (src/core/capital/split.ts), then the corpora's questions through route() and
 * routeSharded. Prints rounds p50 / max, diffusion steps, shard calls per query by method, route
 * p50 both ways (no RPC time in either) and how many sharded answers equal one store's.
 */
import { CapitalStore, route } from "../src/core/capital";
import { routeSharded } from "../src/core/capital/directory";
import { type CapitalShard, inProcess } from "../src/core/capital/shard";
import { applyOps, applyToShards, cutsFor } from "../src/core/capital/split";
import { DEFAULT_PARAMS } from "../src/core/types";
import { plannedOps, queryInput } from "./lib/plan";
import { realTextOrSkip } from "./lib/realtext";

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) || dflt : dflt;
};
const N = arg("--passages", 10_000);
const S = arg("--shards", 4);
const Q = arg("--queries", 100);
const rt = realTextOrSkip(args);
const ops = await plannedOps(rt.batch(0, N).map(({ parts, ...a }) => a));
const starts = [0, ...cutsFor(ops, S)];
const one = new CapitalStore();
applyOps(one, ops, null);
const { shards } = applyToShards(ops, starts);
const calls = new Map<string, number>();
/** `f`, counting its calls under `m`. */
const counted =
  <A extends unknown[], R>(m: string, f: (...a: A) => R) =>
  (...a: A): R => {
    calls.set(m, (calls.get(m) ?? 0) + 1);
    return f(...a);
  };
const ports: CapitalShard[] = shards.map((s) => {
  const p = inProcess(s);
  return {
    counts: counted("counts", p.counts),
    resolve: counted("resolve", p.resolve),
    lexical: counted("lexical", p.lexical),
    nodes: counted("nodes", p.nodes),
  };
});
const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.floor(p * (xs.length - 1))] ?? 0;
const rounds: number[] = [];
const steps: number[] = [];
const oneMs: number[] = [];
const shMs: number[] = [];
let same = 0;
for (let k = 0; k < Q; k++) {
  const q = queryInput(rt.questions[k % rt.questions.length] as string);
  let t0 = performance.now();
  const a = route(one, q, DEFAULT_PARAMS);
  oneMs.push(performance.now() - t0);
  t0 = performance.now();
  const b = await routeSharded(ports, q, DEFAULT_PARAMS);
  shMs.push(performance.now() - t0);
  rounds.push(b.trace.shards?.rounds ?? 0);
  steps.push(b.trace.diffusion.steps);
  if (a.selected.map((x) => x.chunk).join() === b.selected.map((x) => x.chunk).join()) same++;
}
console.log(
  JSON.stringify({
    passages: N,
    shards: S,
    queries: Q,
    sameAsOneStore: same,
    rounds: { p50: pct(rounds, 0.5), max: Math.max(...rounds) },
    diffusionSteps: { p50: pct(steps, 0.5), max: Math.max(...steps) },
    callsPerQuery: Object.fromEntries([...calls].map(([m, n]) => [m, n / Q])),
    routeMsP50: { oneStore: pct(oneMs, 0.5), sharded: pct(shMs, 0.5) },
  }),
);
