/**
 * Runs the worked example of docs/coding-agents.md ("Worked example: PaperBench over REST") request
 * by request against the Worker and checks each response excerpt (scripts/lib/doc-http.ts), so the
 * page cannot drift from the service.
 */
import { describe, expect, it } from "vitest";
import PAGE from "../../docs/coding-agents.md?raw";
import { httpSteps, missing } from "../../scripts/lib/doc-http";
import { api, newArchive } from "./helpers";

const SECTION = "## Worked example: PaperBench over REST";

describe("docs/coding-agents.md PaperBench worked example", () => {
  it("parses into two requests, each with an excerpt", () => {
    const steps = httpSteps(PAGE, SECTION);
    expect(steps.length).toBe(2);
    expect(steps.every((s) => s.expect !== undefined)).toBe(true);
  });

  it("runs every request and every response holds its excerpt", async () => {
    const { id, key } = await newArchive("docpb");
    for (const [i, s] of httpSteps(PAGE, SECTION).entries()) {
      const r = await api(s.method, s.path.replaceAll("{archive}", id), s.body, key);
      const label = `step ${i + 1}: ${s.method} ${s.path}`;
      expect(r.status, `${label}: ${JSON.stringify(r.body).slice(0, 500)}`).toBe(200);
      expect(missing(r.body, s.expect), `${label}: ${JSON.stringify(r.body)}`).toBeNull();
    }
  });
});
