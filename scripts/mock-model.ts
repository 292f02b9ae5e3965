/**
 * `npx tsx scripts/mock-model.ts [flags]`: the mock model server of test/fixtures/mock-models.ts as
 * a standalone process, for manual and fresh-clone checks of the model adapters without a key or a
 * GPU. It speaks OpenAI chat completions (POST …/chat/completions), OpenAI embeddings
 * (POST …/embeddings) and Anthropic messages with tool use (POST …/messages), under any prefix
 * (use base URL http://127.0.0.1:8788/v1). Chat answers are deterministic values valid for the
 * request's JSON schema (strings are the successive sentences of the last user message, arrays
 * have minItems items, numbers their minimum); embeddings are hashed bag-of-words vectors.
 *
 * Flags:
 *   --port N              port to listen on (default 8788; 0 = any free port)
 *   --host H              address to bind (default 127.0.0.1)
 *   --dims N              embedding dimension (default 384)
 *   --response-format M   supported (default) | rejected (400 naming response_format, as
 *                         llama.cpp) | unknown-field (422 "unknown field", as TGI)
 *   --api-key K           require this key (Authorization: Bearer or x-api-key), else 401
 *   --quiet               no line per request on stderr
 *
 * Control endpoints (not recorded): POST /__mock/script with a behaviour or an array of them
 * (e.g. [{"kind":"status","status":429,"headers":{"retry-after":"2"}},{"kind":"answer"}]; kinds as
 * MockBehaviour in the fixture) queues answers for the next requests; GET /__mock/requests lists
 * the requests received; POST /__mock/reset forgets both.
 *
 * Example:
 *   npx tsx scripts/mock-model.ts --port 8788 &
 *   curl -s localhost:8788/v1/chat/completions -H 'content-type: application/json' -d '{"model":"m",
 *     "messages":[{"role":"user","content":"One. Two."}],"response_format":{"type":"json_schema",
 *     "json_schema":{"name":"x","schema":{"type":"object","properties":{"a":{"type":"string"}}}}}}'
 */
import { MockModelServer } from "../test/fixtures/mock-models";

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const known = new Set(["--port", "--host", "--dims", "--response-format", "--api-key", "--quiet"]);
for (const a of args)
  if (a.startsWith("--") && !known.has(a)) {
    console.error(`unknown flag ${a} (see the top of scripts/mock-model.ts)`);
    process.exit(2);
  }

const port = Number(flag("--port") ?? 8788);
const host = flag("--host") ?? "127.0.0.1";
const dims = Number(flag("--dims") ?? 384);
const responseFormat = flag("--response-format") ?? "supported";
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${port}`);
if (!Number.isInteger(dims) || dims < 2) throw new Error(`--dims must be an integer >= 2, got ${dims}`);
if (responseFormat !== "supported" && responseFormat !== "rejected" && responseFormat !== "unknown-field")
  throw new Error(`--response-format must be supported, rejected or unknown-field, got ${responseFormat}`);

const server = new MockModelServer({
  dims,
  responseFormat,
  apiKey: flag("--api-key"),
  log: !args.includes("--quiet"),
  // Plain answers for manual use: unit vectors in input order.
  embeddingScale: 1,
  reverseEmbeddings: false,
});
const url = await server.start(port, host);
console.log(
  `mock model server on ${url} (base URL ${url}/v1; embeddings ${dims} dims; response_format ${responseFormat})`,
);

const stop = () => {
  void server.stop().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
