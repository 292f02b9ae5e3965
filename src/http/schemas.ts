/**
 * zod schemas: the single source of request validation, TypeScript types and the OpenAPI document.
 */
import { z } from "@hono/zod-openapi";
import { type ArtifactInput, INGEST_LIMITS } from "../core/ingest";
import { RELATION_LIMITS } from "../core/relations";
import { TOKENIZERS } from "../core/text/tokenizer";
import { CHUNK_KINDS, DECLARABLE_EDGE_TYPES, ENTITY_TYPES } from "../core/types";

export const ErrorSchema = z
  .object({
    error: z.object({
      type: z.enum([
        "validation",
        "unauthorized",
        "forbidden",
        "not_found",
        "conflict",
        "too_large",
        "unavailable",
        "internal",
      ]),
      message: z.string(),
      field: z.string().optional(),
      hint: z.string().optional(),
    }),
  })
  .openapi("Error", {
    description:
      "Every failure has this shape. `type` is the failure kind (one per HTTP status), `field` the JSON path, parameter or header at fault, `hint` what to do about it.",
    example: {
      error: {
        type: "validation",
        message: "artifacts.0.valid_from: Invalid ISO date",
        field: "artifacts.0.valid_from",
        hint: "see /openapi.json for the schema",
      },
    },
  });

/** ISO 8601 date or date-time; converted to epoch ms by the handlers. */
export const Time = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .openapi({ example: "2024-05-23T00:00:00Z", description: "ISO 8601 date or date-time (UTC if no offset)" });

export const ArchiveParam = z.object({
  archive: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{1,62}$/)
    .openapi({ param: { name: "archive", in: "path" }, example: "rag-memory" }),
});

export const KernelParamsSchema = z
  .object({
    alpha: z.number().gt(0).lt(1),
    iterations: z.number().int().min(1).max(100),
    kr: z.number().int().min(1).max(64),
    topM: z.number().int().min(1).max(4096),
    dMax: z.number().int().min(0).max(6),
    eta: z.number().min(0).max(10),
    recencyHalfLifeDays: z.number().positive(),
    routerBeam: z.number().int().min(1).max(256),
    pushEpsilon: z.number().min(1e-6).max(0.1),
    maxFrontier: z.number().int().min(16).max(16384),
    maxPostingsPerEntity: z.number().int().min(16).max(8192),
    maxPostingsPerTerm: z.number().int().min(16).max(65536),
    maxLexicalPostings: z.number().int().min(256).max(1_048_576),
    lexicalSeeds: z.number().int().min(0).max(1000),
    weights: z
      .object({
        sem: z.number().min(0).max(4),
        lex: z.number().min(0).max(4),
        sym: z.number().min(0).max(4),
        graph: z.number().min(0).max(4),
        rec: z.number().min(0).max(4),
      })
      .partial()
      .openapi({ description: "exponents of the experts in the product of experts (0 turns one off)" }),
  })
  .partial()
  .openapi("KernelParams");

export const CreateArchive = z
  .object({
    id: ArchiveParam.shape.archive.optional(),
    name: z.string().min(1).max(200),
    description: z.string().max(2000).optional(),
    params: KernelParamsSchema.optional(),
  })
  .openapi("CreateArchive", {
    example: { id: "rag-memory", name: "RAG memory", description: "papers and notes on agent memory" },
  });

export const Scope = z.enum(["read", "write"]);

export const CreateKey = z
  .object({ scopes: z.array(Scope).min(1).default(["read", "write"]), label: z.string().max(200).optional() })
  .openapi("CreateKey", { example: { scopes: ["read"], label: "research agent (read-only)" } });

export const EntityInputSchema = z.object({
  type: z.enum(ENTITY_TYPES),
  id: z.string().min(1).max(300).optional().openapi({ example: "arxiv:2405.14831" }),
  name: z.string().min(1).max(300),
  aliases: z.array(z.string().min(1).max(300)).max(50).optional(),
});

export const EdgeInputSchema = z.object({
  type: z
    .enum(DECLARABLE_EDGE_TYPES)
    .openapi({ description: "`mentions` edges are derived by the analyser and cannot be declared" }),
  target: z.string().min(1).max(512),
  weight: z.number().min(0).max(1000).optional(),
  valid_from: Time.optional(),
  valid_to: Time.nullable().optional(),
  context: z.string().max(1000).optional().openapi({ description: "why the edge exists, e.g. the citing sentence" }),
});

const relationArg = z.string().trim().min(1).max(RELATION_LIMITS.maxChars);

