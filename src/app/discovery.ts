/**
 * Discovery use cases: Paper Circle's ranking of a route's candidate pool (modes, sorts, MMR,
 * views; src/core/research/rank-pool.ts) with the metadata it needs read exactly from D1 for the
 * pool only, and collection statistics (src/core/research/stats.ts) within a scope as of a time.
 */
import * as S from "../contract";
import { fail, ok, type Result } from "../core/errors";
import { REFERENCE_ONLY } from "../core/formats/fulltext";
import type { ChatModel, ChunkStore, DiscoveryStore, PaperRow } from "../core/ports";
import { annotationValues, citationsOf, type PoolReads } from "../core/research/pool-reads";
import { hasNegative, rulesSpec } from "../core/research/query-spec";
import {
  CANONICAL_DEFAULTS,
  DEFAULT_MIN_SIMILARITY,
  HIDDEN_GEM_RANK,
  POE_LAMBDA,
  POOL_MODES,
  type PoolMode,
  type RankedItem,
  SORT_KEYS,
  scoreStats,
} from "../core/research/rank-pool";
import { MODES } from "../core/research/ranking";
import { collectionStats, openAccessOf, paperYear, type StatsPaper } from "../core/research/stats";
import { CHUNK_KINDS, DEFAULT_PARAMS } from "../core/types";
import type { AppDeps } from "./deps";
import { discoverOp } from "./discover";
import { noModel } from "./lib/proposals";
import { buildSpec, wireScoreStats } from "./lib/query-spec";
import { itemScores, rankCandidates } from "./lib/ranking";
import { type In, round4 } from "./lib/wire";

export interface DiscoveryReads extends PoolReads {
  discovery: DiscoveryStore;
}

/** A ranked item as a leaderboard entry (4 decimals). */
export const leaderboardEntry = (
  x: RankedItem & { title: string },
  i: number,
  id: { chunk: string; version: number } = { chunk: x.id, version: x.version },
): In<typeof S.LeaderboardEntrySchema> => ({
  rank: i + 1,
  chunk: id.chunk,
  version: id.version,
  title: x.title,
  ...itemScores(x),
  combined: round4(x.combined),
});

/** The route's candidate pool a ranking sees: the kernel's top-M by default (an archive's params may change it). */
const POOL_SIZE = DEFAULT_PARAMS.topM;

const MODE_TEXT: Record<PoolMode, string> = {
  poe: "the route's own head score (the default; the order of a route without ranking)",
  stable: "relevance first: mostly similarity, some recency and BM25",
  discovery: "novelty first: papers far from the pool's mean, still on the query",
  balanced: "similarity, recency, novelty and BM25 in even shares",
};

/** Every mode's weights and λ, the views, the sorts and the defaults (no query needed). */
export function rankingModes(): In<typeof S.RankingModesResponse> {
  return {
    modes: POOL_MODES.map((mode) => rankingMode(mode)),
    views: [
      {
        view: "hidden_gems",
        description: `items below rank ${HIDDEN_GEM_RANK} of the combined ranking, by novelty`,
      },
      {
        view: "canonical",
        description: `citations ≥ min_citations (default ${CANONICAL_DEFAULTS.minCitations}), or in the pool's top top_share (default ${CANONICAL_DEFAULTS.topShare}) by citations, or a venue in venues; by citations`,
      },
    ],
    sorts: [...SORT_KEYS],
    defaults: {
      mode: "poe",
      min_similarity: DEFAULT_MIN_SIMILARITY,
      pool: POOL_SIZE,
      hidden_gem_rank: HIDDEN_GEM_RANK,
      canonical: { min_citations: CANONICAL_DEFAULTS.minCitations, top_share: CANONICAL_DEFAULTS.topShare },
    },
  };
}

/** One mode's weights (null for poe) and MMR λ. */
export function rankingMode(mode: PoolMode): In<typeof S.RankingModeSchema> {
  if (mode === "poe") return { mode, description: MODE_TEXT.poe, weights: null, lambda: POE_LAMBDA };
  const m = MODES[mode];
  return { mode, description: MODE_TEXT[mode], weights: { ...m.weights }, lambda: m.lambda };
}

/** Chunk ids a `within` scope reads at most before the statistics say truncated. */
export const MAX_STATS_SUBTREE = 5000;

const OPEN_ACCESS_HOW =
  "known from an open_access annotation (true/false), an open-access boundary, or an arxiv.org source; share over the papers where it is known";

