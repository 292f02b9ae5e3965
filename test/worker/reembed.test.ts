/**
 * Embeddings from an endpoint (docs/models.md): an archive records the embedding space of its
 * vectors; use cases wired with another embedder (EMBEDDER=openai against a mocked /v1/embeddings,
 * a different model and dimension) detect the change and never mix the two spaces; a re-embed runs
 * in queued pages with progress, after which semantic seeds work again; a vector index of another
 * dimension than EMBEDDING_DIMS is a clear error. Every outbound request is mocked (fetch-guard).
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DoVectorIndex } from "../../src/adapters/local/do-vectors";
import type { QueueMessage, QueueMessageLike, ReembedMessage } from "../../src/app/lib/queue";
import { HASHED_MODEL, HashedEmbedder } from "../../src/core/embed/hashed";
import { FailureError } from "../../src/core/errors";
import { type Env, wire } from "../../src/wiring";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";
import { calls, mockFetch } from "./world";

const BASE = "https://embed.example/v1";
/** The endpoint's model: a hashed embedder at 64 dimensions (a space the default 384 one is not). */
const MODEL_B = "hash-64";
const B = new HashedEmbedder({ dims: 64 });

/** The mocked endpoint: OpenAI's /embeddings wire format; `dims` lets a test answer a wrong size. */
function serveEmbeddings(opts: { dims?: number; before?: (input: string[]) => Promise<void> } = {}) {
  const seen: string[][] = [];
  const model = new HashedEmbedder({ dims: opts.dims ?? 64 });
  mockFetch({
    [`${BASE}/embeddings`]: async (req) => {
      const body = (await req.json()) as { model: string; input: string[] };
      seen.push(body.input);
      await opts.before?.(body.input);
      return Response.json({
        object: "list",
        model: body.model,
        data: body.input.map((t, index) => ({ object: "embedding", index, embedding: Array.from(model.embedOne(t)) })),
        usage: { prompt_tokens: body.input.length * 8, total_tokens: body.input.length * 8 },
      });
    },
  });
  return seen;
}

/** Use cases as an isolate configured with EMBEDDER=openai would build them; queue messages are kept. */
function appB(extra: Record<string, unknown> = {}) {
  const sent: QueueMessage[] = [];
  const queue = {
    send: async (m: QueueMessage) => {
      sent.push(m);
    },
  };
  // wrangler.toml's vars type EMBEDDER as its declared values; the variable takes "openai" too.
  const app = wire({
    ...env,
    EMBEDDER: "openai",
    EMBEDDING_BASE_URL: BASE,
    EMBEDDING_MODEL: MODEL_B,
    EMBEDDING_DIMS: "64",
    DELIVERIES: queue,
    ...extra,
  } as unknown as Env);
  return { app, sent };
}

/** A queue message as the consumer gets it, recording what the consumer decided. */
function delivery(body: QueueMessage) {
  const out = { acked: false, retried: null as number | null };
  const m: QueueMessageLike = {
    body,
    attempts: 1,
    ack: () => {
      out.acked = true;
    },
    retry: (o) => {
      out.retried = o?.delaySeconds ?? 0;
    },
  };
  return { m, out };
}

const notes = (n: number, from = 0) =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      id: `note:${String(i).padStart(3, "0")}`,
      kind: "note" as const,
      title: `Lighthouse ${i} of the ${["northern", "eastern", "southern", "western"][i % 4]} coast`,
      content: `Lighthouse ${i} was lit in ${1850 + i}. Its keeper logged ${i * 3} storms and ${i + 7} shipwrecks near the ${["granite", "chalk", "basalt", "sandstone"][i % 4]} cliffs.`,
      valid_from: "2024-01-01",
    };
  });