export const RelationInputSchema = z
  .object({
    subject: relationArg,
    predicate: relationArg,
    object: relationArg,
    subject_type: z.enum(ENTITY_TYPES).optional(),
    object_type: z.enum(ENTITY_TYPES).optional(),
  })
  .openapi("Relation", {
    description:
      "A pre-extracted triple (OpenIE). Subject and object become entities of the artifact (type: the given one, else a declared entity's of that name, else `concept`); the triples are stored with the version and shown by /history.",
    example: { subject: "HippoRAG", predicate: "uses", object: "Personalized PageRank", subject_type: "method" },
  });

const artifactFields = {
  kind: z.enum(CHUNK_KINDS).openapi({
    description:
      "paper, section, code_unit, benchmark_row, record (an event or a conversation turn: records with the same boundaries form a timeline by valid_from, each linked to the one before it), decision, note, dataset, technique",
  }),
  title: z.string().min(1).max(1000),
  synopsis: z.string().max(2000).optional(),
  content: z.string().min(1, "content must not be empty"),
  entities: z.array(EntityInputSchema).max(INGEST_LIMITS.maxEntitiesPerArtifact).optional(),
  boundaries: z.array(z.string().min(1).max(200)).max(100).optional(),
  edges: z.array(EdgeInputSchema).max(INGEST_LIMITS.maxEdgesPerArtifact).optional(),
  relations: z
    .array(RelationInputSchema)
    .max(RELATION_LIMITS.maxRelationsPerArtifact)
    .optional()
    .openapi({
      description: `Pre-extracted triples {subject, predicate, object, subject_type?, object_type?} (≤ ${RELATION_LIMITS.maxRelationsPerArtifact}, strings ≤ ${RELATION_LIMITS.maxChars} chars). Their subjects and objects count toward the ${INGEST_LIMITS.maxEntitiesPerArtifact} entities per artifact.`,
    }),
  valid_from: Time.optional(),
  source: z.string().max(2000).optional(),
};

const ARTIFACT_EXAMPLE = {
  id: "arxiv:2405.14831",
  kind: "paper" as const,
  title: "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",
  content: "HippoRAG uses Personalized PageRank with a damping factor of 0.5 over a schemaless knowledge graph.",
  entities: [{ type: "method" as const, id: "method:hipporag", name: "HippoRAG", aliases: ["Hippo RAG"] }],
  boundaries: ["task:multi-hop-qa"],
  edges: [{ type: "cites" as const, target: "arxiv:2112.01488", weight: 1 }],
  relations: [{ subject: "HippoRAG", predicate: "uses", object: "Personalized PageRank" }],
  valid_from: "2024-05-23",
  source: "https://arxiv.org/abs/2405.14831v1",
};

export const ArtifactSchema = z
  .object({ id: z.string().min(1).max(512).openapi({ example: "arxiv:2405.14831" }), ...artifactFields })
  .openapi("Artifact", { example: ARTIFACT_EXAMPLE });

/** Batch size is checked by the core (413 with the limit), not here (that would be a 400). */
export const IngestBody = z
  .object({ artifacts: z.array(ArtifactSchema).min(1) })
  .openapi("IngestBatch", { example: { artifacts: [ARTIFACT_EXAMPLE] } });

export const IngestResult = z
  .object({
    results: z.array(
      z.object({ id: z.string(), status: z.enum(["created", "updated", "unchanged"]), version: z.number() }),
    ),
    counts: z.object({ created: z.number(), updated: z.number(), unchanged: z.number() }),
    recorded_at: z.number().openapi({ description: "transaction time (epoch ms)" }),
  })
  .openapi("IngestResult", {
    example: {
      results: [{ id: "arxiv:2405.14831", status: "created", version: 1 }],
      counts: { created: 1, updated: 0, unchanged: 0 },
      recorded_at: 1735689600000,
    },
  });

export const DeprecateBody = z
  .object({
    id: z.string().min(1).max(512),
    by: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .openapi({ description: "successor chunk id (adds a deprecated-by edge)" }),
    at: Time.optional(),
    reason: z.string().max(2000).optional(),
  })
  .openapi("Deprecate", {
    example: { id: "decision:cache", by: "decision:cache-v2", at: "2025-01-10", reason: "superseded" },
  });

export const AliasBody = z
  .object({
    entity: z.string().min(1),
    alias: z.string().min(1).max(300),
    at: Time.optional(),
  })
  .openapi("Alias", { example: { entity: "method:hipporag", alias: "Hippo RAG", at: "2024-06-01" } });
export const RenameBody = z
  .object({
    entity: z.string().min(1),
    new_name: z.string().min(1).max(300),
    at: Time.optional(),
  })
  .openapi("Rename", { example: { entity: "method:hipporag", new_name: "HippoRAG 2", at: "2025-02-20" } });
export const MergeBody = z
  .object({ entity: z.string().min(1), into: z.string().min(1), at: Time.optional() })
  .openapi("Merge", { example: { entity: "method:hippo-rag", into: "method:hipporag", at: "2024-07-01" } });

