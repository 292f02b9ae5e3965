/** Outbound events: subscribers (URL + secret per archive) and the deliveries made to them. */
import { z } from "@hono/zod-openapi";
import { EVENT_TYPES } from "../core/types";
import { ArchiveParam, PageLimit, T0 } from "./common";

export const SubscriptionName = z.object({
  archive: ArchiveParam.shape.archive,
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "subscription names are 1-63 of a-z, 0-9, '-', '_'")
    .openapi({ param: { name: "name", in: "path" }, example: "my-agent" }),
});

export const PutSubscription = z
  .object({
    url: z
      .string()
      .min(8)
      .max(2000)
      .openapi({ description: "https URL on a public host (http only for OUTBOUND_ALLOW_HOSTS in development)." }),
    secret: z
      .string()
      .min(16, "use a secret of at least 16 characters")
      .max(256)
      .optional()
      .openapi({ description: "HMAC key; the server generates 32 random bytes (shown once) when absent." }),
    events: z
      .array(z.enum(EVENT_TYPES))
      .max(EVENT_TYPES.length)
      .optional()
      .openapi({ description: "Event types to receive; default: all." }),
  })
  .openapi("PutSubscription", {
    example: { url: "https://agent.example.com/hooks/paperguru", events: ["chunk.created", "chunk.versioned"] },
  });

export const SubscriptionSchema = z
  .object({
    name: z.string(),
    url: z.string(),
    events: z.array(z.string()).openapi({ description: "Empty: every type." }),
    created_at: z.string(),
  })
  .openapi("Subscription");

export const SubscriptionCreated = SubscriptionSchema.extend({
  secret: z.string().openapi({ description: "The HMAC key: shown only in this response." }),
}).openapi("SubscriptionCreated", {
  example: {
    name: "my-agent",
    url: "https://agent.example.com/hooks/paperguru",
    events: [],
    created_at: T0,
    secret: "9c1f…",
  },
});

export const SubscriptionList = z.object({ subscriptions: z.array(SubscriptionSchema) }).openapi("SubscriptionList", {
  example: {
    subscriptions: [{ name: "my-agent", url: "https://agent.example.com/hooks/paperguru", events: [], created_at: T0 }],
  },
});

export const EVENT_STATUSES = ["pending", "retrying", "delivered", "dead"] as const;

export const EventListQuery = z.object({
  status: z
    .enum(EVENT_STATUSES)
    .optional()
    .openapi({ param: { name: "status", in: "query" }, description: "Only events in this state." }),
  cursor: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "`next_cursor` of the previous page." }),
  limit: PageLimit.openapi({ description: "Page size, 1-500 (default 100)." }),
});

export const EventView = z
  .object({
    id: z.string(),
    type: z.string(),
    status: z.enum(EVENT_STATUSES),
    attempts: z.number().int(),
    response_status: z.number().int().nullable().openapi({ description: "HTTP status of the last attempt." }),
    error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    payload: z.record(z.string(), z.unknown()).openapi({ description: "The body as sent (signed bytes)." }),
  })
  .openapi("Event");

export const EventList = z
  .object({ events: z.array(EventView), next_cursor: z.string().nullable() })
  .openapi("EventList", {
    example: {
      events: [
        {
          id: "evt_0mb8x2k1c3f9a0b1c2",
          type: "chunk.created",
          status: "delivered",
          attempts: 1,
          response_status: 204,
          error: null,
          created_at: T0,
          updated_at: T0,
          payload: {
            id: "evt_0mb8x2k1c3f9a0b1c2",
            type: "chunk.created",
            archive: "rag-memory",
            created_at: T0,
            data: { chunks: [{ id: "arxiv:2405.14831", version: 1 }], total: 1 },
          },
        },
      ],
      next_cursor: null,
    },
  });

export const EventParam = SubscriptionName.extend({
  event: z
    .string()
    .regex(/^evt_[0-9a-z]{1,40}$/, "event ids look like evt_0mb8x2k1c3f9a0b1c2 (see …/events)")
    .openapi({ param: { name: "event", in: "path" }, example: "evt_0mb8x2k1c3f9a0b1c2" }),
});

export const Redelivered = z
  .object({ event: z.string(), status: z.literal("pending") })
  .openapi("Redelivered", { example: { event: "evt_0mb8x2k1c3f9a0b1c2", status: "pending" } });
