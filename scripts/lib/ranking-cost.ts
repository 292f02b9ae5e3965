/**
 * What Paper Circle's ranking adds to a route (`npm run bench`): rankPool (src/core/research/
 * rank-pool.ts) on synthetic candidate pools of 64, 128 and 256 heads (title + synopsis of ~40
 * words each, as D1 gives them), without MMR and with MMR picking 10 and 50. Scoring is O(pool);
 * MMR adds k · pool TF-IDF cosines. The D1 read for the pool (3 to 4 batched statements for 256
 * candidates) is not part of this in-process figure.
 */
import { type PoolCandidate, rankPool } from "../../src/core/research/rank-pool";
import { rng, SYNTHETIC_VOCABULARY, zipfSampler } from "./synthetic";

export interface RankingCost {
  pool: number;
  /** Median CPU ms per call. */
  combined: number;
  mmr10: number;
  mmr50: number;
}

function pool(n: number, seed: number): PoolCandidate[] {
  const r = rng(seed);
  const word = zipfSampler(SYNTHETIC_VOCABULARY, r);
  return Array.from({ length: n }, (_, i) => ({
    id: `c${i}`,
    version: 1,
    text: Array.from({ length: 40 }, () => `w${word()}`).join(" "),
    year: 1990 + Math.floor(r() * 35),
    similarity: r(),
    bm25: r() * 20,
    citations: Math.floor(r() * 100),
    poe: r(),
    venues: [],
  }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Median CPU ms (user + system) per call: wall time is unreliable on a shared 2-core machine. */
function timeIt(fn: () => unknown, runs: number): number {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.cpuUsage();
    fn();
    const d = process.cpuUsage(t);
    out.push((d.user + d.system) / 1000);
  }
  return Math.round(median(out) * 1000) / 1000;
}

export function measureRankingCost(runs = 30): RankingCost[] {
  return [64, 128, 256].map((n) => {
    const p = pool(n, n);
    rankPool(p, { mode: "balanced", k: 10 }); // warm-up
    return {
      pool: n,
      combined: timeIt(() => rankPool(p, { mode: "balanced", k: 32 }), runs),
      mmr10: timeIt(() => rankPool(p, { mode: "balanced", mmr: true, k: 10 }), runs),
      mmr50: timeIt(() => rankPool(p, { mode: "balanced", mmr: true, k: 50 }), runs),
    };
  });
}
