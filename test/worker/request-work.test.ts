/**
 * Work per request, counted in D1 statements through a counting binding (not timed): a render reads
 * the archive in a fixed number of statements plus one per IN-list of 90 ids, not one history read
 * per code unit; an xKG import writes its annotations in multi-row statements, not one per chunk.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { wire } from "../../src/wiring";
import { api, newArchive } from "./helpers";

/**
 * The Worker's use cases over a D1 binding that counts prepared statements (all, or those matching)
 * and batches (one round trip each), and an R2 binding that counts content reads.
 */
function countingApp() {
  const seen: string[] = [];
  const reads = { r2: 0, batches: 0 };
  const content = new Proxy(env.CONTENT, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (prop === "get")
        return (key: string, options?: R2GetOptions) => {
          reads.r2++;
          return target.get(key, options);
        };
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const db = new Proxy(env.DB, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (prop === "prepare")
        return (query: string) => {
          seen.push(query);
          return target.prepare(query);
        };
      if (prop === "batch")
        return (stmts: D1PreparedStatement[]) => {
          reads.batches++;
          return target.batch(stmts);
        };
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const app = wire({ ...env, DB: db, CONTENT: content });
  const count = async (f: () => Promise<unknown>, match?: RegExp) => {
    seen.length = 0;
    await f();
    return match ? seen.filter((q) => match.test(q)).length : seen.length;
  };
  return { app, count, reads };
}

async function projectWith(units: number) {
  const { id, key } = await newArchive("work");
  const artifacts: unknown[] = [
    {
      id: "decision:a",
      kind: "decision",
      title: "Cache heads",
      content: "Heads stay cached.",
      valid_from: "2024-01-01",
    },
  ];
  for (let i = 0; i < units; i++)
    artifacts.push({
      id: `repo/m${i}.ts`,
      kind: "code_unit",
      title: `m${i}.ts`,
      content: `export function f${i}(x: number): number {\n  return x;\n}\n`,
      valid_from: "2024-01-01",
      edges: [{ type: "implements", target: "decision:a" }],
    });
  for (let i = 0; i < artifacts.length; i += 200) {
    const res = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: artifacts.slice(i, i + 200) }, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const note = await api(
    "POST",
    `/v1/archives/${id}/chunks/decision:a/annotations`,
    { key: "status", value: "committed", at: "2024-01-02" },
    key,
  );
  expect(note.status).toBe(201);
  return id;
}

describe("work per request", () => {
  it("a render reads its modules' signatures in batches, not one read per code unit", async () => {
    const { app, count } = countingApp();
    const statements: number[] = [];
    for (const units of [100, 200]) {
      const id = await projectWith(units);
      const n = await count(async () => {
        const r = await app.project.render(id, { budget_tokens: 200_000 });
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.value.modules).toHaveLength(units);
        expect(r.value.modules[0]?.signatures.map((s) => s.symbol)).toEqual(["f0"]);
        expect(r.value.decisions.map((d) => d.content)).toEqual(["Heads stay cached."]);
      });
      statements.push(n);
    }
    // 100 more code units: a few more IN-list pages (90 ids each), not 100 more reads.
    expect(statements[1] as number, statements.join(" -> ")).toBeLessThan((statements[0] as number) + 10);
  }, 60_000);

  it("an xKG import writes its annotations in multi-row statements", async () => {
    const { app, count } = countingApp();
    const { id } = await newArchive("work");
    const techniques = Array.from({ length: 60 }, (_, i) => ({
      name: `T${i}`,
      description: "Scales x.",
      code: { implementation: `def f${i}(x): return ${i} * x` },
    }));
    const file = JSON.stringify({ paper_title: "A paper", paper_abstract: "About scaling.", techniques });
    let annotated = 0;
    const inserts = await count(async () => {
      const r = await app.imports.file(id, { format: "xkg", name: "a.json" }, file);
      expect(r.ok).toBe(true);
      annotated = r.ok ? (r.value.counts.annotated ?? 0) : 0;
    }, /^insert into "annotations"/i);
    // A paper, 60 techniques and their 60 code chunks: one annotation each, 9 rows per statement.
    expect(annotated).toBe(121);
    expect(inserts).toBe(Math.ceil(121 / 9));
    const again = await app.imports.file(id, { format: "xkg", name: "a.json" }, file);
    expect(again.ok && again.value.counts.annotated).toBe(0);
  }, 60_000);

  it("a /context writes the access log once and reads only the contents its budget can hold", async () => {
    const { app, count, reads } = countingApp();
    const { id, key } = await newArchive("work");
    // 40 notes on one subject, ~1,400 characters each: every one matches the query, and a card
    // of one takes ~200-400 tokens, so 1,200 tokens hold 3-6 of the 24 chunks expanded.
    const artifacts = Array.from({ length: 40 }, (_, i) => ({
      id: `note:${i}`,
      kind: "note",
      title: `Harbour lantern survey ${i}`,
      content: Array.from(
        { length: 12 },
        (_, k) =>
          `In ${1900 + i + k} the harbour lantern survey number ${i} recorded ${k + 3} keepers and ${i * 7 + k} ships near the northern pier.`,
      ).join(" "),
      valid_from: "2024-01-01",
    }));
    const res = await api("POST", `/v1/archives/${id}/ingest`, { artifacts }, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    let cards = 0;
    let overBudget = 0;
    reads.r2 = 0;
    reads.batches = 0;
    const selects = await count(async () => {
      const r = await app.query.context(id, { query: "harbour lantern survey keepers", budget_tokens: 1200 });
      cards = r.cards.length;
      overBudget = r.skipped.filter((x) => x.reason === "over_budget").length;
      expect(r.trace.selected.length).toBeGreaterThanOrEqual(24);
    }, /^select/i);
    expect(cards).toBeGreaterThanOrEqual(2);
    expect(cards + overBudget).toBe(24);
    // Reads stop at the wave in which the budget ran out: at most the cards plus one wave of 6.
    expect(reads.r2).toBeLessThanOrEqual(cards + 6);
    // One read of the archive's embedding space (while the question is embedded: docs/models.md),
    // one of the versions visible (one IN-list of 24 ids), and one batch (one round trip) of
    // multi-row inserts logging the routing and the expansion accesses together.
    expect(selects).toBe(2);
    expect(reads.batches).toBe(1);
  }, 60_000);
});
