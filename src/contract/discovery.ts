/**
 * Discovery: Paper Circle's ranking modes, MMR and views over a route's candidate pool (the
 * `ranking` input of route and context), and collection statistics.
 */
import { z } from "@hono/zod-openapi";
import { DISCOVERY_ENGINES } from "../core/research/discover";
import { DEFAULT_MIN_SIMILARITY, POOL_MODES, SORT_KEYS, VIEWS } from "../core/research/rank-pool";
import { CHUNK_KINDS } from "../core/types";
import { ArchiveParam, boundedInt, IdSchema, MAX_ID, queryParam, Time } from "./common";

const Weight = z.number().min(0).max(10);
/** A publication year bound (inclusive). */
const YearBound = z.number().int().min(1000).max(9999);
const VenueList = z.array(z.string().min(1).max(MAX_ID)).min(1).max(50);

export const RankingSchema = z
  .object({
    mode: z.enum(POOL_MODES).default("poe").openapi({
      description:
        "poe: the route's own head score (default, unchanged; the name is that of the product of experts it replaced). stable / discovery / balanced: Eq. 3's combined score w_s·similarity + w_r·recency + w_n·novelty + w_b·bm25 with 0.5/0.2/0.1/0.2, 0.3/0.1/0.4/0.2, 0.3/0.2/0.2/0.3 over the route's candidate pool (top 256 after filters).",
    }),
    weights: z
      .object({
        similarity: Weight.optional(),
        recency: Weight.optional(),
        novelty: Weight.optional(),
        bm25: Weight.optional(),
      })
      .strict()
      .optional()
      .openapi({ description: "Override some of the mode's Eq. 3 weights (not with mode poe)." }),
    sort: z.enum(SORT_KEYS).optional().openapi({
      description: "Order the pool by one score instead of combined (ties by combined). Not with mmr or a view.",
    }),
    mmr: z.boolean().default(false).openapi({
      description:
        "Maximal Marginal Relevance (Eq. 4) over the pool: λ·combined − (1 − λ)·max TF-IDF cosine to the picks; picks `limit` results (context: max_cards + 4), then the rest in combined order.",
    }),
    lambda: z.number().min(0).max(1).optional().openapi({
      description: "MMR's λ (default 0.8 stable, 0.5 discovery, 0.65 balanced, 0.8 poe). Needs mmr: true.",
    }),
    view: z.enum(VIEWS).optional().openapi({
      description:
        "hidden_gems: items below rank 20 of the combined ranking, by novelty. canonical: citations ≥ min_citations, or in the pool's top top_share by citations (≥ 1), or a venue in venues; by citations.",
    }),
    canonical: z
      .object({
        min_citations: z.number().int().min(0).max(1_000_000_000).optional().openapi({ description: "default 50" }),
        top_share: z.number().min(0).max(1).optional().openapi({ description: "default 0.1" }),
        venues: z.array(z.string().min(1).max(MAX_ID)).max(50).optional().openapi({
          description: "venue entity ids or names (case-insensitive); default none",
        }),
      })
      .strict()
      .optional(),
    min_similarity: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .openapi({
        description: `Relevance before diversity: candidates whose similarity to the query (the route's cosine with the archive's embedder) is below this leave the pool before the scores, the view, the sort and MMR, so a view returns fewer items rather than off-topic ones. Default ${DEFAULT_MIN_SIMILARITY} whenever the ranking reorders (a mode other than poe, a view, a sort or mmr), none with mode poe alone; 0 turns it off. Measured with the local embedder: a model embedder needs its own value (docs/research.md).`,
      }),
    venues: VenueList.optional().openapi({
      description:
        "Only candidates with one of these venues (venue entity ids such as venue:neurips, or names, case-insensitive), before the floor and the view.",
    }),
    year_from: YearBound.optional().openapi({
      description:
        "Only candidates published in this year or later (the year: boundary, else valid_from's year); a candidate of unknown year is left out.",
    }),
    year_to: YearBound.optional().openapi({ description: "Only candidates published in this year or earlier." }),
  })
  .strict()
  .superRefine((r, ctx) => {
    const bad = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (r.weights && r.mode === "poe")
      bad("weights", "weights apply to modes stable, discovery and balanced; set mode too");
    if (r.lambda !== undefined && !r.mmr) bad("lambda", "lambda is MMR's: set mmr: true");
    if (r.sort && r.sort !== "combined" && (r.mmr || r.view))
      bad("sort", "sort cannot be combined with mmr or a view: give one of them");
    if (r.view && r.mmr) bad("view", "a view cannot be combined with mmr: give one of them");
    if (r.canonical && r.view !== "canonical") bad("canonical", "canonical thresholds need view: canonical");
    if (r.year_from !== undefined && r.year_to !== undefined && r.year_from > r.year_to)
      bad("year_to", `year_to (${r.year_to}) is before year_from (${r.year_from}): swap them`);
  })
  .openapi("Ranking", { example: { mode: "discovery", mmr: true } });

