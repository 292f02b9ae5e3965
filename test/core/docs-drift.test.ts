/**
 * What the docs say about the code, checked against the code's text (read as files: the Durable Object
 * imports cloudflare:workers, which does not load under Node): the README's list of the capital
 * chunk's RPC methods is the class's public methods, and docs/sharding.md's replay slice is the
 * object's SLICE constant.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(__dirname, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const OBJECT = "src/adapters/do/capital-object.ts";

/** The public methods of `export class <name>` in `source`: members at class indentation, not `#`-private. */
function publicMethods(source: string, name: string): string[] {
  const start = source.indexOf(`export class ${name} `);
  if (start < 0) throw new Error(`no class ${name}`);
  const end = source.indexOf("\n}\n", start);
  const body = source.slice(start, end < 0 ? undefined : end);
  const out: string[] = [];
  for (const m of body.matchAll(/^ {2}(?:(?:public|static|async|override)\s+)*([A-Za-z_$][\w$]*)\s*[(<]/gm)) {
    const method = m[1] as string;
    if (method !== "constructor") out.push(method);
  }
  return out;
}

/** The backticked names of the README sentence that lists the capital chunk's RPC methods. */
function listedMethods(readme: string): string[] {
  const at = readme.indexOf("reachable\nover RPC");
  const from = at < 0 ? readme.indexOf("reachable over RPC") : at;
  if (from < 0) throw new Error("README lists no RPC methods");
  const colon = readme.indexOf("):", from);
  const stop = readme.indexOf(".\n", colon);
  return [...readme.slice(colon, stop).matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((m) => m[1] as string);
}

/** The value of `const <name> = <number>;` in `source`. */
function constant(source: string, name: string): number {
  const m = new RegExp(`^(?:export )?const ${name} = ([\\d_]+);`, "m").exec(source);
  if (!m) throw new Error(`no constant ${name}`);
  return Number((m[1] as string).replaceAll("_", ""));
}

describe("the README's list of the capital chunk's RPC methods", () => {
  it("is the class's public methods, in order", () => {
    const methods = publicMethods(read(OBJECT), "CapitalChunk");
    expect(methods.length).toBeGreaterThan(10);
    expect(listedMethods(read("README.md"))).toEqual(methods);
  });

  it("fails on a list that misses a method (planted)", () => {
    const source = "export class X extends Y {\n  #hidden() {}\n  async a(k: string) {}\n  b(): void {}\n}\n";
    expect(publicMethods(source, "X")).toEqual(["a", "b"]);
    const readme = "public methods, the only ones reachable over RPC (x.ts): `a`.\n";
    expect(listedMethods(readme)).not.toEqual(publicMethods(source, "X"));
  });
});

describe("numbers the docs quote", () => {
  it("docs/sharding.md's replay slices are the object's SLICE", () => {
    const slice = constant(read(OBJECT), "SLICE");
    const quoted = [...read("docs/sharding.md").matchAll(/slices of (\d+) changes/g)].map((m) => Number(m[1]));
    expect(quoted.length).toBeGreaterThan(0);
    expect(quoted).toEqual(quoted.map(() => slice));
  });

  it("fails on a page that quotes another number (planted)", () => {
    const slice = constant("const SLICE = 32;\n", "SLICE");
    const quoted = [..."in slices of 200 changes".matchAll(/slices of (\d+) changes/g)].map((m) => Number(m[1]));
    expect(quoted).not.toEqual(quoted.map(() => slice));
  });
});
