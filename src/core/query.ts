/**
 * The query pipeline: route first (heads only), expand second (contents of the chosen chunks at the
 * query time), distill last (cards within the token budget). Pure orchestration over ports.
 */

import { DEFAULT_MIN_CARD_RELEVANCE, DEFAULT_MIN_RELEVANCE } from "./capital/scoring";
import { DEFAULT_MODEL_TOKENS_PER_QUERY, newModelMeter } from "./distill/model";
import { type FollowedEdge, type FollowSpec, withFollow } from "./follow";
import { mapLimit } from "./map-limit";
import type {
  AccessLog,
  BlobStore,
  CapitalRouter,
  ChunkStore,
  Clock,
  Distiller,
  DistillInput,
  Embedder,
  ModelMeter,
  SessionEvent,
  SessionStore,
  StoredVersion,
  VectorIndex,
  VersionReader,
} from "./ports";
import { type PoolRanking, type PoolReads, type RankedPool, rankCandidatesAt } from "./research/pool-reads";
import { SKETCH_BYTES, simhash } from "./sketch";
import { queryTerms } from "./text/lexical";
import { extractMentions } from "./text/mentions";
import { countTokens, DEFAULT_TOKENIZER, loadTokenizer, type TokenizerName } from "./text/tokenizer";
import type { AccessChannel, EdgeType, EvidenceCard, RouteFilter, RouteResult, SemanticHit } from "./types";

export interface QueryDeps {
  embedder: Embedder;
  vectors: VectorIndex;
  router: CapitalRouter;
  versions: VersionReader;
  blobs: BlobStore;
  distiller: Distiller;
  /** Input + output tokens one expand or context may spend on a model distiller (default 60,000). */
  modelTokensPerQuery?: number | undefined;
  sessions: SessionStore;
  access: AccessLog;
  clock: Clock;
  /** Maps vector-index ids back to chunk ids (identity unless ids were hashed to fit Vectorize). */
  chunkIdsForVectorIds(archiveId: string, ids: string[]): Promise<Map<string, string>>;
  /** Whether the archive's vectors are in the embedder's space (absent: they are). */
  vectorSpace?: VectorSpaceCheck | undefined;
  /** What a context's `ranking` reads of its pool (required for a request with one). */
  pool?: PoolReads | undefined;
  /** Edges at a time, for a context's `follow` (required for a request with one). */
  edges?: Pick<ChunkStore, "edgesAt"> | undefined;
}

/**
 * Whether a query's embedding may be compared with the archive's vectors and head sketches (an
 * archive whose vectors are in another model's space, or being re-embedded: core/embed/space.ts).
 * When `usable` answers false the route has no semantic seeds and no query sketch, so no score
 * compares two spaces; the lexical, entity, graph and recency experts answer alone.
 */
export interface VectorSpaceCheck {
  usable: Promise<boolean>;
  /**
   * Embed only once `usable` has answered (it answered false last time): no embedding request whose
   * answer would be dropped. Otherwise the question is embedded while `usable` is read.
   */
  waitBeforeEmbedding: boolean;
}

export interface RouteRequest {
  archiveId: string;
  query: string;
  asOf?: number | undefined;
  boundaries?: string[] | undefined;
  limit?: number | undefined;
  /**
   * The caller's session: the chunks it accessed (at or before asOf, at most 64) seed recency, and this
   * request's accesses are logged under it. Without one, nothing seeds recency.
   */
  sessionId?: string | undefined;
  /** What may be returned (applied before the top-M cut and on router targets). */
  filter?: RouteFilter | undefined;
  /** A write's bookmark: answer with every change up to it (bounded wait; RouteResult.freshness). */
  after?: number | undefined;
}

/**
 * Boundary tags of research memory: the bookkeeping chunks SGMC writes about sources (a node's hub
 * of anchors as JSON Lines, `<node>#hub`; its draft, `<node>#draft`). src/app/research writes them.
 */
export const RESEARCH_HUB = "sgmc:hub";
export const RESEARCH_DRAFT = "sgmc:draft";
/** The self-loop's reviews of a draft, `<node>#review` (src/app/research/self-loop.ts). */
export const RESEARCH_REVIEW = "sgmc:review";
export const RESEARCH_MEMORY_BOUNDARIES: readonly string[] = [RESEARCH_HUB, RESEARCH_DRAFT, RESEARCH_REVIEW];

