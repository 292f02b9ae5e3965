/**
 * Domain types shared by the pure core. Nothing here imports cloudflare:*, hono or drizzle.
 * Times are epoch milliseconds (number). "Infinity" is used for open-ended validity in memory;
 * storage layers map it to NULL.
 */

/** Chunk kinds in the API's order (a capital-chunk snapshot stores capital/codes.ts's codes, not positions here). */
export const CHUNK_KINDS = [
  "paper",
  "section",
  "code_unit",
  "benchmark_row",
  "record",
  "decision",
  "note",
  "dataset",
  "technique",
  "design",
  // A figure, table or display equation of a paper (boundary `element:figure|table|equation`).
  "element",
] as const;
export type ChunkKind = (typeof CHUNK_KINDS)[number];

/** Structural and causal/historical edge types a caller may declare. */
export const STRUCTURAL_EDGE_TYPES = [
  "cites",
  "benchmarked-on",
  "implements",
  "tests",
  "part-of",
  "depends-on",
] as const;
export const CAUSAL_EDGE_TYPES = ["introduced-by", "discussed-in", "deprecated-by", "motivates"] as const;
/**
 * Derived at ingest by the analyser, never declared by callers: `mentions` links a chunk whose text
 * names another chunk's title or alias to that chunk; `follows` links a record (a conversation
 * turn, an event) to the record just before it in time among records with the same boundaries.
 */
export const DERIVED_EDGE_TYPES = ["mentions", "follows"] as const;
export const EDGE_TYPES = [...STRUCTURAL_EDGE_TYPES, ...CAUSAL_EDGE_TYPES, ...DERIVED_EDGE_TYPES] as const;
/** Edge types a caller may declare on an artifact. */
export const DECLARABLE_EDGE_TYPES = [...STRUCTURAL_EDGE_TYPES, ...CAUSAL_EDGE_TYPES] as const;
export type EdgeType = (typeof EDGE_TYPES)[number];

export const ENTITY_TYPES = ["paper", "method", "dataset", "metric", "symbol", "person", "venue", "concept"] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export const ACCESS_CHANNELS = ["routing", "verification", "expansion"] as const;
export type AccessChannel = (typeof ACCESS_CHANNELS)[number];

/** An edge over its validity interval: what an `edge.upsert` op carries (ingest's EdgeRow adds the version). */
export interface EdgeSpan {
  src: string;
  dst: string;
  type: EdgeType;
  weight: number;
  validFrom: number;
  /** null = open-ended */
  validTo: number | null;
}

/** Kernel constants (the routing method's published defaults, e.g. alpha 0.85 and 20 steps); configurable per archive. */
export interface KernelParams {
  /** PPR continuation probability (restart = 1 - alpha). Paper: 0.85. */
  alpha: number;
  /** Diffusion steps. Paper: 20. */
  iterations: number;
  /** Bounded neighbour fanout per node. Paper: 32. */
  kr: number;
  /** Candidate head pool. Paper: 256. */
  topM: number;
  /** Router depth limit. */
  dMax: number;
  /** Weight of recency in the seed distribution (eta in eq. 2). */
  eta: number;
  /** Recency half-life in days for p_rec. */
  recencyHalfLifeDays: number;
  /** Mass below this is not propagated further (local push); keeps diffusion O(1/epsilon). */
  pushEpsilon: number;
  /** Hard cap on nodes carried per diffusion step. */
  maxFrontier: number;
  /** Router beam width (candidates the router starts from). */
  routerBeam: number;
  /** Weight of a path's support in the router: score(v) = head(v) + routerLambda * path(v). */
  routerLambda: number;
  /** Postings read per query entity (most recent first; 2 x topM), so a hub entity costs O(cap), not O(N). */
  maxPostingsPerEntity: number;
  /** Lexical postings read per query term (newest first): bounds BM25 work at any archive size. */
  maxPostingsPerTerm: number;
  /** Lexical postings read per query over all its terms, rarest terms first. */
  maxLexicalPostings: number;
  /**
   * A name grounded from content (not a declared alias or an identifier) is a query entity only if
   * the archive writes it as a name in at least this share of the documents holding its rarest word.
   */
  nameShare: number;
  /** Lexical hits that become seeds (the best BM25 scores). */
  lexicalSeeds: number;
  /**
   * The graph expert reads mass / slots^degreeExponent (slots in the node's bounded neighbour table,
   * at least 1): 0 = raw diffusion mass; > 0 damps hubs that collect mass from many seeds, as BM25's
   * length normalisation damps long documents. At 0.5: unArXive per-node references over the whole
   * archive MRR 0.251 -> 0.351, but HotpotQA R@5 93.0 -> 90.5 and CiteSeer citation recovery R@10
   * 48.0 -> 40.7, hence off by default.
   */
  degreeExponent: number;
  /**
   * Heap the capital chunk may hold (its own accounting, `stats.bytes.total`): half of a Worker
   * isolate's 128 MB by default. An ingest that would take it past the budget is refused (413) and
   * nothing is written, so the object never meets the isolate's limit.
   */
  heapBudgetBytes: number;
  /**
   * Weights of the experts in the head score lex·p_lex + Σ w_x·p_x (each p_x in [0, 1] and 0 when
   * its signal carries nothing for the query; 0 = expert off). See core/capital/scoring.ts.
   */
  weights: { sem: number; lex: number; sym: number; graph: number; rec: number; thread: number };
}

