/**
 * What callers store: artifacts (entities, edges, relations), lifecycle bodies and the feed format.
 * zod schemas are the single source of request validation, TypeScript types and the OpenAPI
 * document; REST, MCP and the application layer all read them from src/contract.
 */
import { z } from "@hono/zod-openapi";
import { type ArtifactInput, INGEST_LIMITS } from "../core/ingest";
import { RELATION_LIMITS } from "../core/relations";
import { CHUNK_KINDS, DECLARABLE_EDGE_TYPES, ENTITY_TYPES } from "../core/types";
import { Bookmark, MAX_ID, Time, toMs, wellFormed } from "./common";
import { VectorSpaceNoteSchema } from "./embedding";

export const EntityInputSchema = z.object({
  type: z.enum(ENTITY_TYPES),
  id: wellFormed(z.string().min(1).max(300)).optional().openapi({ example: "arxiv:2405.14831" }),
  name: wellFormed(z.string().min(1).max(300)),
  aliases: z
    .array(wellFormed(z.string().min(1).max(300)))
    .max(50)
    .optional(),
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
      "paper, section, code_unit, benchmark_row, record (an event or a conversation turn: records with the same boundaries form a timeline by valid_from, each linked to the one before it), decision (an implementation choice, part-of the design it makes concrete), note, dataset, technique, design (a long-lived project commitment), element (a figure, table or display equation of a paper: part-of the paper, discussed-in the sections that reference it; boundary element:figure, element:table or element:equation)",
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
  source: wellFormed(z.string().max(2000)).optional(),
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
  .object({
    artifacts: z.array(ArtifactSchema).min(1),
    near_duplicates: z.enum(["add", "revise"]).default("add").openapi({
      description:
        "revise: an artifact whose id is new becomes the next version of an existing record of the same kind (and boundaries) whose words overlap it enough (|A∩B| / min(|A|,|B|) over title + content words ≥ near_duplicate_threshold); at most 50 artifacts per request. add (default): ids decide.",
    }),
    near_duplicate_threshold: z.number().min(0).max(1).optional().openapi({
      description: "Overlap for near_duplicates: revise (default 0.4, measured; docs/coding-agents.md).",
    }),
  })
  .openapi("IngestBatch", { example: { artifacts: [ARTIFACT_EXAMPLE] } });

export const IngestResult = z
  .object({
    results: z.array(
      z.object({
        id: z.string(),
        status: z.enum(["created", "updated", "unchanged"]),
        version: z.number(),
        requested_id: z
          .string()
          .optional()
          .openapi({ description: "near_duplicates: revise: the id you gave, when it was stored as `id` instead." }),
        overlap: z.number().optional().openapi({ description: "The word overlap that matched it to `id`." }),
      }),
    ),
    counts: z.object({ created: z.number(), updated: z.number(), unchanged: z.number() }),
    recorded_at: z.string().openapi({ description: "transaction time (ISO 8601)" }),
    bookmark: Bookmark.openapi({
      description:
        "The change-log position this write is applied at: send it as `after` on /route or /context to read it (the typed client and the CLI do).",
    }),
    vector_space: VectorSpaceNoteSchema.optional().openapi({
      description:
        "present when the archive's vectors are not all in the configured embedder's space (docs/models.md): whether this batch's head vectors were written, and the re-embed that fixes it",
    }),
  })
  .openapi("IngestResult", {
    example: {
      results: [{ id: "arxiv:2405.14831", status: "created", version: 1 }],
      counts: { created: 1, updated: 0, unchanged: 0 },
      recorded_at: "2025-01-01T00:00:00.000Z",
      bookmark: "48213",
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
    reason: wellFormed(z.string().max(2000)).optional(),
  })
  .openapi("Deprecate", {
    example: { id: "decision:cache", by: "decision:cache-v2", at: "2025-01-10", reason: "superseded" },
  });

export const AliasBody = z
  .object({
    entity: z.string().min(1).max(MAX_ID),
    alias: wellFormed(z.string().min(1).max(300)),
    at: Time.optional(),
  })
  .openapi("Alias", { example: { entity: "method:hipporag", alias: "Hippo RAG", at: "2024-06-01" } });

export const RenameBody = z
  .object({
    entity: z.string().min(1).max(MAX_ID),
    new_name: wellFormed(z.string().min(1).max(300)),
    at: Time.optional(),
  })
  .openapi("Rename", { example: { entity: "method:hipporag", new_name: "HippoRAG 2", at: "2025-02-20" } });

export const MergeBody = z
  .object({ entity: z.string().min(1).max(MAX_ID), into: z.string().min(1).max(MAX_ID), at: Time.optional() })
  .openapi("Merge", { example: { entity: "method:hippo-rag", into: "method:hipporag", at: "2024-07-01" } });

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

export const Deprecated = z
  .object({ deprecated: z.string(), by: z.string().nullable(), version: z.number() })
  .openapi("Deprecated", { example: { deprecated: "decision:cache", by: "decision:cache-v2", version: 3 } });

export const DeprecationItem = z.object({
  id: z.string().min(1).max(512),
  by: z.string().min(1).max(512).optional(),
  at: Time.optional(),
  reason: wellFormed(z.string().max(2000)).optional(),
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