async function ingestDefault(id: string, key: string, artifacts: unknown[]) {
  const res = await api("POST", `/v1/archives/${id}/ingest`, { artifacts }, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function logCount(archive: string, op: string, chunk?: string): Promise<number> {
  const row = await env.DB.prepare(
    `SELECT COUNT(*) AS n FROM change_log WHERE archive_id = ? AND json_extract(op, '$.op') = ?${chunk ? " AND json_extract(op, '$.chunk') = ?" : ""}`,
  )
    .bind(archive, op, ...(chunk ? [chunk] : []))
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** Run the queued pages one by one through the consumer; the status after each. */
async function drain(app: ReturnType<typeof wire>, sent: QueueMessage[], archive: string) {
  const progress: Array<{ done: number; total: number; pages: number; status: string }> = [];
  for (let guard = 0; sent.length > 0 && guard < 50; guard++) {
    const { m, out } = delivery(sent.shift() as QueueMessage);
    await app.reembed.consume([m]);
    expect(out.acked, `retried: ${out.retried}`).toBe(true);
    const s = await app.reembed.status(archive);
    if (!s.ok || !s.value.job) throw new Error("no job");
    progress.push({
      done: s.value.job.done,
      total: s.value.job.total,
      pages: s.value.job.pages,
      status: s.value.job.status,
    });
  }
  return progress;
}

describe("embedding spaces", () => {
  it("an archive records its space at its first embedded ingest", async () => {
    const { id, key } = await newArchive("space");
    const before = await api("GET", `/v1/archives/${id}/reembed`, undefined, key);
    expect(before.status).toBe(200);
    expect(before.body.embedding).toMatchObject({ status: "unrecorded", archive: null });
    await ingestDefault(id, key, notes(3));
    const after = await api("GET", `/v1/archives/${id}/reembed`, undefined, key);
    expect(after.body.embedding).toEqual({
      status: "current",
      archive: { model: HASHED_MODEL, dims: 384 },
      embedder: { model: HASHED_MODEL, dims: 384 },
      stale_since: null,
    });
    expect(after.body.job).toBeNull();
  });

  it("a model change is detected: queries skip semantic seeds, ingest writes no vector of the other space", async () => {
    const { id, key } = await newArchive("change");
    await ingestDefault(id, key, notes(12));
    const seen = serveEmbeddings();
    const { app } = appB();
    const q = { query: "Which lighthouse logged 21 storms near the sandstone cliffs?", limit: 5 };

    // The first query of the isolate embeds while it reads the archive's space, then drops the answer.
    const r1 = await app.query.route(id, q);
    expect(r1.trace.vector_space).toMatchObject({
      status: "stale",
      archive: { model: HASHED_MODEL, dims: 384 },
      embedder: { model: MODEL_B, dims: 64 },
    });
    expect(r1.trace.vector_space?.hint).toContain(`/v1/archives/${id}/reembed`);
    expect(r1.trace.semantic).toEqual([]);
    // Lexical routing still answers.
    expect(r1.selected[0]?.chunk).toBe("note:007");
    // Known stale now: the next query sends no embedding request at all.
    const requests = seen.length;
    const c2 = await app.query.context(id, { ...q, budget_tokens: 600 });
    expect(seen.length).toBe(requests);
    expect(c2.trace.vector_space?.status).toBe("stale");
    expect(c2.cards[0]?.artifact_id).toBe("note:007");

    // Ingest keeps working; its vectors (64 dims) are not written to the 384-dim index.
    const res = await app.memory.ingest(id, notes(2, 100));
    if (!res.ok) throw new Error(JSON.stringify(res.error));
    expect(res.value.counts.created).toBe(2);
    expect(res.value.vector_space).toMatchObject({ status: "stale" });
    expect(res.value.vector_space?.message).toMatch(/not written/);
    const shape = await new DoVectorIndex(env.LOCAL_VECTORS).shape(id);
    expect(shape.dims).toBe(384);
    const stored = await new DoVectorIndex(env.LOCAL_VECTORS).query(id, B.embedOne("Lighthouse 100"), 100);
    expect(stored.map((m) => m.id)).not.toContain("note:100");

    // The archive is marked: back on the default embedder, its index misses those heads, so
    // queries still skip semantic seeds (and say so in a header) until a re-embed.
    const status = await api("GET", `/v1/archives/${id}/reembed`, undefined, key);
    expect(status.body.embedding.status).toBe("stale");
    expect(status.body.embedding.stale_since).not.toBeNull();
    const http = await routeHttp(id, key, q);
    expect(http.header).toBe("stale");
    expect(http.body.trace.vector_space.archive).toEqual({ model: HASHED_MODEL, dims: 384 });
    expect(http.body.trace.semantic).toEqual([]);
  });

  it("a re-embed runs in pages with progress; afterwards semantic seeds work again", async () => {
    const { id, key } = await newArchive("reembed");
    await ingestDefault(id, key, notes(200));
    const seen = serveEmbeddings();
    const { app, sent } = appB();

    const started = await app.reembed.start(id, { force: false });
    if (!started.ok) throw new Error(JSON.stringify(started.error));
    expect(started.value.started).toBe(true);
    expect(started.value.embedding.status).toBe("reembedding");
    expect(started.value.job).toMatchObject({
      status: "running",
      target: { model: MODEL_B, dims: 64 },
      from: { model: HASHED_MODEL, dims: 384 },
      total: 200,
      done: 0,
    });
    expect(sent).toHaveLength(1);
    expect((sent[0] as ReembedMessage).ids).toHaveLength(96);
    // Idempotent: a second start answers the running job.
    const again = await app.reembed.start(id, { force: true });
    expect(again.ok && again.value.started).toBe(false);
    expect(again.ok && again.value.job?.id).toBe(started.value.job?.id);
    expect(sent).toHaveLength(1);

    // While it runs, queries answer without semantic seeds and say why.
    const during = await app.query.route(id, { query: "lighthouse basalt cliffs", limit: 3 });
    expect(during.trace.vector_space?.status).toBe("reembedding");

    const requests = seen.length;
    const progress = await drain(app, sent, id);
    expect(progress.map((p) => p.done)).toEqual([96, 192, 200]);
    expect(progress.map((p) => p.pages)).toEqual([1, 2, 3]);
    expect(progress.map((p) => p.status)).toEqual(["running", "running", "done"]);
    // One embedding request per page of 96 heads.
    expect(seen.length - requests).toBe(3);
    expect(seen.slice(requests).map((x) => x.length)).toEqual([96, 96, 8]);

    const done = await app.reembed.status(id);
    if (!done.ok) throw new Error("status");
    expect(done.value.embedding).toMatchObject({
      status: "current",
      archive: { model: MODEL_B, dims: 64 },
      stale_since: null,
    });
    expect(done.value.job).toMatchObject({ status: "done", done: 200, total: 200, removed: 0, errors: [] });
    expect(done.value.job?.finished_at).not.toBeNull();
    // The local index took the new dimension; every head has a new sketch.
    expect((await new DoVectorIndex(env.LOCAL_VECTORS).shape(id)).dims).toBe(64);
    expect(await logCount(id, "head.sketch")).toBe(200);

    // Semantic seeds again, in the new space: the vector index's best match is the head asked for.
    const q = "Lighthouse 42 of the southern coast";
    const after = await app.query.route(id, { query: q, limit: 5 });
    expect(after.trace.vector_space).toBeUndefined();
    expect(after.trace.semantic[0]?.chunk).toBe("note:042");
    expect(after.selected[0]?.chunk).toBe("note:042");
    // And new ingests write their vectors in it.
    const more = await app.memory.ingest(id, notes(1, 300));
    expect(more.ok && more.value.vector_space).toBeUndefined();
    const hit = await app.query.route(id, { query: "Lighthouse 300 of the northern coast", limit: 3 });
    expect(hit.trace.semantic[0]?.chunk).toBe("note:300");

    // The default embedder's use cases now find the archive in another space, and do not mix.
    const http = await routeHttp(id, key, { query: q, limit: 5 });
    expect(http.header).toBe("stale");
    expect(http.body.trace.vector_space.archive).toEqual({ model: MODEL_B, dims: 64 });
    // Nothing to do when current, unless forced.
    const noop = await app.reembed.start(id, { force: false });
    expect(noop.ok && noop.value.started).toBe(false);
    expect(sent).toHaveLength(0);
  });

  it("a chunk forgotten while its page is re-embedded gets no vector and no sketch back", async () => {
    const { id, key } = await newArchive("forget-re");
    await ingestDefault(id, key, notes(10));
    let forgotten = false;
    // The forget lands while the page's embedding request is in flight: after the page read its
    // heads, before it writes their vectors and sketches.
    serveEmbeddings({
      before: async (input) => {
        if (forgotten || !input.some((t) => t.startsWith("Lighthouse 4 "))) return;
        forgotten = true;
        const del = await api("DELETE", `/v1/archives/${id}/chunks?chunk=note%3A004`, undefined, key);
        expect(del.status).toBe(200);
      },
    });
    const { app, sent } = appB();
    const started = await app.reembed.start(id, { force: false });
    expect(started.ok && started.value.started).toBe(true);
    const progress = await drain(app, sent, id);
    expect(forgotten).toBe(true);
    expect(progress.at(-1)).toMatchObject({ done: 9, status: "done" });
    const s = await app.reembed.status(id);
    expect(s.ok && s.value.job?.removed).toBe(1);
    const index = new DoVectorIndex(env.LOCAL_VECTORS);
    const matches = await index.query(id, B.embedOne("Lighthouse 4 of the northern coast"), 100);
    expect(matches.map((m) => m.id)).not.toContain("note:004");
    expect(matches).toHaveLength(9);
    expect(await logCount(id, "head.sketch", "note:004")).toBe(0);
    expect(await logCount(id, "head.sketch")).toBe(9);
    const gone = await app.query.route(id, { query: "Lighthouse 4 of the northern coast", limit: 10 });
    expect(gone.selected.map((x) => x.chunk)).not.toContain("note:004");
  });

  it("a failing endpoint retries the page with backoff, then fails the job and the archive stays stale", async () => {
    const { id, key } = await newArchive("fail-re");
    await ingestDefault(id, key, notes(5));
    mockFetch({ [`${BASE}/embeddings`]: () => Response.json({ error: { message: "bad request" } }, { status: 400 }) });
    const { app, sent } = appB();
    expect((await app.reembed.start(id, { force: false })).ok).toBe(true);
    const body = sent.shift() as QueueMessage;
    const delays: Array<number | null> = [];
    for (let i = 0; i < 5; i++) {
      const { m, out } = delivery(body);
      await app.reembed.consume([m]);
      delays.push(out.acked ? null : out.retried);
    }
    expect(delays).toEqual([10, 20, 40, 80, null]);
    const s = await app.reembed.status(id);
    if (!s.ok) throw new Error("status");
    expect(s.value.job?.status).toBe("failed");
    expect(s.value.job?.errors).toHaveLength(5);
    expect(s.value.job?.errors[0]?.message).toMatch(/embedding/);
    expect(s.value.embedding).toMatchObject({ status: "stale", archive: { model: HASHED_MODEL, dims: 384 } });
    // A new POST starts again from the first page.
    serveEmbeddings();
    const again = await app.reembed.start(id, { force: false });
    expect(again.ok && again.value.started).toBe(true);
    await drain(app, sent, id);
    const ok = await app.reembed.status(id);
    expect(ok.ok && ok.value.embedding.status).toBe("current");
  });

  it("through the HTTP route and the Worker's own queue consumer (default embedder, force)", async () => {
    const { id, key } = await newArchive("http-re");
    await ingestDefault(id, key, notes(120));
    const current = await api("POST", `/v1/archives/${id}/reembed`, {}, key);
    expect(current.status).toBe(200);
    expect(current.body.started).toBe(false);
    const read = await newKey(id, ["read"]);
    expect((await api("POST", `/v1/archives/${id}/reembed`, { force: true }, read)).status).toBe(403);
    const started = await api("POST", `/v1/archives/${id}/reembed`, { force: true }, key);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.job).toMatchObject({
      status: "running",
      total: 120,
      target: { model: HASHED_MODEL, dims: 384 },
    });
    const dup = await api("POST", `/v1/archives/${id}/reembed`, { force: true }, key);
    expect(dup.status).toBe(200);
    expect(dup.body.started).toBe(false);
    expect(dup.body.job.id).toBe(started.body.job.id);
    let status = started.body;
    for (let i = 0; i < 100 && status.job.status === "running"; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await api("GET", `/v1/archives/${id}/reembed`, undefined, read)).body;
    }
    expect(status.job).toMatchObject({ status: "done", done: 120, pages: 2 });
    expect(status.embedding.status).toBe("current");
    const r = await api(
      "POST",
      `/v1/archives/${id}/route`,
      { query: "Lighthouse 42 of the southern coast", limit: 3, include_trace: true },
      key,
    );
    expect(r.body.trace.vector_space).toBeUndefined();
    expect(r.body.trace.semantic[0].chunk).toBe("note:042");
  }, 60_000);
});

describe("the dimension check", () => {
  /** A Vectorize binding whose index was created with 384 dimensions; records what is written. */
  function vectorize384() {
    const upserts: unknown[] = [];
    const binding = {
      describe: async () => ({ vectorCount: 0, dimensions: 384, processedUpToDatetime: 0, processedUpToMutation: 0 }),
      upsert: async (v: unknown[]) => {
        upserts.push(...v);
        return { ids: [], count: v.length };
      },
      query: async () => ({ matches: [], count: 0 }),
      deleteByIds: async () => ({ ids: [], count: 0 }),
    };
    return { binding, upserts };
  }

  it("EMBEDDING_DIMS other than the Vectorize index's is a 503 naming both, and nothing is written", async () => {
    const { id } = await newArchive("dims");
    const seen = serveEmbeddings();
    const { binding, upserts } = vectorize384();
    const { app } = appB({ VECTOR_INDEX: "vectorize", VECTORS: binding });
    // Ingest and the re-embed check before embedding; a query embeds while it checks (its answer is dropped).
    const attempts = [
      () => app.memory.ingest(id, notes(2)),
      () => app.reembed.start(id, { force: false }),
      () => app.query.route(id, { query: "lighthouse", limit: 3 }),
    ];
    for (const [i, attempt] of attempts.entries()) {
      if (i === 2) expect(seen).toEqual([]);
      const err = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(FailureError);
      const f = (err as FailureError).failure;
      expect(f).toMatchObject({ kind: "unavailable", field: "EMBEDDING_DIMS" });
      expect(f.message).toContain("EMBEDDING_DIMS=64");
      expect(f.message).toContain("the Vectorize index bound as VECTORS holds 384-dimensional");
      expect(f.hint).toContain("--dimensions=64");
    }
    expect(upserts).toEqual([]);
    expect(seen.length).toBeLessThanOrEqual(1);
    // The 384-dim model of the same index passes the check.
    const ok384 = wire({ ...env, VECTOR_INDEX: "vectorize", VECTORS: binding } as unknown as Env);
    const res = await ok384.memory.ingest(id, notes(2));
    expect(res.ok).toBe(true);
    expect(upserts).toHaveLength(2);
  });

  it("an endpoint answering another dimension than EMBEDDING_DIMS fails the ingest, naming it", async () => {
    const { id } = await newArchive("dims-answer");
    serveEmbeddings({ dims: 32 });
    const { app } = appB();
    const err = await app.memory.ingest(id, notes(2)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(FailureError);
    const f = (err as FailureError).failure;
    expect(f.kind).toBe("unavailable");
    expect(f.message).toMatch(/32 dimensions, expected 64/);
    expect(f.hint).toMatch(/EMBEDDING_DIMS/);
    expect(calls.some((c) => c.url === `${BASE}/embeddings`)).toBe(true);
    // Nothing was stored.
    const chunks = await api("GET", `/v1/archives/${id}/chunks`);
    expect(chunks.body.chunks ?? []).toEqual([]);
  });

  it("an archive whose local index holds vectors of an unrecorded model of another dimension is stale", async () => {
    const { id, key } = await newArchive("legacy");
    await ingestDefault(id, key, notes(4));
    // As written before spaces were recorded.
    await env.DB.prepare("UPDATE archives SET embed_model = NULL, embed_dims = NULL WHERE id = ?").bind(id).run();
    serveEmbeddings();
    const { app } = appB();
    const r = await app.query.route(id, { query: "Lighthouse 2", limit: 3 });
    expect(r.trace.vector_space).toMatchObject({ status: "stale", archive: { model: "unknown", dims: 384 } });
    const res = await app.memory.ingest(id, notes(1, 50));
    expect(res.ok && res.value.vector_space?.status).toBe("stale");
    const s = await app.reembed.status(id);
    expect(s.ok && s.value.embedding).toMatchObject({ status: "stale", archive: { model: "unknown", dims: 384 } });
    expect((await new DoVectorIndex(env.LOCAL_VECTORS).shape(id)).dims).toBe(384);
  });
});

/** POST /route through the Worker (default embedder): the body and the PaperGuru-Vector-Space header. */
async function routeHttp(archive: string, key: string, body: unknown) {
  const res = await WORKER.fetch(`http://paperguru.test/v1/archives/${archive}/route`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    // The trace says why semantic seeds were skipped; the header is set either way.
    body: JSON.stringify({ include_trace: true, ...(body as object) }),
  });
  expect(res.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: the response body is inspected structurally
  return { header: res.headers.get("PaperGuru-Vector-Space"), body: (await res.json()) as any };
}

async function newKey(archive: string, scopes: string[]): Promise<string> {
  const res = await api("POST", `/v1/archives/${archive}/keys`, { scopes });
  expect(res.status).toBe(201);
  return res.body.secret as string;
}
