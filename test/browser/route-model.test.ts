/**
 * The route graph's model without a browser (src/explorer/route-model.ts is pure): for any choice
 * of experts, edge types, rejected steps and cap over the 142-chunk synthetic route, the cap holds,
 * shown + hidden = all chunks, nothing of an unchecked expert or edge type is left, and every chunk
 * drawn in the layers is reached by a drawn edge.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EXPERTS, filterModel, LABEL_MAX, routeModel } from "../../src/explorer/route-model";
import { EDGE_TYPES, syntheticRoute } from "./route-fixture";

const { route } = syntheticRoute();
const model = routeModel(route, route.trace);

describe("route model", () => {
  it("has one node per chunk, mention, entity and the query, and one edge per step", () => {
    expect(model.chunks).toBe(142);
    expect(model.nodes.length).toBe(142 + 3 + 3 + 1);
    expect(model.edges.filter((e) => e.role === "step").length).toBe(route.trace.router_steps.length);
    expect([...model.edgeTypes.keys()].sort()).toEqual([...EDGE_TYPES].sort());
    // Lead experts: a seed's reason (4 semantic, 3 lexical, 9 symbolic through entities, 2 recent);
    // a candidate's strongest scaled score (each fourth of them semantic: 7 of the 30 that are not
    // seeds); step targets and loose chunks that are not candidates: graph. Recency, the same
    // 0.05 for every candidate, leads no candidate.
    expect(model.experts.get("sem")).toBe(4 + 7);
    expect(model.experts.get("rec")).toBe(2);
    expect(model.experts.get("graph")).toBeGreaterThan(90);
  });

  it("all filters on and no cap: everything shown, nothing loose but the chunks no step reaches", () => {
    const v = filterModel(model, {
      experts: new Set(EXPERTS),
      edgeTypes: new Set(EDGE_TYPES),
      rejected: true,
      cap: Number.POSITIVE_INFINITY,
    });
    expect(v.shown).toBe(142);
    expect(v.hidden).toBe(0);
    expect([...v.loose].sort()).toEqual(Array.from({ length: 10 }, (_, j) => `c:note:diffused-${j}`).sort());
  });

  it("holds its invariants under any filter and cap", () => {
    fc.assert(
      fc.property(
        fc.subarray([...EXPERTS]),
        fc.subarray([...EDGE_TYPES]),
        fc.boolean(),
        fc.integer({ min: 0, max: 160 }),
        (experts, types, rejected, cap) => {
          const v = filterModel(model, { experts: new Set(experts), edgeTypes: new Set(types), rejected, cap });
          const chunks = v.nodes.filter((n) => n.kind === "chunk");
          expect(chunks.length).toBe(v.shown);
          expect(v.shown).toBeLessThanOrEqual(cap);
          expect(v.shown + v.hidden).toBe(142);
          for (const n of chunks) expect(experts).toContain(n.expert);
          for (const e of v.edges)
            if (e.role === "step") {
              expect(types).toContain(e.type);
              if (!rejected) expect(e.accepted).toBe(true);
            }
          const targets = new Set(v.edges.map((e) => e.target));
          for (const n of chunks) expect(targets.has(n.id) || v.loose.has(n.id)).toBe(true);
          // A loose chunk is one no step reaches at all (diffusion mass only).
          for (const id of v.loose) expect(id.startsWith("c:note:diffused-")).toBe(true);
          expect(chunks.filter((n) => v.labelled.has(n.id)).length).toBeLessThanOrEqual(LABEL_MAX);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("keeps a chunk with the path that reaches it: a heavy depth-2 chunk brings its depth-1 parent", () => {
    const v = filterModel(model, {
      experts: new Set(EXPERTS),
      edgeTypes: new Set(EDGE_TYPES),
      rejected: true,
      cap: 20,
    });
    const ids = new Set(v.nodes.map((n) => n.id));
    const deep = route.trace.router_steps.slice(-4);
    // 18 seeds, then the first heavy depth-2 chunk with its parent: 20; the next would make 22.
    expect(ids.has(`c:${deep[0]?.to}`)).toBe(true);
    expect(ids.has(`c:${deep[0]?.from}`)).toBe(true);
    expect(v.shown).toBe(20);
    // With 19 that path does not fit: it is skipped for a lighter chunk whose seed is already in.
    const w = filterModel(model, {
      experts: new Set(EXPERTS),
      edgeTypes: new Set(EDGE_TYPES),
      rejected: true,
      cap: 19,
    });
    expect(w.shown).toBe(19);
    expect(w.nodes.some((n) => n.id === `c:${deep[0]?.to}`)).toBe(false);
  });

  it("keeps the heaviest: with a cap of 5 the five shown are the five heaviest reachable chunks", () => {
    const v = filterModel(model, {
      experts: new Set(EXPERTS),
      edgeTypes: new Set(EDGE_TYPES),
      rejected: true,
      cap: 5,
    });
    const shown = v.nodes.filter((n) => n.kind === "chunk").map((n) => n.chunk);
    const heaviest = [...route.trace.diffusion.mass]
      .sort((a, b) => b.mass - a.mass)
      .slice(0, 5)
      .map((m) => m.chunk);
    expect(shown.sort()).toEqual(heaviest.sort());
  });
});