const SessionId = z.string().min(1).max(200).openapi({
  description:
    "The caller's session: chunks it accessed (route, expand, context, verify with this id) seed recency; other sessions' accesses never do. Without it, no recency seeds.",
  example: "s-2025-01-10",
});

const Tokenizer = z.enum(TOKENIZERS).openapi({
  description:
    "Encoding budget_tokens and every card's tokens are counted in, exactly: cl100k_base (default; GPT-4, GPT-3.5 and most OpenAI-compatible tools) or o200k_base (GPT-4o and later; within a few per cent of cl100k_base on English).",
  example: "cl100k_base",
});

const queryFields = {
  query: z.string().min(1).max(8000),
  as_of: Time.optional(),
  boundaries: z.array(z.string().min(1).max(200)).max(50).optional(),
};

export const RouteBody = z
  .object({ ...queryFields, limit: z.number().int().min(1).max(256).optional(), session_id: SessionId.optional() })
  .openapi("RouteRequest", {
    example: { query: "Which PageRank damping does HippoRAG use?", as_of: "2025-01-01", limit: 8 },
  });

export const ContextBody = z
  .object({
    ...queryFields,
    budget_tokens: z.number().int().min(50).max(200_000),
    session_id: SessionId.optional(),
    max_cards: z.number().int().min(1).max(64).optional(),
    max_card_tokens: z.number().int().min(50).max(4000).optional(),
    short_term_share: z.number().min(0).max(0.9).optional(),
    tokenizer: Tokenizer.optional(),
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
  })
  .openapi("ExpandRequest", {
    example: { query: "PageRank damping", chunks: [{ id: "arxiv:2405.14831" }], budget_tokens: 1200 },
  });

export const AnchorSchema = z
  .object({
    artifact_id: z.string().min(1),
    version: z.number().int().min(1),
    start: z.number().int().min(0),
    end: z.number().int().min(1),
    snippet: z.string(),
  })
  .openapi("Anchor", {
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
    .openapi({ param: { name: "chunk", in: "query" } }),
  as_of: Time.optional().openapi({ param: { name: "as_of", in: "query" } }),
});

export const HistoryQuery = z.object({
  chunk: z
    .string()
    .min(1)
    .optional()
    .openapi({ param: { name: "chunk", in: "query" } }),
  entity: z
    .string()
    .min(1)
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

export const CandidateSchema = z
  .object({
    chunk: z.string(),
    kind: z.string(),
    version: z.number(),
    score: z.number(),
    experts: z.object({ sem: z.number(), lex: z.number(), sym: z.number(), graph: z.number(), rec: z.number() }),
    mass: z.number(),
  })
  .openapi("Candidate");

const SelectedSchema = z.object({
  chunk: z.string(),
  version: z.number(),
  score: z.number(),
  depth: z.number(),
  via: z.string().nullable(),
});

const TRACE_EXAMPLE = {
  mentions: [{ text: "HippoRAG", entity: "method:hipporag", via: "alias" }],
  seeds: [{ chunk: "arxiv:2405.14831", weight: 1, reasons: ["entity:method:hipporag"] }],
  diffusion: { touched: 12, steps: 3, mass: [{ chunk: "arxiv:2405.14831", mass: 0.31 }] },
  routerSteps: [],
  filteredByTime: 0,
  candidatePool: 12,
  timings_ms: { resolve: 0.4, diffusion: 1.2, route: 0.6 },
};

/** The trace: resolved entities, seeds, diffusion mass, router steps, per-phase timings (ms). */
export const TraceSchema = z
  .object({
    mentions: z.array(z.object({ text: z.string(), entity: z.string(), via: z.string() })),
    seeds: z.array(z.object({ chunk: z.string(), weight: z.number(), reasons: z.array(z.string()) })),
    diffusion: z.object({
      touched: z.number(),
      steps: z.number(),
      mass: z.array(z.object({ chunk: z.string(), mass: z.number() })),
    }),
    routerSteps: z.array(
      z.object({
        depth: z.number(),
        from: z.string(),
        to: z.string(),
        edgeType: z.string(),
        score: z.number(),
        accepted: z.boolean(),
      }),
    ),
    filteredByTime: z.number(),
    candidatePool: z.number(),
    timings_ms: z.record(z.string(), z.number()),
  })
  .loose()
  .openapi("Trace");

export const RouteResponse = z
  .object({
    as_of: z.string(),
    candidates: z.array(CandidateSchema),
    selected: z.array(SelectedSchema),
    trace: TraceSchema,
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
          experts: { sem: 0.71, lex: 0.9, sym: 1, graph: 0.4, rec: 0.2 },
          mass: 0.31,
        },
      ],
      selected: [{ chunk: "arxiv:2405.14831", version: 1, score: 0.82, depth: 0, via: null }],
      trace: TRACE_EXAMPLE,
    },
  });

