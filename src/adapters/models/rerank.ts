/**
 * Rerankers behind the `/rerank` endpoint shape shared by Hugging Face TEI, Cohere, Jina and vLLM:
 * POST {baseUrl}/rerank. TEI takes `{query, texts}` and answers `[{index, score}]`; Cohere, Jina
 * and vLLM take `{model, query, documents}` and answer `{results: [{index, relevance_score}]}`.
 * Either answer is read, checked (every index 0..n-1 exactly once, finite scores) and returned in
 * document order, under the same timeout and retries as the chat adapters. Never throws for a
 * provider's failure.
 */
import type { Reranker } from "../../core/ports";
import { type Attempt, addUsage, bearerPost, emptyUsage, type HttpModelOptions, RetryLoop } from "./http";
import { isRecord } from "./json";

export const RERANK_PROVIDER_NAMES = ["tei", "cohere", "jina", "vllm"] as const;
export type RerankProvider = (typeof RERANK_PROVIDER_NAMES)[number];

/** Documents one request carries at most (TEI's default max batch is 32 per request of its own). */
export const RERANK_BATCH = 64;
/** Characters of a document sent (cross-encoders read a few hundred tokens). */
export const RERANK_DOC_CHARS = 2000;

/** `model` is the model name sent (TEI serves one model and ignores it). */
export type RerankOptions = HttpModelOptions;

/** The request body per provider: TEI's `texts`, the others' `model` + `documents`. */
const BODIES: { readonly [P in RerankProvider]: (model: string, query: string, docs: string[]) => unknown } = {
  tei: (_model, query, texts) => ({ query, texts, raw_scores: false }),
  cohere: (model, query, documents) => ({ model, query, documents, top_n: documents.length }),
  jina: (model, query, documents) => ({ model, query, documents, top_n: documents.length }),
  vllm: (model, query, documents) => ({ model, query, documents, top_n: documents.length }),
};

/** Scores in document order from either answer shape, or why the answer is unusable. */
export function readRerank(body: unknown, n: number): { ok: true; value: number[] } | { ok: false; why: string } {
  const rows = Array.isArray(body) ? body : isRecord(body) && Array.isArray(body.results) ? body.results : null;
  if (!rows) return { ok: false, why: "the answer is neither a list nor {results: [...]}" };
  if (rows.length !== n) return { ok: false, why: `the answer has ${rows.length} scores for ${n} documents` };
  const out: Array<number | undefined> = new Array(n).fill(undefined);
  for (const r of rows) {
    const index = isRecord(r) ? r.index : undefined;
    const score = isRecord(r) ? (r.relevance_score ?? r.score) : undefined;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= n)
      return { ok: false, why: `an index is not one of 0..${n - 1}` };
    if (typeof score !== "number" || !Number.isFinite(score))
      return { ok: false, why: `the score of document ${index} is not a finite number` };
    if (out[index] !== undefined) return { ok: false, why: `document ${index} is scored twice` };
    out[index] = score;
  }
  return { ok: true, value: out as number[] };
}

export class HttpReranker implements Reranker {
  readonly name: string;
  private readonly loop: RetryLoop;

  constructor(
    private readonly provider: RerankProvider,
    private readonly opts: RerankOptions,
  ) {
    this.name = `${provider}:${opts.model}`;
    this.loop = new RetryLoop(opts);
  }

  async rerank(query: string, documents: string[]) {
    const scores: number[] = [];
    let usage = emptyUsage();
    for (let b = 0; b < documents.length; b += RERANK_BATCH) {
      const docs = documents.slice(b, b + RERANK_BATCH).map((d) => d.slice(0, RERANK_DOC_CHARS) || " ");
      const post = bearerPost(this.opts, "rerank", BODIES[this.provider](this.opts.model, query, docs));
      const res = await this.loop.post(this.opts.fetch, post, (body): Attempt<number[]> => {
        const r = readRerank(body, docs.length);
        return r.ok ? { kind: "ok", value: r.value } : { kind: "fail", error: { code: "malformed", message: r.why } };
      });
      usage = addUsage(usage, res.usage);
      if (!res.ok) return { ok: false as const, error: res.error, usage };
      scores.push(...res.value);
    }
    return { ok: true as const, value: scores, usage };
  }
}

export const RERANK_PROVIDERS: { readonly [P in RerankProvider]: (o: RerankOptions) => Reranker } = {
  tei: (o) => new HttpReranker("tei", o),
  cohere: (o) => new HttpReranker("cohere", o),
  jina: (o) => new HttpReranker("jina", o),
  vllm: (o) => new HttpReranker("vllm", o),
};
