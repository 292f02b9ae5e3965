/**
 * docs/research.md's worked example for an SGMC user, run as written: every `http` block of the
 * section is sent to the Worker in order (the archive `review` replaced by a fresh one) and must
 * answer 2xx; a `json` block right after it is the answer's excerpt (scripts/lib/doc-http.ts
 * `missing`: every field of an object, every array item somewhere in the array).
 */
import { describe, expect, it } from "vitest";
import DOC from "../../docs/research.md?raw";
import { httpSteps, missing } from "../../scripts/lib/doc-http";
import { newArchive } from "./helpers";
import { WORKER } from "./worker";

const SECTION = "### Worked example: an SGMC session";

describe("docs/research.md: the SGMC worked example", () => {
  it("runs as written and answers what the page shows", async () => {
    const list = httpSteps(DOC, SECTION);
    expect(list.length).toBeGreaterThanOrEqual(10);
    const { id, key } = await newArchive("sgmcdoc");
    for (const s of list) {
      const res = await WORKER.fetch(
        `http://paperguru.test${s.path.replace("/v1/archives/review/", `/v1/archives/${id}/`)}`,
        { method: s.method, headers: { authorization: `Bearer ${key}`, ...s.headers }, body: s.body },
      );
      const text = await res.text();
      expect(res.status, `${s.method} ${s.path}: ${text.slice(0, 500)}`).toBeLessThan(300);
      if (s.expect !== undefined)
        expect(missing(JSON.parse(text), s.expect), `${s.method} ${s.path}: ${text.slice(0, 1500)}`).toBeNull();
    }
    // The page's last line: the same scaffold as Markdown.
    const md = await WORKER.fetch(
      `http://paperguru.test/v1/archives/${id}/scaffold?root=review:eeg/entropy&format=markdown`,
      { headers: { authorization: `Bearer ${key}` } },
    );
    expect(md.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(await md.text()).toContain('`paper:de@v1 [0,40)` (draft) "Differential entropy per frequency band"');
  });
});
