/**
 * The layering, checked over every import in src (static, dynamic and re-exports): the core is pure,
 * the application layer sees only ports, and the interfaces (REST, MCP, CLI) never reach into each
 * other or into the adapters. Only the composition roots (src/index.ts, src/wiring.ts,
 * src/config.ts) and the Durable Object shells in src/adapters/do may join layers. No module
 * reaches itself through its imports, type-only ones included: a loop inside a layer means a helper
 * lives in a module that uses it, and is moved out to a helper module instead.
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

/** The module a relative import names, among `files` (file.ts, file.tsx or dir/index.ts). */
function resolveIn(files: ReadonlySet<string>, from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const c of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) if (files.has(c)) return c;
  return null;
}

/** The relative imports of each file, resolved among the files. */
function importGraph(texts: ReadonlyMap<string, string>): Map<string, string[]> {
  const files = new Set(texts.keys());
  const edges = new Map<string, string[]>();
  for (const [f, text] of texts)
    edges.set(
      f,
      importsOf(text)
        .filter((spec) => spec.startsWith("."))
        .map((spec) => resolveIn(files, f, spec))
        .filter((t): t is string => t !== null),
    );
  return edges;
}

/** The loops of a directed graph: its strongly connected components of two or more nodes (or a self-edge). */
function loopsOf(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) loops.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return loops.sort((a, b) => a.length - b.length);
}

/** Every import loop among `texts` (file -> source), as the files of each loop, shortest first. */
function importLoops(texts: ReadonlyMap<string, string>): string[][] {
  return loopsOf(importGraph(texts));
}

/**
 * Every arrow that runs back up, as the loops it closes: in each folder, its rooms (each file and
 * each subfolder directly in it, a subfolder's files taken together) import one another without a
 * loop, type-only imports included, so every room can stand above all it imports. Returned as
 * "folder: room -> room ..." lines.
 */
function roomLoops(texts: ReadonlyMap<string, string>): string[] {
  const graph = importGraph(texts);
  const folders = new Set<string>();
  for (const f of texts.keys()) for (let d = dirname(f); d.startsWith(SRC); d = dirname(d)) folders.add(d);
  const out: string[] = [];
  for (const folder of [...folders].sort()) {
    const room = (file: string) => {
      const rel = relative(folder, file);
      return rel.startsWith("..") ? null : (rel.split(/[\\/]/)[0] as string);
    };
    const edges = new Map<string, string[]>();
    for (const [from, targets] of graph) {
      const a = room(from);
      if (a === null) continue;
      for (const to of targets) {
        const b = room(to);
        if (b === null || b === a) continue;
        const list = edges.get(a) ?? [];
        if (!list.includes(b)) list.push(b);
        edges.set(a, list);
      }
    }
    for (const loop of loopsOf(edges)) out.push(`${relative(SRC, folder) || "src"}: ${loop.join(" -> ")}`);
  }
  return out;
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
    expect(violations(at("app/intake/x.ts"), 'export { y } from "../../adapters/r2/blob";')).toHaveLength(1);
    expect(violations(at("http/routes/x.ts"), 'import { serveMcp } from "../../mcp/http";')).toHaveLength(1);
    expect(violations(at("mcp/x.ts"), 'const m = await import("../http/app");')).toHaveLength(1);
    expect(violations(at("adapters/d1/x.ts"), 'import { createUseCases } from "../../app";')).toHaveLength(1);
    expect(violations(at("app/x.ts"), 'import { drizzle } from "drizzle-orm/d1";')).toHaveLength(1);
    // Allowed: the same layer, a lower layer, a composition root.
    expect(violations(at("http/routes/x.ts"), 'import type { UseCases } from "../../app";')).toEqual([]);
    expect(violations(at("wiring.ts"), 'import { d1Stores } from "./adapters/d1";')).toEqual([]);
  });

  it("no module imports itself through other modules (type-only imports included)", () => {
    const texts = new Map(sources(SRC).map((f) => [f, readFileSync(f, "utf8")] as const));
    expect(importLoops(texts).map((loop) => loop.map((f) => relative(SRC, f)).join(" -> "))).toEqual([]);
  });

  it("catches a planted loop through a helper kept in a use-case file", () => {
    const at = (p: string) => join(SRC, p);
    const loop = importLoops(
      new Map([
        [at("app/deps.ts"), 'import type { EventDeps } from "./events";'],
        [at("app/events.ts"), 'import { iso } from "./browse";'],
        [at("app/browse.ts"), 'import type { AppDeps } from "./deps";\nexport const iso = 1;'],
        [at("app/lib/wire.ts"), "export const iso = 1;"],
      ]),
    );
    expect(loop.map((l) => l.map((f) => relative(SRC, f)))).toEqual([
      ["app/browse.ts", "app/deps.ts", "app/events.ts"],
    ]);
    // The same three files with the helper in its own module: no loop.
    expect(
      importLoops(
        new Map([
          [at("app/deps.ts"), 'import type { EventDeps } from "./events";'],
          [at("app/events.ts"), 'import { iso } from "./lib/wire";'],
          [at("app/browse.ts"), 'import type { AppDeps } from "./deps";'],
          [at("app/lib/wire.ts"), "export const iso = 1;"],
        ]),
      ),
    ).toEqual([]);
  });
  it("no arrow runs back up: in every folder its files and subfolders import one another without a loop", () => {
    const texts = new Map(sources(SRC).map((f) => [f, readFileSync(f, "utf8")] as const));
    expect(roomLoops(texts)).toEqual([]);
  });

  it("catches a planted arrow up: a type a bottom module takes from a folder that imports it", () => {
    const at = (p: string) => join(SRC, p);
    const planted = new Map([
      [at("app/deps.ts"), 'import type { IntakeDeps } from "./intake/deps";'],
      [at("app/intake/deps.ts"), "export interface IntakeDeps { n: number }"],
      [at("app/intake/imports.ts"), 'import type { AppDeps } from "../deps";'],
    ]);
    // No file imports itself, yet the room intake/ and deps.ts import each other.
    expect(importLoops(planted)).toEqual([]);
    expect(roomLoops(planted)).toEqual(["app: deps.ts -> intake"]);
    // With the type beside AppDeps: no loop at any level.
    planted.set(at("app/deps.ts"), "export interface IntakeDeps { n: number }");
    planted.set(at("app/intake/imports.ts"), 'import type { AppDeps, IntakeDeps } from "../deps";');
    expect(roomLoops(planted)).toEqual([]);
  });
});
