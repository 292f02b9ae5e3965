/**
 * The forgetting probe on disk: a local PaperGuru with its own state directory takes one chunk
 * through each intake path (REST ingest, MCP remember, a signed webhook delivery, a source run, a
 * file import), each carrying a marker word in its title and another in its content; all five are
 * hard-deleted; the server is stopped (SIGTERM, so SQLite checkpoints and closes its write-ahead
 * logs); then every file of the local state (D1 and Durable Object SQLite files with their WAL, R2
 * objects and their metadata, queue and cache storage) is searched byte for byte for the markers.
 *
 * Used by test/cli/forget-disk.test.ts and `tsx scripts/lib/forget-disk.ts` (prints the findings).
 */
import { createHmac } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "./server";

export const PATHS = ["rest", "mcp", "webhook", "source", "import"] as const;
export type IntakePath = (typeof PATHS)[number];

/** Marker words: letters only (so no tokenizer splits them), unique per path and field. */
export function markers(path: IntakePath): { title: string; content: string } {
  const stem = { rest: "qarvol", mcp: "zentrik", webhook: "hoplumbe", source: "vistrane", import: "imbrevax" }[path];
  return { title: `${stem}titlemark`, content: `${stem}contentmark` };
}

function artifact(path: IntakePath) {
  const m = markers(path);
  return {
    id: `note:${path}`,
    kind: "note",
    title: `Field notes ${m.title}`,
    content: `Arrived by ${path}: graph memories keep typed edges, tuned by ${m.content} in the evening runs.`,
  };
}

export interface DiskFinding {
  path: IntakePath;
  field: "title" | "content";
  /** State files (relative to the state directory) whose bytes hold the marker. */
  files: string[];
}

export interface DiskProbe {
  /** Before the deletes: files holding each marker (the probe finds what it looks for). */
  before: DiskFinding[];
  /** After the deletes and a clean stop. */
  after: DiskFinding[];
  /** Every state file searched after, with its size. */
  searched: Array<{ file: string; bytes: number }>;
}

function walk(dir: string, root = dir): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...walk(p, root));
    else out.push(p.slice(root.length + 1));
  }
  return out;
}

function scan(state: string): { findings: DiskFinding[]; searched: Array<{ file: string; bytes: number }> } {
  const files = walk(state);
  const contents = files.map((f) => ({ file: f, bytes: readFileSync(join(state, f)) }));
  const findings: DiskFinding[] = [];
  for (const path of PATHS) {
    const m = markers(path);
    for (const field of ["title", "content"] as const) {
      const needle = Buffer.from(m[field], "utf8");
      findings.push({ path, field, files: contents.filter((c) => c.bytes.includes(needle)).map((c) => c.file) });
    }
  }
  return { findings, searched: contents.map((c) => ({ file: c.file, bytes: c.bytes.length })) };
}

async function call(
  url: string,
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      connection: "close",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed };
}

function expectOk(what: string, r: { status: number; body: unknown }) {
  if (r.status >= 300) throw new Error(`${what}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
}

/** A local feed for the source path: serves one document in the feed format. */
async function feedServer(): Promise<{ server: HttpServer; url: string }> {
  const doc = JSON.stringify({ artifacts: [artifact("source")] });
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(doc);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.json` };
}

