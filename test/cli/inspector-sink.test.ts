/**
 * `npm start` keeps the Worker inspector's Network domain off (scripts/lib/inspector-sink.mjs):
 * wrangler dev's inspector proxy keeps every runtime message until a DevTools client attaches, and
 * the Network messages of a long ingest grew it past its heap limit. Here against a stand-in
 * inspector: /json lists one target, its WebSocket records what it is sent and answers by id.
 */
import { createServer } from "node:http";
import { expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { keepInspectorQuiet } from "../../scripts/lib/inspector-sink.mjs";

it("attaches, turns the Network domain off, lets go, and does it again later", async () => {
  const sessions: string[][] = [];
  const http = createServer((_req, res) => {
    const { port } = http.address() as { port: number };
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify([{ webSocketDebuggerUrl: `ws://localhost:${port}/ws` }]));
  });
  const wss = new WebSocketServer({ server: http });
  let open = 0;
  wss.on("connection", (ws) => {
    const got: string[] = [];
    sessions.push(got);
    open++;
    // What a proxy replays on attach: a kept Network message, before the answer.
    ws.send(JSON.stringify({ method: "Network.loadingFinished", params: { requestId: "1" } }));
    ws.on("message", (m) => {
      const d = JSON.parse(String(m)) as { id: number; method: string };
      got.push(d.method);
      ws.send(JSON.stringify({ id: d.id, result: {} }));
    });
    ws.on("close", () => open--);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", () => r()));
  const { port } = http.address() as { port: number };
  const stop = keepInspectorQuiet(port, 200);
  try {
    // The first attach comes after a second, the next ones every 200 ms after that.
    for (let i = 0; i < 100 && sessions.length < 3; i++) await new Promise((r) => setTimeout(r, 100));
    expect(sessions.length).toBeGreaterThanOrEqual(3);
    for (const got of sessions.slice(0, 2)) expect(got).toEqual(["Network.disable"]);
    // It lets go after each answer: the proxy's one DevTools slot stays free for a person.
    for (let i = 0; i < 20 && open > 0; i++) await new Promise((r) => setTimeout(r, 50));
  } finally {
    stop();
  }
  const after = sessions.length;
  await new Promise((r) => setTimeout(r, 500));
  expect(sessions.length).toBeLessThanOrEqual(after + 1);
  wss.close();
  http.close();
}, 30_000);
