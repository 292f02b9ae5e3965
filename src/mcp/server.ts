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
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { errorBody } from "../contract";
import { type Failure, FailureError, schemaFailure } from "../core/errors";
import { errorLine } from "../core/log";
import type { McpContext } from "./context";
import { PROMPTS, renderPrompt } from "./prompts";
import { listResources, RESOURCE_TEMPLATES, readResource } from "./resources";
import { type McpTool, TOOLS } from "./tools";

export const SERVER_INFO = { name: "paperguru", version: "0.1.0" };

export const INSTRUCTIONS = `PaperGuru is long-term memory: an archive of versioned artifacts (papers, sections, code units, benchmark rows, notes, decisions) linked by typed, time-bounded edges and grounded to entities.
Every tool takes \`archive\`, the archive id your key was issued for (resources/list shows it).
- To answer a question, call \`context\` (token budget, default 2000): evidence cards, each anchored to exact [start, end) character spans of one version. Call \`verify\` with a card's anchors before quoting; without a snippet it returns the exact text.
- \`route\` ranks chunks without reading them; \`expand\` gives cards for chunk ids you have; \`read\` returns a version's verbatim text; \`list\` pages through chunks or entities; \`neighbours\` walks typed edges; \`history\` shows a chunk's versions or an entity's names; \`resolve\` maps a name to its entity id.
- \`remember\` stores artifacts (atomic batch; revise: true for a new version of an existing chunk), \`deprecate\` retires one (history kept), \`forget\` deletes a chunk or an entity for good, \`entity\` aliases, renames or merges entities, \`session\` logs your turns for context's short_term.
- \`context\` and \`route\` take REST's \`filter\`, \`ranking\` (and \`follow\` on context). \`research\`/\`curate\` run ops of the seed systems; \`research\` op \`schema\` lists them, with \`args: {op}\` it gives that op's JSON Schema.
- \`as_of\` (ISO 8601) answers as the archive was at that time. Output times are ISO 8601 strings.
- Prompts: brief (a topic as of a time), changes (what changed about a topic between two times).
- A failed call returns isError with {"error": {"type", "message", "field", "hint"}}: type is validation, unauthorized, forbidden, not_found, conflict, too_large, unprocessable or unavailable; field names the argument at fault.`;

/** Keywords the listing leaves out: bounds the server checks anyway, answering a clear error naming the field and the limit. */
const CHECKED_BY_SERVER = new Set([
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "pattern",
  "additionalProperties",
  "propertyNames",
]);

const isIsoTime = (n: unknown): boolean =>
  n !== null && typeof n === "object" && ["date-time", "date"].includes((n as { format?: string }).format ?? "");

/**
 * The schema as tools/list shows it: types, enums, required fields and descriptions. Bounds, patterns
 * and `additionalProperties` are left to the server (tools/list is a fixed cost in every agent's
 * context: with them it was 20 KB, without 12 KB), and an ISO date | date-time union is one string.
 */
export function compactSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactSchema);
  if (node === null || typeof node !== "object") return node;
  const o = node as Record<string, unknown>;
  const anyOf = o.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2 && anyOf.every(isIsoTime)) {
    const { anyOf: _, ...rest } = o;
    return { type: "string", ...(compactSchema(rest) as object) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (CHECKED_BY_SERVER.has(k)) continue;
    if (k === "format" && (v === "date-time" || v === "date")) continue;
    out[k] =
      k === "properties"
        ? Object.fromEntries(Object.entries(v as object).map(([p, x]) => [p, compactSchema(x)]))
        : compactSchema(v);
  }
  return out;
}

/** The JSON Schema of a tool's input, as tools/list shows it. */
function jsonSchema(schema: z.ZodType): Tool["inputSchema"] {
  const { $schema: _drop, ...s } = z.toJSONSchema(schema, { io: "input", target: "draft-7" }) as Record<
    string,
    unknown
  >;
  return compactSchema(s) as Tool["inputSchema"];
}

/**
 * Arguments one tool takes exactly as another lists them, listed once: route's filter and ranking
 * are context's (1,300 bytes of tools/list twice); the server still checks them in full.
 */
const LISTED_IN: Record<string, Record<string, string>> = {
  route: { filter: "context", ranking: "context" },
};

function listedOnce(tool: string, schema: Tool["inputSchema"]): Tool["inputSchema"] {
  const same = LISTED_IN[tool];
  if (!same || !schema.properties) return schema;
  const properties = { ...schema.properties };
  for (const [prop, other] of Object.entries(same))
    if (properties[prop]) properties[prop] = { type: "object", description: `As in ${other}.` };
  return { ...schema, properties };
}

/** The listing is the same for every request: build it once per isolate. */
let listing: Tool[] | null = null;
export function toolListing(): Tool[] {
  // No title: a display name for people (clients fall back to the name), 600 bytes of every agent's context.
  listing ??= TOOLS.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: listedOnce(t.name, jsonSchema(t.input)),
    // No outputSchema: the tool descriptions say what comes back, the results are self-describing
    // JSON, and the eleven output schemas were 15 KB of every agent's context (tests still check
    // each result against its schema in src/mcp/tools.ts).
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

/**
 * The most a tool result may weigh (UTF-8 bytes of its JSON text). Every tool bounds its result by a
 * budget or a limit (docs/interfaces.md); this catches what those limits still allow (a hub, a
 * draft or a diff of very long texts) with a too_large error instead of megabytes in a context window.
 */
export const MCP_RESULT_MAX_BYTES = 1024 * 1024;

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
    const text = JSON.stringify(res.value);
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > MCP_RESULT_MAX_BYTES)
      return toolError({
        kind: "too_large",
        message: `the ${t.name} result is ${bytes} bytes, over the ${MCP_RESULT_MAX_BYTES} a tool returns`,
        field: "arguments",
        hint: "ask for less: a smaller limit, budget_tokens or max_chars, a narrower filter or prefix, or an earlier as_of",
      });
    return { content: [{ type: "text", text }], structuredContent: res.value };
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
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, resources: {}, prompts: {} },
    instructions: INSTRUCTIONS,
  });
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
  server.setRequestHandler(ListResourcesRequestSchema, (req) => listResources(ctx, req.params?.cursor));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, (req) => readResource(ctx, req.params.uri));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, (req) =>
    renderPrompt(ctx, req.params.name, req.params.arguments ?? {}),
  );
  return server;
}
