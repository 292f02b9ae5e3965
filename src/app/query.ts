/**
 * Query use cases: route, expand, budgeted context, anchor verification and session events
 * (src/app/operations.ts does the work).
 */
import type { z } from "zod";
import type * as S from "../contract";
import { countTokens, type TokenizerName } from "../core/text/tokenizer";
import type { AppDeps } from "./deps";
import * as Op from "./operations";

type ContextAnswer = Awaited<ReturnType<typeof Op.contextOp>>;

/**
 * The /context answer with its cards within budget_tokens as REST returns them: the kernel packs the
 * prompt form of each card (what `tokens` counts: anchors without the card's own id and version,
 * snippets the claim repeats left out), while the REST card also carries those, `tokens` and
 * `distiller`, about 1.9x the prompt form (test/worker/rest-context-budget.test.ts). The lowest-ranked cards go (listed in `skipped` as
 * over_budget) until the short-term window plus the cards' compact JSON fits; `budget.cards` is then
 * the tokens of that JSON. O(cards) token counts.
 */
export function fitWire(r: ContextAnswer, budgetTokens: number): ContextAnswer {
  const tokenizer = r.budget.tokenizer as TokenizerName;
  const cost = r.cards.map((c) => countTokens(JSON.stringify(c), tokenizer));
  // "[", "]" and the commas between cards: at most one token each.
  const room = budgetTokens - r.budget.short_term - 2;
  let used = 0;
  let kept = 0;
  while (kept < r.cards.length && used + (cost[kept] ?? 0) + (kept > 0 ? 1 : 0) <= room) {
    used += (cost[kept] ?? 0) + (kept > 0 ? 1 : 0);
    kept++;
  }
  // The array's own count, exact; should merging at the joins ever cost more than the sum, one more goes.
  const count = (n: number) => (n ? countTokens(JSON.stringify(r.cards.slice(0, n)), tokenizer) : 0);
  let cardTokens = count(kept);
  while (kept > 0 && cardTokens > budgetTokens - r.budget.short_term) cardTokens = count(--kept);
  const cards = r.cards.slice(0, kept);
  const dropped = r.cards.slice(kept).map((c) => ({ chunk: c.artifact_id, reason: "over_budget" as const }));
  return {
    ...r,
    cards,
    skipped: [...dropped, ...r.skipped],
    budget: { ...r.budget, cards: cardTokens, remaining: budgetTokens - r.budget.short_term - cardTokens },
  };
}

type In<T extends z.ZodType> = z.infer<T>;

export function queryUseCases(d: AppDeps) {
  const kernel = d.kernel;
  const reads = { discovery: d.stores.discovery, annotations: d.stores.annotations };
  return {
    route: (archive: string, b: In<typeof S.RouteBody>) => Op.routeOp(kernel, d.stores.chunks, archive, b, reads),
    expand: (archive: string, b: In<typeof S.ExpandBody>) => Op.expandOp(kernel, d.stores.chunks, archive, b),
    context: (archive: string, b: In<typeof S.ContextBody>) => Op.contextOp(kernel, d.stores.chunks, archive, b, reads),
    /** POST /context: as `context`, with the cards' JSON (the REST card form) within budget_tokens. */
    contextWithin: async (archive: string, b: In<typeof S.ContextBody>) =>
      fitWire(await Op.contextOp(kernel, d.stores.chunks, archive, b, reads), b.budget_tokens),
    verify: (archive: string, b: In<typeof S.VerifyBody>) => Op.verifyOp(kernel, archive, b),
    appendSession: (archive: string, session: string, b: In<typeof S.SessionEventsBody>) =>
      Op.appendSessionOp(kernel, archive, session, b),
  };
}
