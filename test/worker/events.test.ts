/**
 * Outbound events: a local receiver (the mocked outbound fetch) checks every delivery's signature
 * with the same verifier PaperGuru uses for its inbound webhooks, and records what arrived.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { QueueMessage } from "../../src/app/lib/queue";
import { verifyGeneric } from "../../src/core/signatures";
import worker from "../../src/index";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";
import { createWebhook, mockFetch, sendGithub, waitDelivery } from "./world";

const HOOK = "https://hooks.example.com/pg";

interface Received {
  type: string;
  id: string;
  headers: Record<string, string>;
  body: { id: string; type: string; archive: string; created_at: string; data: Record<string, unknown> };
  verified: boolean;
}

/** A receiver at HOOK that verifies signatures with `secret` and answers `status()`. */
function receiver(secrets: () => string[], status: () => number = () => 204): Received[] {
  const got: Received[] = [];
  mockFetch({
    [HOOK]: async (req) => {
      const raw = new Uint8Array(await req.arrayBuffer());
      const sig = {
        signature: req.headers.get("x-paperguru-signature"),
        timestamp: req.headers.get("x-paperguru-timestamp"),
      };
      let verified = false;
      for (const s of secrets()) if ((await verifyGeneric(s, sig, raw, Date.now())).ok) verified = true;
      const body = JSON.parse(new TextDecoder().decode(raw));
      got.push({
        type: req.headers.get("x-paperguru-event") ?? "",
        id: req.headers.get("x-paperguru-event-id") ?? "",
        headers: Object.fromEntries(req.headers),
        body,
        verified,
      });
      return new Response(null, { status: status() });
    },
  });
  return got;
}

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 8000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const note = (id: string, content: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: "note",
  title: id,
  content,
  ...extra,
});

