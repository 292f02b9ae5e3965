/**
 * Extraction at ingest in workerd (docs/models.md, "Extraction at ingest"), through the Worker's own
 * entry points: the fetch handler with EXTRACTOR=openai (the real wiring, the real OpenAI adapter
 * against a mocked endpoint), the queue handler with the messages the ingest sent (captured from the
 * producer binding, delivered as a MessageBatch), local D1, R2 and the capital chunk's Durable Object.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { QueueMessage } from "../../src/app/lib/queue";
import worker from "../../src/index";
import { wire } from "../../src/wiring";
import { mockFetch } from "./fetch-guard";
import { ADMIN } from "./helpers";

const LLM = "https://api.llm-mock.com/v1";

/** Messages the Worker sent to its queue (the producer binding replaced). */
const sent: QueueMessage[] = [];
const producer = {
  async send(body: QueueMessage) {
    sent.push(body);
  },
  async sendBatch(messages: Iterable<{ body: QueueMessage }>) {
    for (const m of messages) sent.push(m.body);
  },
};
/** The deployment with extraction on, and the same one with EXTRACTOR=none; both capture their sends. */
const ON = { ...env, EXTRACTOR: "openai", LLM_BASE_URL: LLM, LLM_MODEL: "m", LLM_API_KEY: "k", DELIVERIES: producer };
const OFF = { ...env, EXTRACTOR: "none", DELIVERIES: producer };
type Env = typeof ON | typeof OFF;

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected structurally in tests
async function call(e: Env, method: string, path: string, body?: unknown, key: string = ADMIN): Promise<any> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://paperguru.test${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
    e as never,
    ctx,
  );
  const text = await res.text();
  try {
    return { status: res.status, ...JSON.parse(text) };
  } catch {
    return { status: res.status, text };
  }
}

let n = 0;
async function archive(e: Env = ON): Promise<string> {
  const id = `x-${Date.now().toString(36)}-${(n++).toString(36)}`;
  const r = await call(e, "POST", "/v1/archives", { id, name: id });
  expect(r.status).toBe(201);
  return id;
}

/** Deliver the captured `extract` messages (or these) to the queue handler; what it acked and retried. */
async function deliver(e: Env, messages?: QueueMessage[], attempts = 1) {
  const list = messages ?? sent.splice(0).filter((m) => m.kind === "extract");
  const batch = createMessageBatch(
    "paperguru-deliveries",
    list.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<QueueMessage>, e as never, ctx);
  const r = await getQueueResult(batch, ctx);
  // Messages of a batch are handled concurrently: the order of the acks is not the batch's.
  return {
    acked: [...(r.explicitAcks as string[])].sort(),
    retried: r.retryMessages as Array<{ msgId: string; delaySeconds?: number }>,
  };
}

const HIPPO = {
  id: "note:hippo",
  kind: "note",
  title: "Graph retrieval notes",
  content:
    "HippoRAG builds a graph of noun phrases and runs Personalized PageRank from the query's entities. It was evaluated on MuSiQue.",
};
/** HIPPO with content no earlier test stored (the extraction cache is shared by the file's archives). */
const fresh = (tag: string) => ({ ...HIPPO, content: `${HIPPO.content} (${tag})` });
const OTHER = {
  id: "note:other",
  kind: "note",
  title: "Caching notes",
  content: "A write-through cache keeps the routing surface in memory between requests.",
};
const ANSWER = {
  entities: [
    { name: "HippoRAG", type: "method", aliases: [] },
    { name: "Personalized PageRank", type: "method", aliases: ["PPR"] },
    { name: "MuSiQue", type: "dataset", aliases: [] },
  ],
  relations: [
    {
      subject: "HippoRAG",
      predicate: "runs",
      object: "Personalized PageRank",
      subject_type: "method",
      object_type: "method",
    },
    {
      subject: "HippoRAG",
      predicate: "evaluated on",
      object: "MuSiQue",
      subject_type: "method",
      object_type: "dataset",
    },
  ],
};
const EMPTY = { entities: [], relations: [] };

const completion = (value: unknown) =>
  Response.json({
    id: "c1",
    object: "chat.completion",
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(value) }, finish_reason: "stop" }],
    usage: { prompt_tokens: 120, completion_tokens: 60 },
  });

