/** Outbound event subscribers: register a URL and a secret, list deliveries with their status, redeliver. */
import * as S from "../../contract";
import { answer, body, json } from "../common";
import { errorResponse as err, errors } from "../docs";
import { endpoint, itemGet, resourceApp } from "../route";

export const subscriptionsRoutes = resourceApp();

const SIGNING =
  'Each event is POSTed as JSON {id, type, archive, created_at, data} with `X-PaperGuru-Event`, `X-PaperGuru-Event-Id`, `X-PaperGuru-Timestamp` (unix seconds) and `X-PaperGuru-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>` (the scheme of PaperGuru\'s own generic webhooks). A 2xx answer delivers it; anything else is retried after 10, 20, 40 and 80 s, then the event is dead.';

endpoint(
  subscriptionsRoutes,
  "write",
  {
    method: "put",
    path: "/v1/archives/{archive}/subscriptions/{name}",
    tags: ["events"],
    summary: "Subscribe a URL to the archive's events",
    description: `Creates or replaces the subscriber \`name\`: events of the listed types (default all: ${S.PutSubscription.shape.events.unwrap().element.options.join(", ")}) go to \`url\`. The secret is shown in this response only. ${SIGNING}`,
    request: { params: S.SubscriptionName, ...body(S.PutSubscription) },
    responses: { 200: json(S.SubscriptionCreated), ...errors(400, 401, 403, 404, 413) },
  },
  async (c) => {
    const { archive, name } = c.req.valid("param");
    return answer(c, await c.var.app.events.put(archive, name, c.req.valid("json")));
  },
);

endpoint(
  subscriptionsRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/subscriptions",
    tags: ["events"],
    summary: "List subscribers",
    description: "Every subscriber of the archive with its URL and event types (never the secret).",
    request: { params: S.ArchiveParam },
    responses: { 200: json(S.SubscriptionList), ...errors(400, 401, 403, 404) },
  },
  async (c) => c.json(await c.var.app.events.list(c.req.valid("param").archive), 200),
);

endpoint(
  subscriptionsRoutes,
  "write",
  {
    method: "delete",
    path: "/v1/archives/{archive}/subscriptions/{name}",
    tags: ["events"],
    summary: "Unsubscribe",
    description: "Deletes the subscriber and its queued and past events.",
    request: { params: S.SubscriptionName },
    responses: { 200: json(S.Deleted), ...errors(400, 401, 403), 404: err(404, "No such archive or subscriber") },
  },
  async (c) => {
    const { archive, name } = c.req.valid("param");
    return answer(c, await c.var.app.events.remove(archive, name));
  },
);

endpoint(
  subscriptionsRoutes,
  "read",
  itemGet({
    path: "/v1/archives/{archive}/subscriptions/{name}/events",
    tags: ["events"],
    summary: "Events sent to a subscriber",
    description:
      "Newest first, with status (pending, retrying, delivered, dead), attempts, the last HTTP status and error, and the exact body sent.",
    request: { params: S.SubscriptionName, query: S.EventListQuery },
    result: S.EventList,
    missing: "No such archive or subscriber",
  }),
  async (c) => {
    const { archive, name } = c.req.valid("param");
    return answer(c, await c.var.app.events.events(archive, name, c.req.valid("query")));
  },
);

endpoint(
  subscriptionsRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/subscriptions/{name}/events/{event}/redeliver",
    tags: ["events"],
    summary: "Send an event again",
    description:
      "Queues a dead (or delivered) event again with a fresh attempt count; the body and its id are unchanged.",
    request: { params: S.EventParam },
    responses: { 200: json(S.Redelivered), ...errors(400, 401, 403), 404: err(404, "No such subscriber or event") },
  },
  async (c) => {
    const { archive, name, event } = c.req.valid("param");
    return answer(c, await c.var.app.events.redeliver(archive, name, event));
  },
);
