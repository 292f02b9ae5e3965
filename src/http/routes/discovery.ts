/** Discovery: collection statistics (ranking modes, MMR and views are the `ranking` input of route and context). */
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
      "Over the chunks visible at `as_of` (default now) of `kinds` (default paper), within a part-of subtree and/or with any of `boundaries_any`, read exactly from D1 (at most `limit` papers in id order; `truncated` says when more matched): year and source distributions, top authors (person entities) and venues (venue entities), title keywords, citation total / mean / median / min / max (the `citations` annotation at as_of, else in-archive `cites` in-edges at as_of), and insights: peak year, primary source, prolific authors (≥ 2 papers), citation leader, hot topics (top 5 keywords) and open-access share (over the papers where it is known; `how` says how).",
    request: { params: S.ArchiveParam, query: S.StatsQuery },
    responses: { 200: json(S.StatsResponse), ...errors(400, 401, 403, 404) },
  },
  async (c) => {
    const res = await c.var.app.discovery.stats(c.req.valid("param").archive, c.req.valid("query"));
    return res.ok ? c.json(res.value, 200) : failure(c, res.error);
  },
);
