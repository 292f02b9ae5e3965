/** Route, expand, context and verify; session events for /context. */
import * as S from "../../contract";
import { answer, body, json } from "../common";
import { errors } from "../docs";
import { endpoint, resourceApp } from "../route";

export const queryRoutes = resourceApp();

/**
 * On a route or context answered without semantic seeds: `stale` or `reembedding` (the archive's
 * vectors are in another embedding space than the embedder's; trace.vector_space says why).
 */
export const VECTOR_SPACE_HEADER = "PaperGuru-Vector-Space";
/** The change-log position a /route or /context answer reflects (`freshness.applied`). */
export const APPLIED_HEADER = "PaperGuru-Applied";

/** The answer with its trace only when asked (include_trace; the header above is set either way). */
function withTrace<T extends { trace: unknown }>(res: T, include: boolean): Omit<T, "trace"> & { trace?: T["trace"] } {
  if (include) return res;
  const { trace: _, ...rest } = res;
  return rest;
}

endpoint(
  queryRoutes,
  "read",
  {
    method: "post",
    path: "/v1/archives/{archive}/route",
    tags: ["query"],
    summary: "Route a query",
    description:
      "Head-only routing (no content is read): candidates with per-expert scores (semantic, symbolic, graph, recency), the router's selection, at most `limit` of each, and (with `include_trace: true`) a trace with per-phase timings. When the archive's vectors are in another embedding space than the configured embedder's (or being re-embedded), semantic seeds are skipped, `trace.vector_space` says why and the header `PaperGuru-Vector-Space` is `stale` or `reembedding` (docs/models.md). With `session_id`, the chunks that session accessed (at or before `as_of`, at most 64) seed recency and this request's selections are logged under it; without it nothing seeds recency, so the ranking depends only on the archive, the query and `as_of`.",
    request: { params: S.ArchiveParam, ...body(S.RouteBody) },
    responses: { 200: json(S.RouteResponse), ...errors(400, 401, 403, 404, 413) },
  },
  async (c) => {
    const b = c.req.valid("json");
    const res = await c.var.app.query.route(c.req.valid("param").archive, b);
    if (res.trace.vector_space) c.header(VECTOR_SPACE_HEADER, res.trace.vector_space.status);
    c.header(APPLIED_HEADER, res.freshness.applied);
    // `limit` bounds what is returned; the pool is ranked and routed whole either way.
    const n = b.limit ?? Number.POSITIVE_INFINITY;
    const bounded = { ...res, candidates: res.candidates.slice(0, n), selected: res.selected.slice(0, n) };
    return c.json(withTrace(bounded, b.include_trace ?? false), 200);
  },
);

endpoint(
  queryRoutes,
  "read",
  {
    method: "post",
    path: "/v1/archives/{archive}/expand",
    tags: ["query"],
    summary: "Evidence cards for chunks",
    description:
      "Distils evidence cards for the given chunks: the version valid at `as_of` (default: now), or an exact `version`, within `budget_tokens`. Chunks that do not fit or do not exist are listed in `skipped`. With `session_id`, the returned cards count as that session's accesses (recency seeds of its later routes).",
    request: { params: S.ArchiveParam, ...body(S.ExpandBody) },
    responses: { 200: json(S.ExpandResponse), ...errors(400, 401, 403, 404, 413) },
  },
  async (c) => {
    return c.json(await c.var.app.query.expand(c.req.valid("param").archive, c.req.valid("json")), 200);
  },
);

endpoint(
  queryRoutes,
  "read",
  {
    method: "post",
    path: "/v1/archives/{archive}/context",
    tags: ["query"],
    summary: "Assemble context within a token budget",
    description:
      "route -> expand -> distill within `budget_tokens`: the short-term window plus the cards' JSON as returned (compact, counted in `tokenizer`) fit it, lower-ranked cards that would not are in `skipped` as over_budget; each card's `tokens` counts its prompt form (docs/api.md). The trace only with `include_trace: true`. With `session_id`, the session's recent events take up to `short_term_share` of the budget first, and the chunks the session accessed seed recency. Routing skips semantic seeds as /route does when the archive's vectors are in another embedding space (`trace.vector_space`, header `PaperGuru-Vector-Space`).",
    request: { params: S.ArchiveParam, ...body(S.ContextBody) },
    responses: { 200: json(S.ContextResponse), ...errors(400, 401, 403, 404, 413) },
  },
  async (c) => {
    const b = c.req.valid("json");
    const res = await c.var.app.query.contextWithin(c.req.valid("param").archive, b);
    if (res.trace.vector_space) c.header(VECTOR_SPACE_HEADER, res.trace.vector_space.status);
    c.header(APPLIED_HEADER, res.freshness.applied);
    return c.json(withTrace(res, b.include_trace ?? false), 200);
  },
);

endpoint(
  queryRoutes,
  "read",
  {
    method: "post",
    path: "/v1/archives/{archive}/verify",
    tags: ["query"],
    summary: "Verify anchored spans",
    description:
      "Re-checks anchors: is each snippet exactly the text at [start, end) of that version? Reasons: `ok`, `snippet_mismatch` (with the stored text), `version_not_found`, `span_out_of_range`.",
    request: { params: S.ArchiveParam, ...body(S.VerifyBody) },
    responses: { 200: json(S.VerifyResponse), ...errors(400, 401, 403, 404, 413) },
  },
  async (c) => {
    return c.json(await c.var.app.query.verify(c.req.valid("param").archive, c.req.valid("json")), 200);
  },
);

endpoint(
  queryRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/sessions/{session}/events",
    tags: ["query"],
    summary: "Append session events",
    description: "Short-term events of an agent session; /context counts them against its budget.",
    request: {
      params: S.ArchiveParam.extend({
        // The same ids route, expand and context take as session_id (percent-encode other characters).
        session: S.SessionId.openapi({ param: { name: "session", in: "path" }, example: "s-2025-01-10" }),
      }),
      ...body(S.SessionEventsBody),
    },
    responses: { 200: json(S.SessionAppended), ...errors(400, 401, 403, 404, 413) },
  },
  async (c) => {
    const { archive, session } = c.req.valid("param");
    return answer(c, await c.var.app.query.appendSession(archive, session, c.req.valid("json")));
  },
);
