/**
 * How the application layer writes values on the wire, shared by every use case: times as ISO
 * strings (and a request's times read back), weights at 4 decimals, loosely shaped payloads (routing traces, capital-chunk
 * statistics) in snake_case at 4 significant digits (a float32 weight prints as 0.35, not
 * 0.3499999940395355), page cursors, and random ids. Typed views are written out field by field in
 * their use cases instead.
 */
import type { z } from "zod";
import { fail, ok, type Result } from "../../core/errors";

/** A value as its contract schema describes it: a request after parsing, an answer before writing. */
export type In<T extends z.ZodType> = z.infer<T>;

export const iso = (ms: number): string => new Date(ms).toISOString();
/** A request's `as_of` (or `at`) as epoch ms; the application's clock when absent. */
export const timeOf = (d: { clock: { now(): number } }, s: string | undefined): number =>
  s === undefined ? d.clock.now() : Date.parse(s);
export const isoOrNull = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : iso(ms);
/** Weights are float32 in the routing tables; 4 decimals is what they carry (0.35, not 0.3499999940395355). */
export const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

// ------------------------------------------------------------------ cursors

/** A cursor is the last id of the page, base64url-encoded so it passes through URLs untouched. */
export function encodeCursor(lastId: string): string {
  const bytes = new TextEncoder().encode(lastId);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function decodeCursor(cursor: string | undefined): Result<string | null> {
  if (cursor === undefined) return ok(null);
  try {
    const bin = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    const id = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      Uint8Array.from(bin, (c) => c.charCodeAt(0)),
    );
    if (id !== "") return ok(id);
  } catch {
    // falls through to the failure below
  }
  return fail(
    "validation",
    "cursor is not one this server issued",
    "cursor",
    "pass next_cursor of the previous page unchanged",
  );
}

// ------------------------------------------------------------------ ids

/** A random id: `prefix` + `bytes` random bytes in hex. */
export function randomId(prefix: string, bytes = 16): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return `${prefix}${[...b].map((x) => x.toString(16).padStart(2, "0")).join("")}`;
}

// ------------------------------------------------------------------ loose payloads

type CamelToSnake<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${CamelToSnake<T>}`
  : S;

/** The type of a value after tidy(): the same shape with snake_case keys. */
export type Snake<T> =
  T extends ReadonlyArray<infer U>
    ? Snake<U>[]
    : T extends object
      ? { [K in keyof T as K extends string ? CamelToSnake<K> : K]: Snake<T[K]> }
      : T;

const snake = (k: string) => k.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();

export function tidy<T>(value: T): Snake<T> {
  return tidyAny(value) as Snake<T>;
}

function tidyAny(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidyAny);
  if (typeof value === "number")
    return Number.isFinite(value) && !Number.isInteger(value) ? Number(value.toPrecision(4)) : value;
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[snake(k)] = tidyAny(v);
  return out;
}
