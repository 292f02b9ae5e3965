/** Access counts: how often chunks were routed to, expanded and verified, per session or per chunk. */
import { z } from "@hono/zod-openapi";
import { IdSchema, queryParam, T0, Time } from "./common";
import { SessionId } from "./query";

export const AccessCountsQuery = z.object({
  by: z
    .enum(["session", "chunk"])
    .default("session")
    .openapi({
      param: { name: "by", in: "query" },
      description:
        "Group the counts per session (default; accesses without a session form one row, key null) or per chunk.",
    }),
  session_id: SessionId.optional().openapi({
    param: { name: "session_id", in: "query" },
    description: "Only this session's accesses (with by=chunk: what one session opened and how).",
  }),
  chunk: queryParam(IdSchema.optional(), "chunk", "Only accesses of this chunk id."),
  since: Time.optional().openapi({
    param: { name: "since", in: "query" },
    description: "Only accesses at or after this instant.",
  }),
  until: Time.optional().openapi({
    param: { name: "until", in: "query" },
    description: "Only accesses at or before this instant (default: all).",
  }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .default(50)
    .openapi({ param: { name: "limit", in: "query" }, description: "Rows per page, 1-500 (default 50)." }),
  cursor: z
    .string()
    .regex(/^\d{1,9}$/, "cursor is the next_cursor of the previous page (digits)")
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "`next_cursor` of the previous page." }),
});

const Counts = z.object({
  routing: z.number().int().openapi({ description: "Times routing selected it (heads only; content not read)." }),
  expansion: z.number().int().openapi({ description: "Times its content was distilled into a returned card." }),
  verification: z.number().int().openapi({ description: "Times an anchor into it was verified." }),
  total: z.number().int(),
});

export const AccessCounts = z
  .object({
    by: z.enum(["session", "chunk"]),
    totals: Counts.openapi({ description: "Every access the filters match, per channel." }),
    groups: z.number().int().openapi({ description: "Rows over all pages." }),
    rows: z.array(
      Counts.extend({
        key: z
          .string()
          .nullable()
          .openapi({ description: "The session id (null: accesses made without one) or the chunk id." }),
        last: z.string().openapi({ description: "The latest access (ISO 8601)." }),
      }),
    ),
    next_cursor: z.string().nullable(),
  })
  .openapi("AccessCounts", {
    description:
      "Accesses per channel from the access log, one row per session or chunk (most accesses first), with the totals over every matching access.",
    example: {
      by: "session",
      totals: { routing: 96, expansion: 12, verification: 3, total: 111 },
      groups: 2,
      rows: [
        { key: "s-2025-01-10", routing: 64, expansion: 10, verification: 3, total: 77, last: T0 },
        { key: null, routing: 32, expansion: 2, verification: 0, total: 34, last: T0 },
      ],
      next_cursor: null,
    },
  });
