/**
 * The Worker's configuration, read and validated once: the implementation each port uses and the
 * optional secrets. A typo is an error naming the variable, the value and the allowed values, never
 * a silent fallback to the local implementation.
 */
import { CHAT_PROVIDER_NAMES, type ChatProvider, EMBEDDER_PROVIDER_NAMES } from "./adapters/models";
import { RERANK_PROVIDER_NAMES, type RerankProvider } from "./adapters/models/rerank";
import { DEFAULT_MODEL_TOKENS_PER_QUERY } from "./core/distill/model";
import { urlRefusal } from "./core/net";

/**
 * The accepted values of each choice: the first is the default; the provider names are the keys of
 * the adapters' tables (src/adapters/models), so a provider added there is accepted here.
 */
export const CHOICES = {
  EMBEDDER: ["local", ...EMBEDDER_PROVIDER_NAMES],
  VECTOR_INDEX: ["local", "vectorize", "none"],
  DISTILLER: ["extractive", ...CHAT_PROVIDER_NAMES],
  EXTRACTOR: ["none", ...CHAT_PROVIDER_NAMES],
  RERANKER: ["none", ...RERANK_PROVIDER_NAMES],
} as const;

/** A rerank endpoint (RERANKER other than none; the `/rerank` shape of TEI, Cohere, Jina, vLLM). */
export interface RerankConfig {
  provider: RerankProvider;
  baseUrl: string;
  model: string;
  apiKey: string | null;
}

/** Where a language model answers (DISTILLER / EXTRACTOR other than extractive / none). */
export interface LlmConfig {
  provider: ChatProvider;
  /** OpenAI-compatible or Anthropic base URL (".../v1"); null for Workers AI (the AI binding). */
  baseUrl: string | null;
  model: string;
  apiKey: string | null;
  /** Input + output tokens one /context or /expand may spend on the model (cards past it are extractive). */
  maxTokensPerQuery: number;
}

/** An embedding endpoint (EMBEDDER=openai). */
export interface EmbeddingConfig {
  baseUrl: string;
  model: string;
  apiKey: string | null;
  dims: number;
}

const ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1";
const WORKERS_AI_CHAT_MODEL = "@cf/meta/llama-3.1-8b-instruct";

type Choice<K extends keyof typeof CHOICES> = (typeof CHOICES)[K][number];

export interface Config {
  embedder: Choice<"EMBEDDER">;
  vectorIndex: Choice<"VECTOR_INDEX">;
  distiller: Choice<"DISTILLER">;
  extractor: Choice<"EXTRACTOR">;
  /** The language model, when DISTILLER or EXTRACTOR names a provider (both use the same one). */
  llm: LlmConfig | null;
  /** The embedding endpoint, when EMBEDDER=openai. */
  embedding: EmbeddingConfig | null;
  /** The rerank endpoint, when RERANKER names a provider (off by default). */
  rerank: RerankConfig | null;
  adminKey: string | null;
  githubToken: string | null;
  contactEmail: string | null;
  /** Hosts outbound fetches may reach although not public (local development only). */
  allowHosts: string[];
  /** DNS-over-HTTPS endpoint (JSON) that outbound hosts are resolved with; null: names only. */
  dnsResolver: string | null;
}

/** The vars and the bindings the choices depend on (names as in wrangler.toml). */
export interface ConfigInput {
  EMBEDDER?: string | undefined;
  VECTOR_INDEX?: string | undefined;
  DISTILLER?: string | undefined;
  EXTRACTOR?: string | undefined;
  LLM_BASE_URL?: string | undefined;
  LLM_MODEL?: string | undefined;
  LLM_API_KEY?: string | undefined;
  LLM_MAX_TOKENS_PER_QUERY?: string | undefined;
  EMBEDDING_BASE_URL?: string | undefined;
  EMBEDDING_MODEL?: string | undefined;
  EMBEDDING_API_KEY?: string | undefined;
  EMBEDDING_DIMS?: string | undefined;
  RERANKER?: string | undefined;
  RERANK_BASE_URL?: string | undefined;
  RERANK_MODEL?: string | undefined;
  RERANK_API_KEY?: string | undefined;
  ADMIN_KEY?: string | undefined;
  GITHUB_TOKEN?: string | undefined;
  CONTACT_EMAIL?: string | undefined;
  OUTBOUND_ALLOW_HOSTS?: string | undefined;
  DNS_RESOLVER?: string | undefined;
  AI?: unknown;
  VECTORS?: unknown;
}

