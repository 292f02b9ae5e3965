import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractImports, extractSymbols, languageOf } from "../../src/core/code/symbols";
import type { CodeSymbol } from "../../src/core/code/table";
import { type ExistingState, planIngest, prepareBatch } from "../../src/core/ingest";
import {
  commitRequest,
  isIndexable,
  parseCommit,
  parseRepoLocation,
  parseTree,
  rawFileRequest,
  removedDeprecations,
  treeRequest,
  whyNotIndexable,
} from "../../src/core/sources/github";
import { codeArtifacts, isTestPath } from "../../src/core/sources/github-code";
import { fileChunkId } from "../../src/core/sources/github-common";
import { parsePushEvent } from "../../src/core/sources/github-push";
import { emptyState, stateAfter } from "../fixtures/ingest-state";

// ---------------------------------------------------------------------------------------------
// Fixtures (written here): realistic sources with decoys in comments, strings, templates, regexes.

const TS_STORE = `/**
 * Versioned key-value store. Implements the log-structured merge design of
 * doi:10.1007/s002360050048 (O'Neil et al.).
 */
import type { Clock } from "./clock.js";
import { hash } from "./util";

// export function fakeLineComment() {}
/* export class FakeBlockComment {} */
const decoyString = "export function fakeString() {}";
const decoyTemplate = \`
export function fakeTemplate() {}
\${\`nested \${decoyString} \`}
export class FakeTemplateClass {}
\`;
const decoyRegex = /export function fakeRegex'"\`/g;

export interface Repo<T> {
  get(id: string): Promise<T | undefined>;
}

export type Key = string;

export const enum Level {
  Debug,
}

export const DEFAULT_TTL = 60_000;

export const buildIndex = async (entries: Array<{ key: Key }>, clock: Clock) => {
  return entries.map((e) => hash(e.key + clock.now()));
};

@sealed
export abstract class Store<T extends { id: string }> implements Repo<T> {
  private cache = new Map<string, T>();
  constructor(private readonly clock: Clock) {}
  async get(id: string): Promise<T | undefined> {
    return this.cache.get(id);
  }
  static create = (clock: Clock) => clock;
  #secret(): void {}
  private hidden(): void {}
  get size(): number {
    return this.cache.size;
  }
}

export default function openStore(path: string): string {
  return \`store at \${path}\`;
}

function internalHelper(): void {}
const internalValue = 3;
export { internalHelper, internalValue as publicValue };
export { other } from "./other";
`;

const TS_MEMORY = `import type { Repo } from "./store";

// An in-memory Repo for tests.
export class MemoryRepo implements Repo<string> {
  async get(id: string): Promise<string | undefined> {
    return id;
  }
}
`;

const TS_UTIL = `export function hash(s: string): string {
  return s;
}
`;

const TS_TEST = `import { describe, it } from "vitest";
import { buildIndex, Store } from "../src/store";
import { fixture } from "./helpers";
import { hash } from "../src/util.js";

describe("store", () => {
  it("builds", () => buildIndex([], fixture));
});
`;

const TS_TEST_HELPERS = `export const fixture = { now: () => 1 };
`;

const JS_ESM = `// ESM utilities
import { readFile } from "node:fs/promises";
import config from "../config.mjs";
export async function load(path) {
  const s = 'export function fakeSingle() {}';
  return readFile(path, "utf8");
}
export const VERSION = "1.0";
export class Loader {
  run() {
    return load("x");
  }
}
export default Loader;
`;

const JS_CJS = `'use strict';
const path = require("path");
const { helper } = require("./helper");
/* module.exports = fakeComment; */
function parse(input) {
  return input.split("\\n");
}
class Parser {
  run(text) {
    return parse(text);
  }
}
module.exports = {
  parse,
  Parser,
  format: function (x) {
    return String(x);
  },
  async loadAll(files) {},
};
exports.extra = (a) => a;
`;

