/**
 * ProjectGuard's evaluation commands (project spec, run, exposure, metrics, calibrate) and the brief's
 * restart flags, in-process through `main(argv, io)` against a throwaway local Worker.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import type { Io } from "../../src/cli/io";
import { main } from "../../src/cli/main";

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

async function cli(argv: string[], stdin = "") {
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
    readStdin: async () => stdin,
    onInterrupt: () => () => {},
  };
  const code = await main(argv, io);
  return { code, out: out.text(), err: err.text() };
}

/** Runs a command that must succeed; returns its stdout. */
async function ok(argv: string[], stdin = ""): Promise<string> {
  const r = await cli(argv, stdin);
  expect(r.code, `${argv.join(" ")}\n${r.err}`).toBe(0);
  return r.out;
}
const json = async <T>(argv: string[]) => JSON.parse(await ok([...argv, "--json"])) as T;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "paperguru-pg-"));
  server = await startServer({ fresh: true });
  await ok(["archives", "create", "pgcli", "--save"]);
}, 120_000);

afterAll(() => {
  server?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const scores = (xs: number[]) => xs.map((score, i) => ({ component: `c${i}`, score }));

describe("project spec, run, exposure, metrics, calibrate", () => {
  it("stores runs and prints SLUMP and Recovery; stores an audit and prints RCR / ESR", async () => {
    const runs = [
      { condition: "emergent", scores: scores([4, 1, 2, 3]), dir: 0.15 },
      { condition: "single_shot", scores: scores([4, 4, 3, 3]), dir: 0.35 },
      { condition: "memory", scores: scores([4, 4, 3, 2]), dir: 0.25 },
    ];
    for (const r of runs) {
      const file = join(tmp, `${r.condition}.json`);
      writeFileSync(file, JSON.stringify({ paper: "p1", platform: "codex", ...r }));
      expect(await ok(["project", "run", file])).toContain(`${r.condition} (pgrun:${r.condition}:codex:p1@v1)`);
    }
    const text = await ok(["project", "metrics", "--paper", "p1"]);
    expect(text).toContain("p1 on codex:");
    expect(text).toContain("  SLUMP: MCF 1, DIR 0.2, IF50 0.225");
    expect(text).toContain("  Recovery: MCF 0.75, DIR 0.5, IF50 0.6389");
    const audit = JSON.stringify({
      paper: "p1",
      components: [
        {
          id: "c0",
          levels: [
            { turn: 2, level: 1 },
            { turn: 9, level: 4 },
          ],
        },
        { id: "c1", levels: [{ turn: 3, level: 0 }] },
      ],
    });
    const e = await ok(["project", "exposure", "-"], audit);
    expect(e).toContain("exposure p1: 2 components, RCR 0.5, ESR 0.5");
    expect(e).toContain("  c0: R=4, recoverable from turn 2, explicit from turn 9");
    const m = await json<{ macro: { rcr: number } }>(["project", "metrics"]);
    expect(m.macro.rcr).toBe(0.5);
    const cal = await ok(
      ["project", "calibrate", "-"],
      JSON.stringify({ human: scores([4, 1, 2, 4]), run: { paper: "p1", platform: "codex", condition: "emergent" } }),
    );
    expect(cal).toContain("4 pairs: weighted κ");
    expect(cal).toContain("exact 0.75");
  });

  it("sets a spec the render shows, and the brief's restart flags reach the body", async () => {
    await ok([
      "note",
      "--kind",
      "decision",
      "--id",
      "decision:pool",
      "--title",
      "Pool with attention",
      "Pool token states with learned attention.",
    ]);
    await ok(["annotate", "decision:pool", "status", "committed"]);
    const spec = await ok([
      "project",
      "spec",
      "decision:pool",
      "--description",
      "Attention pooling",
      "--formula",
      "h = sum a_i x_i",
      "--input",
      "x",
      "--output",
      "h",
    ]);
    expect(spec).toMatch(/^spec of decision:pool@v1 set from /);
    const render = await json<{ decisions: Array<{ id: string; spec?: { formula: string; inputs: string[] } }> }>([
      "project",
      "render",
    ]);
    expect(render.decisions[0]?.spec).toMatchObject({ formula: "h = sum a_i x_i", inputs: ["x"] });
    const brief = await ok([
      "project",
      "brief",
      "attention pooling",
      "--window",
      "100000",
      "--used",
      "99900",
      "--turn-tokens",
      "400",
    ]);
    expect(brief).toMatch(/restart: (restart|narrow): the next 3 turns need about \d+ tokens but only 100 remain/);
    const usage = await cli(["project", "brief", "attention pooling", "--window", "100000"]);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("--window and --used go together");
    const noDesc = await cli(["project", "spec", "decision:pool"]);
    expect(noDesc.code).toBe(2);
  });
});
