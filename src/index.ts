/** Worker entry: the HTTP app plus the Durable Object classes wrangler binds. */
import { createApp } from "./http/app";
import { type AppServices, type Env, wire } from "./wiring";

export { CapitalChunk } from "./adapters/do/capital";
export { LocalVectorIndex } from "./adapters/local/do-vectors";

// One service graph per isolate: bindings are stable for the isolate's lifetime.
let cached: { env: Env; services: AppServices } | null = null;
const app = createApp((c) => {
  const env = c.env as Env;
  if (!cached || cached.env !== env) cached = { env, services: wire(env) };
  return cached.services;
});

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
