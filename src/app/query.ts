/**
 * Query use cases: route, expand, budgeted context, anchor verification and session events
 * (src/app/operations.ts does the work).
 */
import type { z } from "zod";
import type * as S from "../contract";
import { countTokens, DEFAULT_TOKENIZER, type TokenizerName } from "../core/text/tokenizer";
import type { EvidenceCard } from "../core/types";
import { type CodeOptions, type CodeReads, capCards, codeForm, codeOptions } from "./code-context";
import type { AppDeps } from "./deps";
import * as Op from "./operations";
import { queueTurn } from "./project/turns";

type ContextAnswer = Awaited<ReturnType<typeof Op.contextOp>>;

/**
 * What a card costs of a REST /context budget: its JSON as REST returns it (full anchors, `tokens`,
 * `distiller`; ~1.9x the prompt form the distiller budgets) plus the comma that joins it to the next.
 * The kernel packs cards by this cost, so it distills no card REST would then drop.
 */
export function wireCost(tokenizer: TokenizerName): (card: EvidenceCard) => number {
  return (card) => countTokens(JSON.stringify(card), tokenizer) + 1;
}

/**
 * The exact bound on what REST returns: the cards' JSON array (with `follow` neighbours, which the
 * kernel does not see, and the tokens at the joins) plus the short-term window within budget_tokens.
 * The lowest-ranked cards go, listed in `skipped` as over_budget, while it is over (with no `follow`
 * the kernel's packing by wireCost leaves it under); `budget.cards` is then the tokens of that JSON.
 */
export function fitWire(r: ContextAnswer, budgetTokens: number): ContextAnswer {
  const tokenizer = r.budget.tokenizer as TokenizerName;
  const room = budgetTokens - r.budget.short_term;
  // Cards by their cost ("[" and "]" take the place of the last card's comma, with one to spare), then
  // the array's own count, exact; should the joins ever cost more than the sum, one more goes. O(cards).
  const cost = r.cards.map(wireCost(tokenizer));
  let kept = 0;
  let used = 1;
  while (kept < cost.length && used + (cost[kept] as number) <= room) used += cost[kept++] as number;
  const count = (n: number) => (n ? countTokens(JSON.stringify(r.cards.slice(0, n)), tokenizer) : 0);
  let cardTokens = count(kept);
  while (kept > 0 && cardTokens > room) cardTokens = count(--kept);
  const cards = r.cards.slice(0, kept);
  const dropped = r.cards.slice(kept).map((c) => ({ chunk: c.artifact_id, reason: "over_budget" as const }));
  return {
    ...r,
    cards,
    skipped: [...dropped, ...r.skipped],
    budget: { ...r.budget, cards: cardTokens, remaining: room - cardTokens },
  };
}

type In<T extends z.ZodType> = z.infer<T>;

/**
 * A /context answer with its code cards in code form and their code within max_code_bytes
 * (code-context.ts); `fit` holds the cards within the budget after the windows are added (REST), so
 * the cap is spent on the cards returned only.
 */
async function withCode(
  reads: CodeReads,
  archive: string,
  r: ContextAnswer,
  o: CodeOptions,
  fitTo: (r: ContextAnswer) => ContextAnswer,
) {
  const formed = fitTo({ ...r, cards: await codeForm(reads, archive, r.cards, o) });
  const capped = capCards(formed.cards, o.maxCodeBytes, o.tokenizer);
  // Cut cards only shrink: fitting again recounts the budget and keeps them all (a prefix at most).
  const out = fitTo({ ...formed, cards: capped.cards });
  return {
    ...out,
    cards: capped.cards.slice(0, out.cards.length),
    code_bytes: capped.bytes,
    ...(o.maxCodeBytes !== undefined ? { code_left_out: capped.leftOut } : {}),
  };
}

export function queryUseCases(d: AppDeps) {
  const kernel = d.kernel;
  const reads = { discovery: d.stores.discovery, annotations: d.stores.annotations };
  const codeReads: CodeReads = { versions: d.stores.chunks, contentOf: kernel.contentOf };
  return {
    route: (archive: string, b: In<typeof S.RouteBody>) => Op.routeOp(kernel, d.stores.chunks, archive, b, reads),
    expand: (archive: string, b: In<typeof S.ExpandBody>) => Op.expandOp(kernel, d.stores.chunks, archive, b),
    context: async (archive: string, b: In<typeof S.ContextBody>) => {
      const r = await Op.contextOp(kernel, d.stores.chunks, archive, b, reads);
      const code = codeOptions(b);
      return code ? withCode(codeReads, archive, r, code, (x) => x) : r;
    },
    /** POST /context: as `context`, with the cards' JSON (the REST card form) within budget_tokens. */
    contextWithin: async (archive: string, b: In<typeof S.ContextBody>) => {
      const cost = wireCost(b.tokenizer ?? DEFAULT_TOKENIZER);
      const r = await Op.contextOp(kernel, d.stores.chunks, archive, b, reads, cost);
      const code = codeOptions(b);
      const fitTo = (x: ContextAnswer) => fitWire(x, b.budget_tokens);
      return code ? withCode(codeReads, archive, r, code, fitTo) : fitTo(r);
    },
    verify: (archive: string, b: In<typeof S.VerifyBody>) => Op.verifyOp(kernel, archive, b),
    appendSession: async (archive: string, session: string, b: In<typeof S.SessionEventsBody>) => {
      const r = await Op.appendSessionOp(kernel, archive, session, b);
      // With a model configured, the turn's commitments are extracted from the queue (ProjectGuard B.1).
      if (r.ok) await queueTurn(d, archive, session, b.events);
      return r;
    },
  };
}
