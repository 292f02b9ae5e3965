/**
 * Capital-first routing over heads only, in five steps: mentions -> entities as of t, seed
 * distribution, local diffusion, head scoring (the lexical expert plus bounded shares of the others) with the version filter applied
 * BEFORE the top-M cut, then a transparent typed-edge router over the bounded neighbour tables.
 * routeSharded (directory.ts) runs the same steps over several shards in rounds; the steps both
 * take are shared (Seeds, scorer, filterTest, graphGain, threadShares, routerHop, topK,
 * LocalShard.resolve), and test/core/sharding.test.ts holds the two to the same answer.
 */
import { sketchCosine } from "../sketch";
import type { Candidate, ChunkKind, KernelParams, RouteInput, RouteResult, RouterStep } from "../types";
import { CHUNK_KIND_CODES } from "./codes";
import { localPpr } from "./diffusion";
import { type RouterState, routerHop, slotsByNode } from "./router";
import {
  filterTest,
  graphGain,
  lexicalCeiling,
  pinnedIds,
  rankOrder,
  relevanceOf,
  scorer,
  threadShares,
} from "./scoring";
import { Seeds } from "./seeds";
import { LocalShard, resolveQuery } from "./shard";
import type { CapitalStore } from "./store";

const DAY = 86_400_000;

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

function isZero(a: Uint8Array): boolean {
  for (const b of a) if (b !== 0) return false;
  return true;
}

/**
 * One query, steps 1-5 in order (one body on purpose): the steps share a dozen per-query
 * structures (resolved entities, seeds and their reasons, symbolic weights, lexical scores, the
 * diffusion mass, the scored pool, the selection), and the expert closure is used both to score the
 * pool and to score nodes the router reaches. Split into functions, each step would take and return
 * most of that state; in one body each step reads as the numbered comment says. What reads little of
 * it is a helper below: session recency, a pool node's candidate, the selection and the seed trace.
 */
