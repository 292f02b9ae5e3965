/**
 * POST /code-pairs with `verify: true`: xKG's final verifier (seed 003 §2.4) through the model port.
 * The pairs above the threshold, in the router's order, go to the configured model in one bounded
 * call (the first MAX_VERIFY_PAIRS pairs; each technique's text and code span cut; propose()'s one
 * retry only for an unusable answer). The model answers a verdict per pair id; the kept pairs come
 * back in its order with its reason, the dropped ones are listed with theirs. Fail closed: a pair
 * the model gave no verdict, and a pair beyond the bound, is dropped, saying so. The code cap
 * (max_code_bytes) applies afterwards, to what was kept.
 */
import type * as S from "../contract";
import { ok, type Result } from "../core/errors";
import type { ChatModel } from "../core/ports";
import { propose } from "../core/proposals/propose";
import {
  checkVerdicts,
  fitCandidates,
  MAX_VERIFY_PAIRS,
  type PairCandidate,
  VERIFY_SCHEMA,
  VERIFY_SYSTEM,
  verifyPrompt,
} from "../core/proposals/verify-pairs";
import { modelFailure, modelName, usageView } from "./lib/proposals";
import type { In } from "./lib/wire";

type Out = In<typeof S.CodePairsResult>;
type Pair = Out["pairs"][number];
export type Verifier = NonNullable<Out["verifier"]>;

/** Contents read at once (R2's simultaneous connections per request). */
const READS = 6;

/**
 * Verifies `pairs` in place (kept pairs in the verifier's order, with `verifier_reason`); returns
 * what it kept and dropped, or the model's failure (503: nothing is returned unverified).
 */
export async function verifyPairs(
  model: ChatModel,
  query: string,
  pairs: Pair[],
  contentOf: (id: string) => Promise<string | null>,
): Promise<Result<Verifier>> {
  const taken = pairs.slice(0, MAX_VERIFY_PAIRS);
  const texts = new Map<string, string>();
  const ids = [...new Set(taken.flatMap((p) => [p.technique.id, ...(p.code ? [p.code.id] : [])]))];
  for (let i = 0; i < ids.length; i += READS)
    await Promise.all(
      ids.slice(i, i + READS).map(async (id) => {
        const text = await contentOf(id);
        if (text !== null) texts.set(id, text);
      }),
    );
  const candidates: PairCandidate[] = fitCandidates(
    taken.map((p, i) => ({
      id: `p${i + 1}`,
      technique: { id: p.technique.id, title: p.technique.title, text: texts.get(p.technique.id) ?? "" },
      code: p.code
        ? {
            id: p.code.id,
            title: p.code.title,
            text: (texts.get(p.code.id) ?? "").slice(p.code.anchor.start, p.code.anchor.end),
          }
        : null,
    })),
  );
  const outcome = await propose({
    model,
    name: "verify_pairs",
    description: "A verdict on each candidate (technique, code) pair: keep or drop, with a reason, kept ones in order.",
    schema: VERIFY_SCHEMA,
    system: VERIFY_SYSTEM,
    prompt: verifyPrompt(query, candidates),
    maxOutputTokens: 2048,
    check: (v) => checkVerdicts(v, candidates),
  });
  if (!outcome.ok) return modelFailure(outcome);

  const byId = new Map(candidates.map((c, i) => [c.id, taken[i] as Pair]));
  const judged = new Set(outcome.items.map((v) => v.pair));
  const kept: Pair[] = [];
  const dropped: Verifier["dropped"] = [];
  const drop = (p: Pair, reason: string) =>
    dropped.push({ technique: p.technique.id, code: p.code?.id ?? null, score: p.score, reason });
  for (const v of outcome.items) {
    const p = byId.get(v.pair) as Pair;
    if (v.keep) kept.push({ ...p, verifier_reason: v.reason });
    else drop(p, v.reason);
  }
  for (const c of candidates) if (!judged.has(c.id)) drop(byId.get(c.id) as Pair, "the verifier gave it no verdict");
  for (const p of pairs.slice(MAX_VERIFY_PAIRS))
    drop(p, `beyond the verifier's ${MAX_VERIFY_PAIRS} pairs (lower in the router's order); narrow limit or threshold`);
  pairs.splice(0, pairs.length, ...kept);
  return ok({
    model: modelName(model),
    candidates: candidates.length,
    kept: kept.length,
    dropped,
    ignored: outcome.dropped.map((x) => ({ index: x.index, pair: x.title, reason: x.reason })),
    usage: usageView(outcome.usage),
  });
}
