/**
 * The memory and query use cases (src/app/index.ts groups them): validated wire input in, the wire
 * response payload (or a typed failure) out. REST and MCP both reach them through the use cases, so
 * the two surfaces cannot drift. Authorisation is the caller's job.
 */
import type { z } from "zod";
import * as S from "../contract";
import { NEAR_DUPLICATE_THRESHOLD, overlap, wordSet } from "../core/dedupe";
import { fail, ok, type Result } from "../core/errors";
import type { ChunkStore, EntityStore, ModelMeter } from "../core/ports";
import type { EvidenceFloor } from "../core/query";
import type { Candidate, EvidenceCard, Freshness, RouteFilter, RouteResult } from "../core/types";
import { chunkDetail, entityDetail } from "./browse";
import { type DiscoveryReads, rankCandidates, reorders } from "./discovery";
import type { Kernel } from "./kernel";
import { isoOrNull, round4, tidy } from "./lib/wire";

type In<T extends z.ZodType> = z.infer<T>;

/** The kernel's ingest result with its transaction time as ISO 8601. */
async function ingested(res: ReturnType<Kernel["ingest"]>) {
  const r = await res;
  return r.ok ? ok({ ...r.value, recorded_at: new Date(r.value.recorded_at).toISOString() }) : r;
}

/** POST /v1/archives/{a}/ingest */
export function ingestOp(kernel: Kernel, archive: string, artifacts: In<typeof S.ArtifactSchema>[]) {
  return ingested(kernel.ingest(archive, artifacts.map(S.toArtifactInput)));
}

/** Artifacts per request that `near_duplicates: "revise"` checks (one routed lookup each). */
export const MAX_NEAR_DUPLICATE_CHECKS = 50;

/**
 * POST /ingest with `near_duplicates: "revise"`: each artifact whose id the archive does not hold is
 * matched against the 5 records of its kind (and all its boundaries) that its title and content
 * route to at now; the one with the highest word overlap (src/core/dedupe.ts) at or above the
 * threshold takes it as its next version. Retrying the same text is a no-op: it matches the record
 * it revised, whose content it now equals.
 */
export async function ingestRevisingOp(
  kernel: Kernel,
  store: Pick<ChunkStore, "chunkRow" | "visibleAt">,
  archive: string,
  b: In<typeof S.IngestBody>,
  now: number,
) {
  if (b.artifacts.length > MAX_NEAR_DUPLICATE_CHECKS)
    return fail(
      "validation",
      `near_duplicates: revise checks at most ${MAX_NEAR_DUPLICATE_CHECKS} artifacts per request; got ${b.artifacts.length}`,
      "artifacts",
      `send at most ${MAX_NEAR_DUPLICATE_CHECKS} artifacts per request with near_duplicates: revise`,
    );
  const threshold = b.near_duplicate_threshold ?? NEAR_DUPLICATE_THRESHOLD;
  const matched = new Map<number, { id: string; overlap: number }>();
  const taken = new Set<string>();
  for (const [i, a] of b.artifacts.entries()) {
    if (await store.chunkRow(archive, a.id)) continue;
    const r = await kernel.route({
      archiveId: archive,
      query: `${a.title}\n${a.content.slice(0, 4000)}`,
      asOf: now,
      limit: 5,
      filter: { kinds: [a.kind], ...(a.boundaries?.length ? { boundariesAll: a.boundaries } : {}) },
    });
    const ids = r.route.selected.map((x) => x.chunk).filter((x) => !taken.has(x));
    const heads = ids.length ? await store.visibleAt(archive, ids, now) : new Map();
    const mine = wordSet(`${a.title}\n${a.content}`);
    let best: { id: string; overlap: number } | null = null;
    for (const id of ids) {
      const h = heads.get(id);
      if (!h) continue;
      const text = await kernel.contentOf(h.contentKey);
      if (text === null) continue;
      const o = overlap(mine, wordSet(`${h.title}\n${text}`));
      if (o >= threshold && (!best || o > best.overlap)) best = { id, overlap: o };
    }
    if (best) {
      matched.set(i, best);
      taken.add(best.id);
    }
  }
  const artifacts = b.artifacts.map((a, i) => ({ ...a, id: matched.get(i)?.id ?? a.id }));
  const res = await ingested(kernel.ingest(archive, artifacts.map(S.toArtifactInput)));
  if (!res.ok) return res;
  return ok({
    ...res.value,
    results: res.value.results.map((x, i) => {
      const m = matched.get(i);
      return m ? { ...x, requested_id: b.artifacts[i]?.id ?? x.id, overlap: round4(m.overlap) } : x;
    }),
  });
}