const normTag = (b: string) => b.trim().toLowerCase().replace(/\s+/g, "-");

/**
 * The filter a route applies: the caller's, plus "never research memory" unless the caller asked for
 * it (filter.researchMemory, or a boundary of the filter or of the query naming its tag). Research
 * memory restates its sources (a hub quotes their anchors, a draft paraphrases them), so in a general
 * route it would crowd out the sources themselves.
 */
export function routeFilter(
  filter: RouteFilter | undefined,
  boundaries: readonly string[] = [],
): RouteFilter | undefined {
  if (filter?.researchMemory) return filter;
  const named = new Set(
    [...(filter?.boundariesAny ?? []), ...(filter?.boundariesAll ?? []), ...boundaries].map(normTag),
  );
  const none = RESEARCH_MEMORY_BOUNDARIES.filter((b) => !named.has(b));
  if (none.length === 0) return filter;
  return { ...filter, boundariesNone: [...(filter?.boundariesNone ?? []), ...none] };
}

/** Recency seeds read per session (RouteInput.recent holds at most 64). */
const RECENT_PER_SESSION = 64;

export interface ContextRequest extends RouteRequest {
  budgetTokens: number;
  /** Share of the budget the short-term window may take (default 0.25). */
  shortTermShare?: number | undefined;
  maxCards?: number | undefined;
  /** Upper bound per card (default: a third of the budget, within 200..400 tokens). */
  maxCardTokens?: number | undefined;
  /** Encoding the budget is counted in (default cl100k_base). */
  tokenizer?: TokenizerName | undefined;
  /**
   * Ranks the route's candidate pool (research/pool-reads.ts) before expansion; when it reorders,
   * its order replaces the route's selection. The response carries the ranked pool.
   */
  ranking?: PoolRanking | undefined;
  /** Each card's neighbours over these edge types at asOf (follow.ts). */
  follow?: readonly FollowSpec[] | undefined;
  /** What a card costs of the budget (default its prompt form, `tokens`): see ExpandRequest.cardCost. */
  cardCost?: ((card: EvidenceCard) => number) | undefined;
  /** No cards at all when no selected chunk reaches this relevance (default DEFAULT_MIN_RELEVANCE). */
  minRelevance?: number | undefined;
  /** Cards below this relevance are never returned (default DEFAULT_MIN_CARD_RELEVANCE; at most minRelevance). */
  minCardRelevance?: number | undefined;
}

/** What the floor left: whether any card cleared it, the best relevance seen, how many fell below. */
export interface EvidenceFloor {
  /** Some selected chunk cleared the floor (its card may still not fit the budget: see `skipped`). */
  found: boolean;
  floor: number;
  cardFloor: number;
  /** The best relevance among the route's selection and candidates (0 when there were none). */
  best: number;
  /** Selected chunks left out for being below the floor. */
  belowFloor: number;
}

export type Timings = Record<string, number>;

/**
 * Smallest budget worth distilling a card into (ids, validity, an 8-word claim, two anchors). The
 * smallest budget that yields a card, measured in cl100k_base: 200 HotpotQA passages (~500
 * characters) p10 101, median 112, p90 133, max 165; 300 unarXive sections (~2.8 KB median) p10
 * 111, median 126, p90 161, max 243. Below 100 almost no card fits.
 */
export const MIN_CARD_TOKENS = 100;
/**
 * Default per-card cap: a third of the budget (room for at least 3 cards, so one long chunk cannot
 * take the whole budget), at least CARD_CAP_MIN (the smallest card fits in 200 tokens for all those
 * HotpotQA passages and 98.7% of the sections) and at most CARD_CAP_MAX (full cards of the sections:
 * median 331, p90 457 tokens; of the passages: median 206, p90 283).
 */
const CARD_CAP_MIN = 200;
const CARD_CAP_MAX = 400;

/** Vectorize returns at most 100 ids per query; that is also our semantic seed cap. */
const SEMANTIC_TOP_K = 100;

const HISTORY_RE =
  /\b(why|history|historical|rationale|introduc\w*|origin\w*|deprecat\w*|supersed\w*|replac\w*|chang\w*|renam\w*|before|earlier)\b/i;
