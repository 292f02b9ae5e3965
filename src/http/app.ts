/**
 * REST API under /v1 (hono + @hono/zod-openapi). Handlers are thin: validate (zod), authorise,
 * call the service, map the typed Result to HTTP through one exhaustive table.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { DeliveryRow } from "../adapters/d1/world-store";
import { FailureError, type FailureKind } from "../core/errors";
import { sha256Hex } from "../core/ingest";
import { type SourceKind, validateSourceSpec } from "../core/sources/types";
import { importFile } from "../feeds/imports";
import { createSource, runSource, sourceView } from "../feeds/sources";
import { receiveWebhook, replayDelivery } from "../feeds/webhooks";
import type { AppServices } from "../wiring";
import { allow, type Bindings, body, type Ctx, errorBody, failure, json, randomId, STATUS } from "./common";
import { API_DESCRIPTION, AUTH, BEARER_SCHEME, DOCS_HTML, docsCsp, errorResponse as err, errors, TAGS } from "./docs";
import { registerExports } from "./exports";
import { registerMcp } from "./mcp";
import * as Op from "./operations";
import * as S from "./schemas";

export { errorBody } from "./common";

function deliveryView(r: DeliveryRow) {
  return {
    webhook: r.webhook,
    delivery: r.deliveryId,
    kind: r.kind,
    event: r.event,
    status: r.status,
    attempts: r.attempts,
    result: r.result ? (JSON.parse(r.result) as unknown) : null,
    error: r.error,
    received_at: new Date(r.receivedAt).toISOString(),
    updated_at: new Date(r.updatedAt).toISOString(),
  };
}

/** The webhook receiver authenticates by HMAC headers, not a bearer key (documented, not validated here). */
const WEBHOOK_HEADERS = [
  ["X-PaperGuru-Signature", "generic: `sha256=<hex>` HMAC-SHA256 of `<timestamp>.<raw body>`"],
  ["X-PaperGuru-Timestamp", "generic: Unix seconds; must be within 300 s of the server's clock"],
  ["X-PaperGuru-Delivery", "generic: unique delivery id (at most 200 characters); redeliveries reuse it"],
  ["X-Hub-Signature-256", "github: `sha256=<hex>` HMAC-SHA256 of the raw body"],
  ["X-GitHub-Delivery", "github: the delivery GUID"],
  ["X-GitHub-Event", "github: `push` is ingested; `ping` and other events are acknowledged and ignored"],
].map(([name, description]) => ({
  name: name as string,
  in: "header" as const,
  required: false,
  description: description as string,
  schema: { type: "string" as const },
}));

