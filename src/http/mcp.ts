/**
 * MCP server at /mcp (issue 5): streamable HTTP, stateless. Every POST gets a fresh server and
 * transport (nothing outlives the request, so any isolate can answer any call) and a plain JSON
 * response; there is no session, hence no standalone SSE stream (GET) and no DELETE (405, as the
 * transport spec allows). The bearer key is checked before any MCP handling (401 with the REST error
 * body), then again per tool call for the tool's archive and scope. Tools: src/mcp/tools.ts.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createMcpServer } from "../mcp/server";
import { authorize, type Bindings, errorBody, failure } from "./common";

/** Same cap as the REST routes: a `remember` batch may carry up to 200 artifacts of up to 2 MiB. */
const MAX_BODY = 32 * 1024 * 1024;

export function registerMcp(app: OpenAPIHono<{ Variables: Bindings }>): void {
  app.all("/mcp", async (c) => {
    // Authenticate the key itself (no archive yet): missing, unknown or revoked keys stop here. A
    // valid key of any archive passes ("forbidden" for no archive); tools authorise per archive.
    const denied = await authorize(c, null, "read");
    if (denied?.kind === "unauthorized") {
      c.header("WWW-Authenticate", 'Bearer realm="paperguru"');
      return failure(c, denied);
    }
    if (c.req.method !== "POST") {
      c.header("Allow", "POST");
      return c.json(
        errorBody({
          kind: "validation",
          message: `${c.req.method} /mcp is not supported: this server is stateless (no sessions, no server-initiated stream)`,
          hint: "send JSON-RPC messages with POST",
        }),
        405,
      );
    }
    const pg = c.var.services.paperguru;
    const server = createMcpServer({ pg, authorize: (archive, need) => authorize(c, archive, need) });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_BODY,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });
}
