/** Entity aliases, renames and merges, each from a time on. */
import type { z } from "@hono/zod-openapi";
import * as S from "../../contract";
import { answer, body, json } from "../common";
import { errorResponse as err, errors } from "../docs";
import { endpoint, resourceApp } from "../route";

export const entitiesRoutes = resourceApp();

const entityRoute = <P extends string, T extends z.ZodType>(
  path: P,
  schema: T,
  summary: string,
  description: string,
) => ({
  method: "post" as const,
  path,
  tags: ["entities"],
  summary,
  description,
  request: { params: S.ArchiveParam, ...body(schema) },
  responses: {
    200: json(S.OkResult),
    ...errors(400, 401, 403, 413),
    404: err(404, "No such archive or entity"),
    409: err(409, "Conflicts with the entity's history (e.g. merged already)"),
  },
});

endpoint(
  entitiesRoutes,
  "write",
  entityRoute(
    "/v1/archives/{archive}/entities/alias",
    S.AliasBody,
    "Add an entity alias",
    "The alias resolves to the entity from `at` (default: now).",
  ),
  async (c) => {
    const b = c.req.valid("json") as z.infer<typeof S.AliasBody>;
    return answer(c, await c.var.app.memory.alias(c.req.valid("param").archive, b));
  },
);

endpoint(
  entitiesRoutes,
  "write",
  entityRoute(
    "/v1/archives/{archive}/entities/rename",
    S.RenameBody,
    "Rename an entity",
    "Renames the entity from `at` (default: now); the old name keeps resolving as an alias.",
  ),
  async (c) => {
    const b = c.req.valid("json") as z.infer<typeof S.RenameBody>;
    return answer(c, await c.var.app.memory.rename(c.req.valid("param").archive, b));
  },
);

endpoint(
  entitiesRoutes,
  "write",
  entityRoute(
    "/v1/archives/{archive}/entities/merge",
    S.MergeBody,
    "Merge two entities",
    "Merges `entity` into `into` from `at` (default: now); queries before `at` still see two entities.",
  ),
  async (c) => {
    const b = c.req.valid("json") as z.infer<typeof S.MergeBody>;
    return answer(c, await c.var.app.memory.merge(c.req.valid("param").archive, b));
  },
);
