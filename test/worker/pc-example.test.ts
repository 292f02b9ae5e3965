/**
 * docs/research.md's worked example for Paper Circle's structure, review status in graphs and review
 * scores, run as written: every `http` block of the section is sent to the Worker in order (the archive
 * `papers` replaced by a fresh one) and must answer 2xx; a `json` block right after it is the answer's
 * excerpt (toMatchObject). The two exports are checked for the statuses the reviews set.
 */
import { describe, expect, it } from "vitest";
import DOC from "../../docs/research.md?raw";
import { httpSteps } from "../../scripts/lib/doc-http";
import { newArchive } from "./helpers";
import { WORKER } from "./worker";

const SECTION = "### Worked example: structure, review status in graphs, and review scores";

describe("docs/research.md: the Paper Circle structure and review-score example", () => {
  it("runs as written and answers what the page shows", async () => {
    const list = httpSteps(DOC, SECTION);
    expect(list.length).toBe(9);
    const { id, key } = await newArchive("pcex");
    const bodies: string[] = [];
    for (const s of list) {
      const res = await WORKER.fetch(
        `http://paperguru.test${s.path.replace("/v1/archives/papers/", `/v1/archives/${id}/`)}`,
        { method: s.method, headers: { authorization: `Bearer ${key}`, ...s.headers }, body: s.body },
      );
      const text = await res.text();
      bodies.push(text);
      expect(res.status, `${s.method} ${s.path}: ${text.slice(0, 500)}`).toBeLessThan(300);
      if (s.expect !== undefined) expect(JSON.parse(text), `${s.method} ${s.path}`).toMatchObject(s.expect as object);
    }
    const [graphml, page] = [bodies[3] ?? "", bodies[4] ?? ""];
    expect(graphml).toMatch(
      /source="paper:routing-memory#s3-2-1-routing" target="paper:routing-memory#s2-2-method">[\s\S]*?<data key="e_review_status">human-verified</,
    );
    expect(graphml).toMatch(/target="arxiv:2405.14831">[\s\S]*?<data key="e_review_status">flagged</);
    expect(page).toContain("<svg");
    expect(page).not.toMatch(/https?:\/\//);
    expect(page).toMatch(/paper:routing-memory cites arxiv:2405.14831 · flagged/);
  });
});