/** POST /v1/archives/{a}/revise: a new version of a chunk that must already exist. */
export async function reviseOp(
  kernel: Kernel,
  store: ChunkStore,
  archive: string,
  artifact: In<typeof S.ArtifactSchema>,
) {
  if (!(await store.chunkRow(archive, artifact.id)))
    return fail("not_found", `chunk ${artifact.id} does not exist`, "id", "use /ingest to create it");
  return ingested(kernel.ingest(archive, [S.toArtifactInput(artifact)]));
}

/** POST /v1/archives/{a}/deprecate */
export async function deprecateOp(kernel: Kernel, archive: string, b: In<typeof S.DeprecateBody>) {
  const res = await kernel.deprecate(archive, b.id, b.by ?? null, S.toMs(b.at), b.reason ?? "");
  if (!res.ok) return res;
  return ok({ deprecated: b.id, by: b.by ?? null, version: res.value.version });
}

/** GET /v1/archives/{a}/history?chunk=… | ?entity=…: the same views as GET …/chunks/{id} and …/entities/{id}. */
export async function historyOp(
  store: Pick<ChunkStore, "chunkHistory"> & Pick<EntityStore, "entityHistory">,
  archive: string,
  q: In<typeof S.HistoryQuery>,
): Promise<Result<In<typeof S.ChunkDetail> | In<typeof S.EntityDetail>>> {
  if (!q.chunk === !q.entity)
    return fail("validation", "give exactly one of chunk or entity", "chunk", "?chunk=<id> or ?entity=<id>");
  if (q.chunk) {
    const h = await store.chunkHistory(archive, q.chunk);
    return h ? ok(chunkDetail(h)) : fail("not_found", `chunk ${q.chunk} not found`, "chunk");
  }
  const h = await store.entityHistory(archive, q.entity as string);
  return h ? ok(entityDetail(h)) : fail("not_found", `entity ${q.entity} not found`, "entity");
}

/** POST /v1/archives/{a}/entities/{alias,rename,merge}: from `at` (ISO; default now). */
export async function entityOp(
  kernel: Kernel,
  archive: string,
  op:
    | { op: "alias"; entity: string; alias: string; at?: string | undefined }
    | { op: "rename"; entity: string; newName: string; at?: string | undefined }
    | { op: "merge"; entity: string; into: string; at?: string | undefined },
): Promise<Result<{ ok: true }>> {
  const res = await kernel.entityOp(archive, { ...op, at: S.toMs(op.at) });
  return res.ok ? ok({ ok: true }) : res;
}

/** POST /v1/archives/{a}/sessions/{s}/events */
export function appendSessionOp(kernel: Kernel, archive: string, session: string, b: In<typeof S.SessionEventsBody>) {
  return kernel.appendSession(
    archive,
    session,
    b.events.map((e) => ({ ...e, at: S.toMs(e.at) })),
  );
}

/** GET /v1/archives/{a}/neighbours?chunk=…&as_of=… */
export async function neighboursOp(
  kernel: Kernel,
  archive: string,
  q: In<typeof S.ChunkQuery>,
): Promise<Result<In<typeof S.Neighbours>>> {
  const res = await kernel.neighbours(archive, q.chunk, S.toMs(q.as_of));
  if (!res.ok) return res;
  const h = res.value.head;
  return ok({
    head: h && {
      chunk: h.chunk,
      kind: h.kind,
      latest_version: h.latestVersion,
      first_valid_from: isoOrNull(h.firstValidFrom),
      end_at: isoOrNull(h.endAt),
      deprecated: h.deprecated,
      last_access: isoOrNull(h.lastAccess),
      access_count: h.accessCount,
    },
    neighbours: res.value.neighbours.map((n) => ({ ...n, weight: round4(n.weight) })),
  });
}

/** GET /v1/archives/{a}/resolve?mention=…&as_of=… */
export async function resolveOp(kernel: Kernel, archive: string, q: In<typeof S.ResolveQuery>) {
  const r = await kernel.resolve(archive, q.mention, S.toMs(q.as_of));
  // An ambiguous name resolves to nothing: the caller picks among the candidates.
  if (r?.candidates) return { mention: q.mention, resolved: null, candidates: r.candidates };
  return { mention: q.mention, resolved: r ? { entity: r.entity, name: r.name, via: r.via } : null };
}

/** What the query operations read from D1 besides the kernel: exact subtrees, grounding, neighbours. */
export type GraphReads = Pick<ChunkStore, "subtree" | "implementedAt" | "edgesAt" | "visibleAt">;

