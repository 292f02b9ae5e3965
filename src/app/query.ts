/**
 * Query use cases: route, expand, budgeted context, anchor verification and session events. Route,
 * expand and context turn the request's `as_of` into a time once (the kernel's clock when it is
 * absent) and go down from there: the filter resolved from D1 at that time, the kernel, then the
 * answer on the wire.
 */
import * as S from "../contract";
import { withFollow } from "../core/follow";
import type { ModelMeter } from "../core/ports";
import type { EvidenceFloor } from "../core/query";
import { countTokens, DEFAULT_TOKENIZER, type TokenizerName } from "../core/text/tokenizer";
import type { Candidate, EvidenceCard, Freshness } from "../core/types";
import { type CodeOptions, type CodeReads, capCards, codeForm, codeOptions } from "./code-context";
import type { AppDeps } from "./deps";
import { resolveFilter, toContextRequest } from "./lib/filter";
import { rankCandidates, reorders, wireRanking } from "./lib/ranking";
import { type In, round4, tidy, timeOf } from "./lib/wire";
import { queueTurn } from "./project/turns";

type ContextAnswer = Awaited<ReturnType<typeof context>>;

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

/**
 * Freshness on the wire. A capital port that does not report it (in-process stores) applies every
 * change before it answers: the core's route then says applied 0 and reached true.
 */
function wireFreshness(f: Freshness | undefined): In<typeof S.FreshnessSchema> {
  if (!f) return { applied: "0", after: null, reached: true, waited_ms: 0 };
  return {
    applied: String(f.applied),
    after: f.after === null ? null : String(f.after),
    reached: f.reached,
    waited_ms: f.waitedMs,
  };
}

/**
 * Candidates on the wire: of the raw signals only the lexical match (BM25 over the query's ceiling,
 * a relevance input); the others stay internal (the ranking reports them per item).
 */
const wireCandidates = (cs: readonly Candidate[]) =>
  cs.map(({ raw, ...c }) => ({ ...c, match: round4(raw?.match ?? 0) }));

/** POST /v1/archives/{a}/route */
async function route(d: AppDeps, archive: string, b: In<typeof S.RouteBody>) {
  const t = timeOf(d, b.as_of);
  const r = await d.kernel.route({
    archiveId: archive,
    query: b.query,
    asOf: t,
    boundaries: b.boundaries,
    limit: b.limit,
    sessionId: b.session_id,
    filter: await resolveFilter(d.stores.chunks, archive, b.filter, t),
    after: b.after === undefined ? undefined : Number(b.after),
  });
  let selected = r.route.selected;
  let ranking: In<typeof S.RankingResult> | undefined;
  if (b.ranking) {
    const k = b.limit ?? 32;
    const reads = { discovery: d.stores.discovery, annotations: d.stores.annotations };
    const ranked = await rankCandidates(reads, archive, r.route.candidates, b.ranking, r.asOf, k);
    ranking = ranked.result;
    const relevance = new Map(r.route.candidates.map((c) => [c.chunk, c.relevance]));
    if (reorders(b.ranking))
      selected = ranked.order
        .slice(0, k)
        .map((x) => ({ ...x, relevance: relevance.get(x.chunk) ?? 0, depth: 0, via: null }));
  }
  return tidy({
    as_of: new Date(r.asOf).toISOString(),
    candidates: wireCandidates(r.route.candidates),
    selected,
    ...(ranking ? { ranking } : {}),
    freshness: wireFreshness(r.route.freshness),
    trace: {
      ...r.route.trace,
      semantic: r.semantic.slice(0, 20),
      timings_ms: r.timings,
      ...(r.vectorSpace ? { vector_space: r.vectorSpace } : {}),
    },
  });
}

/** POST /v1/archives/{a}/expand */
async function expand(d: AppDeps, archive: string, b: In<typeof S.ExpandBody>) {
  const t = timeOf(d, b.as_of);
  const r = await d.kernel.expand({
    archiveId: archive,
    query: b.query,
    chunks: b.chunks.map((x) => ({ chunk: x.id, version: x.version })),
    asOf: t,
    budgetTokens: b.budget_tokens,
    maxCardTokens: b.max_card_tokens,
    tokenizer: b.tokenizer,
    sessionId: b.session_id,
    filter: await resolveFilter(d.stores.chunks, archive, b.filter, t),
  });
  const graph = { edges: d.stores.chunks, versions: d.stores.chunks };
  const cards = await withFollow(graph, archive, r.cards, b.follow, t);
  return {
    cards,
    skipped: r.skipped,
    tokens: r.tokens,
    trace: { timings_ms: r.timings, ...(r.model ? { model: modelUsage(d.kernel.distillerName, r.model) } : {}) },
  };
}