const BIBLIO_RE = /\b(cit\w*|reference\w*|benchmark\w*|evaluat\w*|dataset\w*|baseline\w*|compar\w*|prior work)\b/i;
const CODE_RE = /\b(implement\w*|code|function|class|module|test\w*|repo\w*)\b/i;

/** Typed edges steer the router (routing step 5): infer which ones from the query's wording. */
export function preferredEdges(query: string): EdgeType[] {
  const out: EdgeType[] = [];
  if (HISTORY_RE.test(query)) out.push("introduced-by", "discussed-in", "deprecated-by", "motivates");
  if (BIBLIO_RE.test(query)) out.push("cites", "benchmarked-on");
  if (CODE_RE.test(query)) out.push("implements", "tests", "depends-on");
  return out;
}

function timer(clock: () => number) {
  const timings: Timings = {};
  let last = clock();
  const start = last;
  return {
    timings,
    lap(name: string) {
      const t = clock();
      timings[name] = Math.round((t - last) * 1000) / 1000;
      last = t;
    },
    total() {
      timings.total = Math.round((clock() - start) * 1000) / 1000;
    },
  };
}

const perfNow = () => (typeof performance !== "undefined" ? performance.now() : Date.now());

export interface RouteResponse {
  route: RouteResult;
  asOf: number;
  semantic: SemanticHit[];
  timings: Timings;
}

type AccessEvent = { chunk: string; channel: AccessChannel; at: number };

export async function routeQuery(deps: QueryDeps, req: RouteRequest): Promise<RouteResponse> {
  const { response, accesses } = await routeUnlogged(deps, req);
  const t0 = perfNow();
  await deps.access.record(req.archiveId, accesses, req.sessionId);
  const { total = 0, ...phases } = response.timings;
  const log = Math.round((perfNow() - t0) * 1000) / 1000;
  response.timings = { ...phases, log, total: Math.round((total + log) * 1000) / 1000 };
  return response;
}

/** routeQuery without writing the access log: the routing accesses are returned for the caller to log. */
async function routeUnlogged(
  deps: QueryDeps,
  req: RouteRequest,
): Promise<{ response: RouteResponse; accesses: AccessEvent[] }> {
  const t = timer(perfNow);
  const now = deps.clock.now();
  const asOf = req.asOf ?? now;
  const { identifiers, candidates } = extractMentions(req.query);
  t.lap("analyse");
  // The session's recency seeds are read while the query is embedded and the vector index asked.
  const recentRead = req.sessionId
    ? deps.access.recentForSession(req.archiveId, req.sessionId, asOf, RECENT_PER_SESSION)
    : undefined;
  // With a space check, the question is embedded and the index asked while the check is read
  // (unless it answered no last time); their answers are dropped when it says no.
  const space = deps.vectorSpace;
  let semantic: SemanticHit[] = [];
  // No sketch (all zero bytes) when the archive's sketches are in another space: the semantic
  // expert then says nothing for every head.
  let querySketch: Uint8Array = new Uint8Array(SKETCH_BYTES);
  if (!space?.waitBeforeEmbedding || (await space.usable)) {
    const ask = deps.embedder.embed([req.query]).then(([qvec]) => {
      const vec = qvec ?? new Float32Array(deps.embedder.dims);
      return { vec, matches: deps.vectors.query(req.archiveId, vec, SEMANTIC_TOP_K) };
    });
    // An answer dropped because the space is stale must not surface as an unhandled rejection.
    if (space) ask.then((a) => a.matches).catch(() => {});
    if (!space || (await space.usable)) {
      const { vec, matches: asked } = await ask;
      querySketch = simhash(vec);
      t.lap("embed");
      const matches = await asked;
      const hashed = matches.filter((m) => m.id.startsWith("sha:")).map((m) => m.id);
      const idMap = hashed.length ? await deps.chunkIdsForVectorIds(req.archiveId, hashed) : new Map<string, string>();
      semantic = matches.map((m) => ({ chunk: idMap.get(m.id) ?? m.id, score: m.score }));
      t.lap("semantic");
    }
  }
  const recent = await recentRead;
  t.lap("recent");
  const boundaries = (req.boundaries ?? []).map(normTag);
  const filter = routeFilter(req.filter, boundaries);
  const route = await deps.router.route({
    mentions: candidates,
    identifiers: identifiers.map((i) => i.id),
    boundaries,
    semantic,
    querySketch,
    terms: queryTerms(req.query),
    asOf,
    now,
    preferEdges: preferredEdges(req.query),
    limit: req.limit ?? 32,
    ...(recent ? { recent } : {}),
    ...(filter ? { filter } : {}),
    ...(req.after !== undefined ? { after: req.after } : {}),
  });
  t.lap("route");
  t.total();
  // A router that does not report freshness (in-process stores) applied every change before it answered.
  const freshness = route.freshness ?? { applied: 0, after: req.after ?? null, reached: true, waitedMs: 0 };
  return {
    response: { route: { ...route, freshness }, asOf, semantic, timings: t.timings },
    accesses: route.selected.map((s) => ({ chunk: s.chunk, channel: "routing" as const, at: now })),
  };
}