const Skipped = z.array(z.object({ chunk: z.string(), reason: z.string() }));

export const ExpandResponse = z
  .object({
    cards: z.array(CardSchema),
    skipped: Skipped,
    tokens: z.number(),
    trace: z.object({ timings_ms: z.record(z.string(), z.number()) }),
  })
  .openapi("ExpandResponse", {
    example: {
      cards: [CARD_EXAMPLE],
      skipped: [],
      tokens: 64,
      trace: { timings_ms: { fetch: 3.1, distill: 0.8 } },
    },
  });

export const ContextResponse = z
  .object({
    as_of: z.string(),
    short_term: z.array(z.object({ role: z.string(), text: z.string(), tokens: z.number(), at: z.number() })),
    cards: z.array(CardSchema),
    budget: z.object({
      total: z.number(),
      shortTerm: z.number(),
      cards: z.number(),
      remaining: z.number(),
      tokenizer: z.string(),
    }),
    skipped: Skipped,
    trace: TraceSchema,
  })
  .openapi("ContextResponse", {
    example: {
      as_of: "2025-01-10T10:00:00.000Z",
      short_term: [{ role: "user", text: "Keep the damping at 0.85 for now.", tokens: 14, at: 1736501400000 }],
      cards: [CARD_EXAMPLE],
      budget: { total: 600, shortTerm: 14, cards: 64, remaining: 522, tokenizer: "cl100k_base" },
      skipped: [],
      trace: TRACE_EXAMPLE,
    },
  });

/** Response bodies are documented loosely where they are large traces; the card schema is strict. */
export const AnyObject = z.record(z.string(), z.unknown());

/** ISO time -> epoch ms (the schemas already checked the format). */
export function toMs(t: string | undefined): number | undefined {
  return t === undefined ? undefined : Date.parse(t);
}

/** The wire artifact (ISO times) -> the core's ArtifactInput (epoch ms). */
export function toArtifactInput(a: z.infer<typeof ArtifactSchema>): ArtifactInput {
  const { valid_from, edges, ...rest } = a;
  return {
    ...rest,
    valid_from: toMs(valid_from),
    edges: edges?.map(({ valid_from: f, valid_to: t, ...e }) => ({
      ...e,
      valid_from: toMs(f),
      valid_to: t === null ? null : toMs(t),
    })),
  };
}

// ------------------------------------------------------------------ response bodies

const T0 = "2025-01-10T09:30:00.000Z";
const MS0 = 1736501400000;

export const Healthz = z
  .object({ ok: z.boolean(), service: z.string() })
  .openapi("Healthz", { example: { ok: true, service: "paperguru" } });

export const ArchiveSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    params: z.record(z.string(), z.unknown()).openapi({ description: "kernel parameter overrides" }),
    createdAt: z.number().openapi({ description: "epoch ms" }),
  })
  .openapi("Archive", {
    example: {
      id: "rag-memory",
      name: "RAG memory",
      description: "papers and notes on agent memory",
      params: {},
      createdAt: MS0,
    },
  });
const ARCHIVE_EXAMPLE = {
  id: "rag-memory",
  name: "RAG memory",
  description: "papers and notes on agent memory",
  params: {},
  createdAt: MS0,
};

export const ArchiveCreated = z
  .object({
    archive: ArchiveSchema,
    key: z.object({
      id: z.string(),
      secret: z.string().openapi({ description: "shown once; only its SHA-256 is stored" }),
      scopes: z.array(z.string()),
    }),
  })
  .openapi("ArchiveCreated", {
    example: {
      archive: ARCHIVE_EXAMPLE,
      key: {
        id: "k_1a2b3c4d5e6f7a8b",
        secret: "pgk_0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978",
        scopes: ["read", "write"],
      },
    },
  });

export const ArchiveList = z
  .object({ archives: z.array(ArchiveSchema) })
  .openapi("ArchiveList", { example: { archives: [ARCHIVE_EXAMPLE] } });

/** Capital-chunk statistics are measured estimates whose fields grow with the implementation. */
export const ArchiveInfo = z
  .object({
    archive: ArchiveSchema.nullable(),
    stats: z.object({
      capital: z
        .object({
          heads: z.number(),
          nodes: z.number(),
          edges: z.number(),
          entities: z.number(),
          bytes: z.record(z.string(), z.number()),
          bytesPerHead: z.number(),
          seq: z.number(),
        })
        .loose(),
      storage: z.object({ chunks: z.number(), versions: z.number(), edges: z.number(), entities: z.number() }),
    }),
  })
  .openapi("ArchiveInfo", {
    example: {
      archive: ARCHIVE_EXAMPLE,
      stats: {
        capital: {
          heads: 1200,
          nodes: 1450,
          edges: 5300,
          slots: 10600,
          entities: 800,
          aliases: 950,
          bytes: { nodes: 61440, sketches: 76800, neighbours: 169600, total: 420000 },
          bytesPerHead: 350,
          seq: 3100,
          lastRebuild: { ms: 41, fromSnapshotSeq: 3000, snapshotBytes: 390000, replayed: 100, seq: 3100 },
          params: {},
        },
        storage: { chunks: 1200, versions: 1340, edges: 5300, entities: 800 },
      },
    },
  });

