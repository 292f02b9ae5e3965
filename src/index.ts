/**
 * Worker entry: the REST app, the MCP endpoint, the webhook queue consumer, the cron dispatcher and
 * the Durable Objects. Every one of them calls the application layer (src/app) built by wiring.
 */

// The reference pages (README.md, docs/*.md) rendered to HTML by scripts/build-docs.mjs.
import DOCS_PAGES from "../build/docs/pages.json.txt";
// The explorer page's script and stylesheet, built by scripts/build-explorer.mjs (wrangler's [build]
// command) and bundled as text modules.
import EXPLORER_CSS from "../build/explorer/app.css.txt";
import EXPLORER_JS from "../build/explorer/app.js.txt";
import type { UseCases } from "./app";
import type { QueueMessage } from "./app/lib/queue";
import { ConfigError } from "./config";
import { errorBody } from "./contract";
import { FailureError } from "./core/errors";
import { errorLine } from "./core/log";
import { createApp } from "./http/app";
import { MCP_PATH, serveMcp } from "./mcp/http";
import { type Env, wire } from "./wiring";

export { CapitalChunk } from "./adapters/do/capital-object";
export { LocalVectorIndex } from "./adapters/local/do-vectors";

// One application per isolate: bindings are stable for the isolate's lifetime.
let cached: { env: Env; app: UseCases } | null = null;
function useCases(env: Env): UseCases {
  if (!cached || cached.env !== env) {
    try {
      cached = { env, app: wire(env) };
    } catch (err) {
      // A misconfigured deployment answers every request with the variable at fault (503).
      if (err instanceof ConfigError)
        throw new FailureError({
          kind: "unavailable",
          message: `configuration: ${err.message}`,
          hint: "fix the variable in wrangler.toml [vars] and deploy again",
        });
      throw err;
    }
  }
  return cached.app;
}

/**
 * Hard deletes a crash interrupted are finished before a new isolate (a restarted local server, a
 * redeploy) answers its first requests: they wait for one bounded resume (at most RESUME_BATCH
 * purges, src/app/forget.ts), so no read is served from a capital copy a crash left behind. Cron
 * ticks finish the rest.
 */
let resumed: Promise<void> | null = null;
function resumeOnce(app: UseCases): Promise<void> {
  resumed ??= app.forget.resume().then(
    () => undefined,
    (err) => console.error(errorLine("resume purges", err)),
  );
  return resumed;
}

const rest = createApp((c) => useCases(c.env as Env), [], {
  explorer: { js: EXPLORER_JS, css: EXPLORER_CSS },
  docs: DOCS_PAGES,
});

const INTERNAL = { error: { type: "internal", message: "internal error; nothing partial was stored" } };

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    try {
      await resumeOnce(useCases(env));
    } catch {
      // A misconfigured deployment: the request itself answers why (503).
    }
    if (new URL(request.url).pathname !== MCP_PATH) return rest.fetch(request, env, ctx);
    try {
      return await serveMcp(request, useCases(env));
    } catch (err) {
      if (err instanceof FailureError) return Response.json(errorBody(err.failure), { status: 503 });
      console.error(errorLine(`unhandled ${request.method} ${MCP_PATH}`, err));
      return Response.json(INTERNAL, { status: 500 });
    }
  },
  /**
   * Inbound webhook deliveries and outbound events (deliver, retry with backoff, dead after the last
   * attempt), re-embed pages and extractions at ingest, dispatched by the message's kind.
   */
  async queue(batch: MessageBatch<QueueMessage>, env: Env, _ctx: ExecutionContext): Promise<void> {
    const app = useCases(env);
    const kind = (m: { body: QueueMessage }) => m.body?.kind;
    const events = batch.messages.filter((m) => kind(m) === "event");
    const pages = batch.messages.filter((m) => kind(m) === "reembed");
    const extract = batch.messages.filter((m) => kind(m) === "extract");
    const turns = batch.messages.filter((m) => kind(m) === "commitments");
    const readmes = batch.messages.filter((m) => kind(m) === "readme_paper");
    const others = new Set(["event", "reembed", "extract", "commitments", "readme_paper"]);
    const deliveries = batch.messages.filter((m) => !others.has(kind(m) ?? ""));
    if (events.length) await app.events.consume(events);
    if (pages.length) await app.reembed.consume(pages);
    if (extract.length) await app.extract.consume(extract);
    if (turns.length) await app.project.consumeTurns(turns);
    if (readmes.length) await app.readmePapers.consume(readmes);
    if (deliveries.length) await app.webhooks.consume(deliveries);
  },
  /**
   * Cron: re-ingest due sources in a bounded batch; enqueue again deliveries and re-embed pages
   * whose message was lost.
   */
  async scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    const app = useCases(env);
    ctx.waitUntil(
      Promise.all([app.sources.dispatchDue(), app.webhooks.reconcile(), app.reembed.reconcile(), app.forget.resume()]),
    );
  },
} satisfies ExportedHandler<Env, QueueMessage>;
