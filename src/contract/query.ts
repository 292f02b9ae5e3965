/**
 * Route, expand, context and verify; history, neighbours, resolve and session events.
 * zod schemas are the single source of request validation, TypeScript types and the OpenAPI
 * document; REST, MCP and the application layer all read them from src/contract.
 */
import { z } from "@hono/zod-openapi";
import { DEFAULT_MIN_CARD_RELEVANCE, DEFAULT_MIN_RELEVANCE } from "../core/capital/scoring";
import { anchorFields } from "../core/distill/card";
import { TOKENIZERS } from "../core/text/tokenizer";
import { CHUNK_KINDS, EDGE_TYPES } from "../core/types";
import { ChunkDetail, ENTITY_DETAIL_EXAMPLE, EntityDetail } from "./browse";
import { CardCode, CodeChunks, maxCodeBytes } from "./code";
import { Bookmark, boundedInt, FreshnessSchema, MAX_ID, T0, Time } from "./common";
import { RankingResult, RankingSchema } from "./discovery";
import { VectorSpaceNoteSchema } from "./embedding";

export const SessionId = z.string().min(1).max(200).openapi({
  description:
    "The caller's session: chunks it accessed (route, expand, context, verify with this id) seed recency; other sessions' accesses never do. Without it, no recency seeds.",
  example: "s-2025-01-10",
});

const Tokenizer = z.enum(TOKENIZERS).openapi({
  description:
    "Encoding budget_tokens and every card's tokens are counted in, exactly: cl100k_base (default; GPT-4, GPT-3.5 and most OpenAI-compatible tools) or o200k_base (GPT-4o and later; within a few per cent of cl100k_base on English).",
  example: "cl100k_base",
});

const Tags = z.array(z.string().min(1).max(200)).max(50);

/** What a query may return: applied to every head before the top-M cut and to every router target. */
export const FilterSchema = z
  .object({
    kinds: z
      .array(z.enum(CHUNK_KINDS))
      .max(CHUNK_KINDS.length)
      .optional()
      .openapi({ description: "Only these kinds." }),
    boundaries_any: Tags.optional().openapi({ description: "At least one of these boundary tags." }),
    boundaries_all: Tags.optional().openapi({ description: "Every one of these boundary tags." }),
    within: z.string().min(1).max(MAX_ID).optional().openapi({
      description: "Only the subtree under this chunk: it and what reaches it over part-of edges (exact, from D1).",
    }),
    cited_by: z.string().min(1).max(MAX_ID).optional().openapi({
      description:
        "Only what this chunk or anything in its part-of subtree cites (exact, from D1): a paper's or a section's references.",
    }),
    min_similarity: z
      .number()
      .min(-1)
      .max(1)
      .optional()
      .openapi({ description: "Minimum semantic similarity (cosine) of the head to the query." }),
    grounded: z
      .boolean()
      .optional()
      .openapi({ description: "true: only chunks something implements (techniques or designs with code)." }),
    exclude: z.array(z.string().min(1).max(MAX_ID)).max(1000).optional().openapi({
      description:
        "Never these chunk ids (the chunk a question is about, cards already in hand); relevance still flows through their edges.",
    }),
    research_memory: z.boolean().optional().openapi({
      description:
        "true: research memory (SGMC hubs `<node>#hub`, drafts `<node>#draft` and self-loop reviews `<node>#review`, boundaries sgmc:hub, sgmc:draft and sgmc:review) may be returned. Without it they are left out, unless boundaries_any or boundaries_all (or the query's boundaries) names their tag.",
    }),
  })
  .strict()
  .openapi("Filter", { example: { kinds: ["technique"], grounded: true, min_similarity: 0.2 } });

/** Exact neighbours to attach to each card (read from D1, not the bounded routing tables). */
export const FollowSchema = z
  .object({
    type: z.enum(EDGE_TYPES).openapi({ description: "Edge type, e.g. implements." }),
    direction: z
      .enum(["out", "in"])
      .default("out")
      .openapi({ description: "out: card -> neighbour; in: neighbour -> card." }),
    limit: boundedInt(1, 100, 20, "Neighbours per card (heaviest first)."),
  })
  .strict()
  .openapi("Follow", { example: { type: "implements", direction: "in", limit: 5 } });

