/**
 * Ingest from the world: webhooks and their deliveries, sources, file imports and the ingest log.
 * zod schemas are the single source of request validation, TypeScript types and the OpenAPI
 * document; REST, MCP and the application layer all read them from src/contract.
 */
import { z } from "@hono/zod-openapi";
import { IMPORT_FORMATS } from "../core/imports";
import { SOURCE_KINDS } from "../core/sources/types";
import { ArchiveParam, MAX_ID, PageLimit, T0, Time } from "./common";

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
        name: z.string(),
        kind: z.string(),
        url: z.string().openapi({ description: "where the producer sends deliveries" }),
        branches: z
          .array(z.string())
          .nullable()
          .openapi({ description: "github: branches ingested; null: the default" }),
        created_at: z.string(),
      }),
    ),
  })
  .openapi("WebhookList", {
    example: {
      webhooks: [
        {
          name: "github",
          kind: "github",
          url: "https://paperguru.example.workers.dev/v1/archives/rag-memory/webhooks/github",
          branches: ["main"],
          created_at: T0,
        },
      ],
    },
  });

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
    annotated: z.number().optional().openapi({
      description:
        "annotation events written (imports whose records carry attributes, e.g. xkg weights and package lists); a re-import writes only changed values",
    }),
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
        matched_by: z.string(),
        kept: z.enum(["incoming", "existing"]),
      }),
    ),
    failures: z.array(z.object({ id: z.string(), message: z.string(), field: z.string().optional() })),
    skipped: z.array(z.object({ ref: z.string(), reason: z.string() })).openapi({
      description:
        "records not stored, each with why: a hard-deleted id (unless recreate_deleted=true), a deprecated record, a record of no known shape",
    }),
    recreated: z.array(z.string()).optional().openapi({
      description: "With recreate_deleted=true: the hard-deleted ids this import created again.",
    }),
    references: z
      .object({
        found: z.number().int(),
        cited: z.number().int(),
        unresolved: z.number().int(),
        items: z.array(
          z.object({
            n: z.number().int(),
            key: z.string().optional().openapi({ description: "format=bbl: the citation key" }),
            text: z.string(),
            title: z.string().nullable(),
            ids: z
              .array(z.string())
              .optional()
              .openapi({ description: "format=bbl: the entry's identifiers (doi:, arxiv:, openalex:)" }),
            target: z.string().nullable(),
            matched_by: z.string().nullable(),
            in_archive: z.boolean(),
          }),
        ),
        clipped: z.array(z.number().int()).optional().openapi({
          description:
            "format=bbl: entries (n) cut before parsing (a `\\bibitem` to 5,000 characters, a biblatex entry to 50,000)",
        }),
      })
      .optional()
      .openapi({
        description:
          "format=pdf and format=bbl: the reference entries; each with an identifier (doi, arxiv, openalex) or the title of an archive paper is a `cites` edge of the paper (`target`); the rest are unresolved, kept on the paper as the annotation `references:unresolved`, rewritten by each import. With format=bbl an identifier is cited only when its work is in the archive (`target` is the chunk holding it); otherwise the entry stays unresolved with its `ids`, and a re-import after the work arrives cites it.",
      }),
    paper: z
      .object({
        id: z.string(),
        status: z.string().openapi({ description: "updated (a next version was written) or unchanged" }),
        version: z.number().int().optional(),
      })
      .optional()
      .openapi({ description: "format=bbl: the citing paper and the version the import left current" }),
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
        { from: "bibtex:gutierrez2024hipporag", into: "arxiv:2405.14831", matched_by: "arxiv", kept: "existing" },
      ],
      failures: [],
      skipped: [],
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
  limit: PageLimit,
});

export const SourceKindEnum = z.enum(SOURCE_KINDS);

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

export { IMPORT_FORMATS };

export const ImportQuery = z.object({
  format: z.enum(IMPORT_FORMATS).openapi({
    param: { name: "format", in: "query" },
    description:
      "bibtex | markdown | fulltext (unarXive/S2ORC JSON or JSONL) | xkg | openie (HippoRAG-style OpenIE results: {docs: [{idx, passage, extracted_entities, extracted_triples}]} or a bare array) | json (the feed format) | archive (a PaperGuru JSON export, replayed losslessly) | pdf (a paper PDF with a text layer, sent as bytes: a paper, its sections and figure/table captions, each span with its page; docs/ingest.md) | bbl (a LaTeX .bbl reference list, BibTeX `\\bibitem` or biblatex `\\entry` style, imported as the references of the paper named by `paper`: one next version of it with `cites` edges to the archive papers matched by DOI, arXiv or OpenAlex id, else by title; the rest kept as `references:unresolved`)",
  }),
  paper: z
    .string()
    .min(1)
    .max(MAX_ID)
    .optional()
    .openapi({
      param: { name: "paper", in: "query" },
      description:
        "format=bbl (required there, a 400 with any other format): the chunk id of the citing paper, already in the archive; it gets one next version carrying the `cites` edges (none when nothing changed: `paper.status` unchanged)",
      example: "arxiv:2405.14831",
    }),
  name: z
    .string()
    .max(300)
    .optional()
    .openapi({ param: { name: "name", in: "query" }, description: "file name, recorded as the source" }),
  valid_from: Time.optional().openapi({
    param: { name: "valid_from", in: "query" },
    description:
      "Event time of every record in the file, replacing the dates the file carries (BibTeX year/month/date, Markdown front matter date, full-text metadata dates). Default: those dates, else the import time. recorded_at is always the import time.",
  }),
  recreate_deleted: z
    .enum(["true", "false"])
    .optional()
    .openapi({
      param: { name: "recreate_deleted", in: "query" },
      description:
        "true: ids hard-deleted from this archive are created again (as an explicit POST /ingest does), each recorded as `recreated` on its deletions audit row and listed in `recreated`. Default false: they are skipped, each listed in `skipped` with the time of its delete, and edges to them are dropped.",
    }),
});

export const LogQuery = z.object({
  limit: PageLimit,
  before: z.coerce
    .number()
    .int()
    .optional()
    .openapi({ param: { name: "before", in: "query" } }),
});
