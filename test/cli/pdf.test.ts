/**
 * PDFs against a local Worker (scripts/start.mjs): the worked example of docs/ingest.md run as
 * written with bash and curl, and `paperguru import` of a .pdf file (bytes sent unchanged, resume).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import { main } from "../../src/cli/main";
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

async function createArchive(id: string): Promise<string> {
  const res = await fetch(`${server.url}/v1/archives`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ id, name: id }),
  });
  return ((await res.json()) as { key: { secret: string } }).key.secret;
}

/** `paperguru <argv>` in-process, in the temporary folder. */
async function cli(argv: string[], env: Record<string, string>) {
  let out = "";
  const sink = new Writable({
    write(chunk, _enc, cb) {
      out += String(chunk);
      cb();
    },
  });
  const code = await main(argv, {
    stdout: sink,
    stderr: sink,
    cwd: dir,
    env: { HOME: dir, PAPERGURU_CONFIG: join(dir, "config.json"), PAPERGURU_URL: server.url, ...env },
    readStdin: async () => "",
    onInterrupt: () => () => undefined,
  });
  return { code, out };
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
    const key = await createArchive("mine");
    const out = execFileSync("bash", ["-euo", "pipefail", "-c", pdfExample()], {
      cwd: dir,
      env: { ...process.env, U: server.url, KEY: key },
      encoding: "utf8",
    });
    const [imported, located, covered] = jsonValues(out) as Array<Record<string, never>>;
    // 6 chunks and 11 passages (the sections over 1,500 characters, grouped by paragraph).
    expect(imported).toMatchObject({ counts: { created: 17, failed: 0 } });
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

describe("paperguru import of a .pdf", () => {
  it("detects the format, sends the bytes unchanged and skips the file on a second run", async () => {
    const key = await createArchive("cli-pdf");
    const env = { PAPERGURU_KEY: key, PAPERGURU_ARCHIVE: "cli-pdf" };
    const first = await cli(["import", "paper.pdf"], env);
    expect(first.out).toMatch(/paper\.pdf: pdf, 1 record: 17 created, 0 updated, 0 unchanged, 0 failed/);
    expect(first.code).toBe(0);
    const again = await cli(["import", "paper.pdf"], env);
    expect(again.out).toMatch(/already imported, skipped/);
    const res = await fetch(
      `${server.url}/v1/archives/cli-pdf/coverage?paper=paper:routing-memory-for-long-horizon-research-agents`,
      { headers: { authorization: `Bearer ${key}` } },
    );
    expect(((await res.json()) as { pages: number }).pages).toBe(3);
  });
});
