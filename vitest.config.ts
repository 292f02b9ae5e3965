import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// Projects: the pure core in Node (fast, property tests); the CLI and the explorer page (headless
// Chromium) against throwaway local Workers; the Worker in workerd with real local D1 / R2 /
// Durable Objects (integration and port contract tests).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          include: ["test/core/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        // The CLI against a throwaway local Worker (scripts/lib/server.ts starts one per file).
        test: {
          name: "cli",
          include: ["test/cli/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        // The explorer page in headless Chromium (playwright-core, the system /usr/bin/chromium)
        // against a throwaway local Worker started like the CLI project's.
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          environment: "node",
          testTimeout: 240_000,
          hookTimeout: 120_000,
        },
      },
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
          include: ["test/worker/**/*.test.ts"],
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
