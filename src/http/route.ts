/**
 * Route modules declare each route's scope once: `endpoint(app, scope, config, handler)` writes the
 * scope into the OpenAPI `security` of the route and checks the bearer key against the route's
 * `{archive}` (if any) for that scope before zod validates the request. Scope `key` takes any valid key
 * (admin or archive, any scope). Scope `none` routes authenticate otherwise (the document and the page, the health check, webhook deliveries signed by HMAC).
 */
import { createRoute, OpenAPIHono, type RouteConfig, type RouteHandler, type z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { UseCases } from "../app";
import * as S from "../contract";
import { FailureError, type Result, schemaFailure } from "../core/errors";
import { type AppEnv, allow, answer, body, errorBody, json } from "./common";
import { AUTH, type ErrorResponse, type ErrorStatus, errorResponse, errors } from "./docs";
import { closestName, requestJsonSchema, unknownField } from "./strict";

export type Scope = keyof typeof AUTH;

/** A resource's sub-app; every one answers invalid input with the same 400 body. */
export function resourceApp(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success)
        return c.json(
          errorBody(schemaFailure(result.error.issues, { subject: "body", hint: "see /openapi.json for the schema" })),
          400,
        );
    },
  });
}

/**
 * Register a route whose OpenAPI `security` and key check both come from `scope` (config has none).
 * The key is checked first, as route middleware: a request without a valid key learns nothing about
 * the schema, and its body is not parsed.
 */
export function endpoint<const R extends RouteConfig>(
  app: OpenAPIHono<AppEnv>,
  scope: Scope,
  config: R,
  handler: RouteHandler<R, AppEnv>,
): void {
  // `security` before `parameters`, where route modules used to write it: the document stays byte-identical.
  const { parameters, ...rest } = config;
  const guard: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (scope === "key") {
      const who = await c.var.app.whoami(c.req.header("authorization"));
      if (!who.ok) throw new FailureError(who.error);
    } else if (scope !== "none") await allow(c, c.req.param("archive") ?? null, scope);
    await next();
  };
  const route = createRoute({
    ...rest,
    security: AUTH[scope],
    ...(parameters ? { parameters } : {}),
    middleware: [guard, strictFields(config)],
  } as unknown as R);
  app.openapi(route, handler as never);
}

/** What the document says of a route besides its request and responses. */
type Doc<P extends string> = { path: P; tags: string[]; summary: string; description: string };

/** A GET route: `doc` with `request` and `responses`, in the order the document lists them. */
function get<const P extends string, Req, Res>(doc: Doc<P>, request: Req, responses: Res) {
  return {
    method: "get" as const,
    path: doc.path,
    tags: doc.tags,
    summary: doc.summary,
    description: doc.description,
    request,
    responses,
  };
}

/** What a GET read answers: `result` with 200, or 400, 401, 403, 404 (described `missing`, if given) and `also`. */
type Read<R, C extends ErrorStatus = ErrorStatus> = { result: R; missing?: string; also?: C[] };

function readResponses<R extends z.ZodType, C extends ErrorStatus = never>(r: Read<R, C>) {
  return {
    200: json(r.result),
    ...errors<400 | 401 | 403 | C>(400, 401, 403, ...(r.also ?? [])),
    404: errorResponse(404, r.missing),
  };
}

/** A GET read with a query string: `result` is the 200 answer; it fails with 400, 401, 403 or 404. */
export function queryGet<const P extends string, Pa extends z.ZodType, Q extends z.ZodType, R extends z.ZodType>(
  r: Doc<P> & { params: Pa; query: Q; result: R },
) {
  return get(r, { params: r.params, query: r.query }, readResponses(r));
}

/**
 * A GET of one thing its path (and query) names: `result` is the 200 answer and `missing` the 404's
 * description; it fails with 400, 401, 403 and the statuses in `also`.
 */
export function itemGet<
  const P extends string,
  Req extends NonNullable<RouteConfig["request"]>,
  R extends z.ZodType,
  const C extends ErrorStatus = never,
>(r: Doc<P> & { request: Req; result: R; missing: string; also?: C[] }) {
  return get(r, r.request, readResponses(r));
}

/** A query or path schema as a route config takes it. */
type Parameters = NonNullable<NonNullable<RouteConfig["request"]>["query"]>;

