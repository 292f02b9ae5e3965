/**
 * Spec components (seed 002 A.2) in the brief and the render, as of a time, and the proactive
 * restart signal (B.2) with its numbers.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

async function project() {
  const { id, key } = await newArchive("pgspec");
  const a = (method: string, path: string, body?: unknown) => api(method, `/v1/archives/${id}${path}`, body, key);
  const ing = await a("POST", "/ingest", {
    artifacts: [
      {
        id: "decision:pool",
        kind: "decision",
        title: "Pool token states with attention",
        content: "The encoder pools token states with learned attention weights.",
        valid_from: "2025-01-01",
      },
      {
        id: "repo/pool.py",
        kind: "code_unit",
        title: "pool.py",
        content: `def attention_pool(x, w):\n${"    # weights\n".repeat(200)}    return (softmax(x @ w) * x).sum(0)\n`,
        valid_from: "2025-01-02",
        edges: [{ type: "implements", target: "decision:pool" }],
      },
    ],
  });
  expect(ing.status).toBe(200);
  await a("POST", "/chunks/decision%3Apool/annotations", { key: "status", value: "committed", at: "2025-01-01" });
  return a;
}

const SPEC = {
  record: "decision:pool",
  description: "Pools token states with learned attention weights.",
  formula: "h = sum_i softmax(w^T x_i) x_i",
  inputs: ["x: [n, d] token states"],
  outputs: ["h: [d] pooled state"],
  connections: ["repo/pool.py"],
  at: "2025-01-03",
};

describe("spec components", () => {
  it("are shown with the record in the brief and the render, as they were at as_of", async () => {
    const a = await project();
    const set = await a("POST", "/projectguard/spec", SPEC);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ record: "decision:pool", version: 1, spec: { formula: SPEC.formula } });
    await a("POST", "/projectguard/spec", { ...SPEC, formula: "h = sum_i a_i x_i", at: "2025-02-01" });

    const brief = await a("POST", "/brief", { request: "attention pooling of token states", as_of: "2025-01-10" });
    expect(brief.status, JSON.stringify(brief.body)).toBe(200);
    expect(brief.body.commitments[0]).toMatchObject({
      id: "decision:pool",
      spec: {
        description: SPEC.description,
        formula: SPEC.formula,
        inputs: SPEC.inputs,
        outputs: SPEC.outputs,
        connections: SPEC.connections,
      },
    });
    const later = await a("POST", "/brief", { request: "attention pooling of token states", as_of: "2025-03-01" });
    expect(later.body.commitments[0].spec.formula).toBe("h = sum_i a_i x_i");
    const before = await a("POST", "/brief", { request: "attention pooling of token states", as_of: "2025-01-02" });
    expect(before.body.commitments[0].spec).toBeUndefined();

    const render = await a("POST", "/render", { as_of: "2025-01-10" });
    expect(render.body.decisions[0]).toMatchObject({ id: "decision:pool", spec: { formula: SPEC.formula } });
  });

  it("refuse what is not a design or decision, and name missing fields", async () => {
    const a = await project();
    const code = await a("POST", "/projectguard/spec", { ...SPEC, record: "repo/pool.py" });
    expect(code.status).toBe(400);
    expect(code.body.error.field).toBe("record");
    const none = await a("POST", "/projectguard/spec", { ...SPEC, record: "decision:nope" });
    expect(none.status).toBe(404);
    const { description: _d, ...noDescription } = SPEC;
    const bad = await a("POST", "/projectguard/spec", noDescription);
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("description");
  });
});

describe("the restart signal", () => {
  it("says continue, restart or narrow with the numbers", async () => {
    const a = await project();
    const req = { request: "attention pooling of token states", as_of: "2025-01-10", budget_tokens: 2000 };
    const roomy = await a("POST", "/brief", {
      ...req,
      context: { window_tokens: 200_000, used_tokens: 1000, next_turns: 3, turn_tokens: 500 },
    });
    expect(roomy.status, JSON.stringify(roomy.body)).toBe(200);
    const r = roomy.body.restart;
    expect(r.advice).toBe("continue");
    expect(r.remaining_tokens).toBe(199_000);
    expect(r.parts.turns).toBe(1500);
    expect(r.parts.brief).toBe(roomy.body.tokens);
    // The module to reuse is read whole: ~200 comment lines, hundreds of tokens.
    expect(r.parts.code).toBeGreaterThan(400);
    expect(r.needed_tokens).toBe(r.parts.brief + r.parts.code + r.parts.turns);
    expect(r.render_tokens).toBeGreaterThan(0);
    expect(r.fresh_needed_tokens).toBe(r.render_tokens + r.parts.code + r.parts.turns);
    expect(roomy.body.tokens).toBeLessThanOrEqual(2000);

    const full = await a("POST", "/brief", {
      ...req,
      context: { window_tokens: 200_000, used_tokens: 199_500, next_turns: 3, turn_tokens: 500 },
    });
    expect(full.body.restart.advice).toBe("restart");
    expect(full.body.restart.remaining_tokens).toBe(500);
    expect(full.body.restart.reason).toContain(`only 500 remain`);

    const huge = await a("POST", "/brief", {
      ...req,
      context: { window_tokens: 10_000, used_tokens: 9_000, next_turns: 20, turn_tokens: 5000 },
    });
    expect(huge.body.restart.advice).toBe("narrow");
    expect(huge.body.restart.parts.turns).toBe(100_000);

    // Without context there is no signal; a bad context names its field.
    const plain = await a("POST", "/brief", req);
    expect(plain.body.restart).toBeUndefined();
    const bad = await a("POST", "/brief", { ...req, context: { window_tokens: 10, used_tokens: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("context.window_tokens");
  });
});
