/**
 * `paperguru project judge` against a throwaway local Worker whose language model is the mock model
 * server (test/fixtures/mock-models.ts, what scripts/mock-model.ts serves): its schema-valid answers
 * (numbers at their minimum: score 0) come back as verdicts, one model call per component, with the
 * reads the judge was given; usage errors before any request.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import type { Io } from "../../src/cli/io";
import { main } from "../../src/cli/main";
import { PaperGuruClient } from "../../src/client";
import { MockModelServer } from "../fixtures/mock-models";

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
      PAPERGURU_ARCHIVE: "pgjudge",
    },
    readStdin: async () => "",
    onInterrupt: () => () => {},
  };
  const code = await main(argv, io);
  return { code, out: out.text(), err: err.text() };
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "paperguru-pgjudge-"));
  model = new MockModelServer();
  const origin = await model.start();
  server = await startServer({
    fresh: true,
    allowHosts: "127.0.0.1",
    vars: { DISTILLER: "openai", LLM_BASE_URL: `${origin}/v1`, LLM_MODEL: "m" },
  });
  const client = new PaperGuruClient(server.url, server.adminKey);
  const a = await client.createArchive({ id: "pgjudge", name: "ProjectGuard judge" });
  archiveKey = a.key.secret;
  const c = new PaperGuruClient(server.url, archiveKey);
  await c.ingest("pgjudge", {
    artifacts: [
      {
        id: "repo/pool.py",
        kind: "code_unit",
        title: "pool.py",
        content: "def attention_pool(x, w):\n    return (softmax(x @ w) * x).sum(0)\n",
      },
      { id: "decision:pool", kind: "decision", title: "Attention pooling", content: "Pool with attention." },
    ],
  });
  await c.request("POST", "/v1/archives/pgjudge/projectguard/spec", {
    record: "decision:pool",
    description: "Pools token states with softmax attention weights.",
    formula: "h = sum_i softmax(x w)_i x_i",
  });
}, 120_000);

afterAll(async () => {
  server?.stop();
  await model?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("paperguru project judge", () => {
  it("scores a component through the configured model and prints the verdict", async () => {
    const t = await cli(["project", "judge", "decision:pool", "--prefix", "repo/", "--tool-calls", "2"]);
    expect(t.code, t.err).toBe(0);
    expect(t.out).toContain("judged by openai:m:");
    expect(t.out).toMatch(/^ {2}decision:pool: 0 \(.*; 1 reads\)/m);
    const chats = model.requests.filter((r) => r.path.endsWith("/chat/completions"));
    expect(chats.length).toBe(1);
    expect(JSON.stringify(chats[0])).toContain("FORMULA: h = sum_i softmax(x w)_i x_i");
    const j = await cli(["project", "judge", "decision:pool", "decision:none", "--prefix", "repo/", "--json"]);
    expect(j.code, j.err).toBe(0);
    const body = JSON.parse(j.out);
    expect(body.scores[0]).toMatchObject({ component: "decision:pool", score: 0 });
    expect(body.dropped[0].component).toBe("decision:none");
    const usage = await cli(["project", "judge", "decision:pool"]);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("--prefix is required");
  });
});