/** The relevance floor's outcome on the wire, with the sentence an agent can act on. */
function wireEvidence(e: EvidenceFloor) {
  return {
    found: e.found,
    floor: e.floor,
    card_floor: e.cardFloor,
    best_relevance: e.best,
    below_floor: e.belowFloor,
    ...(e.found
      ? {}
      : {
          note: `No evidence above the relevance floor ${e.floor} (the best relevance was ${e.best}); nothing in this archive answers the query as asked. Lower min_relevance to see weaker matches.`,
        }),
  };
}

/**
 * POST /v1/archives/{a}/context at the request's time; `cardCost`: what a card costs of the budget
 * (REST: its wire JSON, wireCost), absent: the kernel's prompt form.
 */
async function context(
  d: AppDeps,
  archive: string,
  b: In<typeof S.ContextBody>,
  cardCost?: (card: EvidenceCard) => number,
) {
  const t = timeOf(d, b.as_of);
  const filter = await resolveFilter(d.stores.chunks, archive, b.filter, t);
  const r = await d.kernel.context({
    ...toContextRequest(archive, b, t, filter),
    follow: b.follow,
    cardCost,
  });
  const { shortTerm, ...budget } = r.budget;
  return {
    as_of: new Date(r.asOf).toISOString(),
    freshness: wireFreshness(r.route.freshness),
    short_term: r.shortTerm.map((e) => ({
      role: e.role,
      text: e.text,
      tokens: e.tokens,
      at: new Date(e.at).toISOString(),
    })),
    short_term_chunks: r.shortTermChunks.map((c) => ({ ...c, at: new Date(c.at).toISOString() })),
    short_term_dropped: r.shortTermDropped,
    cards: r.cards,
    evidence: wireEvidence(r.evidence),
    budget: {
      total: budget.total,
      short_term: shortTerm,
      cards: budget.cards,
      remaining: budget.remaining,
      tokenizer: budget.tokenizer,
    },
    skipped: r.skipped,
    ...(r.ranking ? { ranking: tidy(wireRanking(r.ranking)) } : {}),
    trace: tidy({
      ...r.route.trace,
      candidates: wireCandidates(r.route.candidates.slice(0, 32)),
      selected: r.route.selected,
      timings_ms: r.timings,
      ...(r.model ? { model: modelUsage(d.kernel.distillerName, r.model) } : {}),
      ...(r.vectorSpace ? { vector_space: r.vectorSpace } : {}),
    }),
  };
}

/** A request's model meter on the wire (trace.model). */
function modelUsage(distiller: string, m: ModelMeter): In<typeof S.ModelUsageSchema> {
  return {
    distiller,
    limit_tokens: m.limit,
    input_tokens: m.inputTokens,
    output_tokens: m.outputTokens,
    calls: m.calls,
    requests: m.requests,
    retries: m.retries,
    fallbacks: m.fallbacks,
    fallback_reasons: m.reasons,
    cache_hits: m.cacheHits,
  };
}

/** POST /v1/archives/{a}/verify */
async function verify(d: AppDeps, archive: string, b: In<typeof S.VerifyBody>) {
  const results = await d.kernel.verify(archive, b.anchors, b.session_id);
  return { all_verified: results.every((r) => r.verified), results };
}

/** POST /v1/archives/{a}/sessions/{s}/events */
async function appendSession(d: AppDeps, archive: string, session: string, b: In<typeof S.SessionEventsBody>) {
  const r = await d.kernel.appendSession(
    archive,
    session,
    b.events.map((e) => ({ ...e, at: S.toMs(e.at) })),
  );
  // With a model configured, the turn's commitments are extracted from the queue (ProjectGuard B.1).
  if (r.ok) await queueTurn(d, archive, session, b.events);
  return r;
}

export function queryUseCases(d: AppDeps) {
  const codeReads: CodeReads = { versions: d.stores.chunks, contentOf: d.kernel.contentOf };
  return {
    route: (archive: string, b: In<typeof S.RouteBody>) => route(d, archive, b),
    expand: (archive: string, b: In<typeof S.ExpandBody>) => expand(d, archive, b),
    /** The cards in the kernel's prompt form, within budget_tokens as the kernel counts them (MCP). */
    context: async (archive: string, b: In<typeof S.ContextBody>) => {
      const r = await context(d, archive, b);
      const code = codeOptions(b);
      return code ? withCode(codeReads, archive, r, code, (x) => x) : r;
    },
    /** POST /context: as `context`, with the cards' JSON (the REST card form) within budget_tokens. */
    contextWithin: async (archive: string, b: In<typeof S.ContextBody>) => {
      const r = await context(d, archive, b, wireCost(b.tokenizer ?? DEFAULT_TOKENIZER));
      const code = codeOptions(b);
      const fitTo = (x: ContextAnswer) => fitWire(x, b.budget_tokens);
      return code ? withCode(codeReads, archive, r, code, fitTo) : fitTo(r);
    },
    verify: (archive: string, b: In<typeof S.VerifyBody>) => verify(d, archive, b),
    appendSession: (archive: string, session: string, b: In<typeof S.SessionEventsBody>) =>
      appendSession(d, archive, session, b),
  };
}
