/**
 * xKG's model roles end to end: a local Worker (`startServer`) with DISTILLER=openai against the
 * mock model server process (test/fixtures/mock-models.ts, what scripts/mock-model.ts serves); the
 * CLI proposes a paper's techniques, rewrites the first one's code into a checked code node, and
 * exports the paper's xKG object with the rewrite among its technique's code.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import type { Io } from "../../src/cli/io";
import { main } from "../../src/cli/main";
import { PaperGuruClient } from "../../src/client";
import { MockModelServer, mock } from "../fixtures/mock-models";

let model: MockModelServer;
let server: Server;
let tmp: string;
let key: string;
const archive = "xkgrewrite";

beforeAll(async () => {
  model = new MockModelServer();
  const origin = await model.start();
  server = await startServer({
    fresh: true,
    allowHosts: "127.0.0.1",
    vars: { DISTILLER: "openai", LLM_BASE_URL: `${origin}/v1`, LLM_MODEL: "m" },
  });
  const admin = new PaperGuruClient(server.url, server.adminKey);
  key = (await admin.createArchive({ id: archive, name: "xkg rewrite" })).key.secret;
  tmp = mkdtempSync(join(tmpdir(), "pg-xkg-rewrite-"));
}, 120_000);

afterAll(async () => {
  server?.stop();
  await model?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

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
  const io: Partial<Io> = {
    stdout: sink((s) => {
      out += s;
    }),
    stderr: sink((s) => {
      err += s;
    }),
    cwd: tmp,
    env: {
      HOME: tmp,
      PAPERGURU_CONFIG: join(tmp, "config.json"),
      PAPERGURU_URL: server.url,
      PAPERGURU_KEY: key,
      PAPERGURU_ARCHIVE: archive,
    },
    readStdin: async () => "",
    onInterrupt: () => () => {},
  };
  const code = await main(argv, io);
  return { code, out, err };
}

const CODE = "import torch\n\ndef ccs_loss(p0, p1):\n    return ((p0 - (1 - p1)) ** 2).mean()\n";
const SECTION = "We then learn a probe whose probabilities on the two halves of a pair sum to one.";

it("proposes techniques, rewrites one's code into a stored code node, and exports it", async () => {
  const client = new PaperGuruClient(server.url, key);
  await client.ingest(archive, {
    artifacts: [
      { id: "paper:ccs", kind: "paper", title: "Discovering Latent Knowledge", content: "We propose CCS." },
      {
        id: "paper:ccs#s2",
        kind: "section",
        title: "Method",
        content: SECTION,
        edges: [{ type: "part-of", target: "paper:ccs" }],
      },
      { id: "gh:acme/ccs/loss.py", kind: "code_unit", title: "loss.py", content: CODE },
    ],
  });
  model.script.push(
    mock.answer({
      techniques: [
        {
          name: "CCS loss",
          type: "Technique",
          description: "The consistency loss over a contrast pair.",
          parent: "",
          evidence: [{ section: "paper:ccs#s2", quote: "probabilities on the two halves of a pair sum to one" }],
          code: [{ unit: "gh:acme/ccs/loss.py", quote: "def ccs_loss(p0, p1):" }],
        },
      ],
    }),
  );
  const proposed = await cli(["xkg", "propose", "paper:ccs", "--code-prefix", "gh:acme/", "--json"]);
  expect(proposed.code, proposed.err).toBe(0);
  const technique = JSON.parse(proposed.out).proposals[0].id as string;
  expect(technique).toMatch(/^paper:ccs#mt:ccs-loss-/);

  model.script.push(
    mock.answer({
      none: false,
      implementation:
        'import torch\n\ndef ccs_loss(p0: torch.Tensor, p1: torch.Tensor) -> torch.Tensor:\n    """Consistency."""\n    return ((p0 - (1 - p1)) ** 2).mean()\n\n# TEST BLOCK\nprint(ccs_loss(torch.rand(2), torch.rand(2)))',
      test: "assert float(ccs_loss(torch.ones(1), torch.zeros(1))) == 0.0",
      documentation: "The consistency term of the CCS loss.",
      sources: [{ id: "gh:acme/ccs/loss.py", quote: "def ccs_loss(p0, p1):" }],
    }),
    mock.answer({ verdict: true, reason: "Follows loss.py." }),
  );
  const rewrite = await cli(["xkg", "rewrite", technique]);
  expect(rewrite.code, rewrite.err).toBe(0);
  expect(rewrite.out).toMatch(/^stored paper:ccs#mt:ccs-loss-[0-9a-f]{12}#code:[0-9a-f]{12} \(openai:m;/);
  expect(rewrite.out).toContain("core lines found: 2/3");
  expect(rewrite.out).toContain("verifier: true");

  const exported = await cli(["xkg", "export", "--paper", "paper:ccs"]);
  expect(exported.code, exported.err).toBe(0);
  const paper = JSON.parse(exported.out);
  const code = paper.techniques[0].code as Array<{ origin: string; test: string; documentation: string }>;
  expect(code.map((c) => c.origin).filter((o) => o === "model:openai:m")).toHaveLength(1);
  expect(code.find((c) => c.origin === "model:openai:m")).toMatchObject({
    documentation: "The consistency term of the CCS loss.",
    test: "assert float(ccs_loss(torch.ones(1), torch.zeros(1))) == 0.0",
  });
  expect(model.requestsTo("chat/completions")).toHaveLength(3);
}, 90_000);
