import { DurableObject } from "cloudflare:workers";
import type { VectorIndex, VectorIndexShape, VectorMatch, VectorRecord } from "../../core/ports";
import { ExactCosineSpace } from "./memory-vectors";

/**
 * Local stand-in for Vectorize (which cannot run in workerd): one SQLite-backed Durable Object per
 * archive holding head embeddings, with an exact in-memory cosine scan. Thin shell over ExactCosineSpace.
 */
export class LocalVectorIndex extends DurableObject<Record<string, never>> {
  private space = new ExactCosineSpace();

  constructor(ctx: DurableObjectState, env: Record<string, never>) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS vectors (id TEXT PRIMARY KEY, v BLOB NOT NULL)");
      for (const row of ctx.storage.sql.exec<{ id: string; v: ArrayBuffer }>("SELECT id, v FROM vectors")) {
        this.space.upsert(row.id, new Float32Array(row.v));
      }
    });
  }

  upsert(records: Array<{ id: string; values: Float32Array }>): number {
    // Checked before anything is written: a batch is stored whole or not at all, here and in SQLite.
    const dims = this.space.dimension || (records[0]?.values.length ?? 0);
    const bad = records.find((r) => r.values.length !== dims);
    if (bad)
      throw new RangeError(
        `a vector of ${bad.values.length} dimensions cannot join an index of ${dims}-dimensional vectors (EMBEDDING_DIMS and the index disagree)`,
      );
    this.ctx.storage.transactionSync(() => {
      for (const r of records) {
        const v = Float32Array.from(r.values);
        this.ctx.storage.sql.exec("INSERT OR REPLACE INTO vectors (id, v) VALUES (?, ?)", r.id, v.buffer);
        this.space.upsert(r.id, v);
      }
    });
    return this.space.size;
  }

  query(vector: Float32Array, topK: number): VectorMatch[] {
    return this.space.query(Float32Array.from(vector), Math.min(topK, 100));
  }

  deleteByIds(ids: string[]): number {
    this.ctx.storage.transactionSync(() => {
      for (const id of ids) {
        this.ctx.storage.sql.exec("DELETE FROM vectors WHERE id = ?", id);
        this.space.delete(id);
      }
    });
    return this.space.size;
  }

  /** The dimension of the vectors held (0: none). */
  dimension(): number {
    return this.space.dimension;
  }

  /** Remove every vector: the next one sets the dimension. */
  reset(): void {
    this.ctx.storage.sql.exec("DELETE FROM vectors");
    this.space = new ExactCosineSpace();
  }
}

/** VectorIndex port over the LocalVectorIndex objects (namespace = archive id). */
export class DoVectorIndex implements VectorIndex {
  constructor(private readonly ns: DurableObjectNamespace<LocalVectorIndex>) {}

  private stub(namespace: string) {
    return this.ns.get(this.ns.idFromName(`vectors:${namespace}`));
  }

  async upsert(namespace: string, records: VectorRecord[]): Promise<void> {
    if (records.length) await this.stub(namespace).upsert(records);
  }

  async query(namespace: string, vector: Float32Array, topK: number): Promise<VectorMatch[]> {
    return this.stub(namespace).query(vector, topK);
  }

  async deleteByIds(namespace: string, ids: string[]): Promise<void> {
    if (ids.length) await this.stub(namespace).deleteByIds(ids);
  }

  async shape(namespace: string): Promise<VectorIndexShape> {
    const dims = await this.stub(namespace).dimension();
    return {
      dims: dims || null,
      fixed: false,
      label: `the local vector index (Durable Object LOCAL_VECTORS, vectors:${namespace})`,
    };
  }

  async reset(namespace: string): Promise<void> {
    await this.stub(namespace).reset();
  }
}
