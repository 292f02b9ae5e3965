/** Workers AI embeddings over the `AI` binding (production): `ai.run(model, {text})`, answer in `data`. */
import type { Embedder } from "../../core/ports";
import type { AiRunner } from "./workers-ai";

/** Workers AI embeddings (production): bge-small-en-v1.5, 384 dims, matching the Vectorize index. */
export class WorkersAiEmbedder implements Embedder {
  readonly model = "@cf/baai/bge-small-en-v1.5";
  readonly dims = 384;
  constructor(private readonly ai: AiRunner) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    // The model accepts batches of up to 100 texts.
    for (let i = 0; i < texts.length; i += 100) {
      const res = (await this.ai.run(this.model, { text: texts.slice(i, i + 100) })) as { data: number[][] };
      for (const v of res.data) {
        const f = Float32Array.from(v);
        let n = 0;
        for (const x of f) n += x * x;
        n = Math.sqrt(n) || 1;
        for (let j = 0; j < f.length; j++) f[j] = (f[j] as number) / n;
        out.push(f);
      }
    }
    return out;
  }
}
