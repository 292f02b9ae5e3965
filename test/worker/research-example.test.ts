/**
 * docs/research.md's worked example for a Paper Circle user, run as written: every `http` block of
 * the section is sent to the Worker in order (the archive `papers` replaced by a fresh one) and must
 * answer 2xx; a `json` block right after it is the answer's excerpt (toMatchObject).
 */
import { describe, expect, it } from "vitest";
import DOC from "../../docs/research.md?raw";
import { newArchive } from "./helpers";
import { WORKER } from "./worker";

const SECTION = "### Worked example: a Paper Circle session";

interface Step {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  expect: unknown;
}

function steps(doc: string): Step[] {
  const start = doc.indexOf(SECTION);
  if (start < 0) throw new Error(`docs/research.md has no "${SECTION}"`);
  const end = doc.indexOf("\n## ", start);
  const text = doc.slice(start, end < 0 ? undefined : end);
  const out: Step[] = [];
  for (const m of text.matchAll(/```(http|json)\n([\s\S]*?)```/g)) {
    const block = m[2] as string;
    if (m[1] === "json") {
      const last = out.at(-1);
      if (!last || last.expect !== undefined) throw new Error("a json block must follow an http block");
      last.expect = JSON.parse(block);
      continue;
    }
    const [head, ...rest] = block.split("\n");
    const [method, path] = (head as string).split(" ");
    const headers: Record<string, string> = {};
    let i = 0;
    for (; i < rest.length && (rest[i] as string).trim() !== ""; i++) {
      const [k, ...v] = (rest[i] as string).split(":");
      headers[(k as string).trim().toLowerCase()] = v.join(":").trim();
    }
    const body = rest
      .slice(i + 1)
      .join("\n")
      .trim();
    out.push({ method: method as string, path: path as string, headers, body: body || undefined, expect: undefined });
  }
  return out;
}

describe("docs/research.md: the Paper Circle worked example", () => {
  it("runs as written and answers what the page shows", async () => {
    const list = steps(DOC);
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
