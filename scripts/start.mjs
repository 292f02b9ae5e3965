#!/usr/bin/env node
// `npm start`: apply D1 migrations to the local database, then serve the Worker with wrangler dev
// (local D1/R2/Durable Objects in workerd; no Cloudflare login, no network). PORT defaults to 8787.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { freePort, startFront } from "./lib/front.mjs";
import { keepInspectorQuiet } from "./lib/inspector-sink.mjs";
import { applyLocalMigrations } from "./lib/migrations.mjs";

// Local secrets: .dev.vars is not in git; the first start creates it from the committed example.
if (!existsSync(".dev.vars") && existsSync(".dev.vars.example")) {
  copyFileSync(".dev.vars.example", ".dev.vars");
  console.log("paperguru: created .dev.vars from .dev.vars.example (the local ADMIN_KEY); edit it to change the key");
}

const env = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  CI: process.env.CI ?? "1", // keeps wrangler from prompting before applying migrations
};
const port = process.env.PORT ?? "8787";
const host = process.env.HOST ?? "127.0.0.1";

// A busy port: say how to pick another, instead of a workerd stack trace and wrangler's --port advice.
const busy = await new Promise((resolve) => {
  const probe = createServer();
  probe.once("error", (e) => resolve(e.code === "EADDRINUSE" || e.code === "EACCES"));
  probe.listen(Number(port), host, () => probe.close(() => resolve(false)));
});
if (busy) {
  console.error(
    `paperguru: port ${port} on ${host} is in use (another npm start?). Start on a free port: PORT=${Number(port) + 1} npm start`,
  );
  process.exit(1);
}
const wrangler = existsSync("node_modules/.bin/wrangler") ? "node_modules/.bin/wrangler" : "wrangler";

// PERSIST_TO keeps local state elsewhere (benchmarks and evals use a fresh temporary directory).
const persist = process.env.PERSIST_TO ? ["--persist-to", process.env.PERSIST_TO] : [];
// Skipped when the state's marker names these migrations (scripts/lib/migrations.mjs).
const migrated = applyLocalMigrations({
  root: process.cwd(),
  state: process.env.PERSIST_TO ?? null,
  env,
  quiet: Boolean(process.env.QUIET),
});
if (migrated !== 0) {
  console.error("paperguru: applying local D1 migrations failed");
  process.exit(migrated);
}
// wrangler dev listens on an internal port behind scripts/lib/front.mjs, which holds the public
// port and keeps idle client connections open (workerd alone drops them after 5 s).
const inner = await freePort();
/** Settings `npm start` passes from its environment to the Worker (wrangler.toml's [vars] otherwise). */
const PASSED_VARS = [
  "DNS_RESOLVER",
  "VECTOR_INDEX",
  "EMBEDDER",
  "DISTILLER",
  "EXTRACTOR",
  "LLM_BASE_URL",
  "LLM_MODEL",
  "LLM_API_KEY",
  "LLM_MAX_TOKENS_PER_QUERY",
  "EMBEDDING_BASE_URL",
  "EMBEDDING_MODEL",
  "EMBEDDING_API_KEY",
  "EMBEDDING_DIMS",
];
const inspectorPort = process.env.INSPECTOR_PORT ?? (await freePort());
const dev = spawn(
  wrangler,
  [
    "dev",
    "--port",
    String(inner),
    "--ip",
    "127.0.0.1",
    "--show-interactive-dev-session=false",
    ...persist,
    // Local development only: non-public hosts sources may fetch (e.g. OUTBOUND_ALLOW_HOSTS=localhost).
    ...(process.env.OUTBOUND_ALLOW_HOSTS ? ["--var", `OUTBOUND_ALLOW_HOSTS:${process.env.OUTBOUND_ALLOW_HOSTS}`] : []),
    // INSPECTOR_PORT=9333: the Worker's isolate (and its Durable Objects) on a DevTools port, for
    // CPU profiles (scripts/profile-ingest.ts). Otherwise a free port: wrangler's default 9229 is
    // taken by whichever of two servers starting at once binds it first, and the other one dies.
    "--inspector-port",
    String(inspectorPort),
    // VECTOR_INDEX=none npm start: no local vector index (routing without semantic seeds). The model
    // settings too (docs/models.md), e.g. DISTILLER=openai LLM_BASE_URL=http://127.0.0.1:11434/v1
    // LLM_MODEL=llama3.1 OUTBOUND_ALLOW_HOSTS=127.0.0.1 npm start.
    ...PASSED_VARS.flatMap((k) => (process.env[k] ? ["--var", `${k}:${process.env[k]}`] : [])),
  ],
  { env, stdio: process.env.QUIET ? "ignore" : "inherit" },
);
await startFront({ host, port, upstreamPort: inner });
// Without a DevTools client of its own (INSPECTOR_PORT unset), wrangler's inspector proxy would
// keep every Network message of the runtime in memory (scripts/lib/inspector-sink.mjs).
if (!process.env.INSPECTOR_PORT) keepInspectorQuiet(inspectorPort);
// wrangler's "Ready on" names the internal port; say which one to use.
if (!process.env.QUIET)
  void (async () => {
    for (let i = 0; i < 240; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const ok = await fetch(`http://127.0.0.1:${inner}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) {
        const url = `http://${host}:${port}`;
        console.log(`paperguru: ready on ${url} (wrangler dev's ${inner} is internal); in another terminal:`);
        // The one line every example in the README and docs/ reads its URL from ($U; the CLI and demo PAPERGURU_URL).
        return console.log(`export U=${url} PAPERGURU_URL=${url}`);
      }
    }
  })();
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => dev.kill(sig));
dev.on("exit", (code) => process.exit(code ?? 0));