export const KeyIssued = z
  .object({
    id: z.string(),
    secret: z.string().openapi({ description: "shown once; only its SHA-256 is stored" }),
    scopes: z.array(z.string()),
    label: z.string(),
  })
  .openapi("KeyIssued", {
    example: {
      id: "k_9f8e7d6c5b4a3928",
      secret: "pgk_a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718",
      scopes: ["read"],
      label: "research agent (read-only)",
    },
  });

export const KeySchema = z
  .object({
    id: z.string(),
    archiveId: z.string(),
    label: z.string(),
    scopes: z.array(z.string()),
    createdAt: z.number(),
    revokedAt: z.number().nullable(),
  })
  .openapi("Key");

export const KeyList = z.object({ keys: z.array(KeySchema) }).openapi("KeyList", {
  example: {
    keys: [
      {
        id: "k_9f8e7d6c5b4a3928",
        archiveId: "rag-memory",
        label: "research agent (read-only)",
        scopes: ["read"],
        createdAt: MS0,
        revokedAt: null,
      },
    ],
  },
});

export const KeyRevoked = z
  .object({ revoked: z.string() })
  .openapi("KeyRevoked", { example: { revoked: "k_9f8e7d6c5b4a3928" } });

export const Deprecated = z
  .object({ deprecated: z.string(), by: z.string().nullable(), version: z.number() })
  .openapi("Deprecated", { example: { deprecated: "decision:cache", by: "decision:cache-v2", version: 3 } });

export const OkResult = z.object({ ok: z.boolean() }).openapi("Ok", { example: { ok: true } });

/** Rows as stored (times in epoch ms; entities, boundaries and edges of a version are JSON strings). */
const ChunkRowSchema = z
  .object({
    chunkId: z.string(),
    kind: z.string(),
    latestVersion: z.number(),
    firstValidFrom: z.number(),
    deprecatedAt: z.number().nullable(),
    deprecatedBy: z.string().nullable(),
  })
  .loose();
const VersionRowSchema = z
  .object({
    chunkId: z.string(),
    version: z.number(),
    kind: z.string(),
    title: z.string(),
    synopsis: z.string(),
    validFrom: z.number(),
    validTo: z.number().nullable(),
    recordedAt: z.number(),
    source: z.string(),
    relations: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: "JSON of the version's relations [{subject, predicate, object, ...}]; null when none" }),
  })
  .loose();
const EdgeRowSchema = z
  .object({
    src: z.string(),
    dst: z.string(),
    type: z.string(),
    weight: z.number(),
    validFrom: z.number(),
    validTo: z.number().nullable(),
    version: z.number(),
    context: z.string().nullable(),
  })
  .loose();

export const ChunkHistory = z
  .object({ chunk: ChunkRowSchema, versions: z.array(VersionRowSchema), edges: z.array(EdgeRowSchema) })
  .openapi("ChunkHistory");

export const EntityHistory = z
  .object({
    entity: z
      .object({
        entityId: z.string(),
        type: z.string(),
        name: z.string(),
        mergedInto: z.string().nullable(),
        mergedAt: z.number().nullable(),
      })
      .loose(),
    aliases: z.array(z.object({ alias: z.string(), validFrom: z.number(), validTo: z.number().nullable() }).loose()),
    events: z.array(z.object({ op: z.string(), detail: z.string(), at: z.number() }).loose()),
    mentions: z.array(
      z.object({ chunk_id: z.string(), version: z.number(), valid_from: z.number(), valid_to: z.number().nullable() }),
    ),
  })
  .openapi("EntityHistory");

export const History = z.union([ChunkHistory, EntityHistory]).openapi("History", {
  description: "?chunk= answers a ChunkHistory, ?entity= an EntityHistory",
  example: {
    chunk: {
      archiveId: "rag-memory",
      chunkId: "decision:cache",
      kind: "decision",
      latestVersion: 2,
      firstValidFrom: MS0,
      deprecatedAt: null,
      deprecatedBy: null,
    },
    versions: [
      {
        chunkId: "decision:cache",
        version: 1,
        kind: "decision",
        title: "Cache capital chunks in memory",
        synopsis: "Keep the routing surface in a Durable Object.",
        validFrom: MS0,
        validTo: MS0 + 86_400_000,
        recordedAt: MS0,
        source: "",
      },
    ],
    edges: [
      {
        src: "decision:cache",
        dst: "arxiv:2405.14831",
        type: "motivates",
        weight: 1,
        validFrom: MS0,
        validTo: null,
        version: 1,
        context: null,
      },
    ],
  },
});

