/**
 * ProjectGuard's evaluation served over REST (seed 002): stored runs and the metrics over them (MCF,
 * DIR, IF50, SLUMP_F, Recovery_F), the exposure audit (RCR, ESR, first turns, Fig. 1), calibration
 * against human scores, spec components in the brief and the render, and the restart signal.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

type Scores = Array<{ component: string; score: number }>;
/** n components c0..c(n-1) scored to reach a given mean over 10: `fours` fours, the rest threes etc. */
const scored = (xs: number[]): Scores => xs.map((score, i) => ({ component: `c${i}`, score }));

describe("ProjectGuard runs and metrics", () => {
  it("stores runs as versions and serves MCF, DIR, IF50, SLUMP_F and Recovery_F as of a time", async () => {
    const { id, key } = await newArchive("pgrun");
    const a = (method: string, path: string, body?: unknown) => api(method, `/v1/archives/${id}${path}`, body, key);
    // Emergent: MCF 2.5, DIR 0.15; single shot: MCF 3.5, DIR 0.35; memory: MCF 3.25, DIR 0.25.
    const em = await a("POST", "/projectguard/runs", {
      paper: "p1",
      platform: "claude-code",
      condition: "emergent",
      scores: scored([4, 1, 2, 3]),
      dir: 0.15,
      as_of: "2025-01-01",
    });
    expect(em.status, JSON.stringify(em.body)).toBe(200);
    expect(em.body).toMatchObject({
      id: "pgrun:emergent:claude-code:p1",
      version: 1,
      mcf: 2.5,
      dir: 0.15,
      if50: 0.3875,
      faithful: 1,
      severe: 1,
      written: "created",
    });
    await a("POST", "/projectguard/runs", {
      paper: "p1",
      platform: "claude-code",
      condition: "single_shot",
      scores: scored([4, 4, 3, 3]),
      dir: 0.35,
      as_of: "2025-01-01",
    });
    // The memory run first scores like the emergent one, then is re-stored better: a new version.
    await a("POST", "/projectguard/runs", {
      paper: "p1",
      platform: "claude-code",
      condition: "memory",
      scores: scored([4, 1, 2, 3]),
      dir: 0.15,
      as_of: "2025-01-02",
    });
    const again = await a("POST", "/projectguard/runs", {
      paper: "p1",
      platform: "claude-code",
      condition: "memory",
      scores: scored([4, 4, 3, 2]),
      dir: 0.25,
      as_of: "2025-01-05",
    });
    expect(again.body).toMatchObject({ version: 2, written: "updated", mcf: 3.25 });
    // The same scores again change nothing.
    const same = await a("POST", "/projectguard/runs", {
      paper: "p1",
      platform: "claude-code",
      condition: "memory",
      scores: scored([4, 4, 3, 2]).reverse(),
      dir: 0.25,
      as_of: "2025-01-06",
    });
    expect(same.body).toMatchObject({ version: 2, written: "unchanged" });

    const m = await a("GET", "/projectguard/metrics?paper=p1");
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    const p = m.body.papers[0];
    expect(p.runs.map((r: { condition: string }) => r.condition)).toEqual(["emergent", "single_shot", "memory"]);
    expect(p.slump).toEqual({ mcf: 1, dir: 0.2, if50: 0.225 });
    // Recovery_MCF = (3.25 − 2.5) / (3.5 − 2.5); DIR (0.25 − 0.15) / 0.2; IF50 (0.53125 − 0.3875) / 0.225.
    expect(p.recovery).toEqual({ mcf: 0.75, dir: 0.5, if50: 0.6389 });
    expect(m.body.macro).toMatchObject({ tasks: 1, slump: { mcf: 1 }, recovery: { mcf: 0.75 } });

    // As of 2025-01-03 the memory run was still its first version: nothing recovered.
    const then = await a("GET", "/projectguard/metrics?paper=p1&as_of=2025-01-03");
    expect(then.body.papers[0].recovery).toEqual({ mcf: 0, dir: 0, if50: 0 });
    // Before the runs: no task.
    const before = await a("GET", "/projectguard/metrics?as_of=2024-12-01");
    expect(before.body.papers).toEqual([]);
    expect(before.body.macro).toMatchObject({ tasks: 0, rcr: null });
  });

  it("computes DIR from the archive's code when asked, and names bad input", async () => {
    const { id, key } = await newArchive("pgdir");
    const a = (method: string, path: string, body?: unknown) => api(method, `/v1/archives/${id}${path}`, body, key);
    await a("POST", "/ingest", {
      artifacts: [
        {
          id: "repo/a.ts",
          kind: "code_unit",
          title: "a.ts",
          content:
            "export function alpha(): number {\n  return 1;\n}\nexport function beta(): number {\n  return 2;\n}\n",
          valid_from: "2025-01-01",
        },
        {
          id: "repo/main.ts",
          kind: "code_unit",
          title: "main.ts",
          content: "import { alpha } from './a';\nalpha();\n",
          valid_from: "2025-01-01",
          edges: [{ type: "depends-on", target: "repo/a.ts" }],
        },
      ],
    });
    const r = await a("POST", "/projectguard/runs", {
      paper: "p2",
      condition: "emergent",
      scores: scored([3, 3]),
      dir_prefix: "repo/",
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ platform: "default", dir: 0.5, if50: 0.625 });

    const twice = await a("POST", "/projectguard/runs", {
      paper: "p2",
      condition: "emergent",
      scores: [
        { component: "c1", score: 3 },
        { component: "c1", score: 2 },
      ],
    });
    expect(twice.status).toBe(400);
    expect(twice.body.error.field).toBe("scores.1.component");
    const high = await a("POST", "/projectguard/runs", { paper: "p2", condition: "emergent", scores: scored([5]) });
    expect(high.status).toBe(400);
    expect(high.body.error.field).toContain("scores.0.score");
    const cond = await a("POST", "/projectguard/runs", { paper: "p2", condition: "later", scores: scored([1]) });
    expect(cond.status).toBe(400);
    expect(cond.body.error.field).toBe("condition");
    const both = await a("POST", "/projectguard/runs", {
      paper: "p2",
      condition: "emergent",
      scores: scored([1]),
      dir: 0.1,
      dir_prefix: "repo/",
    });
    expect(both.status).toBe(400);
    expect(both.body.error.field).toBe("dir_prefix");
  });

  it("serves the exposure audit: RCR, ESR, first turns and Fig. 1's curves", async () => {
    const { id, key } = await newArchive("pgexp");
    const a = (method: string, path: string, body?: unknown) => api(method, `/v1/archives/${id}${path}`, body, key);
    const r = await a("POST", "/projectguard/exposure", {
      paper: "p1",
      turns: 5,
      components: [
        {
          id: "c1",
          levels: [
            { turn: 4, level: 4 },
            { turn: 2, level: 2 },
          ],
        },
        { id: "c2", levels: [{ turn: 3, level: 1 }] },
        { id: "c3", levels: [{ turn: 1, level: 0 }] },
        { id: "c4", levels: [{ turn: 1, level: 4 }] },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ rcr: 0.75, esr: 0.5, components: 4, written: "created" });
    expect(r.body.per_component[0]).toEqual({ id: "c1", level: 4, first_recoverable_turn: 2, first_explicit_turn: 4 });
    expect(r.body.curve).toEqual([
      { turn: 1, recoverable: 0.25, explicit: 0.25 },
      { turn: 2, recoverable: 0.5, explicit: 0.25 },
      { turn: 3, recoverable: 0.75, explicit: 0.25 },
      { turn: 4, recoverable: 0.75, explicit: 0.5 },
      { turn: 5, recoverable: 0.75, explicit: 0.5 },
    ]);
    await a("POST", "/projectguard/exposure", {
      paper: "p2",
      components: [{ id: "c1", levels: [{ turn: 1, level: 4 }] }],
    });
    const m = await a("GET", "/projectguard/metrics");
    expect(m.body.exposure.map((e: { paper: string }) => e.paper).sort()).toEqual(["p1", "p2"]);
    expect(m.body.macro).toMatchObject({ rcr: 0.875, esr: 0.75 });
    const dup = await a("POST", "/projectguard/exposure", {
      paper: "p3",
      components: [
        { id: "c1", levels: [{ turn: 1, level: 1 }] },
        { id: "c1", levels: [{ turn: 2, level: 1 }] },
      ],
    });
    expect(dup.status).toBe(400);
    expect(dup.body.error.field).toBe("components.1.id");
    const turn0 = await a("POST", "/projectguard/exposure", {
      paper: "p3",
      components: [{ id: "c1", levels: [{ turn: 0, level: 1 }] }],
    });
    expect(turn0.status).toBe(400);
    expect(turn0.body.error.field).toContain("components.0.levels.0.turn");
  });

  it("calibrates a judge's scores (given or a stored run's) against human scores", async () => {
    const { id, key } = await newArchive("pgcal");
    const a = (method: string, path: string, body?: unknown) => api(method, `/v1/archives/${id}${path}`, body, key);
    const human = scored([0, 1, 2, 3, 4]);
    const judge = scored([0, 1, 2, 4, 3]);
    const c = await a("POST", "/projectguard/calibration", {
      human,
      judge: [...judge, { component: "extra", score: 1 }],
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body).toEqual({
      pairs: 5,
      weighted_kappa: 0.9,
      exact: 0.6,
      within_one: 1,
      spearman: 0.9,
      boundary_2_3: 0,
      boundary_3_4: 0.4,
      unmatched: ["extra"],
    });
    await a("POST", "/projectguard/runs", { paper: "p1", condition: "emergent", scores: judge });
    const fromRun = await a("POST", "/projectguard/calibration", {
      human,
      run: { paper: "p1", condition: "emergent" },
    });
    expect(fromRun.body).toMatchObject({ pairs: 5, weighted_kappa: 0.9, unmatched: [] });
    const neither = await a("POST", "/projectguard/calibration", { human });
    expect(neither.status).toBe(400);
    expect(neither.body.error.field).toBe("judge");
    const missing = await a("POST", "/projectguard/calibration", {
      human,
      run: { paper: "nope", condition: "memory" },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.field).toBe("run");
    const disjoint = await a("POST", "/projectguard/calibration", { human, judge: [{ component: "z", score: 1 }] });
    expect(disjoint.status).toBe(400);
  });
});
