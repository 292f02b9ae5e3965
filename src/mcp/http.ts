/**
 * MCP server at /mcp: streamable HTTP, stateless. Every POST gets a fresh server and transport
 * (nothing outlives the request, so any isolate can answer any call) and a plain JSON response;
 * there is no session, hence no standalone SSE stream (GET) and no DELETE (405, as the transport
 * spec allows). The bearer key is checked before any MCP handling (401 with the REST error body),
 * then again per tool call for the tool's archive and scope. Tools: src/mcp/tools.ts. The Worker
 * entry (src/index.ts) sends /mcp here; it shares no code with the REST routes but the use cases.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { UseCases } from "../app";
import { errorBody } from "../contract";
import { MAX_REQUEST_BYTES } from "../core/limits";
import { createMcpServer } from "./server";

export const MCP_PATH = "/mcp";

export async function serveMcp(request: Request, app: UseCases): Promise<Response> {
  const authorization = request.headers.get("authorization") ?? undefined;
  // Authenticate the key itself (no archive yet): missing, unknown or revoked keys stop here. A
  // valid key of any archive passes ("forbidden" for no archive); tools authorise per archive.
  const denied = await app.authorize(authorization, null, "read");
  if (denied?.kind === "unauthorized")
    return Response.json(errorBody(denied), {
      status: 401,
      headers: { "WWW-Authenticate": 'Bearer realm="paperguru"' },
    });
  if (request.method !== "POST")
    return Response.json(
      errorBody({
        kind: "validation",
        message: `${request.method} /mcp is not supported: this server is stateless (no sessions, no server-initiated stream)`,
        hint: "send JSON-RPC messages with POST",
      }),
      { status: 405, headers: { Allow: "POST" } },
    );
  const server = createMcpServer({
    app,
    authorize: (archive, need) => app.authorize(authorization, archive, need),
    authorization,
    readable: () => app.readableArchives(authorization),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_REQUEST_BYTES,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
