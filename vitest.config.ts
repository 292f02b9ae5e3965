import { existsSync } from "node:fs";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// Projects: the pure core in Node (fast, property tests); the CLI and the explorer page (headless
// Chromium) against throwaway local Workers; the Worker in workerd with real local D1 / R2 /
// Durable Objects (integration and port contract tests).
//
// `npm test` runs every *.test.ts except *.full.test.ts: cases that wait on real time (the queue's
// 150 s of retry backoff before a dead letter). `npm run test:full` (PAPERGURU_TEST=full) runs
// only those; .ci/run runs both.
const FULL = process.env.PAPERGURU_TEST === "full";
const pick = (dir: string) =>
  FULL
    ? { include: [`${dir}/**/*.full.test.ts`] }
    : { include: [`${dir}/**/*.test.ts`], exclude: [`${dir}/**/*.full.test.ts`] };

// The explorer's tests drive a system Chromium; without one they are left out, with one line
// saying how to get it, rather than failing the run.
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const browser = existsSync(CHROMIUM);
if (!browser)
  console.warn(
    `browser tests skipped: no Chromium at ${CHROMIUM} (sudo apt-get install chromium, or set CHROMIUM_PATH)`,
  );

export default defineConfig({
  test: {
    // vitest's default in a run is one worker per core less one: a single worker on 2 cores. Most
    // test time is spent waiting on workerd or a local server, so two overlap well.
    maxWorkers: 2,
    // A full run without Chromium has nothing to run.
    passWithNoTests: FULL,
    projects: [
      {
        test: {
          name: "node",
          ...pick("test/core"),
          environment: "node",
          // Property and scale tests do fixed amounts of work (< 3 s on an idle core); the timeout
          // only catches a hang.
          testTimeout: 60_000,
        },
      },
      {
        // The CLI against a throwaway local Worker (scripts/lib/server.ts starts one per file).
        test: {
          name: "cli",
          ...pick("test/cli"),
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 300_000,
        },
      },
      ...(browser
        ? [
            {
              // The explorer page in headless Chromium (playwright-core, the system Chromium)
              // against a throwaway local Worker started like the CLI project's.
              test: {
                name: "browser",
                ...pick("test/browser"),
                environment: "node",
                testTimeout: 240_000,
                hookTimeout: 300_000,
              },
            },
          ]
        : []),
      {
        plugins: [
          cloudflareTest(async () => ({
            remoteBindings: false,
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                ADMIN_KEY: "test-admin-key",
                TEST_MIGRATIONS: await readD1Migrations("./migrations"),
              },
            },
          })),
        ],
        test: {
          name: "workers",
          ...pick("test/worker"),
          // One workerd runtime per vitest worker runs its files one after another, instead of a
          // runtime started (5 s of 2 cores) per file: test/worker/setup.ts installs the fetch mock
          // per file and deletes the archives each file leaves.
          isolate: false,
          // Webhook tests go through the real local Queue, which batches for ~1 s per delivery.
          testTimeout: 30_000,
          setupFiles: ["./test/worker/setup.ts"],
          // src/index.ts imports the built explorer assets (build/explorer/*.txt).
          globalSetup: ["./test/build-explorer.setup.ts"],
        },
      },
    ],
  },
});