export const RankedItemSchema = z
  .object({
    chunk: z.string(),
    version: z.number(),
    rank: z.number().openapi({ description: "1-based position in the final order" }),
    combined_rank: z.number().openapi({ description: "1-based position in the combined ranking" }),
    mmr_rank: z.number().nullable(),
    year: z.number().nullable().openapi({ description: "the year: boundary, else valid_from's year" }),
    similarity: z.number(),
    recency: z.number(),
    novelty: z.number(),
    bm25: z.number(),
    citations: z.number().nullable(),
    citations_from: z.enum(["annotation", "cites"]).nullable(),
    combined: z.number(),
  })
  .openapi("RankedItem", {
    description:
      "One pool item's scores in [0, 1] (similarity: the route's cosine; recency: Eq. 2 over the pool's years; novelty: TF-IDF distance from the pool's mean, over the largest; bm25: the lexical expert's raw score over the pool's best) and its combined score (Eq. 3, or PoE over the pool's best in mode poe).",
  });

export const ScoreStatsSchema = z
  .object({
    ranked: z.number().openapi({ description: "candidates the means are over: every ranked one (`relevant`)" }),
    mean: z.object({
      similarity: z.number(),
      recency: z.number(),
      novelty: z.number(),
      bm25: z.number(),
      combined: z.number(),
    }),
  })
  .openapi("ScoreStats", {
    description:
      "Seed 004, E.3's score statistics: the mean similarity, recency, novelty and BM25 (each normalised over the pool as the items' are) and the mean combined score over every ranked candidate, not only the items returned.",
  });

export const RankingResult = z
  .object({
    mode: z.enum(POOL_MODES),
    weights: z
      .object({ similarity: z.number(), recency: z.number(), novelty: z.number(), bm25: z.number() })
      .nullable(),
    lambda: z.number().nullable(),
    sort: z.enum(SORT_KEYS),
    view: z.enum(VIEWS).nullable(),
    pool: z.number().openapi({ description: "the route's candidates (its top-M after filters)" }),
    relevant: z.number().openapi({
      description: "candidates ranked: the pool within the venues and years asked, at or above min_similarity",
    }),
    min_similarity: z.number().openapi({ description: "the similarity floor applied (0: none)" }),
    intra_list_similarity: z
      .number()
      .openapi({ description: "mean pairwise TF-IDF cosine (title + synopsis) of the first 10 items" }),
    mmr_comparisons: z.number(),
    score_stats: ScoreStatsSchema,
    items: z.array(RankedItemSchema),
    timings_ms: z.record(z.string(), z.number()),
  })
  .openapi("RankingResult", {
    description: "The ranking applied to the route's candidate pool: its parameters, cost and the first items.",
  });

const WeightsOut = z.object({ similarity: z.number(), recency: z.number(), novelty: z.number(), bm25: z.number() });

export const RankingModeSchema = z
  .object({
    mode: z.enum(POOL_MODES),
    description: z.string(),
    weights: WeightsOut.nullable().openapi({ description: "Eq. 3's weights (null for poe: the route's score)" }),
    lambda: z.number().openapi({ description: "MMR's λ when mmr: true" }),
  })
  .openapi("RankingMode", {
    description: "One ranking mode: its Eq. 3 weights (null for poe) and its MMR λ.",
    example: {
      mode: "discovery",
      description: "novelty first: papers far from the pool's mean, still on the query",
      weights: { similarity: 0.3, recency: 0.1, novelty: 0.4, bm25: 0.2 },
      lambda: 0.5,
    },
  });