/** A subtree's size above which `within` refuses (the exact set travels to the routing object). */
export const MAX_SUBTREE = 50_000;

/** The wire filter -> the kernel's, with `within`, `cited_by` and `grounded` resolved exactly from D1 at t. */
export async function resolveFilter(
  store: GraphReads,
  archive: string,
  f: In<typeof S.FilterSchema> | Omit<In<typeof S.FilterSchema>, "min_similarity"> | undefined,
  t: number,
): Promise<RouteFilter | undefined> {
  if (!f) return undefined;
  let only: string[] | undefined;
  if (f.within !== undefined) only = await store.subtree(archive, f.within, t, MAX_SUBTREE);
  if (f.cited_by !== undefined) {
    const citing = await store.subtree(archive, f.cited_by, t, MAX_SUBTREE);
    const cited = new Set((await store.edgesAt(archive, citing, "cites", "out", t)).map((e) => e.to));
    only = only ? only.filter((x) => cited.has(x)) : [...cited];
  }
  if (f.grounded) {
    const grounded = new Set(await store.implementedAt(archive, t));
    only = only ? only.filter((x) => grounded.has(x)) : [...grounded];
  }
  return {
    kinds: f.kinds,
    boundariesAny: f.boundaries_any,
    boundariesAll: f.boundaries_all,
    minSimilarity: "min_similarity" in f ? f.min_similarity : undefined,
    only,
    exclude: f.exclude,
    researchMemory: f.research_memory,
  };
}

/** Exact neighbours over the requested edge types attached to each card (`follow`). */
export async function withFollow<C extends { artifact_id: string }>(
  store: GraphReads,
  archive: string,
  cards: C[],
  follow: In<typeof S.FollowSchema>[] | undefined,
  t: number,
): Promise<
  Array<
    C & {
      follow?: Array<{ type: string; direction: "out" | "in"; chunk: string; version: number | null; weight: number }>;
    }
  >
> {
  if (!follow?.length || cards.length === 0) return cards;
  const ids = cards.map((c) => c.artifact_id);
  const lists = new Map<string, Array<{ type: string; direction: "out" | "in"; chunk: string; weight: number }>>();
  for (const f of follow) {
    const count = new Map<string, number>();
    for (const e of await store.edgesAt(archive, ids, f.type, f.direction, t)) {
      const n = count.get(e.from) ?? 0;
      if (n >= f.limit) continue;
      count.set(e.from, n + 1);
      const l = lists.get(e.from) ?? [];
      l.push({ type: f.type, direction: f.direction, chunk: e.to, weight: round4(e.weight) });
      lists.set(e.from, l);
    }
  }
  const targets = [...new Set([...lists.values()].flat().map((x) => x.chunk))];
  const visible = targets.length ? await store.visibleAt(archive, targets, t) : new Map();
  return cards.map((c) => ({
    ...c,
    follow: (lists.get(c.artifact_id) ?? []).map((x) => ({ ...x, version: visible.get(x.chunk)?.version ?? null })),
  }));
}

/**
 * Freshness on the wire. A capital port that does not report it (in-process stores) applies every
 * change before it answers: applied is then unknown (0) and reached true.
 */
function wireFreshness(f: Freshness | undefined, after: string | undefined): In<typeof S.FreshnessSchema> {
  if (!f) return { applied: "0", after: after ?? null, reached: true, waited_ms: 0 };
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
export async function routeOp(
  kernel: Kernel,
  store: GraphReads,
  archive: string,
  b: In<typeof S.RouteBody>,
  reads?: DiscoveryReads,
) {
  const asOf = S.toMs(b.as_of);
  const r = await kernel.route({
    archiveId: archive,
    query: b.query,
    asOf,
    boundaries: b.boundaries,
    limit: b.limit,
    sessionId: b.session_id,
    filter: await resolveFilter(store, archive, b.filter, asOf ?? Date.now()),
    after: b.after === undefined ? undefined : Number(b.after),
  });
  let selected = r.route.selected;
  let ranking: In<typeof S.RankingResult> | undefined;
  if (b.ranking && reads) {
    const k = b.limit ?? 32;
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
    freshness: wireFreshness(r.route.freshness, b.after),
    trace: {
      ...r.route.trace,
      semantic: r.semantic.slice(0, 20),
      timings_ms: r.timings,
      ...(r.vectorSpace ? { vector_space: r.vectorSpace } : {}),
    },
  });
}

