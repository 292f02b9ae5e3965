/**
 * The OpenAPI document and the /docs page (issue 5). The rules apply to every route registered in the
 * hono app, including the ones route modules (exports, MCP) add: a route that is not documented, or
 * documented without a summary, a typed 2xx response, an example or its error responses, fails here.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app";
import { API_DESCRIPTION } from "../../src/http/docs";
import { TOOLS } from "../../src/mcp/tools";

type Json = Record<string, unknown>;
type Media = { schema?: Json; example?: unknown; examples?: Record<string, { value?: unknown }> };
type Response = { description?: string; content?: Record<string, Media>; $ref?: string };
type Operation = {
  summary?: string;
  description?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Json[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, Response>;
};
type Doc = {
  openapi: string;
  info: { description?: string };
  security?: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
};

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];
/** Not REST routes: the document and the page themselves, and the catch-all middleware. */
const IGNORED_PATHS = new Set(["/openapi.json", "/docs", "*"]);
/**
 * `/mcp` is the MCP transport (JSON-RPC over streamable HTTP), not a REST route: it may be documented
 * as a plain route (then every rule below applies to it) or left out of the document.
 */
const MAY_BE_UNDOCUMENTED = new Set(["/mcp"]);
/** Routes that take no bearer key. */
const PUBLIC = new Set([
  "GET /",
  "GET /explore",
  "GET /explore/app.js",
  "GET /explore/app.css",
  "GET /healthz",
  "GET /openapi.json",
  "GET /docs",
  "GET /docs/{page}",
  "POST /v1/archives/{archive}/webhooks/{name}",
]);
const ERROR_REF = "#/components/schemas/Error";

const app = createApp(() => ({}) as never);
let doc: Doc;

/** hono `/v1/archives/:archive/keys/:key{...}` -> OpenAPI `/v1/archives/{archive}/keys/{key}`. */
function openapiPath(p: string): string {
  return p.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}");
}

function deref(s: Json | undefined): Json {
  const ref = s?.$ref;
  if (typeof ref !== "string") return s ?? {};
  return doc.components.schemas[ref.split("/").pop() as string] ?? {};
}

function hasExample(m: Media | undefined): boolean {
  if (!m) return false;
  if (m.example !== undefined) return true;
  if (m.examples && Object.values(m.examples).some((e) => e.value !== undefined)) return true;
  const s = deref(m.schema);
  return s.example !== undefined || (Array.isArray(s.examples) && s.examples.length > 0);
}

function operations(): Array<[string, string, Operation]> {
  const out: Array<[string, string, Operation]> = [];
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) if (METHODS.includes(method)) out.push([method, path, op]);
  return out;
}