export const RankingModesResponse = z
  .object({
    modes: z.array(RankingModeSchema),
    views: z.array(z.object({ view: z.enum(VIEWS), description: z.string() })),
    sorts: z.array(z.enum(SORT_KEYS)),
    defaults: z.object({
      mode: z.enum(POOL_MODES),
      min_similarity: z
        .number()
        .openapi({ description: "the similarity floor when the ranking reorders and none is given" }),
      pool: z.number().openapi({ description: "candidates a ranking sees: the route's top-M after filters" }),
      hidden_gem_rank: z.number(),
      canonical: z.object({ min_citations: z.number(), top_share: z.number() }),
    }),
  })
  .openapi("RankingModes", {
    description:
      "Paper Circle's ranking modes, views, sorts and defaults: what `ranking` on route and context applies.",
    example: {
      modes: [
        {
          mode: "stable",
          description: "relevance first: mostly similarity, some recency and BM25",
          weights: { similarity: 0.5, recency: 0.2, novelty: 0.1, bm25: 0.2 },
          lambda: 0.8,
        },
      ],
      views: [{ view: "hidden_gems", description: "items below rank 20 of the combined ranking, by novelty" }],
      sorts: ["combined", "similarity", "recency", "novelty", "bm25", "citations"],
      defaults: {
        mode: "poe",
        min_similarity: DEFAULT_MIN_SIMILARITY,
        pool: 256,
        hidden_gem_rank: 20,
        canonical: { min_citations: 50, top_share: 0.1 },
      },
    },
  });

export const RankingModeParams = ArchiveParam.extend({
  mode: z
    .enum(POOL_MODES)
    .openapi({ param: { name: "mode", in: "path" }, example: "discovery", description: POOL_MODES.join(", ") }),
});

/** Papers GET …/stats reads at most. */
export const MAX_STATS_PAPERS = 2000;

const csv = (name: string, description: string) =>
  queryParam(z.string().min(1).max(4000).optional(), name, description);

export const StatsQuery = z.object({
  within: queryParam(IdSchema.optional(), "within", "Only the subtree under this chunk (part-of, exact, from D1)."),
  kinds: csv("kinds", `Comma-separated kinds (default paper), of: ${CHUNK_KINDS.join(", ")}.`),
  boundaries_any: csv("boundaries_any", "Comma-separated boundary tags; a chunk must carry at least one."),
  references: z
    .enum(["exclude", "include", "only"])
    .default("exclude")
    .openapi({
      param: { name: "references", in: "query" },
      description:
        "Works known only from a bibliography (boundary `reference-only`: a full-text import's cited works without a record of their own): left out (default), counted too, or counted alone.",
    }),
  venues: csv(
    "venues",
    "Comma-separated venues (venue entity ids such as venue:neurips, or names, case-insensitive); a paper must have one.",
  ),
  year_from: z.coerce
    .number()
    .int()
    .min(1000)
    .max(9999)
    .optional()
    .openapi({
      param: { name: "year_from", in: "query" },
      description:
        "Only papers of this year or later (the year: boundary, else valid_from's year); unknown years are left out.",
    }),
  year_to: z.coerce
    .number()
    .int()
    .min(1000)
    .max(9999)
    .optional()
    .openapi({ param: { name: "year_to", in: "query" }, description: "Only papers of this year or earlier." }),
  as_of: Time.optional().openapi({ param: { name: "as_of", in: "query" } }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_STATS_PAPERS)
    .default(MAX_STATS_PAPERS)
    .openapi({
      param: { name: "limit", in: "query" },
      description: `Papers read at most (id order; default and maximum ${MAX_STATS_PAPERS}); truncated says when more matched.`,
    }),
});

const EntityCount = z.object({ entity: z.string(), name: z.string(), count: z.number() });