export const Neighbours = z
  .object({
    head: z
      .object({
        chunk: z.string(),
        kind: z.string().nullable(),
        latestVersion: z.number(),
        firstValidFrom: z.number().nullable(),
        endAt: z.number().nullable(),
        deprecated: z.boolean(),
        lastAccess: z.number().nullable(),
        accessCount: z.number(),
      })
      .nullable(),
    neighbours: z.array(
      z.object({
        chunk: z.string(),
        type: z.string(),
        weight: z.number(),
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
        latestVersion: 1,
        firstValidFrom: MS0,
        endAt: null,
        deprecated: false,
        lastAccess: MS0,
        accessCount: 4,
      },
      neighbours: [{ chunk: "arxiv:2112.01488", type: "cites", weight: 1, direction: "out", visible: true }],
    },
  });

export const Resolved = z
  .object({
    mention: z.string(),
    resolved: z.object({ entity: z.string(), name: z.string(), via: z.string() }).nullable(),
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

export const WebhookCreated = z
  .object({
    name: z.string(),
    kind: z.string(),
    secret: z.string().openapi({ description: "shown once" }),
    url: z.string().openapi({ description: "where the producer sends deliveries" }),
    headers: z
      .object({
        signature: z.string(),
        delivery: z.string(),
        event: z.string().optional(),
        timestamp: z.string().optional(),
      })
      .openapi({ description: "the header names this kind of webhook reads" }),
  })
  .openapi("WebhookCreated", {
    example: {
      name: "github",
      kind: "github",
      secret: "whsec_5f4e3d2c1b0a99887766554433221100ffeeddccbbaa99887766554433221100",
      url: "https://paperguru.example.workers.dev/v1/archives/rag-memory/webhooks/github",
      headers: { signature: "X-Hub-Signature-256", delivery: "X-GitHub-Delivery", event: "X-GitHub-Event" },
    },
  });

export const WebhookList = z
  .object({
    webhooks: z.array(
      z.object({
        archiveId: z.string(),
        name: z.string(),
        kind: z.string(),
        options: z.string().openapi({ description: 'JSON, e.g. {"branches":["main"]}' }),
        createdAt: z.number(),
      }),
    ),
  })
  .openapi("WebhookList", {
    example: {
      webhooks: [
        { archiveId: "rag-memory", name: "github", kind: "github", options: '{"branches":["main"]}', createdAt: MS0 },
      ],
    },
  });

export const Deleted = z.object({ deleted: z.string() }).openapi("Deleted", { example: { deleted: "github" } });

export const WebhookReceipt = z
  .union([
    z.object({ status: z.literal("queued"), delivery: z.string() }),
    z.object({ status: z.literal("duplicate"), delivery: z.string(), state: z.string() }),
    z.object({ status: z.literal("ignored"), delivery: z.string().nullable(), reason: z.string() }),
  ])
  .openapi("WebhookReceipt", { example: { status: "queued", delivery: "72d3162e-cc78-11e3-81ab-4c9367dc0958" } });

export const DeliverySchema = z
  .object({
    webhook: z.string(),
    delivery: z.string(),
    kind: z.string(),
    event: z.string().openapi({ description: 'GitHub event name or "ingest"' }),
    status: z.string().openapi({ description: "received | queued | retrying | ingested | ignored | dead" }),
    attempts: z.number(),
    result: z.unknown().openapi({ description: "counts of the last successful run, or null" }),
    error: z.string().nullable(),
    received_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Delivery", {
    example: {
      webhook: "github",
      delivery: "72d3162e-cc78-11e3-81ab-4c9367dc0958",
      kind: "github",
      event: "push",
      status: "ingested",
      attempts: 1,
      result: { created: 3, updated: 1, unchanged: 0, deprecated: 1, merged: 0, duplicates: 0, skipped: 0, failed: 0 },
      error: null,
      received_at: T0,
      updated_at: T0,
    },
  });

export const DeliveryList = z.object({ deliveries: z.array(DeliverySchema) }).openapi("DeliveryList", {
  example: {
    deliveries: [
      {
        webhook: "github",
        delivery: "72d3162e-cc78-11e3-81ab-4c9367dc0958",
        kind: "github",
        event: "push",
        status: "dead",
        attempts: 5,
        result: null,
        error: "GitHub API 502 for contents of src/index.ts",
        received_at: T0,
        updated_at: T0,
      },
    ],
  },
});

export const Replayed = z
  .object({ delivery: z.string(), previous: z.string(), status: z.string() })
  .openapi("Replayed", {
    example: { delivery: "72d3162e-cc78-11e3-81ab-4c9367dc0958", previous: "dead", status: "queued" },
  });

export const ApplyCountsSchema = z
  .object({
    created: z.number(),
    updated: z.number(),
    unchanged: z.number(),
    deprecated: z.number(),
    merged: z.number().openapi({ description: "records merged into a work already in the archive" }),
    duplicates: z.number().openapi({ description: "records folded into a richer record of the same work" }),
    skipped: z.number(),
    failed: z.number(),
  })
  .openapi("ApplyCounts");
const COUNTS_EXAMPLE = {
  created: 2,
  updated: 0,
  unchanged: 1,
  deprecated: 0,
  merged: 1,
  duplicates: 0,
  skipped: 0,
  failed: 0,
};

const SOURCE_EXAMPLE = {
  id: "arxiv-memory",
  kind: "arxiv",
  location: "",
  query: 'cat:cs.CL AND abs:"long-term memory"',
  interval_minutes: 1440,
  paused: false,
  status: {
    last_run: T0,
    last_change: T0,
    last_status: "ok",
    last_error: null,
    next_run: "2025-01-11T09:30:00.000Z",
    consecutive_failures: 0,
    last_counts: COUNTS_EXAMPLE,
  },
};

export const SourceSchema = z
  .object({
    id: z.string(),
    kind: z.string(),
    location: z.string(),
    query: z.string(),
    interval_minutes: z.number(),
    paused: z.boolean(),
    status: z.object({
      last_run: z.string().nullable(),
      last_change: z.string().nullable(),
      last_status: z.string().nullable().openapi({ description: "ok | not_modified | unchanged | error | partial" }),
      last_error: z.string().nullable(),
      next_run: z.string().nullable(),
      consecutive_failures: z.number(),
      last_counts: z.unknown().openapi({ description: "ApplyCounts of the last run, or null" }),
    }),
  })
  .openapi("Source", { example: SOURCE_EXAMPLE });

export const SourceList = z
  .object({ sources: z.array(SourceSchema) })
  .openapi("SourceList", { example: { sources: [SOURCE_EXAMPLE] } });

export const SourceRun = z
  .object({
    run: z.object({
      status: z.enum(["ok", "not_modified", "unchanged", "partial", "error"]),
      counts: ApplyCountsSchema.nullable(),
      error: z.string().nullable(),
    }),
    source: SourceSchema,
  })
  .openapi("SourceRun", {
    example: { run: { status: "ok", counts: COUNTS_EXAMPLE, error: null }, source: SOURCE_EXAMPLE },
  });

export const IngestLog = z
  .object({
    entries: z.array(
      z.object({
        id: z.number().openapi({ description: "pass as ?before= for the next page" }),
        origin: z.string().openapi({ description: "webhook | source | import" }),
        ref: z.string().openapi({ description: "delivery id, source id or format:name" }),
        status: z.string(),
        counts: z.unknown(),
        error: z.string().nullable(),
        at: z.string(),
        duration_ms: z.number(),
      }),
    ),
  })
  .openapi("IngestLog", {
    example: {
      entries: [
        {
          id: 42,
          origin: "import",
          ref: "bibtex:refs.bib",
          status: "ok",
          counts: COUNTS_EXAMPLE,
          error: null,
          at: T0,
          duration_ms: 830,
        },
      ],
    },
  });

export const ImportResult = z
  .object({
    counts: ApplyCountsSchema,
    items: z
      .array(z.object({ id: z.string(), status: z.string(), version: z.number().optional() }))
      .openapi({ description: "per artifact (first 500): id as stored, status, version" }),
    merges: z.array(
      z.object({
        from: z.string(),
        into: z.string(),
        matchedBy: z.string(),
        kept: z.enum(["incoming", "existing"]),
      }),
    ),
    failures: z.array(z.object({ id: z.string(), message: z.string(), field: z.string().optional() })),
    skipped: z.array(z.object({ ref: z.string(), reason: z.string() })),
  })
  .loose()
  .openapi("ImportResult", {
    example: {
      counts: COUNTS_EXAMPLE,
      items: [
        { id: "arxiv:2405.14831", status: "created", version: 1 },
        { id: "doi:10.48550/arxiv.2112.01488", status: "created", version: 1 },
        { id: "paper:colbertv2", status: "unchanged", version: 1 },
      ],
      merges: [
        { from: "bibtex:gutierrez2024hipporag", into: "arxiv:2405.14831", matchedBy: "arxiv", kept: "existing" },
      ],
      failures: [],
      skipped: [],
    },
  });

export const Snapshot = z.object({ seq: z.number(), bytes: z.number(), key: z.string() }).openapi("Snapshot", {
  example: { seq: 3100, bytes: 390000, key: "archives/rag-memory/capital/000000003100.snap" },
});

export const Evicted = z.object({ evicted: z.string() }).openapi("Evicted", { example: { evicted: "rag-memory" } });

// ------------------------------------------------------------------ ingest from the world

export const DeprecationItem = z.object({
  id: z.string().min(1).max(512),
  by: z.string().min(1).max(512).optional(),
  at: Time.optional(),
  reason: z.string().max(2000).optional(),
});

/**
 * The feed format: what a generic signed webhook and a `url` source deliver. Artifacts are the ingest
 * format; deprecations retire chunks the producer deleted or withdrew.
 */
export const FeedBody = z
  .object({
    artifacts: z.array(ArtifactSchema).max(2000).default([]),
    deprecations: z.array(DeprecationItem).max(2000).default([]),
  })
  .refine((b) => b.artifacts.length + b.deprecations.length > 0, {
    message: "send at least one artifact or deprecation",
    path: ["artifacts"],
  })
  .openapi("Feed", {
    example: {
      artifacts: [ARTIFACT_EXAMPLE],
      deprecations: [{ id: "decision:cache", reason: "superseded" }],
    },
  });

export const WebhookName = z.object({
  archive: ArchiveParam.shape.archive,
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "webhook names are 1-63 of a-z, 0-9, '-', '_'")
    .openapi({ param: { name: "name", in: "path" }, example: "github" }),
});

export const CreateWebhook = z
  .object({
    kind: z.enum(["generic", "github"]),
    /** Give your own (GitHub asks you to paste one) or let the server generate 32 random bytes. */
    secret: z.string().min(16, "use a secret of at least 16 characters").max(256).optional(),
    branches: z
      .array(z.string().min(1).max(200))
      .max(20)
      .optional()
      .openapi({ description: "github: branches to ingest (default: the repository's default branch)" }),
  })
  .openapi("CreateWebhook", { example: { kind: "github", branches: ["main"] } });

export const DeliveryParam = WebhookName.extend({
  delivery: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "delivery", in: "path" } }),
});

