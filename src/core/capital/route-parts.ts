/**
 * The steps route() over one store (route.ts) and routeSharded over shards (directory.ts) take
 * alike: seeding, recency, the candidate pool, a pool node's candidate, the router's start, the
 * selection and the seed trace. A node is read through NodeReads: one store reads its arrays, the
 * directory what the owners answered; test/core/sharding.test.ts holds the two to the same answer.
 */
import type { Candidate, ChunkKind, KernelParams, RouteFilter, RouteInput } from "../types";
import { CHUNK_KIND_CODES } from "./codes";
import type { RouterState } from "./router";
import { relevanceOf, type scorer } from "./scoring";
import type { Seeds } from "./seeds";
import type { ShardResolved } from "./shard";

const DAY = 86_400_000;

/** What the shared steps read of a node (an archive-wide number; a store's own number unsharded). */
export interface NodeReads {
  idOf(i: number): string;
  /** The version visible at the query's time (0: none). */
  versionOf(i: number): number;
  /** The node's chunk-kind code. */
  kindOf(i: number): number;
  recordedAt(i: number): number;
}

export function isZero(a: Uint8Array): boolean {
  for (const b of a) if (b !== 0) return false;
  return true;
}

/**
 * The k best entries of a score map (ties by smaller node), best first, in O(n log k) with a
 * bounded min-heap instead of sorting every hit.
 */
export function topK(scores: Map<number, number>, k: number): Array<[number, number]> {
  if (k <= 0) return [];
  const heap: Array<[number, number]> = [];
  // Min-heap on (score, then larger node first): the root is the weakest kept entry.
  const worse = (a: [number, number], b: [number, number]) => a[1] < b[1] || (a[1] === b[1] && a[0] > b[0]);
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l] as [number, number], heap[m] as [number, number])) m = l;
      if (r < heap.length && worse(heap[r] as [number, number], heap[m] as [number, number])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m] as [number, number], heap[i] as [number, number]];
      i = m;
    }
  };
  for (const e of scores) {
    if (heap.length < k) {
      heap.push(e);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!worse(heap[i] as [number, number], heap[p] as [number, number])) break;
        [heap[i], heap[p]] = [heap[p] as [number, number], heap[i] as [number, number]];
        i = p;
      }
    } else if (worse(heap[0] as [number, number], e)) {
      heap[0] = e;
      down(0);
    }
  }
  return heap.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
}

/** The lexical scores' largest value and their `k` best entries (none when no score is positive). */
export function lexicalTop(lex: Map<number, number>, k: number): { maxLex: number; lexTop: Array<[number, number]> } {
  let maxLex = 0;
  for (const v of lex.values()) maxLex = Math.max(maxLex, v);
  return { maxLex, lexTop: maxLex > 0 ? topK(lex, k) : [] };
}

/**
 * Step 2's seeds after the entities': identifiers, semantic hits and the lexical top, in that
 * order. Returns the semantic score of each node a semantic hit names.
 */
export function plantSeeds(
  sd: Seeds,
  res: ShardResolved,
  input: RouteInput,
  lexTop: ReadonlyArray<[number, number]>,
  maxLex: number,
): Map<number, number> {
  for (const i of res.idChunks) sd.add(i, 1, "identifier");
  const semScore = new Map<number, number>();
  input.semantic.forEach((h, k) => {
    const i = res.semantic[k] as number;
    if (i < 0) return;
    semScore.set(i, h.score);
    if (h.score > 0) sd.add(i, h.score, "semantic");
  });
  for (const [i, v] of lexTop) sd.add(i, v / maxLex, "lexical");
  return semScore;
}

/**
 * The chunks the caller's session accessed (as of t; latest access each) seed with their recency:
 * a node's latest access or record time, halved every recencyHalfLifeDays before `now`. Returns the
 * recency of any node (the recency expert).
 */
export function seedRecent(
  sd: Seeds,
  input: RouteInput,
  recent: readonly number[],
  params: KernelParams,
  nodes: Pick<NodeReads, "recordedAt">,
): (i: number) => number {
  const t = input.asOf;
  const sessionAccess = new Map<number, number>();
  (input.recent ?? []).forEach((r, k) => {
    const i = recent[k] as number;
    if (i >= 0 && r.at <= t) sessionAccess.set(i, Math.max(sessionAccess.get(i) ?? 0, r.at));
  });
  const halfLife = params.recencyHalfLifeDays * DAY;
  const recency = (i: number) => {
    const last = Math.max(sessionAccess.get(i) ?? 0, nodes.recordedAt(i));
    return 2 ** (-Math.max(0, input.now - last) / halfLife);
  };
  for (const i of sessionAccess.keys()) sd.add(i, params.eta * recency(i), "recent");
  return recency;
}