const csvList = (s: string | undefined) =>
  s === undefined
    ? []
    : s
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean);

export async function statsOp(
  reads: DiscoveryReads & { chunks: Pick<ChunkStore, "subtree"> },
  archive: string,
  q: In<typeof S.StatsQuery>,
  now: number,
): Promise<Result<In<typeof S.StatsResponse>>> {
  const t = S.toMs(q.as_of) ?? now;
  const kinds = csvList(q.kinds);
  const badKind = kinds.find((k) => !(CHUNK_KINDS as readonly string[]).includes(k));
  if (badKind !== undefined)
    return fail(
      "validation",
      `kinds: unknown kind ${JSON.stringify(badKind)}`,
      "kinds",
      `use ${CHUNK_KINDS.join(", ")}`,
    );
  if (kinds.length === 0) kinds.push("paper");
  const tags = csvList(q.boundaries_any).map((b) => b.toLowerCase().replace(/\s+/g, "-"));
  // Works known only from a bibliography: left out, counted too, or counted alone.
  const refs = q.references ?? "exclude";
  if (refs === "only") tags.push(REFERENCE_ONLY);
  const boundaryNot = refs === "exclude" ? REFERENCE_ONLY : undefined;
  const refOk = (r: PaperRow) =>
    refs === "include" ||
    (refs === "only" ? r.boundaries.includes(REFERENCE_ONLY) : !r.boundaries.includes(REFERENCE_ONLY));
  if (tags.length > 50) return fail("validation", "boundaries_any: at most 50 tags", "boundaries_any");
  const venues = csvList(q.venues).map((v) => v.toLowerCase());
  if (venues.length > 50) return fail("validation", "venues: at most 50 venues", "venues");
  if (q.year_from !== undefined && q.year_to !== undefined && q.year_from > q.year_to)
    return fail(
      "validation",
      `year_to (${q.year_to}) is before year_from (${q.year_from})`,
      "year_to",
      "swap year_from and year_to",
    );
  const yearOk = (r: PaperRow) => {
    if (q.year_from === undefined && q.year_to === undefined) return true;
    const y = paperYear(r.boundaries, r.validFrom);
    return y !== null && (q.year_from === undefined || y >= q.year_from) && (q.year_to === undefined || y <= q.year_to);
  };
  let rows: PaperRow[];
  let truncated: boolean;
  if (q.within !== undefined) {
    const ids = await reads.chunks.subtree(archive, q.within, t, MAX_STATS_SUBTREE + 1);
    const tagSet = new Set(tags);
    const all = (await reads.discovery.papersOf(archive, ids.slice(0, MAX_STATS_SUBTREE), t))
      .filter(
        (r) => kinds.includes(r.kind) && (tags.length === 0 || r.boundaries.some((b) => tagSet.has(b))) && refOk(r),
      )
      .sort((a, b) => (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
    truncated = ids.length > MAX_STATS_SUBTREE || all.length > q.limit;
    rows = all.slice(0, q.limit);
  } else {
    const all = (
      await reads.discovery.papersIn(archive, { kinds, boundariesAny: tags, boundaryNot }, t, q.limit + 1)
    ).filter(refOk);
    truncated = all.length > q.limit;
    rows = all.slice(0, q.limit);
  }
  rows = rows.filter(yearOk);
  if (venues.length) {
    const venueIds = [...new Set(rows.flatMap((r) => r.entities.filter((e) => e.startsWith("venue:"))))];
    const vn = venueIds.length ? await reads.discovery.entityNames(archive, venueIds) : new Map<string, string>();
    const want = new Set(venues);
    rows = rows.filter((r) =>
      r.entities.some(
        (e) => e.startsWith("venue:") && (want.has(e.toLowerCase()) || want.has((vn.get(e) ?? "").toLowerCase())),
      ),
    );
  }
  const ids = rows.map((r) => r.chunkId);
  const cites = await annotationValues(reads.annotations, archive, ids, "citations", t);
  const oa = await annotationValues(reads.annotations, archive, ids, "open_access", t);
  const named = [
    ...new Set(rows.flatMap((r) => r.entities.filter((e) => e.startsWith("person:") || e.startsWith("venue:")))),
  ];
  const names = named.length ? await reads.discovery.entityNames(archive, named) : new Map<string, string>();
  const ent = (r: PaperRow, prefix: string) =>
    r.entities.filter((e) => e.startsWith(prefix)).map((id) => ({ id, name: names.get(id) ?? id }));
  const papers: StatsPaper[] = rows.map((r) => {
    const c = citationsOf(cites.get(r.chunkId), r);
    return {
      chunk: r.chunkId,
      title: r.title,
      boundaries: r.boundaries,
      validFrom: r.validFrom,
      source: r.source,
      authors: ent(r, "person:"),
      venues: ent(r, "venue:"),
      citations: c.citations ?? 0,
      citationsFrom: c.from ?? "cites",
      openAccess: openAccessOf(oa.get(r.chunkId), r.boundaries, r.source),
    };
  });
  const st = collectionStats(papers);
  const r4 = (x: number | null) => (x === null ? null : round4(x));
  return ok({
    as_of: new Date(t).toISOString(),
    truncated,
    limit: q.limit,
    ...st,
    citations: { ...st.citations, mean: r4(st.citations.mean), median: r4(st.citations.median) },
    insights: {
      ...st.insights,
      primary_source: st.insights.primary_source && {
        ...st.insights.primary_source,
        share: round4(st.insights.primary_source.share),
      },
      open_access: { ...st.insights.open_access, share: r4(st.insights.open_access.share), how: OPEN_ACCESS_HOW },
    },
  });
}

/** POST …/query-spec */
export async function querySpecOp(
  model: ChatModel | null,
  b: In<typeof S.QuerySpecBody>,
): Promise<Result<In<typeof S.QuerySpecSchema>>> {
  if (b.model && !model) return noModel();
  return ok(await buildSpec(model, b.query, b.model));
}

/**
 * POST …/ranking/stats: route the spec's positive text (negative terms and years taken out), rank
 * the pool (default mode stable; the spec's years when the ranking gives none), drop candidates
 * holding a negative term, and summarise: score statistics and the leaderboard.
 */
export async function rankingStatsOp(
  d: Pick<AppDeps, "kernel" | "models" | "clock">,
  reads: DiscoveryReads,
  archive: string,
  b: In<typeof S.RankingStatsBody>,
): Promise<Result<In<typeof S.RankingStatsResponse>>> {
  const spec = rulesSpec(b.query);
  const rk: In<typeof S.RankingSchema> = b.ranking ?? { mode: "stable", mmr: false };
  const ranking = {
    ...rk,
    ...(rk.year_from === undefined && rk.year_to === undefined
      ? {
          ...(spec.year_from !== null ? { year_from: spec.year_from } : {}),
          ...(spec.year_to !== null ? { year_to: spec.year_to } : {}),
        }
      : {}),
  };
  const r = await d.kernel.route({
    archiveId: archive,
    query: spec.search || b.query,
    asOf: S.toMs(b.as_of),
    boundaries: b.boundaries,
  });
  const ranked = await rankCandidates(reads, archive, r.route.candidates, ranking, r.asOf, b.top);
  const kept = ranked.ranked.filter((x) => !hasNegative(spec, x.title));
  const dropped = ranked.ranked.length - kept.length;
  const res = ranked.result;
  return ok({
    query: b.query,
    as_of: new Date(r.asOf).toISOString(),
    spec,
    mode: res.mode,
    weights: res.weights,
    pool: res.pool,
    relevant: res.relevant - dropped,
    min_similarity: res.min_similarity,
    score_stats: dropped ? wireScoreStats(scoreStats(kept)) : res.score_stats,
    leaderboard: kept.slice(0, b.top).map((x, i) => leaderboardEntry(x, i)),
  });
}

export function discoveryUseCases(d: AppDeps) {
  const reads = { discovery: d.stores.discovery, annotations: d.stores.annotations, chunks: d.stores.chunks };
  return {
    querySpec: (b: In<typeof S.QuerySpecBody>) => querySpecOp(d.models.llm, b),
    rankingStats: (archive: string, b: In<typeof S.RankingStatsBody>) => rankingStatsOp(d, reads, archive, b),
    discover: (archive: string, b: In<typeof S.DiscoverBody>) =>
      discoverOp(
        {
          intake: d.intake,
          chunks: d.stores.chunks,
          resolve: (a, mention, t) => d.kernel.resolve(a, mention, t),
          model: d.models.llm,
          reranker: d.models.reranker ?? null,
          now: () => d.clock.now(),
        },
        archive,
        b,
      ),
    stats: (archive: string, q: In<typeof S.StatsQuery>) => statsOp(reads, archive, q, d.clock.now()),
    rankingModes: () => rankingModes(),
    rankingMode: (mode: PoolMode) => rankingMode(mode),
  };
}
