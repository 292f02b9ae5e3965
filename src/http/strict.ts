/**
 * Unknown fields in a request. zod objects drop keys they do not name, so a misspelled `asOf` or
 * `budget` was answered as if absent (as of now, with the default budget). Each route's body and
 * query schemas are turned into JSON Schema once (`z.toJSONSchema`, input side) and a request's
 * JSON is walked against it: a key an object's schema does not name, at any depth, is refused with
 * the closest name it does. What JSON Schema cannot show (a preprocess, such as the kernel
 * parameters that also take their old camelCase names) and records (any key, a typed value) are
 * left to the zod schema itself, which checks them.
 */
import { z } from "zod";

interface Js {
  type?: string | string[];
  properties?: Record<string, Js>;
  additionalProperties?: boolean | Js;
  items?: Js | Js[];
  prefixItems?: Js[];
  anyOf?: Js[];
  oneOf?: Js[];
  allOf?: Js[];
  $ref?: string;
  $defs?: Record<string, Js>;
}

/** A key no schema on its path names: where it is and the names that level takes. */
export interface UnknownField {
  path: string[];
  known: string[];
}

/** JSON Schema of a request part's zod schema; null when it is not a zod schema. */
export function requestJsonSchema(schema: unknown): Js | null {
  if (!(schema instanceof z.ZodType)) return null;
  return z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    cycles: "ref",
    // A preprocess (a pipe from a transform) takes what its function takes: open here, and
    // checked by the schema after it (the kernel parameters' inner object is strict).
    override: (ctx) => {
      const def = ctx.zodSchema._zod.def as { type: string; in?: { _zod: { def: { type: string } } } };
      if (def.type === "pipe" && def.in?._zod.def.type === "transform")
        for (const k of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Record<string, unknown>)[k];
    },
  }) as Js;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function deref(s: Js, root: Js): Js {
  let cur = s;
  for (let i = 0; i < 32 && cur.$ref; i++) {
    const ref = cur.$ref;
    cur = ref === "#" ? root : (root.$defs?.[ref.replace(/^#\/\$defs\//, "")] ?? {});
  }
  return cur;
}

/** Whether a schema (after refs) could describe this kind of value, for choosing among options. */
function fits(s: Js, v: unknown, root: Js): boolean {
  const d = deref(s, root);
  const options = d.anyOf ?? d.oneOf;
  if (options) return options.some((o) => fits(o, v, root));
  const types = d.type === undefined ? [] : Array.isArray(d.type) ? d.type : [d.type];
  if (types.length === 0) return d.properties !== undefined ? isObject(v) : true;
  if (isObject(v)) return types.includes("object");
  if (Array.isArray(v)) return types.includes("array");
  return true;
}

/** The first unknown key in `value` against `schema`, or null. Linear in the value's size. */
export function unknownField(schema: Js, value: unknown, root: Js = schema, path: string[] = []): UnknownField | null {
  const s = deref(schema, root);
  const options = s.anyOf ?? s.oneOf;
  if (options) {
    const fitting = options.filter((o) => fits(o, value, root));
    let first: UnknownField | null = null;
    for (const o of fitting) {
      const u = unknownField(o, value, root, path);
      if (!u) return null;
      first ??= u;
    }
    return first;
  }
  if (s.allOf) {
    // An intersection: a key is known when any part names it.
    const parts = s.allOf.map((p) => deref(p, root));
    if (!isObject(value) || parts.some((p) => p.properties === undefined)) return null;
    const merged: Js = { properties: Object.assign({}, ...parts.map((p) => p.properties)) };
    return unknownField(merged, value, root, path);
  }
  if (isObject(value)) {
    const props = s.properties;
    const extra = s.additionalProperties;
    const open = props === undefined && (extra === undefined || extra === true || s.type !== "object");
    if (open) return null;
    for (const [k, v] of Object.entries(value)) {
      const known = props?.[k];
      if (known) {
        const u = unknownField(known, v, root, [...path, k]);
        if (u) return u;
      } else if (isObject(extra)) {
        const u = unknownField(extra, v, root, [...path, k]);
        if (u) return u;
      } else if (extra !== true) return { path: [...path, k], known: Object.keys(props ?? {}) };
    }
    return null;
  }
  if (Array.isArray(value)) {
    const items = s.prefixItems ?? (Array.isArray(s.items) ? s.items : undefined);
    for (const [i, v] of value.entries()) {
      const item = items ? items[i] : (s.items as Js | undefined);
      if (!item) continue;
      const u = unknownField(item, v, root, [...path, String(i)]);
      if (u) return u;
    }
  }
  return null;
}

/** Letters and digits only, lower case: `asOf`, `as_of` and `as-of` are one name. */
const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] as number;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] as number;
      prev[j] = Math.min(up + 1, (prev[j - 1] as number) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length] as number;
}

/** The known name closest to `name`, when it is close enough to be what was meant. */
export function closestName(name: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = Number.POSITIVE_INFINITY;
  const n = squash(name);
  for (const k of known) {
    const d = distance(n, squash(k));
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best !== null && bestD <= Math.max(1, Math.floor(n.length / 3)) ? best : null;
}
