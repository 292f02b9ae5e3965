/**
 * `npx tsx scripts/shard-placement.ts <testdata dir> [--shards 4,8]`: what a placement of heads on
 * shards would cost, measured on real archives before sharding is built (DESIGN section 4: "choose by
 * measuring cross-shard edges and query fan-out"). Builds the capital chunk in process from what a
 * user stores (HotpotQA + 2Wiki passages as notes; CiteSeer papers with their citations as `cites`
 * edges), then for each placement and shard count reports the share of neighbour slots whose target
 * is on another shard, and per query the shards holding its seeds, its top-M candidates and the
 * nodes the diffusion reaches. Placements: by chunk-id hash; by arrival (each shard takes the next
 * N/S heads, as a shard that opens when the last one is full would); by the hash of a head's first
 * grounded entity.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { CapitalStore, localPpr, route } from "../src/core/capital";
import type { ArtifactInput } from "../src/core/ingest";
import { type ChangeOp, DEFAULT_PARAMS } from "../src/core/types";
import { loadCiteSeer, loadHotpot, loadTwoWiki } from "./lib/datasets";
import { plannedOps, queryInput } from "./lib/plan";
import { sourceState } from "./lib/server";

const source = sourceState();
export interface PlacementRow {
  archive: string;
  shards: number;
  placement: string;
  slots: number;
  crossShare: number;
  seedShards: number;
  candidateShards: number;
  massShards: number;
  largestOverMean: number;
}
const results: PlacementRow[] = [];

const dir = process.argv[2];
if (!dir || !existsSync(dir)) {
  console.log(`shard-placement: no data folder at ${dir ?? "(none given)"}; skipped`);
  process.exit(0);
}
const shardArg = process.argv[process.argv.indexOf("--shards") + 1];
const counts = process.argv.includes("--shards") && shardArg ? shardArg.split(",").map(Number) : [4, 8];

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

function measure(name: string, ops: ChangeOp[], queries: string[]) {
  const s = new CapitalStore();
  const firstEntity = new Map<string, string>();
  for (const op of ops) {
    s.apply(op);
    if (op.op === "head.upsert" && !firstEntity.has(op.chunk)) firstEntity.set(op.chunk, op.entities[0] ?? op.chunk);
  }
  const n = s.size;
  const runs = queries.map((q) => {
    const r = route(s, queryInput(q), DEFAULT_PARAMS);
    const seeds = r.trace.seeds.map((x) => s.index.get(x.chunk) as number);
    const cands = r.candidates.map((c) => s.index.get(c.chunk) as number);
    const mass = [...localPpr(s, new Map(seeds.map((i) => [i, 1])), Date.UTC(2030, 0, 1), DEFAULT_PARAMS).mass.keys()];
    return { seeds, cands, mass };
  });
  for (const S of counts) {
    const placements: Record<string, (i: number) => number> = {
      "chunk-id hash": (i) => fnv(s.ids[i] as string) % S,
      arrival: (i) => Math.min(S - 1, Math.floor((i * S) / n)),
      "first-entity hash": (i) => fnv(firstEntity.get(s.ids[i] as string) ?? (s.ids[i] as string)) % S,
    };
    for (const [label, shard] of Object.entries(placements)) {
      let slots = 0;
      let cross = 0;
      for (let i = 0; i < n; i++) {
        const a = s.nbrStart[i] as number;
        for (let k = a; k < a + (s.nbrCount[i] as number); k++) {
          slots++;
          if (shard(s.slotDst[k] as number) !== shard(i)) cross++;
        }
      }
      const fan = (xs: number[]) => new Set(xs.map(shard)).size;
      const load = new Array(S).fill(0);
      for (let i = 0; i < n; i++) load[shard(i)]++;
      results.push({
        archive: name,
        shards: S,
        placement: label,
        slots,
        crossShare: slots ? cross / slots : 0,
        seedShards: mean(runs.map((r) => fan(r.seeds))),
        candidateShards: mean(runs.map((r) => fan(r.cands))),
        massShards: mean(runs.map((r) => fan(r.mass))),
        largestOverMean: Math.max(...load) / (n / S),
      });
      console.log(
        `| ${name} | ${S} | ${label} | ${slots ? ((100 * cross) / slots).toFixed(1) : "–"}% of ${slots} | ${mean(runs.map((r) => fan(r.seeds))).toFixed(2)} | ${mean(runs.map((r) => fan(r.cands))).toFixed(2)} | ${mean(runs.map((r) => fan(r.mass))).toFixed(2)} | ${(Math.max(...load) / (n / S)).toFixed(2)} |`,
      );
    }
  }
}

console.log(
  "| archive | shards | placement | cross-shard slots | shards with seeds | with top-M candidates | reached by diffusion | largest shard ÷ mean |",
);
console.log("|---|---|---|---|---|---|---|---|");
const hp = loadHotpot(dir);
const tw = loadTwoWiki(dir);
if (hp && tw) {
  const passages = [...hp.passages, ...tw];
  const ops = await plannedOps(passages.map((p) => ({ id: p.id, kind: "note", title: p.title, content: p.text })));
  measure(
    "HotpotQA + 2Wiki",
    ops,
    hp.questions.map((q) => q.question),
  );
}
const cs = loadCiteSeer(dir);
if (cs) {
  const arts: ArtifactInput[] = cs.papers.map((p) => ({
    id: `cs:${p.id}`,
    kind: "paper",
    title: p.text.split(/(?<=[.?!])\s/)[0]?.slice(0, 200) ?? p.id,
    content: p.text,
    edges: [...(cs.held.has(p.id) ? [] : [...(cs.cites.get(p.id) ?? [])])].map((t) => ({
      type: "cites" as const,
      target: `cs:${t}`,
    })),
  }));
  measure(
    "CiteSeer",
    await plannedOps(arts),
    [...cs.held.keys()].map((id) => cs.papers.find((p) => p.id === id)?.text.slice(0, 1000) ?? ""),
  );
}
mkdirSync("bench/results", { recursive: true });
const out = {
  date: new Date().toISOString(),
  commit: source.commit,
  source,
  machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? "unknown", node: process.version },
  rows: results,
};
writeFileSync("bench/results/placement-latest.json", `${JSON.stringify(out, null, 2)}\n`);
console.log("wrote bench/results/placement-latest.json");
