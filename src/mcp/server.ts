/**
 * One MCP server per HTTP request (stateless, as Workers want): the tool table of src/mcp/tools.ts
 * behind tools/list and tools/call.
 *
 * Built on the SDK's protocol-level `Server` rather than `McpServer.registerTool`: McpServer turns
 * input validation failures into free text, while these tools answer every failure, validation
 * included, with the REST error body {error: {type, message, field, hint}} as a tool error
 * (`isError: true`), so an agent reads one error shape everywhere and the session never breaks.
 */

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Need, UseCases } from "../app";
import { errorBody } from "../contract";
import { type Failure, FailureError, schemaFailure } from "../core/errors";
import { errorLine } from "../core/log";
import { type McpTool, TOOLS } from "./tools";

export const SERVER_INFO = { name: "paperguru", version: "0.1.0" };

export const INSTRUCTIONS = `PaperGuru is long-term memory: an archive of versioned artifacts (papers, sections, code units, benchmark rows, notes, decisions) linked by typed, time-bounded edges and grounded to entities.
Every tool takes \`archive\`, the archive id your key was issued for.
- To answer a question, call \`context\` with a token budget: it returns evidence cards, each anchored to exact [start, end) character spans of one version. Call \`verify\` with a card's anchored_spans before quoting it.
- \`route\` ranks chunks without reading them; \`expand\` gives cards for chunk ids you already have; \`neighbours\` walks typed edges; \`history\` lists a chunk's versions or an entity's names; \`resolve\` maps a name to its canonical entity id.
- \`remember\` stores artifacts (atomic batch), \`revise\` adds a version of an existing chunk, \`deprecate\` retires one (history kept), \`forget\` deletes a chunk or an entity for good.
- \`as_of\` (ISO 8601) answers as the archive was at that time. Output times are ISO 8601 strings.
- A failed call returns isError with {"error": {"type", "message", "field", "hint"}}: type is validation, unauthorized, forbidden, not_found, conflict, too_large or unavailable; field names the argument at fault.`;

/**
 * zod writes the full ISO date / date-time regex next to `format` (~500 characters each, ten such
 * fields): `format` says the same to a model at a fraction of its context; the server still checks.
 */
function dropFormatPatterns(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropFormatPatterns);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  const o = node as Record<string, unknown>;
  const formatted = o.format === "date" || o.format === "date-time";
  for (const [k, v] of Object.entries(o)) if (!(formatted && k === "pattern")) out[k] = dropFormatPatterns(v);
  return out;
}

/** The JSON Schema of a tool's input or output, as tools/list shows it. */
function jsonSchema(schema: z.ZodType): Tool["inputSchema"] {
  // "input": what a caller may send / what a client should accept (no additionalProperties: false on
  // response objects, which carry more fields than the documented ones).
  const { $schema: _drop, ...s } = z.toJSONSchema(schema, { io: "input", target: "draft-7" }) as Record<
    string,
    unknown
  >;
  return dropFormatPatterns(s) as Tool["inputSchema"];
}

/** The listing is the same for every request: build it once per isolate. */
let listing: Tool[] | null = null;
export function toolListing(): Tool[] {
  listing ??= TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: jsonSchema(t.input),
    outputSchema: jsonSchema(t.output),
    annotations: t.annotations,
  }));
  return listing;
}

/** A failure as a tool error: the REST error body as JSON text. */
export function toolError(f: Failure): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(errorBody(f)) }] };
}

/** The first zod issue as the REST validation failure (field = the argument's JSON path). */
export function validationFailure(error: z.ZodError): Failure {
  return schemaFailure(error.issues, { subject: "arguments", hint: "see the tool's inputSchema in tools/list" });
}

export interface McpContext {
  app: UseCases;
  /** The REST authorisation of the request's bearer key for an archive and scope. */
  authorize(archive: string, need: Need): Promise<Failure | null>;
  /** The request's Authorization header (audit rows name the key that deleted something). */
  authorization?: string | undefined;
}

async function call(ctx: McpContext, t: McpTool, args: unknown): Promise<CallToolResult> {
  // Authorise before looking at anything else, so another archive's key learns nothing from errors.
  const archive = z.object({ archive: t.input.shape.archive as z.ZodString }).safeParse(args ?? {});
  if (!archive.success) return toolError(validationFailure(archive.error));
  const denied = await ctx.authorize(archive.data.archive, t.scope);
  if (denied) return toolError(denied);
  const parsed = t.input.safeParse(args ?? {});
  if (!parsed.success) return toolError(validationFailure(parsed.error));
  try {
    const res = await t.run(ctx.app, archive.data.archive, parsed.data, { authorization: ctx.authorization });
    if (!res.ok) return toolError(res.error);
    return { content: [{ type: "text", text: JSON.stringify(res.value) }], structuredContent: res.value };
  } catch (err) {
    if (err instanceof FailureError) return toolError(err.failure);
    console.error(errorLine(`mcp tool ${t.name}`, err));
    return {
      isError: true,
      content: [
        {
          type: "text",
          text: JSON.stringify({ error: { type: "internal", message: "internal error; nothing partial was stored" } }),
        },
      ],
    };
  }
}

export function createMcpServer(ctx: McpContext): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const byName = new Map(TOOLS.map((t) => [t.name, t]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolListing() }));
  server.setRequestHandler(CallToolRequestSchema, (req) => {
    const t = byName.get(req.params.name);
    if (!t)
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool ${req.params.name}; tools/list has ${[...byName.keys()].join(", ")}`,
      );
    return call(ctx, t, req.params.arguments);
  });
  return server;
}
