import type { VectorIndex, VectorIndexShape, VectorMatch, VectorRecord } from "../../core/ports";

/**
 * Vectorize (production). Archives are isolated by namespace (one per archive id).
 * Limits: topK <= 100 without metadata; mutations are asynchronous (eventually visible). The index's
 * dimension is fixed when it is created (`wrangler vectorize create --dimensions=384`): every
 * namespace takes vectors of that dimension only, read once per isolate by `describe()`.
 */
export class VectorizeIndex implements VectorIndex {
  private dimensions: Promise<number> | null = null;

  constructor(
    private readonly index: Vectorize,
    private readonly label = "the Vectorize index bound as VECTORS",
  ) {}

  async upsert(namespace: string, records: VectorRecord[]): Promise<void> {
    if (records.length === 0) return;
    // Vectorize accepts up to 1000 vectors per upsert call.
    for (let i = 0; i < records.length; i += 1000) {
      await this.index.upsert(
        records.slice(i, i + 1000).map((r) => ({ id: r.id, values: Array.from(r.values), namespace })),
      );
    }
  }

  async query(namespace: string, vector: Float32Array, topK: number): Promise<VectorMatch[]> {
    const res = await this.index.query(Array.from(vector), { topK: Math.min(topK, 100), namespace });
    return res.matches.map((m) => ({ id: m.id, score: m.score }));
  }

  async deleteByIds(_namespace: string, ids: string[]): Promise<void> {
    if (ids.length) await this.index.deleteByIds(ids);
  }

  async shape(): Promise<VectorIndexShape> {
    // A failed describe() is asked again by the next caller.
    this.dimensions ??= this.index.describe().then(
      (info) => info.dimensions,
      (e: unknown) => {
        this.dimensions = null;
        throw e;
      },
    );
    return { dims: await this.dimensions, fixed: true, label: this.label };
  }

  async reset(): Promise<void> {
    throw new Error(
      `${this.label} has a fixed dimension: a model of another dimension needs an index created with that dimension (wrangler vectorize create --dimensions=<EMBEDDING_DIMS>)`,
    );
  }
}
