/**
 * What the GitHub files share: the per-file size limit, request shapes and headers (GitHub REST,
 * version 2022-11-28), the chunk id of a file and the id-shortening hash. Pure: no I/O.
 */
import { LIMITS, parseTime } from "../formats/common";

// ---------------------------------------------------------------------------------------------
// Limits: the HTTP ingest schema's (LIMITS in ../formats/common.ts), the core must not produce what it rejects

/**
 * 512 KB per file. Source files above that are generated or bundled in practice (parsers, protobuf
 * stubs, vendored bundles); a hand-written outlier (TypeScript's checker.ts, ~3 MB) is the accepted
 * loss. The bound also keeps a 200-file batch (~100 MB at worst, typically a few MB) feasible in a
 * 128 MB Worker, and stays far below the 2 MiB per-artifact ingest limit.
 */
export const MAX_FILE_BYTES = 512 * 1024;

export interface GithubRequest {
  url: string;
  headers: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------
// Small helpers

export const REPO_RE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
export const SHA_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;
export const ZERO_SHA = /^0+$/;

/** Each path segment percent-encoded, the slashes kept. */
export function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

export function repoUrl(repo: string): string {
  const [owner = "", name = ""] = repo.split("/");
  return `https://api.github.com/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}

export function apiHeaders(accept: string, token?: string): Record<string, string> {
  return {
    Accept: accept,
    "User-Agent": "paperguru",
    "X-GitHub-Api-Version": "2022-11-28",
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
  };
}

/** FNV-1a 32-bit, two seeds: a 16-hex tail hash for ids that must be shortened (sync, deterministic). */
function hash64(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x811c9dc5 ^ 0x9e3779b1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/** Keep `max` characters: the head of the string plus a hash of the whole, so distinct inputs stay distinct. */
export function shorten(s: string, max: number): string {
  if (s.length <= max) return s;
  return `${s.slice(0, max - 18)}~${hash64(s)}`;
}

/** Epoch ms of an ISO 8601 time or of epoch seconds/ms (pushed_at is epoch seconds), else null. */
export function gitTime(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v < 1e11 ? v * 1000 : v;
  return parseTime(v) ?? null;
}

/** `gh:owner/repo/path`, at most 512 characters (the head kept, a hash of the whole as the tail). */
export function fileChunkId(repo: string, path: string): string {
  return shorten(`gh:${repo}/${path.replace(/^\/+/, "")}`, LIMITS.artifactId);
}
