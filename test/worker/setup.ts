import { applyD1Migrations, env } from "cloudflare:test";
// Outbound HTTP is mocked in every test; an unmocked request fails it.
import "./fetch-guard";

// Storage is isolated per test file; migrations are applied once per file (idempotent).
await applyD1Migrations(
  env.DB,
  (env as unknown as { TEST_MIGRATIONS: Parameters<typeof applyD1Migrations>[1] }).TEST_MIGRATIONS,
);
