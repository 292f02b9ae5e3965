/**
 * The PDF worked example of docs/ingest.md, run as written with bash and curl against a local
 * Worker (scripts/start.mjs), with the generated two-column paper as paper.pdf.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import { makePaperPdf } from "../fixtures/pdf-paper";

const ROOT = join(import.meta.dirname, "..", "..");

/** The first ```bash block after the "### PDF" heading. */
function pdfExample(): string {
  const doc = readFileSync(join(ROOT, "docs", "ingest.md"), "utf8");
  const at = doc.indexOf("\n### PDF\n");
  const m = /```bash\n([\s\S]*?)```/.exec(doc.slice(at));
  if (at < 0 || !m?.[1]) throw new Error("docs/ingest.md has no PDF example");
  return m[1];
}

/** Top-level JSON values written one after another (curl -s prints no newline between them). */
function jsonValues(text: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{") {
      if (depth++ === 0) start = i;
    } else if (c === "}" && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)));
  }
  return out;
}

let server: Server;
let dir: string;

beforeAll(async () => {
  server = await startServer({ fresh: true });
  dir = mkdtempSync(join(tmpdir(), "paperguru-pdf-"));
  writeFileSync(join(dir, "paper.pdf"), (await makePaperPdf()).bytes);
});
afterAll(() => {
  server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("docs/ingest.md, PDF", () => {
  it("imports paper.pdf, locates a passage on page 2 and reports pages in coverage", async () => {
    const res = await fetch(`${server.url}/v1/archives`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ id: "mine", name: "mine" }),
    });
    const key = ((await res.json()) as { key: { secret: string } }).key.secret;
    const out = execFileSync("bash", ["-euo", "pipefail", "-c", pdfExample()], {
      cwd: dir,
      env: { ...process.env, U: server.url, KEY: key },
      encoding: "utf8",
    });
    const [imported, located, covered] = jsonValues(out) as Array<Record<string, never>>;
    expect(imported).toMatchObject({ counts: { created: 6, failed: 0 } });
    expect(located).toMatchObject({
      items: [
        {
          chunk: "paper:routing-memory-for-long-horizon-research-agents#s2-2-method",
          page: 2,
          snippets: [{ page: 2 }],
        },
      ],
    });
    expect(covered).toMatchObject({ pages: 3, total: 5 });
  });
});
