/**
 * Composition root: the only place that reads `env` (through src/config.ts, once). Picks an
 * implementation per port: local ones by default (wrangler dev, tests, CI), Workers AI / Vectorize
 * when configured. The Durable Object builds its own dependencies (src/adapters/do/capital-object.ts).
 */

import { d1Stores } from "./adapters/d1";
import { DohResolver } from "./adapters/dns/doh";
import { doCapital } from "./adapters/do/capital-port";
import { DoVectorIndex } from "./adapters/local/do-vectors";
import { NoVectorIndex } from "./adapters/local/no-vectors";
import { CHAT_PROVIDERS, EMBEDDER_PROVIDERS, WorkersAiEmbedder } from "./adapters/models";
import { RERANK_PROVIDERS } from "./adapters/models/rerank";
import { R2BlobStore } from "./adapters/r2/blob";
import { VectorizeIndex } from "./adapters/vectorize";
import { createUseCases, type UseCases } from "./app";
import { eventSink } from "./app/events";
import { Kernel } from "./app/kernel";
import type { ExtractMessage, QueueMessage } from "./app/lib/queue";
import { VectorSpaces } from "./app/vector-space";
import { readConfig } from "./config";
import { ExtractiveDistiller } from "./core/distill/extractive";
import { ModelDistiller } from "./core/distill/model";
import { HashedEmbedder } from "./core/embed/hashed";
import { addressGuard, guardedFetch } from "./core/net";
import { PackedBlobStore } from "./core/packs";
import type { BlobStore, Stores, VectorIndex } from "./core/ports";

/**
 * The bindings and vars: `Cloudflare.Env` is generated from wrangler.toml by `npm run types`
 * (worker-configuration.d.ts; a test fails when it is stale; ADMIN_KEY comes from .dev.vars.example),
 * plus the optional secrets, which wrangler.toml does not declare.
 */
export interface Env extends Cloudflare.Env {
  /** Optional secret: GitHub API token for repository sources and push webhooks (5,000 req/h). */
  GITHUB_TOKEN?: string;
  /** Optional: contact address sent as mailto= to OpenAlex and Crossref (their polite pools). */
  CONTACT_EMAIL?: string;
  /** Optional, local development only: comma-separated non-public hosts sources may fetch (e.g. localhost). */
  OUTBOUND_ALLOW_HOSTS?: string;
  /** Optional (docs/models.md): the language model's endpoint, model and key (a secret). */
  LLM_BASE_URL?: string;
  LLM_MODEL?: string;
  LLM_API_KEY?: string;
  LLM_MAX_TOKENS_PER_QUERY?: string;
  /** Optional (EMBEDDER=openai): the embedding endpoint, model, key (a secret) and dimension. */
  EMBEDDING_BASE_URL?: string;
  EMBEDDING_MODEL?: string;
  EMBEDDING_API_KEY?: string;
  EMBEDDING_DIMS?: string;
  /** Optional: the rerank provider (none by default; tei, cohere, jina, vllm) and its endpoint, model and key (a secret). */
  RERANKER?: string;
  RERANK_BASE_URL?: string;
  RERANK_MODEL?: string;
  RERANK_API_KEY?: string;
}

/**
 * Build the application from the bindings: the configuration is validated first (a bad var throws
 * ConfigError naming it), then one adapter per port, the kernel, and the use cases.
 */
/** Ports a caller may wrap before the application is built on them (fault injection in tests). */
export interface WiredPorts {
  forget: Stores["forget"];
  blobs: BlobStore;
  vectors: VectorIndex;
}