const PY_RETRIEVER = `#!/usr/bin/env python3
"""Dense passage retrieval.

Implements DPR (arXiv:2004.04906v3) on top of a flat inner-product index.
"""
from __future__ import annotations

import numpy as np
from .index import FlatIndex
from . import utils

__all__ = ["Retriever", "_exported_private", "MAX_LEN"]

MAX_LEN = 512
logger = None
# def fake_comment(): pass
TEMPLATE = """
def fake_docstring():
    pass
class FakeClass:
"""


@dataclass(frozen=True)
class Retriever(Base):
    """Retrieves passages.
def not_a_method(self):
"""

    k: int = 5

    @property
    def size(self) -> int:
        return 1

    async def search(
        self,
        query: str,  # the query
        k: int = 10,
    ) -> list[str]:
        s = "def fake_in_string(): pass"
        return []

    def _private(self):
        pass


def _exported_private():
    pass


def _hidden():
    pass


@lru_cache(maxsize=None)
async def fetch(url: str) -> bytes:
    ...


class _Internal:
    def method(self):
        pass


if __name__ == "__main__":
    def main():
        pass
`;

const PY_INDEX = `class FlatIndex:
    def add(self, vectors):
        pass
`;

const PY_UTILS = `def norm(x):
    return x
`;

const PY_INIT = `from .retriever import Retriever
`;

const PY_TEST = `import pytest
from pkg.retriever import Retriever


def test_search():
    assert Retriever().search("q") == []
`;

const sha = (c: string) => c.repeat(40);
const at = Date.parse("2026-03-01T10:00:00Z");

/** A push to main: 3 commits, add / modify / remove, a rename as remove + add, add-then-remove, remove-then-re-add. */
function pushPayload(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ref: "refs/heads/main",
    before: sha("a"),
    after: sha("d"),
    created: false,
    deleted: false,
    forced: false,
    base_ref: null,
    compare: "https://github.com/acme/memory/compare/aaaaaaaaaaaa...dddddddddddd",
    commits: [
      {
        id: sha("b"),
        distinct: true,
        message: "Add store and a scratch script",
        timestamp: "2026-03-01T09:00:00+01:00",
        author: { name: "Ada", email: "ada@example.com", username: "ada" },
        added: ["src/store.ts", "scratch.py", "src/old_name.ts"],
        removed: ["docs/example.py"],
        modified: ["README.md"],
      },
      {
        id: sha("c"),
        distinct: true,
        message: "Rename old_name -> new_name; drop scratch",
        timestamp: "2026-03-01T09:30:00+01:00",
        added: ["src/new_name.ts"],
        removed: ["src/old_name.ts", "scratch.py"],
        modified: [],
      },
      {
        id: sha("d"),
        distinct: true,
        message: "Restore the example, touch the store",
        timestamp: "2026-03-01T10:00:00Z",
        added: ["docs/example.py"],
        removed: [],
        modified: ["src/store.ts", "src/memory.ts"],
      },
    ],
    head_commit: {
      id: sha("d"),
      message: "Restore the example, touch the store",
      timestamp: "2026-03-01T10:00:00Z",
      added: ["docs/example.py"],
      removed: [],
      modified: ["src/store.ts", "src/memory.ts"],
    },
    repository: {
      id: 1,
      name: "memory",
      full_name: "acme/memory",
      default_branch: "main",
      pushed_at: 1772359200,
    },
    pusher: { name: "ada", email: "ada@example.com" },
    ...over,
  };
}

const TREE = JSON.stringify({
  sha: sha("e"),
  url: "https://api.github.com/repos/acme/memory/git/trees/eee",
  truncated: false,
  tree: [
    { path: "src", mode: "040000", type: "tree", sha: sha("1") },
    { path: "src/store.ts", mode: "100644", type: "blob", sha: sha("2"), size: 1500 },
    { path: "src/memory.ts", mode: "100644", type: "blob", sha: sha("3"), size: 300 },
    { path: "src/link.ts", mode: "120000", type: "blob", sha: sha("4"), size: 12 },
    { path: "src/huge.ts", mode: "100644", type: "blob", sha: sha("5"), size: 600 * 1024 },
    { path: "src/vendor.min.js", mode: "100644", type: "blob", sha: sha("6"), size: 100 },
    { path: "src/node_modules/x/index.js", mode: "100644", type: "blob", sha: sha("7"), size: 100 },
    { path: "dist/index.js", mode: "100644", type: "blob", sha: sha("8"), size: 100 },
    { path: "README.md", mode: "100644", type: "blob", sha: sha("9"), size: 100 },
    { path: "pkg/retriever.py", mode: "100644", type: "blob", sha: sha("a"), size: 2000 },
    { path: "libs/sub", mode: "160000", type: "commit", sha: sha("b") },
  ],
});

function names(symbols: CodeSymbol[]): string[] {
  return symbols.map((s) => s.name).sort();
}