export const StatsResponse = z
  .object({
    as_of: z.string(),
    papers: z.number(),
    truncated: z.boolean(),
    limit: z.number(),
    years: z.array(z.object({ year: z.number(), count: z.number() })),
    sources: z.array(z.object({ source: z.string(), count: z.number() })),
    top_authors: z.array(EntityCount),
    top_venues: z.array(EntityCount),
    title_keywords: z.array(z.object({ term: z.string(), count: z.number() })),
    citations: z.object({
      total: z.number(),
      mean: z.number().nullable(),
      median: z.number().nullable(),
      min: z.number().nullable(),
      max: z.number().nullable(),
      from_annotation: z.number(),
      from_cites: z.number(),
    }),
    insights: z.object({
      peak_year: z.object({ year: z.number(), count: z.number() }).nullable(),
      primary_source: z.object({ source: z.string(), count: z.number(), share: z.number() }).nullable(),
      prolific_authors: z.array(EntityCount),
      citation_leader: z.object({ chunk: z.string(), title: z.string(), citations: z.number() }).nullable(),
      hot_topics: z.array(z.string()),
      open_access: z.object({
        known: z.number(),
        open: z.number(),
        share: z.number().nullable(),
        how: z.string(),
      }),
    }),
  })
  .openapi("CollectionStats", {
    description: "Statistics and insights of the chunks in scope at as_of (seed 004, E.3-E.4).",
    example: {
      as_of: "2025-01-01T00:00:00.000Z",
      papers: 2,
      truncated: false,
      limit: 2000,
      years: [{ year: 2024, count: 2 }],
      sources: [{ source: "arxiv.org", count: 2 }],
      top_authors: [{ entity: "person:alice-smith", name: "Alice Smith", count: 2 }],
      top_venues: [{ entity: "venue:neurips", name: "NeurIPS", count: 1 }],
      title_keywords: [{ term: "retrieval", count: 2 }],
      citations: { total: 7, mean: 3.5, median: 3.5, min: 2, max: 5, from_annotation: 1, from_cites: 1 },
      insights: {
        peak_year: { year: 2024, count: 2 },
        primary_source: { source: "arxiv.org", count: 2, share: 1 },
        prolific_authors: [{ entity: "person:alice-smith", name: "Alice Smith", count: 2 }],
        citation_leader: { chunk: "arxiv:2405.14831", title: "HippoRAG", citations: 5 },
        hot_topics: ["retrieval"],
        open_access: {
          known: 2,
          open: 2,
          share: 1,
          how: "known from an open_access annotation, an open-access boundary, or an arxiv.org source",
        },
      },
    },
  });

const Terms = z.array(z.string());

export const QuerySpecSchema = z
  .object({
    query: z.string(),
    search: z.string().openapi({ description: "the positive text sent to search engines and the route" }),
    keywords: Terms,
    required: Terms.openapi({ description: 'terms that must appear ("quoted phrases", +term)' }),
    negative: Terms.openapi({ description: "terms that exclude a result (-term, NOT term, without term)" }),
    related: Terms.openapi({ description: "acronyms, expansions and variants of the keywords" }),
    titles: Terms.openapi({ description: "plausible titles (the shapes such titles take, not known papers)" }),
    year_from: z.number().nullable(),
    year_to: z.number().nullable(),
    built_by: z.enum(["rules", "model"]),
    model_note: z
      .string()
      .nullable()
      .openapi({ description: "why the configured model's proposal was not used (null: used, or not asked)" }),
  })
  .openapi("QuerySpec", {
    example: {
      query: 'recent "graph retrieval" for LLM agents -survey since 2023',
      search: "recent graph retrieval for LLM agents",
      keywords: ["graph retrieval", "llm", "agents"],
      required: ["graph retrieval"],
      negative: ["survey"],
      related: ["large language model", "graph-based retrieval"],
      titles: ["Graph Retrieval for LLM Agents"],
      year_from: 2023,
      year_to: null,
      built_by: "rules",
      model_note: null,
    },
    description:
      "Seed 004, §3.2's structured query spec: built by rules from the query, or by the configured model through the model port, verified (non-empty strings within limits; required and negative terms copied from the query) and merged with the rules' spec.",
  });

export const QuerySpecBody = z
  .object({
    query: z.string().min(1).max(2000),
    model: z.boolean().default(false).openapi({
      description:
        "Ask the configured language model for the spec (verified, merged with the rules'); 409 when no model is configured. Default false: rules only.",
    }),
  })
  .strict()
  .openapi("QuerySpecRequest", {
    description: "A query to read as a structured spec (seed 004, §3.2), by rules or by the configured model.",
    example: { query: 'recent "graph retrieval" for LLM agents -survey since 2023' },
  });

/** Leaderboard entries a stats export may ask for. */
export const MAX_LEADERBOARD = 100;

export const LeaderboardEntrySchema = z
  .object({
    rank: z.number(),
    chunk: z.string(),
    version: z.number(),
    title: z.string().openapi({ description: "the paper's title at as_of (empty when the chunk has none)" }),
    year: z.number().nullable(),
    similarity: z.number(),
    recency: z.number(),
    novelty: z.number(),
    bm25: z.number(),
    citations: z.number().nullable(),
    combined: z.number(),
  })
  .openapi("LeaderboardEntry", {
    description: "One leaderboard entry: its place in the final order and its component scores.",
  });

