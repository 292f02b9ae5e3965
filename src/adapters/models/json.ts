/**
 * Reading one JSON value out of a model's text answer: the whole text, else a ```json fenced block,
 * else the first balanced {...} that parses (text before and after it is ignored). This is the
 * adapters' own repair; anything else is `malformed`.
 */

/** How many `{` positions the balanced scan tries before giving up. */
const MAX_OPENINGS = 32;

export type JsonAnswer = { ok: true; value: unknown } | { ok: false };

function tryParse(text: string): JsonAnswer {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The index just past the `}` closing the object opened at `start`, or -1 (strings and escapes skipped). */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return c === "}" ? i + 1 : -1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

/** One JSON value from a model's text answer, or `{ ok: false }`. */
export function parseJsonAnswer(text: string): JsonAnswer {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false };
  const whole = tryParse(trimmed);
  if (whole.ok) return whole;
  for (const m of trimmed.matchAll(/```[ \t]*(?:json|JSON|json5)?[ \t]*\r?\n?([\s\S]*?)```/g)) {
    const fenced = tryParse((m[1] ?? "").trim());
    if (fenced.ok) return fenced;
  }
  let from = 0;
  for (let n = 0; n < MAX_OPENINGS; n++) {
    const start = trimmed.indexOf("{", from);
    if (start < 0) break;
    const end = balancedEnd(trimmed, start);
    if (end > 0) {
      const inner = tryParse(trimmed.slice(start, end));
      if (inner.ok) return inner;
    }
    from = start + 1;
  }
  return { ok: false };
}

/** A plain object (not an array, not null). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
