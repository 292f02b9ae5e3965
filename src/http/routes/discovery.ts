/**
 * Discovery: collection statistics and the ranking modes' weights (ranking modes, MMR and views are
 * the `ranking` input of route and context).
 */
import * as S from "../../contract";
import { failure, json } from "../common";
import { errors } from "../docs";
import { endpoint, resourceApp } from "../route";

export const discoveryRoutes = resourceApp();

endpoint(
  discoveryRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/stats",
    tags: ["discovery"],
    summary: "Collection statistics and insights",
    description:
      "Over the chunks visible at `as_of` (default now) of `kinds` (default paper), within a part-of subtree and/or with any of `boundaries_any`, of the `venues` and years (`year_from`, `year_to`) asked (applied to the papers read), read exactly from D1 (at most `limit` papers in id order; `truncated` says when more matched): year and source distributions, top authors (person entities) and venues (venue entities), title keywords, citation total / mean / median / min / max (the `citations` annotation at as_of, else in-archive `cites` in-edges at as_of), and insights: peak year, primary source, prolific authors (≥ 2 papers), citation leader, hot topics (top 5 keywords) and open-access share (over the papers where it is known; `how` says how).",
    request: { params: S.ArchiveParam, query: S.StatsQuery },
    responses: { 200: json(S.StatsResponse), ...errors(400, 401, 403, 404) },
  },
  async (c) => {
    const res = await c.var.app.discovery.stats(c.req.valid("param").archive, c.req.valid("query"));
    return res.ok ? c.json(res.value, 200) : failure(c, res.error);
  },
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