const queryFields = {
  query: z.string().min(1).max(8000),
  as_of: Time.optional(),
  after: Bookmark.optional().openapi({
    description:
      "A write's `bookmark`: answer with every change up to it (read your own writes), waiting for it at most 2 s; `freshness.reached` says whether it was.",
  }),
  boundaries: Tags.optional(),
  filter: FilterSchema.optional(),
  ranking: RankingSchema.optional().openapi({
    description:
      "Rank the candidate pool (the top 256 after filters, never the archive) by a Paper Circle mode, a single score, MMR or a view; the result order follows it and `ranking` gives each item's scores. O(pool); MMR O(k·pool).",
  }),
};

/** include_trace: the trace is 72-83% of a /route or /context answer's bytes. */
const includeTrace = (dflt: boolean, why: string) =>
  z
    .boolean()
    .optional()
    .openapi({
      description: `Add the routing trace (resolved mentions, seeds, diffusion, router steps, timings) to the answer; default ${dflt}: ${why}`,
    });

export const RouteBody = z
  .object({
    ...queryFields,
    limit: z.number().int().min(1).max(256).optional().openapi({
      description:
        "At most this many candidates and selected chunks (1-256); without it, the candidate pool's top (params.top_m) and the router's selection.",
    }),
    session_id: SessionId.optional(),
    include_trace: includeTrace(
      false,
      "as for /context: the trace is most of the bytes, and an agent acts on the candidates.",
    ),
  })
  .openapi("RouteRequest", {
    example: { query: "Which PageRank damping does HippoRAG use?", as_of: "2025-01-01", limit: 8 },
  });

export const ContextBody = z
  .object({
    ...queryFields,
    budget_tokens: boundedInt(
      50,
      200_000,
      2000,
      "Tokens for the cards plus the session window (50-200,000; default 2,000, as in the CLI and MCP).",
    ),
    session_id: SessionId.optional(),
    max_cards: z.number().int().min(1).max(64).optional(),
    max_card_tokens: z.number().int().min(50).max(4000).optional(),
    short_term_share: z.number().min(0).max(0.9).optional(),
    tokenizer: Tokenizer.optional(),
    follow: z.array(FollowSchema).max(4).optional(),
    min_relevance: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .openapi({
        description: `The evidence floor (0-1; default ${DEFAULT_MIN_RELEVANCE}, chosen on the dev sets: docs/quality.md): when no selected chunk reaches it, the answer has no cards and \`evidence.found: false\` with a note saying so. 0 turns it off.`,
      }),
    min_card_relevance: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .openapi({
        description: `No card below this relevance is returned, so leftover budget is not filled with weak matches (0-1, at most min_relevance; default ${DEFAULT_MIN_CARD_RELEVANCE}: any higher default lost conversation recall on the dev sets).`,
      }),
    include_trace: includeTrace(
      false,
      "the cards are the answer; the trace is most of the bytes and no card depends on it.",
    ),
    max_code_bytes: maxCodeBytes(
      "Cap on the UTF-8 bytes of code all cards carry together (cards of kind code_unit; their code is in anchored_spans, see `code`), in rank order (xKG puts at most 52,100 bytes of code in a prompt): a card's code that does not fit whole is cut at its last line end within what is left (`code.truncated`), code cards left no room are left out and listed in `code_left_out`. Other cards are unaffected.",
    ),
    code_chunks: CodeChunks,
  })
  .openapi("ContextRequest", {
    example: { query: "Which PageRank damping do we use?", budget_tokens: 600, session_id: "s-2025-01-10" },
  });

export const ExpandBody = z
  .object({
    query: z.string().max(8000).default(""),
    chunks: z
      .array(z.object({ id: z.string().min(1).max(512), version: z.number().int().min(1).optional() }))
      .min(1)
      .max(64),
    as_of: Time.optional(),
    budget_tokens: z.number().int().min(50).max(200_000).default(4000),
    max_card_tokens: z.number().int().min(50).max(4000).optional(),
    session_id: SessionId.optional(),
    tokenizer: Tokenizer.optional(),
    filter: FilterSchema.omit({ min_similarity: true }).optional(),
    follow: z.array(FollowSchema).max(4).optional(),
  })
  .openapi("ExpandRequest", {
    example: { query: "PageRank damping", chunks: [{ id: "arxiv:2405.14831" }], budget_tokens: 1200 },
  });

