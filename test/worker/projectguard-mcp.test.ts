/**
 * ProjectGuard over MCP: the `curate` ops spec, project_run and exposure, the `research` ops
 * project_metrics and calibration, and the `project` tool's restart signal with `context`.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { connect, type Json, ok, toolError } from "./mcp-client";

const open: Client[] = [];
afterAll(async () => {
  for (const c of open) await c.close();
});

describe("ProjectGuard through MCP", () => {
  it("stores runs, an audit and a spec, and reads the metrics, the calibration and the restart signal", async () => {
    const { id, key } = await newArchive("pgmcp");
    const client = await connect(key, open);
    const curate = (op: string, args: Json) => ok(client, "curate", { archive: id, op, args });
    const research = (op: string, args: Json) => ok(client, "research", { archive: id, op, args });
    const s = (xs: number[]) => xs.map((score, i) => ({ component: `c${i}`, score }));

    const em = await curate("project_run", { paper: "p", condition: "emergent", scores: s([2, 2]), dir: 0.1 });
    expect(em).toMatchObject({ id: "pgrun:emergent:default:p", mcf: 2 });
    await curate("project_run", { paper: "p", condition: "single_shot", scores: s([4, 4]), dir: 0.3 });
    await curate("project_run", { paper: "p", condition: "memory", scores: s([3, 4]), dir: 0.2 });
    const ex = await curate("exposure", {
      paper: "p",
      components: [
        { id: "c0", levels: [{ turn: 2, level: 4 }] },
        { id: "c1", levels: [{ turn: 3, level: 2 }] },
      ],
    });
    expect(ex).toMatchObject({ rcr: 1, esr: 0.5 });
    const m = await research("project_metrics", { paper: "p" });
    expect(m.papers[0]).toMatchObject({ slump: { mcf: 2, dir: 0.2 }, recovery: { mcf: 0.75, dir: 0.5 } });
    const cal = await research("calibration", { human: s([2, 3]), run: { paper: "p", condition: "emergent" } });
    expect(cal).toMatchObject({ pairs: 2, exact: 0.5, within_one: 1 });
    const bad = await toolError(client, "curate", {
      archive: id,
      op: "project_run",
      args: { paper: "p", condition: "emergent", scores: s([7]) },
    });
    expect(bad.field).toContain("args.scores.0.score");

    await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      {
        artifacts: [
          {
            id: "design:pool",
            kind: "design",
            title: "Attention pooling",
            content: "Token states are pooled with attention.",
            valid_from: "2025-01-01",
          },
        ],
      },
      key,
    );
    await api(
      "POST",
      `/v1/archives/${id}/chunks/design%3Apool/annotations`,
      { key: "status", value: "committed", at: "2025-01-01" },
      key,
    );
    await curate("spec", { record: "design:pool", description: "Attention pooling", formula: "h = sum a_i x_i" });
    const brief = await ok(client, "project", {
      archive: id,
      request: "attention pooling of token states",
      context: { window_tokens: 100_000, used_tokens: 10_000 },
    });
    expect(brief.commitments[0]).toMatchObject({ id: "design:pool", spec: { formula: "h = sum a_i x_i" } });
    expect(brief.restart).toMatchObject({ advice: "continue", remaining_tokens: 90_000, next_turns: 3 });
    const noRequest = await toolError(client, "project", {
      archive: id,
      context: { window_tokens: 100_000, used_tokens: 10_000 },
    });
    expect(noRequest.field).toBe("request");
  });
});
