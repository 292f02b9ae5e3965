/**
 * What every route module shares: the context type, the one failure -> HTTP map, response helpers
 * for the OpenAPI document and the scope check that `endpoint` (src/http/route.ts) runs.
 */
import type { z } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import type { JSONParsed } from "hono/utils/types";
import type { Need, UseCases } from "../app";
import { errorBody } from "../contract";
import { type Failure, FailureError, type FailureKind, type Result } from "../core/errors";

export { errorBody };

export type Bindings = { app: UseCases };
export type AppEnv = { Variables: Bindings };
export type Ctx = Context<AppEnv>;

/** The one map from core failures to HTTP statuses (exhaustive: a new kind fails to compile). */
export const STATUS: Record<FailureKind, 400 | 401 | 403 | 404 | 405 | 409 | 413 | 422 | 503> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  too_large: 413,
  unprocessable: 422,
  unavailable: 503,
};

/** Set to `true` on the stored first answer given again to a repeat of an `event_id` (docs/api.md). */
export const REPLAYED_HEADER = "Idempotent-Replayed";

/**
 * Typed `never` on purpose: it then fits every route's typed response union, while the OpenAPI
 * document lists the shared Error schema for each failure status.
 */
export function failure(c: Ctx, f: Failure): never {
  return c.json(errorBody(f), STATUS[f.kind]) as never;
}

/** The response `c.json(value, status)` gives: the value's type stays in it for the route to check. */
export type Answer<T, S extends 200 | 201 | 202> = Response & TypedResponse<JSONParsed<T>, S, "json">;

/**
 * A use case's result as the answer: its value as JSON with `status` (default 200), or its failure
 * through `failure`. The value's type stays in the response, so the route's response schema checks it.
 */
export function answer<T extends object>(c: Ctx, res: Result<T>): Answer<T, 200>;
export function answer<T extends object, S extends 201 | 202>(c: Ctx, res: Result<T>, status: S): Answer<T, S>;
export function answer<T extends object>(c: Ctx, res: Result<T>, status: 200 | 201 | 202 = 200) {
  return res.ok ? c.json(res.value, status) : failure(c, res.error);
}

export const json = <T extends z.ZodType>(schema: T, description = "OK") => ({
  description,
  content: { "application/json": { schema } },
});
export const body = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});

/** Authorise the request's bearer key for an archive (or none) and a scope; the failure, or null. */
export function authorize(c: Ctx, archiveId: string | null, need: Need): Promise<Failure | null> {
  return c.var.app.authorize(c.req.header("authorization"), archiveId, need);
}

/** Authorise or throw: the one error handler maps the typed failure to its HTTP status. */
export async function allow(c: Ctx, archiveId: string | null, need: Need): Promise<void> {
  const denied = await authorize(c, archiveId, need);
  if (denied) throw new FailureError(denied);
}