export function createApp(getServices: (c: Context) => AppServices) {
  const app = new OpenAPIHono<{ Variables: Bindings }>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const field = issue?.path.join(".") ?? "";
        return c.json(
          errorBody({
            kind: "validation",
            message: issue ? `${field || "body"}: ${issue.message}` : "invalid request",
            field,
            hint: "see /openapi.json for the schema",
          }),
          400,
        );
      }
    },
  });

  app.use("*", async (c, next) => {
    c.set("services", getServices(c));
    await next();
  });

  // 32 MiB per request on every /v1 route: 200 artifacts x the 2 MiB content cap would be larger, so
  // the request itself is capped too (Workers accept up to 100 MB).
  const MAX_BODY = 32 * 1024 * 1024;
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: MAX_BODY,
      onError: (c) =>
        c.json(
          errorBody({
            kind: "too_large",
            message: `request body exceeds ${MAX_BODY} bytes`,
            field: "body",
            hint: "split the batch",
          }),
          413,
        ),
    }),
  );

  app.onError((err, c) => {
    if (err instanceof FailureError) return c.json(errorBody(err.failure), STATUS[err.failure.kind]);
    if (err instanceof HTTPException) {
      const status = err.status;
      const kind: FailureKind = status === 413 ? "too_large" : status === 401 ? "unauthorized" : "validation";
      const message = /JSON/i.test(err.message) ? "request body is not valid JSON" : err.message;
      return c.json(
        errorBody({ kind, message, field: "body", hint: "send a JSON body matching /openapi.json" }),
        status === 413 ? 413 : status === 401 ? 401 : 400,
      );
    }
    console.error("unhandled", err);
    return c.json({ error: { type: "internal", message: "internal error; nothing partial was stored" } }, 500);
  });

  app.openapi(
    createRoute({
      method: "get",
      path: "/healthz",
      tags: ["service"],
      summary: "Health check",
      description: "Answers without a key and without touching storage.",
      security: AUTH.none,
      responses: { 200: json(S.Healthz) },
    }),
    (c) => c.json({ ok: true, service: "paperguru" }, 200),
  );

  // ------------------------------------------------------------------ archives and keys
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives",
      tags: ["archives"],
      summary: "Create an archive",
      description:
        "Admin key. Creates an archive (`id` optional: generated when absent; `params` overrides kernel parameters) and returns it with a read+write key whose secret is shown once and stored hashed.",
      security: AUTH.admin,
      request: body(S.CreateArchive),
      responses: {
        201: json(S.ArchiveCreated, "Created, with the initial key"),
        ...errors(400, 401, 403, 413),
        409: err(409, "An archive with this id exists"),
      },
    }),
    async (c) => {
      const b = c.req.valid("json");
      await allow(c, null, "admin");
      const pg = c.var.services.paperguru;
      const now = Date.now();
      const id = b.id ?? randomId("a-", 6);
      const res = await pg.store.createArchive({
        id,
        name: b.name,
        description: b.description ?? "",
        params: b.params ?? {},
        createdAt: now,
      });
      if (!res.ok) return failure(c, res.error);
      const secret = randomId("pgk_", 24);
      const key = {
        id: randomId("k_", 8),
        archiveId: id,
        label: "initial",
        scopes: ["read", "write"],
        createdAt: now,
        revokedAt: null,
      };
      await pg.store.createKey({ ...key, keyHash: await sha256Hex(secret) });
      return c.json({ archive: res.value, key: { id: key.id, secret, scopes: key.scopes } }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives",
      tags: ["archives"],
      summary: "List archives",
      description: "Admin key. Every archive of the deployment, oldest first.",
      security: AUTH.admin,
      responses: { 200: json(S.ArchiveList), ...errors(401, 403) },
    }),
    async (c) => {
      await allow(c, null, "admin");
      return c.json({ archives: await c.var.services.paperguru.store.listArchives() }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}",
      tags: ["archives"],
      summary: "Archive metadata and statistics",
      description:
        "The archive, its storage counts (chunks, versions, edges, entities) and capital-chunk statistics (bytes per head, change-log sequence, last rebuild).",
      security: AUTH.read,
      request: { params: S.ArchiveParam },
      responses: { 200: json(S.ArchiveInfo), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      await allow(c, archive, "read");
      const pg = c.var.services.paperguru;
      return c.json({ archive: await pg.store.getArchive(archive), stats: await pg.stats(archive) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/keys",
      tags: ["archives"],
      summary: "Issue an archive key",
      description:
        "Admin key. A key for this archive with scopes `read` and/or `write`; the secret is shown once and only its SHA-256 is stored.",
      security: AUTH.admin,
      request: { params: S.ArchiveParam, ...body(S.CreateKey) },
      responses: { 201: json(S.KeyIssued, "Created"), ...errors(400, 401, 403, 404, 413) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "admin");
      const secret = randomId("pgk_", 24);
      const key = {
        id: randomId("k_", 8),
        archiveId: archive,
        label: b.label ?? "",
        scopes: [...new Set(b.scopes)],
        createdAt: Date.now(),
        revokedAt: null,
      };
      await c.var.services.paperguru.store.createKey({ ...key, keyHash: await sha256Hex(secret) });
      return c.json({ id: key.id, secret, scopes: key.scopes, label: key.label }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}/keys",
      tags: ["archives"],
      summary: "List keys",
      description: "Admin key. The archive's keys, revoked ones included; never their secrets.",
      security: AUTH.admin,
      request: { params: S.ArchiveParam },
      responses: { 200: json(S.KeyList), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      await allow(c, archive, "admin");
      return c.json({ keys: await c.var.services.paperguru.store.listKeys(archive) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/archives/{archive}/keys/{key}",
      tags: ["archives"],
      summary: "Revoke a key",
      description: "Admin key. The key stops working at once; revoking it again is a 404.",
      security: AUTH.admin,
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
    }),
    async (c) => {
      const { archive, key } = c.req.valid("param");
      await allow(c, archive, "admin");
      const done = await c.var.services.paperguru.store.revokeKey(archive, key, Date.now());
      if (!done)
        return failure(c, { kind: "not_found", message: `no active key ${key} in archive ${archive}`, field: "key" });
      return c.json({ revoked: key }, 200);
    },
  );

  // ------------------------------------------------------------------ ingest and lifecycle
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/ingest",
      tags: ["ingest"],
      summary: "Ingest a batch of artifacts",
      description:
        "Atomic: the whole batch lands or nothing does. Unchanged artifacts are no-ops, changed ones get a new version. Limits: at most 200 artifacts, content at most 2 MiB each, body at most 32 MiB (413 names the limit).",
      security: AUTH.write,
      request: { params: S.ArchiveParam, ...body(S.IngestBody) },
      responses: {
        200: json(S.IngestResult),
        ...errors(400, 401, 403, 404),
        409: err(409, "Conflicts with stored versions; nothing stored"),
        413: err(413, "Batch or content over a named limit"),
      },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "write");
      const res = await Op.ingestOp(c.var.services.paperguru, archive, b.artifacts);
      if (!res.ok) return failure(c, res.error);
      return c.json(res.value, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/revise",
      tags: ["lifecycle"],
      summary: "Revise a chunk",
      description:
        "Adds a new version of an existing chunk: the same as ingesting it with changed content, but a 404 if the chunk does not exist yet.",
      security: AUTH.write,
      request: { params: S.ArchiveParam, ...body(S.ArtifactSchema) },
      responses: {
        200: json(S.IngestResult),
        ...errors(400, 401, 403, 413),
        404: err(404, "No such archive or chunk (use /ingest to create it)"),
        409: err(409, "Conflicts with stored versions; nothing stored"),
      },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "write");
      const res = await Op.reviseOp(c.var.services.paperguru, archive, b);
      if (!res.ok) return failure(c, res.error);
      return c.json(res.value, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/deprecate",
      tags: ["lifecycle"],
      summary: "Deprecate a chunk",
      description:
        "Ends the chunk's validity at `at` (default: now) and, with `by`, adds a deprecated-by edge to its successor. Queries as of earlier times still see it.",
      security: AUTH.write,
      request: { params: S.ArchiveParam, ...body(S.DeprecateBody) },
      responses: {
        200: json(S.Deprecated),
        ...errors(400, 401, 403, 413),
        404: err(404, "No such archive or chunk"),
        409: err(409, "Already deprecated, or `at` precedes the chunk's validity"),
      },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "write");
      const res = await Op.deprecateOp(c.var.services.paperguru, archive, b);
      if (!res.ok) return failure(c, res.error);
      return c.json(res.value, 200);
    },
  );

  const entityRoute = <P extends string, T extends z.ZodType>(
    path: P,
    schema: T,
    summary: string,
    description: string,
  ) =>
    createRoute({
      method: "post",
      path,
      tags: ["entities"],
      summary,
      description,
      security: AUTH.write,
      request: { params: S.ArchiveParam, ...body(schema) },
      responses: {
        200: json(S.OkResult),
        ...errors(400, 401, 403, 413),
        404: err(404, "No such archive or entity"),
        409: err(409, "Conflicts with the entity's history (e.g. merged already)"),
      },
    });

  app.openapi(
    entityRoute(
      "/v1/archives/{archive}/entities/alias",
      S.AliasBody,
      "Add an entity alias",
      "The alias resolves to the entity from `at` (default: now).",
    ),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json") as z.infer<typeof S.AliasBody>;
      await allow(c, archive, "write");
      const res = await c.var.services.paperguru.entityOp(archive, {
        op: "alias",
        entity: b.entity,
        alias: b.alias,
        at: S.toMs(b.at),
      });
      return res.ok ? c.json({ ok: true }, 200) : failure(c, res.error);
    },
  );

  app.openapi(
    entityRoute(
      "/v1/archives/{archive}/entities/rename",
      S.RenameBody,
      "Rename an entity",
      "Renames the entity from `at` (default: now); the old name keeps resolving as an alias.",
    ),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json") as z.infer<typeof S.RenameBody>;
      await allow(c, archive, "write");
      const res = await c.var.services.paperguru.entityOp(archive, {
        op: "rename",
        entity: b.entity,
        newName: b.new_name,
        at: S.toMs(b.at),
      });
      return res.ok ? c.json({ ok: true }, 200) : failure(c, res.error);
    },
  );

  app.openapi(
    entityRoute(
      "/v1/archives/{archive}/entities/merge",
      S.MergeBody,
      "Merge two entities",
      "Merges `entity` into `into` from `at` (default: now); queries before `at` still see two entities.",
    ),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json") as z.infer<typeof S.MergeBody>;
      await allow(c, archive, "write");
      const res = await c.var.services.paperguru.entityOp(archive, {
        op: "merge",
        entity: b.entity,
        into: b.into,
        at: S.toMs(b.at),
      });
      return res.ok ? c.json({ ok: true }, 200) : failure(c, res.error);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}/history",
      tags: ["lifecycle"],
      summary: "Chunk or entity history",
      description:
        "Give exactly one of `chunk` (versions, deprecation, edges) or `entity` (aliases, renames, merges, mentions). Rows are as stored: times in epoch ms.",
      security: AUTH.read,
      request: { params: S.ArchiveParam, query: S.HistoryQuery },
      responses: {
        200: json(S.History),
        ...errors(401, 403),
        400: err(400, "Invalid input, or not exactly one of chunk and entity"),
        404: err(404, "No such archive, chunk or entity"),
      },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const q = c.req.valid("query");
      await allow(c, archive, "read");
      const res = await Op.historyOp(c.var.services.paperguru, archive, q);
      if (!res.ok) return failure(c, res.error);
      return c.json(res.value, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}/neighbours",
      tags: ["query"],
      summary: "A chunk's neighbour table",
      description:
        "The chunk's head (latest version, validity, access counts) and its bounded neighbour table valid at `as_of` (default: now), heaviest first.",
      security: AUTH.read,
      request: { params: S.ArchiveParam, query: S.ChunkQuery },
      responses: {
        200: json(S.Neighbours),
        ...errors(400, 401, 403),
        404: err(404, "No such archive or chunk"),
      },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const q = c.req.valid("query");
      await allow(c, archive, "read");
      const res = await Op.neighboursOp(c.var.services.paperguru, archive, q);
      return res.ok ? c.json(res.value, 200) : failure(c, res.error);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}/resolve",
      tags: ["query"],
      summary: "Resolve a mention to an entity",
      description:
        "The canonical entity a mention (name or alias) denotes as of `as_of` (default: now), following renames and merges; `resolved` is null when none does.",
      security: AUTH.read,
      request: { params: S.ArchiveParam, query: S.ResolveQuery },
      responses: { 200: json(S.Resolved), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const q = c.req.valid("query");
      await allow(c, archive, "read");
      return c.json(await Op.resolveOp(c.var.services.paperguru, archive, q), 200);
    },
  );

  // ------------------------------------------------------------------ queries
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/route",
      tags: ["query"],
      summary: "Route a query",
      description:
        "Head-only routing (no content is read): candidates with per-expert scores (semantic, symbolic, graph, recency), the router's selection and a trace with per-phase timings. With `session_id`, the chunks that session accessed (at or before `as_of`, at most 64) seed recency and this request's selections are logged under it; without it nothing seeds recency, so the ranking depends only on the archive, the query and `as_of`.",
      security: AUTH.read,
      request: { params: S.ArchiveParam, ...body(S.RouteBody) },
      responses: { 200: json(S.RouteResponse), ...errors(400, 401, 403, 404, 413) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "read");
      return c.json(await Op.routeOp(c.var.services.paperguru, archive, b), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/expand",
      tags: ["query"],
      summary: "Evidence cards for chunks",
      description:
        "Distils evidence cards for the given chunks: the version valid at `as_of` (default: now), or an exact `version`, within `budget_tokens`. Chunks that do not fit or do not exist are listed in `skipped`. With `session_id`, the returned cards count as that session's accesses (recency seeds of its later routes).",
      security: AUTH.read,
      request: { params: S.ArchiveParam, ...body(S.ExpandBody) },
      responses: { 200: json(S.ExpandResponse), ...errors(400, 401, 403, 404, 413) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "read");
      return c.json(await Op.expandOp(c.var.services.paperguru, archive, b), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/context",
      tags: ["query"],
      summary: "Assemble context within a token budget",
      description:
        "route -> expand -> distill within `budget_tokens`; with `session_id`, the session's recent events take up to `short_term_share` of the budget first, and the chunks the session accessed seed recency.",
      security: AUTH.read,
      request: { params: S.ArchiveParam, ...body(S.ContextBody) },
      responses: { 200: json(S.ContextResponse), ...errors(400, 401, 403, 404, 413) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "read");
      return c.json(await Op.contextOp(c.var.services.paperguru, archive, b), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/verify",
      tags: ["query"],
      summary: "Verify anchored spans",
      description:
        "Re-checks anchors: is each snippet exactly the text at [start, end) of that version? Reasons: `ok`, `snippet_mismatch` (with the stored text), `version_not_found`, `span_out_of_range`.",
      security: AUTH.read,
      request: { params: S.ArchiveParam, ...body(S.VerifyBody) },
      responses: { 200: json(S.VerifyResponse), ...errors(400, 401, 403, 404, 413) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "read");
      return c.json(await Op.verifyOp(c.var.services.paperguru, archive, b), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/sessions/{session}/events",
      tags: ["query"],
      summary: "Append session events",
      description: "Short-term events of an agent session; /context counts them against its budget.",
      security: AUTH.write,
      request: {
        params: S.ArchiveParam.extend({
          session: S.ArchiveParam.shape.archive.openapi({
            param: { name: "session", in: "path" },
            example: "s-2025-01-10",
          }),
        }),
        ...body(S.SessionEventsBody),
      },
      responses: { 200: json(S.SessionAppended), ...errors(400, 401, 403, 404, 413) },
    }),
    async (c) => {
      const { archive, session } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "write");
      const res = await c.var.services.paperguru.appendSession(
        archive,
        session,
        b.events.map((e) => ({ ...e, at: S.toMs(e.at) })),
      );
      return res.ok ? c.json(res.value, 200) : failure(c, res.error);
    },
  );

  // ------------------------------------------------------------------ ingest from the world
  app.openapi(
    createRoute({
      method: "put",
      path: "/v1/archives/{archive}/webhooks/{name}",
      tags: ["webhooks"],
      summary: "Create or rotate a webhook endpoint",
      description:
        "Admin key. `generic` endpoints take signed feed JSON; `github` endpoints take push events (optionally only for `branches`). Give a `secret` (at least 16 characters) or let the server generate one; it is shown once. PUT again to rotate.",
      security: AUTH.admin,
      request: { params: S.WebhookName, ...body(S.CreateWebhook) },
      responses: { 201: json(S.WebhookCreated, "Created or rotated"), ...errors(400, 401, 403, 404, 413) },
    }),
    async (c) => {
      const { archive, name } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "admin");
      const secret = b.secret ?? randomId("whsec_", 32);
      await c.var.services.feeds.world.putWebhook({
        archiveId: archive,
        name,
        kind: b.kind,
        secret,
        options: JSON.stringify(b.branches ? { branches: b.branches } : {}),
        createdAt: Date.now(),
      });
      const url = new URL(c.req.url);
      return c.json(
        {
          name,
          kind: b.kind,
          secret,
          url: `${url.origin}/v1/archives/${archive}/webhooks/${name}`,
          headers:
            b.kind === "github"
              ? { signature: "X-Hub-Signature-256", delivery: "X-GitHub-Delivery", event: "X-GitHub-Event" }
              : {
                  signature: "X-PaperGuru-Signature",
                  timestamp: "X-PaperGuru-Timestamp",
                  delivery: "X-PaperGuru-Delivery",
                },
        },
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}/webhooks",
      tags: ["webhooks"],
      summary: "List webhook endpoints",
      description: "Admin key. Never returns secrets.",
      security: AUTH.admin,
      request: { params: S.ArchiveParam },
      responses: { 200: json(S.WebhookList), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      await allow(c, archive, "admin");
      return c.json({ webhooks: await c.var.services.feeds.world.listWebhooks(archive) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/archives/{archive}/webhooks/{name}",
      tags: ["webhooks"],
      summary: "Delete a webhook endpoint",
      description: "Admin key. Later deliveries to it get 404; its delivery records stay.",
      security: AUTH.admin,
      request: { params: S.WebhookName },
      responses: {
        200: json(S.Deleted),
        ...errors(400, 401, 403),
        404: err(404, "No such archive or webhook"),
      },
    }),
    async (c) => {
      const { archive, name } = c.req.valid("param");
      await allow(c, archive, "admin");
      if (!(await c.var.services.feeds.world.deleteWebhook(archive, name)))
        return failure(c, { kind: "not_found", message: `no webhook ${name}`, field: "name" });
      return c.json({ deleted: name }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/webhooks/{name}",
      tags: ["webhooks"],
      summary: "Receive a signed webhook delivery",
      description:
        "No bearer key: the delivery is authenticated by an HMAC-SHA256 of the raw body with the endpoint's secret. `generic`: `X-PaperGuru-Signature: sha256=<hex>` over `<X-PaperGuru-Timestamp>.<body>` (timestamp in Unix seconds, within ±300 s), `X-PaperGuru-Delivery` a unique id; the body is the feed format (`Feed`). `github`: `X-Hub-Signature-256`, `X-GitHub-Delivery`, `X-GitHub-Event` (`push` is ingested, `ping` and other events are acknowledged and ignored); the body is GitHub's push payload. A redelivered id is acknowledged without a second ingest.",
      security: AUTH.none,
      parameters: WEBHOOK_HEADERS,
      request: {
        params: S.WebhookName,
        body: {
          description: "The raw payload (verified byte for byte; not validated against a schema before the signature)",
          content: {
            "application/json": {
              schema: { $ref: "#/components/schemas/Feed" },
              example: { artifacts: [], deprecations: [{ id: "decision:cache", reason: "superseded" }] },
            },
          },
        },
      },
      responses: {
        202: json(S.WebhookReceipt, "Accepted and queued"),
        200: json(S.WebhookReceipt, "Duplicate delivery (acknowledged, not ingested again) or ignored event"),
        400: err(400, "Malformed payload or missing delivery header"),
        401: err(401, "Bad or missing signature, or a stale timestamp"),
        404: err(404, "No such webhook in this archive"),
        413: err(413, "Body over 32 MiB"),
        503: err(503, "Could not enqueue; retry the delivery"),
      },
    }),
    async (c) => {
      const { archive, name } = c.req.valid("param");
      const raw = new Uint8Array(await c.req.arrayBuffer());
      const res = await receiveWebhook(c.var.services.feeds, archive, name, c.req.raw.headers, raw);
      if (!res.ok) return failure(c, res.error);
      return c.json(res.value, res.value.status === "queued" ? 202 : 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}/webhooks/{name}/deliveries",
      tags: ["webhooks"],
      summary: "List deliveries",
      description: "Deliveries of one endpoint, newest first; `?status=dead` is the dead-letter list.",
      security: AUTH.write,
      request: { params: S.WebhookName, query: S.DeliveryQuery },
      responses: { 200: json(S.DeliveryList), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { archive, name } = c.req.valid("param");
      const q = c.req.valid("query");
      await allow(c, archive, "write");
      const rows = await c.var.services.feeds.world.listDeliveries(archive, name, q.status, q.limit);
      return c.json({ deliveries: rows.map(deliveryView) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}/webhooks/{name}/deliveries/{delivery}",
      tags: ["webhooks"],
      summary: "One delivery",
      description: "Status, attempts, counts of the last successful run and the last error.",
      security: AUTH.write,
      request: { params: S.DeliveryParam },
      responses: {
        200: json(S.DeliverySchema),
        ...errors(400, 401, 403),
        404: err(404, "No such archive or delivery"),
      },
    }),
    async (c) => {
      const { archive, name, delivery } = c.req.valid("param");
      await allow(c, archive, "write");
      const row = await c.var.services.feeds.world.getDelivery(archive, name, delivery);
      if (!row) return failure(c, { kind: "not_found", message: `no delivery ${delivery}`, field: "delivery" });
      return c.json(deliveryView(row), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/webhooks/{name}/deliveries/{delivery}/replay",
      tags: ["webhooks"],
      summary: "Replay a delivery",
      description:
        "Puts a delivery (e.g. a dead letter) back on the queue with its stored body; ingest is idempotent, so replaying an ingested delivery changes nothing.",
      security: AUTH.write,
      request: { params: S.DeliveryParam },
      responses: {
        202: json(S.Replayed, "Queued"),
        ...errors(400, 401, 403),
        404: err(404, "No such archive or delivery"),
        409: err(409, "Already queued or being retried"),
      },
    }),
    async (c) => {
      const { archive, name, delivery } = c.req.valid("param");
      await allow(c, archive, "write");
      const res = await replayDelivery(c.var.services.feeds, archive, name, delivery);
      if (!res.ok) return failure(c, res.error);
      return c.json({ ...res.value, status: "queued" }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/sources",
      tags: ["sources"],
      summary: "Register a source",
      description:
        "A source cron re-ingests every `interval_minutes`: `arxiv`, `openalex`, `crossref` (queries of the public APIs), `github` (a repository) or `url` (a feed-format JSON document). Fetches are conditional (ETag, Last-Modified, content hash).",
      security: AUTH.write,
      request: { params: S.ArchiveParam, ...body(S.CreateSource) },
      responses: {
        201: json(S.SourceSchema, "Created"),
        ...errors(400, 401, 403, 404, 413),
        409: err(409, "A source with this id exists"),
      },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "write");
      const res = await createSource(c.var.services.feeds, archive, b);
      if (!res.ok) return failure(c, res.error);
      return c.json(sourceView(res.value), 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}/sources",
      tags: ["sources"],
      summary: "List sources",
      description: "Every source with its status: last run, last change, last error, next run.",
      security: AUTH.read,
      request: { params: S.ArchiveParam },
      responses: { 200: json(S.SourceList), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      await allow(c, archive, "read");
      return c.json({ sources: (await c.var.services.feeds.world.listSources(archive)).map(sourceView) }, 200);
    },
  );

  const getSourceOr404 = async (c: Ctx, archive: string, id: string) => {
    const row = await c.var.services.feeds.world.getSource(archive, id);
    if (!row)
      throw new FailureError({
        kind: "not_found",
        message: `no source ${id} in archive ${archive}`,
        field: "source",
        hint: `GET /v1/archives/${archive}/sources lists them`,
      });
    return row;
  };

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}/sources/{source}",
      tags: ["sources"],
      summary: "One source",
      description: "The source and its status.",
      security: AUTH.read,
      request: { params: S.SourceParam },
      responses: {
        200: json(S.SourceSchema),
        ...errors(400, 401, 403),
        404: err(404, "No such archive or source"),
      },
    }),
    async (c) => {
      const { archive, source } = c.req.valid("param");
      await allow(c, archive, "read");
      return c.json(sourceView(await getSourceOr404(c, archive, source)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/v1/archives/{archive}/sources/{source}",
      tags: ["sources"],
      summary: "Change a source",
      description:
        "Pause or resume a source, change its interval or query. A new query forgets the validators (the next run fetches whole); resuming makes it due at the next tick.",
      security: AUTH.write,
      request: { params: S.SourceParam, ...body(S.PatchSource) },
      responses: {
        200: json(S.SourceSchema),
        ...errors(401, 403, 413),
        400: err(400, "Invalid input, or a query the source's kind rejects"),
        404: err(404, "No such archive or source"),
      },
    }),
    async (c) => {
      const { archive, source } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "write");
      const row = await getSourceOr404(c, archive, source);
      const feeds = c.var.services.feeds;
      if (b.query !== undefined) {
        const spec = validateSourceSpec({ kind: row.kind as SourceKind, location: row.location, query: b.query });
        if (!spec.ok) return failure(c, spec.error);
      }
      const now = Date.now();
      await feeds.world.updateSource(archive, source, {
        ...(b.paused !== undefined ? { paused: b.paused ? 1 : 0 } : {}),
        ...(b.interval_minutes !== undefined ? { intervalMinutes: b.interval_minutes } : {}),
        // A new query is a new feed: forget the validators so the next run fetches it whole.
        ...(b.query !== undefined ? { query: b.query, etag: null, lastModified: null, contentHash: null } : {}),
        // Resuming makes the source due at the next tick.
        ...(b.paused === false ? { nextRunAt: now, failures: 0 } : {}),
      });
      return c.json(sourceView(await getSourceOr404(c, archive, source)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/v1/archives/{archive}/sources/{source}",
      tags: ["sources"],
      summary: "Delete a source",
      description: "What it ingested stays, with its history.",
      security: AUTH.write,
      request: { params: S.SourceParam },
      responses: {
        200: json(S.Deleted),
        ...errors(400, 401, 403),
        404: err(404, "No such archive or source"),
      },
    }),
    async (c) => {
      const { archive, source } = c.req.valid("param");
      await allow(c, archive, "write");
      if (!(await c.var.services.feeds.world.deleteSource(archive, source)))
        return failure(c, { kind: "not_found", message: `no source ${source}`, field: "source" });
      return c.json({ deleted: source }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/sources/{source}/run",
      tags: ["sources"],
      summary: "Run a source now",
      description:
        "Runs the source outside its schedule and returns the run's outcome (a failed fetch is `status: error` in a 200, as cron would record it) and the source's new status.",
      security: AUTH.write,
      request: { params: S.SourceParam },
      responses: {
        200: json(S.SourceRun),
        ...errors(400, 401, 403),
        404: err(404, "No such archive or source"),
      },
    }),
    async (c) => {
      const { archive, source } = c.req.valid("param");
      await allow(c, archive, "write");
      const row = await getSourceOr404(c, archive, source);
      const run = await runSource(c.var.services.feeds, row);
      return c.json({ run, source: sourceView(await getSourceOr404(c, archive, source)) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}/ingest-log",
      tags: ["sources"],
      summary: "The ingest log",
      description:
        "Ingest runs from webhook deliveries, source runs and file imports, newest first; `?before=<id>` pages.",
      security: AUTH.read,
      request: { params: S.ArchiveParam, query: S.LogQuery },
      responses: { 200: json(S.IngestLog), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const q = c.req.valid("query");
      await allow(c, archive, "read");
      const rows = await c.var.services.feeds.world.listLog(archive, q.limit, q.before);
      return c.json(
        {
          entries: rows.map((r) => ({
            id: r.id,
            origin: r.origin,
            ref: r.ref,
            status: r.status,
            counts: JSON.parse(r.counts) as unknown,
            error: r.error,
            at: new Date(r.at).toISOString(),
            duration_ms: r.durationMs,
          })),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/import",
      tags: ["ingest"],
      summary: "Import a file",
      description:
        "The file is the raw body, parsed as the `format` parameter says (see its values). Papers are deduplicated by DOI / arXiv id, then title; records that fail are listed in `failures` (the rest is stored). At most 2,000 records per request.",
      security: AUTH.write,
      request: {
        params: S.ArchiveParam,
        query: S.ImportQuery,
        body: {
          description: "The file, any content type (read as UTF-8 text)",
          content: {
            "text/plain": {
              schema: { type: "string" },
              example:
                "@article{gutierrez2024hipporag,\n  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},\n  eprint = {2405.14831},\n  archivePrefix = {arXiv},\n  year = {2024}\n}\n",
            },
          },
        },
      },
      responses: {
        200: json(S.ImportResult),
        ...errors(401, 403, 404),
        400: err(400, "Invalid query, empty body, or no records of this format in it"),
        413: err(413, "Body over 32 MiB or more than 2,000 records"),
      },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const q = c.req.valid("query");
      await allow(c, archive, "write");
      const text = await c.req.text();
      if (!text.trim())
        return failure(c, {
          kind: "validation",
          message: "empty body",
          field: "body",
          hint: "send the file as the body",
        });
      const res = await importFile(c.var.services.feeds, archive, q.format, text, q.name ?? `upload.${q.format}`);
      if (!res.ok) return failure(c, res.error);
      return c.json(res.value, 200);
    },
  );

  // ------------------------------------------------------------------ operations (admin)
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/admin/snapshot",
      tags: ["operations"],
      summary: "Snapshot the capital chunk",
      description:
        "Admin key. Writes a capital-chunk snapshot to R2 now; rebuilds start from the latest snapshot and replay the change log after it.",
      security: AUTH.admin,
      request: { params: S.ArchiveParam },
      responses: { 200: json(S.Snapshot), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      await allow(c, archive, "admin");
      return c.json(await c.var.services.paperguru.capital(archive).snapshot(archive), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/admin/evict",
      tags: ["operations"],
      summary: "Evict the capital chunk",
      description: "Admin key. Drops the in-memory copy, as an eviction would; the next call rebuilds it.",
      security: AUTH.admin,
      request: { params: S.ArchiveParam },
      responses: { 200: json(S.Evicted), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      await allow(c, archive, "admin");
      await c.var.services.paperguru.capital(archive).evict();
      return c.json({ evicted: archive }, 200);
    },
  );

  // Route modules of their own (they use the same auth, error map and OpenAPI registry).
  registerExports(app);
  registerMcp(app);

  // The document and the reference page: public, documented like the routes (not through app.openapi,
  // which would add nothing at runtime).
  app.openAPIRegistry.register("Feed", S.FeedBody);
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/openapi.json",
    tags: ["service"],
    summary: "This OpenAPI 3.1 document",
    description: "Generated from the zod schemas that validate the requests.",
    security: AUTH.none,
    responses: {
      200: {
        description: "OK",
        content: {
          "application/json": {
            schema: { type: "object", additionalProperties: true },
            example: { openapi: "3.1.0", info: { title: "PaperGuru", version: "0.1.0" }, paths: {} },
          },
        },
      },
    },
  });
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/docs",
    tags: ["service"],
    summary: "Human-readable API reference",
    description: "A self-contained HTML page (no external resources) that renders /openapi.json.",
    security: AUTH.none,
    responses: {
      200: {
        description: "OK",
        content: { "text/html": { schema: { type: "string" }, example: "<!doctype html>..." } },
      },
    },
  });
  app.get("/docs", async (c) => {
    c.header("content-security-policy", await docsCsp());
    c.header("x-content-type-options", "nosniff");
    return c.html(DOCS_HTML);
  });

  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "PaperGuru", version: "0.1.0", description: API_DESCRIPTION },
    tags: TAGS,
    security: [{ bearer: [] }],
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", BEARER_SCHEME);

  app.notFound((c) =>
    c.json(
      errorBody({ kind: "not_found", message: `no route ${c.req.method} ${c.req.path}`, hint: "see /openapi.json" }),
      404,
    ),
  );
  return app;
}
