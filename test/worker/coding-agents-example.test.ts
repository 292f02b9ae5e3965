/**
 * Runs the worked example of docs/coding-agents.md ("Worked example: ProjectGuard over REST")
 * request by request against the Worker (local D1, R2, DOs) and checks each response excerpt, so the
 * page cannot drift from the service (blocks and excerpts as scripts/lib/doc-http.ts reads them).
 */
import { describe, expect, it } from "vitest";
import PAGE from "../../docs/coding-agents.md?raw";
import { httpSteps, missing } from "../../scripts/lib/doc-http";
import { api, newArchive } from "./helpers";

const SECTION = "## Worked example: ProjectGuard over REST";
const parseExample = (page: string) => httpSteps(page, SECTION);

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
