import { describe, expect, it } from "vitest";
import type { VectorIndex } from "../../src/core/ports";

function unit(v: number[]): Float32Array {
  const n = Math.hypot(...v);
  return Float32Array.from(v.map((x) => x / n));
}

/** VectorIndex contract: exact cosine semantics, namespace isolation, upsert replaces, delete removes. */
export function vectorIndexContract(name: string, make: () => VectorIndex) {
  describe(`VectorIndex contract: ${name}`, () => {
    it("ranks by cosine, best first, with scores", async () => {
      const ix = make();
      await ix.upsert("ns-a", [
        { id: "x", values: unit([1, 0, 0, 0]) },
        { id: "y", values: unit([1, 1, 0, 0]) },
        { id: "z", values: unit([0, 0, 1, 0]) },
      ]);
      const res = await ix.query("ns-a", unit([1, 0.1, 0, 0]), 2);
      expect(res.map((r) => r.id)).toEqual(["x", "y"]);
      expect(res[0]?.score).toBeGreaterThan(0.99);
      expect(res[1]?.score).toBeCloseTo(Math.cos(Math.PI / 4 - Math.atan(0.1)), 4);
    });
    it("isolates namespaces", async () => {
      const ix = make();
      await ix.upsert("ns-b", [{ id: "only-b", values: unit([0, 1, 0, 0]) }]);
      await ix.upsert("ns-c", [{ id: "only-c", values: unit([0, 1, 0, 0]) }]);
      const res = await ix.query("ns-b", unit([0, 1, 0, 0]), 10);
      expect(res.map((r) => r.id)).toEqual(["only-b"]);
    });
    it("upsert replaces and delete removes", async () => {
      const ix = make();
      await ix.upsert("ns-d", [
        { id: "p", values: unit([1, 0, 0, 0]) },
        { id: "q", values: unit([0, 1, 0, 0]) },
      ]);
      await ix.upsert("ns-d", [{ id: "p", values: unit([0, 0, 0, 1]) }]);
      expect((await ix.query("ns-d", unit([0, 0, 0, 1]), 1))[0]?.id).toBe("p");
      await ix.deleteByIds("ns-d", ["p"]);
      const res = await ix.query("ns-d", unit([0, 0, 0, 1]), 10);
      expect(res.map((r) => r.id)).toEqual(["q"]);
    });
    it("caps topK at 100 like Vectorize", async () => {
      const ix = make();
      const recs = Array.from({ length: 130 }, (_, i) => ({ id: `v${i}`, values: unit([1, i / 130, 0.5, 0]) }));
      await ix.upsert("ns-e", recs);
      expect((await ix.query("ns-e", unit([1, 0, 0, 0]), 500)).length).toBe(100);
    });
    it("returns nothing for an empty namespace", async () => {
      const ix = make();
      expect(await ix.query("ns-empty", unit([1, 0, 0, 0]), 5)).toEqual([]);
    });
    it("reports a namespace's dimension; a reset empties it for another dimension", async () => {
      const ix = make();
      expect((await ix.shape("ns-f")).dims).toBeNull();
      await ix.upsert("ns-f", [{ id: "a", values: unit([1, 0, 0, 0]) }]);
      const shape = await ix.shape("ns-f");
      expect(shape).toMatchObject({ dims: 4, fixed: false });
      expect(shape.label).not.toBe("");
      // A vector of another dimension is refused, naming the mismatch, while the namespace holds any.
      await expect(ix.upsert("ns-f", [{ id: "b", values: unit([1, 0, 0, 0, 0, 0]) }])).rejects.toThrow(/dimension/);
      await ix.reset("ns-f");
      expect((await ix.shape("ns-f")).dims).toBeNull();
      expect(await ix.query("ns-f", unit([1, 0, 0, 0]), 5)).toEqual([]);
      await ix.upsert("ns-f", [{ id: "b", values: unit([0, 1, 0, 0, 0, 0]) }]);
      expect((await ix.shape("ns-f")).dims).toBe(6);
      expect((await ix.query("ns-f", unit([0, 1, 0, 0, 0, 0]), 5)).map((m) => m.id)).toEqual(["b"]);
      // Deleting every vector frees the dimension too.
      await ix.deleteByIds("ns-f", ["b"]);
      await ix.upsert("ns-f", [{ id: "c", values: unit([1, 1]) }]);
      expect((await ix.shape("ns-f")).dims).toBe(2);
    });
  });
}
