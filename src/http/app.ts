/**
 * The REST API (hono + @hono/zod-openapi): the root app sets the use cases on the context, caps
 * request bodies, maps every failure through one table, and mounts one sub-app per resource
 * (src/http/routes). Each route declares its scope once (src/http/route.ts) and calls the
 * application layer (src/app) and nothing else. /openapi.json and /docs are generated from it.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { UseCases } from "../app";
import * as S from "../contract";
import { FailureError, type FailureKind } from "../core/errors";
import { MAX_REQUEST_BYTES } from "../core/limits";
import { errorLine } from "../core/log";
import { type AppEnv, errorBody, STATUS } from "./common";
import { describeDocument } from "./descriptions";
import { API_DESCRIPTION, AUTH, BEARER_SCHEME, docsCsp, docsHtml, TAGS } from "./docs";
import { type ExplorerAssets, mountExplorer } from "./explorer";
import { guidesNav, mountGuides, parseGuides } from "./guides";
import { resourceApp } from "./route";
import { archivesRoutes } from "./routes/archives";
import { browseRoutes } from "./routes/browse";
import { discoveryRoutes } from "./routes/discovery";
import { entitiesRoutes } from "./routes/entities";
import { exportsRoutes } from "./routes/exports";
import { forgetRoutes } from "./routes/forget";
import { importsRoutes } from "./routes/imports";
import { inspectRoutes } from "./routes/inspect";
import { lifecycleRoutes } from "./routes/lifecycle";
import { operationsRoutes } from "./routes/operations";
import { paperbenchRoutes } from "./routes/paperbench";
import { papersRoutes } from "./routes/papers";
import { projectguardRoutes } from "./routes/projectguard";
import { queryRoutes } from "./routes/query";
import { researchRoutes } from "./routes/research";
import { reviewRoutes } from "./routes/review";
import { serviceRoutes } from "./routes/service";
import { sourcesRoutes } from "./routes/sources";
import { subscriptionsRoutes } from "./routes/subscriptions";
import { webhooksRoutes } from "./routes/webhooks";

export { errorBody } from "./common";

/** The resources in the order the OpenAPI document lists them. */
const RESOURCES = [
  serviceRoutes,
  archivesRoutes,
  lifecycleRoutes,
  forgetRoutes,
  entitiesRoutes,
  inspectRoutes,
  browseRoutes,
  queryRoutes,
  researchRoutes,
  discoveryRoutes,
  webhooksRoutes,
  subscriptionsRoutes,
  sourcesRoutes,
  importsRoutes,
  operationsRoutes,
  exportsRoutes,
  reviewRoutes,
  papersRoutes,
  paperbenchRoutes,
  projectguardRoutes,
];

/** What the Worker entry builds in: the explorer page's assets and the reference pages (build/). */
export interface BuiltAssets {
  explorer?: ExplorerAssets;
  /** The text of build/docs/pages.json.txt. */
  docs?: string;
}

/** The document and the reference pages: public, documented like the routes. */
function document(app: OpenAPIHono<AppEnv>, assets: BuiltAssets): void {
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
    description:
      "A self-contained HTML page (no external resources) that renders /openapi.json, with links to the reference pages (`/docs/{page}`).",
    security: AUTH.none,
    responses: {
      200: {
        description: "OK",
        content: { "text/html": { schema: { type: "string" }, example: "<!doctype html>..." } },
      },
    },
  });
  mountExplorer(app, assets.explorer ?? null);
  const guides = parseGuides(assets.docs ?? null);
  const reference = docsHtml(guidesNav(guides, null));
  app.get("/docs", async (c) => {
    c.header("content-security-policy", await docsCsp());
    c.header("x-content-type-options", "nosniff");
    return c.html(reference);
  });
  mountGuides(app, guides);
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", BEARER_SCHEME);
  // Generated once per isolate from the registry, with the shared parameter and schema descriptions.
  let built: unknown = null;
  app.get("/openapi.json", (c) => {
    built ??= describeDocument(
      app.getOpenAPI31Document({
        openapi: "3.1.0",
        info: { title: "PaperGuru", version: "0.1.0", description: API_DESCRIPTION },
        tags: TAGS,
        security: [{ bearer: [] }],
      }),
    );
    return c.json(built as object);
  });
}

/**
 * The REST app. `extra` sub-apps (the MCP endpoint, mounted by the Worker entry) are mounted after
 * the resources and before the document, sharing the middleware and the error map. `assets` are
 * the built explorer page and reference pages (the Worker entry passes them; without them `/` and
 * `/docs/{page}` say they were not built).
 */
export function createApp(
  getUseCases: (c: Context) => UseCases,
  extra: OpenAPIHono<AppEnv>[] = [],
  assets: BuiltAssets = {},
) {
  const app = resourceApp();
  app.use("*", async (c, next) => {
    c.set("app", getUseCases(c));
    await next();
    // No response is sniffed as another type; API responses (some carry secrets shown once, all are
    // per key) are never stored by caches.
    c.header("x-content-type-options", "nosniff");
    if (c.req.path.startsWith("/v1/")) c.header("cache-control", "no-store");
  });
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: MAX_REQUEST_BYTES,
      onError: (c) =>
        c.json(
          errorBody({
            kind: "too_large",
            message: `request body exceeds ${MAX_REQUEST_BYTES} bytes`,
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
    console.error(errorLine(`unhandled ${c.req.method} ${c.req.path.slice(0, 200)}`, err));
    return c.json({ error: { type: "internal", message: "internal error; nothing partial was stored" } }, 500);
  });
  for (const r of [...RESOURCES, ...extra]) app.route("/", r);
  document(app, assets);
  const methodsOf = routeMethods(app);
  app.notFound((c) => {
    // The path is a route's, asked with another method: a 405 that says which ones it takes.
    const allowed = methodsOf(c.req.path);
    if (allowed.length > 0) {
      c.header("allow", allowed.join(", "));
      return c.json(
        errorBody({
          kind: "method_not_allowed",
          message: `${c.req.method} ${c.req.path}: this route takes ${allowed.join(", ")}`,
          hint: `send ${allowed.filter((m) => m !== "HEAD").join(" or ")} (see /openapi.json)`,
        }),
        405,
      );
    }
    return c.json(
      errorBody({ kind: "not_found", message: `no route ${c.req.method} ${c.req.path}`, hint: "see /openapi.json" }),
      404,
    );
  });
  return app;
}

/**
 * The methods the app's routes take at a path (GET brings HEAD), from Hono's route table; read
 * once, on the first miss (routes are all registered by then).
 */
function routeMethods(app: { routes: ReadonlyArray<{ method: string; path: string }> }): (path: string) => string[] {
  let table: Array<{ re: RegExp; method: string }> | null = null;
  const verbs = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);
  return (path) => {
    table ??= app.routes
      .filter((r) => verbs.has(r.method))
      .map((r) => ({
        method: r.method,
        re: new RegExp(
          `^${r.path
            .split("/")
            .map((seg) =>
              seg.startsWith(":") ? "[^/]+" : seg === "*" ? ".*" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
            )
            .join("/")}/?$`,
        ),
      }));
    const found = new Set(table.filter((r) => r.re.test(path)).map((r) => r.method));
    if (found.has("GET")) found.add("HEAD");
    return ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].filter((m) => found.has(m));
  };
}