/** The model endpoint: scripted answers first, then the answer for the document (HIPPO's, else none). */
function model(script: Array<() => Response> = []) {
  const asked: string[] = [];
  mockFetch({
    [`${LLM}/chat/completions`]: async (req) => {
      const body = (await req.json()) as { messages: Array<{ content: string }> };
      const doc = /<<<\n([\s\S]*?)\n>>>/.exec(body.messages[1]?.content ?? "")?.[1] ?? "";
      asked.push(doc);
      const next = script.shift();
      return next ? next() : completion(doc.includes("HippoRAG") ? ANSWER : EMPTY);
    },
  });
  return asked;
}

const extractLog = async (id: string) =>
  (
    (await call(ON, "GET", `/v1/archives/${id}/ingest-log?limit=50`)).entries as Array<{
      origin: string;
      ref: string;
      status: string;
      counts: Record<string, unknown>;
      error: string | null;
    }>
  ).filter((e) => e.origin === "extract");

const route = async (id: string, query: string) =>
  ((await call(ON, "POST", `/v1/archives/${id}/route`, { query })).selected as Array<{ chunk: string }>).map(
    (s) => s.chunk,
  );

const historyOf = async (id: string, chunk: string) =>
  (await call(ON, "GET", `/v1/archives/${id}/history?chunk=${encodeURIComponent(chunk)}`)).versions as Array<{
    version: number;
    entities: string[];
    artifact_sha256: string;
    extracted: null | { model: string; entities: string[]; added: string[]; relations: unknown[] };
  }>;