export interface ExpandRequest {
  archiveId: string;
  query: string;
  chunks: Array<{ chunk: string; version?: number | undefined }>;
  asOf?: number | undefined;
  budgetTokens: number;
  maxCardTokens?: number | undefined;
  /** Encoding the budget is counted in (default cl100k_base). */
  tokenizer?: TokenizerName | undefined;
  /** Logs the expansion accesses under this session (they seed its later routes' recency). */
  sessionId?: string | undefined;
  /** Kinds, boundaries and the exact id set of a route filter (similarity needs a route). */
  filter?: RouteFilter | undefined;
  /**
   * What a card costs of the budget, when the caller returns a larger form than the prompt form the
   * distiller budgets (`tokens`): REST's card JSON, with full anchors, runs ~1.9x. Cards are packed
   * by this cost, so nothing is distilled that cannot be returned; a card over what is left is
   * distilled again into the prompt budget scaled by (left / cost), then at MIN_CARD_TOKENS.
   */
  cardCost?: ((card: EvidenceCard) => number) | undefined;
}

export interface ExpandResponse {
  cards: EvidenceCard[];
  skipped: Array<{
    chunk: string;
    reason: "not_visible" | "missing_content" | "over_budget" | "version_not_found" | "filtered";
  }>;
  tokens: number;
  /** The encoding the cards were counted in. */
  tokenizer: TokenizerName;
  timings: Timings;
  /** What a model distiller spent on these cards (absent with the extractive distiller). */
  model?: ModelMeter | undefined;
}

/** A version against the filters expand can check on its own (kinds, boundaries, the exact id set). */
function expandPasses(f: RouteFilter, row: { chunkId: string; kind: string; boundaries: string[] }): boolean {
  const tags = new Set(row.boundaries.map(normTag));
  const norm = (b: string) => b.trim().toLowerCase().replace(/\s+/g, "-");
  return (
    (!f.kinds?.length || (f.kinds as string[]).includes(row.kind)) &&
    (!f.boundariesAny?.length || f.boundariesAny.some((b) => tags.has(norm(b)))) &&
    (f.boundariesAll ?? []).every((b) => tags.has(norm(b))) &&
    (!f.only || f.only.includes(row.chunkId)) &&
    !f.exclude?.includes(row.chunkId) &&
    !f.boundariesNone?.some((b) => tags.has(norm(b)))
  );
}

/** R2 allows 6 simultaneous connections per request: contents are read 6 at a time. */
const CONTENT_WAVE = 6;

/**
 * Open contents lazily (only chunks already chosen) and distill them in order within the budget.
 * Contents are read a wave of 6 at a time, and no further once the budget left is below the smallest
 * card (MIN_CARD_TOKENS): a /context with 1,200 tokens fills ~5 cards from the first 6-12 of its 24
 * chunks instead of reading all 24. The chunks after that point are skipped as over_budget without
 * their contents being read (so one whose content is missing reads over_budget, not missing_content).
 */
export async function expandChunks(deps: QueryDeps, req: ExpandRequest): Promise<ExpandResponse> {
  const { response, accesses } = await expandUnlogged(deps, req);
  const t0 = perfNow();
  await deps.access.record(req.archiveId, accesses, req.sessionId);
  response.timings.total = Math.round(((response.timings.total ?? 0) + (perfNow() - t0)) * 1000) / 1000;
  return response;
}

