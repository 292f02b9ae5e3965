/**
 * The request loop every model adapter shares: a budget check before anything is sent, a timeout
 * per request (AbortController), retries on 429, 5xx, timeouts and dropped connections with
 * exponential backoff and jitter that honours `retry-after`, no retry on other 4xx, and the usage of
 * every attempt added up. Sleep, clock and jitter are injected so tests never wait.
 */
import type {
  ChatModel,
  HttpFetch,
  ModelFailure,
  ModelLimits,
  ModelUsage,
  StructuredOutcome,
  StructuredRequest,
} from "../../core/ports";
import { isRecord } from "./json";

export const DEFAULT_MODEL_LIMITS: ModelLimits = {
  timeoutMs: 60_000,
  retries: 2,
  backoffMs: 500,
  maxBackoffMs: 20_000,
  maxTokensPerRequest: 32_000,
};

export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the loop needs besides the limits; every field has a real default. */
export interface LoopDeps {
  sleep?: Sleep | undefined;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: (() => number) | undefined;
  /** Clock for usage.ms and HTTP-date `retry-after` (default Date.now). */
  now?: (() => number) | undefined;
}

/** The retry settings an adapter takes: limits over DEFAULT_MODEL_LIMITS and the loop's deps. */
export interface RetryOptions extends LoopDeps {
  limits?: Partial<ModelLimits> | undefined;
}

