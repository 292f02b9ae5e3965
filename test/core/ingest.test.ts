import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ArtifactInput,
  type ExistingState,
  MAX_SYMBOL_BYTES,
  planIngest,
  prepareBatch,
} from "../../src/core/ingest";
import { emptyState, stateAfter } from "../fixtures/ingest-state";

const sketch = async () => "AAAA";

async function plan(batch: ArtifactInput[], state: ExistingState, now = 1_000) {
  const p = prepareBatch(batch);
  if (!p.ok) throw new Error(p.error.message);
  const r = await planIngest("a", p.value, state, now, sketch);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const artifactArb = fc.record({
  id: fc.constantFrom("arxiv:2405.14831", "doc:a", "doc:b", "sec:x#1"),
  kind: fc.constantFrom("paper" as const, "section" as const),
  title: fc.string({ minLength: 1, maxLength: 20 }),
  content: fc.string({ minLength: 1, maxLength: 200 }),
  entities: fc.array(
    fc.record({ type: fc.constant("method" as const), name: fc.constantFrom("HippoRAG", "DPR", "RAG") }),
    { maxLength: 3 },
  ),
  edges: fc.array(
    fc.record({
      type: fc.constantFrom("cites" as const, "part-of" as const),
      target: fc.constantFrom("doc:c", "doc:d"),
    }),
    { maxLength: 2 },
  ),
});

describe("ingest planning", () => {
  it("property: re-ingesting a batch after it landed plans nothing (idempotent)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(artifactArb, { selector: (a) => a.id, minLength: 1, maxLength: 4 }),
        async (batch) => {
          const first = await plan(batch, emptyState());
          expect(first.versions.length).toBe(batch.length);
          const again = await plan(batch, stateAfter(emptyState(), first), 2_000);
          expect(again.versions).toEqual([]);
          expect(again.ops).toEqual([]);
          expect(again.results.every((r) => r.status === "unchanged")).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("property: successive revisions produce contiguous, non-overlapping version intervals", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 6 }),
        async (contents) => {
          let state = emptyState();
          const intervals: Array<{ v: number; from: number }> = [];
          for (const [i, c] of contents.entries()) {
            const p = await plan([{ id: "doc:a", kind: "note", title: "t", content: c }], state, 1_000 * (i + 1));
            for (const v of p.versions) {
              expect(v.closesVersion).toBe(intervals.length ? (intervals[intervals.length - 1]?.v as number) : 0);
              intervals.push({ v: v.version, from: v.validFrom });
            }
            state = stateAfter(state, p);
          }
          for (let i = 1; i < intervals.length; i++) {
            expect(intervals[i]?.v).toBe((intervals[i - 1]?.v as number) + 1);
            expect(intervals[i]?.from).toBeGreaterThan(intervals[i - 1]?.from as number);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it("grounds papers to themselves and to identifiers in their text", async () => {
    const p = await plan(
      [
        {
          id: "arxiv:2405.14831",
          kind: "paper",
          title: "HippoRAG",
          content: "Builds on doi:10.1145/3397271.3401075 and arXiv:2004.04906v3.",
        },
      ],
      emptyState(),
    );
    expect(p.versions[0]?.entities).toEqual(["arxiv:2004.04906", "arxiv:2405.14831", "doi:10.1145/3397271.3401075"]);
  });

  it("rejects a backdated revision and a self-edge, naming the field", async () => {
    const first = await plan(
      [{ id: "doc:a", kind: "note", title: "t", content: "one", valid_from: 5_000 }],
      emptyState(),
    );
    const p = prepareBatch([{ id: "doc:a", kind: "note", title: "t", content: "two", valid_from: 4_000 }]);
    if (!p.ok) throw new Error("prepare");
    const r = await planIngest("a", p.value, stateAfter(emptyState(), first), 6_000, sketch);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe("artifacts.0.valid_from");
    const self = prepareBatch([
      { id: "doc:a", kind: "note", title: "t", content: "x", edges: [{ type: "cites", target: "doc:a" }] },
    ]);
    expect(self.ok).toBe(false);
    if (!self.ok) expect(self.error.field).toBe("artifacts.0.edges.0.target");
  });

  it("keeps a generated module's first declarations, and refuses metadata one stored row cannot hold", async () => {
    const lines = Array.from(
      { length: 16_000 },
      (_, i) => `export function handler${i}(req: Request): Response${i} {}`,
    );
    const big = await plan(
      [{ id: "gh:o/r/src/gen.ts", kind: "code_unit", title: "gen.ts", content: lines.join("\n") }],
      emptyState(),
    );
    const symbols = big.versions[0]?.symbols ?? [];
    expect(symbols.length).toBeGreaterThan(1000);
    expect(symbols.length).toBeLessThan(16_000);
    expect(JSON.stringify(symbols).length).toBeLessThanOrEqual(MAX_SYMBOL_BYTES);
    expect(symbols[0]?.name).toBe("handler0");

    const edges = Array.from({ length: 500 }, (_, i) => ({
      type: "cites" as const,
      target: `doc:${i}-${"t".repeat(480)}`,
      context: "c".repeat(1000),
    }));
    const relations = Array.from({ length: 500 }, (_, i) => ({
      subject: `subject ${i % 100}`,
      predicate: `${i} ${"p".repeat(280)}`,
      object: `object ${i % 100}`,
    }));
    const p = prepareBatch([{ id: "doc:wide", kind: "note", title: "t", content: "x", edges, relations }]);
    if (!p.ok) throw new Error(p.error.message);
    const r = await planIngest("a", p.value, emptyState(), 1_000, sketch);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe("too_large");
      expect(r.error.field).toBe("artifacts.0.edges");
    }
  });
});