describe("outbound events", () => {
  it("signs and delivers chunk, import and deletion events to every matching subscriber", async () => {
    const { id, key } = await newArchive("ev");
    const secrets: string[] = [];
    const got = receiver(() => secrets);
    const all = await api("PUT", `/v1/archives/${id}/subscriptions/all`, { url: HOOK }, key);
    expect(all.status).toBe(200);
    expect(all.body.secret).toMatch(/^[0-9a-f]{64}$/);
    secrets.push(all.body.secret);
    const only = await api(
      "PUT",
      `/v1/archives/${id}/subscriptions/deletes`,
      { url: `${HOOK}?only=deletes`, secret: "s".repeat(20), events: ["chunk.deleted"] },
      key,
    );
    secrets.push(only.body.secret);
    const list = await api("GET", `/v1/archives/${id}/subscriptions`, undefined, key);
    expect(list.body.subscriptions.map((s: { name: string }) => s.name)).toEqual(["all", "deletes"]);
    expect(JSON.stringify(list.body)).not.toContain(all.body.secret);

    await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      { artifacts: [note("note:a", "Alpha."), note("note:b", "Beta.")] },
      key,
    );
    await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [note("note:a", "Alpha, revised.")] }, key);
    await api("POST", `/v1/archives/${id}/deprecate`, { id: "note:b", by: "note:a" }, key);
    // Delivered before the delete: a hard delete also drops queued events that name the chunk.
    await waitFor("3 events to arrive", async () => got.length >= 3 && got);
    await api("DELETE", `/v1/archives/${id}/chunks?chunk=note%3Aa`, undefined, key);
    await waitFor("5 events to arrive", async () => got.length >= 5 && got);

    const types = got.map((g) => g.type);
    expect(types).toEqual(["chunk.created", "chunk.versioned", "chunk.deprecated", "chunk.deleted", "chunk.deleted"]);
    expect(got.every((g) => g.verified)).toBe(true);
    expect(got[0]?.body).toMatchObject({
      type: "chunk.created",
      archive: id,
      data: {
        chunks: [
          { id: "note:a", version: 1 },
          { id: "note:b", version: 1 },
        ],
        total: 2,
      },
    });
    expect(got[0]?.body.id).toBe(got[0]?.id);
    expect(got[1]?.body.data).toEqual({ chunks: [{ id: "note:a", version: 2 }], total: 1 });
    expect(got[2]?.body.data).toMatchObject({ id: "note:b", by: "note:a", version: 1 });
    expect(got[3]?.body.data).toMatchObject({ id: "note:a", versions: 2 });
    // Payloads carry ids and counts, never content.
    expect(JSON.stringify(got.map((g) => g.body))).not.toContain("Alpha");

    const sent = await waitFor("all delivered", async () => {
      const r = await api("GET", `/v1/archives/${id}/subscriptions/all/events`, undefined, key);
      return r.body.events.every((e: { status: string }) => e.status === "delivered") && r.body;
    });
    // Every kept event that named the deleted chunk went with it (created, versioned, and the
    // deprecation naming it as successor); the deletion itself is recorded, like the audit row.
    expect(sent.events.map((e: { type: string }) => e.type)).toEqual(["chunk.deleted"]);
    expect(sent.events[0]).toMatchObject({ attempts: 1, response_status: 204, error: null });

    const feed = JSON.stringify({ artifacts: [note("note:c", "Gamma.")] });
    const res = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/import?format=json&name=feed.json`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: feed,
    });
    expect(res.status).toBe(200);
    const done = await waitFor("import.completed", async () => got.find((g) => g.type === "import.completed"));
    expect(done.body.data).toMatchObject({ name: "feed.json", format: "json", counts: { created: 1 } });
  });

  it("retries a failing subscriber, marks it dead after the 5th attempt, and redelivers on request", async () => {
    const { id, key } = await newArchive("ev2");
    let status = 500;
    const secrets: string[] = [];
    const got = receiver(
      () => secrets,
      () => status,
    );
    const sub = await api("PUT", `/v1/archives/${id}/subscriptions/flaky`, { url: HOOK }, key);
    secrets.push(sub.body.secret);
    await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [note("note:x", "X.")] }, key);
    const first = await waitFor("a retrying event", async () => {
      const r = await api("GET", `/v1/archives/${id}/subscriptions/flaky/events?status=retrying`, undefined, key);
      return r.body.events[0];
    });
    expect(first).toMatchObject({ type: "chunk.created", attempts: 1, response_status: 500 });
    expect(first.error).toMatch(/HTTP 500/);

    // The queue's later attempts, run here without the backoff delays.
    const ctx = createExecutionContext();
    for (let i = 0; i < 4; i++) {
      const batch = createMessageBatch("paperguru-deliveries", [
        { id: `m${i}`, timestamp: new Date(), attempts: i + 2, body: { kind: "event", archive: id, event: first.id } },
      ]);
      await worker.queue(batch as MessageBatch<QueueMessage>, env, ctx);
      const result = await getQueueResult(batch, ctx);
      if (i < 3) expect(result.retryMessages.map((m: { msgId: string }) => m.msgId)).toEqual([`m${i}`]);
      else expect(result.explicitAcks).toEqual([`m${i}`]);
    }
    const dead = await api("GET", `/v1/archives/${id}/subscriptions/flaky/events?status=dead`, undefined, key);
    expect(dead.body.events).toHaveLength(1);
    expect(dead.body.events[0]).toMatchObject({ attempts: 5, response_status: 500 });
    expect(got.length).toBeGreaterThanOrEqual(5);

    status = 200;
    const again = await api(
      "POST",
      `/v1/archives/${id}/subscriptions/flaky/events/${first.id}/redeliver`,
      undefined,
      key,
    );
    expect(again.body).toEqual({ event: first.id, status: "pending" });
    const ok = await waitFor("redelivered", async () => {
      const r = await api("GET", `/v1/archives/${id}/subscriptions/flaky/events?status=delivered`, undefined, key);
      return r.body.events[0];
    });
    expect(ok).toMatchObject({ id: first.id, attempts: 1, response_status: 200 });
    expect(got[got.length - 1]?.body.id).toBe(first.id);
    expect(got.every((g) => g.verified)).toBe(true);
  });

  it("refuses private URLs, bad types and other archives' keys; unsubscribing drops its events", async () => {
    const { id, key } = await newArchive("ev3");
    const other = await newArchive("ev4");
    for (const url of [
      "http://169.254.169.254/latest",
      "https://localhost/x",
      "https://10.0.0.1/hook",
      "ftp://x.org/",
    ]) {
      const r = await api("PUT", `/v1/archives/${id}/subscriptions/bad`, { url }, key);
      expect(r.status, url).toBe(400);
      expect(r.body.error.field).toBe("url");
    }
    const badType = await api(
      "PUT",
      `/v1/archives/${id}/subscriptions/bad`,
      { url: HOOK, events: ["chunk.eaten"] },
      key,
    );
    expect(badType.body.error.field).toBe("events.0");
    expect((await api("PUT", `/v1/archives/${id}/subscriptions/x`, { url: HOOK }, other.key)).status).toBe(403);
    expect((await api("GET", `/v1/archives/${id}/subscriptions`, undefined, other.key)).status).toBe(403);
    const reader = (await api("POST", `/v1/archives/${id}/keys`, { scopes: ["read"] })).body.secret as string;
    expect((await api("PUT", `/v1/archives/${id}/subscriptions/x`, { url: HOOK }, reader)).status).toBe(403);

    receiver(() => []);
    await api("PUT", `/v1/archives/${id}/subscriptions/gone`, { url: HOOK }, key);
    await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [note("note:y", "Y.")] }, key);
    expect((await api("DELETE", `/v1/archives/${id}/subscriptions/gone`, undefined, key)).body).toEqual({
      deleted: "gone",
    });
    expect((await api("GET", `/v1/archives/${id}/subscriptions/gone/events`, undefined, key)).status).toBe(404);
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM event_deliveries WHERE archive_id = ?")
      .bind(id)
      .first();
    expect(rows?.n).toBe(0);
  });

  it("source runs and dead inbound deliveries are announced", async () => {
    const { id, key } = await newArchive("ev5");
    const secrets: string[] = [];
    const got = receiver(() => secrets);
    secrets.push(
      (
        await api(
          "PUT",
          `/v1/archives/${id}/subscriptions/ops`,
          { url: HOOK, events: ["source.run_finished", "delivery.dead"] },
          key,
        )
      ).body.secret,
    );
    const feedUrl = "https://feeds.example.org/notes.json";
    const hook = async (req: Request) => {
      const raw = new Uint8Array(await req.arrayBuffer());
      const sig = {
        signature: req.headers.get("x-paperguru-signature"),
        timestamp: req.headers.get("x-paperguru-timestamp"),
      };
      const body = JSON.parse(new TextDecoder().decode(raw));
      got.push({
        type: body.type,
        id: body.id,
        headers: {},
        body,
        verified: (await verifyGeneric(secrets[0] as string, sig, raw, Date.now())).ok,
      });
      return new Response(null, { status: 204 });
    };
    mockFetch({ [HOOK]: hook, [feedUrl]: () => Response.json({ artifacts: [note("note:s", "From a source.")] }) });
    const src = await api("POST", `/v1/archives/${id}/sources`, { kind: "url", location: feedUrl }, key);
    await api("POST", `/v1/archives/${id}/sources/${src.body.id}/run`, undefined, key);
    const ran = await waitFor("source.run_finished", async () => got.find((g) => g.type === "source.run_finished"));
    expect(ran.verified).toBe(true);
    expect(ran.body.data).toMatchObject({
      source: src.body.id,
      kind: "url",
      status: "ok",
      counts: { created: 1 },
      error: null,
    });
    expect(got.some((g) => g.type === "chunk.created")).toBe(false);

    // A GitHub push whose files cannot be fetched, on the queue's last attempt: a dead letter.
    const secret = await createWebhook(id, "github", "github");
    const gh = "https://api.github.com/";
    mockFetch({
      [HOOK]: hook,
      [gh]: () => new Response("upstream down", { status: 502 }),
    });
    const after = "f".repeat(40);
    const push = {
      ref: "refs/heads/main",
      before: "0".repeat(40),
      after,
      created: false,
      deleted: false,
      forced: false,
      repository: { full_name: "acme/memory", name: "memory", default_branch: "main", owner: { login: "acme" } },
      head_commit: { id: after, timestamp: new Date().toISOString(), message: "change" },
      commits: [
        {
          id: after,
          timestamp: new Date().toISOString(),
          message: "change",
          added: ["src/a.ts"],
          modified: [],
          removed: [],
        },
      ],
    };
    expect((await sendGithub(id, "github", secret, push, { delivery: "d9" })).status).toBe(202);
    await waitDelivery(id, key, "github", "d9", ["retrying"]);
    const batch = createMessageBatch("paperguru-deliveries", [
      { id: "w1", timestamp: new Date(), attempts: 5, body: { archive: id, webhook: "github", delivery: "d9" } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<QueueMessage>, env, ctx);
    await getQueueResult(batch, ctx);
    const dead = await waitFor("delivery.dead", async () => got.find((g) => g.type === "delivery.dead"));
    expect(dead.body.data).toMatchObject({ webhook: "github", delivery: "d9", attempts: 5 });
    expect(dead.body.data.error).toMatch(/HTTP 502/);
  });
});
