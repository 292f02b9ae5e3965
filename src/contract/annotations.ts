/** Annotations: append-only statuses and counters on a chunk, readable as of any time. */
import { z } from "@hono/zod-openapi";
import { T0, Time, wellFormed } from "./common";

const JsonScalar = z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]);
/** What a stored value can be: a caller sets scalars; an import may set an object (xKG's `xkg` key). */
const StoredValue = z.unknown().openapi({
  description: "A string, number, boolean or null; an object for keys an import set (xkg: an xKG node's fields)",
});

export const AnnotateBody = z
  .object({
    key: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_.:-]{0,99}$/, "annotation keys are 1-100 of a-z, 0-9, '_', '.', ':', '-'")
      .openapi({ description: "What is annotated, e.g. status, revisions, uses." }),
    value: JsonScalar.optional().openapi({ description: "Set the key to this value (give value or add)." }),
    add: z
      .number()
      .finite()
      .optional()
      .openapi({ description: "Add this number to the key's value (a counter; missing counts as 0)." }),
    version: z.number().int().min(1).optional().openapi({ description: "The version it is about; default the chunk." }),
    reason: wellFormed(z.string().max(2000)).optional(),
    at: Time.optional().openapi({ description: "When it holds from (valid time); default now." }),
    event_id: z.string().min(1).max(200).optional().openapi({
      description:
        "Your id for this event: every repeat with the same id on the same chunk and key (concurrent or later) gets the first success's status and body byte for byte (header `Idempotent-Replayed: true`, `current` as it was then) and appends nothing; the same id for another chunk or key is a 409.",
    }),
  })
  .openapi("Annotate", { example: { key: "status", value: "committed", reason: "approved in review" } });

const Value = z.object({
  value: StoredValue,
  at: z.string(),
  actor: z.string(),
  reason: z.string(),
  version: z.number().int().nullable(),
  events: z.number().int(),
});

export const Annotated = z
  .object({
    event: z.object({
      id: z.number().int(),
      key: z.string(),
      op: z.enum(["set", "add"]),
      value: StoredValue,
      version: z.number().int().nullable(),
      actor: z.string(),
      reason: z.string(),
      at: z.string(),
      recorded_at: z.string(),
    }),
    duplicate: z.boolean().openapi({
      description:
        "true: the event_id's event was already stored but its answer was not (an event from before answers were kept, or one an import or a request that died stored); nothing was appended. A repeat of a stored answer gets that answer unchanged (this field included).",
    }),
    current: Value.openapi({ description: "The key's value now." }),
  })
  .openapi("Annotated", {
    example: {
      event: {
        id: 7,
        key: "status",
        op: "set",
        value: "committed",
        version: null,
        actor: "key:k_1a2b3c4d",
        reason: "approved in review",
        at: T0,
        recorded_at: T0,
      },
      duplicate: false,
      current: {
        value: "committed",
        at: T0,
        actor: "key:k_1a2b3c4d",
        reason: "approved in review",
        version: null,
        events: 2,
      },
    },
  });

export const AnnotationsQuery = z.object({
  as_of: Time.optional().openapi({
    param: { name: "as_of", in: "query" },
    description: "Values as of then (default now).",
  }),
  key: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ param: { name: "key", in: "query" }, description: "Only this key." }),
});

export const Annotations = z
  .object({
    chunk: z.string(),
    as_of: z.string(),
    values: z.record(z.string(), Value).openapi({ description: "Each key's value at as_of." }),
    events: z.array(Annotated.shape.event).openapi({ description: "The events up to as_of, oldest first." }),
  })
  .openapi("Annotations", {
    example: {
      chunk: "decision:cache",
      as_of: T0,
      values: { status: { value: "committed", at: T0, actor: "admin", reason: "", version: null, events: 1 } },
      events: [
        {
          id: 7,
          key: "status",
          op: "set",
          value: "committed",
          version: null,
          actor: "admin",
          reason: "",
          at: T0,
          recorded_at: T0,
        },
      ],
    },
  });
