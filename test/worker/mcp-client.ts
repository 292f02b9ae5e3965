/**
 * The official MCP SDK client against the Worker's /mcp (the transport's fetch is the Worker's fetch
 * handler, so nothing touches the network), and small helpers to call tools.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { TOOLS } from "../../src/mcp/tools";
import { WORKER } from "./worker";

export const URL_MCP = "http://paperguru.test/mcp";

export type Json = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: tool results are inspected structurally
export type Any = any;

export async function connect(key: string, open: Client[]): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(URL_MCP), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: (url, init) => WORKER.fetch(url, init),
  });
  const client = new Client({ name: "paperguru-test", version: "0.0.0" });
  await client.connect(transport);
  open.push(client);
  await client.listTools();
  return client;
}

/** A tool call: the parsed JSON text, its size in UTF-8 bytes and the error flag. */
export async function call(
  client: Client,
  name: string,
  args: Json,
): Promise<{ isError: boolean; json: Any; bytes: number }> {
  const res = await client.callTool({ name, arguments: args });
  const content = res.content as Array<{ type: string; text: string }>;
  expect(content[0]?.type).toBe("text");
  const text = content[0]?.text ?? "null";
  return { isError: res.isError === true, json: JSON.parse(text), bytes: new TextEncoder().encode(text).length };
}

/** A successful call whose result matches the tool's output schema. */
export async function ok(client: Client, name: string, args: Json): Promise<Any> {
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args).slice(0, 200)} failed: ${JSON.stringify(r.json)}`);
  const schema = TOOLS.find((t) => t.name === name)?.output;
  const checked = schema?.safeParse(r.json);
  expect(checked?.success, `${name} output: ${JSON.stringify(checked?.error?.issues?.slice(0, 3))}`).toBe(true);
  return r.json;
}

/** A failed call: the REST error body's `error`. */
export async function toolError(client: Client, name: string, args: Json): Promise<Any> {
  const r = await call(client, name, args);
  expect(r.isError, JSON.stringify(r.json)).toBe(true);
  return r.json.error;
}
