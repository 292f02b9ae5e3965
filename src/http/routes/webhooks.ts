/** Webhook endpoints, signed deliveries, the delivery log and replays. */
import * as S from "../../contract";
import { answer, body, failure, json } from "../common";
import { errorResponse as err, errors } from "../docs";
import { endpoint, itemGet, queryGet, resourceApp } from "../route";

export const webhooksRoutes = resourceApp();

/** The webhook receiver authenticates by HMAC headers, not a bearer key (documented, not validated here). */
const WEBHOOK_HEADERS = [
  ["X-PaperGuru-Signature", "generic: `sha256=<hex>` HMAC-SHA256 of `<timestamp>.<raw body>`"],
  ["X-PaperGuru-Timestamp", "generic: Unix seconds; must be within 300 s of the server's clock"],
  ["X-PaperGuru-Delivery", "generic: unique delivery id (at most 200 characters); redeliveries reuse it"],
  ["X-Hub-Signature-256", "github: `sha256=<hex>` HMAC-SHA256 of the raw body"],
  ["X-GitHub-Delivery", "github: the delivery GUID"],
  ["X-GitHub-Event", "github: `push` is ingested; `ping` and other events are acknowledged and ignored"],
].map(([name, description]) => ({
  name: name as string,
  in: "header" as const,
  required: false,
  description: description as string,
  schema: { type: "string" as const, maxLength: 200 },
}));

endpoint(
  webhooksRoutes,
  "admin",
  {
    method: "put",
    path: "/v1/archives/{archive}/webhooks/{name}",
    tags: ["webhooks"],
    summary: "Create or rotate a webhook endpoint",
    description:
      "Admin key. `generic` endpoints take signed feed JSON; `github` endpoints take push events (optionally only for `branches`). Give a `secret` (at least 16 characters) or let the server generate one; it is shown once. PUT again to rotate.",
    request: { params: S.WebhookName, ...body(S.CreateWebhook) },
    responses: { 201: json(S.WebhookCreated, "Created or rotated"), ...errors(400, 401, 403, 404, 413) },
  },
  async (c) => {
    const { archive, name } = c.req.valid("param");
    const created = await c.var.app.webhooks.put(archive, name, c.req.valid("json"), new URL(c.req.url).origin);
    return c.json(created, 201);
  },
);

endpoint(
  webhooksRoutes,
  "admin",
  {
    method: "get",
    path: "/v1/archives/{archive}/webhooks",
    tags: ["webhooks"],
    summary: "List webhook endpoints",
    description: "Admin key. Never returns secrets.",
    request: { params: S.ArchiveParam },
    responses: { 200: json(S.WebhookList), ...errors(400, 401, 403, 404) },
  },
  async (c) => {
    return c.json(await c.var.app.webhooks.list(c.req.valid("param").archive, new URL(c.req.url).origin), 200);
  },
);

endpoint(
  webhooksRoutes,
  "admin",
  {
    method: "delete",
    path: "/v1/archives/{archive}/webhooks/{name}",
    tags: ["webhooks"],
    summary: "Delete a webhook endpoint",
    description: "Admin key. Later deliveries to it get 404; its delivery records stay.",
    request: { params: S.WebhookName },
    responses: {
      200: json(S.Deleted),
      ...errors(400, 401, 403),
      404: err(404, "No such archive or webhook"),
    },
  },
  async (c) => {
    const { archive, name } = c.req.valid("param");
    return answer(c, await c.var.app.webhooks.remove(archive, name));
  },
);

endpoint(
  webhooksRoutes,
  "none",
  {
    method: "post",
    path: "/v1/archives/{archive}/webhooks/{name}",
    tags: ["webhooks"],
    summary: "Receive a signed webhook delivery",
    description:
      "No bearer key: the delivery is authenticated by an HMAC-SHA256 of the raw body with the endpoint's secret. `generic`: `X-PaperGuru-Signature: sha256=<hex>` over `<X-PaperGuru-Timestamp>.<body>` (timestamp in Unix seconds, within ±300 s), `X-PaperGuru-Delivery` a unique id; the body is the feed format (`Feed`). `github`: `X-Hub-Signature-256`, `X-GitHub-Delivery`, `X-GitHub-Event` (`push` is ingested, `ping` and other events are acknowledged and ignored); the body is GitHub's push payload. A redelivered id is acknowledged without a second ingest.",
    parameters: WEBHOOK_HEADERS,
    request: {
      params: S.WebhookName,
      body: {
        description: "The raw payload (verified byte for byte; not validated against a schema before the signature)",
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Feed" },
            example: { artifacts: [], deprecations: [{ id: "decision:cache", reason: "superseded" }] },
          },
        },
      },
    },
    responses: {
      202: json(S.WebhookReceipt, "Accepted and queued"),
      200: json(S.WebhookReceipt, "Duplicate delivery (acknowledged, not ingested again) or ignored event"),
      400: err(400, "Malformed payload or missing delivery header"),
      401: err(401, "Bad or missing signature, a stale timestamp, or no such endpoint (answered alike)"),
      413: err(413, "Body over 32 MiB"),
      503: err(503, "Could not enqueue; retry the delivery"),
    },
  },
  async (c) => {
    const { archive, name } = c.req.valid("param");
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const res = await c.var.app.webhooks.receive(archive, name, c.req.raw.headers, raw);
    if (!res.ok) return failure(c, res.error);
    return c.json(res.value, res.value.status === "queued" ? 202 : 200);
  },
);

endpoint(
  webhooksRoutes,
  "write",
  queryGet({
    path: "/v1/archives/{archive}/webhooks/{name}/deliveries",
    tags: ["webhooks"],
    summary: "List deliveries",
    description: "Deliveries of one endpoint, newest first; `?status=dead` is the dead-letter list.",
    params: S.WebhookName,
    query: S.DeliveryQuery,
    result: S.DeliveryList,
  }),
  async (c) => {
    const { archive, name } = c.req.valid("param");
    return c.json(await c.var.app.webhooks.deliveries(archive, name, c.req.valid("query")), 200);
  },
);

endpoint(
  webhooksRoutes,
  "write",
  itemGet({
    path: "/v1/archives/{archive}/webhooks/{name}/deliveries/{delivery}",
    tags: ["webhooks"],
    summary: "One delivery",
    description: "Status, attempts, counts of the last successful run and the last error.",
    request: { params: S.DeliveryParam },
    result: S.DeliverySchema,
    missing: "No such archive or delivery",
  }),
  async (c) => {
    const { archive, name, delivery } = c.req.valid("param");
    return answer(c, await c.var.app.webhooks.delivery(archive, name, delivery));
  },
);

endpoint(
  webhooksRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/webhooks/{name}/deliveries/{delivery}/replay",
    tags: ["webhooks"],
    summary: "Replay a delivery",
    description:
      "Puts a delivery (e.g. a dead letter) back on the queue with its stored body; ingest is idempotent, so replaying an ingested delivery changes nothing.",
    request: { params: S.DeliveryParam },
    responses: {
      202: json(S.Replayed, "Queued"),
      ...errors(400, 401, 403),
      404: err(404, "No such archive or delivery"),
      409: err(409, "Already queued or being retried"),
    },
  },
  async (c) => {
    const { archive, name, delivery } = c.req.valid("param");
    return answer(c, await c.var.app.webhooks.replay(archive, name, delivery), 202);
  },
);
