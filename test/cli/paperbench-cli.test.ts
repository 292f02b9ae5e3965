/**
 * `paperguru paperbench score` in-process through `main(argv, io)` against a throwaway local Worker
 * whose language model is the mock model server (test/fixtures/mock-models.ts, what
 * scripts/mock-model.ts serves): a rubric file scored from a grades file, `--all`, the text and JSON
 * output, usage errors before any request, the server's 400 for a bad rubric, and `--judge` grading
 * the leaves without a grade through the model.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import type { Io } from "../../src/cli/io";
import { main } from "../../src/cli/main";
import { PaperGuruClient } from "../../src/client";
import { MockModelServer, mock } from "../fixtures/mock-models";

let model: MockModelServer;
let server: Server;
let tmp: string;
let archiveKey: string;

function sink() {
  let text = "";
  const stream = new Writable({
    write(chunk, _enc, cb) {
      text += String(chunk);
      cb();
    },
  });
  return { stream, text: () => text };
}

async function cli(argv: string[]) {
  const out = sink();
  const err = sink();
  const io: Partial<Io> = {
    stdout: out.stream,
    stderr: err.stream,
    cwd: tmp,
    env: {
      HOME: tmp,
      PAPERGURU_CONFIG: join(tmp, "config.json"),
      PAPERGURU_URL: server.url,
      PAPERGURU_KEY: archiveKey,
      PAPERGURU_ARCHIVE: "pbcli",
    },
    readStdin: async () => "",
    onInterrupt: () => () => {},
  };
  const code = await main(argv, io);
  return { code, out: out.text(), err: err.text() };
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "paperguru-paperbench-"));
  copyFileSync(join(import.meta.dirname, "..", "fixtures", "paperbench", "mini.rubric.json"), join(tmp, "rubric.json"));
  writeFileSync(
    join(tmp, "grades.json"),
    JSON.stringify({ "setup-data": 1, "setup-model": 0, "method-ppr": 1, "method-run": 0, results: 1 }),
  );
  writeFileSync(
    join(tmp, "partial.json"),
    JSON.stringify({ grades: { "setup-data": 1, "setup-model": 1, "method-ppr": 1 } }),
  );
  writeFileSync(join(tmp, "bad.json"), JSON.stringify({ id: "r", requirements: "x", weight: -2, sub_tasks: [] }));
  writeFileSync(join(tmp, "evidence.md"), "README. We ran the routing experiment on the dev split. Recall@5 rose.");
  model = new MockModelServer();
  const origin = await model.start();
  server = await startServer({
    fresh: true,
    allowHosts: "127.0.0.1",
    vars: { DISTILLER: "openai", LLM_BASE_URL: `${origin}/v1`, LLM_MODEL: "m" },
  });
  const a = await new PaperGuruClient(server.url, server.adminKey).createArchive({ id: "pbcli", name: "PaperBench" });
  archiveKey = a.key.secret;
});

afterAll(async () => {
  server?.stop();
  await model?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("paperguru paperbench score", () => {
  it("scores a rubric file from a grades file, as text and as JSON", async () => {
    const t = await cli(["paperbench", "score", "rubric.json", "--grades", "grades.json"]);
    expect(t.code, t.err).toBe(0);
    expect(t.out).toContain("score 0.7083 (70.8%) of root: 5 leaves, 5 graded, 0 judged, 0 missing");
    expect(t.out).toContain("  0.750  w=3 method");
    expect(t.out).toContain("Code Development: 3 leaves");
    const j = await cli(["paperbench", "score", "rubric.json", "--grades", "grades.json", "--json", "--depth", "1"]);
    expect(j.code, j.err).toBe(0);
    const body = JSON.parse(j.out);
    expect(body.score).toBeCloseTo(4.25 / 6, 12);
    expect(body.breakdown.map((n: { id: string }) => n.id)).toEqual(["root", "setup", "method", "results"]);
    const all = JSON.parse((await cli(["paperbench", "score", "rubric.json", "--all", "1", "--json"])).out);
    expect(all).toMatchObject({ score: 1, graded: 5 });
    // --all fills in what the grades file leaves out.
    const filled = JSON.parse(
      (await cli(["paperbench", "score", "rubric.json", "--grades", "partial.json", "--all", "0", "--json"])).out,
    );
    expect(filled).toMatchObject({ graded: 5, missing: [] });
    expect(filled.score).toBeCloseTo((2 + 3 * 0.75) / 6, 12);
  });

  it("lists missing leaves; refuses bad usage before a request and prints the server's 400", async () => {
    const m = await cli(["paperbench", "score", "rubric.json", "--grades", "partial.json"]);
    expect(m.code, m.err).toBe(0);
    expect(m.out).toContain("missing: method-run, results");
    expect((await cli(["paperbench", "score", "rubric.json", "--missing", "never"])).code).toBe(2);
    expect((await cli(["paperbench", "score", "rubric.json", "--all", "2"])).code).toBe(2);
    expect((await cli(["paperbench", "score", "nope.json"])).code).toBe(2);
    expect((await cli(["paperbench", "score", "rubric.json", "--evidence", "evidence.md"])).code).toBe(2);
    const refused = await cli(["paperbench", "score", "rubric.json", "--grades", "partial.json", "--missing", "error"]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("grades.method-run");
    const bad = await cli(["paperbench", "score", "bad.json"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("rubric.weight");
  });

  it("judges the leaves without a grade through the model (--judge)", async () => {
    model.reset();
    // The mock's own answers are schema-valid (score = the minimum, 0; the reason a sentence of the prompt).
    const d = JSON.parse(
      (
        await cli([
          "paperbench",
          "score",
          "rubric.json",
          "--grades",
          "partial.json",
          "--judge",
          "--evidence",
          "evidence.md",
          "--json",
        ])
      ).out,
    );
    expect(d).toMatchObject({ graded: 3, judged: 2, missing: [], judge: { model: "openai:m", calls: 2 } });
    expect(d.score).toBeCloseTo((2 + 3 * 0.75) / 6, 12);
    const run = d.breakdown.find((n: { id: string }) => n.id === "method-run");
    expect(run.source).toBe("judge");
    expect(run.reason.length).toBeGreaterThan(0);
    const asked = model.requestsTo("chat/completions").map((r) => JSON.stringify(r.body));
    expect(asked.some((b) => b.includes("The routing experiment has been run on the dev split"))).toBe(true);
    expect(asked.some((b) => b.includes("Recall@5 rose."))).toBe(true);

    // Scripted verdicts: both judged leaves met.
    model.reset();
    model.script.push(
      mock.answer({ score: 1, reason: "Shown in the README." }),
      mock.answer({ score: 1, reason: "Shown in the logs." }),
    );
    const t = await cli([
      "paperbench",
      "score",
      "rubric.json",
      "--grades",
      "partial.json",
      "--judge",
      "--evidence",
      "evidence.md",
    ]);
    expect(t.code, t.err).toBe(0);
    expect(t.out).toContain("score 1.0000 (100.0%) of root: 5 leaves, 3 graded, 2 judged, 0 missing");
    expect(t.out).toContain("judge openai:m: 2 calls");
  });
});
