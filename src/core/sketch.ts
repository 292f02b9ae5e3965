/**
 * SimHash sketches of head embeddings. The capital chunk keeps 32 bytes per head instead of a
 * 384-dim float vector (1,536 bytes), so p_sem can be estimated for candidates that came from the
 * graph or the entity index rather than from the vector index. With 256 random hyperplanes the
 * angle estimate has standard deviation ~ pi * sqrt(p(1-p)/256) <= 0.1 rad.
 */

export const SKETCH_BITS = 256;
export const SKETCH_BYTES = SKETCH_BITS / 8;

// Deterministic hyperplanes (xorshift32 seeded per dimension count) so every isolate agrees.
const planeCache = new Map<number, Float32Array>();
function planes(dims: number): Float32Array {
  let p = planeCache.get(dims);
  if (p) return p;
  p = new Float32Array(SKETCH_BITS * dims);
  let x = 0x9e3779b9 ^ dims;
  for (let i = 0; i < p.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    // Sign of a symmetric variable is all SimHash needs; uniform(-1,1) is good enough here.
    p[i] = ((x >>> 0) / 0xffffffff) * 2 - 1;
  }
  planeCache.set(dims, p);
  return p;
}

export function simhash(vec: Float32Array): Uint8Array {
  const dims = vec.length;
  const p = planes(dims);
  const out = new Uint8Array(SKETCH_BYTES);
  // Zero components add nothing to a dot product (the sum stays bit-identical), and a hashed head
  // embedding has only its features' buckets set, so the 256 dot products run over those alone.
  const nz: number[] = [];
  for (let d = 0; d < dims; d++) if (vec[d] !== 0) nz.push(d);
  const vals = nz.map((d) => vec[d] as number);
  for (let b = 0; b < SKETCH_BITS; b++) {
    let dot = 0;
    const off = b * dims;
    for (let k = 0; k < nz.length; k++) dot += (p[off + (nz[k] as number)] as number) * (vals[k] as number);
    if (dot >= 0) out[b >> 3] = (out[b >> 3] as number) | (1 << (b & 7));
  }
  return out;
}

const POPCOUNT = new Uint8Array(256);
for (let i = 0; i < 256; i++) POPCOUNT[i] = (i & 1) + (POPCOUNT[i >> 1] as number);

/** Estimated cosine from two sketches (a, b may be views into a larger buffer). */
export function sketchCosine(a: Uint8Array, b: Uint8Array): number {
  let ham = 0;
  for (let i = 0; i < SKETCH_BYTES; i++) ham += POPCOUNT[((a[i] as number) ^ (b[i] as number)) & 0xff] as number;
  return Math.cos((Math.PI * ham) / SKETCH_BITS);
}

export function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

export function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
