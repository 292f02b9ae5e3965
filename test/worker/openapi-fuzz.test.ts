/**
 * Driven by /openapi.json, so every route added later is covered without touching this file:
 * 1. isolation: each archive route with no key, a revoked key, another archive's key, and a
 *    read-only key on write routes is refused (401/403) and never answers 2xx or 5xx;
 * 2. fuzz: each route with mutated bodies, queries and path parameters (fast-check JSON values,
 *    wrong types, huge and malformed strings, unicode edge cases, invalid JSON, wrong content types,
 *    path tricks), sent with the admin key so validation is what is exercised: never a 5xx, and
 *    every 4xx carries the error shape {error: {type, message}}. ~2,200 requests per run.
 *
 * Requests go to the Worker's fetch handler in-process (./worker), not through SELF.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mockFetch } from "./fetch-guard";
import { ADMIN, api, newArchive } from "./helpers";
import { WORKER } from "./worker";

const call = (url: string, init?: RequestInit) => WORKER.fetch(`http://paperguru.test${url}`, init);

type Op = { method: string; path: string; security: string[]; hasBody: boolean; json: boolean; query: string[] };

async function operations(): Promise<Op[]> {
  const res = await call("/openapi.json");
  const doc = (await res.json()) as {
    paths: Record<
      string,
      Record<
        string,
        {
          security?: Array<Record<string, string[]>>;
          requestBody?: { content?: Record<string, unknown> };
          parameters?: Array<{ name: string; in: string }>;
        }
      >
    >;
  };
  const ops: Op[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (path === "/openapi.json" || path === "/docs" || path === "/mcp") continue;
    for (const [method, op] of Object.entries(methods))
      ops.push({
        method: method.toUpperCase(),
        path,
        security: (op.security ?? []).flatMap((s) => s.bearer ?? []),
        hasBody: op.requestBody !== undefined,
        json: op.requestBody?.content?.["application/json"] !== undefined,
        query: (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
      });
  }
  return ops;
}

const PARAMS: Record<string, string> = {
  key: "k_00000000",
  name: "feed",
  delivery: "d1",
  source: "s1",
  session: "s1",
};

/** encodeURIComponent, with a lone surrogate sent as the (invalid UTF-8) bytes it would be. */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s.replace(/[\ud800-\udfff]/g, "%ED%A0%80").replace(/[^%\w.-]/g, (c) => encodeURIComponent(c));
  }
}

function fill(path: string, archive: string, override?: [string, string]): string {
  return path.replace(/\{(\w+)\}/g, (_, p: string) =>
    override && override[0] === p ? enc(override[1]) : enc(p === "archive" ? archive : (PARAMS[p] ?? "x")),
  );
}

async function send(
  method: string,
  url: string,
  body: string | undefined,
  key: string | null,
  type = "application/json",
) {
  const headers: Record<string, string> = { "content-type": type };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await call(url, {
    method,
    headers,
    ...(body !== undefined && method !== "GET" && method !== "DELETE" ? { body } : {}),
  });
  const text = await res.text();
  return { status: res.status, text };
}

const STRINGS = [
  "",
  " ",
  "x".repeat(100_000),
  "\u0000",
  "\ud800",
  "😀".repeat(1000),
  "../../etc/passwd",
  "%2e%2e%2f",
  "<script>alert(1)</script>",
  "'; DROP TABLE chunks; --",
  "\u202e\u200b",
  "1e309",
  "-1",
  "NaN",
  "2024-13-45",
];

