/**
 * Runs every worked example of docs/coding-agents.md (each `## Worked example: …` section) request
 * by request against the Worker (local D1, R2, DOs) and checks each response excerpt, so the page
 * cannot drift from the service (blocks and excerpts as scripts/lib/doc-http.ts reads them). Each
 * section runs in an archive of its own.
 */
import { describe, expect, it } from "vitest";
import PAGE from "../../docs/coding-agents.md?raw";
import { httpSteps, missing } from "../../scripts/lib/doc-http";
import { newArchive } from "./helpers";
import { WORKER } from "./worker";

/** The page's worked examples: requests, and how many of them have an excerpt. */
const SECTIONS: Record<string, { steps: number; excerpts: number }> = {
  "## Worked example: ProjectGuard over REST": { steps: 9, excerpts: 7 },
  "## Worked example: xKG over REST": { steps: 4, excerpts: 4 },
  "## Worked example: PaperBench over REST": { steps: 2, excerpts: 2 },
  "## Worked example: ProjectGuard's evaluation over REST": { steps: 10, excerpts: 6 },
};

describe("docs/coding-agents.md worked examples", () => {
  it("lists every worked example of the page", () => {
    const headings = PAGE.split("\n").filter((l) => l.startsWith("## Worked example:"));
    expect(headings).toEqual(Object.keys(SECTIONS));
  });

  it("checks excerpts: a missing item, a wrong value and a non-empty list are caught", () => {
    expect(missing({ a: [{ id: "x", n: 1 }, { id: "y" }] }, { a: [{ id: "y" }] })).toBeNull();
    expect(missing({ a: [{ id: "x" }] }, { a: [{ id: "y" }] })).toContain("$.a[0]");
    expect(missing({ a: 1 }, { a: 2 })).toContain("$.a");
    expect(missing({ a: [1] }, { a: [] })).toContain("not empty");
  });

  for (const [section, shape] of Object.entries(SECTIONS))
    it(`runs "${section.slice(3)}": every request succeeds and every response holds its excerpt`, async () => {
      const steps = httpSteps(PAGE, section);
      expect(steps.length).toBe(shape.steps);
      expect(steps.filter((s) => s.expect !== undefined).length).toBe(shape.excerpts);
      const { id, key } = await newArchive("docex");
      for (const [i, s] of steps.entries()) {
        const res = await WORKER.fetch(`http://paperguru.test${s.path.replaceAll("{archive}", id)}`, {
          method: s.method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...s.headers },
          body: s.body,
        });
        const text = await res.text();
        const label = `step ${i + 1}: ${s.method} ${s.path}: ${text.slice(0, 600)}`;
        expect(res.status, label).toBeLessThan(300);
        if (s.expect !== undefined) expect(missing(JSON.parse(text), s.expect), label).toBeNull();
      }
    });
});
