/**
 * Embedding spaces and re-embeds (docs/models.md, "Embeddings from an endpoint"): which model's
 * space an archive's vectors are in, the note a response carries when they were left out, and the
 * re-embed job that moves an archive into the configured embedder's space.
 */
import { z } from "@hono/zod-openapi";
import { T0 } from "./common";

export const EmbeddingSpaceSchema = z
  .object({
    model: z
      .string()
      .openapi({ description: "the embedder's model id (`unknown`: vectors written before spaces were recorded)" }),
    dims: z.number().int(),
  })
  .openapi("EmbeddingSpace", {
    description: "An embedding space: vectors of one model at one dimension (only these compare with each other)",
    example: { model: "text-embedding-3-small", dims: 1536 },
  });

const SPACE_EXAMPLE = { model: "text-embedding-3-small", dims: 1536 };
const OLD_SPACE_EXAMPLE = { model: "@cf/baai/bge-small-en-v1.5", dims: 384 };

/** In a query's trace (and an ingest's answer) when the archive's vectors are not all in the embedder's space. */
export const VectorSpaceNoteSchema = z
  .object({
    status: z.enum(["stale", "reembedding"]).openapi({
      description:
        "`stale`: the archive's vectors are in another space, or some heads have none in the embedder's; `reembedding`: a re-embed into the embedder's space is running",
    }),
    archive: EmbeddingSpaceSchema.nullable().openapi({ description: "the space the archive's vectors are in" }),
    embedder: EmbeddingSpaceSchema.openapi({ description: "the configured embedder's space (EMBEDDER)" }),
    stale_since: z
      .string()
      .nullable()
      .openapi({ description: "since when (ISO 8601) some heads have no vector in the archive's space" }),
    message: z.string(),
    hint: z.string(),
  })
  .openapi("VectorSpaceNote", {
    description:
      "Present when the archive's vectors were left out: a query answered without semantic seeds (lexical, entity, graph and recency routing only), an ingest says whether it wrote its head vectors.",
    example: {
      status: "stale",
      archive: OLD_SPACE_EXAMPLE,
      embedder: SPACE_EXAMPLE,
      stale_since: null,
      message:
        "the archive's vectors are in @cf/baai/bge-small-en-v1.5 (384 dims), the embedder gives text-embedding-3-small (1536 dims): semantic seeds were skipped (no score compares two spaces); lexical, entity, graph and recency routing answered",
      hint: "POST /v1/archives/rag-memory/reembed re-embeds every head with the configured embedder (text-embedding-3-small (1536 dims)); or set EMBEDDER back to the archive's model",
    },
  });

export const ReembedBody = z
  .object({
    force: z.boolean().default(false).openapi({
      description:
        "re-embed even when the archive's vectors are already in the embedder's space (e.g. the model behind the same name changed)",
    }),
  })
  .strict()
  .openapi("ReembedBody", {
    description: "POST /v1/archives/{archive}/reembed: re-embed every head with the configured embedder",
    example: { force: false },
  });

export const ReembedJobSchema = z
  .object({
    id: z.number().int(),
    status: z.enum(["running", "done", "failed"]),
    target: EmbeddingSpaceSchema.openapi({ description: "the space it writes (the embedder when it started)" }),
    from: EmbeddingSpaceSchema.nullable().openapi({ description: "the archive's space when it started" }),
    done: z.number().int().openapi({ description: "heads re-embedded" }),
    total: z.number().int().openapi({
      description: "chunks the archive held when it started (once done: heads re-embedded, new ones included)",
    }),
    removed: z.number().int().openapi({ description: "chunks forgotten before their page ran" }),
    pages: z.number().int().openapi({ description: "queue messages done (one page of at most 96 heads each)" }),
    started_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
    errors: z
      .array(z.object({ at: z.string(), message: z.string() }))
      .openapi({ description: "failed attempts of pages, the latest 10 (a page is retried with backoff, 5 times)" }),
  })
  .openapi("ReembedJob", { description: "A re-embed job: its target space and progress" });

const JOB_EXAMPLE = {
  id: 3,
  status: "running" as const,
  target: SPACE_EXAMPLE,
  from: OLD_SPACE_EXAMPLE,
  done: 1152,
  total: 4100,
  removed: 0,
  pages: 12,
  started_at: T0,
  updated_at: "2025-01-10T09:31:12.000Z",
  finished_at: null,
  errors: [],
};

export const ReembedStatus = z
  .object({
    archive: z.string(),
    embedding: z.object({
      status: z.enum(["current", "unrecorded", "stale", "reembedding"]).openapi({
        description:
          "`current`: the archive's vectors are in the embedder's space; `unrecorded`: none yet (the first ingest records it); `stale`: another space, or heads without a vector in it (queries skip semantic seeds); `reembedding`: a re-embed into the embedder's space is running",
      }),
      archive: EmbeddingSpaceSchema.nullable(),
      embedder: EmbeddingSpaceSchema,
      stale_since: z.string().nullable(),
    }),
    job: ReembedJobSchema.nullable().openapi({ description: "the running re-embed, else the latest one" }),
  })
  .openapi("ReembedStatus", {
    description: "The archive's embedding space against the configured embedder's, and its re-embed",
    example: {
      archive: "rag-memory",
      embedding: { status: "reembedding", archive: OLD_SPACE_EXAMPLE, embedder: SPACE_EXAMPLE, stale_since: T0 },
      job: JOB_EXAMPLE,
    },
  });

export const ReembedStarted = ReembedStatus.extend({
  started: z.boolean().openapi({
    description:
      "true: a job was started (202); false: one was running already, or the archive is current and `force` was not given (200)",
  }),
}).openapi("ReembedStarted", {
  description: "POST …/reembed's answer: whether a job started, the archive's space and the job",
  example: {
    started: true,
    archive: "rag-memory",
    embedding: { status: "reembedding", archive: OLD_SPACE_EXAMPLE, embedder: SPACE_EXAMPLE, stale_since: T0 },
    job: { ...JOB_EXAMPLE, done: 0, pages: 0, updated_at: T0 },
  },
});
