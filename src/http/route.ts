/**
 * Route modules declare each route's scope once: `endpoint(app, scope, config, handler)` writes the
 * scope into the OpenAPI `security` of the route and checks the bearer key against the route's
 * `{archive}` (if any) for that scope before the handler runs, after zod has validated the request
 * (so a malformed request is a 400 whatever its key, as before). Scope `none` routes authenticate
 * otherwise (the document and the page, the health check, webhook deliveries signed by HMAC).
 */
import { createRoute, OpenAPIHono, type RouteConfig, type RouteHandler } from "@hono/zod-openapi";
import { schemaFailure } from "../core/errors";
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

/** Register a route whose OpenAPI `security` and key check both come from `scope` (config has none). */
export function endpoint<const R extends RouteConfig>(
  app: OpenAPIHono<AppEnv>,
  scope: Scope,
  config: R,
  handler: RouteHandler<R, AppEnv>,
): void {
  // `security` before `parameters`, where route modules used to write it: the document stays byte-identical.
  const { parameters, ...rest } = config;
  const route = createRoute({ ...rest, security: AUTH[scope], ...(parameters ? { parameters } : {}) } as R);
  const guarded = async (...[c, next]: Parameters<RouteHandler<R, AppEnv>>) => {
    if (scope !== "none") await allow(c, (c.req.param() as Record<string, string>).archive ?? null, scope);
    return handler(c, next);
  };
  app.openapi(route, guarded as never);
}
