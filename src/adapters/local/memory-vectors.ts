import type { VectorIndex, VectorIndexShape, VectorMatch, VectorRecord } from "../../core/ports";

/** Vectors per block: a block's slice of the score accumulator (8 KiB) stays in the L1 cache. */
const BLOCK = 1024;

/**
 * Exact cosine index (vectors are L2-normalised, so dot = cosine), stored dimension-major in blocks
 * of 1,024 vectors: block b holds, for each dimension j, the j-th coordinates of its vectors side by
 * side. A query then touches only the dimensions where it is non-zero: a hashed-embedder question
 * ("Where was X born ...", ~7 features x 2 hashes) has ~14 of 384, so a 100k-vector scan is ~1.4M
 * multiply-adds instead of 38M; a dense query (a model's embedding) costs what a full scan costs.
 * Scores are bit-identical to a row-by-row dot product: each vector's sum adds the same products in
 * the same dimension order, and the skipped ones are zeros.
 */
export class ExactCosineSpace {
  private dims = 0;
  private blocks: Float32Array[] = [];
  private ids: string[] = [];
  private readonly index = new Map<string, number>();
  /** Multiply-adds done by the last query (non-zero query dimensions x vectors). */
  lastWork = 0;

  get size(): number {
    return this.ids.length;
  }

  /** The dimension of the vectors held; 0 while empty (the next vector sets it). */
  get dimension(): number {
    return this.ids.length === 0 ? 0 : this.dims;
  }

  private write(slot: number, values: Float32Array): void {
    const blk = this.blocks[Math.floor(slot / BLOCK)] as Float32Array;
    const t = slot % BLOCK;
    for (let j = 0; j < this.dims; j++) blk[j * BLOCK + t] = values[j] as number;
  }

  upsert(id: string, values: Float32Array): void {
    // An empty space takes the dimension of its next vector (after a reset, or every vector deleted).
    if (this.ids.length === 0 && values.length !== this.dims) {
      this.dims = values.length;
      this.blocks = [];
    }
    if (values.length !== this.dims)
      throw new RangeError(
        `a vector of ${values.length} dimensions cannot join an index of ${this.dims}-dimensional vectors (EMBEDDING_DIMS and the index disagree)`,
      );
    let slot = this.index.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      this.ids.push(id);
      this.index.set(id, slot);
      if (slot === this.blocks.length * BLOCK) this.blocks.push(new Float32Array(this.dims * BLOCK));
    }
    this.write(slot, values);
  }

  delete(id: string): void {
    const slot = this.index.get(id);
    if (slot === undefined) return;
    // Swap-remove keeps the blocks dense.
    const last = this.ids.length - 1;
    const lastId = this.ids[last] as string;
    if (slot !== last) {
      this.write(slot, this.get(lastId) as Float32Array);
      this.ids[slot] = lastId;
      this.index.set(lastId, slot);
    }
    this.ids.pop();
    this.index.delete(id);
    if (this.blocks.length * BLOCK - this.ids.length >= BLOCK) this.blocks.pop();
  }

  query(vector: Float32Array, topK: number): VectorMatch[] {
    const n = this.ids.length;
    this.lastWork = 0;
    if (n === 0 || vector.length !== this.dims) return [];
    const k = Math.min(topK, n);
    const nz: number[] = [];
    for (let j = 0; j < this.dims; j++) if ((vector[j] as number) !== 0) nz.push(j);
    const acc = new Float64Array(BLOCK);
    // Keep a small sorted top-k (k <= 100) instead of sorting all n scores; vectors in slot order,
    // so ties keep the earlier slot first.
    const best: VectorMatch[] = [];
    for (let b = 0; b * BLOCK < n; b++) {
      const blk = this.blocks[b] as Float32Array;
      const m = Math.min(BLOCK, n - b * BLOCK);
      acc.fill(0);
      for (const j of nz) {
        const q = vector[j] as number;
        const base = j * BLOCK;
        for (let t = 0; t < m; t++) acc[t] = (acc[t] as number) + (blk[base + t] as number) * q;
      }
      for (let t = 0; t < m; t++) {
        const dot = acc[t] as number;
        if (best.length < k || dot > (best[best.length - 1] as VectorMatch).score) {
          const match = { id: this.ids[b * BLOCK + t] as string, score: dot };
          let pos = best.length;
          while (pos > 0 && (best[pos - 1] as VectorMatch).score < dot) pos--;
          best.splice(pos, 0, match);
          if (best.length > k) best.pop();
        }
      }
    }
    this.lastWork = nz.length * n;
    return best;
  }

  get(id: string): Float32Array | null {
    const slot = this.index.get(id);
    if (slot === undefined) return null;
    const blk = this.blocks[Math.floor(slot / BLOCK)] as Float32Array;
    const t = slot % BLOCK;
    const out = new Float32Array(this.dims);
    for (let j = 0; j < this.dims; j++) out[j] = blk[j * BLOCK + t] as number;
    return out;
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

  async shape(namespace: string): Promise<VectorIndexShape> {
    const dims = this.spaces.get(namespace)?.dimension ?? 0;
    return { dims: dims || null, fixed: false, label: "the in-process vector index" };
  }

  async reset(namespace: string): Promise<void> {
    this.spaces.delete(namespace);
  }
}
