/**
 * Runs the worked example of docs/coding-agents.md ("Worked example: ProjectGuard over REST")
 * request by request against the Worker (local D1, R2, DOs) and checks each response excerpt, so the
 * page cannot drift from the service. An `http` block is a request (a line `METHOD path`, then an
 * optional JSON body after a blank line); a `json response` block right after it is an excerpt the
 * response must contain: every field, and every array item somewhere in the array (an empty array
 * must be empty).
 */
import { describe, expect, it } from "vitest";
import PAGE from "../../docs/coding-agents.md?raw";
import { api, newArchive } from "./helpers";

const SECTION = "## Worked example: ProjectGuard over REST";

interface Step {
  method: string;
  path: string;
  body: unknown;
  expect: unknown;
}

function parseExample(page: string): Step[] {
  const start = page.indexOf(SECTION);
  if (start < 0) throw new Error(`docs/coding-agents.md has no "${SECTION}"`);
  const rest = page.slice(start + SECTION.length);
  const end = rest.search(/\n## /);
  const text = end < 0 ? rest : rest.slice(0, end);
  const steps: Step[] = [];
  for (const m of text.matchAll(/```([^\n]*)\n([\s\S]*?)\n```/g)) {
    const info = (m[1] ?? "").trim();
    const block = m[2] ?? "";
    if (info === "http") {
      const [line = "", ...bodyLines] = block.split("\n");
      const [method = "", path = ""] = line.trim().split(/\s+/);
      const raw = bodyLines.join("\n").trim();
      steps.push({ method, path, body: raw ? JSON.parse(raw) : undefined, expect: undefined });
    } else if (info === "json response") {
      const last = steps.at(-1);
      if (!last || last.expect !== undefined) throw new Error(`a response excerpt without its request: ${block}`);
      last.expect = JSON.parse(block);
    }
  }
  return steps;
}

/** Where `actual` fails to contain `expected` (a JSON path), or null. */
function missing(actual: unknown, expected: unknown, at = "$"): string | null {
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

describe("docs/coding-agents.md worked example", () => {
  it("parses into requests, most with an excerpt", () => {
    const steps = parseExample(PAGE);
    expect(steps.length).toBe(9);
    expect(steps.filter((s) => s.expect !== undefined).length).toBe(7);
    // The excerpt check itself: it catches a missing item, a wrong value and a non-empty list.
    expect(missing({ a: [{ id: "x", n: 1 }, { id: "y" }] }, { a: [{ id: "y" }] })).toBeNull();
    expect(missing({ a: [{ id: "x" }] }, { a: [{ id: "y" }] })).toContain("$.a[0]");
    expect(missing({ a: 1 }, { a: 2 })).toContain("$.a");
    expect(missing({ a: [1] }, { a: [] })).toContain("not empty");
  });

  it("runs every request and every response holds its excerpt", async () => {
    const { id, key } = await newArchive("docpg");
    for (const [i, s] of parseExample(PAGE).entries()) {
      const r = await api(s.method, s.path.replaceAll("{archive}", id), s.body, key);
      const label = `step ${i + 1}: ${s.method} ${s.path}`;
      expect(r.status, `${label}: ${JSON.stringify(r.body).slice(0, 500)}`).toBeLessThan(300);
      if (s.expect !== undefined) expect(missing(r.body, s.expect), `${label}: ${JSON.stringify(r.body)}`).toBeNull();
    }
  });
});