export const AnchorSchema = z.object(anchorFields).openapi("Anchor", {
  example: {
    artifact_id: "arxiv:2405.14831",
    version: 1,
    start: 0,
    end: 35,
    snippet: "HippoRAG uses Personalized PageRank",
  },
});

export const VerifyBody = z
  .object({ anchors: z.array(AnchorSchema).min(1).max(500), session_id: SessionId.optional() })
  .openapi("VerifyRequest", {
    example: {
      anchors: [
        {
          artifact_id: "arxiv:2405.14831",
          version: 1,
          start: 0,
          end: 35,
          snippet: "HippoRAG uses Personalized PageRank",
        },
      ],
    },
  });

const CARD_EXAMPLE = {
  artifact_id: "arxiv:2405.14831",
  version: 1,
  kind: "paper",
  title: "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",
  claim_boundary: "task:multi-hop-qa",
  logic_sketch: "HippoRAG uses Personalized PageRank with a damping factor of 0.5.",
  assumptions: [],
  anchored_spans: [
    { artifact_id: "arxiv:2405.14831", version: 1, start: 0, end: 35, snippet: "HippoRAG uses Personalized PageRank" },
  ],
  tokens: 64,
  distiller: "extractive-v1",
};

export const CardSchema = z
  .object({
    artifact_id: z.string(),
    version: z.number(),
    kind: z.string(),
    title: z.string(),
    claim_boundary: z.string(),
    logic_sketch: z.string(),
    assumptions: z.array(z.string()),
    anchored_spans: z.array(AnchorSchema),
    tokens: z.number(),
    distiller: z.string(),
  })
  .openapi("EvidenceCard", { example: CARD_EXAMPLE });

export const SessionEventsBody = z
  .object({
    events: z
      .array(z.object({ role: z.string().min(1).max(50), text: z.string().min(1).max(50_000), at: Time.optional() }))
      .min(1)
      .max(200),
  })
  .openapi("SessionEvents", {
    example: { events: [{ role: "user", text: "Keep the damping at 0.85 for now.", at: "2025-01-10T09:30:00Z" }] },
  });

export const ChunkQuery = z.object({
  chunk: z
    .string()
    .min(1)
    .max(MAX_ID)
    .openapi({ param: { name: "chunk", in: "query" } }),
  as_of: Time.optional().openapi({ param: { name: "as_of", in: "query" } }),
});

export const HistoryQuery = z.object({
  chunk: z
    .string()
    .min(1)
    .max(MAX_ID)
    .optional()
    .openapi({ param: { name: "chunk", in: "query" } }),
  entity: z
    .string()
    .min(1)
    .max(MAX_ID)
    .optional()
    .openapi({ param: { name: "entity", in: "query" } }),
});

export const ResolveQuery = z.object({
  mention: z
    .string()
    .min(1)
    .max(300)
    .openapi({ param: { name: "mention", in: "query" } }),
  as_of: Time.optional().openapi({ param: { name: "as_of", in: "query" } }),
});

const RELEVANCE =
  "How likely the chunk is evidence for the query, 0-1, comparable across queries and archives: a logistic of its lexical match, its share of the query's named entities, its timeline neighbours' match and its graph share, fitted on the dev sets (docs/quality.md); 1 for a chunk the query names by identifier. `score` orders one query's results; set floors on relevance.";

export const CandidateSchema = z
  .object({
    chunk: z.string(),
    kind: z.string(),
    version: z.number(),
    score: z.number(),
    relevance: z.number().min(0).max(1).openapi({ description: RELEVANCE }),
    match: z.number().min(0).openapi({
      description:
        "The chunk's BM25 over the query's lexical ceiling (the sum of its terms' IDF, a term the archive lacks at the rarest IDF): about 1 when the chunk has every query term once; an input of relevance.",
    }),
    experts: z.object({
      sem: z.number(),
      lex: z.number(),
      sym: z.number(),
      graph: z.number(),
      rec: z.number(),
      thread: z.number(),
    }),
    mass: z.number(),
  })
  .openapi("Candidate");

const SelectedSchema = z.object({
  chunk: z.string(),
  version: z.number(),
  score: z.number(),
  relevance: z.number().min(0).max(1).openapi({ description: RELEVANCE }),
  depth: z.number(),
  via: z.string().nullable(),
});

