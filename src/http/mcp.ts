/** MCP server at /mcp (issue 5): registered by registerMcp. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Bindings } from "./common";

export function registerMcp(_app: OpenAPIHono<{ Variables: Bindings }>): void {}