export const DEFAULT_PARAMS: KernelParams = {
  alpha: 0.85,
  iterations: 20,
  kr: 32,
  topM: 256,
  dMax: 2,
  eta: 0.1,
  recencyHalfLifeDays: 30,
  // 1e-3: at most 1,000 nodes push per step; on 10k-100k synthetic archives ~250 nodes end up with
  // mass and the top-10 agrees ~78% with the exact PPR (1e-4 gives ~85% at ~8x the cost; bench).
  pushEpsilon: 1e-3,
  maxFrontier: 1024,
  routerBeam: 8,
  routerLambda: 0.25,
  maxPostingsPerEntity: 512,
  maxPostingsPerTerm: 8192,
  // Binds at any size, so lexical work stays flat from 100k to 300k heads (~10 ms in-process at
  // 16k postings, synthetic Zipf words); 65,536 grew 2.4x there. No recall change on HotpotQA,
  // LoCoMo or CiteSeer (pasted abstracts) against an unbounded budget.
  maxLexicalPostings: 16_384,
  nameShare: 0.5,
  lexicalSeeds: 100,
  degreeExponent: 0,
  heapBudgetBytes: 64 * 1024 * 1024,
  // routerLambda, nameShare, weights.sym and weights.graph: chosen by leave-one-set-out
  // cross-validation over nine dev sets (npm run cv; bench/results/cv-latest.json) for the best
  // worst-set margin over the strongest BM25. weights.sem stays 0 with the local hashed embedder.
  // weights.rec 0.1 cost 0.5-1.3 points on four sets (its near-constant share raises every path
  // the router adds) and no dev set gains from it, so recency acts through the seeds (eta) only.
  weights: { sem: 0, lex: 1, sym: 0.05, graph: 0.25, rec: 0, thread: 0.3 },
};

/** Per-archive overrides over the defaults; the nested weights merge key by key. */
export function mergeParams(
  over: Partial<Omit<KernelParams, "weights">> & {
    weights?: Partial<KernelParams["weights"]> | undefined;
  },
): KernelParams {
  return {
    ...DEFAULT_PARAMS,
    ...over,
    weights: { ...DEFAULT_PARAMS.weights, ...(over.weights ?? {}) },
  };
}

/**
 * Changes applied to the capital chunk, in change-log order. D1's change_log table is the source of
 * truth; the Durable Object replays these after loading a snapshot.
 */
