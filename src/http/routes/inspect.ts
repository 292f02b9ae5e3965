/** A chunk's or entity's history, a chunk's neighbour table, resolving a mention. */
import * as S from "../../contract";
import { answer, json } from "../common";
import { errorResponse as err, errors } from "../docs";
import { archiveGet, endpoint, queryGet, resourceApp } from "../route";

export const inspectRoutes = resourceApp();

endpoint(
  inspectRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/history",
    tags: ["lifecycle"],
    summary: "Chunk or entity history",
    description:
      "Give exactly one of `chunk` (answers as GET …/chunks/{id}: versions, deprecation with its reason, edges) or `entity` (as GET …/entities/{id}: names over time, events, mentions).",
    request: { params: S.ArchiveParam, query: S.HistoryQuery },
    responses: {
      200: json(S.History),
      ...errors(401, 403),
      400: err(400, "Invalid input, or not exactly one of chunk and entity"),
      404: err(404, "No such archive, chunk or entity"),
    },
  },
  async (c) => answer(c, await c.var.app.memory.history(c.req.valid("param").archive, c.req.valid("query"))),
);

archiveGet(
  inspectRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/neighbours",
    tags: ["query"],
    summary: "A chunk's neighbour table",
    description:
      "The chunk's head (latest version, validity, access counts) and its bounded neighbour table valid at `as_of` (default: now), heaviest first.",
    query: S.ChunkQuery,
    result: S.Neighbours,
    missing: "No such archive or chunk",
  },
  (app) => app.memory.neighbours,
);

endpoint(
  inspectRoutes,
  "read",
  queryGet({
    path: "/v1/archives/{archive}/resolve",
    tags: ["query"],
    summary: "Resolve a mention to an entity",
    description:
      "The canonical entity a mention (name or alias) denotes as of `as_of` (default: now), following renames and merges; `resolved` is null when none does.",
    params: S.ArchiveParam,
    query: S.ResolveQuery,
    result: S.Resolved,
  }),
  async (c) => {
    return c.json(await c.var.app.memory.resolve(c.req.valid("param").archive, c.req.valid("query")), 200);
  },
);
