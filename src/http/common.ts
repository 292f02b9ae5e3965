/**
 * What every route module shares: the context type, the one failure -> HTTP map, response helpers
 * for the OpenAPI document, and key authorisation. Route modules (REST, exports, MCP) import these.
 */
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type Failure, FailureError, type FailureKind } from "../core/errors";
import { sha256Hex } from "../core/ingest";
import type { AppServices } from "../wiring";
import * as S from "./schemas";

export type Bindings = { services: AppServices };
export type Ctx = Context<{ Variables: Bindings }>;

/** The one map from core failures to HTTP statuses (exhaustive: a new kind fails to compile). */
export const STATUS: Record<FailureKind, 400 | 401 | 403 | 404 | 409 | 413 | 503> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unavailable: 503,
};

export function errorBody(f: Failure) {
  return {
    error: {
      type: f.kind,
      message: f.message,
      ...(f.field ? { field: f.field } : {}),
      ...(f.hint ? { hint: f.hint } : {}),
    },
  };
}

/**
 * Typed `never` on purpose: it then fits every route's typed response union, while the OpenAPI
 * document lists the shared Error schema for each failure status.
 */
export function failure(c: Ctx, f: Failure): never {
  return c.json(errorBody(f), STATUS[f.kind]) as never;
}

export const errorResponses = {
  400: { description: "Invalid input", content: { "application/json": { schema: S.ErrorSchema } } },
  401: { description: "Missing or invalid API key", content: { "application/json": { schema: S.ErrorSchema } } },
  403: { description: "Key lacks the scope or archive", content: { "application/json": { schema: S.ErrorSchema } } },
  404: { description: "Not found", content: { "application/json": { schema: S.ErrorSchema } } },
};
export const json = <T extends z.ZodType>(schema: T, description = "OK") => ({
  description,
  content: { "application/json": { schema } },
});
export const body = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});

/** Constant-time comparison of two equal-length hex digests. */
function timingSafeEqualHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export type Need = "admin" | "read" | "write";

/** Authorise the bearer key for an archive. Archive keys never reach another archive. */
export async function authorize(c: Ctx, archiveId: string | null, need: Need): Promise<Failure | null> {
  const header = c.req.header("authorization") ?? "";
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  if (!m?.[1])
    return {
      kind: "unauthorized",
      message: "missing API key",
      field: "Authorization",
      hint: "send `Authorization: Bearer <key>`",
    };
  const { services } = c.var;
  const hash = await sha256Hex(m[1]);
  if (services.adminKey && timingSafeEqualHex(hash, await sha256Hex(services.adminKey))) {
    if (archiveId && !(await services.paperguru.store.getArchive(archiveId)))
      return { kind: "not_found", message: `archive ${archiveId} does not exist`, field: "archive" };
    return null;
  }
  if (need === "admin")
    return { kind: "forbidden", message: "this operation needs the admin key", field: "Authorization" };
  const key = await services.paperguru.store.findKeyByHash(hash);
  if (!key || key.revokedAt !== null)
    return {
      kind: "unauthorized",
      message: "invalid or revoked API key",
      field: "Authorization",
      hint: "ask the archive admin for a key",
    };
  if (key.archiveId !== archiveId)
    return { kind: "forbidden", message: "this key is not valid for this archive", field: "Authorization" };
  if (!key.scopes.includes(need))
    return {
      kind: "forbidden",
      message: `this key lacks the '${need}' scope`,
      field: "Authorization",
      hint: `issue a key with scopes ["${need}"]`,
    };
  return null;
}

/** Authorise or throw: the one error handler maps the typed failure to its HTTP status. */
export async function allow(c: Ctx, archiveId: string | null, need: Need): Promise<void> {
  const denied = await authorize(c, archiveId, need);
  if (denied) throw new FailureError(denied);
}

export function randomId(prefix: string, bytes = 16): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return `${prefix}${[...b].map((x) => x.toString(16).padStart(2, "0")).join("")}`;
}