export type ChangeOp =
  | {
      op: "head.upsert";
      chunk: string;
      kind: ChunkKind;
      version: number;
      /** Start of this version's validity; the previous version ends here. */
      validFrom: number;
      recordedAt: number;
      /** Canonical entity ids (e.g. "arxiv:2405.14831", "method:hipporag"). */
      entities: string[];
      /** Boundary tags (scope tags), already normalised. */
      boundaries: string[];
      /** Base64 of the 32-byte SimHash sketch of the synopsis embedding. */
      sketch: string;
      /** The version's bag of terms for the lexical expert, "term:tf ..." (core/text/lexical). */
      terms?: string | undefined;
      /** Length of that bag before any cut, for BM25 length normalisation. */
      len?: number | undefined;
      /** Entities this chunk is itself named by (its title's concept): targets of derived `mentions` edges. */
      owns?: string[] | undefined;
    }
  | { op: "head.deprecate"; chunk: string; at: number; by: string | null }
  /**
   * A re-embed's new sketch of a head (docs/models.md): replaces the sketch of `chunk` while
   * `version` is still its latest (a later version brought its own), else ignored.
   */
  | { op: "head.sketch"; chunk: string; version: number; sketch: string }
  | {
      /**
       * Entities a language model extracted from this version (extraction at ingest): the head is
       * posted under them as under its own. Applied only while `version` is the chunk's live head;
       * applying it again changes nothing.
       */
      op: "head.extend";
      chunk: string;
      version: number;
      /** Canonical entity ids the head did not carry. */
      entities: string[];
      /** The version's start (event time of the postings and the mention links they derive). */
      at: number;
    }
  | ({ op: "edge.upsert" } & EdgeSpan)
  | { op: "edge.close"; src: string; dst: string; type: EdgeType; at: number }
  | { op: "entity.upsert"; id: string; type: EntityType; name: string; at: number }
  | { op: "alias.add"; entity: string; alias: string; validFrom: number; validTo: number | null }
  | { op: "alias.close"; entity: string; alias: string; at: number }
  | { op: "entity.merge"; from: string; into: string; at: number };

export interface SemanticHit {
  chunk: string;
  /** cosine similarity in [-1, 1] */
  score: number;
}

export interface ExpertScores {
  sem: number;
  /** BM25 over the version's bag of terms, relative to the best lexical hit of the query. */
  lex: number;
  sym: number;
  graph: number;
  rec: number;
  /** The best lexical share among the head's neighbours on its timeline (the turn before or after). */
  thread: number;
}

export interface Candidate {
  chunk: string;
  kind: ChunkKind;
  /** Version visible at the query time. */
  version: number;
  score: number;
  /**
   * How likely the head is evidence for the query, in [0, 1], comparable across queries and
   * archives (scoring.ts relevanceOf; 1 for a chunk the query names by identifier). `score` orders
   * one query's heads; relevance is what a floor is set on.
   */
  relevance: number;
  experts: ExpertScores;
  /** Raw diffusion mass g_i. */
  mass: number;
  /**
   * The unfloored signals behind sem and lex: the route's cosine (vector index, else the sketch;
   * null when the query has no vector), the lexical expert's raw BM25 score (0 without a hit) and
   * that BM25 over the query's lexical ceiling (scoring.ts lexicalCeiling).
   */
  raw?: { sem: number | null; lex: number; match: number };
}

export interface ResolvedMention {
  text: string;
  entity: string;
  /** how it resolved: "identifier" | "alias" | "merge" ... */
  via: string;
  /**
   * The text denotes several entities (an alias two of them carry): the route seeds every one, and
   * `GET …/resolve` answers `resolved: null` with the same entities as candidates.
   */
  ambiguous?: boolean;
}

export interface RouterStep {
  depth: number;
  from: string;
  to: string;
  edgeType: EdgeType;
  score: number;
  accepted: boolean;
}

/**
 * What a route may return, applied to every head before the top-M cut and to every node the router
 * reaches. `only` is an exact set of chunk ids the caller computed (a subtree, the grounded chunks);
 * the other filters are checked on the heads.
 */
export interface RouteFilter {
  kinds?: ChunkKind[] | undefined;
  /** At least one of these boundary tags. */
  boundariesAny?: string[] | undefined;
  /** Every one of these boundary tags. */
  boundariesAll?: string[] | undefined;
  only?: string[] | undefined;
  /** Minimum semantic similarity of the head to the query (cosine; the sketch estimate where the index gave none). */
  minSimilarity?: number | undefined;
  /** Never returned; mass still flows through them in diffusion and the router's hops. */
  exclude?: string[] | undefined;
  /** Never a chunk carrying one of these boundary tags (exact, from postings); mass still flows through them. */
  boundariesNone?: string[] | undefined;
  /**
   * Research memory (chunks tagged with RESEARCH_MEMORY_BOUNDARIES: SGMC hubs and drafts) may be
   * returned. Without it a route leaves them out unless boundariesAny or boundariesAll names their tag.
   */
  researchMemory?: boolean | undefined;
}

