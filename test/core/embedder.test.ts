import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cosine, HashedEmbedder } from "../../src/core/embed/hashed";
import { embedderContract } from "../contracts/embedder.contract";

embedderContract("hashed TF (local)", () => new HashedEmbedder());
embedderContract("hashed TF, 64 dims", () => new HashedEmbedder({ dims: 64 }));

describe("HashedEmbedder", () => {
  const e = new HashedEmbedder();

  it("declares its model and dims", () => {
    expect(e.model).toBe("pg-hashed-tf-v1");
    expect(e.dims).toBe(384);
    expect(new HashedEmbedder({ dims: 128 }).dims).toBe(128);
    expect(() => new HashedEmbedder({ dims: 0 })).toThrow(RangeError);
  });

  it("treats inflections alike and ignores stopwords and case", async () => {
    const [a, b, c] = await e.embed(["Retrieving graphs", "the retrieval of a graph", "STOPWORDS only: the of a"]);
    expect(cosine(a as Float32Array, b as Float32Array)).toBeGreaterThan(0.99);
    // "stopwords" and "only" survive; it is not the zero vector, and unrelated to the others.
    expect(cosine(a as Float32Array, c as Float32Array)).toBeLessThan(0.3);
    const [z] = await e.embed(["the of a an"]);
    expect([...(z as Float32Array)].every((x) => x === 0)).toBe(true);
  });

  it("does not weigh a repeated term linearly (1 + ln tf)", async () => {
    const [one, many, other] = await e.embed(["graph memory", "graph graph graph graph graph memory", "memory"]);
    // With linear tf, "memory" would nearly vanish from `many` (cosine with "memory" 1/sqrt(26+...)).
    expect(cosine(many as Float32Array, other as Float32Array)).toBeGreaterThan(0.25);
    expect(cosine(one as Float32Array, many as Float32Array)).toBeGreaterThan(0.8);
  });

  it("property: unit norm or zero, finite, deterministic for arbitrary unicode", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme", maxLength: 200 }), async (s) => {
        const [v] = await e.embed([s]);
        const [w] = await e.embed([s]);
        const n = Math.sqrt((v as Float32Array).reduce((acc, x) => acc + x * x, 0));
        expect(n === 0 || Math.abs(n - 1) < 1e-4).toBe(true);
        expect([...(v as Float32Array)]).toEqual([...(w as Float32Array)]);
      }),
      { numRuns: 200 },
    );
  });

  it("cosine is 0 against a zero vector and 1 against itself", () => {
    const v = e.embedOne("graph retrieval");
    expect(cosine(v, new Float32Array(v.length))).toBe(0);
    expect(cosine(v, v)).toBeCloseTo(1, 5);
  });
});
