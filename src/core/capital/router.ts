/**
 * Routing step 5, one hop: a transparent typed-edge router over the bounded neighbour tables, used
 * by route() over one store and by the directory over shards (the slot lists come from
 * LocalShard.slots either way). score(v) = head(v) + lambda * path(v), path(v) = the score of the
 * node it is reached from x the edge type's prior x the slot's share of that node's weight, lambda
 * the kernel parameter routerLambda.
 */
import type { EdgeType, RouterStep } from "../types";
import { EDGE_TYPE_CODES } from "./codes";
import type { SlotLists } from "./shard";

/**
 * Router priors per edge type (a transparent policy whose weights could later be learned):
 * bibliographic and structural links first, history links a little lower unless the query asks.
 */
export const TYPE_PRIOR: Record<EdgeType, number> = {
  cites: 1.0,
  "benchmarked-on": 1.0,
  "part-of": 1.0,
  implements: 0.9,
  tests: 0.7,
  "depends-on": 0.7,
  "introduced-by": 0.8,
  "discussed-in": 0.8,
  motivates: 0.7,
  "deprecated-by": 0.6,
  mentions: 0.9,
  // A record's neighbour on its timeline, as other structural links. It was 2 (LoCoMo R@10 +3.0 ->
  // +4.9 over BM25) before the thread expert (core/capital/scoring.ts) passed a turn's lexical share
  // to its neighbours; with both, a reply with none of the question's rare words outranked the turn
  // that has them (the same relation counted by the router, the graph and the thread expert), and
  // LoCoMo R@10 with the thread expert is +8.0 at 1 against +8.9 at 2, two questions of 231 apart.
  follows: 1,
};

/** Router steps kept in the trace. */
const TRACE_STEPS = 200;

/** One node's valid slots (to visible targets) among its first K_r, and the weight of all valid ones. */
export interface NodeSlots {
  sum: number;
  dst: number[];
  type: number[];
  weight: number[];
}

/** LocalShard.slots' flat answer for `nodes`, per node. */
export function slotsByNode(nodes: number[], r: SlotLists): Map<number, NodeSlots> {
  const out = new Map<number, NodeSlots>();
  let off = 0;
  nodes.forEach((u, j) => {
    const n = r.n[j] as number;
    out.set(u, {
      sum: r.sum[j] as number,
      dst: r.dst.slice(off, off + n),
      type: r.type.slice(off, off + n),
      weight: r.weight.slice(off, off + n),
    });
    off += n;
  });
  return out;
}

export interface RouterState {
  selected: Map<number, { score: number; depth: number; via: number | null }>;
  candScore: Map<number, number>;
  steps: RouterStep[];
  limit: number;
  /** Weight of a path's support: score(v) = head(v) + lambda * path(v). */
  lambda: number;
  prefer: Set<EdgeType>;
  /** The filter's test of a target (null: no filter). */
  passes: ((v: number) => boolean) | null;
  /** Head score of a node that is not a candidate (core/capital/scoring.ts). */
  head: (v: number) => number;
  idOf: (i: number) => string;
  /** Chunks the question names by identifier: selected first, never evicted for another. */
  pinned?: ReadonlySet<number>;
}

/** Hop `depth` from the frontier over its slot lists; returns the targets it accepted, in order. */
export function routerHop(depth: number, frontier: number[], lists: Map<number, NodeSlots>, st: RouterState): number[] {
  const { selected, candScore } = st;
  const pinned = st.pinned;
  const minSelected = () => {
    let m = Number.POSITIVE_INFINITY;
    for (const [i, v] of selected) if (!pinned?.has(i)) m = Math.min(m, v.score);
    return m;
  };
  const next: number[] = [];
  for (const u of frontier) {
    const uScore = selected.get(u)?.score ?? candScore.get(u) ?? 0;
    const l = lists.get(u);
    if (!l || l.sum <= 0) continue;
    for (let j = 0; j < l.dst.length; j++) {
      const v = l.dst[j] as number;
      if (st.passes && !st.passes(v)) continue;
      const type = EDGE_TYPE_CODES[l.type[j] as number] as EdgeType;
      const prior = TYPE_PRIOR[type] * (st.prefer.has(type) ? 2 : 1);
      const path = uScore * prior * ((l.weight[j] as number) / l.sum);
      const head = candScore.get(v) ?? st.head(v);
      const score = head + st.lambda * path;
      const cur = selected.get(v);
      const accepted = cur ? score > cur.score : selected.size < st.limit || score > minSelected();
      if (st.steps.length < TRACE_STEPS)
        st.steps.push({ depth, from: st.idOf(u), to: st.idOf(v), edgeType: type, score, accepted });
      if (!accepted) continue;
      if (!cur && selected.size >= st.limit) {
        // Evict the weakest selection to keep the output bounded by limit.
        let worst = -1;
        let worstScore = Number.POSITIVE_INFINITY;
        for (const [i, x] of selected)
          if (!pinned?.has(i) && (x.score < worstScore || (x.score === worstScore && i > worst)))
            [worst, worstScore] = [i, x.score];
        // Only pinned chunks are selected: none gives way (minSelected was +Infinity, so not here).
        selected.delete(worst);
      }
      selected.set(v, { score, depth: cur && cur.depth < depth ? cur.depth : depth, via: u });
      next.push(v);
    }
  }
  return next;
}
