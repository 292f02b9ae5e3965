/**
 * The one response style for loosely shaped payloads (routing traces, capital-chunk statistics):
 * snake_case keys and non-integer numbers at 4 significant digits (a float32 weight prints as 0.35,
 * not 0.3499999940395355). Typed views (src/app/browse.ts) are written out field by field instead.
 */

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
