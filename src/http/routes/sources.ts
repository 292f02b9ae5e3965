/** Sources cron re-ingests, and the ingest log. */
import * as S from "../../contract";
import { answer, body, json } from "../common";
import { errorResponse as err, errors } from "../docs";
import { endpoint, itemGet, queryGet, resourceApp } from "../route";

export const sourcesRoutes = resourceApp();

endpoint(
  sourcesRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/sources",
    tags: ["sources"],
    summary: "Register a source",
    description:
      "A source cron re-ingests every `interval_minutes`: `arxiv`, `openalex`, `crossref` (queries of the public APIs), `github` (a repository) or `url` (a feed-format JSON document). Fetches are conditional (ETag, Last-Modified, content hash).",
    request: { params: S.ArchiveParam, ...body(S.CreateSource) },
    responses: {
      201: json(S.SourceSchema, "Created"),
      ...errors(400, 401, 403, 404, 413),
      409: err(409, "A source with this id exists"),
    },
  },
  async (c) => answer(c, await c.var.app.sources.create(c.req.valid("param").archive, c.req.valid("json")), 201),
);

endpoint(
  sourcesRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/sources",
    tags: ["sources"],
    summary: "List sources",
    description: "Every source with its status: last run, last change, last error, next run.",
    request: { params: S.ArchiveParam },
    responses: { 200: json(S.SourceList), ...errors(400, 401, 403, 404) },
  },
  async (c) => {
    return c.json(await c.var.app.sources.list(c.req.valid("param").archive), 200);
  },
);

endpoint(
  sourcesRoutes,
  "read",
  itemGet({
    path: "/v1/archives/{archive}/sources/{source}",
    tags: ["sources"],
    summary: "One source",
    description: "The source and its status.",
    request: { params: S.SourceParam },
    result: S.SourceSchema,
    missing: "No such archive or source",
  }),
  async (c) => {
    const { archive, source } = c.req.valid("param");
    return answer(c, await c.var.app.sources.get(archive, source));
  },
);

endpoint(
  sourcesRoutes,
  "write",
  {
    method: "patch",
    path: "/v1/archives/{archive}/sources/{source}",
    tags: ["sources"],
    summary: "Change a source",
    description:
      "Pause or resume a source, change its interval or query. A new query forgets the validators (the next run fetches whole); resuming makes it due at the next tick.",
    request: { params: S.SourceParam, ...body(S.PatchSource) },
    responses: {
      200: json(S.SourceSchema),
      ...errors(401, 403, 413),
      400: err(400, "Invalid input, or a query the source's kind rejects"),
      404: err(404, "No such archive or source"),
    },
  },
  async (c) => {
    const { archive, source } = c.req.valid("param");
    return answer(c, await c.var.app.sources.patch(archive, source, c.req.valid("json")));
  },
);

endpoint(
  sourcesRoutes,
  "write",
  {
    method: "delete",
    path: "/v1/archives/{archive}/sources/{source}",
    tags: ["sources"],
    summary: "Delete a source",
    description: "What it ingested stays, with its history.",
    request: { params: S.SourceParam },
    responses: {
      200: json(S.Deleted),
      ...errors(400, 401, 403),
      404: err(404, "No such archive or source"),
    },
  },
  async (c) => {
    const { archive, source } = c.req.valid("param");
    return answer(c, await c.var.app.sources.remove(archive, source));
  },
);

endpoint(
  sourcesRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/sources/{source}/run",
    tags: ["sources"],
    summary: "Run a source now",
    description:
      "Runs the source outside its schedule and returns the run's outcome (a failed fetch is `status: error` in a 200, as cron would record it) and the source's new status.",
    request: { params: S.SourceParam },
    responses: {
      200: json(S.SourceRun),
      ...errors(400, 401, 403),
      404: err(404, "No such archive or source"),
    },
  },
  async (c) => {
    const { archive, source } = c.req.valid("param");
    return answer(c, await c.var.app.sources.run(archive, source));
  },
);

endpoint(
  sourcesRoutes,
  "read",
  queryGet({
    path: "/v1/archives/{archive}/ingest-log",
    tags: ["sources"],
    summary: "The ingest log",
    description:
      "Ingest runs from webhook deliveries, source runs and file imports, newest first; `?before=<id>` pages.",
    params: S.ArchiveParam,
    query: S.LogQuery,
    result: S.IngestLog,
  }),
  async (c) => {
    return c.json(await c.var.app.imports.log(c.req.valid("param").archive, c.req.valid("query")), 200);
  },
);
