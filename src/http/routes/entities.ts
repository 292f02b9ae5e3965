/** Entity aliases, renames and merges, each from a time on. */
import type { z } from "@hono/zod-openapi";
import type { UseCases } from "../../app";
import * as S from "../../contract";
import { errorResponse as err, errors } from "../docs";
import { archivePost, type BodyCall, resourceApp } from "../route";

export const entitiesRoutes = resourceApp();

/** A write on one entity's history: `request` in, `{ ok: true }` out. */
function entityPost<B extends z.ZodType>(
  path: string,
  request: B,
  summary: string,
  description: string,
  call: (app: UseCases) => BodyCall<B, typeof S.OkResult>,
): void {
  archivePost(
    entitiesRoutes,
    "write",
    {
      path,
      tags: ["entities"],
      summary,
      description,
      request,
      result: S.OkResult,
      failures: {
        ...errors(400, 401, 403, 413),
        404: err(404, "No such archive or entity"),
        409: err(409, "Conflicts with the entity's history (e.g. merged already)"),
      },
    },
    call,
  );
}

entityPost(
  "/v1/archives/{archive}/entities/alias",
  S.AliasBody,
  "Add an entity alias",
  "The alias resolves to the entity from `at` (default: now).",
  (app) => app.memory.alias,
);

entityPost(
  "/v1/archives/{archive}/entities/rename",
  S.RenameBody,
  "Rename an entity",
  "Renames the entity from `at` (default: now); the old name keeps resolving as an alias.",
  (app) => app.memory.rename,
);

entityPost(
  "/v1/archives/{archive}/entities/merge",
  S.MergeBody,
  "Merge two entities",
  "Merges `entity` into `into` from `at` (default: now); queries before `at` still see two entities.",
  (app) => app.memory.merge,
);