export function wire(env: Env, adapt: (p: WiredPorts) => WiredPorts = (p) => p): UseCases {
  const config = readConfig(env);
  const now = () => Date.now();
  const clock = { now };
  const d1 = d1Stores(env.DB);
  const ported = adapt({
    forget: d1.forget,
    blobs: new PackedBlobStore(new R2BlobStore(env.CONTENT)),
    vectors:
      config.vectorIndex === "vectorize"
        ? new VectorizeIndex(env.VECTORS as unknown as Vectorize)
        : config.vectorIndex === "none"
          ? new NoVectorIndex()
          : new DoVectorIndex(env.LOCAL_VECTORS),
  });
  const stores = { ...d1, forget: ported.forget };
  const { blobs, vectors } = ported;
  const queue = {
    send: async (m: QueueMessage) => {
      await env.DELIVERIES.send(m);
    },
  };
  // Looked up per call, not captured: tests replace globalThis.fetch with a mock.
  const direct = (req: Request) => fetch(req);
  // Every outbound request to a source or a subscriber, and every registration of one: its host's
  // DNS answers must be public, through one resolver. Registration keeps its own answer cache, so a
  // name that changes its answers after it was registered is looked up afresh by its first fetch.
  // DNS_RESOLVER=none: names only, at registration as at every fetch.
  const resolver = config.dnsResolver ? new DohResolver(direct, config.dnsResolver) : null;
  const addresses = resolver ? addressGuard(resolver, config.allowHosts) : null;
  const http = resolver ? guardedFetch(direct, addressGuard(resolver, config.allowHosts)) : direct;
  const events = { store: stores.events, queue, http, clock, allowHosts: config.allowHosts, addresses };
  // One model client per isolate, reached through the same outbound guard as sources.
  const llm = config.llm
    ? CHAT_PROVIDERS[config.llm.provider]({
        baseUrl: config.llm.baseUrl ?? undefined,
        model: config.llm.model,
        apiKey: config.llm.apiKey ?? undefined,
        fetch: http,
        ai: env.AI,
        allowHosts: config.allowHosts,
      })
    : null;
  const extractive = new ExtractiveDistiller();
  const distiller =
    llm && config.distiller !== "extractive" ? new ModelDistiller({ model: llm, fallback: extractive }) : extractive;
  const embedder =
    config.embedder === "workers-ai"
      ? new WorkersAiEmbedder(env.AI as Ai)
      : config.embedding
        ? EMBEDDER_PROVIDERS.openai({
            baseUrl: config.embedding.baseUrl,
            model: config.embedding.model,
            apiKey: config.embedding.apiKey ?? undefined,
            dims: config.embedding.dims,
            fetch: http,
            allowHosts: config.allowHosts,
          })
        : new HashedEmbedder();
  const sink = eventSink(events);
  // Extraction at ingest: only with EXTRACTOR naming a provider (then llm is set). Up to 100
  // messages per sendBatch (the Queues limit); an ingest batch holds at most 200 versions.
  const extract =
    llm && config.extractor !== "none"
      ? {
          send: async (messages: ExtractMessage[]) => {
            for (let i = 0; i < messages.length; i += 100)
              await env.DELIVERIES.sendBatch(messages.slice(i, i + 100).map((body) => ({ body })));
          },
        }
      : undefined;
  // wrangler types names a [[vectorize]] binding's type VectorizeIndex (the V1 API); indexes made by
  // `wrangler vectorize create` are V2, typed Vectorize in @cloudflare/workers-types.
  // Archives record the space of their vectors; a model change is detected, never mixed (docs/models.md).
  const spaces = new VectorSpaces({
    store: stores.embedding,
    embedder,
    vectors,
    clock,
    embedderSettings: config.embedding
      ? `EMBEDDER=openai (EMBEDDING_MODEL=${config.embedding.model}, EMBEDDING_DIMS=${config.embedding.dims})`
      : `EMBEDDER=${config.embedder} (${embedder.model}, ${embedder.dims} dims)`,
  });
  // Yields the thread (a zero-delay timer lets workerd take the requests that arrived meanwhile):
  // between slices of an ingest, an import's parse and apply, an export (src/core/pace.ts).
  const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
  const kernel = new Kernel({
    chunks: stores.chunks,
    entities: stores.entities,
    sessions: stores.sessions,
    blobs,
    vectors,
    spaces,
    embedding: stores.embedding,
    embedder,
    distiller,
    modelTokensPerQuery: config.llm?.maxTokensPerQuery,
    capital: doCapital(env.CAPITAL, stores.changes),
    extractions: stores.extractions,
    extract,
    clock,
    events: sink,
    pause,
    pool: { discovery: stores.discovery, annotations: stores.annotations },
  });
  return createUseCases({
    kernel,
    stores,
    pause,
    intake: {
      apply: { kernel, world: stores.world, now, annotations: stores.annotations, pause },
      world: stores.world,
      archives: stores.archives,
      exports: stores.exports,
      blobs,
      queue,
      events: sink,
      http,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      githubToken: config.githubToken,
      readmeModel: llm !== null,
      contactEmail: config.contactEmail,
      allowHosts: config.allowHosts,
      addresses,
      pause,
    },
    events,
    adminKey: config.adminKey,
    clock,
    models: {
      llm,
      extractor: config.extractor !== "none",
      // Off unless RERANKER names a provider; through the same outbound guard as sources.
      reranker: config.rerank
        ? RERANK_PROVIDERS[config.rerank.provider]({
            baseUrl: config.rerank.baseUrl,
            model: config.rerank.model,
            apiKey: config.rerank.apiKey ?? undefined,
            fetch: http,
          })
        : null,
    },
  });
}
