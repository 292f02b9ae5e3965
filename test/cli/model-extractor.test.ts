/**
 * `npm start` with EXTRACTOR=openai against the local mock of an OpenAI-compatible server
 * (test/fixtures/mock-models.ts), through the real local Queue: an ingest answers at once, its
 * versions are extracted afterwards by the queue consumer, the ingest log says what was added, and
 * a query naming an extracted alias reaches the chunk.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import { PaperGuruClient } from "../../src/client";
import { MockModelServer, mock } from "../fixtures/mock-models";

let model: MockModelServer;
let server: Server;
let client: PaperGuruClient;
let archive: string;

beforeAll(async () => {
  model = new MockModelServer();
  const origin = await model.start();
  server = await startServer({
    fresh: true,
    allowHosts: "127.0.0.1",
    vars: { EXTRACTOR: "openai", LLM_BASE_URL: `${origin}/v1`, LLM_MODEL: "m" },
  });
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const a = await admin.createArchive({ id: "extract", name: "Extraction at ingest" });
  archive = a.archive.id;
  client = new PaperGuruClient(server.url, a.key.secret);
});

afterAll(async () => {
  server?.stop();
  await model?.stop();
});

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

it("extracts each ingested version from the queue; the log and routing show it", async () => {
  model.reset();
  model.script.push(
    mock.answer({
      entities: [
        { name: "HippoRAG", type: "method", aliases: [] },
        { name: "Personalized PageRank", type: "method", aliases: ["PPR"] },
      ],
      relations: [
        {
          subject: "HippoRAG",
          predicate: "runs",
          object: "Personalized PageRank",
          subject_type: "method",
          object_type: "method",
        },
      ],
    }),
  );
  const res = await client.ingest(archive, {
    artifacts: [
      {
        id: "note:hippo",
        kind: "note",
        title: "Graph retrieval",
        content: "HippoRAG runs Personalized PageRank from the query's entities over a graph of noun phrases.",
      },
    ],
  });
  expect(res.counts.created).toBe(1);
  const row = await waitFor("the extraction's log row", async () => {
    const log = await client.ingestLog(archive);
    return log.entries.find((e) => e.origin === "extract");
  });
  expect(row).toMatchObject({ ref: "note:hippo@v1", status: "ok", error: null });
  expect(row.counts).toMatchObject({ model: "openai:m", relations: 1, entities: 2, cached: false });
  const chat = model.requests.filter((q) => q.path.endsWith("/chat/completions"));
  expect(chat).toHaveLength(1);
  const body = chat[0]?.body as { response_format: { json_schema: { name: string } } };
  expect(body.response_format.json_schema.name).toBe("knowledge_graph");
  const h = await client.history(archive, { chunk: "note:hippo" });
  expect(h.versions[0]?.extracted?.relations).toEqual([
    {
      subject: "HippoRAG",
      predicate: "runs",
      object: "Personalized PageRank",
      subject_type: "method",
      object_type: "method",
    },
  ]);
  const r = await client.route(archive, { query: "PPR" });
  expect(r.selected[0]?.chunk).toBe("note:hippo");
});

it("a failing model leaves the version as ingested and logs the failure", async () => {
  model.reset();
  model.script.push(mock.unauthorized());
  await client.ingest(archive, {
    artifacts: [{ id: "note:other", kind: "note", title: "Other", content: "A cache keeps routing state in memory." }],
  });
  const row = await waitFor("the failure's log row", async () => {
    const log = await client.ingestLog(archive);
    return log.entries.find((e) => e.origin === "extract" && e.ref === "note:other@v1");
  });
  expect(row.status).toBe("error");
  expect(row.error).toMatch(/^rejected/);
  const h = await client.history(archive, { chunk: "note:other" });
  expect(h.versions[0]?.extracted).toBeNull();
});
