/**
 * zod schemas: the single source of request validation, TypeScript types and the OpenAPI document.
 */
import { z } from "@hono/zod-openapi";
import { type ArtifactInput, INGEST_LIMITS } from "../core/ingest";
import { CHUNK_KINDS, EDGE_TYPES, ENTITY_TYPES } from "../core/types";

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
  .openapi("Error");

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
  .openapi("CreateArchive");

export const Scope = z.enum(["read", "write"]);

export const CreateKey = z
  .object({ scopes: z.array(Scope).min(1).default(["read", "write"]), label: z.string().max(200).optional() })
  .openapi("CreateKey");

export const EntityInputSchema = z.object({
  type: z.enum(ENTITY_TYPES),
  id: z.string().min(1).max(300).optional().openapi({ example: "arxiv:2405.14831" }),
  name: z.string().min(1).max(300),
  aliases: z.array(z.string().min(1).max(300)).max(50).optional(),
});

export const EdgeInputSchema = z.object({
  type: z.enum(EDGE_TYPES),
  target: z.string().min(1).max(512),
  weight: z.number().min(0).max(1000).optional(),
  valid_from: Time.optional(),
  valid_to: Time.nullable().optional(),
  context: z.string().max(1000).optional().openapi({ description: "why the edge exists, e.g. the citing sentence" }),
});

const artifactFields = {
  kind: z.enum(CHUNK_KINDS),
  title: z.string().min(1).max(1000),
  synopsis: z.string().max(2000).optional(),
  content: z.string().min(1, "content must not be empty"),
  entities: z.array(EntityInputSchema).max(INGEST_LIMITS.maxEntitiesPerArtifact).optional(),
  boundaries: z.array(z.string().min(1).max(200)).max(100).optional(),
  edges: z.array(EdgeInputSchema).max(INGEST_LIMITS.maxEdgesPerArtifact).optional(),
  valid_from: Time.optional(),
  source: z.string().max(2000).optional(),
};

export const ArtifactSchema = z
  .object({ id: z.string().min(1).max(512).openapi({ example: "arxiv:2405.14831" }), ...artifactFields })
  .openapi("Artifact");

/** Batch size is checked by the core (413 with the limit), not here (that would be a 400). */
export const IngestBody = z.object({ artifacts: z.array(ArtifactSchema).min(1) }).openapi("IngestBatch");

export const IngestResult = z
  .object({
    results: z.array(
      z.object({ id: z.string(), status: z.enum(["created", "updated", "unchanged"]), version: z.number() }),
    ),
    counts: z.object({ created: z.number(), updated: z.number(), unchanged: z.number() }),
    recorded_at: z.number(),
  })
  .openapi("IngestResult");

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
  .openapi("Deprecate");

export const AliasBody = z.object({
  entity: z.string().min(1),
  alias: z.string().min(1).max(300),
  at: Time.optional(),
});
export const RenameBody = z.object({
  entity: z.string().min(1),
  new_name: z.string().min(1).max(300),
  at: Time.optional(),
});
export const MergeBody = z.object({ entity: z.string().min(1), into: z.string().min(1), at: Time.optional() });

const queryFields = {
  query: z.string().min(1).max(8000),
  as_of: Time.optional(),
  boundaries: z.array(z.string().min(1).max(200)).max(50).optional(),
};

export const RouteBody = z
  .object({ ...queryFields, limit: z.number().int().min(1).max(256).optional() })
  .openapi("RouteRequest");

export const ContextBody = z
  .object({
    ...queryFields,
    budget_tokens: z.number().int().min(50).max(200_000),
    session_id: z.string().min(1).max(200).optional(),
    max_cards: z.number().int().min(1).max(64).optional(),
    max_card_tokens: z.number().int().min(50).max(4000).optional(),
    short_term_share: z.number().min(0).max(0.9).optional(),
  })
  .openapi("ContextRequest");

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
  })
  .openapi("ExpandRequest");

export const AnchorSchema = z
  .object({
    artifact_id: z.string().min(1),
    version: z.number().int().min(1),
    start: z.number().int().min(0),
    end: z.number().int().min(1),
    snippet: z.string(),
  })
  .openapi("Anchor");

export const VerifyBody = z.object({ anchors: z.array(AnchorSchema).min(1).max(500) }).openapi("VerifyRequest");

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
  .openapi("EvidenceCard");

export const SessionEventsBody = z
  .object({
    events: z
      .array(z.object({ role: z.string().min(1).max(50), text: z.string().min(1).max(50_000), at: Time.optional() }))
      .min(1)
      .max(200),
  })
  .openapi("SessionEvents");

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
    experts: z.object({ sem: z.number(), sym: z.number(), graph: z.number(), rec: z.number() }),
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
  .openapi("RouteResponse");

const Skipped = z.array(z.object({ chunk: z.string(), reason: z.string() }));

export const ExpandResponse = z
  .object({
    cards: z.array(CardSchema),
    skipped: Skipped,
    tokens: z.number(),
    trace: z.object({ timings_ms: z.record(z.string(), z.number()) }),
  })
  .openapi("ExpandResponse");

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
  .openapi("ContextResponse");

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
  .openapi("Feed");

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
  .openapi("CreateWebhook");

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
  .openapi("CreateSource");

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
  .openapi("PatchSource");

export const IMPORT_FORMATS = ["bibtex", "markdown", "fulltext", "xkg", "json"] as const;

export const ImportQuery = z.object({
  format: z.enum(IMPORT_FORMATS).openapi({
    param: { name: "format", in: "query" },
    description: "bibtex | markdown | fulltext (unarXive/S2ORC JSON or JSONL) | xkg | json (the feed format)",
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
