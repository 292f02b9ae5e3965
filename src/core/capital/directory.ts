/**
 * route() over an archive whose capital chunk spans several shards. The directory keeps the
 * per-query state (seeds, frontier mass, scores, selection) and asks the shards in batched rounds:
 *
 *   1. counts from every shard (documents, postings of the query's and the mentions' words);
 *   2. lexical scores from the shards holding postings to read + resolution from the names shard
 *      (shard 0: it holds the name tables), with the archive-wide counts of the mentions' words;
 *   3. what the owners know of the seeds, with their adjacency (diffusion's first step, the lexical
 *      seeds' timeline slots);
 *   4. diffusion: the directory pushes the mass itself over the adjacency the owners give, asking
 *      only for nodes this query has not seen (a few rounds for all of localPpr's steps);
 *   5. what the owners know of the touched nodes (scoring);
 *   6. one round per router hop: what the targets' owners know, with the targets' adjacency.
 *
 * Nodes are archive-wide numbers (the order their ids first appeared in the change log, which is
 * the one-store numbering), and every combination follows route() and localPpr in the same order,
 * so the answer is route()'s over one store holding everything (test/core/sharding.test.ts). Term
 * postings are read newest shard first within each term's cap; a store reads its newest postings
 * first, so the two read the same postings unless a cap binds on a term whose newest postings
 * include a revision on an older shard.
 */

import { terms as stems } from "../text/analyze";
import { termHash } from "../text/lexical";
import type { Candidate, ChunkKind, KernelParams, RouteInput, RouteResult, RouterStep } from "../types";
import { CHUNK_KIND_CODES } from "./codes";
import { lexicalPlan } from "./lexical-plan";
import { topK } from "./route";
import { type NodeSlots, type RouterState, routerHop } from "./router";
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
import {
  adjacencyByNode,
  type CapitalShard,
  type NodeAdjacency,
  type NodeInfo,
  resolveQuery,
  type ShardCounts,
} from "./shard";

const DAY = 86_400_000;

/** The newest shard asked is closed: a newer one exists, and the caller lists the shards again. */
export class StaleShards extends Error {
  constructor() {
    super("a newer shard exists than the ones given");
  }
}

function isZero(a: Uint8Array): boolean {
  for (const b of a) if (b !== 0) return false;
  return true;
}

/** The router's view of a node (LocalShard.slots' answer) from its adjacency. */
export function routerSlots(a: NodeAdjacency): NodeSlots {
  return { sum: a.sum, dst: a.dst.slice(0, a.nr), type: a.type.slice(0, a.nr), weight: a.w.slice(0, a.nr) };
}

/**
 * route() over shards given oldest first (see the header). `given` null: the archive's parameters
 * come with the newest shard's counts (ShardCounts.params), which saves a round.
 */
