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
import {
  allow,
  type Bindings,
  body,
  type Ctx,
  errorBody,
  errorResponses,
  failure,
  json,
  randomId,
  STATUS,
} from "./common";
import { registerExports } from "./exports";
import { registerMcp } from "./mcp";
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

  app.get("/healthz", (c) => c.json({ ok: true, service: "paperguru" }));

  // ------------------------------------------------------------------ archives and keys
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives",
      tags: ["archives"],
      summary: "Create an archive (admin); returns a read+write key shown once",
      request: body(S.CreateArchive),
      responses: { 201: json(S.AnyObject, "Created"), 409: errorResponses[400], ...errorResponses },
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
      summary: "List archives (admin)",
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "Archive metadata and capital-chunk statistics (bytes per head, counts)",
      request: { params: S.ArchiveParam },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "Issue an archive key with scopes (admin); the secret is shown once, stored hashed",
      request: { params: S.ArchiveParam, ...body(S.CreateKey) },
      responses: { 201: json(S.AnyObject, "Created"), ...errorResponses },
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
      summary: "List keys (admin; never returns secrets)",
      request: { params: S.ArchiveParam },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "Revoke a key (admin)",
      request: {
        params: S.ArchiveParam.extend({
          key: z
            .string()
            .regex(/^k_[0-9a-f]{4,64}$/)
            .openapi({ param: { name: "key", in: "path" } }),
        }),
      },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "Ingest a batch of artifacts atomically; unchanged artifacts are no-ops, changed ones get a new version",
      request: { params: S.ArchiveParam, ...body(S.IngestBody) },
      responses: {
        200: json(S.IngestResult),
        409: json(S.ErrorSchema, "Conflicts with stored versions; nothing stored"),
        413: json(S.ErrorSchema, "Batch or content over a named limit"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "write");
      const res = await c.var.services.paperguru.ingest(archive, b.artifacts.map(S.toArtifactInput));
      if (!res.ok) return failure(c, res.error);
      return c.json(res.value, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/revise",
      tags: ["lifecycle"],
      summary: "Add a new version of an existing chunk (same as ingesting it with changed content)",
      request: { params: S.ArchiveParam, ...body(S.ArtifactSchema) },
      responses: { 200: json(S.IngestResult), 409: json(S.ErrorSchema, "Conflict"), ...errorResponses },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "write");
      const pg = c.var.services.paperguru;
      if (!(await pg.store.chunkRow(archive, b.id)))
        return failure(c, {
          kind: "not_found",
          message: `chunk ${b.id} does not exist`,
          field: "id",
          hint: "use /ingest to create it",
        });
      const res = await pg.ingest(archive, [S.toArtifactInput(b)]);
      if (!res.ok) return failure(c, res.error);
      return c.json(res.value, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/deprecate",
      tags: ["lifecycle"],
      summary: "Deprecate a chunk at a time, with a deprecated-by edge to its successor",
      request: { params: S.ArchiveParam, ...body(S.DeprecateBody) },
      responses: { 200: json(S.AnyObject), 409: json(S.ErrorSchema, "Conflict"), ...errorResponses },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "write");
      const res = await c.var.services.paperguru.deprecate(archive, b.id, b.by ?? null, S.toMs(b.at), b.reason ?? "");
      if (!res.ok) return failure(c, res.error);
      return c.json({ deprecated: b.id, by: b.by ?? null, version: res.value.version }, 200);
    },
  );

  const entityRoute = <P extends string, T extends z.ZodType>(path: P, schema: T, summary: string) =>
    createRoute({
      method: "post",
      path,
      tags: ["entities"],
      summary,
      request: { params: S.ArchiveParam, ...body(schema) },
      responses: { 200: json(S.AnyObject), 409: json(S.ErrorSchema, "Conflict"), ...errorResponses },
    });

  app.openapi(
    entityRoute("/v1/archives/{archive}/entities/alias", S.AliasBody, "Add an alias valid from a time"),
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
      "Rename an entity at a time; the old name keeps resolving",
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
    entityRoute("/v1/archives/{archive}/entities/merge", S.MergeBody, "Merge an entity into another from a time"),
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
      summary: "History of a chunk (versions, deprecation, edges) or of an entity (aliases, renames, merges, mentions)",
      request: { params: S.ArchiveParam, query: S.HistoryQuery },
      responses: { 200: json(S.AnyObject), ...errorResponses },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const q = c.req.valid("query");
      await allow(c, archive, "read");
      if (!q.chunk === !q.entity)
        return failure(c, {
          kind: "validation",
          message: "give exactly one of chunk or entity",
          field: "chunk",
          hint: "?chunk=<id> or ?entity=<id>",
        });
      const store = c.var.services.paperguru.store;
      const h = q.chunk
        ? await store.chunkHistory(archive, q.chunk)
        : await store.entityHistory(archive, q.entity as string);
      if (!h)
        return failure(c, {
          kind: "not_found",
          message: `${q.chunk ? "chunk" : "entity"} ${q.chunk ?? q.entity} not found`,
          field: q.chunk ? "chunk" : "entity",
        });
      return c.json(h as unknown as Record<string, unknown>, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}/neighbours",
      tags: ["query"],
      summary: "A chunk's head and its bounded neighbour table valid at as_of",
      request: { params: S.ArchiveParam, query: S.ChunkQuery },
      responses: { 200: json(S.AnyObject), ...errorResponses },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const q = c.req.valid("query");
      await allow(c, archive, "read");
      const res = await c.var.services.paperguru.neighbours(archive, q.chunk, S.toMs(q.as_of));
      return res.ok ? c.json(res.value as unknown as Record<string, unknown>, 200) : failure(c, res.error);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/v1/archives/{archive}/resolve",
      tags: ["query"],
      summary: "Resolve a mention to its canonical entity as of a time",
      request: { params: S.ArchiveParam, query: S.ResolveQuery },
      responses: { 200: json(S.AnyObject), ...errorResponses },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const q = c.req.valid("query");
      await allow(c, archive, "read");
      return c.json(
        { mention: q.mention, resolved: await c.var.services.paperguru.resolve(archive, q.mention, S.toMs(q.as_of)) },
        200,
      );
    },
  );

  // ------------------------------------------------------------------ queries
  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/route",
      tags: ["query"],
      summary: "Head-only routing: candidates with per-expert scores and a trace",
      request: { params: S.ArchiveParam, ...body(S.RouteBody) },
      responses: { 200: json(S.RouteResponse), ...errorResponses },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "read");
      const r = await c.var.services.paperguru.route({
        archiveId: archive,
        query: b.query,
        asOf: S.toMs(b.as_of),
        boundaries: b.boundaries,
        limit: b.limit,
      });
      return c.json(
        {
          as_of: new Date(r.asOf).toISOString(),
          candidates: r.route.candidates,
          selected: r.route.selected,
          trace: { ...r.route.trace, semantic: r.semantic.slice(0, 20), timings_ms: r.timings },
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/expand",
      tags: ["query"],
      summary: "Evidence cards for given chunks (the version valid at as_of, or an exact version)",
      request: { params: S.ArchiveParam, ...body(S.ExpandBody) },
      responses: { 200: json(S.ExpandResponse), ...errorResponses },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "read");
      const r = await c.var.services.paperguru.expand({
        archiveId: archive,
        query: b.query,
        chunks: b.chunks.map((x) => ({ chunk: x.id, version: x.version })),
        asOf: S.toMs(b.as_of),
        budgetTokens: b.budget_tokens,
        maxCardTokens: b.max_card_tokens,
      });
      return c.json({ cards: r.cards, skipped: r.skipped, tokens: r.tokens, trace: { timings_ms: r.timings } }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/context",
      tags: ["query"],
      summary: "route -> expand -> distill within budget_tokens (short-term session window included)",
      request: { params: S.ArchiveParam, ...body(S.ContextBody) },
      responses: { 200: json(S.ContextResponse), ...errorResponses },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "read");
      const r = await c.var.services.paperguru.context({
        archiveId: archive,
        query: b.query,
        asOf: S.toMs(b.as_of),
        boundaries: b.boundaries,
        budgetTokens: b.budget_tokens,
        sessionId: b.session_id,
        maxCards: b.max_cards,
        maxCardTokens: b.max_card_tokens,
        shortTermShare: b.short_term_share,
      });
      return c.json(
        {
          as_of: new Date(r.asOf).toISOString(),
          short_term: r.shortTerm,
          cards: r.cards,
          budget: r.budget,
          skipped: r.skipped,
          trace: {
            ...r.route.trace,
            candidates: r.route.candidates.slice(0, 32),
            selected: r.route.selected,
            timings_ms: r.timings,
          },
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/verify",
      tags: ["query"],
      summary: "Re-check anchors: is each snippet exactly the text at [start, end) of that version?",
      request: { params: S.ArchiveParam, ...body(S.VerifyBody) },
      responses: { 200: json(S.AnyObject), ...errorResponses },
    }),
    async (c) => {
      const { archive } = c.req.valid("param");
      const b = c.req.valid("json");
      await allow(c, archive, "read");
      const results = await c.var.services.paperguru.verify(archive, b.anchors);
      return c.json({ all_verified: results.every((r) => r.verified), results }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/v1/archives/{archive}/sessions/{session}/events",
      tags: ["query"],
      summary: "Append short-term session events (they count against context budgets)",
      request: {
        params: S.ArchiveParam.extend({
          session: S.ArchiveParam.shape.archive.openapi({ param: { name: "session", in: "path" } }),
        }),
        ...body(S.SessionEventsBody),
      },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "Create or rotate a webhook endpoint (admin); the secret is shown once",
      request: { params: S.WebhookName, ...body(S.CreateWebhook) },
      responses: { 201: json(S.AnyObject, "Created"), ...errorResponses },
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
      summary: "List webhook endpoints (admin; never returns secrets)",
      request: { params: S.ArchiveParam },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "Delete a webhook endpoint (admin); later deliveries get 404",
      request: { params: S.WebhookName },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary:
        "Receive a signed delivery (no bearer key: HMAC-SHA256 of the raw body). generic: X-PaperGuru-Signature over `<X-PaperGuru-Timestamp>.<body>` (±300 s), X-PaperGuru-Delivery; github: X-Hub-Signature-256, X-GitHub-Delivery, X-GitHub-Event (push)",
      request: { params: S.WebhookName },
      responses: {
        202: json(S.AnyObject, "Accepted and queued"),
        200: json(S.AnyObject, "Duplicate delivery (acknowledged, not ingested again) or ignored event"),
        409: json(S.ErrorSchema, "Conflict"),
        413: json(S.ErrorSchema, "Body over 32 MiB"),
        503: json(S.ErrorSchema, "Could not enqueue; retry the delivery"),
        ...errorResponses,
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
      summary: "List deliveries, newest first; ?status=dead is the dead-letter list",
      request: { params: S.WebhookName, query: S.DeliveryQuery },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "One delivery: status, attempts, counts, last error",
      request: { params: S.DeliveryParam },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "Put a delivery (e.g. a dead letter) back on the queue; ingest is idempotent",
      request: { params: S.DeliveryParam },
      responses: { 202: json(S.AnyObject, "Queued"), 409: json(S.ErrorSchema, "Already queued"), ...errorResponses },
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
      summary: "Register a source that cron re-ingests (arxiv, openalex, crossref, github, url)",
      request: { params: S.ArchiveParam, ...body(S.CreateSource) },
      responses: { 201: json(S.AnyObject, "Created"), 409: json(S.ErrorSchema, "Id taken"), ...errorResponses },
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
      summary: "List sources with their status (last run, last change, last error, next run)",
      request: { params: S.ArchiveParam },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "One source and its status",
      request: { params: S.SourceParam },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "Pause or resume a source, change its interval or query",
      request: { params: S.SourceParam, ...body(S.PatchSource) },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "Delete a source (what it ingested stays, with its history)",
      request: { params: S.SourceParam },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "Run a source now (outside its schedule) and return the run's outcome",
      request: { params: S.SourceParam },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "Ingest runs from webhooks, sources and imports, newest first (?before=<id> pages)",
      request: { params: S.ArchiveParam, query: S.LogQuery },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary:
        "Import a file: ?format=bibtex|markdown|fulltext|xkg|json, the file as the raw body; papers are deduplicated by DOI/arXiv id, then title",
      request: { params: S.ArchiveParam, query: S.ImportQuery },
      responses: { 200: json(S.AnyObject), 413: json(S.ErrorSchema, "Body over 32 MiB"), ...errorResponses },
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
      summary: "Write a capital-chunk snapshot to R2 now (admin)",
      request: { params: S.ArchiveParam },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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
      summary: "Drop the capital chunk from memory, as an eviction would (admin); the next call rebuilds it",
      request: { params: S.ArchiveParam },
      responses: { 200: json(S.AnyObject), ...errorResponses },
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

  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "PaperGuru",
      version: "0.1.0",
      description:
        "Lifecycle-aware long-term memory for long-horizon LLM agents. Errors: {error: {type, message, field, hint}}.",
    },
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });

  app.notFound((c) =>
    c.json(
      errorBody({ kind: "not_found", message: `no route ${c.req.method} ${c.req.path}`, hint: "see /openapi.json" }),
      404,
    ),
  );
  return app;
}
