/**
 * The local server (`npm start`'s wrangler dev) with a client that keeps connections alive, as
 * Node's fetch does: archives made one after another, ingests, queries, error answers with unread
 * bodies and multi-megabyte imports, each followed at once by the next request on the pooled
 * connection. Every request is answered (a dropped or hung kept-alive connection fails it).
 * A client whose event loop is blocked for longer than workerd's own 5 s idle limit still finds its
 * pooled connection open (scripts/lib/front.mjs holds it for 10 min).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";

let server: Server;
beforeAll(async () => {
  server = await startServer({ fresh: true });
}, 300_000);
afterAll(() => server?.stop());

/** Node's fetch (undici's pool keeps connections alive); a hung request fails after 60 s. */
async function send(path: string, init: RequestInit & { key: string }): Promise<number> {
  const res = await fetch(`${server.url}${path}`, {
    ...init,
    headers: { "content-type": "application/json", authorization: `Bearer ${init.key}` },
    signal: AbortSignal.timeout(60_000),
  });
  await res.text();
  return res.status;
}

describe("kept-alive connections to the local server", () => {
  it("answers every request of a sequential keep-alive client", async () => {
    const statuses: number[] = [];
    for (let a = 0; a < 3; a++) {
      const id = `ka-${Date.now().toString(36)}-${a}`;
      const created = await fetch(`${server.url}/v1/archives`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${server.adminKey}` },
        body: JSON.stringify({ id, name: id }),
        signal: AbortSignal.timeout(60_000),
      });
      expect(created.status).toBe(201);
      const key = ((await created.json()) as { key: { secret: string } }).key.secret;
      const artifacts = Array.from({ length: 40 }, (_, i) => ({
        id: `note:${i}`,
        kind: "note",
        title: `Note ${i}`,
        content: `Text about topic ${i}. `.repeat(20),
      }));
      statuses.push(
        await send(`/v1/archives/${id}/ingest`, { method: "POST", key, body: JSON.stringify({ artifacts }) }),
      );
      for (let q = 0; q < 3; q++)
        statuses.push(
          await send(`/v1/archives/${id}/context`, {
            method: "POST",
            key,
            body: JSON.stringify({ query: `topic ${q}` }),
          }),
        );
      // Error answers, one with a large body the server need not read.
      expect(await send(`/v1/archives/${id}/chunks/missing`, { key })).toBe(404);
      expect(
        await send(`/v1/archives/${id}/ingest`, { method: "POST", key, body: `{not json${"x".repeat(200_000)}` }),
      ).toBe(400);
      // A 2 MB import, then the next request at once.
      const big = Array.from({ length: 1000 }, (_, i) => ({
        id: `note:big-${i}`,
        kind: "note",
        title: `Big ${i}`,
        content: `Body ${i} `.repeat(220),
      }));
      statuses.push(
        await send(`/v1/archives/${id}/import?format=json&name=big.json`, {
          method: "POST",
          key,
          body: JSON.stringify({ artifacts: big }),
        }),
      );
      statuses.push(
        await send(`/v1/archives/${id}/route`, { method: "POST", key, body: JSON.stringify({ query: "Body 7" }) }),
      );
    }
    expect(
      statuses.every((s) => s >= 200 && s < 300),
      statuses.join(" "),
    ).toBe(true);
  }, 600_000);

  it("answers a kept-alive client whose event loop was blocked for 7 s between two requests", async () => {
    const health = async () => (await send("/healthz", { key: server.adminKey })) === 200;
    expect(await health()).toBe(true);
    // Blocks this thread without timers or socket events running, as a harness scoring a run does.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 7_000);
    expect(await health()).toBe(true);
    const res = await fetch(`${server.url}/healthz`);
    expect(res.headers.get("keep-alive")).toBe("timeout=600");
    await res.text();
  }, 60_000);
});