/** A use case answering a GET on an archive: called with the archive and the query string. */
export type QueryCall<Q extends z.ZodType, R extends z.ZodType<object>> = (
  archive: string,
  query: z.output<Q>,
) => Promise<Result<z.output<R>>>;

/**
 * A GET on `{archive}` with the query string `query`, answered by the use case `call` picks from
 * the app; tsc checks it against both schemas.
 */
export function archiveGet<Q extends Parameters, R extends z.ZodType<object>>(
  app: OpenAPIHono<AppEnv>,
  scope: Scope,
  r: Doc<string> & Read<R> & { query: Q },
  call: (uses: UseCases) => QueryCall<Q, R>,
): void {
  // As in archivePost: the config holds the schemas as the types route configs take, and the
  // validator has parsed the query with `query`, so it is z.output<Q>.
  const query: Parameters = r.query;
  endpoint(app, scope, get(r, { params: S.ArchiveParam, query }, readResponses<z.ZodType, ErrorStatus>(r)), async (c) =>
    answer(c, await call(c.var.app)(c.req.valid("param").archive, c.req.valid("query") as z.output<Q>)),
  );
}

/** A use case answering a GET of one item of an archive: called with the archive and the item's id. */
export type ItemCall<R extends z.ZodType<object>> = (archive: string, id: string) => Promise<Result<z.output<R>>>;

/** A use case answering a GET of one item of an archive: called with the archive, the item's id and the query string. */
export type ItemQueryCall<Q extends z.ZodType, R extends z.ZodType<object>> = (
  archive: string,
  id: string,
  query: z.output<Q>,
) => Promise<Result<z.output<R>>>;

/** The item of a GET of one item: the path parameter whose schema has the one key K, such as `{id}`. */
type Item<K extends string> = { item: z.ZodObject<Record<K, z.ZodString>>; missing: string };

/**
 * A GET on `{archive}` and the path parameter `item` declares, with the query string `query` if
 * given; `missing` describes the 404. `call` picks the use case from the app; tsc checks it
 * against the schemas.
 */
export function archiveItemGet<K extends string, R extends z.ZodType<object>>(
  app: OpenAPIHono<AppEnv>,
  scope: Scope,
  r: Doc<string> & Read<R> & Item<K>,
  call: (uses: UseCases) => ItemCall<R>,
): void;
export function archiveItemGet<K extends string, Q extends Parameters, R extends z.ZodType<object>>(
  app: OpenAPIHono<AppEnv>,
  scope: Scope,
  r: Doc<string> & Read<R> & Item<K> & { query: Q },
  call: (uses: UseCases) => ItemQueryCall<Q, R>,
): void;
export function archiveItemGet<K extends string, Q extends Parameters, R extends z.ZodType<object>>(
  app: OpenAPIHono<AppEnv>,
  scope: Scope,
  r: Doc<string> & Read<R> & Item<K> & { query?: Q },
  call: (uses: UseCases) => ItemQueryCall<Q, R>,
): void {
  const params: Parameters = S.ArchiveParam.extend(r.item.shape);
  // `item` has one key, K; the validator has parsed the path with `params`, so the path holds the
  // archive and K as strings, and the query with `query`, so it is z.output<Q>.
  const key = Object.keys(r.item.shape)[0] as K;
  type Path = { archive: string } & Record<K, string>;
  const responses = readResponses<z.ZodType, ErrorStatus>(r);
  const query: Parameters | undefined = r.query;
  if (query)
    endpoint(app, scope, get(r, { params, query }, responses), async (c) => {
      const p = c.req.valid("param") as Path;
      return answer(c, await call(c.var.app)(p.archive, p[key], c.req.valid("query") as z.output<Q>));
    });
  // Without `query` the route declares none, and the use case takes none (the first overload).
  else
    endpoint(app, scope, get(r, { params }, responses), async (c) => {
      const p = c.req.valid("param") as Path;
      return answer(c, await (call(c.var.app) as ItemCall<R>)(p.archive, p[key]));
    });
}

/** A use case answering a POST on an archive: called with the archive, the JSON body and the bearer key. */
export type BodyCall<B extends z.ZodType, R extends z.ZodType<object>> = (
  archive: string,
  body: z.output<B>,
  authorization: string | undefined,
) => Promise<Result<z.output<R>>>;