const TRACE_EXAMPLE = {
  mentions: [{ text: "HippoRAG", entity: "method:hipporag", via: "alias" }],
  seeds: [{ chunk: "arxiv:2405.14831", weight: 1, reasons: ["entity:method:hipporag"] }],
  diffusion: { touched: 12, steps: 3, mass: [{ chunk: "arxiv:2405.14831", mass: 0.31 }] },
  router_steps: [],
  filtered_by_time: 0,
  candidate_pool: 12,
  timings_ms: { resolve: 0.4, diffusion: 1.2, route: 0.6 },
};

/** The trace: resolved entities, seeds, diffusion mass, router steps, per-phase timings (ms). */
/** What a model distiller spent on a request's cards (present only when DISTILLER names a model). */
export const ModelUsageSchema = z
  .object({
    distiller: z.string().openapi({ description: "provider:model" }),
    limit_tokens: z
      .number()
      .openapi({ description: "input + output tokens the request may spend (LLM_MAX_TOKENS_PER_QUERY)" }),
    input_tokens: z.number(),
    output_tokens: z.number(),
    calls: z.number().openapi({ description: "card attempts sent to the model (a retry counts again)" }),
    requests: z.number().openapi({ description: "HTTP requests, the adapter's retries (429, 5xx, timeouts) included" }),
    retries: z.number().openapi({ description: "second attempts after an unusable card" }),
    fallbacks: z.number().openapi({ description: "cards the extractive distiller made instead" }),
    fallback_reasons: z.record(z.string(), z.number()),
    cache_hits: z.number(),
  })
  .openapi("ModelUsage", {
    description:
      "What a model distiller (DISTILLER=openai|anthropic|workers-ai, docs/models.md) spent on this request's cards; absent with the extractive distiller",
  });

export const TraceSchema = z
  .object({
    mentions: z.array(
      z.object({
        text: z.string(),
        entity: z.string(),
        via: z.string(),
        ambiguous: z.boolean().optional().openapi({
          description:
            "The text names several entities: the route seeds each, and GET …/resolve answers resolved null with them as candidates.",
        }),
      }),
    ),
    seeds: z.array(z.object({ chunk: z.string(), weight: z.number(), reasons: z.array(z.string()) })),
    diffusion: z.object({
      touched: z.number(),
      steps: z.number(),
      mass: z.array(z.object({ chunk: z.string(), mass: z.number() })),
    }),
    router_steps: z.array(
      z.object({
        depth: z.number(),
        from: z.string(),
        to: z.string(),
        edge_type: z.string(),
        score: z.number(),
        accepted: z.boolean(),
      }),
    ),
    filtered_by_time: z.number(),
    filtered_by_filter: z.number().optional().openapi({ description: "heads and router targets the filter excluded" }),
    candidate_pool: z.number(),
    shards: z.object({ count: z.number(), rounds: z.number() }).optional().openapi({
      description:
        "when the archive's capital chunk spans several shards: how many, and the rounds of questions the directory asked them (docs/sharding.md)",
    }),
    timings_ms: z.record(z.string(), z.number()),
    model: ModelUsageSchema.optional(),
    vector_space: VectorSpaceNoteSchema.optional().openapi({
      description:
        "present when semantic seeds were skipped because the archive's vectors are in another embedding space than the configured embedder's, or being re-embedded (docs/models.md); the response then has the header PaperGuru-Vector-Space",
    }),
  })
  .loose()
  .openapi("Trace");

export const RouteResponse = z
  .object({
    as_of: z.string(),
    candidates: z.array(CandidateSchema),
    selected: z.array(SelectedSchema),
    ranking: RankingResult.optional().openapi({ description: "With `ranking`: the pool's order and per-item scores." }),
    freshness: FreshnessSchema,
    trace: TraceSchema.optional().openapi({ description: "With include_trace: true." }),
  })
  .openapi("RouteResponse", {
    example: {
      as_of: "2025-01-01T00:00:00.000Z",
      candidates: [
        {
          chunk: "arxiv:2405.14831",
          kind: "paper",
          version: 1,
          score: 0.82,
          relevance: 0.91,
          match: 0.84,
          experts: { sem: 0.71, lex: 0.9, sym: 1, graph: 0.4, rec: 0.2, thread: 0 },
          mass: 0.31,
        },
      ],
      selected: [{ chunk: "arxiv:2405.14831", version: 1, score: 0.82, relevance: 0.91, depth: 0, via: null }],
      trace: TRACE_EXAMPLE,
    },
  });

