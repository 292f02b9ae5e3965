import { describe, expect, it } from "vitest";
import type { Embedder } from "../../src/core/ports";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);

/** Embedder contract: dims, unit norm (or zero for empty text), determinism, batch = single, relatedness. */
export function embedderContract(name: string, make: () => Embedder) {
  describe(`Embedder contract: ${name}`, () => {
    it("returns unit vectors of the declared dimension", async () => {
      const e = make();
      const [v] = await e.embed(["Personalized PageRank over a knowledge graph"]);
      expect(v?.length).toBe(e.dims);
      expect(Math.abs(dot(v as Float32Array, v as Float32Array) - 1)).toBeLessThan(1e-4);
    });
    it("embeds empty text to the zero vector", async () => {
      const [v] = await make().embed([""]);
      expect(dot(v as Float32Array, v as Float32Array)).toBe(0);
    });
    it("is deterministic and batch-invariant", async () => {
      const e = make();
      const texts = ["dense passage retrieval", "graph diffusion", "benchmark protocol v2"];
      const batch = await e.embed(texts);
      for (const [i, t] of texts.entries())
        expect([...((await e.embed([t]))[0] as Float32Array)]).toEqual([...(batch[i] as Float32Array)]);
    });
    it("scores related texts above unrelated ones", async () => {
      const [q, rel, unrel] = await make().embed([
        "dense passage retrieval with dual encoders",
        "a dual encoder for dense retrieval of passages",
        "the recipe needs two eggs and flour",
      ]);
      expect(dot(q as Float32Array, rel as Float32Array)).toBeGreaterThan(
        dot(q as Float32Array, unrel as Float32Array) + 0.2,
      );
    });
  });
}
