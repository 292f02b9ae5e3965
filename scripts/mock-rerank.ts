/**
 * `npx tsx scripts/mock-rerank.ts [--port 8789] [--host 127.0.0.1]`: the mock rerank endpoint of
 * test/fixtures/mock-rerank.ts as a local server (POST …/rerank under any prefix), for manual checks
 * of RERANKER=tei|cohere|jina|vllm without a model: set RERANK_BASE_URL=http://127.0.0.1:8789 and
 * OUTBOUND_ALLOW_HOSTS=127.0.0.1. Scores are the share of the query's words a document holds.
 */
import { createServer } from "node:http";
import { mockRerankAnswer } from "../test/fixtures/mock-rerank";

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const port = Number(flag("--port") ?? 8789);
const host = flag("--host") ?? "127.0.0.1";
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${port}`);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", async () => {
    if (req.method !== "POST" || !(req.url ?? "").endsWith("/rerank")) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"POST …/rerank only"}');
      return;
    }
    let body: unknown = null;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      body = null;
    }
    const answer = mockRerankAnswer(body);
    res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text());
  });
});
server.listen(port, host, () => {
  const a = server.address();
  console.error(`mock rerank on http://${host}:${typeof a === "object" && a ? a.port : port}/rerank`);
});