/** expandChunks without writing the access log: the expansion accesses are returned for the caller to log. */
async function expandUnlogged(
  deps: QueryDeps,
  req: ExpandRequest,
): Promise<{ response: ExpandResponse; accesses: AccessEvent[] }> {
  const start = perfNow();
  const now = deps.clock.now();
  const asOf = req.asOf ?? now;
  const tokenizer = req.tokenizer ?? DEFAULT_TOKENIZER;
  await loadTokenizer(tokenizer);
  const maxCard = req.maxCardTokens ?? Math.min(CARD_CAP_MAX, Math.max(CARD_CAP_MIN, Math.floor(req.budgetTokens / 3)));
  const skipped: ExpandResponse["skipped"] = [];
  const visible = await deps.versions.visibleAt(
    req.archiveId,
    req.chunks.filter((c) => c.version === undefined).map((c) => c.chunk),
    asOf,
  );
  const rows = await mapLimit(req.chunks, CONTENT_WAVE, async (c) => {
    if (c.version !== undefined) return deps.versions.exact(req.archiveId, c.chunk, c.version);
    return visible.get(c.chunk) ?? null;
  });
  const readable = rows.map((row) => row !== null && !(req.filter && !expandPasses(req.filter, row)));
  const cards: EvidenceCard[] = [];
  let used = 0;
  let distillMs = 0;
  let next = 0;
  const meter = newModelMeter(deps.modelTokensPerQuery ?? DEFAULT_MODEL_TOKENS_PER_QUERY);
  const concurrency = Math.max(1, deps.distiller.concurrency ?? 1);
  const distillInput = (row: StoredVersion, content: string, budgetTokens: number): DistillInput => ({
    query: req.query,
    artifactId: row.chunkId,
    version: row.version,
    kind: row.kind,
    title: row.title,
    content,
    context: {
      validFrom: row.validFrom,
      validTo: row.validTo,
      boundaries: row.boundaries,
      deprecatedBy: row.deprecatedBy,
    },
    budgetTokens,
    tokenizer,
    meter,
  });
  const costOf = req.cardCost ?? ((c: EvidenceCard) => c.tokens);
  const exhausted = () => Math.min(req.budgetTokens - used, maxCard) < MIN_CARD_TOKENS;
  while (next < req.chunks.length) {
    // The next wave: the contents of the next 6 readable chunks (and the unreadable ones among them).
    const wave: number[] = [];
    let end = next;
    if (!exhausted())
      while (end < req.chunks.length && wave.length < CONTENT_WAVE) {
        if (readable[end]) wave.push(end);
        end++;
      }
    else end = req.chunks.length;
    const contents = new Map<number, string | null>();
    await Promise.all(
      wave.map(async (i) => {
        contents.set(i, await deps.blobs.get((rows[i] as StoredVersion).contentKey));
      }),
    );
    const t2 = perfNow();
    // A distiller that waits on a model distills the wave's cards at once, each with the budget left
    // at the wave's start; a card that then does not fit what is left is distilled again below.
    const early = new Map<number, { budget: number; card: Promise<EvidenceCard | null> }>();
    if (concurrency > 1) {
      const budget = Math.min(req.budgetTokens - used, maxCard);
      const todo = wave.filter((i) => typeof contents.get(i) === "string");
      await mapLimit(todo, concurrency, async (i) => {
        const card = deps.distiller.distill(distillInput(rows[i] as StoredVersion, contents.get(i) as string, budget));
        early.set(i, { budget, card });
        await card;
      });
    }
    for (let i = next; i < end; i++) {
      const c = req.chunks[i] as ExpandRequest["chunks"][number];
      const row = rows[i];
      if (!row) {
        skipped.push({ chunk: c.chunk, reason: c.version !== undefined ? "version_not_found" : "not_visible" });
        continue;
      }
      if (req.filter && !expandPasses(req.filter, row)) {
        skipped.push({ chunk: c.chunk, reason: "filtered" });
        continue;
      }
      const content = contents.get(i);
      if (content === null) {
        skipped.push({ chunk: c.chunk, reason: "missing_content" });
        continue;
      }
      const remaining = req.budgetTokens - used;
      if (content === undefined || Math.min(remaining, maxCard) < MIN_CARD_TOKENS) {
        skipped.push({ chunk: c.chunk, reason: "over_budget" });
        continue;
      }
      const budget = Math.min(remaining, maxCard);
      const pre = early.get(i);
      let card = pre ? await pre.card : null;
      if (!pre || (card && card.tokens > budget && budget < pre.budget))
        card = await deps.distiller.distill(distillInput(row, content, budget));
      let cost = card ? costOf(card) : 0;
      // A card over what is left is distilled again into the budget scaled by (left / cost) and,
      // should that still be over, once more at MIN_CARD_TOKENS: a chunk is skipped as over_budget
      // only when its smallest card does not fit what was left at its turn, so a later (smaller)
      // card fills only room no earlier card could use.
      let tried = budget;
      const retry = async (b: number) => {
        if (!card || cost <= remaining || b < MIN_CARD_TOKENS || b >= tried) return;
        tried = b;
        card = await deps.distiller.distill(distillInput(row, content, b));
        cost = card ? costOf(card) : 0;
      };
      if (req.cardCost) {
        await retry(Math.floor((budget * remaining) / cost));
        await retry(MIN_CARD_TOKENS);
      }
      if (!card || cost > remaining) {
        skipped.push({ chunk: c.chunk, reason: "over_budget" });
        continue;
      }
      used += cost;
      cards.push(card);
    }
    distillMs += perfNow() - t2;
    next = end;
  }
  const ms = (x: number) => Math.round(x * 1000) / 1000;
  const total = perfNow() - start;
  const timings: Timings = { expand: ms(total - distillMs), distill: ms(distillMs), total: ms(total) };
  return {
    response: {
      cards,
      skipped,
      tokens: used,
      tokenizer,
      timings,
      ...(meter.calls + meter.fallbacks + meter.cacheHits > 0 ? { model: meter } : {}),
    },
    accesses: cards.map((c) => ({ chunk: c.artifact_id, channel: "expansion" as const, at: now })),
  };
}

