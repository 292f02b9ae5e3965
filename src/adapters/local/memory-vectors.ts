import type { VectorIndex, VectorMatch, VectorRecord } from "../../core/ports";

/**
 * Exact cosine index: one contiguous Float32Array per namespace, brute-force dot products
 * (vectors are L2-normalised, so dot = cosine). 10k x 384 dims is ~4M multiply-adds, a few ms.
 */
export class ExactCosineSpace {
  private dims = 0;
  private data = new Float32Array(0);
  private ids: string[] = [];
  private readonly index = new Map<string, number>();

  get size(): number {
    return this.ids.length;
  }

  upsert(id: string, values: Float32Array): void {
    if (this.dims === 0) {
      this.dims = values.length;
      this.data = new Float32Array(this.dims * 64);
    }
    if (values.length !== this.dims) throw new RangeError(`vector has ${values.length} dims; index has ${this.dims}`);
    let slot = this.index.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      this.ids.push(id);
      this.index.set(id, slot);
      if ((slot + 1) * this.dims > this.data.length) {
        const grown = new Float32Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
      }
    }
    this.data.set(values, slot * this.dims);
  }

  delete(id: string): void {
    const slot = this.index.get(id);
    if (slot === undefined) return;
    // Swap-remove keeps the matrix dense.
    const last = this.ids.length - 1;
    const lastId = this.ids[last] as string;
    if (slot !== last) {
      this.data.copyWithin(slot * this.dims, last * this.dims, (last + 1) * this.dims);
      this.ids[slot] = lastId;
      this.index.set(lastId, slot);
    }
    this.ids.pop();
    this.index.delete(id);
  }

  query(vector: Float32Array, topK: number): VectorMatch[] {
    const n = this.ids.length;
    if (n === 0 || vector.length !== this.dims) return [];
    const k = Math.min(topK, n);
    // Keep a small sorted top-k (k <= 100) instead of sorting all n scores.
    const best: VectorMatch[] = [];
    const d = this.dims;
    for (let i = 0; i < n; i++) {
      let dot = 0;
      const off = i * d;
      for (let j = 0; j < d; j++) dot += (this.data[off + j] as number) * (vector[j] as number);
      if (best.length < k || dot > (best[best.length - 1] as VectorMatch).score) {
        const m = { id: this.ids[i] as string, score: dot };
        let pos = best.length;
        while (pos > 0 && (best[pos - 1] as VectorMatch).score < dot) pos--;
        best.splice(pos, 0, m);
        if (best.length > k) best.pop();
      }
    }
    return best;
  }

  get(id: string): Float32Array | null {
    const slot = this.index.get(id);
    return slot === undefined ? null : this.data.slice(slot * this.dims, (slot + 1) * this.dims);
  }
}

/** In-process VectorIndex for Node tests and benchmarks. */
export class MemoryVectorIndex implements VectorIndex {
  private readonly spaces = new Map<string, ExactCosineSpace>();

  private space(ns: string): ExactCosineSpace {
    let s = this.spaces.get(ns);
    if (!s) {
      s = new ExactCosineSpace();
      this.spaces.set(ns, s);
    }
    return s;
  }

  async upsert(namespace: string, records: VectorRecord[]): Promise<void> {
    const s = this.space(namespace);
    for (const r of records) s.upsert(r.id, r.values);
  }

  async query(namespace: string, vector: Float32Array, topK: number): Promise<VectorMatch[]> {
    return this.spaces.get(namespace)?.query(vector, Math.min(topK, 100)) ?? [];
  }

  async deleteByIds(namespace: string, ids: string[]): Promise<void> {
    const s = this.spaces.get(namespace);
    if (s) for (const id of ids) s.delete(id);
  }
}
