/** Worker entry: the HTTP app, the webhook queue consumer, the cron dispatcher and the Durable Objects. */
import type { DeliveryMessage } from "./feeds/deps";
import { dispatchDueSources } from "./feeds/sources";
import { consumeDeliveries } from "./feeds/webhooks";
import { createApp } from "./http/app";
import { type AppServices, type Env, wire } from "./wiring";

export { CapitalChunk } from "./adapters/do/capital";
export { LocalVectorIndex } from "./adapters/local/do-vectors";

// One service graph per isolate: bindings are stable for the isolate's lifetime.
let cached: { env: Env; services: AppServices } | null = null;
function services(env: Env): AppServices {
  if (!cached || cached.env !== env) cached = { env, services: wire(env) };
  return cached.services;
}

const app = createApp((c) => services(c.env as Env));

export default {
  fetch: app.fetch,
  /** Webhook deliveries: ingest, retry with backoff, dead-letter after the last attempt. */
  async queue(batch: MessageBatch<DeliveryMessage>, env: Env, _ctx: ExecutionContext): Promise<void> {
    await consumeDeliveries(services(env).feeds, batch.messages);
  },
  /** Cron: re-ingest due sources in a bounded batch. */
  async scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    ctx.waitUntil(dispatchDueSources(services(env).feeds));
  },
} satisfies ExportedHandler<Env, DeliveryMessage>;
