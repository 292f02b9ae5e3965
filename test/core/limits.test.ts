/**
 * Every string a request can carry has a maximum length (ids, names, queries, texts), so no request
 * can reach storage with a value SQLite refuses (a 2.2 MB id was a 500) or a log with megabytes.
 * Read from the OpenAPI document, so a route added later is checked too.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createApp } from "../../src/http/app";
import { TOOLS } from "../../src/mcp/tools";

type Schema = {
  $ref?: string;
  type?: string | string[];
  maxLength?: number;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: Schema | boolean;
};

/**
 * Bounded elsewhere, with a 413 that names the limit rather than a schema 400: artifact content
 * (INGEST_LIMITS.maxContentChars per artifact, checked by the ingest before any work).
 */
const BOUNDED_BY_INGEST = new Set([
  "POST /v1/archives/{archive}/ingest body.artifacts[].content",
  "remember.artifacts[].content",
  "revise.content",
]);

describe("request limits", () => {
  it("every string in a request body, path or query has a maxLength (or is an enum or a date)", async () => {
    const res = await createApp(() => ({}) as never).request("/openapi.json");
    const doc = (await res.json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: Array<{ name: string; schema?: Schema }>;
            requestBody?: { content?: Record<string, { schema?: Schema }> };
          }
        >
      >;
      components: { schemas: Record<string, Schema> };
    };
    const unbounded: string[] = [];
    const seen = new Set<Schema>();
    const walk = (s: Schema | undefined, where: string) => {
      if (!s || seen.has(s)) return;
      seen.add(s);
      if (s.$ref) return walk(doc.components.schemas[s.$ref.split("/").pop() as string], where);
      const types = Array.isArray(s.type) ? s.type : [s.type];
      if (types.includes("string") && s.maxLength === undefined && !s.enum && !s.format && !s.pattern)
        if (!BOUNDED_BY_INGEST.has(where)) unbounded.push(where);
      for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${where}.${k}`);
      walk(s.items, `${where}[]`);
      for (const x of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(x, where);
      if (typeof s.additionalProperties === "object") walk(s.additionalProperties, `${where}.*`);
    };
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        for (const p of op.parameters ?? []) walk(p.schema, `${method.toUpperCase()} ${path} ${p.name}`);
        const body = op.requestBody?.content?.["application/json"]?.schema;
        // The webhook receiver's body is raw bytes checked by signature, then by the Feed schema.
        walk(body, `${method.toUpperCase()} ${path} body`);
      }
    expect(unbounded).toEqual([]);
  });

  it("every string an MCP tool takes has a maxLength (or is an enum or a date)", () => {
    const unbounded: string[] = [];
    const walk = (s: Schema | undefined, where: string) => {
      if (!s) return;
      const types = Array.isArray(s.type) ? s.type : [s.type];
      if (types.includes("string") && s.maxLength === undefined && !s.enum && !s.format && !s.pattern)
        if (!BOUNDED_BY_INGEST.has(where)) unbounded.push(where);
      for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${where}.${k}`);
      walk(s.items, `${where}[]`);
      for (const x of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(x, where);
    };
    // The full schema the server validates with (tools/list shows a compact form without the bounds).
    for (const t of TOOLS) walk(z.toJSONSchema(t.input, { io: "input", target: "draft-7" }) as Schema, t.name);
    expect(unbounded).toEqual([]);
  });
});

describe("error log lines", () => {
  it("keep the name and 300 characters of the message, never megabytes", async () => {
    const { errorLine } = await import("../../src/core/log");
    const line = errorLine(
      "unhandled GET /v1/archives/a/history",
      new Error(`SQLITE_TOOBIG: ${"x".repeat(4_000_000)}`),
    );
    expect(line.length).toBeLessThan(420);
    expect(line).toContain("Error: SQLITE_TOOBIG");
    expect(line).toContain("(4000022 characters)");
  });
});
