import { describe, expect, it } from "vitest";
import type { Embedder } from "../../src/core/ports";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);

/**
 * Embedder contract, run against every Embedder implementation: declared dimension, unit L2 norm
 * (zero vector for empty text), determinism across calls and instances, batch = single, and related
 * texts scoring above unrelated ones.
 */
export function embedderContract(name: string, make: () => Embedder) {
  describe(`Embedder contract: ${name}`, () => {
    const texts = [
      "Personalized PageRank over a knowledge graph",
      "dense passage retrieval",
      "graph diffusion",
      "benchmark protocol v2",
      "检索增强生成 🧠",
    ];

    it("returns one vector of the declared dimension per text", async () => {
      const e = make();
      expect(e.model.length).toBeGreaterThan(0);
      const vs = await e.embed(texts);
      expect(vs.length).toBe(texts.length);
      for (const v of vs) {
        expect(v).toBeInstanceOf(Float32Array);
        expect(v.length).toBe(e.dims);
      }
      expect(await e.embed([])).toEqual([]);
    });

    it("returns L2-normalised vectors", async () => {
      for (const v of await make().embed(texts)) {
        expect(Math.abs(Math.sqrt(dot(v, v)) - 1)).toBeLessThan(1e-4);
        expect(v.every(Number.isFinite)).toBe(true);
      }
    });

    it("embeds empty text to the zero vector", async () => {
      const [v] = await make().embed([""]);
      expect(v?.length).toBe(make().dims);
      expect(dot(v as Float32Array, v as Float32Array)).toBe(0);
    });

    it("is deterministic across calls and instances, and batch-invariant", async () => {
      const a = make();
      const batch = await a.embed(texts);
      const again = await make().embed(texts);
      for (const [i, t] of texts.entries()) {
        const [single] = await a.embed([t]);
        expect([...(single as Float32Array)]).toEqual([...(batch[i] as Float32Array)]);
        expect([...(again[i] as Float32Array)]).toEqual([...(batch[i] as Float32Array)]);
      }
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
