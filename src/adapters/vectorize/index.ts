import type { VectorIndex, VectorMatch, VectorRecord } from "../../core/ports";

/**
 * Vectorize (production). Archives are isolated by namespace (one per archive id).
 * Limits: topK <= 100 without metadata; mutations are asynchronous (eventually visible).
 */
export class VectorizeIndex implements VectorIndex {
  constructor(private readonly index: Vectorize) {}

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
}
