/**
 * Deterministic local embedder ("pg-hashed-tf-v1"): stemmed unigrams (1 + ln tf) and half-weight
 * bigrams, feature-hashed with 2 seeds into signed buckets, L2-normalised. No model, no network.
 * IDF is deliberately not applied: stored head embeddings must not change as the archive grows
 * (IDF would drift with every ingest and silently invalidate the vector index).
 */
import type { Embedder } from "../ports";
import { termsWithBigrams } from "../text/analyze";

function fnv1a(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const SEEDS = [0x9e3779b1, 0x85ebca6b];

export class HashedEmbedder implements Embedder {
  readonly model = "pg-hashed-tf-v1";
  readonly dims: number;

  constructor(opts: { dims?: number } = {}) {
    this.dims = opts.dims ?? 384;
  }

  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dims);
    const { unigrams, bigrams } = termsWithBigrams(text);
    const add = (feats: string[], weight: number) => {
      const tf = new Map<string, number>();
      for (const f of feats) tf.set(f, (tf.get(f) ?? 0) + 1);
      for (const [f, n] of tf) {
        const w = weight * (1 + Math.log(n));
        for (const seed of SEEDS) {
          const h = fnv1a(f, seed);
          // Low bits pick the bucket, the top bit the sign (signed hashing keeps collisions unbiased).
          const sign = h & 0x80000000 ? -1 : 1;
          const b = h % this.dims;
          v[b] = (v[b] as number) + sign * w;
        }
      }
    };
    add(unigrams, 1);
    add(bigrams, 0.5);
    let norm = 0;
    for (const x of v) norm += x * x;
    if (norm > 0) {
      norm = Math.sqrt(norm);
      for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
    }
    return v;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