async function waitFor(what: string, check: () => Promise<boolean>, polls = 240): Promise<void> {
  for (let i = 0; i < polls; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what}: not reached after ${polls} polls`);
}

/** SIGTERM, then wait until the server no longer answers and its runtime has let go of the files. */
async function stopped(server: { url: string; stop(): void }): Promise<void> {
  server.stop();
  await waitFor("server stopped", async () => {
    try {
      await fetch(`${server.url}/healthz`, { headers: { connection: "close" } });
      return false;
    } catch {
      return true;
    }
  });
  await new Promise((r) => setTimeout(r, 1000));
}

/** Runs the probe on a fresh local server; the state directory is removed afterwards. */
export async function probeDisk(): Promise<DiskProbe> {
  const state = mkdtempSync(join(tmpdir(), "paperguru-forget-disk-"));
  const feed = await feedServer();
  // DNS_RESOLVER=none: the feed is on 127.0.0.1 (allow-listed) and nothing else is fetched.
  let server = await startServer({ fresh: true, state, allowHosts: "127.0.0.1", vars: { DNS_RESOLVER: "none" } });
  try {
    const { url, adminKey } = server;
    const created = await call(url, "POST", "/v1/archives", adminKey, { id: "disk", name: "disk" });
    expectOk("create archive", created);
    const key = (created.body as { key: { secret: string } }).key.secret;
    const a = "/v1/archives/disk";

    expectOk("rest", await call(url, "POST", `${a}/ingest`, key, { artifacts: [artifact("rest")] }));
    const mcp = await call(
      url,
      "POST",
      "/mcp",
      key,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "remember", arguments: { archive: "disk", artifacts: [artifact("mcp")] } },
      },
      { accept: "application/json, text/event-stream" },
    );
    expectOk("mcp", mcp);
    if (JSON.stringify(mcp.body).includes('"isError":true')) throw new Error(`mcp: ${JSON.stringify(mcp.body)}`);

    const hook = await call(url, "PUT", `${a}/webhooks/feed`, adminKey, { kind: "generic" });
    expectOk("webhook", hook);
    const secret = (hook.body as { secret: string }).secret;
    const raw = JSON.stringify({ artifacts: [artifact("webhook")] });
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = `sha256=${createHmac("sha256", secret).update(`${ts}.${raw}`).digest("hex")}`;
    const sent = await fetch(`${url}${a}/webhooks/feed`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-paperguru-timestamp": ts,
        "x-paperguru-signature": sig,
        "x-paperguru-delivery": "d-disk-1",
        connection: "close",
      },
      body: raw,
    });
    if (sent.status !== 202) throw new Error(`webhook delivery: HTTP ${sent.status} ${await sent.text()}`);

    const src = await call(url, "POST", `${a}/sources`, key, { kind: "url", location: feed.url });
    expectOk("source", src);
    const sourceId = (src.body as { id: string }).id;
    expectOk("source run", await call(url, "POST", `${a}/sources/${encodeURIComponent(sourceId)}/run`, key));

    expectOk(
      "import",
      await call(url, "POST", `${a}/import?format=json`, key, JSON.stringify({ artifacts: [artifact("import")] })),
    );

    const chunk = (p: IntakePath) => `${a}/chunks/${encodeURIComponent(`note:${p}`)}`;
    for (const p of PATHS)
      await waitFor(`note:${p} stored`, async () => (await call(url, "GET", chunk(p), key)).status === 200);
    // Read every chunk once through the query path too, so query-side state (caches, access log) holds it.
    for (const p of PATHS)
      expectOk("context", await call(url, "POST", `${a}/context`, key, { query: `field notes ${markers(p).title}` }));

    await stopped(server);
    const before = scan(state).findings;
    server = await startServer({ fresh: true, state, allowHosts: "127.0.0.1", vars: { DNS_RESOLVER: "none" } });

    for (const p of PATHS) expectOk(`delete ${p}`, await call(server.url, "DELETE", chunk(p), key));
    for (const p of PATHS) {
      const r = await call(server.url, "GET", chunk(p), key);
      if (r.status !== 404) throw new Error(`note:${p} after delete: HTTP ${r.status}`);
    }
    // Enough later writes that SQLite's automatic checkpoint (1,000 WAL pages, 4 MB) runs at least
    // once and the write-ahead log starts over: the state a long-running server reaches.
    if (process.env.FORGET_DISK_FILL !== "0") {
      const walBytes = () =>
        walk(state)
          .filter((f) => f.includes("/d1/") && f.endsWith(".sqlite-wal"))
          .reduce((n, f) => n + statSync(join(state, f)).size, 0);
      const mainBytes = () =>
        walk(state)
          .filter((f) => f.includes("/d1/") && f.endsWith(".sqlite"))
          .reduce((n, f) => n + statSync(join(state, f)).size, 0);
      const main0 = mainBytes();
      let extra = -1;
      for (let b = 0; b < 80 && extra < Number(process.env.FORGET_DISK_AFTER ?? 15); b++) {
        if (extra >= 0 || mainBytes() !== main0) extra++;
        const artifacts = Array.from({ length: 100 }, (_, i) => ({
          id: `note:fill-${b}-${i}`,
          kind: "note",
          title: `Filler ${b} ${i}`,
          content: `Filler note ${b}-${i} about ordinary graph memory words, repeated to take space. `.repeat(12),
        }));
        expectOk("fill", await call(server.url, "POST", `${a}/ingest`, key, { artifacts }));
      }
      process.stderr.write(`fill: main ${main0} -> ${mainBytes()} bytes, wal ${walBytes()} bytes\n`);
    }
    await stopped(server);
    const after = scan(state);
    return { before, after: after.findings, searched: after.searched };
  } finally {
    server.stop();
    feed.server.close();
    rmSync(state, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await probeDisk();
  for (const f of r.after)
    console.log(
      `${f.path} ${f.field}: before ${r.before.find((b) => b.path === f.path && b.field === f.field)?.files.length ?? 0} files, after ${f.files.join(", ") || "none"}`,
    );
  console.log(`${r.searched.length} files, ${r.searched.reduce((s, f) => s + f.bytes, 0)} bytes searched`);
}