export interface RouteInput {
  /** Normalised mention candidates from the analyser (see core/text/mentions). */
  mentions: string[];
  /** Canonical ids found by identifier regexes (DOI/arXiv/OpenAlex), already canonical. */
  identifiers: string[];
  /** Boundary tags given by the caller (already normalised). */
  boundaries: string[];
  semantic: SemanticHit[];
  /** 32-byte sketch of the query embedding; lets us estimate p_sem for non-semantic candidates. */
  querySketch: Uint8Array;
  asOf: number;
  now: number;
  /** Distinct query stems for the lexical expert (core/text/lexical queryTerms). */
  terms?: string[] | undefined;
  /** Edge types the router should prefer (from query intent). */
  preferEdges?: EdgeType[];
  /** Max chunks the router returns. */
  limit: number;
  /**
   * Recency seeds: the chunks the caller's session accessed, most recent first (at most 64), with
   * the time of the last access. Without a session this is empty, so a ranking depends only on
   * (archive state, query, as_of, params), never on what other callers asked before.
   */
  recent?: Array<{ chunk: string; at: number }> | undefined;
  filter?: RouteFilter | undefined;
  /**
   * A bookmark (a change-log position a write answered with): the answer includes every change of
   * the archive up to it, waiting for them a bounded time (Freshness says whether it did).
   */
  after?: number | undefined;
}

/** How far the capital chunk that answered had applied the archive's change log. */
export interface Freshness {
  /** Change-log position applied (the archive's changes up to it are in the answer). */
  applied: number;
  /** The bookmark the read asked for, or null. */
  after: number | null;
  /** Whether `applied` reached `after` (true without one). */
  reached: boolean;
  /** Milliseconds the read waited for it. */
  waitedMs: number;
}

export interface RouteResult {
  candidates: Candidate[];
  /** Router output in order: chunk ids to expand. */
  selected: Array<{
    chunk: string;
    version: number;
    score: number;
    /** Candidate.relevance of the chunk (its own lexical match; a hop does not lend it one). */
    relevance: number;
    depth: number;
    via: string | null;
  }>;
  trace: {
    mentions: ResolvedMention[];
    seeds: Array<{ chunk: string; weight: number; reasons: string[] }>;
    diffusion: { touched: number; steps: number; mass: Array<{ chunk: string; mass: number }> };
    routerSteps: RouterStep[];
    filteredByTime: number;
    /** Heads and router targets the filter excluded. */
    filteredByFilter?: number;
    candidatePool: number;
    /** With several shards: how many, and the rounds of questions the directory asked them. */
    shards?: { count: number; rounds: number };
  };
  /** Set by the capital port: the position of the change log the answer reflects. */
  freshness?: Freshness;
}

export interface AnchoredSpan {
  artifact_id: string;
  version: number;
  start: number;
  end: number;
  snippet: string;
}

/** The evidence card: the contract every distiller returns. */
export interface EvidenceCard {
  artifact_id: string;
  version: number;
  kind: ChunkKind;
  title: string;
  claim_boundary: string;
  logic_sketch: string;
  assumptions: string[];
  anchored_spans: AnchoredSpan[];
  tokens: number;
  distiller: string;
}

/** Events PaperGuru sends to subscribers (src/app/events.ts). */
export const EVENT_TYPES = [
  "chunk.created",
  "chunk.versioned",
  "chunk.deprecated",
  "chunk.deleted",
  "import.completed",
  "source.run_finished",
  "delivery.dead",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An entity an artifact declares (or a relation names): its type, name and aliases. */
export interface EntityInput {
  type: EntityType;
  id?: string | undefined;
  name: string;
  aliases?: string[] | undefined;
}

/** The boundary of a record that carries no date (its valid_from is when it was stored, not its year). */
export const UNDATED = "year:unknown";

/** What identifies an embedding space: the model id (Embedder.model) and the vector dimension. */
export interface EmbeddingSpace {
  model: string;
  dims: number;
}

/** A re-embed running for an archive. */
export interface RunningReembed {
  id: number;
  /** The space it writes (the embedder configured when it started). */
  target: EmbeddingSpace;
  startedAt: number;
}

/** What storage knows of an archive's vectors. */
export interface ArchiveSpaceState {
  /** The space the archive's vectors and head sketches are in; null before its first embedded ingest. */
  space: EmbeddingSpace | null;
  /**
   * Since when the archive holds heads whose vector or sketch is not in `space` (written while the
   * configured embedder was another one, or by a re-embed that did not finish); null: none.
   */
  staleSince: number | null;
  /** The re-embed running now. */
  job: RunningReembed | null;
}