function checkOffsets(content: string, symbols: CodeSymbol[]): void {
  const lines = content.split("\n");
  for (const s of symbols) {
    const span = content.slice(s.start, s.end);
    const bare = s.name.slice(s.name.lastIndexOf(".") + 1);
    if (bare !== "default") expect(span, s.name).toContain(bare);
    expect(lines[s.line - 1], s.name).toContain(span.split("\n")[0]);
    expect(span, s.name).toBe(span.trim());
  }
}

// ---------------------------------------------------------------------------------------------

describe("symbols: TypeScript", () => {
  const syms = extractSymbols("src/store.ts", TS_STORE);
  const by = new Map(syms.map((s) => [s.name, s]));

  it("extracts declarations, not the decoys in comments, strings, templates and regexes", () => {
    expect(names(syms)).toEqual(
      [
        "DEFAULT_TTL",
        "Key",
        "Level",
        "Repo",
        "Store",
        "Store.create",
        "Store.get",
        "Store.size",
        "buildIndex",
        "decoyRegex",
        "decoyString",
        "decoyTemplate",
        "internalHelper",
        "internalValue",
        "openStore",
        "publicValue",
      ].sort(),
    );
    for (const s of syms) expect(s.name).not.toMatch(/fake/i);
  });

  it("kinds, export flags, signatures and exact offsets", () => {
    expect(by.get("Repo")).toMatchObject({ kind: "interface", exported: true, signature: "export interface Repo<T>" });
    expect(by.get("Key")).toMatchObject({ kind: "type", exported: true, signature: "export type Key = string" });
    expect(by.get("Level")).toMatchObject({ kind: "enum", exported: true });
    expect(by.get("DEFAULT_TTL")).toMatchObject({ kind: "const", exported: true });
    expect(by.get("buildIndex")).toMatchObject({
      kind: "function",
      exported: true,
      signature: "export const buildIndex = async (entries: Array<{ key: Key }>, clock: Clock) =>",
    });
    expect(by.get("Store")).toMatchObject({
      kind: "class",
      exported: true,
      signature: "export abstract class Store<T extends { id: string }> implements Repo<T>",
    });
    expect(by.get("Store.get")).toMatchObject({
      kind: "method",
      signature: "async get(id: string): Promise<T | undefined>",
    });
    expect(by.get("openStore")).toMatchObject({ kind: "function", exported: true });
    expect(by.get("internalHelper")?.exported).toBe(true); // via export { internalHelper }
    expect(by.get("internalValue")?.exported).toBe(false); // exported under another name
    expect(by.get("publicValue")).toMatchObject({ exported: true, kind: "const" });
    expect(by.get("decoyString")?.exported).toBe(false);
    const line = TS_STORE.split("\n").findIndex((l) => l.startsWith("export const buildIndex")) + 1;
    expect(by.get("buildIndex")?.line).toBe(line);
    const store = by.get("Store");
    expect(TS_STORE.slice(store?.start, store?.end)).toBe(
      "export abstract class Store<T extends { id: string }> implements Repo<T> {",
    );
    checkOffsets(TS_STORE, syms);
  });

  it("skips private, #private and constructor members", () => {
    for (const n of ["Store.hidden", "Store.#secret", "Store.constructor", "Store.cache"])
      expect(by.has(n)).toBe(false);
  });

  it("relative imports only, TS ESM .js specifiers kept as written", () => {
    expect(extractImports("src/store.ts", TS_STORE)).toEqual(["./clock.js", "./util", "./other"]);
  });
});

describe("symbols: JavaScript", () => {
  it("ESM: functions, classes with methods, export default of a local", () => {
    const syms = extractSymbols("lib/load.mjs", JS_ESM);
    expect(names(syms)).toEqual(["Loader", "Loader.run", "VERSION", "load"]);
    expect(syms.every((s) => s.exported)).toBe(true);
    checkOffsets(JS_ESM, syms);
    expect(extractImports("lib/load.mjs", JS_ESM)).toEqual(["../config.mjs"]);
  });

  it("CommonJS: module.exports object (shorthand, function values, methods) and exports.x", () => {
    const syms = extractSymbols("lib/parse.cjs", JS_CJS);
    const by = new Map(syms.map((s) => [s.name, s]));
    expect(names(syms.filter((s) => s.exported))).toEqual([
      "Parser",
      "Parser.run",
      "extra",
      "format",
      "loadAll",
      "parse",
    ]);
    expect(by.get("parse")).toMatchObject({ kind: "function", exported: true, signature: "function parse(input)" });
    expect(by.get("format")?.kind).toBe("function");
    expect(by.get("extra")?.kind).toBe("function");
    expect(by.get("path")?.exported).toBe(false);
    checkOffsets(JS_CJS, syms);
    expect(extractImports("lib/parse.cjs", JS_CJS)).toEqual(["./helper"]);
  });
});

