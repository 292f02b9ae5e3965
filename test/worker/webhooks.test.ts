import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { DeliveryMessage } from "../../src/app/lib/queue";
import worker from "../../src/index";
import { api, newArchive } from "./helpers";
import { calls, createWebhook, history, mockFetch, sendGeneric, sendGithub, versionAt, waitDelivery } from "./world";

const paper = (content: string, extra: Record<string, unknown> = {}) => ({
  id: "note:damping",
  kind: "note",
  title: "Damping choice",
  content,
  ...extra,
});

describe("generic signed webhook", () => {
  it("ingests, dedupes redeliveries, versions changes, ignores unchanged, deprecates on request", async () => {
    const { id, key } = await newArchive("wh");
    const secret = await createWebhook(id, "feed", "generic");

    const first = await sendGeneric(
      id,
      "feed",
      secret,
      { artifacts: [paper("We use a PageRank damping of 0.85.")] },
      { delivery: "d1" },
    );
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: "queued", delivery: "d1" });
    const d1 = await waitDelivery(id, key, "feed", "d1");
    expect(d1).toMatchObject({ status: "ingested", result: { created: 1 } });

    // A redelivery (same id) is acknowledged and not ingested again.
    const again = await sendGeneric(
      id,
      "feed",
      secret,
      { artifacts: [paper("We use a PageRank damping of 0.85.")] },
      { delivery: "d1" },
    );
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: "duplicate", state: "ingested" });

    // Changed content: a new version. Unchanged content under a new delivery id: nothing new.
    const t1 = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    expect(
      (
        await sendGeneric(
          id,
          "feed",
          secret,
          { artifacts: [paper("We now use a damping of 0.5.")] },
          { delivery: "d2" },
        )
      ).status,
    ).toBe(202);
    expect(await waitDelivery(id, key, "feed", "d2")).toMatchObject({ result: { updated: 1 } });
    // The same bytes under a new delivery id are a replay: acknowledged, never applied again.
    const replayed = await sendGeneric(
      id,
      "feed",
      secret,
      { artifacts: [paper("We now use a damping of 0.5.")] },
      { delivery: "d3" },
    );
    expect(replayed.status).toBe(200);
    expect(replayed.body).toMatchObject({ status: "duplicate", state: "same body as delivery d2" });
    // The same artifact in other bytes (formatting) is ingested, and is unchanged.
    expect(
      (
        await sendGeneric(
          id,
          "feed",
          secret,
          JSON.stringify({ artifacts: [paper("We now use a damping of 0.5.")] }, null, 2),
          { delivery: "d3b" },
        )
      ).status,
    ).toBe(202);
    expect(await waitDelivery(id, key, "feed", "d3b")).toMatchObject({
      result: { unchanged: 1, created: 0, updated: 0 },
    });
    const h = await history(id, key, "note:damping");
    expect(h.body.versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);
    expect(await versionAt(id, key, "note:damping", t1)).toBe(1);

    // Deletion: a deprecation, visible to as_of queries (before: visible; after: not).
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    expect(
      (
        await sendGeneric(
          id,
          "feed",
          secret,
          { deprecations: [{ id: "note:damping", reason: "deleted upstream" }] },
          { delivery: "d4" },
        )
      ).status,
    ).toBe(202);
    expect(await waitDelivery(id, key, "feed", "d4")).toMatchObject({ result: { deprecated: 1 } });
    expect(await versionAt(id, key, "note:damping", before)).toBe(2);
    expect(await versionAt(id, key, "note:damping", new Date(Date.now() + 1000).toISOString())).toBeNull();

    const log = await api("GET", `/v1/archives/${id}/ingest-log`, undefined, key);
    expect(log.body.entries.filter((e: { origin: string }) => e.origin === "webhook")).toHaveLength(4);
  });

  it("rejects bad signatures, stale timestamps and malformed payloads, storing nothing", async () => {
    const { id, key } = await newArchive("wh");
    const secret = await createWebhook(id, "feed", "generic");
    const body = { artifacts: [paper("Signed content.")] };

    const forged = await sendGeneric(id, "feed", "not-the-secret-at-all", body, { delivery: "x1" });
    expect(forged.status).toBe(401);
    expect(forged.body.error).toMatchObject({ type: "unauthorized", field: "X-PaperGuru-Signature" });

    const stale = await sendGeneric(id, "feed", secret, body, {
      delivery: "x2",
      ts: Math.floor(Date.now() / 1000) - 3600,
    });
    expect(stale.status).toBe(401);
    expect(stale.body.error.field).toBe("X-PaperGuru-Timestamp");
    expect(stale.body.error.message).toMatch(/stale timestamp/);

    const bad = await sendGeneric(
      id,
      "feed",
      secret,
      { artifacts: [{ ...paper("x"), kind: "poem" }] },
      { delivery: "x3" },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("artifacts.0.kind");

    const notJson = await sendGeneric(id, "feed", secret, "{not json", { delivery: "x4" });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.field).toBe("body");

    // An unknown endpoint answers exactly as a wrong secret does: anonymous callers learn nothing.
    const noHook = await sendGeneric(id, "nope", secret, body, { delivery: "x5" });
    const wrongSecret = await sendGeneric(id, "feed", "whsec_not-the-secret-at-all", body, { delivery: "x6" });
    expect(noHook.status).toBe(401);
    expect(noHook.body).toEqual(wrongSecret.body);

    // Nothing stored: no delivery rows, no chunk, no log entries.
    const list = await api("GET", `/v1/archives/${id}/webhooks/feed/deliveries`, undefined, key);
    expect(list.body.deliveries).toEqual([]);
    expect((await history(id, key, "note:damping")).status).toBe(404);
    expect((await api("GET", `/v1/archives/${id}/ingest-log`, undefined, key)).body.entries).toEqual([]);
  });

  it("keeps archives apart: another archive's webhook secret or key cannot deliver or read", async () => {
    const a = await newArchive("wa");
    const b = await newArchive("wb");
    const secretA = await createWebhook(a.id, "feed", "generic");
    await createWebhook(b.id, "feed", "generic");
    const res = await sendGeneric(b.id, "feed", secretA, { artifacts: [paper("cross")] }, { delivery: "c1" });
    expect(res.status).toBe(401);
    expect((await api("GET", `/v1/archives/${b.id}/webhooks/feed/deliveries`, undefined, a.key)).status).toBe(403);
    expect((await api("GET", `/v1/archives/${b.id}/webhooks`, undefined, b.key)).status).toBe(403);
  });
});

