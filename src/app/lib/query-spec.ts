/**
 * What the discovery use cases share (src/app/discovery.ts, src/app/discover.ts): a query's spec,
 * built by rules or by the configured model and verified (seed 004 §3.2), and score statistics on
 * the wire.
 */
import type * as S from "../../contract";
import type { ChatModel } from "../../core/ports";
import {
  QUERY_SPEC_SCHEMA,
  QUERY_SPEC_SYSTEM,
  type QuerySpec,
  rulesSpec,
  verifyModelSpec,
} from "../../core/research/query-spec";
import type { ScoreStats } from "../../core/research/rank-pool";
import { type In, round4 } from "./wire";

/** Score statistics on the wire (4 decimals). */
export const wireScoreStats = (st: ScoreStats): In<typeof S.ScoreStatsSchema> => ({
  ranked: st.ranked,
  mean: {
    similarity: round4(st.mean.similarity),
    recency: round4(st.mean.recency),
    novelty: round4(st.mean.novelty),
    bm25: round4(st.mean.bm25),
    combined: round4(st.mean.combined),
  },
});

/**
 * The spec of a query: the rules', or with `useModel` the configured model's, verified and merged
 * with the rules' (a model failure or an unverifiable answer keeps the rules' spec and says why in
 * model_note).
 */
export async function buildSpec(model: ChatModel | null, query: string, useModel: boolean): Promise<QuerySpec> {
  const rules = rulesSpec(query);
  if (!useModel || !model) return rules;
  const out = await model.structured({
    name: "query_spec",
    description: "The structured search specification of a literature search request.",
    schema: QUERY_SPEC_SCHEMA,
    messages: [
      { role: "system", content: QUERY_SPEC_SYSTEM },
      { role: "user", content: query },
    ],
    maxOutputTokens: 600,
  });
  if (!out.ok) return { ...rules, model_note: `the model failed (${out.error.code}): ${out.error.message}` };
  const v = verifyModelSpec(rules, out.value);
  return v.ok ? v.value : { ...rules, model_note: `the model's answer was not used: ${v.why}` };
}
