/**
 * Routing step 4 and the filter test, shared by route() over one store and the directory over
 * shards: each passes what it knows of a node (its kind, its sketch cosine to the query, its
 * diffusion mass and degree, its recency) as functions.
 */
import type { ExpertScores, KernelParams, RouteFilter } from "../types";
import { EDGE_TYPE_CODES, kindCode } from "./codes";
import type { NodeSlots } from "./router";
import type { Seeds } from "./seeds";
import type { ShardResolved } from "./shard";

/** A head's expert scores (core/types.ts ExpertScores, which a candidate carries). */
export type Experts = ExpertScores;

const FOLLOWS_CODE = EDGE_TYPE_CODES.indexOf("follows");

/**
 * The thread expert's input: each of the query's best lexical heads passes the square of its
 * lexical share (BM25 / the best BM25) to its neighbours on its timeline (derived `follows` edges,
 * both ways), and a node keeps the largest value it receives. Squared, a turn that matches half as
 * well passes a quarter, so the replies to the best matches rise and multi-hop questions keep the
 * weaker matches from other sessions (LoCoMo, weight 0.3, R@10 over BM25 per category, multi-hop /
 * temporal / open-domain / single-hop, router prior of follows 2: no thread -1.1 / +1.6 / -4.5 /
 * +9.6; the share itself -4.2 / 0.0 / -4.5 / +18.4 at weight 0.5; squared -0.7 / +1.6 / -4.5 / +17.5;
 * with the follows prior at 1, no thread -0.5 / +1.6 / -9.1 / +7.9, squared +0.7 / +3.2 / -9.1 /
 * +14.9). Only records have
 * timelines, so in an archive without them the map is empty and the expert is 0 for every head.
 * Work: one slot list per lexical seed (at most `lexicalSeeds` x K_r slots).
 */
export function threadShares(
  top: Array<[number, number]>,
  maxLex: number,
  slots: Map<number, NodeSlots>,
): Map<number, number> {
  const out = new Map<number, number>();
  if (maxLex <= 0) return out;
  for (const [u, v] of top) {
    const l = slots.get(u);
    if (!l) continue;
    const share = (v / maxLex) ** 2;
    l.dst.forEach((w, j) => {
      if (l.type[j] !== FOLLOWS_CODE || w === u) return;
      if (share > (out.get(w) ?? 0)) out.set(w, share);
    });
  }
  return out;
}

/**
 * The filter's exact sets (from postings) and its test of one node, which records the nodes it
 * excludes. `rawSem` is the node's similarity to the query (minSimilarity).
 */
export function filterTest(
  flt: RouteFilter | undefined,
  sets: ShardResolved["filter"],
  kindOf: (i: number) => number,
  rawSem: (i: number) => number,
) {
  let allowed: Set<number> | null = null;
  const restrict = (set: Set<number>) => {
    allowed = allowed === null ? set : new Set([...allowed].filter((x) => set.has(x)));
  };
  if (sets.only) restrict(new Set(sets.only));
  if (sets.any) restrict(new Set(sets.any));
  for (const all of sets.all) restrict(new Set(all));
  const kindsOk = flt?.kinds?.length ? new Set(flt.kinds.map((k) => kindCode(k))) : null;
  const never = new Set(sets.exclude);
  const excluded = new Set<number>();
  const narrow = allowed as Set<number> | null;
  const passes = (i: number): boolean => {
    const ok =
      (narrow === null || narrow.has(i)) &&
      !never.has(i) &&
      (kindsOk === null || kindsOk.has(kindOf(i))) &&
      (flt?.minSimilarity === undefined || rawSem(i) >= flt.minSimilarity);
    if (!ok) excluded.add(i);
    return ok;
  };
  return { allowed: narrow, passes, excluded };
}

