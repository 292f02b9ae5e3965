/** Runs the worked examples of docs/*.md (scripts/lib/doc-curl.ts) against the Worker in tests. */
import { expect } from "vitest";
import { type Step, shown } from "../../scripts/lib/doc-curl";
import { WORKER } from "./worker";

export { sections } from "../../scripts/lib/doc-curl";

/** Sends each step to the Worker; a non-2xx, or a body without a step's `# →` text, fails the test. */
export async function runSteps(steps: Step[]): Promise<void> {
  for (const s of steps) {
    const res = await WORKER.fetch(s.url, { method: s.method, headers: s.headers, body: s.body });
    const text = await res.text();
    expect(res.status, `${s.line.slice(0, 120)}\n${text.slice(0, 400)}`).toBeLessThan(300);
    for (const e of s.expect) expect(shown(text), s.line.slice(0, 120)).toContain(e);
  }
}
