/**
 * `npx tsx scripts/probe-grow.ts [--passages 300000] [--at 30000,100000,300000,1000000] [--queries 50]
 *  [--data DIR] [--heap] [--ref COMMIT]`: one archive grown from real passages (scripts/lib/realtext.ts,
 * batches of 200, one client, the default heap budget, so shards open as they would for a user)
 * through a throwaway local Worker until N or the first failed ingest (issue 38, item 7). It
 * prints every 5,000 the rate, the longest ingest call and the resident memory of the runtime's
 * processes (the Worker's workerd, the proxy's, wrangler), and at each `--at` size it stops
 * ingesting and measures: `/route` and `/context` latency over the corpora's questions (sequential,
 * idle), the directory's rounds, the capital chunk's heap and SQLite bytes per head per shard, and
 * the local D1 database on disk. Every ingest call over 1 s is listed with where it happened (the
 * writes that open a shard were such waits). Results: bench/results/grow-latest.json.
 * `PAPERGURU_SERVER_LOG=FILE` keeps the server's log (its last words if it dies). `--heap` polls
 * the Worker isolate's JavaScript heap over DevTools every 200 ms (the largest used per 5,000).
 */
import { execSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PaperGuruClient } from "../src/client";
import { type DevTools, devtools } from "./lib/devtools";
import { realTextOrSkip } from "./lib/realtext";
import { machine } from "./lib/results";
import { harnessFetch, sourceState, startServer } from "./lib/server";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const N = Number(opt("--passages")) || 300_000;
const AT = (opt("--at") ?? "30000,100000,300000,1000000")
  .split(",")
  .map(Number)
  .filter((n) => n > 0 && n <= N);
if (!AT.includes(N)) AT.push(N);
const Q = Number(opt("--queries")) || 50;
const ref = opt("--ref");
const heap = args.includes("--heap");
const rt = realTextOrSkip(args);
const inspectorPort = 9300 + Math.floor(Math.random() * 500);
const state = mkdtempSync(join(tmpdir(), "paperguru-grow-"));
const source = sourceState();
const server = await startServer({
  fresh: true,
  snapshot: ref ? { ref } : true,
  state,
  ...(heap ? { inspectorPort } : {}),
});
let peak = 0;
let dt: DevTools | null = null;
let poll: ReturnType<typeof setInterval> | undefined;
if (heap) {
  dt = await devtools(inspectorPort);
  poll = setInterval(() => {
    void dt?.send("Runtime.getHeapUsage").then((r) => {
      const used = (r as { usedSize?: number } | undefined)?.usedSize ?? 0;
      if (used > peak) peak = used;
    });
  }, 200);
}
const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
const id = `grow-${Date.now().toString(36)}`;
const pg = admin.withKey((await admin.createArchive({ id, name: "grow" })).key.secret);

/** Resident memory (MB) of the runtime's processes: the Worker's workerd (it has the inspector), the proxy's, wrangler. */
const rss = (): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const l of execSync("ps -eo rss,args --sort=-rss").toString().split("\n")) {
    if (!/bin\/workerd|wrangler-dist/.test(l)) continue;
    const name = l.includes("wrangler-dist") ? "wrangler" : l.includes("--inspector-addr") ? "worker" : "proxy";
    out[name] = (out[name] ?? 0) + Math.round(Number(l.trim().split(/\s+/)[0]) / 1024);
  }
  return out;
};
/** Bytes of the local D1 databases (with their WAL) under the server's state directory. */
const d1Bytes = (): number => {
  let total = 0;
  const walk = (dir: string, inD1: boolean) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p, inD1 || e.name.includes("d1"));
      else if (inD1 && /\.sqlite(-wal)?$/.test(e.name)) total += statSync(p).size;
    }
  };
  walk(state, false);
  return total;
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number) : null;
};
const round1 = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);

interface Milestone {
  passages: number;
  ingestPerSec: number;
  route: { p50: number | null; p99: number | null; n: number };
  context: { p50: number | null; p99: number | null; n: number };
  rounds: { median: number | null; max: number | null };
  heads: number;
  shards: Array<{ heads: number; heapBytes: number; sqliteBytes: number | null }>;
  heapBytesPerHead: number;
  sqliteBytesPerHead: number | null;
  d1BytesPerHead: number;
  rssMb: Record<string, number>;
}

