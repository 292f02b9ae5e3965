/** Webhook endpoints (inbound, signed) and event subscriptions (outbound, signed) from the CLI. */
import { EVENT_TYPES } from "../core/types";
import { type Command, type OptionSpec, valueOption } from "./command";
import { listCommand, printJson } from "./common";
import { UsageError } from "./io";

/** --secret of a webhook endpoint or a subscription. */
const SECRET: OptionSpec = valueOption("<s>", "your own secret (≥ 16 characters; default: generated)");

const webhooksAdd: Command = {
  name: "webhooks add",
  args: "<name> --kind generic|github [--branches <a,b>] [--secret <s>]",
  summary: "Create (or rotate) a signed webhook endpoint (admin key); prints its URL and secret once.",
  options: {
    kind: valueOption("<kind>", "generic (signed feed JSON) or github (push events)"),
    branches: valueOption("<a,b>", "github: branches to ingest (default: the default branch)"),
    secret: SECRET,
  },
  async run(r) {
    const kind = r.str("kind");
    if (kind !== "generic" && kind !== "github")
      throw new UsageError("--kind must be generic or github", "webhooks add");
    const res = await r.admin().putWebhook(r.archive(), r.arg(0), {
      kind,
      branches: r.list("branches"),
      secret: r.str("secret"),
    });
    if (r.json) printJson(r, res);
    else r.out(`webhook ${res.name} (${res.kind})\n  url:    ${res.url}\n  secret: ${res.secret}  (shown once)`);
  },
};

const webhooksList = listCommand({
  name: "webhooks list",
  args: "",
  summary: "List webhook endpoints (admin key).",
  fetch: (r) => r.admin().webhooks(r.archive()),
  head: ["name", "kind", "url"],
  rows: (res) => res.webhooks.map((w) => [w.name, w.kind, w.url]),
  empty: "no webhooks",
});

const webhooksDelete: Command = {
  name: "webhooks delete",
  args: "<name>",
  summary: "Delete a webhook endpoint with its deliveries (admin key).",
  async run(r) {
    const res = await r.admin().deleteWebhook(r.archive(), r.arg(0));
    r.out(r.json ? JSON.stringify(res) : `deleted webhook ${res.deleted}`);
  },
};

const webhooksDeliveries = listCommand({
  name: "webhooks deliveries",
  args: "<name> [--status <s>]",
  summary: "A webhook's deliveries, newest first (status: received, queued, retrying, ingested, ignored, dead).",
  options: { status: valueOption("<s>", "only deliveries in this state") },
  fetch: (r) => r.client().deliveries(r.archive(), r.arg(0), { status: r.str("status") as "dead" | undefined }),
  head: ["delivery", "status", "attempts", "received", "error"],
  rows: (res) => res.deliveries.map((d) => [d.delivery, d.status, String(d.attempts), d.received_at, d.error ?? ""]),
  empty: "no deliveries",
});

const webhooksReplay: Command = {
  name: "webhooks replay",
  args: "<name> <delivery>",
  summary: "Queue a delivery again (e.g. a dead letter once the upstream is back).",
  async run(r) {
    const [name, delivery] = [r.arg(0), r.arg(1)];
    const res = await r.client().replayDelivery(r.archive(), name, delivery);
    r.out(r.json ? JSON.stringify(res) : `delivery ${delivery}: ${res.status}`);
  },
};

const subscribeCmd: Command = {
  name: "subscriptions add",
  args: "<name> --to <https-url> [--events <a,b>] [--secret <s>]",
  summary: "Send the archive's events to a URL, signed with HMAC-SHA256 (secret printed once).",
  details: `Event types: ${EVENT_TYPES.join(", ")} (default: all).`,
  options: {
    to: valueOption("<url>", "where events are POSTed (--url is the server's)"),
    events: valueOption("<a,b>", "only these event types"),
    secret: SECRET,
  },
  async run(r) {
    const url = r.str("to");
    if (!url) throw new UsageError("missing --to <https-url>", "subscriptions add");
    const res = await r.client().subscribe(r.archive(), r.arg(0), {
      url,
      events: r.list("events") as Array<(typeof EVENT_TYPES)[number]> | undefined,
      secret: r.str("secret"),
    });
    if (r.json) printJson(r, res);
    else
      r.out(
        `subscription ${res.name} -> ${res.url} (${res.events.length ? res.events.join(", ") : "all events"})\n  secret: ${res.secret}  (shown once)`,
      );
  },
};

const subscriptionsList = listCommand({
  name: "subscriptions list",
  args: "",
  summary: "List event subscribers.",
  fetch: (r) => r.client().subscriptions(r.archive()),
  head: ["name", "url", "events"],
  rows: (res) => res.subscriptions.map((s) => [s.name, s.url, s.events.join(",") || "all"]),
  empty: "no subscriptions",
});

const subscriptionsDelete: Command = {
  name: "subscriptions delete",
  args: "<name>",
  summary: "Unsubscribe (its queued and past events go too).",
  async run(r) {
    const res = await r.client().unsubscribe(r.archive(), r.arg(0));
    r.out(r.json ? JSON.stringify(res) : `deleted subscription ${res.deleted}`);
  },
};

const subscriptionsEvents = listCommand({
  name: "subscriptions events",
  args: "<name> [--status pending|retrying|delivered|dead] [--limit <n>]",
  summary: "Events sent to a subscriber, newest first, with status, attempts and the last error.",
  options: {
    status: valueOption("<s>", "only events in this state"),
    limit: valueOption("<n>", "at most n (1-500, default 100)"),
  },
  fetch: (r) =>
    r.client().events(r.archive(), r.arg(0), {
      status: r.str("status") as "dead" | undefined,
      limit: r.int("limit", 1, 500),
    }),
  head: ["event", "type", "status", "attempts", "http", "created", "error"],
  rows: (res) =>
    res.events.map((e) => [
      e.id,
      e.type,
      e.status,
      String(e.attempts),
      e.response_status === null ? "-" : String(e.response_status),
      e.created_at,
      e.error ?? "",
    ]),
  empty: "no events",
});

const subscriptionsRedeliver: Command = {
  name: "subscriptions redeliver",
  args: "<name> <event>",
  summary: "Send an event again (a dead one once the receiver is back).",
  async run(r) {
    const [name, event] = [r.arg(0), r.arg(1)];
    const res = await r.client().redeliver(r.archive(), name, event);
    r.out(r.json ? JSON.stringify(res) : `event ${res.event}: ${res.status}`);
  },
};

export const WEBHOOK_COMMANDS: Command[] = [
  webhooksAdd,
  webhooksList,
  webhooksDelete,
  webhooksDeliveries,
  webhooksReplay,
  subscribeCmd,
  subscriptionsList,
  subscriptionsDelete,
  subscriptionsEvents,
  subscriptionsRedeliver,
];
