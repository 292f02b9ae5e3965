/** Ingest, revise and deprecate: writing the memory. */
import * as S from "../../contract";
import { answer, body, json } from "../common";
import { errorResponse as err, errors } from "../docs";
import { endpoint, resourceApp } from "../route";

export const lifecycleRoutes = resourceApp();

endpoint(
  lifecycleRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/ingest",
    tags: ["ingest"],
    summary: "Ingest a batch of artifacts",
    description:
      "Atomic: the whole batch lands or nothing does. Unchanged artifacts are no-ops, changed ones get a new version. With `near_duplicates: revise`, an artifact with a new id that overlaps an existing record of its kind becomes that record's next version (`requested_id` and `overlap` in its result). Limits: at most 200 artifacts (50 with near_duplicates: revise), content at most 2 MiB each, body at most 32 MiB (413 names the limit).",
    request: { params: S.ArchiveParam, ...body(S.IngestBody) },
    responses: {
      200: json(S.IngestResult),
      ...errors(400, 401, 403, 404),
      409: err(409, "Conflicts with stored versions; nothing stored"),
      413: err(413, "Batch or content over a named limit"),
    },
  },
  async (c) =>
    answer(
      c,
      await c.var.app.memory.ingestBatch(
        c.req.valid("param").archive,
        c.req.valid("json"),
        c.req.header("authorization"),
      ),
    ),
);

endpoint(
  lifecycleRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/revise",
    tags: ["lifecycle"],
    summary: "Revise a chunk",
    description:
      "Adds a new version of an existing chunk: the same as ingesting it with changed content, but a 404 if the chunk does not exist yet.",
    request: { params: S.ArchiveParam, ...body(S.ArtifactSchema) },
    responses: {
      200: json(S.IngestResult),
      ...errors(400, 401, 403, 413),
      404: err(404, "No such archive or chunk (use /ingest to create it)"),
      409: err(409, "Conflicts with stored versions; nothing stored"),
    },
  },
  async (c) => answer(c, await c.var.app.memory.revise(c.req.valid("param").archive, c.req.valid("json"))),
);

endpoint(
  lifecycleRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/deprecate",
    tags: ["lifecycle"],
    summary: "Deprecate a chunk",
    description:
      "Ends the chunk's validity at `at` (default: now) and, with `by`, adds a deprecated-by edge to its successor. Queries as of earlier times still see it.",
    request: { params: S.ArchiveParam, ...body(S.DeprecateBody) },
    responses: {
      200: json(S.Deprecated),
      ...errors(400, 401, 403, 413),
      404: err(404, "No such archive or chunk"),
      409: err(409, "Already deprecated, or `at` precedes the chunk's validity"),
    },
  },
  async (c) => answer(c, await c.var.app.memory.deprecate(c.req.valid("param").archive, c.req.valid("json"))),
);
