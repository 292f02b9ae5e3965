/**
 * Deterministic local embedder ("pg-hashed-tf-v1"): stemmed unigrams weighted 1 + ln(tf) and
 * adjacent-term bigrams at half that weight, feature-hashed into signed buckets and L2-normalised.
 * No model, no network: it backs local development, tests and the fallback path when Workers AI is
 * unavailable, and it is identical in Node and workerd.
 *
 * IDF is deliberately NOT applied: a stored head embedding must not change as the archive grows.
 * IDF weights drift with every ingest, so they would silently invalidate every vector already in
 * the index (and the 32-byte sketches derived from them) without anything being re-embedded.
 */
import type { Embedder } from "../ports";
import { termsWithBigrams } from "../text/analyze";

/** FNV-1a, 32-bit, over UTF-16 code units; the seed is folded into the offset basis. */
function fnv1a(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Two independent hashes per feature: a collision of one feature with another in one bucket is
 * then unlikely to repeat in the second, which roughly halves the collision noise at 384 dims.
 */
const SEEDS = [0x9e3779b1, 0x85ebca6b] as const;

export const HASHED_MODEL = "pg-hashed-tf-v1";

export class HashedEmbedder implements Embedder {
  readonly model = HASHED_MODEL;
  readonly dims: number;

  constructor(opts: { dims?: number } = {}) {
    const dims = opts.dims ?? 384;
    if (!Number.isInteger(dims) || dims < 2) throw new RangeError(`dims must be an integer >= 2, got ${dims}`);
    this.dims = dims;
  }

  embedOne(text: string): Float32Array {
    // Accumulate in float64 so the result does not depend on summation rounding in float32.
    const acc = new Float64Array(this.dims);
    const { unigrams, bigrams } = termsWithBigrams(text);
    this.addFeatures(acc, unigrams, 1);
    this.addFeatures(acc, bigrams, 0.5);
    let norm = 0;
    for (let i = 0; i < acc.length; i++) norm += (acc[i] as number) * (acc[i] as number);
    const v = new Float32Array(this.dims);
    // Empty text (or text made only of stopwords) has no features: the zero vector, not NaNs.
    if (norm === 0) return v;
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < acc.length; i++) v[i] = (acc[i] as number) * inv;
    return v;
  }

  private addFeatures(acc: Float64Array, feats: string[], weight: number): void {
    const tf = new Map<string, number>();
    for (const f of feats) tf.set(f, (tf.get(f) ?? 0) + 1);
    for (const [f, n] of tf) {
      // Sublinear tf: a term repeated 10 times weighs 3.3x, not 10x, so one repeated word cannot
      // dominate a synopsis.
      const w = weight * (1 + Math.log(n));
      for (const seed of SEEDS) {
        const h = fnv1a(f, seed);
        // The low bits pick the bucket, the top bit the sign: signed hashing keeps collisions
        // unbiased (they cancel in expectation instead of inflating similarity).
        const b = h % this.dims;
        acc[b] = (acc[b] as number) + (h & 0x80000000 ? -w : w);
      }
    }
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }
}

/** Cosine similarity; 0 when either vector is zero. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}