export const RankingStatsBody = z
  .object({
    query: z.string().min(1).max(8000),
    as_of: Time.optional(),
    boundaries: z.array(z.string().min(1).max(MAX_ID)).max(50).optional(),
    ranking: RankingSchema.optional().openapi({
      description: "The ranking whose pool is summarised (default mode stable).",
    }),
    top: z
      .number()
      .int()
      .min(1)
      .max(MAX_LEADERBOARD)
      .default(10)
      .openapi({ description: `Leaderboard entries (1-${MAX_LEADERBOARD}, default 10).` }),
  })
  .strict()
  .openapi("RankingStatsRequest", {
    description: "A query whose ranked pool is summarised: score statistics and a leaderboard (seed 004, E.3).",
    example: { query: "graph retrieval for agents", ranking: { mode: "balanced" } },
  });

/** The QuerySpec of the ranking-stats and discovery examples, for their `query`. */
const specExample = (query: string) => ({
  query,
  search: query,
  keywords: ["graph retrieval", "agents"],
  required: [],
  negative: [],
  related: ["graph-based retrieval"],
  titles: ["Graph Retrieval for Agents"],
  year_from: null,
  year_to: null,
  built_by: "rules" as const,
  model_note: null,
});

export const RankingStatsResponse = z
  .object({
    query: z.string(),
    as_of: z.string(),
    spec: QuerySpecSchema,
    mode: z.enum(POOL_MODES),
    weights: WeightsOut.nullable(),
    pool: z.number(),
    relevant: z.number(),
    min_similarity: z.number(),
    score_stats: ScoreStatsSchema,
    leaderboard: z.array(LeaderboardEntrySchema),
  })
  .openapi("RankingStats", {
    example: {
      query: "graph retrieval for agents",
      as_of: "2026-12-01T00:00:00.000Z",
      spec: specExample("graph retrieval for agents"),
      mode: "balanced",
      weights: { similarity: 0.4, recency: 0.2, novelty: 0.2, bm25: 0.2 },
      pool: 64,
      relevant: 42,
      min_similarity: 0.1,
      score_stats: { ranked: 42, mean: { similarity: 0.41, recency: 0.55, novelty: 0.38, bm25: 0.29, combined: 0.42 } },
      leaderboard: [
        {
          rank: 1,
          chunk: "arxiv:2405.14831",
          version: 1,
          title: "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",
          year: 2024,
          similarity: 0.92,
          recency: 0.71,
          novelty: 0.4,
          bm25: 1,
          citations: 120,
          combined: 0.79,
        },
      ],
    },
    description:
      "Seed 004, E.3's stats export for one query: the ranked pool's score statistics and its leaderboard (the first `top` of the final order with their component scores), and the query spec the query was read as.",
  });

export const DiscoverBody = z
  .object({
    query: z.string().min(1).max(500),
    engines: z
      .array(z.enum(DISCOVERY_ENGINES))
      .min(1)
      .max(DISCOVERY_ENGINES.length)
      .optional()
      .openapi({ description: `Engines asked, in parallel (default all: ${DISCOVERY_ENGINES.join(", ")}).` }),
    per_engine: boundedInt(1, 50, 10, "Records asked of each engine (1-50, default 10)."),
    timeout_ms: boundedInt(
      500,
      20_000,
      8000,
      "Each engine's time to answer (500-20,000 ms, default 8,000); a late one is reported as timeout.",
    ),
    limit: boundedInt(1, 100, 20, "Ranked records returned (1-100, default 20)."),
    mode: z.enum(["stable", "discovery", "balanced"]).default("stable").openapi({
      description: "The Paper Circle mode the merged pool is ranked by (Eq. 3's weights; GET …/ranking/modes).",
    }),
    model: z.boolean().default(false).openapi({
      description: "Build the query spec with the configured language model (verified; 409 when none is configured).",
    }),
    rerank: z.boolean().default(false).openapi({
      description:
        "Reorder the first 50 of the combined order by the configured reranker (409 when none is configured).",
    }),
  })
  .strict()
  .openapi("DiscoverRequest", {
    description: "A query searched across several engines at once (seed 004, C.2); nothing is stored.",
    example: {
      query: '"long-term memory" for LLM agents -survey since 2023',
      engines: ["arxiv", "openalex"],
      per_engine: 10,
    },
  });