async function milestone(passages: number, ingestPerSec: number): Promise<Milestone> {
  const q = (k: number) => rt.questions[k % rt.questions.length] as string;
  const time = async (f: () => Promise<unknown>) => {
    const s = performance.now();
    await f();
    return performance.now() - s;
  };
  for (let k = 0; k < 5; k++) await pg.route(id, { query: q(rt.questions.length - 1 - k), limit: 10 });
  const route: number[] = [];
  const rounds: number[] = [];
  for (let k = 0; k < Q; k++) {
    const s = performance.now();
    const r = await pg.route(id, { query: q(k), limit: 10, include_trace: true });
    route.push(performance.now() - s);
    const sh = (r.trace as { shards?: { rounds: number } }).shards;
    rounds.push(sh ? sh.rounds : 1);
  }
  const context: number[] = [];
  for (let k = 0; k < Q; k++) context.push(await time(() => pg.context(id, { query: q(Q + k), budget_tokens: 1200 })));
  // The API's statistics are snake_case (src/app/lib/wire.ts).
  const cap = (await pg.archive(id)).stats.capital as unknown as {
    heads: number;
    bytes: Record<string, number>;
    storage_bytes?: number;
    shards?: Array<{ heads: number; bytes: number; storage_bytes?: number }>;
  };
  const total = cap.bytes.total ?? 0;
  const shards = (cap.shards ?? [{ heads: cap.heads, bytes: total, storage_bytes: cap.storage_bytes }]).map((s) => ({
    heads: s.heads,
    heapBytes: s.bytes,
    sqliteBytes: s.storage_bytes ?? null,
  }));
  const sqlite = shards.every((s) => s.sqliteBytes !== null)
    ? shards.reduce((a, s) => a + (s.sqliteBytes as number), 0)
    : null;
  const heads = Math.max(1, cap.heads);
  return {
    passages,
    ingestPerSec: Math.round(ingestPerSec),
    route: { p50: round1(pct(route, 50)), p99: round1(pct(route, 99)), n: route.length },
    context: { p50: round1(pct(context, 50)), p99: round1(pct(context, 99)), n: context.length },
    rounds: { median: pct(rounds, 50), max: rounds.length ? Math.max(...rounds) : null },
    heads: cap.heads,
    shards,
    heapBytesPerHead: Math.round(total / heads),
    sqliteBytesPerHead: sqlite === null ? null : Math.round(sqlite / heads),
    d1BytesPerHead: Math.round(d1Bytes() / heads),
    rssMb: rss(),
  };
}

const out: Record<string, unknown> = {
  date: new Date().toISOString(),
  commit: server.source?.commit ?? source.commit,
  source: server.source ?? source,
  machine: machine(),
  passages: N,
  batch: 200,
  queries: Q,
};
const milestones: Milestone[] = [];
const waits: Array<{ passages: number; ms: number }> = [];
let failed: string | null = null;
const t0 = performance.now();
let ingestMs = 0;
let segMs = 0;
let longest = 0;
try {
  for (let i = 0; i < N; i += 200) {
    const b0 = performance.now();
    try {
      await pg.ingest(id, { artifacts: rt.batch(i, Math.min(N, i + 200)).map(({ parts, ...a }) => a) });
    } catch (e) {
      failed = `ingest failed at ${i} passages after ${((performance.now() - t0) / 1000).toFixed(0)} s: ${String(e).slice(0, 300)}`;
      console.log(failed);
      process.exitCode = 1;
      break;
    }
    const ms = performance.now() - b0;
    ingestMs += ms;
    segMs += ms;
    longest = Math.max(longest, ms);
    if (ms > 1000) waits.push({ passages: i, ms: Math.round(ms) });
    const done = Math.min(N, i + 200);
    if (done % 5000 === 0) {
      const js = heap ? `; JS heap peak ${Math.round(peak / 2 ** 20)} MB` : "";
      const mem = Object.entries(rss())
        .map(([k, v]) => `${k} ${v} MB`)
        .join(", ");
      console.log(
        `${done} passages, ${(5000 / (segMs / 1000)).toFixed(0)}/s, longest batch ${Math.round(longest)} ms; ${mem}${js}`,
      );
      segMs = 0;
      longest = 0;
      peak = 0;
    }
    if (AT.includes(done)) {
      const m = await milestone(done, done / (ingestMs / 1000));
      milestones.push(m);
      console.log(JSON.stringify(m));
    }
  }
} finally {
  if (poll) clearInterval(poll);
  dt?.close();
  server.stop();
  out.milestones = milestones;
  out.waitsOver1s = waits;
  out.failed = failed;
  out.minutes = Math.round((performance.now() - t0) / 600) / 100;
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/grow-latest.json", `${JSON.stringify(out, null, 2)}\n`);
  rmSync(state, { recursive: true, force: true });
}