describe("symbols: Python", () => {
  const syms = extractSymbols("pkg/retriever.py", PY_RETRIEVER);
  const by = new Map(syms.map((s) => [s.name, s]));

  it("top-level defs and classes, public methods, __all__, decorators; no decoys", () => {
    expect(names(syms)).toEqual(
      [
        "MAX_LEN",
        "Retriever",
        "Retriever.search",
        "Retriever.size",
        "TEMPLATE", // a real constant; the defs inside its string are not symbols
        "_Internal",
        "_exported_private",
        "_hidden",
        "fetch",
      ].sort(),
    );
    expect(by.get("_exported_private")?.exported).toBe(true); // listed in __all__
    expect(by.get("_hidden")?.exported).toBe(false);
    expect(by.get("_Internal")?.exported).toBe(false);
    expect(by.get("fetch")).toMatchObject({
      kind: "function",
      exported: true,
      signature: "async def fetch(url: str) -> bytes:",
    });
    expect(by.get("Retriever.search")).toMatchObject({
      kind: "method",
      signature: "async def search( self, query: str, k: int = 10, ) -> list[str]:",
    });
    expect(by.get("Retriever")).toMatchObject({ kind: "class", signature: "class Retriever(Base):" });
    checkOffsets(PY_RETRIEVER, syms);
  });

  it("imports: absolute and relative, `from . import x` as .x", () => {
    expect(extractImports("pkg/retriever.py", PY_RETRIEVER)).toEqual(["__future__", "numpy", ".index", ".utils"]);
  });

  it("languageOf", () => {
    expect(languageOf("a/b.tsx")).toBe("typescript");
    expect(languageOf("a/b.cjs")).toBe("javascript");
    expect(languageOf("a/b.py")).toBe("python");
    expect(languageOf("a/b.rs")).toBeNull();
    expect(languageOf(".ts")).toBeNull();
  });
});