describe("OpenAPI-driven isolation and fuzz", () => {
  it("refuses every archive route without a key, with a revoked key, another archive's key, or too little scope", async () => {
    const a = await newArchive("iso-a");
    const b = await newArchive("iso-b");
    const readOnly = (await api("POST", `/v1/archives/${a.id}/keys`, { scopes: ["read"] })).body.secret as string;
    const revoked = await api("POST", `/v1/archives/${a.id}/keys`, { scopes: ["read", "write"] });
    await api("DELETE", `/v1/archives/${a.id}/keys/${revoked.body.id}`);
    const ops = (await operations()).filter((o) => o.security.length > 0 && o.path.includes("{archive}"));
    expect(ops.length).toBeGreaterThan(30);
    const violations: string[] = [];
    let checked = 0;
    for (const op of ops) {
      const url = fill(op.path, a.id);
      const cases: Array<[string, string | null, number[]]> = [
        ["no key", null, [401]],
        ["revoked key", revoked.body.secret as string, [401]],
        ["another archive's key", b.key, [403]],
      ];
      if (op.security.includes("write") || op.security.includes("admin"))
        cases.push(["read-only key", readOnly, [403]]);
      if (op.security.includes("admin")) cases.push(["archive key on an admin route", a.key, [403]]);
      for (const [label, key, want] of cases) {
        const r = await send(op.method, url, op.hasBody ? "{}" : undefined, key);
        checked++;
        if (!want.includes(r.status)) violations.push(`${op.method} ${op.path} with ${label}: ${r.status}`);
      }
    }
    console.log(`isolation matrix: ${ops.length} archive routes, ${checked} requests, ${violations.length} violations`);
    expect(violations).toEqual([]);
  }, 120_000);

  it("refuses an unknown field in any operation's body or query with a 400 naming it, before doing anything", async () => {
    const a = await newArchive("strict");
    const fieldOf = (text: string) => {
      try {
        return (JSON.parse(text) as { error?: { field?: unknown } }).error?.field;
      } catch {
        return undefined;
      }
    };
    // The webhook receiver checks its HMAC signature before anything else (scope none).
    const ops = (await operations()).filter((o) => o.security.length > 0);
    expect(ops.filter((o) => o.json).length).toBeGreaterThan(25);
    const wrong: string[] = [];
    for (const op of ops) {
      const url = fill(op.path, a.id);
      const q = await send(op.method, `${url}?zz_unknown=1`, op.json ? "{}" : undefined, ADMIN);
      if (q.status !== 400 || fieldOf(q.text) !== "zz_unknown")
        wrong.push(`${op.method} ${op.path} query: ${q.status} ${q.text.slice(0, 160)}`);
      if (!op.json) continue;
      const b = await send(op.method, url, JSON.stringify({ zz_unknown: 1 }), ADMIN);
      if (b.status !== 400 || fieldOf(b.text) !== "zz_unknown")
        wrong.push(`${op.method} ${op.path} body: ${b.status} ${b.text.slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
    // Nothing was done: the archive is still there, empty.
    const info = await api("GET", `/v1/archives/${a.id}`, undefined, a.key);
    expect(info.status).toBe(200);
    expect(info.body.stats.storage.chunks).toBe(0);
  }, 120_000);

  it("answers fuzzed requests with 2xx/4xx and the error shape, never 5xx (2,000+ requests)", async () => {
    const a = await newArchive("fuzz");
    // Deleting the archive itself goes last, so every other route is fuzzed against a live archive.
    const ops = (await operations()).sort(
      (x, y) =>
        Number(x.method === "DELETE" && x.path === "/v1/archives/{archive}") -
        Number(y.method === "DELETE" && y.path === "/v1/archives/{archive}"),
    );
    const rnd = fc.sample(fc.jsonValue({ maxDepth: 3 }), { numRuns: 36, seed: 42 });
    let sent = 0;
    const started = performance.now();
    const failures: string[] = [];
    const check = (op: Op, what: string, r: { status: number; text: string }) => {
      sent++;
      if (r.status >= 500) failures.push(`${op.method} ${op.path} ${what}: ${r.status} ${r.text.slice(0, 120)}`);
      else if (r.status >= 400) {
        let ok = false;
        try {
          const e = (JSON.parse(r.text) as { error?: { type?: unknown; message?: unknown } }).error;
          ok = typeof e?.type === "string" && typeof e?.message === "string";
        } catch {
          ok = false;
        }
        if (!ok) failures.push(`${op.method} ${op.path} ${what}: ${r.status} without the error shape`);
      }
    };
    for (const op of ops) {
      // The webhook receiver is authenticated by HMAC, not the key: fuzzing it exercises the signature check.
      const key = op.security.length > 0 ? ADMIN : null;
      const url = fill(op.path, a.id);
      const bodies: Array<[string, string, string?]> = op.hasBody
        ? [
            ...rnd.map((v, i) => [`json ${i}`, JSON.stringify(v)] as [string, string]),
            ...STRINGS.map((s, i) => [`string ${i}`, JSON.stringify(s)] as [string, string]),
            ["invalid json", "{not json"],
            ["empty", ""],
            ["5,000-deep array", `${"[".repeat(5000)}${"]".repeat(5000)}`],
            ["5,000-deep object", `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`],
            ["text/plain", "hello", "text/plain"],
            ["form", "a=1&b=2", "application/x-www-form-urlencoded"],
            ...STRINGS.map(
              (s, i) =>
                [
                  `string ${i} in fields`,
                  JSON.stringify({
                    q: s,
                    query: s,
                    id: s,
                    name: s,
                    location: s,
                    artifacts: [{ title: s, content: s }],
                  }),
                ] as [string, string],
            ),
          ]
        : [["no body", ""]];
      for (const [what, body, type] of bodies) check(op, what, await send(op.method, url, body, key, type));
      for (const q of op.query)
        for (const s of STRINGS)
          check(op, `query ${q}`, await send(op.method, `${url}?${q}=${enc(s)}`, undefined, key));
      for (const p of op.path.match(/\{(\w+)\}/g) ?? [])
        for (const s of STRINGS.slice(0, 10)) {
          const name = p.slice(1, -1);
          check(
            op,
            `path ${name}`,
            await send(op.method, fill(op.path, a.id, [name, s]), op.hasBody ? "{}" : undefined, key),
          );
        }
    }
    console.log(`openapi fuzz: ${sent} requests in ${Math.round(performance.now() - started)} ms`);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(2000);
  }, 600_000);

  it("answers large but valid values, each field at its schema's limit, with 2xx or 4xx, never 5xx", async () => {
    // POST …/discover asks the scholarly engines: they answer 503 here (each reported per engine).
    // PUT …/subscriptions/{name} with its example subscribes agent.example.com, and the later
    // writes of this test are delivered to it (it answers 204).
    const busy = () => new Response("busy", { status: 503 });
    mockFetch({
      "https://agent.example.com/": () => new Response(null, { status: 204 }),
      "https://export.arxiv.org/": busy,
      "https://api.openalex.org/": busy,
      "https://api.crossref.org/": busy,
      "https://api.semanticscholar.org/": busy,
      "https://dblp.org/": busy,
    });
    const a = await newArchive("fuzz-large");
    const doc = (await (await call("/openapi.json")).json()) as OpenApiDoc;
    const failures: string[] = [];
    let sent = 0;
    let variants = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const media = op.requestBody?.content?.["application/json"];
        if (!media?.schema || (method !== "post" && method !== "put")) continue;
        if (path === "/v1/archives/{archive}" || (path.includes("/webhooks/{name}") && method === "post")) continue;
        const schema = resolve(doc, media.schema);
        const example = media.example ?? schema.example;
        if (example === undefined) continue;
        for (const [what, body] of largeVariants(doc, schema, example)) {
          variants++;
          const url = fill(path, a.id);
          const r = await send(method.toUpperCase(), url, JSON.stringify(body), ADMIN);
          sent++;
          if (r.status >= 500)
            failures.push(`${method.toUpperCase()} ${path} ${what}: ${r.status} ${r.text.slice(0, 160)}`);
        }
      }
    }
    console.log(`large-value fuzz: ${sent} requests (${variants} variants)`);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(50);
  }, 600_000);
});

interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  maxLength?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  example?: unknown;
}
interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema; example?: unknown }> } }>
  >;
  components?: { schemas?: Record<string, JsonSchema> };
}

function resolve(doc: OpenApiDoc, s: JsonSchema | undefined): JsonSchema {
  let cur = s ?? {};
  for (let i = 0; i < 8 && cur.$ref; i++) cur = doc.components?.schemas?.[cur.$ref.split("/").pop() as string] ?? {};
  const alt = cur.anyOf ?? cur.oneOf ?? cur.allOf;
  if (alt && !cur.properties && !cur.type)
    return resolve(
      doc,
      alt.find((x) => resolve(doc, x).type !== "null"),
    );
  return cur;
}

/** Characters a value at its limit takes when the schema gives none (stays within the request size). */
const UNBOUNDED = 200_000;

/**
 * The example with one field at its limit per variant: a string at its maxLength (or UNBOUNDED),
 * an array repeated to its maxItems (at most 500), each element made distinct where it is a record
 * with an id.
 */
function largeVariants(doc: OpenApiDoc, schema: JsonSchema, example: unknown): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const walk = (s: JsonSchema, v: unknown, path: string[], set: (x: unknown) => unknown) => {
    const r = resolve(doc, s);
    if (typeof v === "string") {
      const n = Math.min(r.maxLength ?? UNBOUNDED, 2 * 1024 * 1024);
      const unit = v.length > 0 ? v : "x";
      out.push([`${path.join(".")} at ${n} chars`, set(unit.repeat(Math.ceil(n / unit.length)).slice(0, n))]);
    } else if (Array.isArray(v) && v.length > 0) {
      const n = Math.min(r.maxItems ?? 100, 500);
      const items = Array.from({ length: n }, (_, i) => {
        const x = structuredClone(v[i % v.length]) as unknown;
        if (x && typeof x === "object" && "id" in x && typeof (x as { id: unknown }).id === "string")
          (x as { id: string }).id = `${(x as { id: string }).id}-${i}`;
        return x;
      });
      out.push([`${path.join(".")} with ${n} items`, set(items)]);
      for (const [i, x] of v.entries())
        walk(r.items ?? {}, x, [...path, String(i)], (y) => set(v.map((z, j) => (j === i ? y : z))));
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v))
        walk(r.properties?.[k] ?? {}, x, [...path, k], (y) => set({ ...(v as object), [k]: y }));
    }
  };
  walk(schema, example, [], (x) => x);
  return out;
}
