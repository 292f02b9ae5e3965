/**
 * `paperguru xkg pairs --verify` (xKG's verifier, seed 003 §2.4) through the CLI against `npm start`
 * with DISTILLER=openai and the mock model server (test/fixtures/mock-models.ts, one process): the
 * pairs come back in the verifier's order, the dropped one listed with its reason, and the model saw
 * every candidate pair id in one request.
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
const archive = "xkgverify";

const KG = [
  {
    paper_title: "Classifier-Free Diffusion Guidance",
    paper_abstract: "Guidance for diffusion models without a classifier.",
    techniques: [
      {
        name: "Classifier-free guidance sampling",
        description: "Combine the conditional and unconditional noise predictions with a guidance weight.",
        weight: 1,
        code: {
          implementation: "def guided_eps(c, u, w):\n    return (1 + w) * c - w * u\n",
          test: "",
          documentation: "Mixes the two predictions.",
          package: [],
        },
        components: [],
      },
    ],
  },
  {
    paper_title: "Rethinking Experience Replay",
    paper_abstract: "Tricks for rehearsal-based continual learning.",
    techniques: [
      {
        name: "Reservoir sampling buffer",
        description: "Keep a fixed-size memory of past examples, each kept with equal probability.",
        weight: 1,
        code: {
          implementation: "def reservoir_add(buffer, item):\n    buffer.append(item)\n",
          test: "",
          documentation: "Reservoir sampling.",
          package: [],
        },
        components: [],
      },
    ],
  },
];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "pg-xkg-verify-"));
  model = new MockModelServer();
  const origin = await model.start();
  server = await startServer({
    fresh: true,
    allowHosts: "127.0.0.1",
    vars: { DISTILLER: "openai", LLM_BASE_URL: `${origin}/v1`, LLM_MODEL: "m" },
  });
  const admin = new PaperGuruClient(server.url, server.adminKey);
  key = (await admin.createArchive({ id: archive, name: "verify" })).key.secret;
  for (const doc of KG) {
    const res = await fetch(`${server.url}/v1/archives/${archive}/import?format=xkg&name=kg.json`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
      body: JSON.stringify(doc),
    });
    expect(res.status).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  server?.stop();
  await model?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

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

async function cli(argv: string[]): Promise<string> {
  const out = sink();
  const err = sink();
  const io: Partial<Io> = {
    stdout: out.stream,
    stderr: err.stream,
    cwd: tmp,
    env: { HOME: tmp, PAPERGURU_CONFIG: join(tmp, "config.json"), PAPERGURU_URL: server.url, PAPERGURU_KEY: key },
    readStdin: async () => "",
    onInterrupt: () => () => {},
  };
  const code = await main([...argv, "--archive", archive], io);
  expect(code, `${argv.join(" ")}\n${err.text()}`).toBe(0);
  return out.text();
}

it("xkg pairs --verify keeps, drops and reorders the pairs through the model", async () => {
  const query = "classifier-free guidance: mix conditional and unconditional predictions";
  const plain = JSON.parse(await cli(["xkg", "pairs", query, "--threshold=-1", "--json"])) as {
    pairs: Array<{ technique: { id: string } }>;
  };
  const order = plain.pairs.map((p) => p.technique.id);
  expect(order.length).toBe(2);
  expect(model.requestsTo("chat/completions").length).toBe(0);

  // p1 and p2 are the pairs in the router's order: the verifier puts the second first, drops the first.
  model.script.push(
    mock.answer({
      pairs: [
        { pair: "p2", keep: true, reason: "The closest usable code." },
        { pair: "p7", keep: true, reason: "Not a candidate." },
        { pair: "p1", keep: false, reason: "Not what the query asks." },
      ],
    }),
  );
  const text = await cli(["xkg", "pairs", query, "--threshold=-1", "--verify"]);
  expect(text).toContain(`[1] ${order[1]}@v1`);
  expect(text).not.toContain(`[2] `);
  expect(text).toContain("verifier: The closest usable code.");
  expect(text).toContain("verifier openai:m: kept 1 of 2");
  expect(text).toContain(`dropped ${order[0]}`);
  expect(text).toContain("Not what the query asks.");
  const chats = model.requestsTo("chat/completions");
  expect(chats.length).toBe(1);
  const sentText = JSON.stringify(chats[0]?.body);
  expect(sentText).toContain("## p1");
  expect(sentText).toContain("## p2");
  expect(sentText).toContain("verify_pairs");
}, 120_000);