/** What an HTTP adapter posts with: the endpoint base, the model it names, the API key and the transport. */
export interface HttpModelOptions extends RetryOptions {
  /** e.g. https://api.openai.com/v1, http://127.0.0.1:8000/v1 (vLLM), http://127.0.0.1:11434/v1 (Ollama). */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer`; none when absent or empty (local servers). */
  apiKey?: string | undefined;
  fetch: HttpFetch;
}

/** The limits with the defaults filled in; throws a RangeError on a negative or non-finite value. */
export function resolveLimits(limits: Partial<ModelLimits> | undefined): ModelLimits {
  const out: ModelLimits = { ...DEFAULT_MODEL_LIMITS, ...limits };
  for (const [k, v] of Object.entries(out))
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0)
      throw new RangeError(`model limit ${k} must be a finite number >= 0, got ${String(v)}`);
  if (!Number.isInteger(out.retries))
    throw new RangeError(`model limit retries must be an integer, got ${out.retries}`);
  return out;
}

export interface Tokens {
  inputTokens: number;
  outputTokens: number;
}

/** How one attempt ended. */
export type Attempt<T> =
  | { kind: "ok"; value: T; tokens?: Tokens | undefined }
  | {
      kind: "retry";
      code: "rate_limited" | "unavailable";
      message: string;
      status?: number | undefined;
      /** The server's `retry-after`, ms. */
      retryAfterMs?: number | undefined;
      tokens?: Tokens | undefined;
    }
  | { kind: "fail"; error: ModelFailure; tokens?: Tokens | undefined };

export type LoopResult<T> =
  | { ok: true; value: T; usage: ModelUsage }
  | { ok: false; error: ModelFailure; usage: ModelUsage };

export function emptyUsage(): ModelUsage {
  return { inputTokens: 0, outputTokens: 0, requests: 0, ms: 0 };
}

/** `a` plus `b` (two loops of one call, e.g. a retry without response_format). */
export function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    requests: a.requests + b.requests,
    ms: a.ms + b.ms,
  };
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) {
    const cause = e.cause instanceof Error ? ` (${e.cause.message})` : "";
    return `${e.message}${cause}`;
  }
  return String(e);
}

/** Run `attempt` under a timeout: on expiry the signal aborts and the attempt counts as unavailable. */
async function timed<T>(timeoutMs: number, attempt: (signal: AbortSignal) => Promise<Attempt<T>>): Promise<Attempt<T>> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<Attempt<T>>((resolve) => {
    timer = setTimeout(() => {
      resolve({ kind: "retry", code: "unavailable", message: `no answer within ${timeoutMs} ms (timeout)` });
      controller.abort(new Error(`timeout after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  // A transport that ignores the signal (the Workers AI binding) keeps running after the timeout:
  // its late outcome is dropped, and a late rejection must not surface as unhandled.
  const run = attempt(controller.signal).catch(
    (e): Attempt<T> => ({ kind: "retry", code: "unavailable", message: errorMessage(e) }),
  );
  try {
    return await Promise.race([run, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Up to 1 + limits.retries attempts. A `retry` outcome waits backoffMs * 2^n (jitter 0.8-1.2x, at
 * most maxBackoffMs) or the server's retry-after when longer; a retry-after past maxBackoffMs ends
 * the call as `rate_limited` at once. `ok` and `fail` end it. Usage adds up every attempt's tokens.
 */
export async function withRetries<T>(
  limits: ModelLimits,
  deps: LoopDeps,
  attempt: (signal: AbortSignal) => Promise<Attempt<T>>,
): Promise<LoopResult<T>> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? realSleep;
  const random = deps.random ?? Math.random;
  const start = now();
  const usage = emptyUsage();
  const done = () => ({ ...usage, ms: Math.max(0, now() - start) });
  for (let n = 0; ; n++) {
    usage.requests++;
    const a = await timed(limits.timeoutMs, attempt);
    if (a.tokens) {
      usage.inputTokens += a.tokens.inputTokens;
      usage.outputTokens += a.tokens.outputTokens;
    }
    if (a.kind === "ok") return { ok: true, value: a.value, usage: done() };
    if (a.kind === "fail") return { ok: false, error: a.error, usage: done() };
    const requests = `${usage.requests} request${usage.requests === 1 ? "" : "s"}`;
    if (n >= limits.retries)
      return {
        ok: false,
        error: { code: a.code, message: `${a.message} (${requests})`, status: a.status },
        usage: done(),
      };
    if (a.retryAfterMs !== undefined && a.retryAfterMs > limits.maxBackoffMs)
      return {
        ok: false,
        error: {
          code: "rate_limited",
          message: `${a.message}; the server asks to wait ${Math.ceil(a.retryAfterMs / 1000)} s, longer than the ${limits.maxBackoffMs} ms allowed (${requests})`,
          status: a.status,
        },
        usage: done(),
      };
    const backoff = Math.min(limits.maxBackoffMs, limits.backoffMs * 2 ** n * (0.8 + 0.4 * random()));
    await sleep(Math.max(backoff, a.retryAfterMs ?? 0));
  }
}

/** An adapter's retry loop: its resolved limits (RangeError on a bad one) and deps. */
export class RetryLoop {
  readonly limits: ModelLimits;
  readonly deps: LoopDeps;

  constructor(opts: RetryOptions) {
    this.limits = resolveLimits(opts.limits);
    this.deps = { sleep: opts.sleep, random: opts.random, now: opts.now };
  }

  /** withRetries under these limits and deps. */
  run<T>(attempt: (signal: AbortSignal) => Promise<Attempt<T>>): Promise<LoopResult<T>> {
    return withRetries(this.limits, this.deps, attempt);
  }

  /** One JSON POST under the loop, each 2xx body read by `read`. */
  post<T>(fetch: HttpFetch, post: JsonPost, read: (body: unknown) => Attempt<T>): Promise<LoopResult<T>> {
    return this.run((signal) => postJson(fetch, post, signal, read, this.deps.now));
  }
}

/** Input tokens a request is estimated to spend: every character sent (messages, schema, description) / 4. */
export function estimateInputTokens(req: StructuredRequest): number {
  let chars = req.description.length + req.name.length + JSON.stringify(req.schema).length;
  for (const m of req.messages) chars += m.content.length;
  return Math.ceil(chars / 4);
}

/** The over_budget outcome when the request would pass limits.maxTokensPerRequest, else null. */
export function overBudget(req: StructuredRequest, limits: ModelLimits): StructuredOutcome | null {
  const input = estimateInputTokens(req);
  if (input + req.maxOutputTokens <= limits.maxTokensPerRequest) return null;
  return {
    ok: false,
    error: {
      code: "over_budget",
      message: `about ${input} input tokens + ${req.maxOutputTokens} output tokens pass the budget of ${limits.maxTokensPerRequest} tokens per request; not sent`,
    },
    usage: emptyUsage(),
  };
}

/**
 * What every chat adapter shares: the model name, the retry loop and the budget check, which answers
 * over_budget without sending anything.
 */
export abstract class BudgetedChat implements ChatModel {
  abstract readonly provider: string;
  readonly model: string;
  protected readonly loop: RetryLoop;

  constructor(opts: RetryOptions & { model: string }) {
    this.model = opts.model;
    this.loop = new RetryLoop(opts);
  }

  async structured(req: StructuredRequest): Promise<StructuredOutcome> {
    return overBudget(req, this.loop.limits) ?? this.answer(req);
  }

  /** The provider's answer to a request within the budget. */
  protected abstract answer(req: StructuredRequest): Promise<StructuredOutcome>;
}

/** The wait a `retry-after` (seconds or HTTP date) or `retry-after-ms` header asks for, ms. */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Number(ms);
  const v = headers.get("retry-after");
  if (v === null) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const KEY_PATTERNS = [/\bsk-[A-Za-z0-9_*.-]{6,}/g, /\b(?:Bearer|x-api-key:?)\s+\S+/gi];

/** `text` without the API key (nor anything shaped like one, masked forms included). */
export function redact(text: string, secret: string | undefined): string {
  let out = secret ? text.split(secret).join("[redacted]") : text;
  for (const p of KEY_PATTERNS) out = out.replace(p, "[redacted]");
  return out;
}

/** The provider's error message from an error body (OpenAI, Anthropic, vLLM, TGI shapes), else the text. */
export function providerMessage(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.trim().slice(0, 500) || "(empty body)";
  }
  if (isRecord(body)) {
    const e = body.error;
    if (isRecord(e) && typeof e.message === "string") return e.message.slice(0, 500);
    if (typeof e === "string") return e.slice(0, 500);
    for (const k of ["message", "detail"] as const) {
      const v = body[k];
      if (typeof v === "string") return v.slice(0, 500);
    }
  }
  return text.trim().slice(0, 500);
}

/** Statuses retried besides 429: request timeout and every 5xx (529 is Anthropic's "overloaded"). */
function retryable(status: number): boolean {
  return status === 408 || status >= 500;
}

export interface JsonPost {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** The API key, kept out of every message. */
  secret?: string | undefined;
}

/**
 * One POST of a JSON body, classified: a dropped connection, a timeout, 408, 429 and 5xx are
 * `retry`; other non-2xx statuses are `fail` (rejected, with the provider's message); a 2xx body
 * that is not JSON is `malformed`; a 2xx JSON body goes to `read`.
 */
export async function postJson<T>(
  fetch: HttpFetch,
  post: JsonPost,
  signal: AbortSignal,
  read: (body: unknown) => Attempt<T>,
  now: () => number = Date.now,
): Promise<Attempt<T>> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(
      new Request(post.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...post.headers },
        body: JSON.stringify(post.body),
        signal,
      }),
    );
    text = await res.text();
  } catch (e) {
    const message = signal.aborted ? "timeout" : `network error: ${redact(errorMessage(e), post.secret)}`;
    return { kind: "retry", code: "unavailable", message };
  }
  if (res.status === 429)
    return {
      kind: "retry",
      code: "rate_limited",
      message: `HTTP 429: ${redact(providerMessage(text), post.secret)}`,
      status: 429,
      retryAfterMs: retryAfterMs(res.headers, now()),
    };
  if (retryable(res.status))
    return {
      kind: "retry",
      code: "unavailable",
      message: `HTTP ${res.status}: ${redact(providerMessage(text), post.secret)}`,
      status: res.status,
      retryAfterMs: retryAfterMs(res.headers, now()),
    };
  if (res.status < 200 || res.status >= 300)
    return {
      kind: "fail",
      error: {
        code: "rejected",
        message: `HTTP ${res.status}: ${redact(providerMessage(text), post.secret)}`,
        status: res.status,
      },
    };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return {
      kind: "fail",
      error: {
        code: "malformed",
        message: `HTTP ${res.status} with a body that is not JSON: ${redact(text.slice(0, 200), post.secret)}`,
        status: res.status,
      },
    };
  }
  return read(body);
}

/** A non-negative integer field of a usage object, else 0. */
export function count(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0;
}

/** The `usage` object of an answer body, else an empty one. */
export function usageOf(body: unknown): Record<string, unknown> {
  return isRecord(body) && isRecord(body.usage) ? body.usage : {};
}

/** The tokens of an OpenAI-shaped usage (`prompt_tokens`, `completion_tokens`; Workers AI's too). */
export function completionTokens(body: unknown): Tokens {
  const usage = usageOf(body);
  return { inputTokens: count(usage.prompt_tokens), outputTokens: count(usage.completion_tokens) };
}

/** `Authorization: Bearer` when there is a key, else no header. */
export function bearer(key: string | undefined): Record<string, string> {
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** `{baseUrl}/{path}` with one slash between. */
export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/${path}`;
}

/** A POST of `body` to `{baseUrl}/{path}`, the API key (when there is one) sent as `Authorization: Bearer`. */
export function bearerPost(opts: Pick<HttpModelOptions, "baseUrl" | "apiKey">, path: string, body: unknown): JsonPost {
  return { url: endpoint(opts.baseUrl, path), headers: bearer(opts.apiKey), body, secret: opts.apiKey };
}