/**
 * The pool: every seed, the 2*M nodes with most diffusion mass (among those the filter lets through)
 * and the timeline neighbours of the lexical seeds, so scoring is O(M), not O(touched); a filter's
 * exact set of at most 4*M chunks joins whole, so a narrow filter (a subtree) is never left with
 * nothing to rank.
 */
export function candidatePool(
  mass: ReadonlyMap<number, number>,
  seeds: ReadonlyMap<number, number>,
  thread: ReadonlyMap<number, number>,
  filter: { flt: RouteFilter | undefined; passes: (i: number) => boolean; allowed: ReadonlySet<number> | null },
  params: KernelParams,
): { byMass: Array<[number, number]>; pool: Set<number> } {
  const massOrder = [...mass.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const byMass = (filter.flt ? massOrder.filter(([i]) => filter.passes(i)) : massOrder).slice(0, 2 * params.topM);
  const pool = new Set<number>([...seeds.keys(), ...byMass.map(([i]) => i), ...thread.keys()]);
  if (filter.allowed !== null && filter.allowed.size <= 4 * params.topM) for (const i of filter.allowed) pool.add(i);
  return { byMass, pool };
}

/** What scoring a pool node reads: the experts, the diffusion mass and the raw signals. */
export interface PoolContext {
  experts: ReturnType<typeof scorer>["experts"];
  product: ReturnType<typeof scorer>["product"];
  mass: ReadonlyMap<number, number>;
  lex: ReadonlyMap<number, number>;
  ceiling: number;
  pinned: ReadonlySet<number>;
  semScore: ReadonlyMap<number, number>;
  noSketch: boolean;
  rawSem: (i: number) => number;
}

/**
 * A pool node as a candidate, or null when no version of it is visible at t: the version filter
 * runs BEFORE the top-M cut (seeds and diffusion are already restricted to visible nodes).
 */
export function candidateAt(nodes: NodeReads, i: number, c: PoolContext): Candidate | null {
  const version = nodes.versionOf(i);
  if (version === 0) return null;
  const ex = c.experts(i);
  const lex = c.lex.get(i) ?? 0;
  return {
    chunk: nodes.idOf(i),
    kind: CHUNK_KIND_CODES[nodes.kindOf(i)] as ChunkKind,
    version,
    score: c.product(ex),
    experts: ex,
    mass: c.mass.get(i) ?? 0,
    relevance: relevanceOf(lex, c.ceiling, ex, c.pinned.has(i)),
    raw: {
      sem: c.noSketch && !c.semScore.has(i) ? null : c.rawSem(i),
      lex,
      match: c.ceiling > 0 ? lex / c.ceiling : 0,
    },
  };
}

/** The router's state before its first hop: the best `limit` candidates selected at depth 0. */
export function startRouter(
  top: ReadonlyArray<{ node: number; score: number }>,
  input: RouteInput,
  params: KernelParams,
  x: Pick<RouterState, "passes" | "pinned" | "head" | "idOf">,
): RouterState {
  const selected = new Map<number, { score: number; depth: number; via: number | null }>();
  for (const c of top.slice(0, input.limit)) selected.set(c.node, { score: c.score, depth: 0, via: null });
  return {
    selected,
    candScore: new Map(top.map((c) => [c.node, c.score])),
    steps: [],
    limit: input.limit,
    lambda: params.routerLambda,
    prefer: new Set(input.preferEdges ?? []),
    ...x,
  };
}

/** A node's relevance (relevanceOf) from its lexical score and experts. */
export function relevanceAt(c: PoolContext, i: number): number {
  return relevanceOf(c.lex.get(i) ?? 0, c.ceiling, c.experts(i), c.pinned.has(i));
}

/** The router's selection as answered: each node's version at t, score, relevance and path. */
export function selection(
  selected: RouterState["selected"],
  nodes: NodeReads,
  pooled: PoolContext,
  order: (a: { score: number; chunk: string }, b: { score: number; chunk: string }) => number,
  limit: number,
) {
  return [...selected.entries()]
    .map(([i, x]) => ({
      chunk: nodes.idOf(i),
      version: nodes.versionOf(i),
      score: x.score,
      relevance: relevanceAt(pooled, i),
      depth: x.depth,
      via: x.via === null ? null : nodes.idOf(x.via),
    }))
    .filter((x) => x.version > 0)
    .sort(order)
    .slice(0, limit);
}

/** The trace's seeds: the 100 heaviest, with why each is one. */
export function seedTrace(
  seeds: ReadonlyMap<number, number>,
  reasons: ReadonlyMap<number, string[]>,
  nodes: Pick<NodeReads, "idOf">,
) {
  return [...seeds.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, 100)
    .map(([i, w]) => ({ chunk: nodes.idOf(i), weight: w, reasons: reasons.get(i) ?? [] }));
}