export class ConfigError extends Error {}

function choose<K extends keyof typeof CHOICES>(env: ConfigInput, key: K): Choice<K> {
  const allowed = CHOICES[key] as readonly string[];
  const value = env[key];
  if (value === undefined || value === "") return allowed[0] as Choice<K>;
  if (!allowed.includes(value))
    throw new ConfigError(
      `${key}=${JSON.stringify(value)} is not one of: ${allowed.join(", ")} (set it in wrangler.toml [vars])`,
    );
  return value as Choice<K>;
}

const optional = (v: string | undefined) => (v === undefined || v === "" ? null : v);

/** Cloudflare's public resolver, JSON form. */
export const DEFAULT_DNS_RESOLVER = "https://cloudflare-dns.com/dns-query";

function dnsResolver(v: string | undefined): string | null {
  if (v === undefined || v === "") return DEFAULT_DNS_RESOLVER;
  if (v === "none") return null;
  let u: URL | null = null;
  try {
    u = new URL(v);
  } catch {
    u = null;
  }
  if (u?.protocol !== "https:")
    throw new ConfigError(
      `DNS_RESOLVER=${JSON.stringify(v)} is not an https URL of a DNS-over-HTTPS JSON endpoint (e.g. ${DEFAULT_DNS_RESOLVER}) or "none"`,
    );
  return v;
}

/**
 * A model endpoint's base URL: http(s), no credentials, and a host outbound requests may reach (a
 * public one, or one OUTBOUND_ALLOW_HOSTS names, e.g. 127.0.0.1 for a model server on this machine).
 */
function baseUrl(key: string, v: string | undefined, allowHosts: string[], fallback?: string): string {
  const value = v === undefined || v === "" ? fallback : v;
  if (value === undefined)
    throw new ConfigError(`${key} is not set: give the endpoint's base URL, e.g. https://api.openai.com/v1`);
  let u: URL | null = null;
  try {
    u = new URL(value);
  } catch {
    u = null;
  }
  if (!u || (u.protocol !== "https:" && u.protocol !== "http:") || u.username || u.password)
    throw new ConfigError(
      `${key}=${JSON.stringify(value)} is not an http(s) URL without credentials (put keys in LLM_API_KEY / EMBEDDING_API_KEY)`,
    );
  const refused = urlRefusal(value, { allowHosts });
  if (refused)
    throw new ConfigError(
      `${key}=${JSON.stringify(value)}: ${refused} (a model server on this machine needs OUTBOUND_ALLOW_HOSTS=${u.hostname})`,
    );
  return value.replace(/\/+$/, "");
}

function positiveInt(key: string, v: string | undefined, fallback: number | undefined, max: number): number {
  if (v === undefined || v === "") {
    if (fallback === undefined) throw new ConfigError(`${key} is not set: give a whole number from 1 to ${max}`);
    return fallback;
  }
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new ConfigError(`${key}=${JSON.stringify(v)} is not a whole number from 1 to ${max}`);
  return n;
}