/** What the experts of a node are computed from. */
export interface ExpertInputs {
  params: KernelParams;
  /** The query has no sketch: the semantic expert is 0 for every head. */
  noSketch: boolean;
  semScore: Map<number, number>;
  /** Sketch cosine of a node to the query (called only when the query has a sketch). */
  cos: (i: number) => number;
  lex: Map<number, number>;
  maxLex: number;
  /** The seeds' summed entity rarity, in total and per node (the symbolic expert). */
  seeds: Pick<Seeds, "symTotal" | "symWeight">;
  /** What the graph added to each node, and the most it added to any node (graphGain). */
  graph: GraphGain;
  recency: (i: number) => number;
  /** threadShares' answer: the best lexical share among each node's timeline neighbours. */
  thread: Map<number, number>;
}

/** graphGain's answer. */
export interface GraphGain {
  gain: Map<number, number>;
  maxGain: number;
}

/** Below this share of the largest gain (or of the unit seed mass), a gain is rounding, not graph. */
const GAIN_EPSILON = 1e-9;

/**
 * What diffusion added to each node beyond its own seed share: mass(i) - p0(i), p0 the restart
 * distribution (seed weights over their sum). A node the graph did not reach, or a seed with no
 * usable edge, gains nothing; with no edges at all every gain is 0, so the graph expert carries no
 * information and cannot reorder anything. `damp` applies the degree damping.
 */
export function graphGain(
  mass: Map<number, number>,
  seeds: Map<number, number>,
  damp: (i: number, m: number) => number,
): GraphGain {
  let total = 0;
  for (const w of seeds.values()) if (w > 0) total += w;
  const gain = new Map<number, number>();
  let maxGain = 0;
  for (const [i, m] of mass) {
    const own = total > 0 ? Math.max(0, seeds.get(i) ?? 0) / total : 0;
    const g = damp(i, m - own);
    if (g > GAIN_EPSILON) {
      gain.set(i, g);
      maxGain = Math.max(maxGain, g);
    }
  }
  return { gain, maxGain };
}

/**
 * Head score: the lexical expert is the base and every other expert adds a bounded share,
 * score = lex + Σ_x w_x · p_x with each p_x in [0, 1] and 0 when its signal says nothing about the
 * query (no grounded mention, no mass the graph moved, no embedding). So with no such signal the
 * ranking is the lexical ranking, and a head can only overtake one whose lexical score is at most
 * Σ w_x above its own: heads sharing only frequent words (low BM25) cannot bury the head that
 * matches the query's rare words.
 */
export function scorer(x: ExpertInputs) {
  const wt = x.params.weights;
  const { symTotal, symWeight } = x.seeds;
  const { gain, maxGain } = x.graph;
  const experts = (i: number): Experts => {
    const sem = x.noSketch ? 0 : Math.max(0, Math.min(1, x.semScore.get(i) ?? x.cos(i)));
    const lex = x.maxLex <= 0 ? 0 : (x.lex.get(i) ?? 0) / x.maxLex;
    // The share of the query's entity rarity the head carries: a question's one rare name counts in
    // full, a name half the archive carries (a speaker, a country) almost nothing.
    const sym = symTotal <= 0 ? 0 : Math.min(1, (symWeight.get(i) ?? 0) / symTotal);
    const g = gain.get(i) ?? 0;
    const graph = maxGain <= GAIN_EPSILON || g <= maxGain * GAIN_EPSILON ? 0 : g / maxGain;
    const rec = Math.max(0, Math.min(1, x.recency(i)));
    const thread = Math.max(0, Math.min(1, x.thread.get(i) ?? 0));
    return { sem, lex, sym, graph, rec, thread };
  };
  const product = (ex: Experts) =>
    wt.lex * ex.lex + wt.sem * ex.sem + wt.sym * ex.sym + wt.graph * ex.graph + wt.rec * ex.rec + wt.thread * ex.thread;
  return { experts, product };
}

/** BM25's IDF of a term `df` of `n` open documents carry (the lexical plan's). */
export function bm25Idf(df: number, n: number): number {
  const d = Math.min(n, df);
  return Math.log(1 + (n - d + 0.5) / (d + 0.5));
}