describe("symbols: properties", () => {
  const tokens = [
    "export ",
    "default ",
    "function ",
    "class ",
    "def ",
    "async ",
    "const ",
    "module.exports = ",
    "exports.",
    "__all__ = [",
    "foo",
    "Bar",
    "_x",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ":",
    ";",
    ",",
    "=",
    "=>",
    "`",
    "${",
    "'",
    '"',
    '"""',
    "/",
    "/*",
    "*/",
    "//",
    "#",
    "\\",
    "\n",
    "\r\n",
    "    ",
    "@",
    "<",
    ">",
    "é",
    "\u{1F600}",
  ];
  const codeish = fc.array(fc.constantFrom(...tokens), { maxLength: 120 }).map((a) => a.join(""));
  const paths = fc.constantFrom("a.ts", "a.tsx", "a.js", "a.cjs", "a.py");

  function wellFormed(path: string, content: string): void {
    const syms = extractSymbols(path, content);
    for (const s of syms) {
      expect(s.start).toBeGreaterThanOrEqual(0);
      expect(s.end).toBeGreaterThanOrEqual(s.start);
      expect(s.end).toBeLessThanOrEqual(content.length);
      expect(s.line).toBeGreaterThanOrEqual(1);
      expect(s.signature.length).toBeLessThanOrEqual(300);
    }
    extractImports(path, content);
  }

  it("property: never throws, spans inside the content, for random strings", () => {
    fc.assert(
      fc.property(paths, fc.oneof(fc.string({ maxLength: 300 }), codeish), (path, content) =>
        wellFormed(path, content),
      ),
      { numRuns: 400 },
    );
  });

  it("property: never throws, spans inside the content, for random mutations of real files", () => {
    const real = [
      ["src/store.ts", TS_STORE],
      ["lib/parse.cjs", JS_CJS],
      ["lib/load.mjs", JS_ESM],
      ["pkg/retriever.py", PY_RETRIEVER],
    ] as const;
    const mutation = fc.array(
      fc.record({ pos: fc.nat(), del: fc.nat({ max: 8 }), ins: fc.constantFrom(...tokens, "", "") }),
      { minLength: 1, maxLength: 12 },
    );
    fc.assert(
      fc.property(fc.constantFrom(...real), mutation, ([path, src], muts) => {
        let s: string = src;
        for (const m of muts) {
          const p = m.pos % (s.length + 1);
          s = s.slice(0, p) + m.ins + s.slice(p + m.del);
        }
        wellFormed(path, s);
      }),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------

describe("push webhooks", () => {
  it("net effect over the commits in order", () => {
    const r = parsePushEvent(pushPayload());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({
      repo: "acme/memory",
      ref: "refs/heads/main",
      branch: "main",
      after: sha("d"),
      at,
      isDefaultBranch: true,
      deletedRef: false,
      isTag: false,
      fullSync: null,
    });
    // scratch.py added then removed: removed; docs/example.py removed then re-added: changed;
    // old_name -> new_name arrives as remove + add
    expect(r.value.changed).toEqual([
      "README.md",
      "docs/example.py",
      "src/memory.ts",
      "src/new_name.ts",
      "src/store.ts",
    ]);
    expect(r.value.removed).toEqual(["scratch.py", "src/old_name.ts"]);
  });

  it("identifies tags, other branches, deleted refs and forced pushes", () => {
    const tag = parsePushEvent(pushPayload({ ref: "refs/tags/v1.0", commits: [] }));
    expect(tag.ok && tag.value.isTag && !tag.value.isDefaultBranch && tag.value.branch === "").toBe(true);
    const feature = parsePushEvent(pushPayload({ ref: "refs/heads/feature/x" }));
    expect(feature.ok && feature.value.branch === "feature/x" && !feature.value.isDefaultBranch).toBe(true);
    const deleted = parsePushEvent(
      pushPayload({ ref: "refs/heads/old", after: "0".repeat(40), deleted: true, commits: [], head_commit: null }),
    );
    expect(deleted.ok).toBe(true);
    if (deleted.ok) {
      expect(deleted.value).toMatchObject({ deletedRef: true, changed: [], removed: [] });
      expect(deleted.value.at).toBe(1772359200 * 1000); // repository.pushed_at (epoch seconds)
    }
    const forced = parsePushEvent(pushPayload({ forced: true }));
    expect(forced.ok && forced.value.fullSync).toMatch(/forced/);
  });

  it("malformed payloads fail with the JSON path of the field", () => {
    const field = (p: unknown) => {
      const r = parsePushEvent(p);
      return r.ok ? null : [r.error.kind, r.error.field];
    };
    expect(field(null)).toEqual(["validation", "(body)"]);
    expect(field(pushPayload({ ref: "main" }))).toEqual(["validation", "ref"]);
    expect(field(pushPayload({ repository: { full_name: "nope", default_branch: "main" } }))).toEqual([
      "validation",
      "repository.full_name",
    ]);
    expect(field(pushPayload({ repository: { full_name: "acme/memory" } }))).toEqual([
      "validation",
      "repository.default_branch",
    ]);
    expect(field(pushPayload({ after: "xyz" }))).toEqual(["validation", "after"]);
    const bad = pushPayload();
    (bad.commits as Array<Record<string, unknown>>)[1] = { id: sha("c"), added: ["ok.ts", 7] };
    expect(field(bad)).toEqual(["validation", "commits.1.added.1"]);
    expect(field(pushPayload({ head_commit: { id: sha("d"), timestamp: "yesterday" } }))).toEqual([
      "validation",
      "head_commit.timestamp",
    ]);
  });
});

describe("GitHub REST requests and responses", () => {
  it("raw file request: encoded path segments, raw media type, version, token", () => {
    const r = rawFileRequest("acme/memory", "src/my file#1.ts", sha("d"), "ghp_x");
    expect(r.url).toBe(`https://api.github.com/repos/acme/memory/contents/src/my%20file%231.ts?ref=${sha("d")}`);
    expect(r.headers).toEqual({
      Accept: "application/vnd.github.raw+json",
      "User-Agent": "paperguru",
      "X-GitHub-Api-Version": "2022-11-28",
      Authorization: "Bearer ghp_x",
    });
    expect(rawFileRequest("acme/memory", "a.ts", "main").headers.Authorization).toBeUndefined();
  });

  it("tree and commit requests", () => {
    expect(treeRequest("acme/memory", "feature/x").url).toBe(
      "https://api.github.com/repos/acme/memory/git/trees/feature/x?recursive=1",
    );
    expect(commitRequest("acme/memory", "main", "t").url).toBe("https://api.github.com/repos/acme/memory/commits/main");
    const c = parseCommit(
      JSON.stringify({
        sha: sha("d"),
        commit: { committer: { date: "2026-03-01T10:00:00Z" }, tree: { sha: sha("e") } },
      }),
    );
    expect(c).toEqual({ ok: true, value: { sha: sha("d"), at, tree: sha("e") } });
    expect(parseCommit("{").ok).toBe(false);
  });

  it("parseTree: blobs under the prefix, indexable only, symlinks and submodules skipped", () => {
    const all = parseTree(TREE, "");
    expect(all.ok).toBe(true);
    if (all.ok) {
      expect(all.value.sha).toBe(sha("e"));
      expect(all.value.truncated).toBe(false);
      // READMEs are kept too: a repository's README says which paper it implements (src/core/sources/readme.ts).
      expect(all.value.files.map((f) => f.path)).toEqual([
        "README.md",
        "pkg/retriever.py",
        "src/memory.ts",
        "src/store.ts",
      ]);
      expect(all.value.files[3]).toEqual({ path: "src/store.ts", sha: sha("2"), size: 1500 });
    }
    const src = parseTree(TREE, "/src/");
    expect(src.ok && src.value.files.map((f) => f.path)).toEqual(["src/memory.ts", "src/store.ts"]);
    const bad = parseTree(JSON.stringify({ sha: "x", tree: [{ type: "blob" }] }), "");
    expect(bad.ok ? null : bad.error.field).toBe("tree.0.path");
    expect(parseTree("not json", "").ok).toBe(false);
  });

  it("parseRepoLocation", () => {
    expect(parseRepoLocation("acme/memory")).toEqual({ ok: true, value: { repo: "acme/memory", path: "", ref: null } });
    expect(parseRepoLocation("acme/memory/src/core@v1.2")).toEqual({
      ok: true,
      value: { repo: "acme/memory", path: "src/core", ref: "v1.2" },
    });
    expect(parseRepoLocation("https://github.com/acme/memory/tree/dev/src")).toEqual({
      ok: true,
      value: { repo: "acme/memory", path: "src", ref: "dev" },
    });
    expect(parseRepoLocation("acme/memory.git@feature/x").ok).toBe(true);
    for (const bad of ["acme", "-acme/memory", "acme/memory/../x", "acme/memory@a..b", "acme/memory@"]) {
      const r = parseRepoLocation(bad);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.error.field).toBe("location");
    }
  });

  it("isIndexable says why not", () => {
    expect(isIndexable("src/a.ts")).toBe(true);
    expect(isIndexable("src/a.ts", 512 * 1024)).toBe(true);
    expect(whyNotIndexable("src/a.ts", 512 * 1024 + 1)).toMatch(/512 KB/);
    expect(whyNotIndexable("node_modules/x/a.js")).toMatch(/node_modules/);
    expect(whyNotIndexable("web/dist/app.js")).toMatch(/dist/);
    expect(whyNotIndexable("web/app.min.js")).toMatch(/minified/);
    expect(whyNotIndexable("proto/api_pb2.py")).toMatch(/generated/);
    expect(whyNotIndexable(".pnp.cjs")).toMatch(/lockfile/);
    expect(whyNotIndexable("NOTES.md")).toMatch(/not TypeScript/);
    expect(whyNotIndexable("README.md")).toBeNull();
  });

  it("fileChunkId keeps ids within 512 characters and distinct", () => {
    expect(fileChunkId("acme/memory", "src/a.ts")).toBe("gh:acme/memory/src/a.ts");
    const long = `${"d/".repeat(300)}a.ts`;
    const id = fileChunkId("acme/memory", long);
    expect(id.length).toBeLessThanOrEqual(512);
    expect(id).not.toBe(fileChunkId("acme/memory", `${"d/".repeat(300)}b.ts`));
  });
});

// ---------------------------------------------------------------------------------------------

const REPO = "acme/memory";
const FILES = [
  { path: "src/store.ts", content: TS_STORE },
  { path: "src/memory.ts", content: TS_MEMORY },
  { path: "src/util.ts", content: TS_UTIL },
  { path: "test/store.test.ts", content: TS_TEST },
  { path: "test/helpers.ts", content: TS_TEST_HELPERS },
  { path: "pkg/retriever.py", content: PY_RETRIEVER },
  { path: "pkg/index.py", content: PY_INDEX },
  { path: "pkg/utils.py", content: PY_UTILS },
  { path: "pkg/__init__.py", content: PY_INIT },
  { path: "tests/test_retriever.py", content: PY_TEST },
  { path: "node_modules/x/index.js", content: "module.exports = 1;" },
].map((f) => ({ ...f, commit: sha("d"), at }));

const id = (p: string) => fileChunkId(REPO, p);
const edgesOf = (plan: ReturnType<typeof codeArtifacts>, path: string) =>
  plan.artifacts.find((a) => a.id === id(path))?.edges?.map((e) => `${e.type} ${e.target} ${e.weight}`) ?? [];

describe("codeArtifacts", () => {
  const plan = codeArtifacts(REPO, FILES, { knownPaths: ["src/clock.ts"] });

  it("one code_unit per indexable file, exact content, source and time", () => {
    expect(plan.artifacts.map((a) => a.title)).toEqual([
      "pkg/__init__.py",
      "pkg/index.py",
      "pkg/retriever.py",
      "pkg/utils.py",
      "src/memory.ts",
      "src/store.ts",
      "src/util.ts",
      "test/helpers.ts",
      "test/store.test.ts",
      "tests/test_retriever.py",
    ]);
    expect(plan.skipped).toEqual([
      { ref: "node_modules/x/index.js", reason: "under node_modules/ (dependencies or build output)" },
    ]);
    const store = plan.artifacts.find((a) => a.id === id("src/store.ts"));
    expect(store).toMatchObject({
      kind: "code_unit",
      content: TS_STORE,
      valid_from: at,
      source: `https://github.com/acme/memory/blob/${sha("d")}/src/store.ts`,
      boundaries: ["lang:typescript", "repo:acme/memory"],
    });
    expect(plan.artifacts.find((a) => a.id === id("test/store.test.ts"))?.boundaries).toContain("role:test");
  });

  it("synopsis: docstring / leading comment plus exports, else 'Module … exports …'", () => {
    const syn = (p: string) => plan.artifacts.find((a) => a.id === id(p))?.synopsis ?? "";
    expect(syn("src/store.ts")).toMatch(/^Versioned key-value store\. Implements the log-structured merge design/);
    expect(syn("src/store.ts")).toMatch(/Exports Repo, Key, Level, DEFAULT_TTL, buildIndex, Store, openStore/);
    expect(syn("pkg/retriever.py")).toMatch(/^Dense passage retrieval\. Implements DPR/);
    expect(syn("src/util.ts")).toBe("Module src/util.ts exports hash.");
    expect(syn("src/memory.ts")).toMatch(/^An in-memory Repo for tests\./);
    for (const a of plan.artifacts) expect((a.synopsis ?? "").length).toBeLessThanOrEqual(2000);
  });

  it("symbols become entities with the bare name and path#Name as aliases", () => {
    const store = plan.artifacts.find((a) => a.id === id("src/store.ts"));
    const build = store?.entities?.find((e) => e.name === "buildIndex");
    expect(build).toEqual({
      type: "symbol",
      id: "symbol:acme/memory/src/store.ts#buildIndex",
      name: "buildIndex",
      aliases: ["src/store.ts#buildIndex"],
    });
    expect(store?.entities?.find((e) => e.name === "Store.get")?.aliases).toEqual(["get", "src/store.ts#Store.get"]);
    // exported first; plain internal values are not entities
    const ents = store?.entities?.map((e) => e.name) ?? [];
    expect(ents.indexOf("internalHelper")).toBeLessThan(ents.length);
    expect(ents).not.toContain("decoyString");
    expect(ents.slice(0, 3)).toEqual(["Repo", "Key", "Level"]);
  });

  it("edges: depends-on, tests (imported 0.5, mirrored 1), implements (papers, interfaces)", () => {
    expect(edgesOf(plan, "src/store.ts")).toEqual([
      `depends-on ${id("src/clock.ts")} 1`, // known only through knownPaths, ./clock.js -> clock.ts
      `depends-on ${id("src/util.ts")} 1`,
      "implements doi:10.1007/s002360050048 1",
    ]);
    expect(edgesOf(plan, "src/memory.ts")).toEqual([
      `depends-on ${id("src/store.ts")} 1`,
      `implements ${id("src/store.ts")} 1`, // class MemoryRepo implements Repo
    ]);
    expect(edgesOf(plan, "test/store.test.ts")).toEqual([
      `depends-on ${id("test/helpers.ts")} 1`, // a test helper is a dependency, not a subject
      `tests ${id("src/store.ts")} 1`, // imported and mirrored by name
      `tests ${id("src/util.ts")} 0.5`, // imported only
    ]);
    expect(edgesOf(plan, "pkg/retriever.py")).toEqual([
      `depends-on ${id("pkg/index.py")} 1`,
      `depends-on ${id("pkg/utils.py")} 1`,
      "implements arxiv:2004.04906 1",
    ]);
    expect(edgesOf(plan, "pkg/__init__.py")).toEqual([`depends-on ${id("pkg/retriever.py")} 1`]);
    expect(edgesOf(plan, "tests/test_retriever.py")).toEqual([`tests ${id("pkg/retriever.py")} 1`]);
  });

  it("a test file whose subject is not known gets no tests edge", () => {
    const p = codeArtifacts(REPO, [{ path: "test/store.test.ts", content: TS_TEST, commit: sha("d"), at }]);
    expect(p.artifacts[0]?.edges).toEqual([]);
    expect(isTestPath("src/__tests__/a.ts") && isTestPath("a_test.py") && !isTestPath("src/testing.ts")).toBe(true);
  });

  it("passes prepareBatch; deterministic, so an unchanged re-push plans nothing", async () => {
    const prepared = prepareBatch(plan.artifacts);
    expect(prepared.ok).toBe(true);
    const again = codeArtifacts(REPO, [...FILES].reverse(), { knownPaths: ["src/clock.ts"] });
    expect(again).toEqual(plan);

    const sketch = async () => "AAAA";
    const empty: ExistingState = { chunks: new Map(), entities: new Set(), aliases: new Set() };
    if (!prepared.ok) return;
    const first = await planIngest("a", prepared.value, empty, at + 1, sketch);
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const state = stateAfter(emptyState(), first.value);
    // the same files pushed again by a later commit: same hash -> unchanged, nothing planned
    const later = codeArtifacts(
      REPO,
      FILES.map((f) => ({ ...f, commit: sha("f"), at: at + 60_000 })),
      { knownPaths: ["src/clock.ts"] },
    );
    const p2 = prepareBatch(later.artifacts);
    if (!p2.ok) throw new Error(p2.error.message);
    const second = await planIngest("a", p2.value, state, at + 120_000, sketch);
    expect(second.ok && second.value.versions.length).toBe(0);
    expect(second.ok && second.value.results.every((r) => r.status === "unchanged")).toBe(true);
  });

  it("a README becomes a repository note that implements the paper it claims, and names none it does not", () => {
    const at0 = Date.parse("2026-03-01T10:00:00Z");
    const one = codeArtifacts(REPO, [
      {
        path: "README.md",
        content: "# Memory\n\nOfficial implementation of arXiv:2405.14831.\n",
        commit: sha("d"),
        at: at0,
      },
    ]);
    expect(one.artifacts).toHaveLength(1);
    expect(one.artifacts[0]).toMatchObject({
      id: id("README.md"),
      kind: "note",
      title: `${REPO}: Memory`,
      boundaries: [`repo:${REPO}`, "role:readme"],
      edges: [{ type: "implements", target: "arxiv:2405.14831", weight: 1 }],
    });
    const many = codeArtifacts(REPO, [
      { path: "README.md", content: "See arXiv:2405.14831 and arXiv:2310.01234.", commit: sha("d"), at: at0 },
    ]);
    expect(many.artifacts[0]?.edges).toEqual([]);
    expect(many.skipped[0]?.reason).toMatch(/names 2 papers .* says of none that it is this repository's paper/);
  });

  it("removed files become deprecations with the short sha", () => {
    expect(removedDeprecations(REPO, ["src/old_name.ts", "README.md", "NOTES.md", "scratch.py"], sha("c"), at)).toEqual(
      [
        { id: id("README.md"), at, by: null, reason: "deleted in ccccccc" },
        { id: id("scratch.py"), at, by: null, reason: "deleted in ccccccc" },
        { id: id("src/old_name.ts"), at, by: null, reason: "deleted in ccccccc" },
      ],
    );
  });
});
