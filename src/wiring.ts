/**
 * Composition root: the only place that reads `env`. Picks an implementation per port:
 * local ones by default (wrangler dev, tests, CI), Workers AI / Vectorize when configured.
 */

import { D1Store } from "./adapters/d1/store";
import type { CapitalChunk } from "./adapters/do/capital";
import { DoVectorIndex, type LocalVectorIndex } from "./adapters/local/do-vectors";
import { R2BlobStore } from "./adapters/r2/blob";
import { VectorizeIndex } from "./adapters/vectorize";
import { WorkersAiEmbedder } from "./adapters/workers-ai/embedder";
import { ExtractiveDistiller } from "./core/distill/extractive";
import { HashedEmbedder } from "./core/embed/hashed";
import type { Embedder, VectorIndex } from "./core/ports";
import { PaperGuru } from "./service";

export interface Env {
  DB: D1Database;
  CONTENT: R2Bucket;
  CAPITAL: DurableObjectNamespace<CapitalChunk>;
  LOCAL_VECTORS: DurableObjectNamespace<LocalVectorIndex>;
  /** Production only. */
  VECTORS?: Vectorize;
  AI?: Ai;
  /** Secret; local default in .dev.vars. */
  ADMIN_KEY?: string;
  EMBEDDER?: string;
  VECTOR_INDEX?: string;
  DISTILLER?: string;
}

export interface AppServices {
  paperguru: PaperGuru;
  adminKey: string | null;
}

function embedder(env: Env): Embedder {
  if (env.EMBEDDER === "workers-ai") {
    if (!env.AI) throw new Error("EMBEDDER=workers-ai needs the AI binding (declared in env.production)");
    return new WorkersAiEmbedder(env.AI);
  }
  return new HashedEmbedder();
}

function vectors(env: Env): VectorIndex {
  if (env.VECTOR_INDEX === "vectorize") {
    if (!env.VECTORS) throw new Error("VECTOR_INDEX=vectorize needs the VECTORS binding (declared in env.production)");
    return new VectorizeIndex(env.VECTORS);
  }
  return new DoVectorIndex(env.LOCAL_VECTORS);
}

export function wire(env: Env): AppServices {
  return {
    paperguru: new PaperGuru({
      store: new D1Store(env.DB),
      blobs: new R2BlobStore(env.CONTENT),
      vectors: vectors(env),
      embedder: embedder(env),
      distiller: new ExtractiveDistiller(),
      capital: env.CAPITAL,
      clock: { now: () => Date.now() },
    }),
    adminKey: env.ADMIN_KEY ?? null,
  };
}