/** A chunk the session recently opened, in the short-term window: its head as of the query time. */
export interface RecentChunk {
  chunk: string;
  version: number;
  kind: string;
  title: string;
  synopsis: string;
  /** When the session last expanded or verified it. */
  at: number;
  tokens: number;
}

/** Session events and opened chunks read for the short-term window (newest first). */
const WINDOW_EVENTS = 50;
const WINDOW_CHUNKS = 16;

/** Tokens a recently opened chunk takes in the window: its line as a prompt shows it. */
export function recentChunkLine(c: Omit<RecentChunk, "tokens" | "at">): string {
  return `${c.chunk} v${c.version} (${c.kind}) ${c.title}: ${c.synopsis}`;
}

export interface ContextResponse {
  asOf: number;
  shortTerm: SessionEvent[];
  /** Chunks the session recently opened that fit the window, chronological like `shortTerm`. */
  shortTermChunks: RecentChunk[];
  /** What the window read but left out for its share of the budget. */
  shortTermDropped: { events: number; chunks: number };
  /** The cards, best first, each with the score and relevance of its route entry (and `follow`). */
  cards: Array<ScoredCard & { follow?: FollowedEdge[] }>;
  evidence: EvidenceFloor;
  budget: { total: number; shortTerm: number; cards: number; remaining: number; tokenizer: TokenizerName };
  route: RouteResult;
  skipped: ExpandResponse["skipped"];
  timings: Timings;
  model?: ModelMeter | undefined;
  /** The request's ranking of the pool (absent without one). */
  ranking?: RankedPool | undefined;
}

/** An evidence card with what the route said of its chunk. */
export type ScoredCard = EvidenceCard & { score: number; relevance: number };

/** The request's ranking of the route's pool; the cards come from the first maxCards + 4 (some may not fit). */
function rankPoolOf(deps: QueryDeps, req: ContextRequest, route: RouteResult, asOf: number, maxCards: number) {
  if (!deps.pool) throw new Error("a context with a ranking needs QueryDeps.pool");
  const o = (req.ranking as PoolRanking).options;
  return rankCandidatesAt(deps.pool, req.archiveId, route.candidates, o, asOf, maxCards + 4);
}

/** The cards with their `follow` neighbours at asOf. */
function followOf(deps: QueryDeps, req: ContextRequest, cards: ScoredCard[], asOf: number) {
  if (!deps.edges) throw new Error("a context with follow needs QueryDeps.edges");
  return withFollow({ edges: deps.edges, versions: deps.versions }, req.archiveId, cards, req.follow, asOf);
}