const EngineName = z.enum(DISCOVERY_ENGINES);

export const DiscoverResponse = z
  .object({
    query: z.string(),
    spec: QuerySpecSchema,
    stored: z.literal(false).openapi({ description: "discovery stores nothing: ingest the candidates you keep" }),
    engines: z.array(
      z.object({
        engine: EngineName,
        status: z.enum(["ok", "error", "timeout"]),
        query: z.string().openapi({ description: "the query sent, in the engine's own language" }),
        returned: z.number(),
        ms: z.number(),
        error: z.string().nullable(),
      }),
    ),
    source_stats: z
      .array(z.object({ engine: EngineName, records: z.number(), only_here: z.number() }))
      .openapi({ description: "per engine: merged records it returned, and those no other engine returned" }),
    dedup: z.object({
      fetched: z.number(),
      unique: z.number(),
      merged_by_doi: z.number(),
      merged_by_arxiv: z.number(),
      merged_by_title: z.number(),
      excluded: z.object({ negative: z.number(), required: z.number(), years: z.number() }),
      in_archive: z.number().openapi({ description: "returned records the archive already holds (marked in_archive)" }),
    }),
    ranking: z.object({
      mode: z.enum(POOL_MODES),
      weights: WeightsOut.nullable(),
      ranked: z.number(),
      score_stats: ScoreStatsSchema,
      reranker: z.string().nullable(),
      rerank_note: z.string().nullable(),
    }),
    items: z.array(
      z.object({
        rank: z.number(),
        id: z.string().openapi({ description: "the canonical id an import of this record would write" }),
        title: z.string(),
        year: z.number().nullable(),
        doi: z.string().nullable(),
        arxiv: z.string().nullable(),
        authors: z.array(z.string()),
        venue: z.string().nullable(),
        url: z.string().nullable(),
        citations: z.number().nullable(),
        engines: z.array(EngineName),
        in_archive: z
          .object({ chunk: z.string(), by: z.enum(["id", "title"]) })
          .nullable()
          .openapi({
            description: "the archive's chunk for this record (by a canonical id or the exact normalised title)",
          }),
        similarity: z.number(),
        recency: z.number(),
        novelty: z.number(),
        bm25: z.number(),
        combined: z.number(),
        combined_rank: z.number(),
        rerank_score: z.number().nullable(),
      }),
    ),
  })
  .openapi("Discovery", {
    example: {
      query: "long-term memory for LLM agents",
      spec: specExample("long-term memory for LLM agents"),
      stored: false,
      engines: [
        { engine: "arxiv", status: "ok", query: "all:long-term AND all:memory", returned: 10, ms: 420, error: null },
        { engine: "openalex", status: "timeout", query: "search=long-term memory", returned: 0, ms: 8000, error: null },
      ],
      source_stats: [{ engine: "arxiv", records: 10, only_here: 10 }],
      dedup: {
        fetched: 10,
        unique: 10,
        merged_by_doi: 0,
        merged_by_arxiv: 0,
        merged_by_title: 0,
        excluded: { negative: 0, required: 0, years: 0 },
        in_archive: 1,
      },
      ranking: {
        mode: "stable",
        weights: { similarity: 0.5, recency: 0.2, novelty: 0.1, bm25: 0.2 },
        ranked: 10,
        score_stats: {
          ranked: 10,
          mean: { similarity: 0.41, recency: 0.55, novelty: 0.38, bm25: 0.29, combined: 0.42 },
        },
        reranker: null,
        rerank_note: null,
      },
      items: [
        {
          rank: 1,
          id: "arxiv:2405.14831",
          title: "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",
          year: 2024,
          doi: null,
          arxiv: "2405.14831",
          authors: ["Bernal Jiménez Gutiérrez"],
          venue: null,
          url: "https://arxiv.org/abs/2405.14831",
          citations: null,
          engines: ["arxiv"],
          in_archive: { chunk: "arxiv:2405.14831", by: "id" },
          similarity: 0.9,
          recency: 0.7,
          novelty: 0.4,
          bm25: 1,
          combined: 0.8,
          combined_rank: 1,
          rerank_score: null,
        },
      ],
    },
    description:
      "Seed 004, C.2's one-shot discovery: the merged, deduplicated and ranked records of several engines, each with its engines and whether the archive already holds it.",
  });
