/**
 * The SGMC commands `research references|outline|loop|scaffold` and `research feedback --use`,
 * in-process through `main(argv, io)` against a throwaway local Worker (no model configured).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import type { Io } from "../../src/cli/io";
import { main } from "../../src/cli/main";
import { PaperGuruClient } from "../../src/client";

let server: Server | null = null;
let tmp: string;

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
      PAPERGURU_URL: server?.url ?? "http://127.0.0.1:9",
      PAPERGURU_ADMIN_KEY: server?.adminKey ?? "admin",
    },
    readStdin: async () => "",
    onInterrupt: () => () => {},
  };
  const code = await main(argv, io);
  return { code, out: out.text(), err: err.text() };
}

async function ok(argv: string[]): Promise<string> {
  const r = await cli(argv);
  expect(r.code, `${argv.join(" ")}\n${r.err}`).toBe(0);
  return r.out;
}

const paper = (id: string, title: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: "paper" as const,
  title,
  content: `${title}. A study of EEG emotion recognition.`,
  valid_from: "2023-01-01",
  ...extra,
});

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "paperguru-sgmc-"));
  server = await startServer({ fresh: true });
  await ok(["archives", "create", "sgmc", "--save"]);
  const client = new PaperGuruClient(server.url, server.adminKey);
  const refs = [
    paper("p:gnn1", "Graph neural networks for EEG", { entities: [{ type: "method", id: "method:gnn", name: "GNN" }] }),
    paper("p:gnn2", "Dynamic graph convolution on EEG", {
      entities: [{ type: "method", id: "method:gnn", name: "GNN" }],
    }),
    paper("p:undated", "An EEG corpus", { boundaries: ["year:unknown"] }),
  ];
  await client.ingest("sgmc", {
    artifacts: [
      ...refs,
      {
        id: "rev",
        kind: "section",
        title: "EEG review",
        content: "EEG review.",
        boundaries: ["outline"],
        edges: refs.map((r) => ({ type: "cites" as const, target: r.id })),
      },
      {
        id: "fb:one",
        kind: "note",
        title: "Quote every number",
        content: "Quote every number.",
        boundaries: ["feedback"],
      },
    ],
  });
}, 300_000);

afterAll(() => {
  server?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("SGMC commands", () => {
  it("references, outline, feedback --use, scaffold; loop needs a model", async () => {
    const refs = await ok(["research", "references", "rev"]);
    expect(refs).toContain("2 of 3 candidates selected (Q_k 20)");
    expect(refs).toContain("removed p:undated: no year");
    const lax = JSON.parse(await ok(["research", "references", "rev", "--require", "title,abstract", "--json"]));
    expect(lax.selected).toHaveLength(3);
    const both = await cli(["research", "references", "rev", "--ids", "p:gnn1"]);
    expect(both.code).toBe(2);
    expect(both.err).toContain("give a node or --ids, not both");
    const bad = await cli(["research", "references", "rev", "--require", "doi"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--require: unknown value "doi"');

    const outline = await ok(["research", "outline", "rev", "--method", "names"]);
    expect(outline).toContain("1 directions under rev (names)");
    expect(outline).toMatch(/1\. rev\/gnn \[created\]: GNN \(cites p:gnn1, p:gnn2\)/);
    expect(outline).toContain("in no direction: p:undated");
    const tree = JSON.parse(await ok(["research", "tree", "rev", "--json"]));
    expect(tree.nodes.map((n: { id: string }) => n.id)).toEqual(["rev", "rev/gnn"]);
    expect(tree.nodes[0].words.own_from).toBe("content");

    expect(await ok(["research", "feedback", "--use", "e1"])).toContain("use recorded (event e1): uses 1");
    expect(await ok(["research", "feedback", "--use", "e1"])).toContain(
      "use recorded (event e1, a repeat: counted once): uses 1",
    );
    expect(await ok(["research", "feedback", "--use", "e2"])).toContain("uses 2");
    expect(await ok(["research", "feedback"])).toContain('selected: fb:one@v1 "Quote every number" (uses 2');

    expect(await ok(["research", "scaffold", "rev"])).toContain("scaffold of rev as of");
    await ok(["research", "scaffold", "rev", "--markdown", "--out", "scaffold.md"]);
    const md = readFileSync(join(tmp, "scaffold.md"), "utf8");
    expect(md).toContain("# Review scaffold: rev");
    expect(md).toContain("- `p:gnn1@v1` Graph neural networks for EEG");

    const loop = await cli(["research", "loop", "rev", "--request", "Check numbers."]);
    expect(loop.code).not.toBe(0);
    expect(loop.err).toMatch(/no model configured: set DISTILLER or EXTRACTOR/);
    const noReq = await cli(["research", "loop", "rev"]);
    expect(noReq.code).toBe(2);
    expect(noReq.err).toContain("--request is required");
  });
});