describe("extraction at ingest", () => {
  it("EXTRACTOR=none sends nothing and ingests exactly as with extraction on", async () => {
    sent.length = 0;
    const off = await archive(OFF);
    const on = await archive(ON);
    const a = await call(OFF, "POST", `/v1/archives/${off}/ingest`, { artifacts: [HIPPO, OTHER] });
    expect(sent.filter((m) => m.kind === "extract")).toEqual([]);
    const b = await call(ON, "POST", `/v1/archives/${on}/ingest`, { artifacts: [HIPPO, OTHER] });
    const strip = (r: { results: unknown; counts: unknown }) => ({ results: r.results, counts: r.counts });
    expect(strip(b)).toEqual(strip(a));
    // With it on: one message per created version, sent in one batch, after the ingest answered.
    expect(sent.filter((m) => m.kind === "extract")).toEqual([
      { kind: "extract", archive: on, chunk: "note:hippo", version: 1 },
      { kind: "extract", archive: on, chunk: "note:other", version: 1 },
    ]);
    const [va, vb] = [(await historyOf(off, "note:hippo"))[0], (await historyOf(on, "note:hippo"))[0]];
    expect(vb?.artifact_sha256).toBe(va?.artifact_sha256);
    expect(vb?.extracted).toBeNull();
    // An unchanged re-ingest writes no version and sends nothing.
    sent.length = 0;
    await call(ON, "POST", `/v1/archives/${on}/ingest`, { artifacts: [HIPPO, OTHER] });
    expect(sent).toEqual([]);
  });

  it("extends the version it was sent for: relations, routing by the new names, the ingest log; once", async () => {
    sent.length = 0;
    const id = await archive();
    await call(ON, "POST", `/v1/archives/${id}/ingest`, { artifacts: [HIPPO, OTHER] });
    // Before: "PPR" names nothing the archive knows.
    expect((await call(ON, "GET", `/v1/archives/${id}/resolve?mention=PPR`)).resolved ?? null).toBeNull();
    expect(await route(id, "PPR")).not.toContain("note:hippo");
    const msgs = sent.splice(0).filter((m) => m.kind === "extract");
    const asked = model();
    const r = await deliver(ON, msgs);
    expect(r).toEqual({ acked: ["m0", "m1"], retried: [] });
    expect(asked).toHaveLength(2);

    const [v] = await historyOf(id, "note:hippo");
    expect(v?.version).toBe(1);
    expect(v?.extracted).toMatchObject({
      model: "openai:m",
      relations: [
        { subject: "HippoRAG", predicate: "runs", object: "Personalized PageRank" },
        { subject: "HippoRAG", predicate: "evaluated on", object: "MuSiQue" },
      ],
    });
    expect(v?.extracted?.entities.sort()).toEqual([
      "dataset:musique",
      "method:hipporag",
      "method:personalized-pagerank",
    ]);
    // Still version 1, same hash: the version was extended, not replaced.
    expect((await historyOf(id, "note:hippo")).length).toBe(1);

    // The model's alias routes to the chunk now, through the extracted entity.
    const res = await call(ON, "GET", `/v1/archives/${id}/resolve?mention=PPR`);
    expect(res.resolved.entity).toBe("method:personalized-pagerank");
    const q = await call(ON, "POST", `/v1/archives/${id}/route`, { query: "PPR", include_trace: true });
    expect(q.selected[0].chunk).toBe("note:hippo");
    expect(q.trace.mentions).toEqual(
      expect.arrayContaining([expect.objectContaining({ entity: "method:personalized-pagerank" })]),
    );
    // The entity's rows: its name and the model's alias, and the chunk it was extracted from.
    const ent = await call(ON, "GET", `/v1/archives/${id}/history?entity=method:personalized-pagerank`);
    expect(JSON.stringify(ent.aliases)).toContain('"PPR"');
    expect(ent.mentions.map((m: { chunk: string }) => m.chunk)).toEqual(["note:hippo"]);
    // The chunk listing's entity filter sees extracted entities.
    const list = await call(ON, "GET", `/v1/archives/${id}/chunks?entity=dataset:musique`);
    expect(list.chunks.map((c: { id: string }) => c.id)).toEqual(["note:hippo"]);

    // The ingest log says what was added, per version.
    const log = await extractLog(id);
    const hippo = log.find((e) => e.ref === "note:hippo@v1");
    expect(hippo).toMatchObject({ status: "ok", error: null });
    expect(hippo?.counts).toMatchObject({
      chunk: "note:hippo",
      version: 1,
      model: "openai:m",
      cached: false,
      entities: 3,
      relations: 2,
      ungrounded: 0,
      requests: 1,
    });
    expect(log.find((e) => e.ref === "note:other@v1")?.counts).toMatchObject({ entities: 0, relations: 0 });

    // Redelivered: nothing asked, nothing written, nothing logged.
    const again = await deliver(ON, msgs);
    expect(again.acked).toEqual(["m0", "m1"]);
    expect(asked).toHaveLength(2);
    expect(await extractLog(id)).toHaveLength(2);

    // The capital chunk rebuilt from the change log (evicted) routes the same.
    await call(ON, "POST", `/v1/archives/${id}/admin/evict`);
    expect((await route(id, "PPR"))[0]).toBe("note:hippo");
  });

  it("the same content is not sent to the model again (another archive); a new version is", async () => {
    sent.length = 0;
    const a = await archive();
    const b = await archive();
    const doc = fresh("cache");
    await call(ON, "POST", `/v1/archives/${a}/ingest`, { artifacts: [doc] });
    await call(ON, "POST", `/v1/archives/${b}/ingest`, { artifacts: [{ ...doc, id: "note:copy", title: "Copy" }] });
    const asked = model();
    await deliver(ON);
    // One call for the two archives: the cache is keyed by the content's SHA-256 and the model.
    expect(asked).toHaveLength(1);
    const logB = await extractLog(b);
    expect(logB[0]?.counts).toMatchObject({ chunk: "note:copy", cached: true, relations: 2, requests: 0 });
    expect((await call(ON, "GET", `/v1/archives/${b}/resolve?mention=PPR`)).resolved.entity).toBe(
      "method:personalized-pagerank",
    );
    // A new version (new content) is extracted for itself; the old version keeps its extraction.
    await call(ON, "POST", `/v1/archives/${a}/ingest`, {
      artifacts: [{ ...doc, content: `${doc.content} HippoRAG 2 adds passage nodes.` }],
    });
    await deliver(ON);
    expect(asked).toHaveLength(2);
    const versions = await historyOf(a, "note:hippo");
    expect(versions.map((v) => v.version)).toEqual([1, 2]);
    expect(versions.every((v) => v.extracted !== null)).toBe(true);
  });

  it("a superseded or deprecated version takes no extraction and costs no model call", async () => {
    sent.length = 0;
    const id = await archive();
    await call(ON, "POST", `/v1/archives/${id}/ingest`, { artifacts: [HIPPO, OTHER] });
    const first = sent.splice(0).filter((m) => m.kind === "extract");
    await call(ON, "POST", `/v1/archives/${id}/ingest`, {
      artifacts: [{ ...HIPPO, content: `${HIPPO.content} Rev.` }],
    });
    await call(ON, "POST", `/v1/archives/${id}/deprecate`, { id: "note:other" });
    const asked = model();
    expect((await deliver(ON, first)).acked).toEqual(["m0", "m1"]);
    expect(asked).toEqual([]);
    expect(await extractLog(id)).toEqual([]);
    // The message for version 2 extends version 2.
    await deliver(ON);
    expect(asked).toHaveLength(1);
    const versions = await historyOf(id, "note:hippo");
    expect(versions.map((v) => v.extracted === null)).toEqual([true, false]);
  });

  it("a failure leaves the deterministic analysis as it was and is logged; rate limits retry with backoff", async () => {
    sent.length = 0;
    const id = await archive();
    await call(ON, "POST", `/v1/archives/${id}/ingest`, { artifacts: [fresh("failure")] });
    const msgs = sent.splice(0).filter((m) => m.kind === "extract");
    const before = await historyOf(id, "note:hippo");
    const routed = await route(id, "HippoRAG graph");

    // Two unusable answers: logged, acknowledged, nothing written.
    const bad = () => completion({ entities: "none" });
    let asked = model([bad, bad]);
    expect(await deliver(ON, msgs)).toEqual({ acked: ["m0"], retried: [] });
    expect(asked).toHaveLength(2);
    const [err] = await extractLog(id);
    expect(err).toMatchObject({ ref: "note:hippo@v1", status: "error" });
    expect(err?.error).toMatch(/^malformed: two unusable answers/);
    expect(err?.counts).toMatchObject({ chunk: "note:hippo", version: 1, model: "openai:m" });
    expect(await historyOf(id, "note:hippo")).toEqual(before);
    expect(await route(id, "HippoRAG graph")).toEqual(routed);

    // Rate limited (a retry-after longer than the adapter waits): the queue retries with its backoff...
    const limited = () => new Response("{}", { status: 429, headers: { "retry-after": "3600" } });
    asked = model([limited]);
    expect(await deliver(ON, msgs, 1)).toEqual({ acked: [], retried: [{ msgId: "m0" }] });
    expect(await extractLog(id)).toHaveLength(1);
    // The delay is the queue's backoff for that attempt (10 s, 20 s, ...): asked of the use case itself.
    const delays: Array<number | undefined> = [];
    for (const attempts of [1, 3]) {
      model([limited]);
      await wire(ON as never).extract.consume([
        { body: msgs[0], attempts, ack: () => delays.push(-1), retry: (o) => delays.push(o?.delaySeconds) },
      ]);
    }
    expect(delays).toEqual([10, 40]);
    // ...until the last attempt, which is logged and acknowledged.
    asked = model([limited]);
    expect(await deliver(ON, msgs, 5)).toEqual({ acked: ["m0"], retried: [] });
    const log = await extractLog(id);
    expect(log[0]).toMatchObject({ status: "error", counts: expect.objectContaining({ attempts: 5 }) });
    expect(log[0]?.error).toMatch(/^rate_limited/);
    expect((await historyOf(id, "note:hippo"))[0]?.extracted).toBeNull();
    // A later delivery that succeeds still extends it.
    asked = model();
    await deliver(ON, msgs);
    expect(asked).toHaveLength(1);
    expect((await historyOf(id, "note:hippo"))[0]?.extracted?.relations).toHaveLength(2);
  });

  it("forgetting the chunk removes the extension everywhere: change log, cache, ingest log, routing", async () => {
    sent.length = 0;
    const id = await archive();
    await call(ON, "POST", `/v1/archives/${id}/ingest`, { artifacts: [HIPPO, OTHER] });
    model();
    await deliver(ON);
    const hash = (
      await env.DB.prepare("SELECT content_hash AS h FROM chunk_versions WHERE archive_id = ? AND chunk_id = ?")
        .bind(id, "note:hippo")
        .first<{ h: string }>()
    )?.h;
    const cached = () =>
      env.DB.prepare("SELECT COUNT(*) AS n FROM extraction_cache WHERE content_hash = ?")
        .bind(hash)
        .first<{ n: number }>();
    expect((await cached())?.n).toBe(1);
    const del = await call(ON, "DELETE", `/v1/archives/${id}/chunks?chunk=${encodeURIComponent("note:hippo")}`);
    expect(del.status).toBe(200);
    const ops = await env.DB.prepare("SELECT op FROM change_log WHERE archive_id = ?").bind(id).all<{ op: string }>();
    expect(ops.results.filter((r) => r.op.includes("note:hippo") || r.op.includes("personalized-pagerank"))).toEqual(
      [],
    );
    expect((await cached())?.n).toBe(0);
    expect((await extractLog(id)).map((e) => e.ref)).toEqual(["note:other@v1"]);
    // The names only its extraction held are gone, live and after a rebuild from the scrubbed log.
    for (const step of ["live", "evicted"]) {
      if (step === "evicted") await call(ON, "POST", `/v1/archives/${id}/admin/evict`);
      expect((await call(ON, "GET", `/v1/archives/${id}/resolve?mention=PPR`)).resolved ?? null).toBeNull();
      expect(await route(id, "PPR HippoRAG MuSiQue")).not.toContain("note:hippo");
    }
    // A message still in the queue for it writes nothing and logs nothing.
    const asked = model();
    await deliver(ON, [{ kind: "extract", archive: id, chunk: "note:hippo", version: 1 }]);
    expect(asked).toEqual([]);
    expect(await extractLog(id)).toHaveLength(1);
    // Deleting the archive drops the cache entries of its contents too (they are keyed by content).
    const other = (
      await env.DB.prepare("SELECT content_hash AS h FROM chunk_versions WHERE archive_id = ? AND chunk_id = ?")
        .bind(id, "note:other")
        .first<{ h: string }>()
    )?.h;
    const otherCached = () =>
      env.DB.prepare("SELECT COUNT(*) AS n FROM extraction_cache WHERE content_hash = ?")
        .bind(other)
        .first<{ n: number }>();
    expect((await otherCached())?.n).toBe(1);
    expect((await call(ON, "DELETE", `/v1/archives/${id}`)).status).toBe(200);
    expect((await otherCached())?.n).toBe(0);
  });

  it("forgetting an entity removes it and the relations naming it from the extraction, and the cached answer", async () => {
    sent.length = 0;
    const id = await archive();
    await call(ON, "POST", `/v1/archives/${id}/ingest`, { artifacts: [fresh("forget-entity")] });
    model();
    await deliver(ON);
    const hash = (
      await env.DB.prepare("SELECT content_hash AS h FROM chunk_versions WHERE archive_id = ?")
        .bind(id)
        .first<{ h: string }>()
    )?.h;
    const del = await call(ON, "DELETE", `/v1/archives/${id}/entities?entity=${encodeURIComponent("dataset:musique")}`);
    expect(del.status).toBe(200);
    const [v] = await historyOf(id, "note:hippo");
    expect(v?.extracted?.entities).not.toContain("dataset:musique");
    expect(v?.extracted?.relations).toEqual([
      {
        subject: "HippoRAG",
        predicate: "runs",
        object: "Personalized PageRank",
        subject_type: "method",
        object_type: "method",
      },
    ]);
    const n = await env.DB.prepare("SELECT COUNT(*) AS n FROM extraction_cache WHERE content_hash = ?")
      .bind(hash)
      .first<{ n: number }>();
    expect(n?.n).toBe(0);
    const ops = await env.DB.prepare("SELECT op FROM change_log WHERE archive_id = ?").bind(id).all<{ op: string }>();
    expect(ops.results.filter((r) => r.op.includes("dataset:musique"))).toEqual([]);
    expect((await call(ON, "GET", `/v1/archives/${id}/resolve?mention=MuSiQue`)).resolved?.entity).not.toBe(
      "dataset:musique",
    );
  });

  it("a dump round trip keeps the extraction (applied to the replayed version, no model call)", async () => {
    sent.length = 0;
    const id = await archive();
    await call(ON, "POST", `/v1/archives/${id}/ingest`, { artifacts: [HIPPO, OTHER] });
    model();
    await deliver(ON);
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://paperguru.test/v1/archives/${id}/export?format=json`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      }),
      ON as never,
      ctx,
    );
    const dump = await res.text();
    const parsed = JSON.parse(dump);
    expect(
      parsed.chunks.find((c: { id: string }) => c.id === "note:hippo").versions[0].extracted.relations,
    ).toHaveLength(2);

    sent.length = 0;
    const copy = await archive();
    const asked = model();
    const imp = await call(ON, "POST", `/v1/archives/${copy}/import?format=archive&name=dump.json`, dump);
    expect(imp.status).toBe(200);
    expect(imp.replay.extractions).toEqual({ applied: 2, present: 0 });
    expect(imp.replay.hash_mismatches).toEqual([]);
    // Versions with an extraction in the dump are not queued for another one.
    expect(sent.filter((m) => m.kind === "extract")).toEqual([]);
    expect(asked).toEqual([]);
    const [a, b] = [(await historyOf(id, "note:hippo"))[0], (await historyOf(copy, "note:hippo"))[0]];
    expect(b?.artifact_sha256).toBe(a?.artifact_sha256);
    expect(b?.extracted?.relations).toEqual(a?.extracted?.relations);
    expect(b?.extracted?.entities).toEqual(a?.extracted?.entities);
    expect((await call(ON, "GET", `/v1/archives/${copy}/resolve?mention=PPR`)).resolved.entity).toBe(
      "method:personalized-pagerank",
    );
    // Importing the dump again changes nothing.
    const twice = await call(ON, "POST", `/v1/archives/${copy}/import?format=archive&name=dump.json`, dump);
    expect(twice.replay.extractions).toEqual({ applied: 0, present: 0 });
  });
});