export const DeliveryQuery = z.object({
  status: z
    .enum(["received", "queued", "retrying", "ingested", "ignored", "dead"])
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .default(100)
    .openapi({ param: { name: "limit", in: "query" } }),
});

export const SourceKindEnum = z.enum(["arxiv", "openalex", "crossref", "github", "url"]);

export const CreateSource = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "source ids are 1-63 of a-z, 0-9, '-', '_'")
      .optional(),
    kind: SourceKindEnum,
    location: z.string().max(2000).default("").openapi({
      description:
        "url: the URL; github: owner/repo[/path][@ref]; arxiv/openalex/crossref: API base (empty = the public API)",
    }),
    query: z.string().max(2000).default("").openapi({
      description: "arxiv: search_query or id_list (id:...); openalex: filter/search; crossref: query/filter",
    }),
    interval_minutes: z
      .number()
      .int()
      .min(5)
      .max(60 * 24 * 30)
      .default(1440),
    paused: z.boolean().default(false),
  })
  .openapi("CreateSource", {
    example: {
      id: "arxiv-memory",
      kind: "arxiv",
      query: 'cat:cs.CL AND abs:"long-term memory"',
      interval_minutes: 1440,
    },
  });

export const SourceParam = z.object({
  archive: ArchiveParam.shape.archive,
  source: z
    .string()
    .min(1)
    .max(63)
    .openapi({ param: { name: "source", in: "path" } }),
});