/** P_B(q, t) = short-term window + cards, with Tok(window) + sum Tok(cards) <= B (eq. 1). */
export async function contextQuery(deps: QueryDeps, req: ContextRequest): Promise<ContextResponse> {
  const now = deps.clock.now();
  const tokenizer = req.tokenizer ?? DEFAULT_TOKENIZER;
  await loadTokenizer(tokenizer);
  const asOf = req.asOf ?? now;
  // 20: what 4,000 tokens hold of ~500-character passages (19 cards measured on HotpotQA).
  const maxCards = req.maxCards ?? 20;
  // The short-term window is read while the query is routed (they are independent).
  const t0 = perfNow();
  let sessionMs = 0;
  const windowRead = req.sessionId
    ? readWindow(deps, req.archiveId, req.sessionId, asOf).then((w) => {
        sessionMs = perfNow() - t0;
        return w;
      })
    : Promise.resolve({ events: [], chunks: [] });
  const [{ response: routed, accesses: routing }, window] = await Promise.all([
    routeUnlogged(deps, { ...req, limit: Math.max(maxCards * 2, req.limit ?? 0) }),
    windowRead,
  ]);
  const {
    shortTerm,
    shortTermChunks,
    dropped: shortTermDropped,
    tokens: shortTokens,
  } = fitWindow(window, Math.floor(req.budgetTokens * (req.shortTermShare ?? 0.25)), tokenizer);
  // Expand a few more than maxCards: some may not fit or may have become invisible. Only chunks at
  // or above the relevance floor: leftover budget is never filled with cards below it.
  const floor = req.minRelevance ?? DEFAULT_MIN_RELEVANCE;
  const cardFloor = Math.min(floor, req.minCardRelevance ?? DEFAULT_MIN_CARD_RELEVANCE);
  const scoreOf = new Map<string, { score: number; relevance: number }>();
  for (const c of routed.route.candidates) scoreOf.set(c.chunk, { score: c.score, relevance: c.relevance });
  for (const c of routed.route.selected) scoreOf.set(c.chunk, { score: c.score, relevance: c.relevance });
  let best = 0;
  for (const x of scoreOf.values()) best = Math.max(best, x.relevance);
  const ranking = req.ranking ? await rankPoolOf(deps, req, routed.route, asOf, maxCards) : undefined;
  const ordered =
    req.ranking?.reorders && ranking
      ? ranking.outcome.items.map((x) => x.id)
      : routed.route.selected.map((s) => s.chunk);
  const rel = (chunk: string) => scoreOf.get(chunk)?.relevance ?? 0;
  const found = ordered.some((chunk) => rel(chunk) >= floor);
  const clears = found ? ordered.filter((chunk) => rel(chunk) >= cardFloor) : [];
  const chosen = clears.slice(0, maxCards + 4).map((chunk) => ({ chunk }));
  const { response: expanded, accesses: expansion } = await expandUnlogged(deps, {
    archiveId: req.archiveId,
    query: req.query,
    chunks: chosen.map((s) => ({ chunk: s.chunk })),
    asOf,
    budgetTokens: req.budgetTokens - shortTokens,
    maxCardTokens: req.maxCardTokens,
    tokenizer,
    cardCost: req.cardCost,
  });
  const scored: ScoredCard[] = expanded.cards.slice(0, maxCards).map((c) => ({
    ...c,
    score: Math.round((scoreOf.get(c.artifact_id)?.score ?? 0) * 1e4) / 1e4,
    relevance: scoreOf.get(c.artifact_id)?.relevance ?? 0,
  }));
  const cards = req.follow?.length ? await followOf(deps, req, scored, asOf) : scored;
  // One access-log write for the routing and the expansion accesses (one D1 batch, one object call);
  // only the cards returned count as expanded (up to 4 more were distilled in case some did not fit).
  const shown = new Set(cards.map((c) => c.artifact_id));
  const t1 = perfNow();
  await deps.access.record(req.archiveId, [...routing, ...expansion.filter((e) => shown.has(e.chunk))], req.sessionId);
  const logMs = perfNow() - t1;
  const cost = req.cardCost ?? ((c: EvidenceCard) => c.tokens);
  const cardTokens = cards.reduce((s, c) => s + cost(c), 0);
  return {
    asOf,
    shortTerm,
    shortTermChunks,
    shortTermDropped,
    cards,
    evidence: { found, floor, cardFloor, best, belowFloor: ordered.length - clears.length },
    budget: {
      total: req.budgetTokens,
      shortTerm: shortTokens,
      cards: cardTokens,
      remaining: req.budgetTokens - shortTokens - cardTokens,
      tokenizer,
    },
    route: routed.route,
    skipped: expanded.skipped,
    ...(expanded.model ? { model: expanded.model } : {}),
    ...(ranking ? { ranking } : {}),
    timings: {
      ...Object.fromEntries(Object.entries(routed.timings).filter(([k]) => k !== "total")),
      session: Math.round(sessionMs * 1000) / 1000,
      expand: expanded.timings.expand ?? 0,
      distill: expanded.timings.distill ?? 0,
      log: Math.round(logMs * 1000) / 1000,
      total: Math.round((perfNow() - t0) * 1000) / 1000,
    },
  };
}

