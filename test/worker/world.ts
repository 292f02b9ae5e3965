/**
 * Helpers for the ingest-from-the-world tests: signed webhook deliveries, polling a delivery until
 * the queue consumer is done, and the outbound fetch mock (fetch-guard.ts, installed for every test).
 */

import { expect } from "vitest";
import { genericSignedPayload, signBytes } from "../../src/core/signatures";
import { ADMIN, api } from "./helpers";
import { WORKER } from "./worker";

export { calls, mockFetch } from "./fetch-guard";

const enc = new TextEncoder();

export async function createWebhook(archive: string, name: string, kind: "generic" | "github", extra = {}) {
  const res = await api("PUT", `/v1/archives/${archive}/webhooks/${name}`, { kind, ...extra }, ADMIN);
  expect(res.status).toBe(201);
  return res.body.secret as string;
}

export async function postRaw(path: string, body: string, headers: Record<string, string>) {
  const res = await WORKER.fetch(`http://paperguru.test${path}`, { method: "POST", headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep text
  }
  // biome-ignore lint/suspicious/noExplicitAny: bodies are inspected structurally
  return { status: res.status, body: parsed as any };
}

export async function sendGeneric(
  archive: string,
  name: string,
  secret: string,
  payload: unknown,
  opts: { delivery: string; ts?: number; signature?: string },
) {
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  const ts = String(opts.ts ?? Math.floor(Date.now() / 1000));
  const sig = opts.signature ?? (await signBytes(secret, genericSignedPayload(ts, enc.encode(body))));
  return postRaw(`/v1/archives/${archive}/webhooks/${name}`, body, {
    "content-type": "application/json",
    "x-paperguru-timestamp": ts,
    "x-paperguru-signature": sig,
    "x-paperguru-delivery": opts.delivery,
  });
}

export async function sendGithub(
  archive: string,
  name: string,
  secret: string,
  payload: unknown,
  opts: { delivery: string; event?: string; signature?: string },
) {
  const body = JSON.stringify(payload);
  return postRaw(`/v1/archives/${archive}/webhooks/${name}`, body, {
    "content-type": "application/json",
    "x-github-event": opts.event ?? "push",
    "x-github-delivery": opts.delivery,
    "x-hub-signature-256": opts.signature ?? (await signBytes(secret, enc.encode(body))),
  });
}

/** Wait until the queue consumer has finished a delivery (local queues batch for ~1 s). */
export async function waitDelivery(
  archive: string,
  key: string,
  name: string,
  delivery: string,
  want = ["ingested", "ignored", "dead"],
) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await api("GET", `/v1/archives/${archive}/webhooks/${name}/deliveries/${delivery}`, undefined, key);
    if (res.status === 200 && want.includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`delivery ${delivery} stuck: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function history(archive: string, key: string, chunk: string) {
  return api("GET", `/v1/archives/${archive}/history?chunk=${encodeURIComponent(chunk)}`, undefined, key);
}

/** Version visible at a time through the public query path (null = invisible then). */
export async function versionAt(archive: string, key: string, chunk: string, asOf: string): Promise<number | null> {
  const res = await api("POST", `/v1/archives/${archive}/expand`, { chunks: [{ id: chunk }], as_of: asOf }, key);
  expect(res.status).toBe(200);
  return (res.body.cards[0]?.version as number | undefined) ?? null;
}
