/**
 * Capital-first routing over heads only, in five steps: mentions -> entities as of t, seed
 * distribution, local diffusion, head scoring (the lexical expert plus bounded shares of the others) with the version filter applied
 * BEFORE the top-M cut, then a transparent typed-edge router over the bounded neighbour tables.
 * routeSharded (directory.ts) runs the same steps over several shards in rounds; the steps both
 * take are shared (Seeds, scorer, filterTest, graphGain, threadShares, routerHop, lexicalTop,
 * LocalShard.resolve), and test/core/sharding.test.ts holds the two to the same answer.
 */
import { sketchCosine } from "../sketch";
import type { Candidate, KernelParams, RouteInput, RouteResult } from "../types";
import { localPpr } from "./diffusion";
import {
  candidateAt,
  candidatePool,
  isZero,
  lexicalTop,
  type NodeReads,
  type PoolContext,
  plantSeeds,
  seedRecent,
  seedTrace,
  selection,
  startRouter,
} from "./route-parts";
import { routerHop, slotsByNode } from "./router";
import { filterTest, graphGain, lexicalCeiling, rankOrder, scorer, threadShares } from "./scoring";
import { Seeds } from "./seeds";
import { LocalShard, resolveQuery } from "./shard";
import type { CapitalStore } from "./store";

/**
 * One query, steps 1-5 in order (one body on purpose): the steps share a dozen per-query
 * structures (resolved entities, seeds and their reasons, symbolic weights, lexical scores, the
 * diffusion mass, the scored pool, the selection), and the expert closure is used both to score the
 * pool and to score nodes the router reaches. Split into functions, each step would take and return
 * most of that state; in one body each step reads as the numbered comment says. What reads little of
 * it, and what routeSharded takes alike, is in route-parts.ts: seeding, session recency, the pool, a
 * pool node's candidate, the router's start, the selection and the seed trace.
 */
export function route(s: CapitalStore, input: RouteInput, params: KernelParams = s.params): RouteResult {
  const t = input.asOf;

  // 1. Mentions -> entities (longest first; a shorter mention inside a resolved longer one that
  //    resolves to the same entity is not counted twice), identifiers, filter sets: what the
  //    tables say (LocalShard.resolve, which the names shard of a sharded archive answers).
  //    Unsharded, archive-wide node numbers are the store's own.
  const shard = new LocalShard(s);
  const nodes: NodeReads = {
    idOf: (i) => s.ids[i] as string,
    versionOf: (i) => s.versionAtIdx(i, t),
    kindOf: (i) => s.kind[i] as number,
    recordedAt: (i) => s.recordedAt[i] as number,
  };
  const res = shard.resolve(resolveQuery(input, params));
  const mentions = res.mentions;

  // 2. Seeds: entity hits weighted by rarity, identifiers, semantic and lexical hits, and the
  //    chunks the caller's session accessed (no session: no recency seeds, so a ranking depends
  //    only on the archive, the query, t and the parameters).
  const sd = new Seeds(s.openDocs || s.size, (i) => s.visibleAt(i, t));
  sd.entities(res.entities);
  const { weights: seeds, reasons, invisible } = sd;
  const lex = input.terms?.length
    ? s.lexicalScores(input.terms, t, params.maxPostingsPerTerm, params.maxLexicalPostings)
    : new Map<number, number>();
  const { maxLex, lexTop } = lexicalTop(lex, params.lexicalSeeds);
  const ceiling = input.terms?.length ? lexicalCeiling(s.termCounts(input.terms), s.openDocs) : 0;
  const pinnedSet = new Set(res.idChunks);
  const semScore = plantSeeds(sd, res, input, lexTop, maxLex);
  const recency = seedRecent(sd, input, res.recent, params, nodes);

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
  const graph = graphGain(ppr.mass, seeds, damped);
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
    seeds: sd,
    graph,
    recency,
    thread,
  });
  const { byMass, pool } = candidatePool(ppr.mass, seeds, thread, { flt, passes, allowed }, params);
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
    const c = candidateAt(nodes, i, pooled);
    if (c) scored.push(c);
    else invisible.add(i);
  }
  const order = rankOrder(res.idChunks.map((i) => s.ids[i] as string));
  scored.sort(order);
  const candidates = scored.slice(0, params.topM);

  // 5. Router: multi-hop over neighbour tables from the best candidates, heads only.
  const router = startRouter(
    candidates.map((c) => ({ node: s.index.get(c.chunk) as number, score: c.score })),
    input,
    params,
    { passes: flt ? passes : null, pinned: pinnedSet, head: (v) => product(experts(v)), idOf: nodes.idOf },
  );
  let frontier = candidates.slice(0, params.routerBeam).map((c) => s.index.get(c.chunk) as number);
  for (let depth = 1; depth <= params.dMax && frontier.length > 0; depth++) {
    const next = routerHop(depth, frontier, slotsByNode(frontier, shard.slots(frontier, t, params.kr)), router);
    frontier = [...new Set(next)].slice(0, params.routerBeam);
  }
  const sel = selection(router.selected, nodes, pooled, order, input.limit);

  const massTop = byMass.slice(0, 50).map(([i, m]) => ({ chunk: s.ids[i] as string, mass: m }));
  return {
    candidates,
    selected: sel,
    trace: {
      mentions,
      seeds: seedTrace(seeds, reasons, nodes),
      diffusion: { touched: ppr.touched, steps: ppr.steps, mass: massTop },
      routerSteps: router.steps,
      filteredByTime: invisible.size,
      filteredByFilter: excluded.size,
      candidatePool: pool.size,
    },
  };
}
