/**
 * Route modules declare each route's scope once: `endpoint(app, scope, config, handler)` writes the
 * scope into the OpenAPI `security` of the route and checks the bearer key against the route's
 * `{archive}` (if any) for that scope before zod validates the request. Scope `key` takes any valid key
 * (admin or archive, any scope). Scope `none` routes authenticate otherwise (the document and the page, the health check, webhook deliveries signed by HMAC).
 */
import { createRoute, OpenAPIHono, type RouteConfig, type RouteHandler } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { FailureError, schemaFailure } from "../core/errors";
import { type AppEnv, allow, errorBody } from "./common";
import { AUTH } from "./docs";

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
    middleware: [guard],
  } as unknown as R);
  app.openapi(route, handler as never);
}
