/**
 * A route's candidate pool ranked with what the ranking needs read for the pool only, as of a time:
 * each candidate's title + synopsis, year, citations (a `citations` annotation, else the cites
 * in-degree) and venues (entity ids and names). The pool is the route's top-M after filters, never
 * the archive: three reads of at most M ids each, then rankPool (rank-pool.ts).
 */
import { annotationEvent, foldAnnotations } from "../annotations";
import type { AnnotationStore, DiscoveryStore, PaperRow } from "../ports";
import type { Candidate } from "../types";
import { type PoolCandidate, type RankOptions, type RankOutcome, rankPool, type SortKey, type View } from "./rank-pool";
import { paperYear } from "./stats";

/** What ranking a pool reads: paper rows and venue names, and annotations. */
export interface PoolReads {
  discovery: Pick<DiscoveryStore, "papersOf" | "entityNames">;
  annotations: Pick<AnnotationStore, "annotationsOf">;
}

/** Where a candidate's citation count came from: an annotation, the cites in-degree, or nowhere. */
export type CitationsFrom = "annotation" | "cites" | null;

/** A pool's ranking options, and whether its order replaces the route's selection. */
export interface PoolRanking {
  options: Omit<RankOptions, "k">;
  /** The ranking reorders or narrows the route's result (mode poe alone only adds the scores). */
  reorders: boolean;
}

/** A ranked pool with what its items were scored from. */
export interface RankedPool {
  outcome: RankOutcome;
  /** The sort and view asked for (null: none). */
  sort: SortKey | null;
  view: View | null;
  citationsFrom: Map<string, CitationsFrom>;
  titles: Map<string, string>;
  /** Milliseconds reading the pool's rows, and ranking them. */
  timings: { read: number; rank: number };
  /** Results wanted. */
  k: number;
}

const perfNow = () => (typeof performance !== "undefined" ? performance.now() : Date.now());

/** The value of one annotation key per chunk at t. */
export async function annotationValues(
  store: PoolReads["annotations"],
  archive: string,
  ids: string[],
  key: string,
  t: number,
): Promise<Map<string, unknown>> {
  const byChunk = new Map<string, ReturnType<typeof annotationEvent>[]>();
  for (const r of await store.annotationsOf(archive, ids, key, t)) {
    const l = byChunk.get(r.chunkId) ?? [];
    l.push(annotationEvent(r));
    byChunk.set(r.chunkId, l);
  }
  const out = new Map<string, unknown>();
  for (const [chunk, evs] of byChunk) {
    const v = foldAnnotations(evs, t).get(key);
    if (v) out.set(chunk, v.value);
  }
  return out;
}

/** A candidate's citations: a finite `citations` annotation, else its paper row's cites in-degree. */
export const citationsOf = (annotation: unknown, row: PaperRow | undefined) =>
  typeof annotation === "number" && Number.isFinite(annotation)
    ? { citations: annotation, from: "annotation" as const }
    : row
      ? { citations: row.citesIn, from: "cites" as const }
      : { citations: null, from: null };

/**
 * Ranks the route's candidates (never more) with the scores read for them at t; `k` = results
 * wanted (MMR picks this many).
 */
export async function rankCandidatesAt(
  reads: PoolReads,
  archive: string,
  candidates: readonly Candidate[],
  options: Omit<RankOptions, "k">,
  t: number,
  k: number,
): Promise<RankedPool> {
  const t0 = perfNow();
  const ids = candidates.map((c) => c.chunk);
  const [papers, cites] = await Promise.all([
    reads.discovery.papersOf(archive, ids, t),
    annotationValues(reads.annotations, archive, ids, "citations", t),
  ]);
  const rows = new Map(papers.map((x) => [x.chunkId, x]));
  const venueIds = [...new Set([...rows.values()].flatMap((x) => x.entities.filter((e) => e.startsWith("venue:"))))];
  const venueNames = venueIds.length ? await reads.discovery.entityNames(archive, venueIds) : new Map<string, string>();
  const t1 = perfNow();
  const citationsFrom = new Map<string, CitationsFrom>();
  const pool: PoolCandidate[] = candidates.map((c) => {
    const row = rows.get(c.chunk);
    const cit = citationsOf(cites.get(c.chunk), row);
    citationsFrom.set(c.chunk, cit.from);
    const venues = (row?.entities ?? []).filter((e) => e.startsWith("venue:"));
    return {
      id: c.chunk,
      version: c.version,
      text: row ? `${row.title}\n${row.synopsis}` : "",
      year: row ? paperYear(row.boundaries, row.validFrom) : null,
      similarity: c.raw?.sem ?? c.experts.sem,
      bm25: c.raw?.lex ?? c.experts.lex,
      citations: cit.citations,
      poe: c.score,
      venues: [...venues, ...venues.map((v) => venueNames.get(v) ?? "").filter(Boolean)],
    };
  });
  const outcome = rankPool(pool, { ...options, k });
  const t2 = perfNow();
  const titles = new Map(outcome.items.map((x) => [x.id, rows.get(x.id)?.title ?? ""]));
  return {
    outcome,
    sort: options.sort ?? null,
    view: options.view ?? null,
    citationsFrom,
    titles,
    timings: { read: t1 - t0, rank: t2 - t1 },
    k,
  };
}
