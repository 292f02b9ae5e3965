/**
 * Composition root: the only place that reads `env`. Picks an implementation per port:
 * local ones by default (wrangler dev, tests, CI), Workers AI / Vectorize when configured.
 */

import { D1Store } from "./adapters/d1/store";
import { WorldStore } from "./adapters/d1/world-store";
import type { CapitalChunk } from "./adapters/do/capital";
import { DoVectorIndex, type LocalVectorIndex } from "./adapters/local/do-vectors";
import { R2BlobStore } from "./adapters/r2/blob";
import { VectorizeIndex } from "./adapters/vectorize";
import { WorkersAiEmbedder } from "./adapters/workers-ai/embedder";
import type { DeliveryMessage, FeedDeps } from "./app/feeds/deps";
import { PaperGuru } from "./app/kernel";
import { ExtractiveDistiller } from "./core/distill/extractive";
import { HashedEmbedder } from "./core/embed/hashed";
import type { Embedder, VectorIndex } from "./core/ports";

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
  /** Webhook deliveries: the receiver enqueues, the queue consumer ingests (with retries). */
  DELIVERIES: Queue<DeliveryMessage>;
  /** Optional secret: GitHub API token for repository sources and push webhooks (5,000 req/h). */
  GITHUB_TOKEN?: string;
  /** Optional: contact address sent as mailto= to OpenAlex and Crossref (their polite pools). */
  CONTACT_EMAIL?: string;
}

export interface AppServices {
  paperguru: PaperGuru;
  feeds: FeedDeps;
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
  const blobs = new R2BlobStore(env.CONTENT);
  const paperguru = new PaperGuru({
    store: new D1Store(env.DB),
    blobs,
    vectors: vectors(env),
    embedder: embedder(env),
    distiller: new ExtractiveDistiller(),
    capital: env.CAPITAL,
    clock: { now: () => Date.now() },
  });
  const world = new WorldStore(env.DB);
  return {
    paperguru,
    feeds: {
      apply: { pg: paperguru, world, now: () => Date.now() },
      world,
      blobs,
      queue: {
        send: async (m) => {
          await env.DELIVERIES.send(m);
        },
      },
      // Looked up per call, not captured: tests replace globalThis.fetch with a mock.
      http: (req) => fetch(req),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      githubToken: env.GITHUB_TOKEN ?? null,
      contactEmail: env.CONTACT_EMAIL ?? null,
    },
    adminKey: env.ADMIN_KEY ?? null,
  };
}