function llmConfig(env: ConfigInput, provider: LlmConfig["provider"], allowHosts: string[]): LlmConfig {
  const model = optional(env.LLM_MODEL) ?? (provider === "workers-ai" ? WORKERS_AI_CHAT_MODEL : null);
  if (model === null)
    throw new ConfigError(
      `LLM_MODEL is not set: name the model ${provider === "anthropic" ? "(e.g. claude-3-5-haiku-latest)" : "the endpoint serves (e.g. gpt-4o-mini, llama3.1)"}`,
    );
  const apiKey = optional(env.LLM_API_KEY);
  if (provider === "anthropic" && apiKey === null)
    throw new ConfigError("LLM_API_KEY is not set: Anthropic needs a key (wrangler secret put LLM_API_KEY)");
  if (provider === "workers-ai" && !env.AI)
    throw new ConfigError(
      "DISTILLER/EXTRACTOR=workers-ai needs the AI binding (declared in env.production of wrangler.toml)",
    );
  return {
    provider,
    baseUrl:
      provider === "workers-ai"
        ? null
        : baseUrl(
            "LLM_BASE_URL",
            env.LLM_BASE_URL,
            allowHosts,
            provider === "anthropic" ? ANTHROPIC_BASE_URL : undefined,
          ),
    model,
    apiKey,
    maxTokensPerQuery: positiveInt(
      "LLM_MAX_TOKENS_PER_QUERY",
      env.LLM_MAX_TOKENS_PER_QUERY,
      DEFAULT_MODEL_TOKENS_PER_QUERY,
      10_000_000,
    ),
  };
}

function rerankConfig(env: ConfigInput, allowHosts: string[]): RerankConfig | null {
  const provider = choose(env, "RERANKER");
  if (provider === "none") return null;
  const model = optional(env.RERANK_MODEL) ?? (provider === "tei" ? "tei" : null);
  if (model === null)
    throw new ConfigError(
      `RERANK_MODEL is not set: name the rerank model RERANKER=${provider} serves (e.g. BAAI/bge-reranker-base)`,
    );
  return {
    provider,
    baseUrl: baseUrl("RERANK_BASE_URL", env.RERANK_BASE_URL, allowHosts),
    model,
    apiKey: optional(env.RERANK_API_KEY),
  };
}

/** The validated configuration, or a ConfigError naming the variable at fault. */
export function readConfig(env: ConfigInput): Config {
  const allowHosts = (env.OUTBOUND_ALLOW_HOSTS ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const distiller = choose(env, "DISTILLER");
  const extractor = choose(env, "EXTRACTOR");
  const embedder = choose(env, "EMBEDDER");
  const providers = [distiller, extractor].filter((p) => p !== "extractive" && p !== "none");
  const provider = providers[0] as LlmConfig["provider"] | undefined;
  if (providers.some((p) => p !== provider))
    throw new ConfigError(
      `DISTILLER=${distiller} and EXTRACTOR=${extractor} name two providers; they share LLM_BASE_URL and LLM_MODEL, so name one`,
    );
  const config: Config = {
    embedder,
    vectorIndex: choose(env, "VECTOR_INDEX"),
    distiller,
    extractor,
    llm: provider ? llmConfig(env, provider, allowHosts) : null,
    embedding:
      embedder === "openai"
        ? {
            baseUrl: baseUrl("EMBEDDING_BASE_URL", env.EMBEDDING_BASE_URL, allowHosts),
            model: (() => {
              const m = optional(env.EMBEDDING_MODEL);
              if (m === null)
                throw new ConfigError(
                  "EMBEDDING_MODEL is not set: name the embedding model (e.g. text-embedding-3-small)",
                );
              return m;
            })(),
            apiKey: optional(env.EMBEDDING_API_KEY),
            dims: positiveInt("EMBEDDING_DIMS", env.EMBEDDING_DIMS, undefined, 4096),
          }
        : null,
    rerank: rerankConfig(env, allowHosts),
    adminKey: optional(env.ADMIN_KEY),
    githubToken: optional(env.GITHUB_TOKEN),
    contactEmail: optional(env.CONTACT_EMAIL),
    allowHosts,
    dnsResolver: dnsResolver(env.DNS_RESOLVER),
  };
  if (config.embedder === "workers-ai" && !env.AI)
    throw new ConfigError("EMBEDDER=workers-ai needs the AI binding (declared in env.production of wrangler.toml)");
  if (config.vectorIndex === "vectorize" && !env.VECTORS)
    throw new ConfigError(
      "VECTOR_INDEX=vectorize needs the VECTORS binding (declared in env.production of wrangler.toml)",
    );
  return config;
}