/**
 * The session's short-term material at asOf: its last WINDOW_EVENTS events and the last WINDOW_CHUNKS
 * chunks it opened (expanded or verified), with their heads as of asOf (a chunk with no version
 * visible then is not shown), newest first.
 */
async function readWindow(
  deps: QueryDeps,
  archiveId: string,
  sessionId: string,
  asOf: number,
): Promise<{ events: SessionEvent[]; chunks: Array<Omit<RecentChunk, "tokens">> }> {
  const [events, opened] = await Promise.all([
    deps.sessions.recent(archiveId, sessionId, asOf, WINDOW_EVENTS),
    deps.access.openedBySession ? deps.access.openedBySession(archiveId, sessionId, asOf, WINDOW_CHUNKS) : [],
  ]);
  const heads = opened.length
    ? await deps.versions.visibleAt(
        archiveId,
        opened.map((o) => o.chunk),
        asOf,
      )
    : new Map<string, StoredVersion>();
  const chunks: Array<Omit<RecentChunk, "tokens">> = [];
  for (const o of opened) {
    const h = heads.get(o.chunk);
    if (h)
      chunks.push({ chunk: o.chunk, version: h.version, kind: h.kind, title: h.title, synopsis: h.synopsis, at: o.at });
  }
  return { events, chunks };
}

/**
 * The short-term window within `cap` tokens: session events and opened chunks merged newest first (an
 * event before a chunk at the same instant), taken until the first that does not fit, so the window
 * is the newest unbroken stretch of the session; the rest is counted as dropped. Events are
 * recounted in this request's encoding (stored counts are cl100k_base, or the approximate counter
 * for events appended before exact counting). Both lists come back in chronological order.
 */
export function fitWindow(
  window: { events: SessionEvent[]; chunks: Array<Omit<RecentChunk, "tokens">> },
  cap: number,
  tokenizer: TokenizerName,
): {
  shortTerm: SessionEvent[];
  shortTermChunks: RecentChunk[];
  dropped: { events: number; chunks: number };
  tokens: number;
} {
  const shortTerm: SessionEvent[] = [];
  const shortTermChunks: RecentChunk[] = [];
  let tokens = 0;
  let e = 0;
  let c = 0;
  const { events, chunks } = window;
  while (e < events.length || c < chunks.length) {
    const ev = events[e];
    const ch = chunks[c];
    if (ev && (!ch || ev.at >= ch.at)) {
      const n = sessionEventTokens(ev.role, ev.text, tokenizer);
      if (tokens + n > cap) break;
      shortTerm.push({ ...ev, tokens: n });
      tokens += n;
      e++;
    } else if (ch) {
      const n = countTokens(recentChunkLine(ch), tokenizer);
      if (tokens + n > cap) break;
      shortTermChunks.push({ ...ch, tokens: n });
      tokens += n;
      c++;
    }
  }
  shortTerm.reverse(); // chronological order for the prompt
  shortTermChunks.reverse();
  return { shortTerm, shortTermChunks, dropped: { events: events.length - e, chunks: chunks.length - c }, tokens };
}

/**
 * Session events count against the budget as their JSON, with the same encoding as the cards
 * (default cl100k_base, which is what is stored when an event is appended).
 */
export function sessionEventTokens(role: string, text: string, tokenizer: TokenizerName = DEFAULT_TOKENIZER): number {
  return countTokens(JSON.stringify({ role, text }), tokenizer);
}
