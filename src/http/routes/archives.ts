/** Archives and their keys (admin key, except reading an archive). */
import { z } from "@hono/zod-openapi";
import * as S from "../../contract";
import { answer, body, failure, json } from "../common";
import { errorResponse as err, errors } from "../docs";
import { endpoint, resourceApp } from "../route";

export const archivesRoutes = resourceApp();

endpoint(
  archivesRoutes,
  "admin",
  {
    method: "post",
    path: "/v1/archives",
    tags: ["archives"],
    summary: "Create an archive",
    description:
      "Admin key. Creates an archive (`id` optional: generated when absent; `params` overrides kernel parameters) and returns it with a read+write key whose secret is shown once and stored hashed.",
    request: body(S.CreateArchive),
    responses: {
      201: json(S.ArchiveCreated, "Created, with the initial key"),
      ...errors(400, 401, 403, 413),
      409: err(409, "An archive with this id exists"),
    },
  },
  async (c) => answer(c, await c.var.app.archives.create(c.req.valid("json")), 201),
);

endpoint(
  archivesRoutes,
  "admin",
  {
    method: "get",
    path: "/v1/archives",
    tags: ["archives"],
    summary: "List archives",
    description: "Admin key. Every archive of the deployment, oldest first.",
    responses: { 200: json(S.ArchiveList), ...errors(401, 403) },
  },
  async (c) => {
    return c.json(await c.var.app.archives.list(), 200);
  },
);

endpoint(
  archivesRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}",
    tags: ["archives"],
    summary: "Archive metadata and statistics",
    description:
      "The archive, its storage counts (chunks, versions, edges, entities) and capital-chunk statistics (bytes per head, change-log sequence, last rebuild).",
    request: { params: S.ArchiveParam },
    responses: { 200: json(S.ArchiveInfo), ...errors(400, 401, 403, 404) },
  },
  async (c) => {
    return c.json(await c.var.app.archives.info(c.req.valid("param").archive), 200);
  },
);

endpoint(
  archivesRoutes,
  "admin",
  {
    method: "post",
    path: "/v1/archives/{archive}/keys",
    tags: ["archives"],
    summary: "Issue an archive key",
    description:
      "Admin key. A key for this archive with scopes `read` and/or `write`; the secret is shown once and only its SHA-256 is stored.",
    request: { params: S.ArchiveParam, ...body(S.CreateKey) },
    responses: { 201: json(S.KeyIssued, "Created"), ...errors(400, 401, 403, 404, 413) },
  },
  async (c) => {
    const key = await c.var.app.archives.issueKey(c.req.valid("param").archive, c.req.valid("json"));
    return c.json(key, 201);
  },
);

endpoint(
  archivesRoutes,
  "admin",
  {
    method: "get",
    path: "/v1/archives/{archive}/keys",
    tags: ["archives"],
    summary: "List keys",
    description: "Admin key. The archive's keys, revoked ones included; never their secrets.",
    request: { params: S.ArchiveParam },
    responses: { 200: json(S.KeyList), ...errors(400, 401, 403, 404) },
  },
  async (c) => {
    return c.json(await c.var.app.archives.listKeys(c.req.valid("param").archive), 200);
  },
);

endpoint(
  archivesRoutes,
  "admin",
  {
    method: "delete",
    path: "/v1/archives/{archive}/keys/{key}",
    tags: ["archives"],
    summary: "Revoke a key",
    description: "Admin key. The key stops working at once; revoking it again is a 404.",
    request: {
      params: S.ArchiveParam.extend({
        key: z
          .string()
          .regex(/^k_[0-9a-f]{4,64}$/)
          .openapi({ param: { name: "key", in: "path" }, example: "k_9f8e7d6c5b4a3928" }),
      }),
    },
    responses: {
      200: json(S.KeyRevoked),
      ...errors(400, 401, 403),
      404: err(404, "No such archive, or no active key with this id"),
    },
  },
  async (c) => {
    const { archive, key } = c.req.valid("param");
    return answer(c, await c.var.app.archives.revokeKey(archive, key));
  },
);

endpoint(
  archivesRoutes,
  "key",
  {
    method: "get",
    path: "/v1/whoami",
    tags: ["archives"],
    summary: "The calling key: its archives and scopes",
    description:
      "Any valid key. An archive key answers its one archive and its scopes (`read`, `write`); the admin key answers every archive with `read`, `write` and `admin`. Nothing here is readable that the key could not already read; the explorer at `/` uses it to offer the archives and hide write controls from read-only keys.",
    responses: { 200: json(S.WhoAmI), ...errors(401, 403) },
  },
  async (c) => {
    const who = await c.var.app.whoami(c.req.header("authorization"));
    return who.ok ? c.json(who.value, 200) : failure(c, who.error);
  },
);

endpoint(
  archivesRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/reembed",
    tags: ["archives"],
    summary: "Re-embed the archive with the configured embedder",
    description:
      "Write scope (or the admin key). Starts a queued job that re-embeds every head (each chunk's latest version, title and synopsis as ingest embeds them) with the configured embedder, 96 heads per queue message, writes the new vectors and head sketches, and switches the archive's recorded embedding space when done. Until then queries skip semantic seeds for this archive (`trace.vector_space`); ingest keeps working. Idempotent: while a job runs it is answered (`started: false`, 200); an archive already in the embedder's space is left alone unless `force`. A vector index whose fixed dimension is not the embedder's (EMBEDDING_DIMS) is a 503. See docs/models.md.",
    request: { params: S.ArchiveParam, ...body(S.ReembedBody) },
    responses: {
      202: json(S.ReembedStarted, "Started: the job and the archive's state"),
      200: json(
        S.ReembedStarted,
        "Nothing started: the running job, or the archive is already in the embedder's space",
      ),
      ...errors(400, 401, 403, 404, 413),
      409: err(409, "A re-embed into another embedding space is running (EMBEDDER changed meanwhile)"),
      503: err(
        503,
        "The vector index's dimension is not the embedder's (EMBEDDING_DIMS), or the embedder is unavailable",
      ),
    },
  },
  async (c) => {
    const res = await c.var.app.reembed.start(c.req.valid("param").archive, c.req.valid("json"));
    if (!res.ok) return failure(c, res.error);
    return res.value.started ? c.json(res.value, 202) : c.json(res.value, 200);
  },
);

endpoint(
  archivesRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/reembed",
    tags: ["archives"],
    summary: "The archive's embedding space and re-embed progress",
    description:
      "The space the archive's vectors are in against the configured embedder's (`current`, `unrecorded`, `stale`, `reembedding`), and the running re-embed (else the latest): heads done of the total, pages, start and end, the latest errors.",
    request: { params: S.ArchiveParam },
    responses: { 200: json(S.ReembedStatus), ...errors(400, 401, 403, 404) },
  },
  async (c) => answer(c, await c.var.app.reembed.status(c.req.valid("param").archive)),
);