/**
 * A POST on `{archive}` with the JSON body `request`: it answers 200 with `result` (described
 * `described`, default OK) or fails with `failures`. `call` picks the use case from the app; tsc
 * checks it against both schemas.
 */
export function archivePost<B extends z.ZodType, R extends z.ZodType<object>>(
  app: OpenAPIHono<AppEnv>,
  scope: Scope,
  r: Doc<string> & {
    request: B;
    result: R;
    described?: string;
    failures: Partial<Record<ErrorStatus, ErrorResponse>>;
  },
  call: (uses: UseCases) => BodyCall<B, R>,
): void {
  // The schemas go into the config as z.ZodType: hono computes a handler's types from a concrete
  // config and cannot from one generic in B and R. The validator has parsed the body with
  // `request`, so the body is z.output<B>.
  endpoint(
    app,
    scope,
    {
      method: "post",
      path: r.path,
      tags: r.tags,
      summary: r.summary,
      description: r.description,
      request: { params: S.ArchiveParam, ...body<z.ZodType>(r.request) },
      responses: { 200: json<z.ZodType>(r.result, r.described), ...r.failures },
    },
    async (c) =>
      answer(
        c,
        await call(c.var.app)(
          c.req.valid("param").archive,
          c.req.valid("json") as z.output<B>,
          c.req.header("authorization"),
        ),
      ),
  );
}

/**
 * After the key check and before zod: a body or query field the route's schemas do not name is a
 * 400 naming it and the closest known name (src/http/strict.ts), never dropped without a word. The
 * schemas' JSON Schema is made on the route's first request.
 */
function strictFields(config: RouteConfig): MiddlewareHandler<AppEnv> {
  const req = config.request as
    | { body?: { content?: Record<string, { schema?: unknown }> }; query?: unknown }
    | undefined;
  let schemas: { body: ReturnType<typeof requestJsonSchema>; query: ReturnType<typeof requestJsonSchema> } | null =
    null;
  // A body the route takes only as JSON (routes that also take files read other types as files).
  const types = Object.keys(req?.body?.content ?? {});
  const onlyJson = types.length === 1 && types[0] === "application/json";
  return async (c, next) => {
    schemas ??= {
      body: requestJsonSchema(req?.body?.content?.["application/json"]?.schema),
      // A route that declares no query takes none.
      query: requestJsonSchema(req?.query) ?? { type: "object", properties: {}, additionalProperties: false },
    };
    const { body, query } = schemas;
    if (query) {
      const u = unknownField(query, Object.fromEntries(Object.keys(c.req.queries()).map((k) => [k, ""])));
      if (u) throw new FailureError(unknownFailure(u.path, u.known, "query"));
    }
    const type = (c.req.header("content-type") ?? "").toLowerCase();
    if (onlyJson && !type.includes("application/json") && c.req.raw.body !== null) {
      // A body the route would read as JSON, sent without saying so: it would be read as absent.
      throw new FailureError({
        kind: "validation",
        message: `request body sent as ${type || "no content-type"}; this route reads JSON`,
        field: "content-type",
        hint: "send the header content-type: application/json with the JSON body",
      });
    }
    if (body && type.includes("application/json")) {
      // An unparsable body is zod's to refuse; the parsed body is cached for it.
      const value: unknown = await c.req.json().catch(() => undefined);
      const u = value === undefined ? null : unknownField(body, value);
      if (u) throw new FailureError(unknownFailure(u.path, u.known, "body"));
    }
    await next();
  };
}

function unknownFailure(path: string[], known: string[], part: "body" | "query") {
  const field = path.join(".");
  const name = path[path.length - 1] ?? "";
  const near = closestName(name, known);
  const where = path.length > 1 ? `${path.slice(0, -1).join(".")} takes` : `the ${part} takes`;
  return {
    kind: "validation" as const,
    message: `${part}: unknown field ${field}${near ? ` (did you mean ${near}?)` : ""}`,
    field,
    hint: `${near ? `send ${near} instead of ${name}; ` : ""}${where} ${known.length ? known.join(", ") : "no fields"} (see /openapi.json)`,
  };
}
