/**
 * Work of the local exact vector index, counted in multiply-adds (not timed): a query touches only
 * its non-zero dimensions, and its answer equals a row-by-row scan (same ids, same order, same
 * scores), across growth past a block, replacements and deletions.
 */
import { describe, expect, it } from "vitest";
import { ExactCosineSpace } from "../../src/adapters/local/memory-vectors";
import { HashedEmbedder } from "../../src/core/embed/hashed";
import type { VectorMatch } from "../../src/core/ports";

/** The reference: every vector's full dot product, best first, ties in insertion order. */
function rowScan(vectors: Map<string, Float32Array>, q: Float32Array, k: number): VectorMatch[] {
  const all = [...vectors].map(([id, v], i) => {
    let dot = 0;
    for (let j = 0; j < v.length; j++) dot += (v[j] as number) * (q[j] as number);
    return { id, score: dot, i };
  });
  all.sort((a, b) => b.score - a.score || a.i - b.i);
  return all.slice(0, k).map(({ id, score }) => ({ id, score }));
}

const WORDS = "harbour orchard lantern archive meridian garden frontier glass winter iron golden distant".split(" ");
const PLACES = "Lisbon Bergen Kyoto Ghent Trieste Porto Leiden Cork Uppsala Bologna".split(" ");

function passage(i: number): string {
  const w = (k: number) => WORDS[(i * 7 + k * 3) % WORDS.length];
  return `${w(0)} ${w(1)} of ${PLACES[i % PLACES.length]}, founded in ${1000 + i} with the ${w(2)} ${w(3)} society`;
}

describe("exact vector index work", () => {
  it("a sparse query does (non-zero dimensions) x (vectors) multiply-adds, not 384 x vectors", () => {
    const e = new HashedEmbedder();
    const work: number[] = [];
    for (const n of [1500, 3000]) {
      const space = new ExactCosineSpace();
      for (let i = 0; i < n; i++) space.upsert(`p${i}`, e.embedOne(passage(i)));
      const q = e.embedOne("Where is the golden lantern of Kyoto?");
      const nonZero = q.filter((x) => x !== 0).length;
      expect(nonZero).toBeLessThan(40);
      expect(space.query(q, 100)).toHaveLength(100);
      expect(space.lastWork).toBe(nonZero * n);
      work.push(space.lastWork);
    }
    expect(work[1]).toBe(2 * (work[0] as number));
  });

  it("answers exactly as a row-by-row scan, across blocks, replacements and deletions", () => {
    const e = new HashedEmbedder();
    const space = new ExactCosineSpace();
    const ref = new Map<string, Float32Array>();
    const put = (id: string, text: string) => {
      const v = e.embedOne(text);
      space.upsert(id, v);
      ref.set(id, v);
    };
    for (let i = 0; i < 2600; i++) put(`p${i}`, passage(i));
    for (let i = 0; i < 300; i++) put(`p${i * 5}`, passage(i + 9000));
    // Deletions swap the last vector into the freed slot; the reference keeps insertion order, so
    // compare as sets of (id, score) plus the score order.
    for (let i = 0; i < 700; i++) {
      space.delete(`p${i * 3}`);
      ref.delete(`p${i * 3}`);
    }
    expect(space.size).toBe(ref.size);
    for (const text of ["golden lantern Kyoto", "winter archive society 1850", "Where is the iron garden?"]) {
      const q = e.embedOne(text);
      const got = space.query(q, 100);
      const want = rowScan(ref, q, 100);
      expect(got.map((m) => m.score)).toEqual(want.map((m) => m.score));
      // Tied scores may list their ids in another order (slot order differs after deletes), and
      // which of those tied with the 100th make the cut may differ.
      const last = want[want.length - 1]?.score;
      const keys = (ms: VectorMatch[]) =>
        ms
          .filter((m) => m.score !== last)
          .map((m) => `${m.score}:${m.id}`)
          .sort();
      expect(keys(got)).toEqual(keys(want));
      expect(space.get("p1")).toEqual(ref.get("p1"));
    }
  });
});
