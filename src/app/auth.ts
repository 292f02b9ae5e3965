/**
 * Key authorisation, shared by REST and MCP: the bearer key of a request against an archive and a
 * scope. Archive keys never reach another archive; only the admin key reaches every archive.
 */
import { type Failure, fail, ok, type Result } from "../core/errors";
import { sha256Hex } from "../core/ingest";
import type { AppDeps } from "./deps";

export type Need = "admin" | "read" | "write";

/** Constant-time comparison of two equal-length hex digests. */
function timingSafeEqualHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Authorise an `Authorization` header value for an archive (null: no archive, as for /mcp before a
 * tool names one) and a scope. Returns the failure, or null when allowed.
 */
export async function authorize(
  d: AppDeps,
  authorization: string | undefined,
  archiveId: string | null,
  need: Need,
): Promise<Failure | null> {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
  if (!m?.[1])
    return {
      kind: "unauthorized",
      message: "missing API key",
      field: "Authorization",
      hint: "send `Authorization: Bearer <key>`",
    };
  const hash = await sha256Hex(m[1]);
  if (d.adminKey && timingSafeEqualHex(hash, await sha256Hex(d.adminKey))) {
    if (archiveId && !(await d.stores.archives.getArchive(archiveId)))
      return { kind: "not_found", message: `archive ${archiveId} does not exist`, field: "archive" };
    return null;
  }
  const key = await d.stores.archives.findKeyByHash(hash);
  if (!key || key.revokedAt !== null)
    return {
      kind: "unauthorized",
      message: "invalid or revoked API key",
      field: "Authorization",
      hint: "ask the archive admin for a key",
    };
  if (need === "admin")
    return { kind: "forbidden", message: "this operation needs the admin key", field: "Authorization" };
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

/** Who a request acts as, for audit rows: "admin" or "key:<key id>" (call after authorize). */
export async function actorOf(d: AppDeps, authorization: string | undefined): Promise<string> {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
  if (!m?.[1]) return "anonymous";
  const hash = await sha256Hex(m[1]);
  if (d.adminKey && timingSafeEqualHex(hash, await sha256Hex(d.adminKey))) return "admin";
  const key = await d.stores.archives.findKeyByHash(hash);
  return key ? `key:${key.id}` : "anonymous";
}

/** The archives a key may read: every archive for the admin key, its own for an archive key with read scope. */
export async function readableArchives(d: AppDeps, authorization: string | undefined): Promise<string[]> {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
  if (!m?.[1]) return [];
  const hash = await sha256Hex(m[1]);
  if (d.adminKey && timingSafeEqualHex(hash, await sha256Hex(d.adminKey)))
    return (await d.stores.archives.listArchives()).map((a) => a.id);
  const key = await d.stores.archives.findKeyByHash(hash);
  return key && key.revokedAt === null && key.scopes.includes("read") ? [key.archiveId] : [];
}

export interface Identity {
  admin: boolean;
  key_id: string | null;
  archives: Array<{ id: string; name: string; scopes: Array<"read" | "write" | "admin"> }>;
}

/**
 * Who an `Authorization` header value is: the admin key (every archive, every scope) or one archive
 * key with its scopes. Missing, unknown and revoked keys are `unauthorized`, as on every route.
 */
export async function whoami(d: AppDeps, authorization: string | undefined): Promise<Result<Identity>> {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
  if (!m?.[1]) return fail("unauthorized", "missing API key", "Authorization", "send `Authorization: Bearer <key>`");
  const hash = await sha256Hex(m[1]);
  if (d.adminKey && timingSafeEqualHex(hash, await sha256Hex(d.adminKey))) {
    const all = await d.stores.archives.listArchives();
    const scopes: Identity["archives"][number]["scopes"] = ["read", "write", "admin"];
    return ok({
      admin: true,
      key_id: null,
      archives: all.map((a) => ({ id: a.id, name: a.name, scopes: [...scopes] })),
    });
  }
  const key = await d.stores.archives.findKeyByHash(hash);
  if (!key || key.revokedAt !== null)
    return fail("unauthorized", "invalid or revoked API key", "Authorization", "ask the archive admin for a key");
  const archive = await d.stores.archives.getArchive(key.archiveId);
  const scopes = (["read", "write"] as const).filter((s) => key.scopes.includes(s));
  return ok({
    admin: false,
    key_id: key.id,
    archives: archive ? [{ id: archive.id, name: archive.name, scopes: [...scopes] }] : [],
  });
}