/** POST /v1/archives/{a}/expand */
export async function expandOp(kernel: Kernel, store: GraphReads, archive: string, b: In<typeof S.ExpandBody>) {
  const t = S.toMs(b.as_of) ?? Date.now();
  const r = await kernel.expand({
    archiveId: archive,
    query: b.query,
    chunks: b.chunks.map((x) => ({ chunk: x.id, version: x.version })),
    asOf: S.toMs(b.as_of),
    budgetTokens: b.budget_tokens,
    maxCardTokens: b.max_card_tokens,
    tokenizer: b.tokenizer,
    sessionId: b.session_id,
    filter: await resolveFilter(store, archive, b.filter, t),
  });
  const cards = await withFollow(store, archive, r.cards, b.follow, t);
  return {
    cards,
    skipped: r.skipped,
    tokens: r.tokens,
    trace: { timings_ms: r.timings, ...(r.model ? { model: modelUsage(kernel.distillerName, r.model) } : {}) },
  };
}

/** The wire /context body -> the service's request (also used by the query-result export). */
export function toContextRequest(archive: string, b: In<typeof S.ContextBody>, filter?: RouteFilter) {
  return {
    filter,
    archiveId: archive,
    query: b.query,
    asOf: S.toMs(b.as_of),
    boundaries: b.boundaries,
    budgetTokens: b.budget_tokens,
    sessionId: b.session_id,
    maxCards: b.max_cards,
    maxCardTokens: b.max_card_tokens,
    shortTermShare: b.short_term_share,
    tokenizer: b.tokenizer,
    minRelevance: b.min_relevance,
    minCardRelevance: b.min_card_relevance,
    after: b.after === undefined ? undefined : Number(b.after),
  };
}

/** The relevance floor's outcome on the wire, with the sentence an agent can act on. */
export function wireEvidence(e: EvidenceFloor) {
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
 * A /context body's `ranking` as the kernel's reorder hook (undefined without one) and, after the
 * call, the ranking result it produced.
 */
export function contextRanking(reads: DiscoveryReads, archive: string, b: In<typeof S.ContextBody>) {
  const rk = b.ranking;
  let result: In<typeof S.RankingResult> | undefined;
  const order = rk
    ? async (route: RouteResult, at: number) => {
        // The cards come from the first max_cards + 4 (some may not fit the budget).
        const ranked = await rankCandidates(reads, archive, route.candidates, rk, at, (b.max_cards ?? 20) + 4);
        result = ranked.result;
        return reorders(rk) ? ranked.order.map((x) => x.chunk) : null;
      }
    : undefined;
  return { order, result: () => result };
}

/** POST /v1/archives/{a}/context */
export async function contextOp(
  kernel: Kernel,
  store: GraphReads,
  archive: string,
  b: In<typeof S.ContextBody>,
  reads?: DiscoveryReads,
  cardCost?: (card: EvidenceCard) => number,
) {
  const t = S.toMs(b.as_of) ?? Date.now();
  const ranker = reads ? contextRanking(reads, archive, b) : undefined;
  const r = await kernel.context({
    ...toContextRequest(archive, b, await resolveFilter(store, archive, b.filter, t)),
    order: ranker?.order,
    cardCost,
  });
  const ranking = ranker?.result();
  const cards = await withFollow(store, archive, r.cards, b.follow, r.asOf);
  const { shortTerm, ...budget } = r.budget;
  return {
    as_of: new Date(r.asOf).toISOString(),
    freshness: wireFreshness(r.route.freshness, b.after),
    short_term: r.shortTerm.map((e) => ({
      role: e.role,
      text: e.text,
      tokens: e.tokens,
      at: new Date(e.at).toISOString(),
    })),
    short_term_chunks: r.shortTermChunks.map((c) => ({ ...c, at: new Date(c.at).toISOString() })),
    short_term_dropped: r.shortTermDropped,
    cards,
    evidence: wireEvidence(r.evidence),
    budget: {
      total: budget.total,
      short_term: shortTerm,
      cards: budget.cards,
      remaining: budget.remaining,
      tokenizer: budget.tokenizer,
    },
    skipped: r.skipped,
    ...(ranking ? { ranking: tidy(ranking as In<typeof S.RankingResult>) } : {}),
    trace: tidy({
      ...r.route.trace,
      candidates: wireCandidates(r.route.candidates.slice(0, 32)),
      selected: r.route.selected,
      timings_ms: r.timings,
      ...(r.model ? { model: modelUsage(kernel.distillerName, r.model) } : {}),
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
export async function verifyOp(kernel: Kernel, archive: string, b: In<typeof S.VerifyBody>) {
  const results = await kernel.verify(archive, b.anchors, b.session_id);
  return { all_verified: results.every((r) => r.verified), results };
}
