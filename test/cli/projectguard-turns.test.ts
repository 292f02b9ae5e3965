/**
 * Commitment extraction after each turn through the real local Queue (seed 002 B.1, Fig. 5): `npm
 * start` with DISTILLER=openai against the mock model server (test/fixtures/mock-models.ts, what
 * scripts/mock-model.ts serves). A session append answers at once; the queue consumer then asks the
 * model about the turn, writes the proposed design with status `proposed`, and keeps the answer on
 * the turn's record.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Server, startServer } from "../../scripts/lib/server";
import { turnChunkId } from "../../src/app/project/commitments";
import { PaperGuruClient } from "../../src/client";
import { MockModelServer, mock } from "../fixtures/mock-models";

let model: MockModelServer;
let server: Server;
let client: PaperGuruClient;
const archive = "pgturns";

beforeAll(async () => {
  model = new MockModelServer();
  const origin = await model.start();
  server = await startServer({
    fresh: true,
    allowHosts: "127.0.0.1",
    vars: { DISTILLER: "openai", LLM_BASE_URL: `${origin}/v1`, LLM_MODEL: "m" },
  });
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const a = await admin.createArchive({ id: archive, name: "turns" });
  client = new PaperGuruClient(server.url, a.key.secret);
}, 120_000);

afterAll(async () => {
  server?.stop();
  await model?.stop();
});

async function until<T>(f: () => Promise<T | null>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 250));
  }
}

it("extracts a turn's commitments from the queue after the append", async () => {
  const text = "Keep the routing heads in one Durable Object per archive.";
  const at = Date.parse("2025-03-01T10:00:00Z");
  const turn = await turnChunkId("s-1", { role: "user", text, at });
  model.script.push(
    mock.answer({
      records: [
        {
          kind: "design",
          title: "Routing heads in a Durable Object",
          content: "Each archive keeps its routing heads in one Durable Object.",
          design: "",
          revises: "",
          evidence: [{ turn, quote: "Keep the routing heads in one Durable Object" }],
        },
      ],
    }),
  );
  const appended = (await client.request("POST", `/v1/archives/${archive}/sessions/s-1/events`, {
    events: [{ role: "user", text, at: "2025-03-01T10:00:00Z" }],
  })) as { appended: number };
  expect(appended.appended).toBe(1);
  const designs = await until(async () => {
    const r = (await client.request("GET", `/v1/archives/${archive}/chunks?kind=design`)) as {
      chunks: Array<{ id: string }>;
    };
    return r.chunks.length ? r.chunks : null;
  });
  expect(designs.length).toBe(1);
  const id = designs[0]?.id as string;
  // The consumer stores the record, then its status annotation: a read between the two sees none
  // (seen once, with another process holding a core).
  const status = await until(async () => {
    const r = (await client.request("GET", `/v1/archives/${archive}/chunks/${encodeURIComponent(id)}/annotations`)) as {
      values: Record<string, { value: unknown }>;
    };
    return r.values.status ? r : null;
  });
  expect(status.values.status?.value).toBe("proposed");
  const marker = (await client.request(
    "GET",
    `/v1/archives/${archive}/chunks/${encodeURIComponent(turn)}/annotations`,
  )) as { values: Record<string, { value: { proposals: Array<{ id: string }> } }> };
  expect(marker.values.commitments?.value.proposals.map((p) => p.id)).toEqual([id]);
  const chats = model.requestsTo("chat/completions");
  expect(chats.length).toBe(1);
  expect(JSON.stringify(chats[0])).toContain(`[turn ${turn}] user`);
}, 90_000);
