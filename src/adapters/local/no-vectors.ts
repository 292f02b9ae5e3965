import type { VectorIndex, VectorIndexShape, VectorMatch } from "../../core/ports";

/**
 * VECTOR_INDEX=none: no head embeddings are kept and routing gets no semantic seeds; the lexical,
 * entity, graph and recency experts rank alone. For a local archive whose hashed embedder adds
 * nothing over the lexical expert (docs/quality.md: measured both ways), it saves the vector index's
 * memory and scan.
 */
export class NoVectorIndex implements VectorIndex {
  async upsert(): Promise<void> {}
  async query(): Promise<VectorMatch[]> {
    return [];
  }
  async deleteByIds(): Promise<void> {}
  /** No vector is kept, so none can be of the wrong dimension. */
  async shape(): Promise<VectorIndexShape> {
    return { dims: null, fixed: false, label: "no vector index (VECTOR_INDEX=none)" };
  }
  async reset(): Promise<void> {}
}
