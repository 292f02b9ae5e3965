import { applyD1Migrations, env } from "cloudflare:test";
import { afterAll } from "vitest";
// Outbound HTTP is mocked in every test; an unmocked request fails it.
import { installFetchGuard } from "./fetch-guard";
import { api } from "./helpers";

installFetchGuard();

// One runtime runs the test files given to it one after another (vitest.config.ts: isolate false),
// on one local D1/R2/Durable Object storage. Migrations are applied before each file (a no-op once
// applied); archive ids are unique per test (newArchive).
await applyD1Migrations(
  env.DB,
  (env as unknown as { TEST_MIGRATIONS: Parameters<typeof applyD1Migrations>[1] }).TEST_MIGRATIONS,
);

// Each file deletes every archive it leaves, so no queued delivery, retry or replay of one file runs
// (and fetches) while the next file's mocks are installed. Four at a time; a property test leaves
// a hundred or more, so the hook's limit (5 min) only catches a hang.
afterAll(async () => {
  const list = await api<{ archives: Array<{ id: string }> }>("GET", "/v1/archives");
  const ids = (list.body.archives ?? []).map((a) => a.id);
  const drop = async (id: string) => {
    const res = await api("DELETE", `/v1/archives/${encodeURIComponent(id)}`);
    if (res.status >= 300 && res.status !== 404)
      throw new Error(`cleanup: DELETE archive ${id} answered ${res.status} ${JSON.stringify(res.body)}`);
  };
  for (let i = 0; i < ids.length; i += 4) await Promise.all(ids.slice(i, i + 4).map(drop));
}, 300_000);