export const PatchSource = z
  .object({
    paused: z.boolean().optional(),
    interval_minutes: z
      .number()
      .int()
      .min(5)
      .max(60 * 24 * 30)
      .optional(),
    query: z.string().max(2000).optional(),
  })
  .openapi("PatchSource", { example: { paused: false, interval_minutes: 720 } });

export const IMPORT_FORMATS = ["bibtex", "markdown", "fulltext", "xkg", "openie", "json", "archive"] as const;

export const ImportQuery = z.object({
  format: z.enum(IMPORT_FORMATS).openapi({
    param: { name: "format", in: "query" },
    description:
      "bibtex | markdown | fulltext (unarXive/S2ORC JSON or JSONL) | xkg | openie (HippoRAG-style OpenIE results: {docs: [{idx, passage, extracted_entities, extracted_triples}]} or a bare array) | json (the feed format) | archive (a PaperGuru JSON export, replayed losslessly)",
  }),
  name: z
    .string()
    .max(300)
    .optional()
    .openapi({ param: { name: "name", in: "query" }, description: "file name, recorded as the source" }),
});

export const LogQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .default(100)
    .openapi({ param: { name: "limit", in: "query" } }),
  before: z.coerce
    .number()
    .int()
    .optional()
    .openapi({ param: { name: "before", in: "query" } }),
});