const pushPayload = (
  after: string,
  commits: Array<{ added?: string[]; modified?: string[]; removed?: string[] }>,
  ref = "refs/heads/main",
) => ({
  ref,
  before: "0".repeat(40),
  after,
  created: false,
  deleted: false,
  forced: false,
  repository: { full_name: "acme/memory", name: "memory", default_branch: "main", owner: { login: "acme" } },
  head_commit: { id: after, timestamp: new Date().toISOString(), message: "change" },
  commits: commits.map((c, i) => ({
    id: `${after.slice(0, 39)}${i}`,
    timestamp: new Date().toISOString(),
    message: "change",
    added: c.added ?? [],
    modified: c.modified ?? [],
    removed: c.removed ?? [],
  })),
});

const INDEX_V1 = `/** Build the passage index (HippoRAG, arXiv:2405.14831). */
export function buildIndex(passages: string[]): Map<string, number> {
  return new Map(passages.map((p, i) => [p, i]));
}
`;
const INDEX_V2 = `${INDEX_V1}
export function queryIndex(index: Map<string, number>, q: string): number | undefined {
  return index.get(q);
}
`;
const TEST_FILE = `import { buildIndex } from "../src/index";
it("indexes", () => expect(buildIndex(["a"]).get("a")).toBe(0));
`;

