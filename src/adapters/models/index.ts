/**
 * Model adapters: one ChatModel per provider and one Embedder per provider (Workers AI, OpenAI-compatible),
 * built by name from one options object. The tables are exhaustive over the provider names, so a name
 * added to CHAT_PROVIDER_NAMES or EMBEDDER_PROVIDER_NAMES without a factory does not compile; src/config.ts
 * accepts exactly these names.
 */
import { urlRefusal } from "../../core/net";
import type { ChatModel, Embedder, HttpFetch, ModelLimits } from "../../core/ports";
import { ANTHROPIC_BASE_URL, AnthropicChat } from "./anthropic";
import type { Sleep } from "./http";
import { OpenAiChat } from "./openai";
import { OpenAiEmbedder } from "./openai-embedder";
import { type AiRunner, WorkersAiChat } from "./workers-ai";
import { WorkersAiEmbedder } from "./workers-ai-embedder";

export { ANTHROPIC_BASE_URL, ANTHROPIC_VERSION, AnthropicChat, type AnthropicChatOptions } from "./anthropic";
export {
  DEFAULT_MODEL_LIMITS,
  estimateInputTokens,
  type LoopDeps,
  realSleep,
  resolveLimits,
  type Sleep,
  withRetries,
} from "./http";
export { parseJsonAnswer } from "./json";
export { OpenAiChat, type OpenAiChatOptions } from "./openai";
export { EMBED_BATCH, OpenAiEmbedder, type OpenAiEmbedderOptions } from "./openai-embedder";
export { type AiRunner, WorkersAiChat, type WorkersAiChatOptions } from "./workers-ai";
export { WorkersAiEmbedder } from "./workers-ai-embedder";

/** What every factory takes; each uses the fields its provider needs. */
export interface ModelOptions {
  /** The endpoint (HTTP providers). Anthropic defaults to https://api.anthropic.com/v1. */
  baseUrl?: string | undefined;
  model: string;
  apiKey?: string | undefined;
  /** Outbound HTTP (HTTP providers). */
  fetch?: HttpFetch | undefined;
  limits?: Partial<ModelLimits> | undefined;
  sleep?: Sleep | undefined;
  /** The Workers AI binding (workers-ai chat and embedder). */
  ai?: AiRunner | undefined;
  /**
   * Hosts a base URL may name although they are not public https hosts (OUTBOUND_ALLOW_HOSTS:
   * a local vLLM or Ollama, the mock). Every other base URL must pass core/net's urlRefusal.
   */
  allowHosts?: readonly string[] | undefined;
}

export interface EmbedderOptions extends ModelOptions {
  dims: number;
}

export const CHAT_PROVIDER_NAMES = ["openai", "anthropic", "workers-ai"] as const;
export type ChatProvider = (typeof CHAT_PROVIDER_NAMES)[number];

export const EMBEDDER_PROVIDER_NAMES = ["workers-ai", "openai"] as const;
export type EmbedderProvider = (typeof EMBEDDER_PROVIDER_NAMES)[number];

/** The base URL, checked against the outbound rules; throws an Error naming the provider otherwise. */
function checkedUrl(provider: string, o: ModelOptions, fallback?: string): string {
  const url = o.baseUrl ?? fallback;
  if (!url) throw new Error(`model provider ${provider} needs a base URL`);
  const why = urlRefusal(url, { allowHosts: o.allowHosts ?? [] });
  if (why) throw new Error(`model provider ${provider}: base URL ${url} ${why}`);
  return url;
}

function needFetch(provider: string, o: ModelOptions): HttpFetch {
  if (!o.fetch) throw new Error(`model provider ${provider} needs a fetch`);
  return o.fetch;
}

export const CHAT_PROVIDERS: { readonly [P in ChatProvider]: (o: ModelOptions) => ChatModel } = {
  openai: (o) =>
    new OpenAiChat({
      baseUrl: checkedUrl("openai", o),
      model: o.model,
      apiKey: o.apiKey,
      fetch: needFetch("openai", o),
      limits: o.limits,
      sleep: o.sleep,
    }),
  anthropic: (o) =>
    new AnthropicChat({
      baseUrl: checkedUrl("anthropic", o, ANTHROPIC_BASE_URL),
      model: o.model,
      apiKey: o.apiKey,
      fetch: needFetch("anthropic", o),
      limits: o.limits,
      sleep: o.sleep,
    }),
  "workers-ai": (o) => {
    if (!o.ai) throw new Error("model provider workers-ai needs the AI binding");
    return new WorkersAiChat({ ai: o.ai, model: o.model, limits: o.limits, sleep: o.sleep });
  },
};

/** What the workers-ai embedder takes: the binding only (its model and 384 dims are fixed). */
export type WorkersAiEmbedderOptions = Pick<ModelOptions, "ai">;

export const EMBEDDER_PROVIDERS: {
  readonly [P in EmbedderProvider]: (
    o: P extends "workers-ai" ? WorkersAiEmbedderOptions : EmbedderOptions,
  ) => Embedder;
} = {
  "workers-ai": (o) => {
    if (!o.ai) throw new Error("model provider workers-ai needs the AI binding");
    return new WorkersAiEmbedder(o.ai);
  },
  openai: (o) =>
    new OpenAiEmbedder({
      baseUrl: checkedUrl("openai", o),
      model: o.model,
      dims: o.dims,
      apiKey: o.apiKey,
      fetch: needFetch("openai", o),
      limits: o.limits,
      sleep: o.sleep,
    }),
};

export function isChatProvider(name: string): name is ChatProvider {
  return (CHAT_PROVIDER_NAMES as readonly string[]).includes(name);
}

export function isEmbedderProvider(name: string): name is EmbedderProvider {
  return (EMBEDDER_PROVIDER_NAMES as readonly string[]).includes(name);
}
