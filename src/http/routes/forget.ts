/** Hard deletes (a chunk, an entity's mentions, a whole archive) and their audit trail. */
import * as S from "../../contract";
import { answer, json } from "../common";
import { errorResponse as err, errors } from "../docs";
import { endpoint, queryGet, resourceApp } from "../route";

export const forgetRoutes = resourceApp();

const AFTER =
  "Afterwards no read path (route, context, expand, verify, history, neighbours, resolve, exports, MCP) returns it, also after the capital chunk is evicted and rebuilt: its change-log entries are dropped or rewritten and the archive's capital snapshots are removed (the next rebuild replays the scrubbed log and writes a new one). An audit row records who deleted what and when, with counts and no content (`GET …/deletions`). For a reversible end of validity use `/deprecate`.";

/** The answers of a chunk's hard delete, by query or by path. */
const CHUNK_DELETED = {
  200: json(S.Forgotten),
  ...errors(400, 401, 403),
  404: err(404, "No such archive or chunk (a repeated delete answers 404)"),
};

endpoint(
  forgetRoutes,
  "write",
  {
    method: "delete",
    path: "/v1/archives/{archive}/chunks",
    tags: ["lifecycle"],
    summary: "Delete a chunk for good",
    description: `Removes the chunk with every version, its edges in both directions, its access events and deprecation record, its vector, its content objects (content another version still uses stays) and the declared entities nothing else names. Stored retrieval-metric runs keep their numbers; the id reads \`(forgotten)\` in their gold and returned lists. ${AFTER}`,
    request: { params: S.ArchiveParam, query: S.ForgetChunkQuery },
    responses: CHUNK_DELETED,
  },
  async (c) => {
    const { archive } = c.req.valid("param");
    return answer(c, await c.var.app.forget.chunk(archive, c.req.valid("query").chunk, c.req.header("authorization")));
  },
);

endpoint(
  forgetRoutes,
  "write",
  {
    method: "delete",
    path: "/v1/archives/{archive}/chunks/{id}",
    tags: ["lifecycle"],
    summary: "Delete a chunk for good (by path)",
    description: `The same as \`DELETE …/chunks?chunk=\`, with the id in the path (percent-encoded) where \`GET …/chunks/{id}\` reads it. ${AFTER}`,
    request: { params: S.ArchiveParam.extend(S.ChunkIdParam.shape) },
    responses: CHUNK_DELETED,
  },
  async (c) => {
    const { archive, id } = c.req.valid("param");
    return answer(c, await c.var.app.forget.chunk(archive, id, c.req.header("authorization")));
  },
);

endpoint(
  forgetRoutes,
  "write",
  {
    method: "delete",
    path: "/v1/archives/{archive}/entities",
    tags: ["entities"],
    summary: "Delete an entity and its mentions",
    description: `Removes the entity, its aliases, renames and merges (entities merged into it are unmerged), edges to it, and every mention of it in stored versions, including the grounded mentions of its names in other chunks' text; the text itself stays (delete those chunks to remove it). ${AFTER}`,
    request: { params: S.ArchiveParam, query: S.ForgetEntityQuery },
    responses: {
      200: json(S.Forgotten),
      ...errors(400, 401, 403),
      404: err(404, "No such archive, or nothing stored names this entity"),
    },
  },
  async (c) => {
    const { archive } = c.req.valid("param");
    return answer(
      c,
      await c.var.app.forget.entity(archive, c.req.valid("query").entity, c.req.header("authorization")),
    );
  },
);

endpoint(
  forgetRoutes,
  "admin",
  {
    method: "delete",
    path: "/v1/archives/{archive}",
    tags: ["archives"],
    summary: "Delete an archive for good",
    description:
      "Admin key. Removes the archive and everything in it: keys (they stop working at once), chunks, versions, edges, entities, sessions, access log, change log, webhooks and their deliveries, sources, the ingest log, every blob (contents, snapshots, webhook bodies), every vector and the capital chunk's memory. The audit row stays: `GET /v1/deletions?archive=…`.",
    request: { params: S.ArchiveParam },
    responses: { 200: json(S.Forgotten), ...errors(400, 401, 403, 404) },
  },
  async (c) => {
    const { archive } = c.req.valid("param");
    return answer(c, await c.var.app.forget.archive(archive, c.req.header("authorization")));
  },
);

endpoint(
  forgetRoutes,
  "read",
  queryGet({
    path: "/v1/archives/{archive}/deletions",
    tags: ["lifecycle"],
    summary: "The archive's deletion audit trail",
    description: "Hard deletes, newest first: target, id, actor (`admin` or `key:<id>`), time and counts. No content.",
    params: S.ArchiveParam,
    query: S.DeletionsQuery,
    result: S.Deletions,
  }),
  async (c) => {
    const { archive } = c.req.valid("param");
    return c.json(await c.var.app.forget.deletions(archive, c.req.valid("query").limit), 200);
  },
);

endpoint(
  forgetRoutes,
  "admin",
  {
    method: "get",
    path: "/v1/deletions",
    tags: ["archives"],
    summary: "Deletion audit trail of any archive",
    description: "Admin key. Like `GET /v1/archives/{archive}/deletions`, also for an archive that was deleted.",
    request: { query: S.AdminDeletionsQuery },
    responses: { 200: json(S.Deletions), ...errors(400, 401, 403) },
  },
  async (c) => {
    const q = c.req.valid("query");
    return c.json(await c.var.app.forget.deletions(q.archive, q.limit), 200);
  },
);
