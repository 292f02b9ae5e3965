/**
 * The wire filter resolved exactly from D1 at a request's time, and the wire /context body as the
 * kernel's request: shared by the query, export, code-pair, paper and review use cases.
 */
import type * as S from "../../contract";
import type { ChunkStore } from "../../core/ports";
import type { RouteFilter } from "../../core/types";
import { poolRanking } from "./ranking";
import type { In } from "./wire";

/** What the query use cases read from D1 besides the kernel: exact subtrees, grounding, neighbours. */
export type FilterReads = Pick<ChunkStore, "subtree" | "implementedAt" | "edgesAt">;

/** A subtree's size above which `within` refuses (the exact set travels to the routing object). */
export const MAX_SUBTREE = 50_000;

/** The wire filter -> the kernel's, with `within`, `cited_by` and `grounded` resolved exactly from D1 at t. */
export async function resolveFilter(
  store: FilterReads,
  archive: string,
  f: In<typeof S.FilterSchema> | Omit<In<typeof S.FilterSchema>, "min_similarity"> | undefined,
  t: number,
): Promise<RouteFilter | undefined> {
  if (!f) return undefined;
  let only: string[] | undefined;
  if (f.within !== undefined) only = await store.subtree(archive, f.within, t, MAX_SUBTREE);
  if (f.cited_by !== undefined) {
    const citing = await store.subtree(archive, f.cited_by, t, MAX_SUBTREE);
    const cited = new Set((await store.edgesAt(archive, citing, "cites", "out", t)).map((e) => e.to));
    only = only ? only.filter((x) => cited.has(x)) : [...cited];
  }
  if (f.grounded) {
    const grounded = new Set(await store.implementedAt(archive, t));
    only = only ? only.filter((x) => grounded.has(x)) : [...grounded];
  }
  return {
    kinds: f.kinds,
    boundariesAny: f.boundaries_any,
    boundariesAll: f.boundaries_all,
    minSimilarity: "min_similarity" in f ? f.min_similarity : undefined,
    only,
    exclude: f.exclude,
    researchMemory: f.research_memory,
  };
}

/**
 * The wire /context body -> the service's request at `asOf` (the request's as_of, resolved once by
 * the use case; also used by the query-result export), its `ranking` as the core's.
 */
export function toContextRequest(archive: string, b: In<typeof S.ContextBody>, asOf: number, filter?: RouteFilter) {
  return {
    filter,
    archiveId: archive,
    query: b.query,
    asOf,
    boundaries: b.boundaries,
    budgetTokens: b.budget_tokens,
    sessionId: b.session_id,
    maxCards: b.max_cards,
    maxCardTokens: b.max_card_tokens,
    shortTermShare: b.short_term_share,
    tokenizer: b.tokenizer,
    minRelevance: b.min_relevance,
    minCardRelevance: b.min_card_relevance,
    after: b.after === undefined ? undefined : Number(b.after),
    ranking: b.ranking ? poolRanking(b.ranking) : undefined,
  };
}
