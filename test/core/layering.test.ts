/**
 * The layering, checked over every import in src (static, dynamic and re-exports): the core is pure,
 * the application layer sees only ports, and the interfaces (REST, MCP, CLI) never reach into each
 * other or into the adapters. Only the composition roots (src/index.ts, src/wiring.ts,
 * src/config.ts) and the Durable Object shells in src/adapters/do may join layers.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(__dirname, "../../src");

type Layer = "core" | "contract" | "app" | "adapters" | "http" | "mcp" | "cli" | "client" | "explorer" | "root";

/** Which layers a layer may import (itself included). */
const ALLOWED: Record<Layer, Layer[]> = {
  core: ["core"],
  contract: ["contract", "core"],
  app: ["app", "contract", "core"],
  adapters: ["adapters", "core"],
  http: ["http", "app", "contract", "core"],
  mcp: ["mcp", "app", "contract", "core"],
  cli: ["cli", "client", "core"],
  client: ["client", "contract", "core"],
  // The browser page: the REST API through the typed client only.
  explorer: ["explorer", "client", "core"],
  root: ["root", "core", "contract", "app", "adapters", "http", "mcp"],
};

/** Packages a layer must not import: frameworks stay at the edges. */
const FORBIDDEN_PACKAGES: Partial<Record<Layer, RegExp>> = {
  core: /^(hono|@hono\/|drizzle-orm|cloudflare:|@modelcontextprotocol\/|@cloudflare\/)/,
  contract: /^(hono$|hono\/|drizzle-orm|cloudflare:|@modelcontextprotocol\/)/,
  app: /^(hono|@hono\/|drizzle-orm|cloudflare:|@modelcontextprotocol\/)/,
  adapters: /^(hono|@hono\/|@modelcontextprotocol\/)/,
  http: /^(drizzle-orm|cloudflare:|@modelcontextprotocol\/)/,
  mcp: /^(hono|@hono\/|drizzle-orm|cloudflare:)/,
  cli: /^(hono|@hono\/|drizzle-orm|cloudflare:|@modelcontextprotocol\/)/,
  client: /^(hono|@hono\/|drizzle-orm|cloudflare:|@modelcontextprotocol\/)/,
  explorer: /^(hono|@hono\/|drizzle-orm|cloudflare:|@modelcontextprotocol\/|zod)/,
};

function layerOf(file: string): Layer {
  // A path as imported ("../client", "../app") or as a file ("client.ts", "app/index.ts").
  const rel = relative(SRC, file)
    .replace(/\.tsx?$/, "")
    .split(/[\\/]/);
  const top = rel[0] ?? "";
  if (top === "client") return "client";
  if (top === "explorer") return "explorer";
  if (top === "adapters" && rel[1] === "do") return "root";
  return (["core", "contract", "app", "adapters", "http", "mcp", "cli"].includes(top) ? top : "root") as Layer;
}

const IMPORT_RE = /(?:^|[\s;])(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) out.push((m[1] ?? m[2]) as string);
  return out;
}

/** Every layering violation of one file's imports. */
function violations(file: string, text: string): string[] {
  const from = layerOf(file);
  const out: string[] = [];
  for (const spec of importsOf(text)) {
    if (spec.startsWith(".")) {
      const to = layerOf(resolve(dirname(file), spec));
      if (!ALLOWED[from].includes(to)) out.push(`${relative(SRC, file)} (${from}) imports ${spec} (${to})`);
    } else if (FORBIDDEN_PACKAGES[from]?.test(spec)) {
      out.push(`${relative(SRC, file)} (${from}) imports the package ${spec}`);
    }
  }
  return out;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : /\.tsx?$/.test(p) ? [p] : [];
  });
}

describe("layering", () => {
  it("no file in src imports a layer or package it may not", () => {
    const found = sources(SRC).flatMap((f) => violations(f, readFileSync(f, "utf8")));
    expect(found).toEqual([]);
  });

  it("catches a deliberate violation of each kind", () => {
    const at = (p: string) => join(SRC, p);
    expect(violations(at("core/x.ts"), 'import { Hono } from "hono";')).toHaveLength(1);
    expect(violations(at("core/x.ts"), 'import type { D1Store } from "../adapters/d1/store";')).toHaveLength(1);
    expect(violations(at("app/x.ts"), 'import { x } from "../http/common";')).toHaveLength(1);
    expect(violations(at("app/feeds/x.ts"), 'export { y } from "../../adapters/r2/blob";')).toHaveLength(1);
    expect(violations(at("http/routes/x.ts"), 'import { serveMcp } from "../../mcp/http";')).toHaveLength(1);
    expect(violations(at("mcp/x.ts"), 'const m = await import("../http/app");')).toHaveLength(1);
    expect(violations(at("adapters/d1/x.ts"), 'import { createUseCases } from "../../app";')).toHaveLength(1);
    expect(violations(at("app/x.ts"), 'import { drizzle } from "drizzle-orm/d1";')).toHaveLength(1);
    // Allowed: the same layer, a lower layer, a composition root.
    expect(violations(at("http/routes/x.ts"), 'import type { UseCases } from "../../app";')).toEqual([]);
    expect(violations(at("wiring.ts"), 'import { d1Stores } from "./adapters/d1";')).toEqual([]);
  });
});
