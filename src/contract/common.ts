/**
 * Wire shapes every resource shares: the error body, times, the archive path parameter.
 * zod schemas are the single source of request validation, TypeScript types and the OpenAPI
 * document; REST, MCP and the application layer all read them from src/contract.
 */
import { z } from "@hono/zod-openapi";
import type { Failure } from "../core/errors";
import { loneSurrogateAt } from "../core/ingest";

/**
 * Text that can be stored exactly: no unpaired UTF-16 surrogate (UTF-8 would store U+FFFD instead,
 * silently). A 400 names the field.
 */
export const wellFormed = <T extends z.ZodString>(schema: T) =>
  schema.refine((s) => loneSurrogateAt(s) < 0, {
    message: "holds a lone UTF-16 surrogate, which cannot be stored exactly: pair it or remove it",
  });

/** A validation failure's body: the example of the Error schema and of every 400. */
export const VALIDATION_ERROR_EXAMPLE = {
  error: {
    type: "validation" as const,
    message: "artifacts.0.valid_from: Invalid ISO date",
    field: "artifacts.0.valid_from",
    hint: "see /openapi.json for the schema",
  },
};

export const ErrorSchema = z
  .object({
    error: z.object({
      type: z.enum([
        "validation",
        "unauthorized",
        "forbidden",
        "not_found",
        "method_not_allowed",
        "conflict",
        "too_large",
        "unprocessable",
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
    example: VALIDATION_ERROR_EXAMPLE,
  });

/** ISO 8601 date or date-time; converted to epoch ms by the handlers. */
export const Time = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], {
    error: "expected an ISO 8601 date (2024-05-23) or date-time (2024-05-23T12:00:00Z, or with an offset: +02:00)",
  })
  .openapi({ example: "2024-05-23T00:00:00Z", description: "ISO 8601 date or date-time (UTC if no offset)" });

/**
 * A bookmark: the change-log position a write answered with. A read that sends it as `after`
 * answers with every change of the archive up to it (docs/api.md, read your writes).
 */
export const Bookmark = z
  .string()
  .regex(/^[0-9]{1,15}$/, "a bookmark is the decimal change-log position a write answered with")
  .openapi({ example: "48213" });

/** How far the answer reflects the archive's change log. */
export const FreshnessSchema = z
  .object({
    applied: Bookmark.openapi({ description: "The change-log position the answer reflects." }),
    after: Bookmark.nullable().openapi({ description: "The bookmark the request sent (`after`), or null." }),
    reached: z.boolean().openapi({
      description:
        "Whether `applied` reached `after` (always true without one). False only when the capital chunk could not apply it within 2 s: the answer is then older than the write.",
    }),
    waited_ms: z.number().openapi({ description: "How long the read waited for `after`." }),
  })
  .openapi("Freshness", {
    description:
      "How far the answer reflects the archive's change log: the position applied, and whether it reached the bookmark sent as `after`.",
  });

export const ArchiveParam = z.object({
  archive: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, "archive ids are 2-63 of a-z, 0-9 and '-', starting with a letter or digit")
    .openapi({ param: { name: "archive", in: "path" }, example: "rag-memory" }),
});

/** Response bodies are documented loosely where they are large traces; the card schema is strict. */
/** Chunk and entity ids: the ingest schema caps artifact ids at 512 characters, so no stored id is longer. */
export const MAX_ID = 512;

/** A chunk or entity id a request names. */
export const IdSchema = z.string().min(1).max(MAX_ID);

/** `schema` as the query parameter `name`, documented with `description`. */
export const queryParam = <T extends z.ZodType>(schema: T, name: string, description: string) =>
  schema.openapi({ param: { name, in: "query" }, description });

/** A whole number from `min` to `max`, `fallback` when absent, documented with `description`. */
export const boundedInt = (min: number, max: number, fallback: number, description: string) =>
  z.number().int().min(min).max(max).default(fallback).openapi({ description });

/** What a request's model calls spent: calls, HTTP requests, retries, tokens and milliseconds. */
export const MODEL_CALLS = {
  calls: z.number().int(),
  requests: z.number().int(),
  retries: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  ms: z.number(),
};

export const AnyObject = z.record(z.string(), z.unknown());

/** ISO time -> epoch ms (the schemas already checked the format). */
export function toMs(t: string | undefined): number | undefined {
  return t === undefined ? undefined : Date.parse(t);
}

export const T0 = "2025-01-10T09:30:00.000Z";

export const MS0 = 1736501400000;

export const OkResult = z.object({ ok: z.boolean() }).openapi("Ok", { example: { ok: true } });

export const Deleted = z.object({ deleted: z.string() }).openapi("Deleted", { example: { deleted: "github" } });

/** The error body every interface answers with: REST responses and MCP tool errors alike. */
export function errorBody(f: Failure) {
  return {
    error: {
      type: f.kind,
      message: f.message,
      ...(f.field ? { field: f.field } : {}),
      ...(f.hint ? { hint: f.hint } : {}),
    },
  };
}

/** `?limit=` of a listing: 1-500, default 100. */
export const PageLimit = z.coerce
  .number()
  .int()
  .min(1)
  .max(500)
  .default(100)
  .openapi({ param: { name: "limit", in: "query" } });
