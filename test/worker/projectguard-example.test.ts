/**
 * Runs docs/coding-agents.md's "Worked example: ProjectGuard's evaluation over REST" request by
 * request against the Worker and checks each response excerpt, so the page cannot drift.
 */
import { describe, expect, it } from "vitest";
import PAGE from "../../docs/coding-agents.md?raw";
import { httpSteps, missing } from "../../scripts/lib/doc-http";
import { api, newArchive } from "./helpers";

const SECTION = "## Worked example: ProjectGuard's evaluation over REST";

describe("docs/coding-agents.md ProjectGuard evaluation example", () => {
  it("runs every request and every response holds its excerpt", async () => {
    const steps = httpSteps(PAGE, SECTION);
    expect(steps.length).toBe(10);
    expect(steps.filter((s) => s.expect !== undefined).length).toBe(6);
    const { id, key } = await newArchive("docpgeval");
    for (const [i, s] of steps.entries()) {
      const r = await api(s.method, s.path.replaceAll("{archive}", id), s.body, key);
      const label = `step ${i + 1}: ${s.method} ${s.path}`;
      expect(r.status, `${label}: ${JSON.stringify(r.body).slice(0, 500)}`).toBeLessThan(300);
      if (s.expect !== undefined) expect(missing(r.body, s.expect), `${label}: ${JSON.stringify(r.body)}`).toBeNull();
    }
  });
});
