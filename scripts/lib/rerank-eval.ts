/**
 * The reranker port (Paper Circle D.4) against the mock rerank endpoint (test/fixtures/mock-rerank.ts),
 * in process, no network: each provider's adapter (src/adapters/models/rerank.ts: TEI's `{query,
 * texts}` -> `[{index, score}]`, Cohere / Jina / vLLM's `{model, query, documents}` -> `{results:
 * [{index, relevance_score}]}`) reranks the records one-shot discovery merges from the five recorded
 * engine answers, for a query; its scores must be the mock's own for every record, in document
 * order. Reports per provider the records scored, the agreement and the requests made, and how far
 * the order moved from the engines' merged order (records whose rank changed).
 */
import { RERANK_PROVIDER_NAMES, RERANK_PROVIDERS } from "../../src/adapters/models/rerank";
import { mergeRecords } from "../../src/core/research/discover";
import { mockRerankAnswer, mockRerankScore } from "../../test/fixtures/mock-rerank";
import { fixtureRecordLists } from "./discovery-eval";

export const RERANK_EVAL_QUERY = "neurobiologically inspired long-term memory retrieval for language models";

export interface RerankEval {
  query: string;
  records: number;
  providers: Array<{
    provider: string;
    scored: number;
    agree: number;
    requests: number;
    moved: number;
    error: string | null;
  }>;
}

export async function rerankEval(): Promise<RerankEval> {
  const records = mergeRecords(fixtureRecordLists()).records;
  const docs = records.map((r) => `${r.title}\n${r.abstract}`);
  const expected = docs.map((d) => mockRerankScore(RERANK_EVAL_QUERY, d.slice(0, 2000)));
  const providers: RerankEval["providers"] = [];
  for (const provider of RERANK_PROVIDER_NAMES) {
    const fetch = async (req: Request) => mockRerankAnswer(await req.json());
    const reranker = RERANK_PROVIDERS[provider]({ baseUrl: "https://rerank.invalid/v1", model: "mock", fetch });
    const r = await reranker.rerank(RERANK_EVAL_QUERY, docs);
    if (!r.ok) {
      providers.push({ provider, scored: 0, agree: 0, requests: r.usage.requests, moved: 0, error: r.error.message });
      continue;
    }
    const agree = r.value.filter((s, i) => Math.abs(s - (expected[i] ?? Number.NaN)) < 1e-9).length;
    const order = r.value.map((s, i) => ({ s, i })).sort((a, b) => b.s - a.s || a.i - b.i);
    const moved = order.filter((x, rank) => x.i !== rank).length;
    providers.push({ provider, scored: r.value.length, agree, requests: r.usage.requests, moved, error: null });
  }
  return { query: RERANK_EVAL_QUERY, records: records.length, providers };
}
