/**
 * Routing step 4 and the filter test, shared by route() over one store and the directory over
 * shards: each passes what it knows of a node (its kind, its sketch cosine to the query, its
 * diffusion mass and degree, its recency) as functions.
 */
import type { KernelParams, RouteFilter } from "../types";
import { kindCode } from "./codes";
import type { ShardResolved } from "./shard";

export interface Experts {
  sem: number;
  lex: number;
  sym: number;
  graph: number;
  rec: number;
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
  /** The query has no sketch: the semantic expert is 1. */
  noSketch: boolean;
  semScore: Map<number, number>;
  /** Sketch cosine of a node to the query (called only when the query has a sketch). */
  cos: (i: number) => number;
  lex: Map<number, number>;
  maxLex: number;
  symTotal: number;
  symWeight: Map<number, number>;
  hasSeeds: boolean;
  /** The node's diffusion mass after the degree damping, and the most any node received. */
  graphMass: (i: number) => number;
  maxMass: number;
  recency: (i: number) => number;
}

/** Product of experts on heads, each expert floored so a missing signal demotes, never deletes. */
export function scorer(x: ExpertInputs) {
  const f = x.params.floors;
  const wt = x.params.weights;
  const experts = (i: number): Experts => {
    const sem = x.noSketch ? 1 : Math.max(f.sem, Math.min(1, x.semScore.get(i) ?? x.cos(i)));
    const lx = x.maxLex <= 0 ? 1 : Math.max(f.lex, (x.lex.get(i) ?? 0) / x.maxLex);
    // Each query entity the head lacks demotes it by floor^(rarity / max(1, Σ rarity)): missing the
    // one rare name of a question costs the whole floor, missing a name half the archive carries (a
    // speaker, a country) almost nothing, and a pasted abstract naming 30 things cannot push a head
    // below the floor (unnormalised, 0.1^20 left only the pasted paper itself: CiteSeer R@10 36.0
    // against 48.0 normalised, the same HotpotQA R@5 and LoCoMo R@10).
    const sym =
      x.symTotal <= 0 ? 1 : f.sym ** (Math.max(0, x.symTotal - (x.symWeight.get(i) ?? 0)) / Math.max(1, x.symTotal));
    const graph = !x.hasSeeds || x.maxMass <= 0 ? 1 : Math.max(f.graph, x.graphMass(i) / x.maxMass);
    const rec = Math.max(f.rec, x.recency(i));
    return { sem, lex: lx, sym, graph, rec };
  };
  const product = (ex: Experts) =>
    ex.sem ** wt.sem * ex.lex ** wt.lex * ex.sym ** wt.sym * ex.graph ** wt.graph * ex.rec ** wt.rec;
  return { experts, product };
}
