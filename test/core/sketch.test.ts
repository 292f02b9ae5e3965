import { describe, expect, it } from "vitest";
import { HashedEmbedder } from "../../src/core/embed/hashed";
import { simhash, toBase64 } from "../../src/core/sketch";

/**
 * Head sketches travel in the change log (head.upsert) and in snapshots, so a sketch must never
 * change for the same embedding: these values were computed by the dense 256 x 384 loop.
 */
describe("simhash", () => {
  const e = new HashedEmbedder();
  it("gives the pinned sketches of hashed head embeddings (33 and 19 non-zero dims) and of the zero vector", () => {
    expect(
      toBase64(simhash(e.embedOne("HippoRAG. Neurobiologically inspired long-term memory for large language models."))),
    ).toBe("m1jvEXQ4Sd2mZ2Z4dyaCnZlOWY6RqNPjU1z5W2m8Lfw=");
    expect(toBase64(simhash(e.embedOne("Margaret Holloway founded the Lisbon Conservatory of Music in 1891.")))).toBe(
      "fR+Rudkq4a5pIkA2YQPEcDxxJ4GvGPDgnqb/hT0kzLQ=",
    );
    expect(toBase64(simhash(e.embedOne("")))).toBe("//////////////////////////////////////////8=");
  });

  it("gives the pinned sketch of a dense vector", () => {
    const dense = Float32Array.from({ length: 384 }, (_, i) => Math.cos(i * 0.37));
    expect(toBase64(simhash(dense))).toBe("51YtlQRSUd+jUu8RGb0OvlfxytYZteIG8MP3PBEH1Cc=");
  });
});
