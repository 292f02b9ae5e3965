/**
 * Commitment extraction that follows the project (seed 002 B.1, Fig. 5), through REST with a mocked
 * OpenAI endpoint: the model sees the kept records and revises one (the record's next version, never
 * a second record beside it), and per-turn extraction is idempotent (a redelivered turn asks no model
 * and changes nothing). The brief never shows the superseded version.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { QueueMessage } from "../../src/app/lib/queue";
import { createApp } from "../../src/http/app";
import worker from "../../src/index";
import { type Env, wire } from "../../src/wiring";
import { mockFetch } from "./fetch-guard";
import { ADMIN, api, newArchive } from "./helpers";

const CHAT = "https://api.openai.com/v1/chat/completions";
const withModel = createApp(() =>
  wire({
    ...env,
    DISTILLER: "openai",
    LLM_BASE_URL: "https://api.openai.com/v1",
    LLM_MODEL: "mock-1",
    LLM_API_KEY: "sk-test",
  } as unknown as Env),
);

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected structurally in tests
async function modelApi(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await withModel.request(`http://paperguru.test${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** The mocked chat endpoint answering `script` in order (with the prompt); the prompts it saw. */
function model(script: Array<(prompt: string) => unknown>) {
  const seen: string[] = [];
  mockFetch({
    [CHAT]: async (req) => {
      const body = (await req.json()) as { messages: Array<{ role: string; content: string }> };
      const prompt = body.messages[1]?.content ?? "";
      seen.push(prompt);
      const next = script.shift();
      if (!next) throw new Error("the model was called more often than scripted");
      return Response.json({
        id: "chatcmpl-1",
        choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(next(prompt)) } }],
        usage: { prompt_tokens: 100, completion_tokens: 30 },
      });
    },
  });
  return seen;
}

const turnIds = (prompt: string) => [...prompt.matchAll(/^\[turn (\S+)\] (\S+)$/gmu)].map((m) => m[1] as string);
const last = (prompt: string) => turnIds(prompt).at(-1) as string;

