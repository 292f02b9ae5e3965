/** Ingest, revise and deprecate: writing the memory. */
import * as S from "../../contract";
import { errorResponse as err, errors } from "../docs";
import { archivePost, resourceApp } from "../route";

export const lifecycleRoutes = resourceApp();

archivePost(
  lifecycleRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/ingest",
    tags: ["ingest"],
    summary: "Ingest a batch of artifacts",
    description:
      "Atomic: the whole batch lands or nothing does. Unchanged artifacts are no-ops, changed ones get a new version. With `near_duplicates: revise`, an artifact with a new id that overlaps an existing record of its kind becomes that record's next version (`requested_id` and `overlap` in its result). Limits: at most 200 artifacts (50 with near_duplicates: revise), content at most 2 MiB each, body at most 32 MiB (413 names the limit).",
    request: S.IngestBody,
    result: S.IngestResult,
    failures: {
      ...errors(400, 401, 403, 404),
      409: err(409, "Conflicts with stored versions; nothing stored"),
      413: err(413, "Batch or content over a named limit"),
    },
  },
  (app) => app.memory.ingestBatch,
);

archivePost(
  lifecycleRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/revise",
    tags: ["lifecycle"],
    summary: "Revise a chunk",
    description:
      "Adds a new version of an existing chunk: the same as ingesting it with changed content, but a 404 if the chunk does not exist yet.",
    request: S.ArtifactSchema,
    result: S.IngestResult,
    failures: {
      ...errors(400, 401, 403, 413),
      404: err(404, "No such archive or chunk (use /ingest to create it)"),
      409: err(409, "Conflicts with stored versions; nothing stored"),
    },
  },
  (app) => app.memory.revise,
);

archivePost(
  lifecycleRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/deprecate",
    tags: ["lifecycle"],
    summary: "Deprecate a chunk",
    description:
      "Ends the chunk's validity at `at` (default: now) and, with `by`, adds a deprecated-by edge to its successor. Queries as of earlier times still see it.",
    request: S.DeprecateBody,
    result: S.Deprecated,
    failures: {
      ...errors(400, 401, 403, 413),
      404: err(404, "No such archive or chunk"),
      409: err(409, "Already deprecated, or `at` precedes the chunk's validity"),
    },
  },
  (app) => app.memory.deprecate,
);
