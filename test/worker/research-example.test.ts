/**
 * docs/research.md's worked example for a Paper Circle user, run as written: every `http` block of
 * the section is sent to the Worker in order (the archive `papers` replaced by a fresh one) and must
 * answer 2xx; a `json` block right after it is the answer's excerpt (toMatchObject).
 */
import { describe, expect, it } from "vitest";
import DOC from "../../docs/research.md?raw";
import { httpSteps } from "../../scripts/lib/doc-http";
import { newArchive } from "./helpers";
import { WORKER } from "./worker";

const SECTION = "### Worked example: a Paper Circle session";

describe("docs/research.md: the Paper Circle worked example", () => {
  it("runs as written and answers what the page shows", async () => {
    const list = httpSteps(DOC, SECTION);
    expect(list.length).toBeGreaterThanOrEqual(7);
    const { id, key } = await newArchive("pcdoc");
    for (const s of list) {
      const res = await WORKER.fetch(
        `http://paperguru.test${s.path.replace("/v1/archives/papers/", `/v1/archives/${id}/`)}`,
        {
          method: s.method,
          headers: { authorization: `Bearer ${key}`, ...s.headers },
          body: s.body,
        },
      );
      const text = await res.text();
      expect(res.status, `${s.method} ${s.path}: ${text.slice(0, 500)}`).toBeLessThan(300);
      if (s.expect !== undefined) expect(JSON.parse(text), `${s.method} ${s.path}`).toMatchObject(s.expect as object);
    }
  });
});
