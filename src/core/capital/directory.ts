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
import type { Candidate, KernelParams, RouteInput, RouteResult } from "../types";
import { lexicalPlan } from "./lexical-plan";
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
import { type NodeSlots, routerHop } from "./router";
import { filterTest, graphGain, lexicalCeiling, rankOrder, scorer, threadShares } from "./scoring";
import { Seeds } from "./seeds";
import {
  adjacencyByNode,
  type CapitalShard,
  type NodeAdjacency,
  type NodeInfo,
  resolveQuery,
  type ShardCounts,
} from "./shard";

/** The newest shard asked is closed: a newer one exists, and the caller lists the shards again. */
export class StaleShards extends Error {
  constructor() {
    super("a newer shard exists than the ones given");
  }
}

/** The router's view of a node (LocalShard.slots' answer) from its adjacency. */
export function routerSlots(a: NodeAdjacency): NodeSlots {
  return { sum: a.sum, dst: a.dst.slice(0, a.nr), type: a.type.slice(0, a.nr), weight: a.w.slice(0, a.nr) };
}

/**
 * One query's state across the rounds: what the owners answered of each node it asked about, and
 * the rounds it took. Reads a node (NodeReads) from those answers.
 */
class ShardRounds implements NodeReads {
  rounds = 0;
  readonly info = new Map<number, NodeInfo | null>();
  /** A node's adjacency as the owner gave it (null: no owner answers for it). */
  readonly adj = new Map<number, NodeAdjacency | null>();

  constructor(
    private readonly shards: CapitalShard[],
    private readonly counts: ShardCounts[],
    private readonly t: number,
    private readonly sketch: Uint8Array | null,
    private readonly kr: number,
  ) {}

  ownerOf(g: number): number {
    for (let k = this.counts.length - 1; k >= 0; k--) {
      const c = this.counts[k] as ShardCounts;
      if (g >= c.lo && g < c.lo + c.size) return k;
    }
    return -1;
  }

  /**
   * One round: what the owners know of `infoNodes` and the adjacency of `adjNodes`, each asked
   * only for the nodes this query has not asked yet, in one call per owner.
   */
  async ask(infoNodes: Iterable<number>, adjNodes: Iterable<number> = []): Promise<void> {
    const byOwner = new Map<number, { info: number[]; adj: number[] }>();
    const to = (g: number) => {
      const k = this.ownerOf(g);
      if (k < 0) return null;
      const l = byOwner.get(k) ?? { info: [], adj: [] };
      byOwner.set(k, l);
      return l;
    };
    for (const g of infoNodes) {
      if (this.info.has(g)) continue;
      this.info.set(g, null);
      to(g)?.info.push(g);
    }
    for (const g of adjNodes) {
      if (this.adj.has(g)) continue;
      this.adj.set(g, null);
      to(g)?.adj.push(g);
    }
    if (byOwner.size === 0) return;
    this.rounds++;
    await Promise.all(
      [...byOwner].map(async ([k, l]) => {
        const r = await (this.shards[k] as CapitalShard).nodes(l.info, l.adj, this.t, this.sketch, this.kr);
        for (const [j, g] of l.info.entries()) this.info.set(g, r.info[j] ?? null);
        for (const [g, a] of adjacencyByNode(l.adj, r.adj)) this.adj.set(g, a);
      }),
    );
  }

  /** The router's view of `nodes` (their first kr valid slots), from their adjacency. */
  async slotsOf(nodes: number[]): Promise<Map<number, NodeSlots>> {
    await this.ask([], nodes);
    const lists = new Map<number, NodeSlots>();
    for (const u of nodes) {
      const a = this.adj.get(u);
      if (a) lists.set(u, routerSlots(a));
    }
    return lists;
  }

  visible = (i: number): boolean => this.info.get(i)?.visible === true;
  idOf = (i: number): string => this.info.get(i)?.id ?? "";
  versionOf = (i: number): number => this.info.get(i)?.version ?? 0;
  kindOf = (i: number): number => this.info.get(i)?.kind ?? 0;
  recordedAt = (i: number): number => this.info.get(i)?.recordedAt ?? 0;
}

/** The archive-wide lexical statistics the counts round gives: open documents, lengths, postings. */
interface LexicalTotals {
  openDocs: number;
  openLen: number;
  globalCount: number;
  /** Postings of each query term across the shards. */
  termTotals: Map<number, number>;
}