beforeAll(async () => {
  const res = await app.request("/openapi.json");
  expect(res.status).toBe(200);
  doc = (await res.json()) as Doc;
});

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const validator = new Validator();
    const res = await validator.validate(structuredClone(doc) as Json);
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("documents every route the app registers, with its method", () => {
    const registered = new Set<string>();
    for (const r of app.routes) {
      // Middleware (app.use) is registered for ALL methods on a wildcard path.
      if (r.method === "ALL" && r.path.includes("*")) continue;
      if (IGNORED_PATHS.has(r.path)) continue;
      const path = openapiPath(r.path);
      if (MAY_BE_UNDOCUMENTED.has(path) && !doc.paths[path]) continue;
      registered.add(`${r.method} ${path}`);
    }
    expect(registered.size).toBeGreaterThan(30);
    const missing = [...registered].filter((k) => {
      const [method, path] = k.split(" ") as [string, string];
      const item = doc.paths[path];
      if (!item) return true;
      // app.all / app.on([...]) routes: any documented method counts.
      return method === "ALL" ? !METHODS.some((m) => item[m]) : !item[method.toLowerCase()];
    });
    expect(missing).toEqual([]);
  });

  it("gives every operation a summary, a description, a typed 2xx response and examples", () => {
    const problems: string[] = [];
    for (const [method, path, op] of operations()) {
      const at = `${method.toUpperCase()} ${path}`;
      if (!op.summary?.trim()) problems.push(`${at}: no summary`);
      if (!op.description?.trim()) problems.push(`${at}: no description`);
      const ok = Object.entries(op.responses ?? {}).filter(([code]) => /^2/.test(code));
      if (ok.length === 0) problems.push(`${at}: no 2xx response`);
      for (const [code, r] of ok) {
        const media = Object.values(r.content ?? {});
        if (media.length === 0 || !media.every((m) => m.schema)) problems.push(`${at}: ${code} without a schema`);
        if (!media.some(hasExample)) problems.push(`${at}: ${code} without an example`);
        // The loose record used before issue 5 documents nothing: a known shape gets a named schema.
        for (const m of media) {
          const s = m.schema ?? {};
          if (s.type === "object" && !s.properties && s.additionalProperties && path !== "/openapi.json")
            problems.push(`${at}: ${code} is an untyped object`);
        }
      }
      const reqMedia = Object.values(op.requestBody?.content ?? {});
      if (op.requestBody && !reqMedia.some(hasExample)) problems.push(`${at}: request body without an example`);
    }
    expect(problems).toEqual([]);
  });

  it("documents the errors of every operation with the one Error schema", () => {
    const problems: string[] = [];
    for (const [method, path, op] of operations()) {
      const at = `${method.toUpperCase()} ${path}`;
      const responses = op.responses ?? {};
      const errs = Object.entries(responses).filter(([code]) => /^[45]/.test(code));
      for (const [code, r] of errs) {
        const schema = r.content?.["application/json"]?.schema;
        if (schema?.$ref !== ERROR_REF) problems.push(`${at}: ${code} does not reference the Error schema`);
      }
      const security = op.security ?? doc.security ?? [];
      const needsKey = security.some((req) => "bearer" in req);
      if (needsKey) for (const code of ["401", "403"]) if (!responses[code]) problems.push(`${at}: no ${code}`);
      const hasInput = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined;
      if (hasInput && !responses["400"]) problems.push(`${at}: takes input but documents no 400`);
      if (path.startsWith("/v1/") && errs.length === 0) problems.push(`${at}: no error responses`);
    }
    expect(problems).toEqual([]);
  });

  it("registers the bearer scheme and uses it on every route except the public ones", () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    for (const [method, path, op] of operations()) {
      const key = `${method.toUpperCase()} ${path}`;
      const security = op.security ?? doc.security ?? [];
      if (PUBLIC.has(key)) expect(security, key).toEqual([]);
      else
        expect(
          security.some((r) => "bearer" in r),
          key,
        ).toBe(true);
    }
  });

  it("documents the webhook receiver's HMAC headers as header parameters", () => {
    const op = doc.paths["/v1/archives/{archive}/webhooks/{name}"]?.post;
    const headers = (op?.parameters ?? []).filter((p) => p.in === "header").map((p) => String(p.name));
    expect(headers).toEqual(
      expect.arrayContaining([
        "X-PaperGuru-Signature",
        "X-PaperGuru-Timestamp",
        "X-PaperGuru-Delivery",
        "X-Hub-Signature-256",
        "X-GitHub-Delivery",
        "X-GitHub-Event",
      ]),
    );
  });

  it("documents the error format and every error type in info.description", () => {
    const d = doc.info.description ?? "";
    for (const w of ["type", "message", "field", "hint", "Authorization: Bearer", "admin"]) expect(d).toContain(w);
    const error = doc.components.schemas.Error as {
      properties: { error: { properties: { type: { enum: string[] } } } };
    };
    const types = error.properties.error.properties.type.enum;
    expect(types.length).toBeGreaterThanOrEqual(8);
    for (const t of types) expect(d).toContain(`\`${t}\``);
  });
});

describe("/docs", () => {
  it("is one self-contained HTML page that renders /openapi.json offline", async () => {
    const res = await app.request("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'.*script-src 'sha256-/);
    const html = await res.text();
    expect(html.length).toBeLessThan(30 * 1024);
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain("/openapi.json");
    // No external resources: no src/href to another origin, no @import or url() in the CSS.
    expect(html).not.toMatch(/\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).not.toMatch(/<(?:script|link|img|iframe)[^>]*(?:src|href)\s*=\s*["']?https?:/i);
    expect(html).not.toMatch(/@import|url\(/i);
    // Text goes in through textContent/append, never innerHTML.
    expect(html).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    expect(html).toContain('<html lang="en">');
  });

  it("names every MCP tool in its MCP section", () => {
    const mcp = API_DESCRIPTION.slice(API_DESCRIPTION.indexOf("speaks MCP"));
    const listed = /Tools: ([^;]*(?:;[^;]*?)*?); resources/.exec(mcp)?.[1] ?? "";
    for (const t of TOOLS) expect(listed, t.name).toMatch(new RegExp(`\\b${t.name}\\b`));
  });

  it("its CSP hash matches the inline script", async () => {
    const res = await app.request("/docs");
    const html = await res.text();
    const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? "";
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(script));
    const b64 = Buffer.from(digest).toString("base64");
    expect(res.headers.get("content-security-policy")).toContain(`'sha256-${b64}'`);
  });
});

describe("/openapi.json descriptions", () => {
  it("describes every parameter and every named schema", async () => {
    const doc = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; description?: string }> }>>;
      components: { schemas: Record<string, { description?: string }> };
    };
    const bare: string[] = [];
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item))
        for (const p of op.parameters ?? []) if (!p.description) bare.push(`${method} ${path} ${p.in}:${p.name}`);
    for (const [name, s] of Object.entries(doc.components.schemas)) if (!s.description) bare.push(`schema ${name}`);
    expect(bare).toEqual([]);
  });
});