export function route(s: CapitalStore, input: RouteInput, params: KernelParams = s.params): RouteResult {
  const t = input.asOf;

  // 1. Mentions -> entities (longest first; a shorter mention inside a resolved longer one that
  //    resolves to the same entity is not counted twice), identifiers, filter sets: what the
  //    tables say (LocalShard.resolve, which the names shard of a sharded archive answers).
  //    Unsharded, archive-wide node numbers are the store's own.
  const shard = new LocalShard(s);
  const res = shard.resolve(resolveQuery(input, params));
  const mentions = res.mentions;

  // 2. Seeds: entity hits weighted by rarity, identifiers, semantic and lexical hits, and the
  //    chunks the caller's session accessed (no session: no recency seeds, so a ranking depends
  //    only on the archive, the query, t and the parameters).
  const sd = new Seeds(s.openDocs || s.size, (i) => s.visibleAt(i, t));
  sd.entities(res.entities);
  const seeds = sd.weights;
  const reasons = sd.reasons;
  const symWeight = sd.symWeight;
  const invisible = sd.invisible;
  const symTotal = sd.symTotal;
  const addSeed = (i: number, w: number, why: string) => sd.add(i, w, why);
  for (const i of res.idChunks) addSeed(i, 1, "identifier");
  const semScore = new Map<number, number>();
  input.semantic.forEach((h, k) => {
    const i = res.semantic[k] as number;
    if (i < 0) return;
    semScore.set(i, h.score);
    if (h.score > 0) addSeed(i, h.score, "semantic");
  });
  const lex = input.terms?.length
    ? s.lexicalScores(input.terms, t, params.maxPostingsPerTerm, params.maxLexicalPostings)
    : new Map<number, number>();
  let maxLex = 0;
  for (const v of lex.values()) maxLex = Math.max(maxLex, v);
  const ceiling = input.terms?.length ? lexicalCeiling(s.termCounts(input.terms), s.openDocs) : 0;
  const pinnedSet = new Set(res.idChunks);
  const lexTop = maxLex > 0 ? topK(lex, params.lexicalSeeds) : [];
  for (const [i, v] of lexTop) addSeed(i, v / maxLex, "lexical");
  const { sessionAccess, recency } = recencyOf(s, input, res.recent, params);
  for (const i of sessionAccess.keys()) addSeed(i, params.eta * recency(i), "recent");

  // Filters (exact sets from postings; checked before the top-M cut and on router targets).
  const flt = input.filter;
  const noSketch = isZero(input.querySketch);
  const cos = (i: number) => sketchCosine(input.querySketch, s.sketchOf(i));
  const rawSem = (i: number) => semScore.get(i) ?? (noSketch ? 1 : cos(i));
  const { allowed, passes, excluded } = filterTest(flt, res.filter, (i) => s.kind[i] as number, rawSem);

  // 3. Diffusion from the seeds (local; invisible nodes and edges carry no mass).
  const ppr = localPpr(s, seeds, t, params);
  const beta = params.degreeExponent;
  const damped = (i: number, m: number) => (beta > 0 && m > 0 ? m / Math.max(1, s.nbrCount[i] as number) ** beta : m);
  const { gain, maxGain } = graphGain(ppr.mass, seeds, damped);
  const lexNodes = lexTop.map(([i]) => i);
  const thread =
    params.weights.thread > 0 && s.hasRecords()
      ? threadShares(lexTop, maxLex, slotsByNode(lexNodes, shard.slots(lexNodes, t, params.kr)))
      : new Map<number, number>();

  // 4. Head scores: the lexical expert plus bounded shares of the others.
  const { experts, product } = scorer({
    params,
    noSketch,
    semScore,
    cos,
    lex,
    maxLex,
    symTotal,
    symWeight,
    gain,
    maxGain,
    recency,
    thread,
  });
  const relevance = (i: number) => relevanceOf(lex.get(i) ?? 0, ceiling, experts(i), pinnedSet.has(i));
  // Pool: every seed, the 2*M nodes with most diffusion mass (among those the filter lets through)
  // and the timeline neighbours of the lexical seeds, so scoring is O(M), not O(touched); a filter's
  // exact set of at most 4*M chunks joins whole, so a narrow filter (a subtree) is never left with
  // nothing to rank.
  const massOrder = [...ppr.mass.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const byMass = (flt ? massOrder.filter(([i]) => passes(i)) : massOrder).slice(0, 2 * params.topM);
  const pool = new Set<number>([...seeds.keys(), ...byMass.map(([i]) => i), ...thread.keys()]);
  if (allowed !== null && allowed.size <= 4 * params.topM) for (const i of allowed) pool.add(i);
  const scored: Candidate[] = [];
  const pooled: PoolContext = {
    experts,
    product,
    mass: ppr.mass,
    lex,
    ceiling,
    pinned: pinnedSet,
    semScore,
    noSketch,
    rawSem,
  };
  for (const i of pool) {
    if (flt && !passes(i)) continue;
    const c = candidateAt(s, i, t, pooled);
    if (c) scored.push(c);
    else invisible.add(i);
  }
  const order = rankOrder(pinnedIds(res.idChunks.map((i) => s.ids[i] as string)));
  scored.sort(order);
  const candidates = scored.slice(0, params.topM);
  const candScore = new Map(candidates.map((c) => [s.index.get(c.chunk) as number, c.score]));

  // 5. Router: multi-hop over neighbour tables from the best candidates, heads only.
  const selected = new Map<number, { score: number; depth: number; via: number | null }>();
  for (const c of candidates.slice(0, input.limit))
    selected.set(s.index.get(c.chunk) as number, { score: c.score, depth: 0, via: null });
  const steps: RouterStep[] = [];
  const router: RouterState = {
    selected,
    candScore,
    steps,
    limit: input.limit,
    lambda: params.routerLambda,
    prefer: new Set(input.preferEdges ?? []),
    passes: flt ? passes : null,
    pinned: pinnedSet,
    head: (v) => product(experts(v)),
    idOf: (i) => s.ids[i] as string,
  };
  let frontier = candidates.slice(0, params.routerBeam).map((c) => s.index.get(c.chunk) as number);
  for (let depth = 1; depth <= params.dMax && frontier.length > 0; depth++) {
    const next = routerHop(depth, frontier, slotsByNode(frontier, shard.slots(frontier, t, params.kr)), router);
    frontier = [...new Set(next)].slice(0, params.routerBeam);
  }
  const sel = selection(s, selected, t, relevance)
    .filter((x) => x.version > 0)
    .sort(order)
    .slice(0, input.limit);

  const massTop = byMass.slice(0, 50).map(([i, m]) => ({ chunk: s.ids[i] as string, mass: m }));
  return {
    candidates,
    selected: sel,
    trace: {
      mentions,
      seeds: seedTrace(s, seeds, reasons),
      diffusion: { touched: ppr.touched, steps: ppr.steps, mass: massTop },
      routerSteps: steps,
      filteredByTime: invisible.size,
      filteredByFilter: excluded.size,
      candidatePool: pool.size,
    },
  };
}

/** What scoring a pool node reads: the experts, the diffusion mass and the raw signals. */
interface PoolContext {
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
function candidateAt(s: CapitalStore, i: number, t: number, c: PoolContext): Candidate | null {
  const version = s.versionAtIdx(i, t);
  if (version === 0) return null;
  const ex = c.experts(i);
  const lex = c.lex.get(i) ?? 0;
  return {
    chunk: s.ids[i] as string,
    kind: CHUNK_KIND_CODES[s.kind[i] as number] as ChunkKind,
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

/** The trace's seeds: the 100 heaviest, with why each is one. */
function seedTrace(s: CapitalStore, seeds: ReadonlyMap<number, number>, reasons: ReadonlyMap<number, string[]>) {
  return [...seeds.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, 100)
    .map(([i, w]) => ({ chunk: s.ids[i] as string, weight: w, reasons: reasons.get(i) ?? [] }));
}

/**
 * The chunks the caller's session accessed (as of t; latest access each) and the recency of a node:
 * its latest access or record time, halved every recencyHalfLifeDays before `now`.
 */
function recencyOf(s: CapitalStore, input: RouteInput, recent: readonly number[], params: KernelParams) {
  const t = input.asOf;
  const sessionAccess = new Map<number, number>();
  (input.recent ?? []).forEach((r, k) => {
    const i = recent[k] as number;
    if (i >= 0 && r.at <= t) sessionAccess.set(i, Math.max(sessionAccess.get(i) ?? 0, r.at));
  });
  const halfLife = params.recencyHalfLifeDays * DAY;
  const recency = (i: number) => {
    const last = Math.max(sessionAccess.get(i) ?? 0, s.recordedAt[i] as number);
    return 2 ** (-Math.max(0, input.now - last) / halfLife);
  };
  return { sessionAccess, recency };
}

/** The router's selection as answered: each node's version at t, score, relevance and path. */
function selection(
  s: CapitalStore,
  selected: ReadonlyMap<number, { score: number; depth: number; via: number | null }>,
  t: number,
  relevance: (i: number) => number,
) {
  return [...selected.entries()].map(([i, x]) => ({
    chunk: s.ids[i] as string,
    version: s.versionAtIdx(i, t),
    score: x.score,
    relevance: relevance(i),
    depth: x.depth,
    via: x.via === null ? null : (s.ids[x.via] as string),
  }));
}