function lexicalTotals(counts: readonly ShardCounts[], queryTerms: ReadonlySet<number>): LexicalTotals {
  const x: LexicalTotals = { openDocs: 0, openLen: 0, globalCount: 0, termTotals: new Map() };
  for (const c of counts) {
    x.openDocs += c.openDocs;
    x.openLen += c.openLen;
    x.globalCount = Math.max(x.globalCount, c.globalCount);
    for (const [term, n] of c.terms)
      if (queryTerms.has(term)) x.termTotals.set(term, (x.termTotals.get(term) ?? 0) + n);
  }
  return x;
}

/** Step 2's lexical postings: rarest terms first, newest shard first within a term's cap. */
async function lexicalRound(
  shards: CapitalShard[],
  counts: readonly ShardCounts[],
  totals: LexicalTotals,
  hasTerms: boolean,
  t: number,
  params: KernelParams,
): Promise<Map<number, number>> {
  const lex = new Map<number, number>();
  if (!hasTerms) return lex;
  const { openDocs, openLen } = totals;
  const n = Math.max(1, openDocs);
  const avg = openDocs > 0 ? Math.max(1, openLen / openDocs) : 1;
  const plan = lexicalPlan([...totals.termTotals], n, params.maxPostingsPerTerm, params.maxLexicalPostings);
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
}

/**
 * Step 4, diffusion: localPpr's steps, computed here from the owners' adjacency per unit of mass. A
 * step asks the owners only for the pushing nodes whose adjacency this query has not seen
 * (scripts/probe-rounds.ts counts them on real text). Returns each touched node's mass, the
 * neighbour-table sizes of the nodes that pushed (a push visits every slot of its node), the steps.
 */