/** Just enough DOM to run the /docs script in Node and read what it renders. */
class El {
  children: Array<El | string> = [];
  attrs: Record<string, string> = {};
  dataset: Record<string, string> = {};
  hidden = false;
  constructor(readonly tag: string) {}
  setAttribute(n: string, v: string) {
    this.attrs[n] = v;
    if (n.startsWith("data-")) this.dataset[n.slice(5)] = v;
  }
  append(...kids: Array<El | string>) {
    for (const k of kids) {
      if (k instanceof El && k.tag === "#fragment") this.children.push(...k.children);
      else this.children.push(k instanceof El ? k : String(k));
    }
  }
  replaceChildren(...kids: Array<El | string>) {
    this.children = [];
    this.append(...kids);
  }
  addEventListener() {}
  get text(): string {
    return this.children.map((c) => (typeof c === "string" ? c : c.text)).join("");
  }
  all(tag: string): El[] {
    const out: El[] = [];
    for (const c of this.children)
      if (c instanceof El) {
        if (c.tag === tag) out.push(c);
        out.push(...c.all(tag));
      }
    return out;
  }
  /** Text outside <pre> and <code>, where Markdown must have been rendered. */
  get prose(): string {
    return this.children
      .map((c) => (typeof c === "string" ? c : c.tag === "pre" || c.tag === "code" ? "" : c.prose))
      .join("");
  }
}

async function renderDocs(): Promise<El> {
  const html = await (await app.request("/docs")).text();
  const script = /<script>([\s\S]*)<\/script>/.exec(html)?.[1] ?? "";
  const doc = await (await app.request("/openapi.json")).json();
  const byId: Record<string, El> = { app: new El("main"), nav: new El("nav") };
  const document = {
    title: "",
    createElement: (t: string) => new El(t),
    createDocumentFragment: () => new El("#fragment"),
    getElementById: (id: string) => byId[id] ?? null,
    querySelectorAll: () => [],
  };
  const fetchDoc = async () => ({ ok: true, status: 200, json: async () => doc });
  new Function("document", "location", "fetch", script)(document, { hash: "" }, fetchDoc);
  await new Promise((r) => setTimeout(r, 20));
  return byId.app as El;
}

describe("/docs renders", () => {
  it("a quick start, MCP and CLI sections, expanded request bodies and no raw Markdown", async () => {
    const page = await renderDocs();
    const text = page.text;
    for (const h of ["Quick start", "Conventions", "MCP", "CLI and client", "Authentication", "Errors"])
      expect(page.all("h3").map((e) => e.text)).toContain(h);
    const pres = page.all("pre").map((p) => p.text);
    expect(pres.some((p) => p.includes("curl -s -X POST $U/v1/archives/mine/ingest"))).toBe(true);
    expect(pres.some((p) => p.includes('"mcpServers"'))).toBe(true);
    expect(pres.some((p) => p.includes("paperguru context"))).toBe(true);
    expect(text).toContain("Accept: application/json, text/event-stream");
    // Markdown outside code is rendered: no backtick survives in prose.
    expect(page.prose).not.toContain("`");
    // The ingest request body shows the artifact's fields, not only the schema's name.
    const ingest = page.all("details").find((d) => d.attrs.id === "op-post-v1-archives-archive-ingest");
    const bodySchema =
      ingest
        ?.all("pre")
        .map((p) => p.text)
        .join("\n") ?? "";
    expect(bodySchema).toContain("artifacts");
    expect(bodySchema).toContain("content");
    expect(bodySchema).toContain("valid_from");
    // Every parameter row has a description cell.
    for (const row of page.all("tr").filter((r) => r.all("td").length === 5))
      expect((row.all("td")[4] as El).text.length, row.text).toBeGreaterThan(0);
  });
});
