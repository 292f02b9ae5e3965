/**
 * `paperguru import` of a .bbl against a local Worker (scripts/start.mjs): detected by its
 * extension, skipped without --paper, sent with it (the answer's references summarised), resumable,
 * and --paper refused with another --format.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import { main } from "../../src/cli/main";

const BIB = `@article{citing,
  title = {A Citing Paper About Memory Graphs for Agents},
  eprint = {2501.00001}, archivePrefix = {arXiv}, year = {2025}
}
@misc{hipporag,
  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  eprint = {2405.14831}, archivePrefix = {arXiv}, year = {2024}
}
`;
const BBL = String.raw`\begin{thebibliography}{2}
\bibitem[Guti{\'e}rrez et~al.(2024)]{gutierrez2024}
Bernal~Jim{\'e}nez Guti{\'e}rrez and Yu~Su.
\newblock {HippoRAG}: Neurobiologically inspired long-term memory for large language models.
\newblock \emph{arXiv preprint arXiv:2405.14831}, 2024.

\bibitem[Nobody(2021)]{nobody2021}
A.~Nobody.
\newblock A study nobody imported.
\newblock \emph{J. Absent}, 2021.
\end{thebibliography}
`;

let server: Server;
let dir: string;

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

beforeAll(async () => {
  server = await startServer({ fresh: true });
  dir = mkdtempSync(join(tmpdir(), "paperguru-bbl-"));
  writeFileSync(join(dir, "refs.bib"), BIB);
  writeFileSync(join(dir, "main.bbl"), BBL);
});
afterAll(() => {
  server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("paperguru import of a .bbl", () => {
  it("needs --paper, cites the archive papers, and skips the file on a second run", async () => {
    const res = await fetch(`${server.url}/v1/archives`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ id: "cli-bbl", name: "cli-bbl" }),
    });
    const key = ((await res.json()) as { key: { secret: string } }).key.secret;
    const env = { PAPERGURU_KEY: key, PAPERGURU_ARCHIVE: "cli-bbl" };
    expect((await cli(["import", "refs.bib"], env)).code).toBe(0);

    const without = await cli(["import", "main.bbl"], env);
    expect(without.out).toContain("skipping main.bbl: a .bbl is the reference list of a paper in the archive");
    expect(without.out).toContain("--paper");

    const first = await cli(["import", "main.bbl", "--paper", "arxiv:2501.00001"], env);
    expect(first.out).toMatch(/main\.bbl: bbl, 2 records: 0 created, 1 updated/);
    expect(first.out).toContain("2 references, 1 cited, 1 unresolved; arxiv:2501.00001 updated (v2)");
    expect(first.code).toBe(0);
    const again = await cli(["import", "main.bbl", "--paper", "arxiv:2501.00001"], env);
    expect(again.out).toMatch(/already imported, skipped/);

    const wrong = await cli(["import", "refs.bib", "--format", "bibtex", "--paper", "arxiv:2501.00001"], env);
    expect(wrong.code).toBe(2);
    expect(wrong.out).toContain("--paper applies to .bbl files");
  });
});