function githubFiles(files: Record<string, string>) {
  return {
    "https://api.github.com/repos/acme/memory/contents/": (req: Request) => {
      const path = decodeURIComponent(new URL(req.url).pathname.replace("/repos/acme/memory/contents/", ""));
      const body = files[path];
      return body === undefined ? new Response("Not Found", { status: 404 }) : new Response(body);
    },
  };
}

describe("GitHub push webhook", () => {
  it("turns pushed files into code units with symbols, versions changes, deprecates deletions", async () => {
    const { id, key } = await newArchive("gh");
    const secret = await createWebhook(id, "github", "github");

    expect(
      (await sendGithub(id, "github", secret, { zen: "hi" }, { delivery: "p0", event: "ping" })).body,
    ).toMatchObject({
      status: "ignored",
    });

    mockFetch(githubFiles({ "src/index.ts": INDEX_V1, "test/index.test.ts": TEST_FILE, "README.md": "# hi" }));
    const r1 = await sendGithub(
      id,
      "github",
      secret,
      pushPayload("a".repeat(40), [{ added: ["src/index.ts", "test/index.test.ts", "README.md"] }]),
      {
        delivery: "g1",
      },
    );
    expect(r1.status).toBe(202);
    // Two code units and the README (a repository note, src/core/sources/readme.ts).
    expect(await waitDelivery(id, key, "github", "g1")).toMatchObject({ status: "ingested", result: { created: 3 } });
    expect((await history(id, key, "gh:acme/memory/README.md")).body.versions[0].kind).toBe("note");
    const h = await history(id, key, "gh:acme/memory/src/index.ts");
    expect(h.status).toBe(200);
    expect(h.body.versions[0].kind).toBe("code_unit");
    const tests = (await history(id, key, "gh:acme/memory/test/index.test.ts")).body.edges;
    expect(
      tests.some((e: { type: string; dst: string }) => e.type === "tests" && e.dst === "gh:acme/memory/src/index.ts"),
    ).toBe(true);
    const implementsPaper = h.body.edges.some(
      (e: { type: string; dst: string }) => e.type === "implements" && e.dst === "arxiv:2405.14831",
    );
    expect(implementsPaper).toBe(true);
    const resolved = await api("GET", `/v1/archives/${id}/resolve?mention=buildIndex`, undefined, key);
    expect(resolved.body.resolved?.entity).toMatch(/^symbol:.*buildindex$/);

    // Redelivery: acknowledged, not ingested twice.
    const dup = await sendGithub(id, "github", secret, pushPayload("a".repeat(40), [{ added: ["src/index.ts"] }]), {
      delivery: "g1",
    });
    expect(dup.body.status).toBe("duplicate");

    // Modified file: a new version; the same content pushed again: none.
    const t1 = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5)); // the next push is stamped strictly after t1
    mockFetch(githubFiles({ "src/index.ts": INDEX_V2 }));
    await sendGithub(id, "github", secret, pushPayload("b".repeat(40), [{ modified: ["src/index.ts"] }]), {
      delivery: "g2",
    });
    expect(await waitDelivery(id, key, "github", "g2")).toMatchObject({ result: { updated: 1 } });
    await sendGithub(id, "github", secret, pushPayload("c".repeat(40), [{ modified: ["src/index.ts"] }]), {
      delivery: "g3",
    });
    expect(await waitDelivery(id, key, "github", "g3")).toMatchObject({ result: { unchanged: 1, updated: 0 } });
    expect(await versionAt(id, key, "gh:acme/memory/src/index.ts", t1)).toBe(1);

    // Deleted file: deprecated from the push time on.
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    await sendGithub(id, "github", secret, pushPayload("d".repeat(40), [{ removed: ["test/index.test.ts"] }]), {
      delivery: "g4",
    });
    expect(await waitDelivery(id, key, "github", "g4")).toMatchObject({ result: { deprecated: 1 } });
    expect(await versionAt(id, key, "gh:acme/memory/test/index.test.ts", before)).toBe(1);
    expect(
      await versionAt(id, key, "gh:acme/memory/test/index.test.ts", new Date(Date.now() + 1000).toISOString()),
    ).toBeNull();

    // Other branches are acknowledged and ignored.
    await sendGithub(
      id,
      "github",
      secret,
      pushPayload("e".repeat(40), [{ modified: ["src/index.ts"] }], "refs/heads/feature"),
      { delivery: "g5" },
    );
    expect(await waitDelivery(id, key, "github", "g5")).toMatchObject({ status: "ignored" });
  });

  it("refreshes only the files a push changed: one fetch, one new version, its symbols and edges", async () => {
    const { id, key } = await newArchive("gh");
    const secret = await createWebhook(id, "github", "github");
    const UTIL = `export function normalise(s: string): string {\n  return s.trim().toLowerCase();\n}\n`;
    const INDEX_V3 = `import { normalise } from "./util";\n${INDEX_V2}export function find(index: Map<string, number>, q: string) {\n  return index.get(normalise(q));\n}\n`;
    const files: Record<string, string> = {
      "src/index.ts": INDEX_V1,
      "src/util.ts": UTIL,
      "test/index.test.ts": TEST_FILE,
    };
    const fetched: string[] = [];
    const serve = githubFiles(files);
    const handler = Object.values(serve)[0] as (req: Request) => Response;
    mockFetch({
      "https://api.github.com/repos/acme/memory/contents/": (req: Request) => {
        fetched.push(decodeURIComponent(new URL(req.url).pathname.replace("/repos/acme/memory/contents/", "")));
        return handler(req);
      },
    });
    await sendGithub(id, "github", secret, pushPayload("a".repeat(40), [{ added: Object.keys(files) }]), {
      delivery: "r1",
    });
    expect(await waitDelivery(id, key, "github", "r1")).toMatchObject({ result: { created: 3 } });
    expect(fetched.sort()).toEqual(Object.keys(files).sort());

    fetched.length = 0;
    files["src/index.ts"] = INDEX_V3;
    await sendGithub(id, "github", secret, pushPayload("b".repeat(40), [{ modified: ["src/index.ts"] }]), {
      delivery: "r2",
    });
    expect(await waitDelivery(id, key, "github", "r2")).toMatchObject({ result: { updated: 1, created: 0 } });
    expect(fetched).toEqual(["src/index.ts"]);
    const index = await api(
      "GET",
      `/v1/archives/${id}/chunks/${encodeURIComponent("gh:acme/memory/src/index.ts")}`,
      undefined,
      key,
    );
    expect(index.body.latest_version).toBe(2);
    const names = (index.body.versions.at(-1).symbols ?? []).map((x: { name: string }) => x.name);
    expect(names).toEqual(expect.arrayContaining(["buildIndex", "queryIndex", "find"]));
    expect(
      index.body.edges.some(
        (e: { type: string; dst: string; valid_to: string | null }) =>
          e.type === "depends-on" && e.dst === "gh:acme/memory/src/util.ts" && e.valid_to === null,
      ),
    ).toBe(true);
    for (const other of ["src/util.ts", "test/index.test.ts"]) {
      const c = await api(
        "GET",
        `/v1/archives/${id}/chunks/${encodeURIComponent(`gh:acme/memory/${other}`)}`,
        undefined,
        key,
      );
      expect(c.body.latest_version, other).toBe(1);
    }
  });

  it("re-lists the tree after a forced push: files the rewritten history dropped are deprecated", async () => {
    const { id, key } = await newArchive("gh");
    const secret = await createWebhook(id, "github", "github");
    mockFetch(githubFiles({ "src/index.ts": INDEX_V1, "src/extra.ts": "export const EXTRA = 1;\n" }));
    await sendGithub(id, "github", secret, pushPayload("a".repeat(40), [{ added: ["src/index.ts", "src/extra.ts"] }]), {
      delivery: "f1",
    });
    expect(await waitDelivery(id, key, "github", "f1")).toMatchObject({ result: { created: 2 } });

    // History rewritten: the payload lists no commits; the tree at `after` has only src/index.ts.
    mockFetch({
      ...githubFiles({ "src/index.ts": INDEX_V1 }),
      "https://api.github.com/repos/acme/memory/git/trees/": () =>
        Response.json({
          sha: "9".repeat(40),
          truncated: false,
          tree: [{ path: "src/index.ts", type: "blob", mode: "100644", sha: "1".repeat(40), size: INDEX_V1.length }],
        }),
    });
    const forced = { ...pushPayload("9".repeat(40), []), forced: true };
    await sendGithub(id, "github", secret, forced, { delivery: "f2" });
    expect(await waitDelivery(id, key, "github", "f2")).toMatchObject({ result: { unchanged: 1, deprecated: 1 } });
    expect((await history(id, key, "gh:acme/memory/src/extra.ts")).body.deprecated_at).not.toBeNull();
  });

  it("fetches at most 50 files per push without a GitHub token (60 requests/hour) and reports the rest", async () => {
    const { id, key } = await newArchive("gh");
    const secret = await createWebhook(id, "github", "github");
    const paths = Array.from({ length: 51 }, (_, i) => `src/m${String(i).padStart(2, "0")}.ts`);
    mockFetch(githubFiles(Object.fromEntries(paths.map((p, i) => [p, `export const M${i} = ${i};\n`]))));
    await sendGithub(id, "github", secret, pushPayload("b".repeat(40), [{ added: paths }]), { delivery: "m1" });
    const d = await waitDelivery(id, key, "github", "m1");
    expect(d.result).toMatchObject({ created: 50, skipped: 1 });
    expect(calls.filter((c) => c.url.includes("/contents/"))).toHaveLength(50);
  });

  it("rejects a bad signature and a malformed push, storing nothing", async () => {
    const { id, key } = await newArchive("gh");
    const secret = await createWebhook(id, "github", "github");
    const bad = await sendGithub(id, "github", secret, pushPayload("a".repeat(40), []), {
      delivery: "b1",
      signature: `sha256=${"0".repeat(64)}`,
    });
    expect(bad.status).toBe(401);
    expect(bad.body.error.field).toBe("X-Hub-Signature-256");
    const malformed = await sendGithub(
      id,
      "github",
      secret,
      { ref: "refs/heads/main", commits: [] },
      { delivery: "b2" },
    );
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.field).toMatch(/^(repository|after)/);
    expect((await api("GET", `/v1/archives/${id}/webhooks/github/deliveries`, undefined, key)).body.deliveries).toEqual(
      [],
    );
  });

  it("dead-letters a delivery after the last attempt, lists it, and replays it", async () => {
    const { id, key } = await newArchive("gh");
    const secret = await createWebhook(id, "github", "github");
    mockFetch({ "https://api.github.com/": () => new Response("upstream down", { status: 502 }) });
    await sendGithub(id, "github", secret, pushPayload("f".repeat(40), [{ added: ["src/index.ts"] }]), {
      delivery: "z1",
    });
    await waitDelivery(id, key, "github", "z1", ["retrying"]);

    // The queue's last attempt: the consumer records a dead letter instead of retrying.
    const batch = createMessageBatch("paperguru-deliveries", [
      { id: "m1", timestamp: new Date(), attempts: 5, body: { archive: id, webhook: "github", delivery: "z1" } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<DeliveryMessage>, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["m1"]);
    const dead = await api("GET", `/v1/archives/${id}/webhooks/github/deliveries?status=dead`, undefined, key);
    expect(dead.body.deliveries).toHaveLength(1);
    expect(dead.body.deliveries[0].error).toMatch(/HTTP 502/);

    // Upstream is back: replay puts it on the queue and it lands.
    mockFetch(githubFiles({ "src/index.ts": INDEX_V1 }));
    const replay = await api("POST", `/v1/archives/${id}/webhooks/github/deliveries/z1/replay`, undefined, key);
    expect(replay.status).toBe(202);
    expect(await waitDelivery(id, key, "github", "z1")).toMatchObject({ status: "ingested", result: { created: 1 } });
  });
});
