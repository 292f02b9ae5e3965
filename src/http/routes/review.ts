/** Human verification (statuses and history of nodes and edges) and retrieval metrics with stored runs. */
import * as S from "../../contract";
import { answer, body, failure, json, REPLAYED_HEADER } from "../common";
import { errorResponse as err, errors } from "../docs";
import { archiveGet, archiveItemGet, archivePost, endpoint, resourceApp } from "../route";

export const reviewRoutes = resourceApp();

endpoint(
  reviewRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/review",
    tags: ["review"],
    summary: "Verify, edit, add or remove an edge, flag",
    description:
      "One human-verification operation on a node (`chunk`) or an edge (`edge`: from, type, to), recorded with the calling key as actor, the `reason` and the valid time `at` (default now). Statuses: auto-generated (never reviewed), human-verified (verify), human-edited (edit, add_edge, remove_edge), flagged (flag, reason required). `edit` writes a new version with `changes`; `add_edge` and `remove_edge` write a new version of `from` with the edge added or without it, so a removed edge's validity ends at `at` and reads as of an earlier time still see it. Statuses are append-only annotation events (`review`, `review:edge:<type>:<to>` on the source chunk): `GET /review` reads them as of any time, and the exports carry them.",
    request: { params: S.ArchiveParam, ...body(S.ReviewBody) },
    responses: {
      201: json(
        S.ReviewResult,
        "Recorded; with an `event_id` used before for this operation, the first answer again (header `Idempotent-Replayed: true`), nothing changed",
      ),
      ...errors(400, 401, 403, 413, 503),
      404: err(404, "No such archive, chunk or edge"),
      409: err(
        409,
        "The edge already exists, the chunk is deprecated, `at` is not after the current version, the edit changes nothing, or `event_id` was used for another operation",
      ),
    },
  },
  async (c) => {
    const res = await c.var.app.review.applyOnce(
      c.req.valid("param").archive,
      c.req.valid("json"),
      c.req.header("authorization"),
    );
    if (!res.ok) return failure(c, res.error);
    if (res.value.replayed) c.header(REPLAYED_HEADER, "true");
    return c.json(res.value.value, 201);
  },
);

archiveGet(
  reviewRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/review",
    tags: ["review"],
    summary: "Review status and history of a node or an edge",
    description:
      "`chunk=` (a node) or `from=`, `type=`, `to=` (an edge): the status at `as_of` (default now), who set it, when and why, and every review event up to then. An edge also shows its stored validity interval (`exists`: valid at as_of); a node lists its reviewed out-edges with their statuses.",
    query: S.ReviewQuery,
    result: S.ReviewState,
    missing: "No such archive or chunk",
  },
  (app) => app.review.state,
);

endpoint(
  reviewRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/metrics/retrieval",
    tags: ["review"],
    summary: "Retrieval metrics against gold ids",
    description:
      "Runs each query (at most 100 per call) through the router (`/route` with `limit` = the largest K, the query's `filter`, `as_of`) and scores the returned chunk ids against its `gold` ids: hit (a gold id in the top max K), reciprocal rank, Recall@K = |gold ∩ top K| / |gold| and Precision@K = |gold ∩ top K| / K per query, and their means (hit rate, MRR, Recall@K, Precision@K). The run is stored (unless `store` is false) with its id, `name`, time and actor, to be compared with later runs.",
    request: { params: S.ArchiveParam, ...body(S.RetrievalMetricsBody) },
    responses: {
      201: json(S.RetrievalRun, "The run with per-query and aggregate metrics"),
      ...errors(400, 401, 403, 404, 413),
    },
  },
  async (c) =>
    answer(
      c,
      await c.var.app.review.retrieval(
        c.req.valid("param").archive,
        c.req.valid("json"),
        c.req.header("authorization"),
      ),
      201,
    ),
);

archiveGet(
  reviewRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/metrics/retrieval/runs",
    tags: ["review"],
    summary: "Stored retrieval-metric runs",
    description:
      "The runs of this archive, newest first, with their aggregates (no per-query rows), one page at a time.",
    query: S.RunListQuery,
    result: S.RetrievalRunPage,
  },
  (app) => app.review.runs,
);

archiveItemGet(
  reviewRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/metrics/retrieval/runs/{run}",
    tags: ["review"],
    summary: "One retrieval-metric run",
    description: "The run with its aggregate and per-query metrics (query, gold ids, returned ids).",
    item: S.RunParam,
    result: S.RetrievalRun,
    missing: "No such archive or run",
  },
  (app) => app.review.run,
);

archivePost(
  reviewRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/metrics/review-scores",
    tags: ["review"],
    summary: "Review-score metrics: predicted against human scores",
    description:
      "MSE, MAE, RMSE, Pearson's r, Spearman's rho (ranks with ties averaged) and the share of pairs within ±0.5, ±1 and ±1.5 (Paper Circle §4), over the `pairs` given and/or the pairs read from stored annotations (`annotations`: for each chunk, the values of `predicted_key` and `human_key` at `as_of`, a number or an object with a numeric `score`). Correlations are null when fewer than 2 pairs or one side is constant. Computes only; nothing is stored.",
    request: S.ReviewScoreMetricsBody,
    result: S.ReviewScoreMetrics,
    failures: errors(400, 401, 403, 404, 413),
  },
  (app) => app.review.reviewScores,
);

archivePost(
  reviewRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/reviewers",
    tags: ["review"],
    summary: "Reviewer reports for a paper from the configured model (off by default)",
    description:
      "Paper Circle's review agents (C33): the configured language model reads the paper chunk and the sections and elements part-of it (exact versions valid at `as_of`) and writes up to `reviewers` reports (a summary, a score 1-10, a confidence 1-5, and claims: strengths, weaknesses, questions). Each claim must cite one of the chunk ids it was given and quote that text verbatim: it is kept as an exact anchor of that version (POST /verify re-checks it), otherwise dropped and counted (`dropped_claims`). Each report is written as a `note` chunk `<paper>/review-<hash>` (boundary `review-report`, `introduced-by` the paper, source `model:<provider>:<model>`, a `proposal` annotation with its anchors), auto-generated until reviewed. Without a model configured: 409 naming DISTILLER / EXTRACTOR and LLM_* (docs/models.md).",
    request: S.ReviewersBody,
    result: S.ReviewersResult,
    described: "The verified reports (written unless dry_run) and what was dropped",
    failures: {
      ...errors(400, 401, 403, 413, 503),
      404: err(404, "No such archive or paper"),
      409: err(409, "No language model is configured (DISTILLER or EXTRACTOR, LLM_*)"),
    },
  },
  (app) => app.review.proposeReviews,
);
