/**
 * Personalised PageRank diffusion g = (1 - alpha)(I - alpha P^T)^-1 s (routing step 3), truncated to
 * a fixed number of steps. Each step every node keeps (1 - alpha) of its mass and pushes alpha to its
 * neighbour slots valid at t, proportionally to slot weight; a node with no valid slot keeps all of
 * it. After the last step the remainder is absorbed where it stands. Mass is conserved:
 * sum(g) + residual = 1, where residual is what the local variant declined to propagate.
 */
import type { KernelParams } from "../types";
import { scratch } from "./scratch";
import type { CapitalStore } from "./store";

export interface PprResult {
  mass: Map<number, number>;
  /** Mass not propagated (below pushEpsilon or beyond maxFrontier): sum(mass) + residual = 1. */
  residual: number;
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
    sum += s.slotWeight(k);
  }
  return sum;
}

/**
 * Local, frontier-restricted iteration from the seeds: mass below pushEpsilon is set aside as
 * residual instead of pushed, and at most maxFrontier nodes push per step. Work is therefore at
 * most iterations * min(maxFrontier, 1/epsilon) * K_r slot visits, whatever the archive size.
 * Accumulators are dense typed arrays indexed by node with explicit touched lists, so a step
 * costs its pushes, never a scan of the archive.
 */
export function localPpr(s: CapitalStore, seeds: Map<number, number>, t: number, params: KernelParams): PprResult {
  const alpha = params.alpha;
  const tm = t;
  let total = 0;
  for (const w of seeds.values()) if (w > 0) total += w;
  const mass = new Map<number, number>();
  if (total <= 0) return { mass, residual: 0, touched: 0, steps: 0, work: 0 };
  const sc = scratch(s);
  let x = sc.x;
  let next = sc.next;
  const g = sc.g;
  const gList: number[] = [];
  const addG = (i: number, v: number) => {
    if (g[i] === 0) gList.push(i);
    g[i] = (g[i] as number) + v;
  };
  let frontier: number[] = [];
  for (const [i, w] of seeds) {
    if (w <= 0) continue;
    if (x[i] === 0) frontier.push(i);
    x[i] = (x[i] as number) + w / total;
  }
  // Pruned mass is set aside, not left at the node: leaving it would inflate frontier nodes and
  // distort the top of the ranking relative to the exact PPR (ACL-style push keeps a residual too).
  let residual = 0;
  let work = 0;
  let steps = 0;
  for (; steps < params.iterations && frontier.length > 0; steps++) {
    if (frontier.length > params.maxFrontier) {
      const xs = x;
      frontier.sort((a, b) => (xs[b] as number) - (xs[a] as number) || a - b);
      for (const i of frontier.slice(params.maxFrontier)) {
        residual += x[i] as number;
        x[i] = 0;
      }
      frontier = frontier.slice(0, params.maxFrontier);
    }
    const nextList: number[] = [];
    for (const u of frontier) {
      const m = x[u] as number;
      x[u] = 0;
      if (m < params.pushEpsilon) {
        residual += m;
        continue;
      }
      addG(u, (1 - alpha) * m);
      const start = s.nbrStart[u] as number;
      const end = start + (s.nbrCount[u] as number);
      work += end - start;
      const sum = validWeight(s, u, t, tm);
      if (sum <= 0) {
        addG(u, alpha * m);
        continue;
      }
      const push = (alpha * m) / sum;
      for (let k = start; k < end; k++) {
        const d = s.slotDst[k] as number;
        const w = s.slotWeight(k);
        if (w <= 0 || !s.slotValid(u, k, tm) || !s.visibleAt(d, t)) continue;
        if (next[d] === 0) nextList.push(d);
        next[d] = (next[d] as number) + push * w;
      }
    }
    const tmp = x;
    x = next;
    next = tmp;
    frontier = nextList;
  }
  for (const i of frontier) {
    addG(i, x[i] as number);
    x[i] = 0;
  }
  for (const i of gList) {
    mass.set(i, g[i] as number);
    g[i] = 0;
  }
  sc.x = x;
  sc.next = next;
  return { mass, residual, touched: mass.size, steps, work };
}

/**
 * Global power iteration over every node and slot (what HippoRAG does with a full-graph PPR):
 * O(N + E) per step. Same transition matrix and dangling handling as localPpr, no pruning.
 * Used by benchmarks and the agreement test, never on the query path.
 */
export function fullPpr(s: CapitalStore, seeds: Map<number, number>, t: number, params: KernelParams): PprResult {
  const n = s.size;
  const alpha = params.alpha;
  const tm = t;
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
      sum += s.slotWeight(k);
    }
    sums[i] = sum;
  }
  let x = new Float64Array(n);
  const g = new Float64Array(n);
  let total = 0;
  for (const w of seeds.values()) total += w;
  if (total <= 0) return { mass: new Map(), residual: 0, touched: 0, steps: 0, work: 0 };
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
        next[d] = (next[d] as number) + push * s.slotWeight(k);
      }
    }
    x = next;
  }
  const mass = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const v = (g[i] as number) + (x[i] as number);
    if (v > 0) mass.set(i, v);
  }
  return { mass, residual: 0, touched: mass.size, steps, work };
}
