/**
 * Embeddings from any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, TEI, ...):
 * POST {baseUrl}/embeddings with `{model, input: [...]}`, at most 96 texts a request, under the same
 * timeout and retries as the chat adapters. Empty texts are the zero vector without a request; every
 * answer is checked against the declared dimension and L2-normalised. embed() cannot return a
 * failure, so it throws an Error saying what went wrong once the retries are spent.
 */
import type { Embedder } from "../../core/ports";
import { type Attempt, bearerPost, count, type HttpModelOptions, RetryLoop, usageOf } from "./http";
import { isRecord } from "./json";

/** Texts per request (OpenAI takes 2048, TEI 32 by default, Workers AI 100: 96 fits most). */
export const EMBED_BATCH = 96;

export interface OpenAiEmbedderOptions extends HttpModelOptions {
  /** The model's output dimension; every answer must have it. */
  dims: number;
}

export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly dims: number;
  private readonly loop: RetryLoop;

  constructor(private readonly opts: OpenAiEmbedderOptions) {
    if (!Number.isInteger(opts.dims) || opts.dims < 1)
      throw new RangeError(`embedding dims must be a positive integer, got ${opts.dims}`);
    this.model = opts.model;
    this.dims = opts.dims;
    this.loop = new RetryLoop(opts);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = texts.map(() => new Float32Array(this.dims));
    const todo = [...texts.keys()].filter((i) => (texts[i] as string).trim() !== "");
    for (let b = 0; b < todo.length; b += EMBED_BATCH) {
      const idx = todo.slice(b, b + EMBED_BATCH);
      const vectors = await this.batch(idx.map((i) => texts[i] as string));
      for (const [k, i] of idx.entries()) out[i] = vectors[k] as Float32Array;
    }
    return out;
  }

  private async batch(input: string[]): Promise<Float32Array[]> {
    const post = bearerPost(this.opts, "embeddings", { model: this.model, input });
    const res = await this.loop.post(this.opts.fetch, post, (body) => this.read(body, input.length));
    if (!res.ok)
      throw new Error(`embedding model ${this.model} at ${this.opts.baseUrl}: ${res.error.code}: ${res.error.message}`);
    return res.value;
  }

  private read(body: unknown, expected: number): Attempt<Float32Array[]> {
    const usage = usageOf(body);
    const tokens = { inputTokens: count(usage.prompt_tokens ?? usage.total_tokens), outputTokens: 0 };
    const data = isRecord(body) && Array.isArray(body.data) ? body.data : null;
    const malformed = (message: string): Attempt<Float32Array[]> => ({
      kind: "fail",
      error: { code: "malformed", message },
      tokens,
    });
    if (!data) return malformed("the answer has no data array");
    if (data.length !== expected) return malformed(`the answer has ${data.length} embeddings for ${expected} texts`);
    const rows = data.map((d, pos) => ({
      index: isRecord(d) && typeof d.index === "number" ? d.index : pos,
      embedding: isRecord(d) && Array.isArray(d.embedding) ? d.embedding : null,
    }));
    rows.sort((a, b) => a.index - b.index);
    const vectors: Float32Array[] = [];
    for (const [k, row] of rows.entries()) {
      if (row.index !== k) return malformed(`the answer's indexes are not 0..${expected - 1}`);
      const e = row.embedding;
      if (!e?.every((x) => typeof x === "number" && Number.isFinite(x)))
        return malformed(`embedding ${k} is not an array of finite numbers (base64 encoding is not read)`);
      // A dimension mismatch is a configuration error: not retried, thrown by embed().
      if (e.length !== this.dims)
        return malformed(
          `embedding model ${this.model} answered ${e.length} dimensions, expected ${this.dims} (the configured dims)`,
        );
      vectors.push(normalise(Float32Array.from(e as number[])));
    }
    return { kind: "ok", value: vectors, tokens };
  }
}

function normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  if (n === 0) return v;
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv;
  return v;
}