/**
 * The query's lexical ceiling: the sum of IDF over its distinct terms, a term no document carries
 * counted at the rarest IDF (df 0). A head of mean length that has every term once scores about
 * this much BM25 (tf (k1 + 1) / (tf + k1) = 1 at tf 1), so BM25 / ceiling says how much of the
 * question's rarity a head matches whatever the archive and the question's length, where the lexical
 * expert (BM25 / the best head's) always gives the best head 1, on topic or not.
 */
export function lexicalCeiling(counts: ReadonlyArray<readonly [number, number]>, n: number): number {
  let sum = 0;
  for (const [, c] of counts) sum += bm25Idf(c, Math.max(1, n));
  return sum;
}

/**
 * Relevance in [0, 1]: the logistic of what a head has of the query, each term comparable across
 * queries or bounded: its match = min(1, BM25 / ceiling), its symbolic share (of the query's entity
 * rarity), its thread share (the best lexical share among its timeline neighbours) and its graph
 * share, with the coefficients RELEVANCE_FIT fitted on the dev sets (docs/quality.md, relevance and
 * abstention). A chunk the question names by identifier is relevant by definition (1).
 */
export function relevanceOf(
  lexRaw: number,
  ceiling: number,
  ex: Pick<Experts, "sym" | "thread" | "graph">,
  pinned: boolean,
): number {
  if (pinned) return 1;
  const f = RELEVANCE_FIT;
  const match = ceiling > 0 ? Math.min(1, lexRaw / ceiling) : 0;
  const z = f.intercept + f.match * match + f.sym * ex.sym + f.thread * ex.thread + f.graph * ex.graph;
  return Math.round(1e4 / (1 + Math.exp(-z))) / 1e4;
}

/**
 * The default floors of /context, MCP `context`, the CLI and the context export, chosen by
 * scripts/abstention.ts over the dev sets (docs/quality.md, relevance and abstention): the largest
 * evidence floor at which no set loses more than half a point of recall (R@5; R@10 for
 * conversations) with no card floor, then the largest card floor under it that keeps that. A query
 * whose best chunk is below DEFAULT_MIN_RELEVANCE gets no cards; cards below
 * DEFAULT_MIN_CARD_RELEVANCE are never returned.
 */
export const DEFAULT_MIN_RELEVANCE = 0.23;
export const DEFAULT_MIN_CARD_RELEVANCE = 0.07;

/**
 * relevanceOf's logistic, fitted by scripts/abstention.ts (2026-12-03) with the two classes weighted
 * equally: evidence = the gold chunks in the first k of the dev sets' answers; not evidence = the
 * first k for questions asked of another set's archive and LoCoMo's adversarial ones.
 */
export const RELEVANCE_FIT = { intercept: -6.281, match: 11.032, sym: 2.011, thread: 2.018, graph: 4.019 };

/**
 * The order of candidates and of the selection: the chunks the question names by identifier
 * first (an arXiv id, a DOI: `pinnedChunks`, by the order the question names them), then by score, then
 * by id. An identifier says which chunk the asker means; no score should outrank it.
 */
export function rankOrder(pinnedChunks: readonly string[]) {
  const pinned = pinnedIds(pinnedChunks);
  return (a: { score: number; chunk: string }, b: { score: number; chunk: string }): number =>
    (pinned.get(a.chunk) ?? Number.POSITIVE_INFINITY) - (pinned.get(b.chunk) ?? Number.POSITIVE_INFINITY) ||
    b.score - a.score ||
    (a.chunk < b.chunk ? -1 : a.chunk > b.chunk ? 1 : 0);
}

/** Chunk id -> the position its identifier has in the question (the first naming counts). */
function pinnedIds(ids: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const id of ids) if (!out.has(id)) out.set(id, out.size);
  return out;
}
