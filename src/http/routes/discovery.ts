/**
 * Discovery: collection statistics and the ranking modes' weights (ranking modes, MMR and views are
 * the `ranking` input of route and context).
 */
import * as S from "../../contract";
import { answer, body, json } from "../common";
import { errors } from "../docs";
import { archiveGet, archivePost, endpoint, resourceApp } from "../route";

export const discoveryRoutes = resourceApp();

archiveGet(
  discoveryRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/stats",
    tags: ["discovery"],
    summary: "Collection statistics and insights",
    description:
      "Over the chunks visible at `as_of` (default now) of `kinds` (default paper), within a part-of subtree and/or with any of `boundaries_any`, of the `venues` and years (`year_from`, `year_to`) asked (applied to the papers read), read exactly from D1 (at most `limit` papers in id order; `truncated` says when more matched): year and source distributions, top authors (person entities) and venues (venue entities), title keywords, citation total / mean / median / min / max (the `citations` annotation at as_of, else in-archive `cites` in-edges at as_of), and insights: peak year, primary source, prolific authors (≥ 2 papers), citation leader, hot topics (top 5 keywords) and open-access share (over the papers where it is known; `how` says how).",
    query: S.StatsQuery,
    result: S.StatsResponse,
  },
  (app) => app.discovery.stats,
);

endpoint(
  discoveryRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/ranking/modes",
    tags: ["discovery"],
    summary: "Paper Circle's ranking modes, views and defaults",
    description:
      "What the `ranking` input of route and context applies, without a query: every mode's Eq. 3 weights and MMR λ (poe: the route's own score, no weights), the views, the sorts, and the defaults (the similarity floor a reordering ranking applies, the pool size, the hidden-gem rank, the canonical thresholds).",
    request: { params: S.ArchiveParam },
    responses: { 200: json(S.RankingModesResponse), ...errors(400, 401, 403, 404) },
  },
  (c) => c.json(c.var.app.discovery.rankingModes(), 200),
);

endpoint(
  discoveryRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/ranking/modes/{mode}",
    tags: ["discovery"],
    summary: "One ranking mode's weights and MMR λ",
    description: "The mode's Eq. 3 weights (null for poe) and MMR λ, without a query.",
    request: { params: S.RankingModeParams },
    responses: { 200: json(S.RankingModeSchema), ...errors(400, 401, 403, 404) },
  },
  (c) => c.json(c.var.app.discovery.rankingMode(c.req.valid("param").mode), 200),
);

endpoint(
  discoveryRoutes,
  "read",
  {
    method: "post",
    path: "/v1/archives/{archive}/query-spec",
    tags: ["discovery"],
    summary: "A query's structured spec (keywords, required, negative, related, titles, years)",
    description:
      'Seed 004, §3.2: the query read by rules (`"phrase"` and `+term` required; `-term`, `NOT term`, `without term` negative; `2019-2023`, `since 2020`, `before 2021` years; the rest keywords; related terms from acronyms, hyphenation and plurals; plausible titles), or with `model: true` by the configured language model through the model port, verified (non-empty strings within limits, required and negative terms copied from the query) and merged with the rules\' spec; `model_note` says why a proposal was not used. Reads nothing from the archive; discovery and the ranking stats use the same spec.',
    request: { params: S.ArchiveParam, ...body(S.QuerySpecBody) },
    responses: { 200: json(S.QuerySpecSchema), ...errors(400, 401, 403, 404, 409) },
  },
  async (c) => answer(c, await c.var.app.discovery.querySpec(c.req.valid("json"))),
);

archivePost(
  discoveryRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/ranking/stats",
    tags: ["discovery"],
    summary: "Score statistics and the leaderboard of a query's ranked pool",
    description:
      "Seed 004, E.3's stats export for one query: routes the query spec's positive text (negative terms and years taken out), ranks the candidate pool (the top 256 after filters) with `ranking` (default mode stable; the spec's years when the ranking sets none), leaves out candidates whose title holds a negative term, and returns the mean similarity, recency, novelty, BM25 and combined score over every ranked candidate and the leaderboard: the first `top` entries with their component scores.",
    request: S.RankingStatsBody,
    result: S.RankingStatsResponse,
    failures: errors(400, 401, 403, 404),
  },
  (app) => app.discovery.rankingStats,
);

archivePost(
  discoveryRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/discover",
    tags: ["discovery"],
    summary: "One-shot discovery across arXiv, OpenAlex, Crossref, Semantic Scholar and dblp",
    description:
      "Seed 004, C.2: builds the query spec (rules, or the configured model with `model: true`), asks the `engines` (default all five) in parallel at their public API hosts (at most `per_engine` records each, each within `timeout_ms`; a failed or late engine is reported in `engines` and the others still answer), merges the records by DOI, arXiv id and normalised title (`dedup` counts the merges; `source_stats` counts records per engine), leaves out records holding a negative term, missing a required one or outside the spec's years, ranks the rest with `mode` (Eq. 3 over the merged pool: TF-IDF similarity and BM25 against the spec's terms, recency, novelty) and, with `rerank: true`, reorders the first 50 by the configured reranker. Each record says which engines returned it and whether the archive already holds it (`in_archive`). Stores nothing: ingest the records you keep (docs/research.md).",
    request: S.DiscoverBody,
    result: S.DiscoverResponse,
    failures: errors(400, 401, 403, 404, 409),
  },
  (app) => app.discovery.discover,
);