describe("commitments that follow the project", () => {
  it("revises a kept record as its next version, per turn, idempotently", async () => {
    const { id, key } = await newArchive("pgfollow");
    const base = `/v1/archives/${id}`;
    const say = (text: string, at: string) =>
      api("POST", `${base}/sessions/s-1/events`, { events: [{ role: "user", text, at }] }, key);
    await say("Keep the heads cache in a Durable Object, one per archive.", "2025-01-10T09:00:00Z");
    const seen = model([
      (p) => ({
        records: [
          {
            kind: "design",
            title: "Heads cache in a Durable Object",
            content: "Each archive keeps its heads cache in one Durable Object.",
            design: "",
            revises: "",
            evidence: [{ turn: last(p), quote: "Keep the heads cache in a Durable Object" }],
          },
        ],
      }),
    ]);
    const first = await modelApi("POST", `${base}/commitments/propose`, {
      session: "s-1",
      per_turn: true,
      as_of: "2025-01-10T09:05:00Z",
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.replayed).toBe(false);
    const design = first.body.proposals[0];
    expect(design).toMatchObject({ written: "created", revises: null });
    await api(
      "POST",
      `${base}/chunks/${encodeURIComponent(design.id)}/annotations`,
      { key: "status", value: "committed" },
      key,
    );

    // The next turn changes the design: the model sees the kept record and revises it.
    await say("Actually, keep the heads cache in Workers KV instead of a Durable Object.", "2025-01-11T09:00:00Z");
    const answer = (p: string) => ({
      records: [
        {
          kind: "design",
          title: "Heads cache in Workers KV",
          content: "Each archive keeps its heads cache in Workers KV.",
          design: "",
          revises: design.id,
          evidence: [{ turn: last(p), quote: "keep the heads cache in Workers KV" }],
        },
      ],
    });
    const seenNext = model([answer]);
    const rev = await modelApi("POST", `${base}/commitments/propose`, { session: "s-1", per_turn: true, last: 5 });
    expect(rev.status, JSON.stringify(rev.body)).toBe(200);
    expect(seenNext[0]).toContain(`- ${design.id} (design, committed): Heads cache in a Durable Object`);
    expect(rev.body.proposals[0]).toMatchObject({ id: design.id, revises: design.id, written: "revised" });
    expect(seen.length).toBe(1);

    const detail = await api("GET", `${base}/chunks/${encodeURIComponent(design.id)}`, undefined, key);
    expect(detail.body.versions.length).toBe(2);
    const designs = await api("GET", `${base}/chunks?kind=design`, undefined, key);
    expect(designs.body.chunks.map((c: { id: string }) => c.id)).toEqual([design.id]);
    // The revision waits for a commit: the brief holds the record back, and never briefs v1.
    const held = await api("POST", `${base}/brief`, { request: "Where does the heads cache live?" }, key);
    expect(held.body.commitments).toEqual([]);
    expect(held.body.held_back).toContainEqual({ id: design.id, status: "proposed" });

    // The same turn delivered again: no model call (none is scripted), nothing written, the first answer.
    const again = await modelApi("POST", `${base}/commitments/propose`, { session: "s-1", per_turn: true, last: 5 });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.replayed).toBe(true);
    expect(again.body.proposals).toEqual(rev.body.proposals);
    const after = await api("GET", `${base}/chunks/${encodeURIComponent(design.id)}`, undefined, key);
    expect(after.body.versions.length).toBe(2);

    await api(
      "POST",
      `${base}/chunks/${encodeURIComponent(design.id)}/annotations`,
      { key: "status", value: "committed" },
      key,
    );
    const brief = await api("POST", `${base}/brief`, { request: "Where does the heads cache live?" }, key);
    expect(brief.body.commitments).toEqual([expect.objectContaining({ id: design.id, version: 2 })]);
    expect(brief.body.commitments[0].title).toBe("Heads cache in Workers KV");

    const noSession = await modelApi("POST", `${base}/commitments/propose`, { turns: [design.id], per_turn: true });
    expect(noSession.status).toBe(400);
    expect(noSession.body.error.field).toBe("per_turn");
  });

  it("queues each appended turn when a model is configured, and the consumer extracts it once", async () => {
    const sent: QueueMessage[] = [];
    const producer = {
      async send(body: QueueMessage) {
        sent.push(body);
      },
      async sendBatch(messages: Iterable<{ body: QueueMessage }>) {
        for (const m of messages) sent.push(m.body);
      },
    };
    const ON = {
      ...env,
      DISTILLER: "openai",
      LLM_BASE_URL: "https://api.openai.com/v1",
      LLM_MODEL: "mock-1",
      LLM_API_KEY: "sk-test",
      DELIVERIES: producer,
    };
    const app = createApp(() => wire(ON as unknown as Env));
    const { id } = await newArchive("pgqueue");
    const base = `/v1/archives/${id}`;
    const text = "Store every routing head in one Durable Object per archive.";
    const res = await app.request(`http://paperguru.test${base}/sessions/s-9/events`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
      body: JSON.stringify({ events: [{ role: "user", text, at: "2025-02-01T10:00:00Z" }] }),
    });
    expect(res.status).toBe(200);
    expect(sent).toEqual([
      { kind: "commitments", archive: id, session: "s-9", at: Date.parse("2025-02-01T10:00:00Z") },
    ]);
    // Without a model, an append queues nothing.
    const before = sent.length;
    await api("POST", `${base}/sessions/s-9/events`, { events: [{ role: "assistant", text: "Done." }] }, ADMIN);
    expect(sent.length).toBe(before);

    const deliver = async () => {
      const batch = createMessageBatch(
        "paperguru-deliveries",
        sent.slice(0, 1).map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
      );
      const ctx = createExecutionContext();
      await worker.queue(batch as MessageBatch<QueueMessage>, ON as never, ctx);
      return getQueueResult(batch, ctx);
    };
    const seen = model([
      (p) => ({
        records: [
          {
            kind: "design",
            title: "Routing heads in a Durable Object",
            content: "Every archive stores its routing heads in one Durable Object.",
            design: "",
            revises: "",
            evidence: [{ turn: last(p), quote: "Store every routing head in one Durable Object" }],
          },
        ],
      }),
    ]);
    const r1 = await deliver();
    expect(r1.explicitAcks).toEqual(["m0"]);
    expect(seen.length).toBe(1);
    const designs = await api("GET", `${base}/chunks?kind=design`, undefined, ADMIN);
    expect(designs.body.chunks.length).toBe(1);
    // Redelivered: acknowledged, no model call (none is scripted), nothing new.
    const r2 = await deliver();
    expect(r2.explicitAcks).toEqual(["m0"]);
    const again = await api("GET", `${base}/chunks?kind=design`, undefined, ADMIN);
    expect(again.body.chunks).toEqual(designs.body.chunks);
  });
});