async function diffuse(
  q: ShardRounds,
  seeds: ReadonlyMap<number, number>,
  params: KernelParams,
): Promise<{ mass: Map<number, number>; degree: Map<number, number>; steps: number }> {
  const alpha = params.alpha;
  let total = 0;
  for (const w of seeds.values()) if (w > 0) total += w;
  const mass = new Map<number, number>();
  const degree = new Map<number, number>();
  let steps = 0;
  if (total <= 0) return { mass, degree, steps };
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
    await q.ask(
      [],
      pushing.map(([u]) => u),
    );
    const next = new Map<number, number>();
    const nextList: number[] = [];
    for (const [u, m] of pushing) {
      const a = q.adj.get(u);
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
  return { mass, degree, steps };
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
  const names = shards[0];
  if (!names) throw new Error("routeSharded needs at least one shard");
  const terms = input.terms ?? [];
  // A grounded name counts only against the archive-wide postings of its rarest word
  // (ResolveQuery.nameShare), so the counts round asks for the mentions' words too.
  const nameWords = given === null || given.nameShare > 0 ? input.mentions.flatMap((m) => stems(m)) : [];

  // 1. Counts from every shard.
  const counts = await Promise.all(shards.map((s) => s.counts([...terms, ...nameWords])));
  const newest = counts[counts.length - 1] as ShardCounts;
  if (newest.closed) throw new StaleShards();
  const params = given ?? newest.params;
  if (!params) throw new Error("routeSharded: no parameters given, and the newest shard sent none");
  const queryTerms = new Set(terms.map(termHash));
  const wordDf = new Map<number, number>();
  for (const c of counts) for (const [term, n] of c.terms) wordDf.set(term, (wordDf.get(term) ?? 0) + n);
  const noSketch = isZero(input.querySketch);
  const q = new ShardRounds(shards, counts, t, noSketch ? null : input.querySketch, params.kr);
  q.rounds++;

  // 2. Lexical postings, and beside them resolution from the names shard (it holds the name
  //    tables), with the archive-wide postings of the mentions' words.
  const totals = lexicalTotals(counts, queryTerms);
  const { openDocs } = totals;
  const [lex, res] = await Promise.all([
    lexicalRound(shards, counts, totals, terms.length > 0, t, params),
    names.resolve(resolveQuery(input, params, [...wordDf])),
  ]);
  q.rounds++;
  const seedNodes: number[] = [...res.idChunks];
  for (const e of res.entities) seedNodes.push(...e.hits);
  for (const g of [...res.semantic, ...res.recent]) if (g >= 0) seedNodes.push(g);
  const { maxLex, lexTop } = lexicalTop(lex, params.lexicalSeeds);
  const ceiling = lexicalCeiling(
    [...queryTerms].map((h) => [h, totals.termTotals.get(h) ?? 0] as const),
    openDocs,
  );
  const pinnedSet = new Set(res.idChunks);
  const lexNodes = lexTop.map(([i]) => i);
  // 3. What the owners know of the seeds, with their adjacency, in one round: diffusion's first step
  //    pushes from them, and the lexical seeds' timeline neighbours (the thread expert) are in it.
  await q.ask([...seedNodes, ...lexNodes], [...seedNodes, ...lexNodes]);
  const lexSlots =
    params.weights.thread > 0 && lexNodes.length && counts.some((c) => c.records !== false)
      ? await q.slotsOf(lexNodes)
      : new Map<number, NodeSlots>();

  const sd = new Seeds(openDocs || totals.globalCount, q.visible);
  sd.entities(res.entities);
  const { weights: seeds, reasons, invisible } = sd;
  const semScore = plantSeeds(sd, res, input, lexTop, maxLex);
  const thread = threadShares(lexTop, maxLex, lexSlots);
  const recency = seedRecent(sd, input, res.recent, params, q);

  // Filters, as route() applies them.
  const flt = input.filter;
  const cos = (i: number) => q.info.get(i)?.cos ?? 0;
  const rawSem = (i: number) => semScore.get(i) ?? (noSketch ? 1 : cos(i));
  const { allowed, passes, excluded } = filterTest(flt, res.filter, (i) => q.info.get(i)?.kind ?? -1, rawSem);

  // 4. Diffusion.
  const { mass, degree, steps } = await diffuse(q, seeds, params);
  const beta = params.degreeExponent;
  // The filter looks at every touched node; the degree damping needs the nodes that did not push.
  if (flt) await q.ask(mass.keys());
  else if (beta > 0) await q.ask([...mass.keys()].filter((i) => !degree.has(i)));
  const damped = (i: number, m: number) =>
    beta > 0 && m > 0 ? m / Math.max(1, degree.get(i) ?? q.info.get(i)?.nbrCount ?? 0) ** beta : m;
  const graph = graphGain(mass, seeds, damped);

  // 5. Head scores over the pool: the lexical expert plus bounded shares of the others.
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
  const { byMass, pool } = candidatePool(mass, seeds, thread, { flt, passes, allowed }, params);
  await q.ask(pool);
  const pooled: PoolContext = { experts, product, mass, lex, ceiling, pinned: pinnedSet, semScore, noSketch, rawSem };
  const scored: Array<Candidate & { node: number }> = [];
  for (const i of pool) {
    if (flt && !passes(i)) continue;
    const c = candidateAt(q, i, pooled);
    if (c) scored.push({ node: i, ...c });
    else invisible.add(i);
  }
  const order = rankOrder(res.idChunks.map(q.idOf));
  scored.sort(order);
  const top = scored.slice(0, params.topM);
  const candidates: Candidate[] = top.map(({ node: _, ...c }) => c);

  // 6. Router, one round per hop: the frontier's slots come from adjacency already asked.
  const router = startRouter(top, input, params, {
    passes: flt ? passes : null,
    pinned: pinnedSet,
    head: (v) => product(experts(v)),
    idOf: q.idOf,
  });
  let frontier = top.slice(0, params.routerBeam).map((c) => c.node);
  for (let depth = 1; depth <= params.dMax && frontier.length > 0; depth++) {
    const lists = await q.slotsOf(frontier);
    // The targets' adjacency comes with what their owners know: the next hop starts from them.
    const targets = [...lists.values()].flatMap((l) => l.dst);
    await q.ask(targets, depth < params.dMax ? targets : []);
    const next = routerHop(depth, frontier, lists, router);
    frontier = [...new Set(next)].slice(0, params.routerBeam);
  }
  const massTop = byMass.slice(0, 50).map(([i, m]) => ({ chunk: q.idOf(i), mass: m }));
  return {
    candidates,
    selected: selection(router.selected, q, pooled, order, input.limit),
    trace: {
      mentions: res.mentions,
      seeds: seedTrace(seeds, reasons, q),
      diffusion: { touched: mass.size, steps, mass: massTop },
      routerSteps: router.steps,
      filteredByTime: invisible.size,
      filteredByFilter: excluded.size,
      candidatePool: pool.size,
      shards: { count: shards.length, rounds: q.rounds },
    },
  };
}