const Skipped = z.array(z.object({ chunk: z.string(), reason: z.string() }));

/** A card with the exact neighbours `follow` asked for. */
const FollowedCard = CardSchema.extend({
  follow: z
    .array(
      z.object({
        type: z.string(),
        direction: z.enum(["out", "in"]),
        chunk: z.string(),
        version: z.number().int().nullable().openapi({ description: "valid at as_of; null when none is" }),
        weight: z.number(),
      }),
    )
    .optional()
    .openapi({ description: "With `follow`: the card's neighbours over those edge types, heaviest first." }),
});

export const ExpandResponse = z
  .object({
    cards: z.array(FollowedCard),
    skipped: Skipped,
    tokens: z.number(),
    trace: z.object({ timings_ms: z.record(z.string(), z.number()), model: ModelUsageSchema.optional() }),
  })
  .openapi("ExpandResponse", {
    example: {
      cards: [CARD_EXAMPLE],
      skipped: [],
      tokens: 64,
      trace: { timings_ms: { fetch: 3.1, distill: 0.8 } },
    },
  });

/** A /context card: the route's score and relevance of its chunk. */
const ContextCard = FollowedCard.extend({
  score: z.number().openapi({ description: "The route's score of the chunk (orders this query's cards)." }),
  relevance: z.number().min(0).max(1).openapi({ description: RELEVANCE }),
  code: CardCode.optional().openapi({
    description: "With max_code_bytes or code_chunks, on code_unit cards: the code the card carries.",
  }),
});

export const EvidenceSchema = z
  .object({
    found: z.boolean().openapi({
      description:
        "Some chunk cleared the floor (its card may still not fit the budget: see `skipped`). false: no evidence, and no cards.",
    }),
    floor: z.number(),
    card_floor: z.number(),
    best_relevance: z.number().openapi({ description: "The best relevance among the route's results." }),
    below_floor: z.number().int().openapi({
      description:
        "Selected chunks left out: all of them when nothing reached the floor, else those below the card floor.",
    }),
    note: z.string().optional().openapi({ description: "When nothing cleared the floor: says so, for the prompt." }),
  })
  .openapi("Evidence");

export const ContextResponse = z
  .object({
    as_of: z.string(),
    freshness: FreshnessSchema,
    short_term: z.array(
      z.object({
        role: z.string(),
        text: z.string(),
        tokens: z.number(),
        at: z.string().openapi({ description: "ISO 8601" }),
      }),
    ),
    short_term_chunks: z
      .array(
        z.object({
          chunk: z.string(),
          version: z.number().int(),
          kind: z.string(),
          title: z.string(),
          synopsis: z.string(),
          at: z.string().openapi({ description: "When the session last expanded or verified it (ISO 8601)." }),
          tokens: z.number(),
        }),
      )
      .openapi({
        description:
          "With `session_id`: the chunks the session recently opened (expanded, read with `GET …/content?session_id=`, or verified; at most 16 read), heads as of `as_of`, in the short-term window with the events: both merged newest first until the first that does not fit `short_term_share` of the budget; chronological.",
      }),
    short_term_dropped: z
      .object({ events: z.number().int(), chunks: z.number().int() })
      .openapi({ description: "Events (of the last 50) and opened chunks (of the last 16) left out of the window." }),
    cards: z.array(ContextCard),
    evidence: EvidenceSchema,
    budget: z.object({
      total: z.number(),
      short_term: z.number(),
      cards: z.number(),
      remaining: z.number(),
      tokenizer: z.string(),
    }),
    skipped: Skipped,
    code_bytes: z.number().int().optional().openapi({
      description: "With max_code_bytes or code_chunks: UTF-8 bytes of the code the cards carry, together.",
    }),
    code_left_out: z.array(z.string()).optional().openapi({
      description: "With max_code_bytes: the code cards left out because no room was left for any of their code.",
    }),
    ranking: RankingResult.optional().openapi({
      description: "With `ranking`: the order the cards were expanded in and per-item scores.",
    }),
    trace: TraceSchema.optional().openapi({ description: "With include_trace: true." }),
  })
  .openapi("ContextResponse", {
    example: {
      as_of: "2025-01-10T10:00:00.000Z",
      short_term: [{ role: "user", text: "Keep the damping at 0.85 for now.", tokens: 14, at: T0 }],
      short_term_chunks: [
        {
          chunk: "paper:hipporag",
          version: 1,
          kind: "paper",
          title: "HippoRAG",
          synopsis: "Personalized PageRank over a knowledge graph as long-term memory.",
          at: T0,
          tokens: 22,
        },
      ],
      short_term_dropped: { events: 0, chunks: 0 },
      cards: [{ ...CARD_EXAMPLE, score: 0.82, relevance: 0.91 }],
      evidence: {
        found: true,
        floor: DEFAULT_MIN_RELEVANCE,
        card_floor: DEFAULT_MIN_CARD_RELEVANCE,
        best_relevance: 0.91,
        below_floor: 0,
      },
      budget: { total: 600, short_term: 36, cards: 64, remaining: 500, tokenizer: "cl100k_base" },
      skipped: [],
      trace: TRACE_EXAMPLE,
    },
  });

