/**
 * Worked examples written as `http` blocks (docs/research.md, docs/coding-agents.md) as data: a
 * block is `METHOD /path`, optional header lines, a blank line and an optional JSON body; a `json`
 * (or `json response`) block right after it is an excerpt of the answer. Used by the pages' tests
 * (in the Worker) and by scripts/walkthrough.ts (against a running server).
 */

export interface HttpStep {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  expect?: unknown;
}

/** The http steps of the section under `heading` (to the next heading of the same or a higher level). */
export function httpSteps(md: string, heading: string): HttpStep[] {
  const start = md.indexOf(heading);
  if (start < 0) throw new Error(`no "${heading}"`);
  const level = (/^#+/.exec(heading) ?? ["##"])[0];
  const after = md.slice(start + heading.length);
  const next = after.search(new RegExp(`\\n#{1,${level.length}} `));
  const text = next < 0 ? after : after.slice(0, next);
  const out: HttpStep[] = [];
  for (const m of text.matchAll(/```(http|json response|json)\n([\s\S]*?)```/g)) {
    const block = m[2] as string;
    if (m[1] !== "http") {
      const last = out.at(-1);
      if (last && last.expect === undefined) last.expect = JSON.parse(block);
      continue;
    }
    const lines = block.split("\n");
    const [method = "GET", path = "/"] = (lines[0] as string).trim().split(/\s+/);
    const headers: Record<string, string> = {};
    let i = 1;
    for (; i < lines.length && (lines[i] as string).trim() !== ""; i++) {
      const line = lines[i] as string;
      const at = line.indexOf(":");
      headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
    }
    const body = lines
      .slice(i + 1)
      .join("\n")
      .trim();
    out.push({ method, path, headers, ...(body ? { body } : {}) });
  }
  return out;
}

/**
 * Where `actual` fails to contain `expected` (a JSON path), or null: every field of an object, every
 * array item somewhere in the array, and an empty array only by an empty one.
 */
export function missing(actual: unknown, expected: unknown, at = "$"): string | null {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}: not an array`;
    if (expected.length === 0) return actual.length === 0 ? null : `${at}: not empty (${actual.length} items)`;
    for (const [i, e] of expected.entries())
      if (!actual.some((a) => missing(a, e) === null)) return `${at}[${i}]: no item contains ${JSON.stringify(e)}`;
    return null;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object") return `${at}: not an object`;
    for (const [k, v] of Object.entries(expected)) {
      const miss = missing((actual as Record<string, unknown>)[k], v, `${at}.${k}`);
      if (miss) return miss;
    }
    return null;
  }
  return Object.is(actual, expected) ? null : `${at}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`;
}
