/**
 * The model port: a language model that answers one JSON value matching a schema (distiller,
 * extractors), and an embedding model (the Embedder port in services.ts). One adapter per provider
 * (src/adapters/models/): OpenAI-compatible chat completions, Anthropic Messages, Workers AI. Every
 * adapter returns a typed outcome, never throws for a provider's failure, and reports what it spent.
 */

/** One message of a chat. The system prompt is the first message when present. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** A JSON Schema (draft 2020-12 subset every provider accepts: object, array, string, number, integer, boolean, enum). */
export type JsonSchema = { [key: string]: unknown };

export interface StructuredRequest {
  /** Name of the answer's schema (OpenAI `json_schema.name`, Anthropic tool name): [a-zA-Z0-9_-]{1,64}. */
  name: string;
  /** What the answer is, one sentence (the tool's description). */
  description: string;
  schema: JsonSchema;
  messages: ChatMessage[];
  /** Output tokens the model may spend on this answer. */
  maxOutputTokens: number;
  /** Default 0: the same input should give the same answer where the provider allows it. */
  temperature?: number | undefined;
}

/** What one request spent, retries included. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  /** HTTP requests made (1 + retries). */
  requests: number;
  ms: number;
}

export const MODEL_FAILURES = [
  /** The endpoint answered 429 until the retries ran out. */
  "rate_limited",
  /** 5xx, a dropped connection or a timeout until the retries ran out. */
  "unavailable",
  /** 400-level other than 429: bad key, unknown model, request refused. Not retried. */
  "rejected",
  /** The answer was not one JSON value matching the schema (after the adapter's own repair). */
  "malformed",
  /** The request would pass the per-request token budget. Not sent. */
  "over_budget",
] as const;
export type ModelFailureCode = (typeof MODEL_FAILURES)[number];

export interface ModelFailure {
  code: ModelFailureCode;
  message: string;
  /** The last HTTP status, when there was one. */
  status?: number | undefined;
}

export type StructuredOutcome =
  | { ok: true; value: unknown; usage: ModelUsage }
  | { ok: false; error: ModelFailure; usage: ModelUsage };

export interface ChatModel {
  /** `openai`, `anthropic` or `workers-ai`. */
  readonly provider: string;
  /** The model name sent to the endpoint. */
  readonly model: string;
  /** One JSON value matching `req.schema`, parsed (not yet checked against the schema by the caller). */
  structured(req: StructuredRequest): Promise<StructuredOutcome>;
}

/** Limits every model adapter applies (defaults in src/adapters/models/http.ts). */
export interface ModelLimits {
  /** Per HTTP request, ms. */
  timeoutMs: number;
  /** Retries after a 429, a 5xx or a timeout (so at most 1 + retries requests). */
  retries: number;
  /** First backoff, ms; doubled per retry, with jitter; a `retry-after` header wins when longer. */
  backoffMs: number;
  /** Longest wait for one retry, ms (a longer `retry-after` fails the request as rate_limited). */
  maxBackoffMs: number;
  /** Input + output tokens one structured() call may spend (estimated before sending: chars / 4). */
  maxTokensPerRequest: number;
}

/**
 * A reranker (a cross-encoder behind the `/rerank` shape TEI, Cohere, Jina and vLLM share): one
 * relevance score per document for the query, in document order. Adapters in
 * src/adapters/models/rerank.ts; never throws for a provider's failure.
 */
export interface Reranker {
  /** `provider:model`, as reported with the results. */
  readonly name: string;
  rerank(
    query: string,
    documents: string[],
  ): Promise<{ ok: true; value: number[]; usage: ModelUsage } | { ok: false; error: ModelFailure; usage: ModelUsage }>;
}
