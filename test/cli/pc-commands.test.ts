/**
 * Paper Circle's commands against a local Worker with the mock model server of scripts/mock-model.ts
 * (test/fixtures/mock-models.ts) as its language model: `import` of a structured PDF (references as
 * cites, the unresolved one listed), `papers reviewers` (every kept claim's anchor verifies, the
 * unverifiable ones counted), `papers review-scores` and `export --format graph-html --within`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import { main } from "../../src/cli/main";
import { PaperGuruClient, type ReviewersResult } from "../../src/client";
import { MockModelServer, mock } from "../fixtures/mock-models";
import { makeStructuredPdf, STRUCTURED_PID } from "../fixtures/pdf-structured";

let model: MockModelServer;
let server: Server;
let dir: string;
let client: PaperGuruClient;
const ARCHIVE = "pc-cli";
let env: Record<string, string>;

async function cli(argv: string[]) {
  let out = "";
  let err = "";
  const sink = (f: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        f(String(chunk));
        cb();
      },
    });
  const code = await main(argv, {
    stdout: sink((s) => {
      out += s;
    }),
    stderr: sink((s) => {
      err += s;
    }),
    cwd: dir,
    env: { HOME: dir, PAPERGURU_CONFIG: join(dir, "config.json"), PAPERGURU_URL: server.url, ...env },
    readStdin: async () => "",
    onInterrupt: () => () => undefined,
  });
  return { code, out, err };
}

beforeAll(async () => {
  model = new MockModelServer();
  const origin = await model.start();
  server = await startServer({
    fresh: true,
    allowHosts: "127.0.0.1",
    vars: { DISTILLER: "openai", LLM_BASE_URL: `${origin}/v1`, LLM_MODEL: "m" },
  });
  dir = mkdtempSync(join(tmpdir(), "paperguru-pc-"));
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const a = await admin.createArchive({ id: ARCHIVE, name: "Paper Circle" });
  client = new PaperGuruClient(server.url, a.key.secret);
  env = { PAPERGURU_KEY: a.key.secret, PAPERGURU_ARCHIVE: ARCHIVE };
  writeFileSync(join(dir, "structured.pdf"), (await makeStructuredPdf()).bytes);
}, 120_000);

afterAll(async () => {
  server?.stop();
  await model?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("Paper Circle commands", () => {
  it("imports the PDF with its references, reviews it through the model port and scores reviews", async () => {
    const imp = await cli(["import", "structured.pdf"]);
    expect(imp.code, imp.err + imp.out).toBe(0);
    const chunk = await client.chunk(ARCHIVE, STRUCTURED_PID);
    const cites = chunk.edges.filter((e) => e.type === "cites" && e.src === STRUCTURED_PID).map((e) => e.dst);
    expect(cites.sort()).toEqual(["arxiv:2405.14831", "doi:10.1145/3397271.3401075"]);

    // The mock answers from the schema: its quote is a sentence of what it was sent, so it verifies.
    model.reset();
    const r = await cli(["papers", "reviewers", STRUCTURED_PID, "--reviewers", "1", "--json"]);
    expect(r.code, r.err).toBe(0);
    const res = JSON.parse(r.out) as ReviewersResult;
    expect(res.model).toBe("openai:m");
    expect(res.reports.length).toBe(1);
    const anchors = res.reports.flatMap((x) => x.claims.map((c) => c.anchor));
    expect(anchors.length).toBeGreaterThan(0);
    expect((await client.verify(ARCHIVE, { anchors })).all_verified).toBe(true);

    // A scripted answer with one verbatim quote and one invented one: the second is dropped and counted.
    model.script.push(
      mock.answer({
        reports: [
          {
            reviewer: "methods",
            summary: "Clear structure; thin evaluation.",
            score: 5,
            confidence: 3,
            claims: [
              {
                kind: "strength",
                text: "Keeps pages.",
                source: STRUCTURED_PID,
                quote: "keep the page of every passage",
              },
              { kind: "weakness", text: "Invented.", source: STRUCTURED_PID, quote: "we beat every baseline by far" },
            ],
          },
        ],
      }),
    );
    const text = await cli(["papers", "reviewers", STRUCTURED_PID, "--reviewers", "1"]);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toMatch(/methods: score 5\/10, confidence 3\/5/);
    expect(text.out).toMatch(new RegExp(`strength: Keeps pages\\. <- ${STRUCTURED_PID}@v1 \\[\\d+,\\d+\\)`));
    expect(text.out).toContain("dropped 1 claim(s) whose quote did not verify");

    writeFileSync(
      join(dir, "pairs.json"),
      JSON.stringify({
        pairs: [
          { predicted: 5, human: 6 },
          { predicted: 7, human: 7 },
        ],
      }),
    );
    const scores = await cli(["papers", "review-scores", "pairs.json"]);
    expect(scores.code, scores.err).toBe(0);
    expect(scores.out).toContain("2 pairs: MSE 0.5000, MAE 0.5000, RMSE 0.7071, Pearson 1.0000, Spearman 1.0000");
    expect(scores.out).toContain("±0.5: 50.0%, ±1: 100.0%");

    const page = await cli(["export", "--format", "graph-html", "--within", STRUCTURED_PID, "--out", "graph.html"]);
    expect(page.code, page.err).toBe(0);
    const html = await cli(["export", "--format", "graph-html", "--within", STRUCTURED_PID]);
    expect(html.out).toContain("<svg");
    expect(html.out).toContain(`${STRUCTURED_PID}#eq1`);
    expect(html.out).not.toMatch(/<script/);
  }, 120_000);
});