export async function routeSharded(
  shards: CapitalShard[],
  input: RouteInput,
  given: KernelParams | null,
): Promise<RouteResult> {
  const t = input.asOf;
  let rounds = 0;
  const names = shards[0];
  if (!names) throw new Error("routeSharded needs at least one shard");
  const terms = input.terms ?? [];
  // A grounded name counts only against the archive-wide postings of its rarest word
  // (ResolveQuery.nameShare), so the counts round asks for the mentions' words too.
  const nameWords = given === null || given.nameShare > 0 ? input.mentions.flatMap((m) => stems(m)) : [];

  // 1. Counts from every shard.
  const counts = await Promise.all(shards.map((s) => s.counts([...terms, ...nameWords])));
  rounds++;
  const newest = counts[counts.length - 1] as ShardCounts;
  if (newest.closed) throw new StaleShards();
  const params = given ?? newest.params;
  if (!params) throw new Error("routeSharded: no parameters given, and the newest shard sent none");
  const queryTerms = new Set(terms.map(termHash));
  const wordDf = new Map<number, number>();
  for (const c of counts) for (const [term, n] of c.terms) wordDf.set(term, (wordDf.get(term) ?? 0) + n);
  const ownerOf = (g: number): number => {
    for (let k = counts.length - 1; k >= 0; k--) {
      const c = counts[k] as ShardCounts;
      if (g >= c.lo && g < c.lo + c.size) return k;
    }
    return -1;
  };
  const info = new Map<number, NodeInfo | null>();
  const noSketch = isZero(input.querySketch);
  const sketch = noSketch ? null : input.querySketch;
  /** A node's adjacency as the owner gave it (null: no owner answers for it). */
  const adj = new Map<number, NodeAdjacency | null>();
  /**
   * One round: what the owners know of `infoNodes` and the adjacency of `adjNodes`, each asked
   * only for the nodes this query has not asked yet, in one call per owner.
   */
  const ask = async (infoNodes: Iterable<number>, adjNodes: Iterable<number> = []) => {
    const byOwner = new Map<number, { info: number[]; adj: number[] }>();
    const to = (g: number) => {
      const k = ownerOf(g);
      if (k < 0) return null;
      const l = byOwner.get(k) ?? { info: [], adj: [] };
      byOwner.set(k, l);
      return l;
    };
    for (const g of infoNodes) {
      if (info.has(g)) continue;
      info.set(g, null);
      to(g)?.info.push(g);
    }
    for (const g of adjNodes) {
      if (adj.has(g)) continue;
      adj.set(g, null);
      to(g)?.adj.push(g);
    }
    if (byOwner.size === 0) return;
    rounds++;
    await Promise.all(
      [...byOwner].map(async ([k, l]) => {
        const r = await (shards[k] as CapitalShard).nodes(l.info, l.adj, t, sketch, params.kr);
        for (const [j, g] of l.info.entries()) info.set(g, r.info[j] ?? null);
        for (const [g, a] of adjacencyByNode(l.adj, r.adj)) adj.set(g, a);
      }),
    );
  };
  /** The router's view of `nodes` (their first kr valid slots), from their adjacency. */
  const slotsOf = async (nodes: number[]): Promise<Map<number, NodeSlots>> => {
    await ask([], nodes);
    const lists = new Map<number, NodeSlots>();
    for (const u of nodes) {
      const a = adj.get(u);
      if (a) lists.set(u, routerSlots(a));
    }
    return lists;
  };
  const visible = (i: number) => info.get(i)?.visible === true;
  const idOf = (i: number) => info.get(i)?.id ?? "";

  // 2. Lexical postings (rarest terms first, newest shard first within a term's cap).
  let openDocs = 0;
  let openLen = 0;
  let globalCount = 0;
  const termTotals = new Map<number, number>();
  for (const c of counts) {
    openDocs += c.openDocs;
    openLen += c.openLen;
    globalCount = Math.max(globalCount, c.globalCount);
    for (const [term, n] of c.terms) if (queryTerms.has(term)) termTotals.set(term, (termTotals.get(term) ?? 0) + n);
  }
  const lexP = (async () => {
    const lex = new Map<number, number>();
    if (terms.length === 0) return lex;
    const n = Math.max(1, openDocs);
    const avg = openDocs > 0 ? Math.max(1, openLen / openDocs) : 1;
    const plan = lexicalPlan([...termTotals], n, params.maxPostingsPerTerm, params.maxLexicalPostings);
    const perShard = counts.map(() => [] as Array<[number, number, number]>);
    for (const p of plan) {
      let left = p.cap;
      for (let k = counts.length - 1; k >= 0 && left > 0; k--) {
        const here = (counts[k] as ShardCounts).terms.find(([h]) => h === p.term)?.[1] ?? 0;
        const cap = Math.min(left, here);
        if (cap > 0) (perShard[k] as Array<[number, number, number]>).push([p.term, cap, p.idf]);
        left -= cap;
      }
    }
    const asked = perShard.map((pl, k) => (pl.length ? (shards[k] as CapitalShard).lexical(pl, t, avg) : null));
    for (const r of await Promise.all(asked)) for (const [g, v] of r ?? []) lex.set(g, v);
    return lex;
  })();
  //    Resolution beside them, from the names shard (it holds the name tables), with the
  //    archive-wide postings of the mentions' words.
  const [lex, res] = await Promise.all([lexP, names.resolve(resolveQuery(input, params, [...wordDf]))]);
  rounds++;
  const seedNodes: number[] = [...res.idChunks];
  for (const e of res.entities) seedNodes.push(...e.hits);
  for (const g of [...res.semantic, ...res.recent]) if (g >= 0) seedNodes.push(g);
  let maxLex = 0;
  for (const v of lex.values()) maxLex = Math.max(maxLex, v);
  const ceiling = lexicalCeiling(
    [...queryTerms].map((h) => [h, termTotals.get(h) ?? 0] as const),
    openDocs,
  );
  const pinnedSet = new Set(res.idChunks);
  const lexTop = maxLex > 0 ? topK(lex, params.lexicalSeeds) : [];
  const lexNodes = lexTop.map(([i]) => i);
  // 3. What the owners know of the seeds, with their adjacency, in one round: diffusion's first step
  //    pushes from them, and the lexical seeds' timeline neighbours (the thread expert) are in it.
  await ask([...seedNodes, ...lexNodes], [...seedNodes, ...lexNodes]);
  const lexSlots =
    params.weights.thread > 0 && lexNodes.length && counts.some((c) => c.records !== false)
      ? await slotsOf(lexNodes)
      : new Map<number, NodeSlots>();

  const sd = new Seeds(openDocs || globalCount, visible);
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
  for (const [i, v] of lexTop) addSeed(i, v / maxLex, "lexical");
  const thread = threadShares(lexTop, maxLex, lexSlots);
  const sessionAccess = new Map<number, number>();
  (input.recent ?? []).forEach((r, k) => {
    const i = res.recent[k] as number;
    if (i >= 0 && r.at <= t) sessionAccess.set(i, Math.max(sessionAccess.get(i) ?? 0, r.at));
  });
  const halfLife = params.recencyHalfLifeDays * DAY;
  const recency = (i: number) => {
    const last = Math.max(sessionAccess.get(i) ?? 0, info.get(i)?.recordedAt ?? 0);
    return 2 ** (-Math.max(0, input.now - last) / halfLife);
  };
  for (const i of sessionAccess.keys()) addSeed(i, params.eta * recency(i), "recent");

  // Filters, as route() applies them.
  const flt = input.filter;
  const cos = (i: number) => info.get(i)?.cos ?? 0;
  const rawSem = (i: number) => semScore.get(i) ?? (noSketch ? 1 : cos(i));
  const { allowed, passes, excluded } = filterTest(flt, res.filter, (i) => info.get(i)?.kind ?? -1, rawSem);

  // 4. Diffusion: localPpr's steps, computed here from the owners' adjacency per unit of mass. A
  //    step asks the owners only for the pushing nodes whose adjacency this query has not seen
  //    (scripts/probe-rounds.ts counts them on real text).
  const alpha = params.alpha;
  let total = 0;
  for (const w of seeds.values()) if (w > 0) total += w;
  const mass = new Map<number, number>();
  /** Neighbour-table sizes of the nodes that pushed (a push visits every slot of its node). */
  const degree = new Map<number, number>();
  let steps = 0;
  if (total > 0) {
    let x = new Map<number, number>();
    let frontier: number[] = [];
    for (const [i, w] of seeds) {
      if (w <= 0) continue;
      if (!x.has(i)) frontier.push(i);
      x.set(i, (x.get(i) ?? 0) + w / total);
    }
    const addG = (i: number, v: number) => mass.set(i, (mass.get(i) ?? 0) + v);
    for (; steps < params.iterations && frontier.length > 0; steps++) {
      if (frontier.length > params.maxFrontier) {
        const xs = x;
        frontier.sort((a, b) => (xs.get(b) as number) - (xs.get(a) as number) || a - b);
        for (const i of frontier.slice(params.maxFrontier)) x.delete(i);
        frontier = frontier.slice(0, params.maxFrontier);
      }
      const pushing: Array<[number, number]> = [];
      for (const u of frontier) {
        const m = x.get(u) as number;
        x.delete(u);
        if (m < params.pushEpsilon) continue;
        addG(u, (1 - alpha) * m);
        pushing.push([u, m]);
      }
      await ask(
        [],
        pushing.map(([u]) => u),
      );
      const next = new Map<number, number>();
      const nextList: number[] = [];
      for (const [u, m] of pushing) {
        const a = adj.get(u);
        if (a === undefined || a === null) {
          addG(u, alpha * m);
          continue;
        }
        degree.set(u, a.work);
        if (a.sum <= 0) {
          addG(u, alpha * m);
          continue;
        }
        const push = (alpha * m) / a.sum;
        for (let j = 0; j < a.dst.length; j++) {
          if ((a.w[j] as number) <= 0) continue;
          const d = a.dst[j] as number;
          const cur = next.get(d);
          if (cur === undefined) nextList.push(d);
          next.set(d, (cur ?? 0) + push * (a.w[j] as number));
        }
      }
      x = next;
      frontier = nextList;
    }
    for (const i of frontier) addG(i, x.get(i) as number);
  }
  const beta = params.degreeExponent;
  // The filter looks at every touched node; the degree damping needs the nodes that did not push.
  if (flt) await ask(mass.keys());
  else if (beta > 0) await ask([...mass.keys()].filter((i) => !degree.has(i)));
  const damped = (i: number, m: number) =>
    beta > 0 && m > 0 ? m / Math.max(1, degree.get(i) ?? info.get(i)?.nbrCount ?? 0) ** beta : m;
  const { gain, maxGain } = graphGain(mass, seeds, damped);

  // 5. Head scores over the pool: the lexical expert plus bounded shares of the others.
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
  const massOrder = [...mass.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const byMass = (flt ? massOrder.filter(([i]) => passes(i)) : massOrder).slice(0, 2 * params.topM);
  const pool = new Set<number>([...seeds.keys(), ...byMass.map(([i]) => i), ...thread.keys()]);
  if (allowed !== null && allowed.size <= 4 * params.topM) for (const i of allowed) pool.add(i);
  await ask(pool);
  const scored: Array<Candidate & { node: number }> = [];
  for (const i of pool) {
    if (flt && !passes(i)) continue;
    const version = info.get(i)?.version ?? 0;
    if (version === 0) {
      invisible.add(i);
      continue;
    }
    const ex = experts(i);
    scored.push({
      node: i,
      chunk: idOf(i),
      kind: CHUNK_KIND_CODES[info.get(i)?.kind ?? 0] as ChunkKind,
      version,
      score: product(ex),
      experts: ex,
      mass: mass.get(i) ?? 0,
      relevance: relevanceOf(lex.get(i) ?? 0, ceiling, ex, pinnedSet.has(i)),
      raw: {
        sem: noSketch && !semScore.has(i) ? null : rawSem(i),
        lex: lex.get(i) ?? 0,
        match: ceiling > 0 ? (lex.get(i) ?? 0) / ceiling : 0,
      },
    });
  }
  const order = rankOrder(pinnedIds(res.idChunks.map(idOf)));
  scored.sort(order);
  const top = scored.slice(0, params.topM);
  const candidates: Candidate[] = top.map(({ node: _, ...c }) => c);
  const candScore = new Map(top.map((c) => [c.node, c.score]));

  // 6. Router, one round per hop: the frontier's slots come from adjacency already asked.
  const selected = new Map<number, { score: number; depth: number; via: number | null }>();
  for (const c of top.slice(0, input.limit)) selected.set(c.node, { score: c.score, depth: 0, via: null });
  const routerSteps: RouterStep[] = [];
  const router: RouterState = {
    selected,
    candScore,
    steps: routerSteps,
    limit: input.limit,
    lambda: params.routerLambda,
    prefer: new Set(input.preferEdges ?? []),
    passes: flt ? passes : null,
    pinned: pinnedSet,
    head: (v) => product(experts(v)),
    idOf,
  };
  let frontier = top.slice(0, params.routerBeam).map((c) => c.node);
  for (let depth = 1; depth <= params.dMax && frontier.length > 0; depth++) {
    const lists = await slotsOf(frontier);
    // The targets' adjacency comes with what their owners know: the next hop starts from them.
    const targets = [...lists.values()].flatMap((l) => l.dst);
    await ask(targets, depth < params.dMax ? targets : []);
    const next = routerHop(depth, frontier, lists, router);
    frontier = [...new Set(next)].slice(0, params.routerBeam);
  }
  const sel = [...selected.entries()]
    .map(([i, x]) => ({
      chunk: idOf(i),
      version: info.get(i)?.version ?? 0,
      score: x.score,
      relevance: relevance(i),
      depth: x.depth,
      via: x.via === null ? null : idOf(x.via),
    }))
    .filter((x) => x.version > 0)
    .sort(order)
    .slice(0, input.limit);
  const massTop = byMass.slice(0, 50).map(([i, m]) => ({ chunk: idOf(i), mass: m }));
  const seedList = [...seeds.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, 100)
    .map(([i, w]) => ({ chunk: idOf(i), weight: w, reasons: reasons.get(i) ?? [] }));
  return {
    candidates,
    selected: sel,
    trace: {
      mentions: res.mentions,
      seeds: seedList,
      diffusion: { touched: mass.size, steps, mass: massTop },
      routerSteps,
      filteredByTime: invisible.size,
      filteredByFilter: excluded.size,
      candidatePool: pool.size,
      shards: { count: shards.length, rounds },
    },
  };
}