export const History = z.union([ChunkDetail, EntityDetail]).openapi("History", {
  description:
    "?chunk= answers a ChunkDetail (as GET …/chunks/{id}), ?entity= an EntityDetail (as GET …/entities/{id})",
  example: ENTITY_DETAIL_EXAMPLE,
});

export const Neighbours = z
  .object({
    head: z
      .object({
        chunk: z.string(),
        kind: z.string().nullable(),
        latest_version: z.number(),
        first_valid_from: z.string().nullable().openapi({ description: "ISO 8601" }),
        end_at: z.string().nullable().openapi({ description: "End of validity (deprecation), ISO 8601; null if open" }),
        deprecated: z.boolean(),
        last_access: z.string().nullable().openapi({ description: "ISO 8601; null if never accessed" }),
        access_count: z.number(),
      })
      .nullable(),
    neighbours: z.array(
      z.object({
        chunk: z.string(),
        type: z.string(),
        weight: z.number().openapi({ description: "rounded to 4 decimals" }),
        direction: z.enum(["out", "in"]),
        visible: z.boolean().openapi({ description: "the neighbour itself is valid at as_of" }),
      }),
    ),
  })
  .openapi("Neighbours", {
    example: {
      head: {
        chunk: "arxiv:2405.14831",
        kind: "paper",
        latest_version: 1,
        first_valid_from: T0,
        end_at: null,
        deprecated: false,
        last_access: T0,
        access_count: 4,
      },
      neighbours: [{ chunk: "arxiv:2112.01488", type: "cites", weight: 1, direction: "out", visible: true }],
    },
  });

export const Resolved = z
  .object({
    mention: z.string(),
    resolved: z.object({ entity: z.string(), name: z.string(), via: z.string() }).nullable(),
    candidates: z
      .array(z.object({ entity: z.string(), name: z.string() }))
      .optional()
      .openapi({ description: "When the name is an alias of several entities: all of them (resolved is then null)." }),
  })
  .openapi("Resolved", {
    example: { mention: "Hippo RAG", resolved: { entity: "method:hipporag", name: "HippoRAG", via: "alias" } },
  });

export const VerifyResponse = z
  .object({
    all_verified: z.boolean(),
    results: z.array(
      z.object({
        anchor: AnchorSchema,
        verified: z.boolean(),
        reason: z.enum(["ok", "snippet_mismatch", "version_not_found", "span_out_of_range"]),
        actual: z.string().optional().openapi({ description: "the stored text, on snippet_mismatch" }),
      }),
    ),
  })
  .openapi("VerifyResponse", {
    example: {
      all_verified: true,
      results: [
        {
          anchor: {
            artifact_id: "arxiv:2405.14831",
            version: 1,
            start: 0,
            end: 35,
            snippet: "HippoRAG uses Personalized PageRank",
          },
          verified: true,
          reason: "ok",
        },
      ],
    },
  });

export const SessionAppended = z
  .object({ appended: z.number(), tokens: z.number() })
  .openapi("SessionAppended", { example: { appended: 1, tokens: 14 } });
