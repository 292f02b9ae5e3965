/**
 * Personalised PageRank diffusion g = (1 - alpha)(I - alpha P^T)^-1 s (DESIGN step 3), truncated to
 * a fixed number of steps. Each step every node keeps (1 - alpha) of its mass and pushes alpha to its
 * neighbour slots valid at t, proportionally to slot weight; a node with no valid slot keeps all of
 * it. After the last step the remainder is absorbed where it stands, so sum(g) = 1 exactly.
 */
import type { KernelParams } from "../types";
import { MINUTE, type CapitalStore } from "./store";

export interface PprResult {
  mass: Map<number, number>;
  touched: number;
  steps: number;
  /** Slot visits: the unit of work, independent of wall-clock noise. */
  work: number;
}

/** Sum of valid slot weights of node i at t, to visible neighbours; also reports slot visits. */
function validWeight(s: CapitalStore, i: number, t: number, tm: number): number {
  let sum = 0;
  const start = s.nbrStart[i] as number;
  const end = start + (s.nbrCount[i] as number);
  for (let k = start; k < end; k++) {
    if (!s.slotValid(i, k, tm) || !s.visibleAt(s.slotDst[k] as number, t)) continue;
    sum += s.slotW[k] as number;
  }
  return sum;
}

/**
 * Local, frontier-restricted iteration from the seeds: mass below pushEpsilon is absorbed instead of
 * pushed, and at most maxFrontier nodes are carried per step. Work is therefore at most
 * iterations * min(maxFrontier, 1/epsilon) * K_r slot visits (20 * 4096 * 32 ~ 2.6M in the worst
 * case, typically a few thousand), whatever the archive size.
 */
export function localPpr(s: CapitalStore, seeds: Map<number, number>, t: number, params: KernelParams): PprResult {
  const alpha = params.alpha;
  const tm = Math.floor(t / MINUTE);
  let total = 0;
  for (const w of seeds.values()) total += w;
  const g = new Map<number, number>();
  if (total <= 0) return { mass: g, touched: 0, steps: 0, work: 0 };
  let x = new Map<number, number>();
  for (const [i, w] of seeds) if (w > 0) x.set(i, w / total);
  const add = (m: Map<number, number>, i: number, v: number) => m.set(i, (m.get(i) ?? 0) + v);
  let work = 0;
  let steps = 0;
  for (; steps < params.iterations && x.size > 0; steps++) {
    let entries = [...x.entries()];
    if (entries.length > params.maxFrontier) {
      entries.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      for (const [i, m] of entries.slice(params.maxFrontier)) add(g, i, m);
      entries = entries.slice(0, params.maxFrontier);
    }
    const next = new Map<number, number>();
    for (const [u, m] of entries) {
      if (m < params.pushEpsilon) {
        add(g, u, m);
        continue;
      }
      add(g, u, (1 - alpha) * m);
      const start = s.nbrStart[u] as number;
      const end = start + (s.nbrCount[u] as number);
      work += end - start;
      const sum = validWeight(s, u, t, tm);
      if (sum <= 0) {
        add(g, u, alpha * m);
        continue;
      }
      const push = (alpha * m) / sum;
      for (let k = start; k < end; k++) {
        const d = s.slotDst[k] as number;
        if (!s.slotValid(u, k, tm) || !s.visibleAt(d, t)) continue;
        add(next, d, push * (s.slotW[k] as number));
      }
    }
    x = next;
  }
  for (const [i, m] of x) add(g, i, m);
  return { mass: g, touched: g.size, steps, work };
}

/**
 * Global power iteration over every node and slot (what HippoRAG does with a full-graph PPR):
 * O(N + E) per step. Same transition matrix and dangling handling as localPpr, no pruning.
 * Used by benchmarks and the agreement test, never on the query path.
 */
export function fullPpr(s: CapitalStore, seeds: Map<number, number>, t: number, params: KernelParams): PprResult {
  const n = s.size;
  const alpha = params.alpha;
  const tm = Math.floor(t / MINUTE);
  const sums = new Float64Array(n);
  const visible = new Uint8Array(n);
  for (let i = 0; i < n; i++) visible[i] = s.visibleAt(i, t) ? 1 : 0;
  let work = 0;
  for (let i = 0; i < n; i++) {
    const start = s.nbrStart[i] as number;
    const end = start + (s.nbrCount[i] as number);
    let sum = 0;
    for (let k = start; k < end; k++) {
      if (!s.slotValid(i, k, tm) || !visible[s.slotDst[k] as number]) continue;
      sum += s.slotW[k] as number;
    }
    sums[i] = sum;
  }
  let x = new Float64Array(n);
  const g = new Float64Array(n);
  let total = 0;
  for (const w of seeds.values()) total += w;
  if (total <= 0) return { mass: new Map(), touched: 0, steps: 0, work: 0 };
  for (const [i, w] of seeds) x[i] = (x[i] as number) + w / total;
  let steps = 0;
  for (; steps < params.iterations; steps++) {
    const next = new Float64Array(n);
    for (let u = 0; u < n; u++) {
      const m = x[u] as number;
      g[u] = (g[u] as number) + (1 - alpha) * m;
      const sum = sums[u] as number;
      const start = s.nbrStart[u] as number;
      const end = start + (s.nbrCount[u] as number);
      work += end - start;
      if (sum <= 0) {
        g[u] = (g[u] as number) + alpha * m;
        continue;
      }
      const push = (alpha * m) / sum;
      for (let k = start; k < end; k++) {
        const d = s.slotDst[k] as number;
        if (!visible[d] || !s.slotValid(u, k, tm)) continue;
        next[d] = (next[d] as number) + push * (s.slotW[k] as number);
      }
    }
    x = next;
  }
  const mass = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const v = (g[i] as number) + (x[i] as number);
    if (v > 0) mass.set(i, v);
  }
  return { mass, touched: mass.size, steps, work };
}
