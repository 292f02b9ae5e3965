/** Hard deletes and their audit trail. */
import { z } from "@hono/zod-openapi";
import { MAX_ID, PageLimit } from "./common";

export const ForgetChunkQuery = z.object({
  chunk: z
    .string()
    .min(1)
    .max(MAX_ID)
    .openapi({ param: { name: "chunk", in: "query" }, description: "The chunk to delete with all its versions." }),
});

export const ForgetEntityQuery = z.object({
  entity: z
    .string()
    .min(1)
    .max(MAX_ID)
    .openapi({
      param: { name: "entity", in: "query" },
      description: "The entity whose record, aliases and mentions are deleted (the chunks' text stays).",
    }),
});

export const DeletionsQuery = z.object({
  limit: PageLimit,
});

export const AdminDeletionsQuery = DeletionsQuery.extend({
  archive: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "archive", in: "query" }, description: "Archive id (it may no longer exist)." }),
});

export const Forgotten = z
  .object({
    deleted: z.object({
      target: z.enum(["chunk", "entity", "archive"]),
      id: z.string(),
      versions: z.number().int().describe("Versions removed (entity: versions whose mention lists were rewritten)."),
      edges: z.number().int(),
      entities: z.array(z.string()).describe("Entities removed: the target, or declared entities nothing else names."),
      log_ops: z.number().int().describe("Change-log entries dropped or rewritten so no rebuild brings the data back."),
      content_objects: z.number().int().describe("Content blobs removed (content another version still uses stays)."),
      vectors: z.number().int(),
      annotations: z
        .number()
        .int()
        .describe(
          "Annotations of other chunks rewritten or removed because they named it: evidence anchors and values naming it, reviews of edges to it.",
        ),
      copies: z
        .array(z.string())
        .describe(
          "Chunks PaperGuru wrote by quoting it (research hubs citing it), deleted with it; each has its own audit row.",
        ),
    }),
    audit_id: z.number().int(),
  })
  .openapi("Forgotten", {
    example: {
      deleted: {
        target: "chunk",
        id: "note:draft-3",
        versions: 2,
        edges: 3,
        entities: [],
        log_ops: 6,
        content_objects: 2,
        vectors: 1,
        annotations: 1,
        copies: ["review:memory#hub"],
      },
      audit_id: 41,
    },
  });

export const Deletion = z
  .object({
    id: z.number().int(),
    archive: z.string(),
    target: z.enum(["chunk", "entity", "archive"]),
    target_id: z.string(),
    actor: z.string().describe('"admin" or "key:<key id>"'),
    at: z.string().describe("ISO 8601"),
    counts: z.record(z.string(), z.number()),
    recreated: z
      .object({ at: z.string().describe("ISO 8601"), by: z.string() })
      .nullable()
      .describe(
        "A deleted chunk id an explicit request created again (POST /ingest, MCP remember, an import with recreate_deleted=true; webhook deliveries, source runs and other imports never do): when and by whom.",
      ),
  })
  .openapi("Deletion");

export const Deletions = z.object({ deletions: z.array(Deletion) }).openapi("Deletions", {
  example: {
    deletions: [
      {
        id: 41,
        archive: "rag-memory",
        target: "chunk",
        target_id: "note:draft-3",
        actor: "key:k_3f9a1c2e",
        at: "2026-11-24T10:15:00.000Z",
        counts: { versions: 2, edges: 3, entities: 0, log_ops: 6 },
      },
    ],
  },
});
