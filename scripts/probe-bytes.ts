/**
 * `npx tsx scripts/probe-bytes.ts [--passages 10000] [--data ../shared/testdata]`: what one head of
 * real text costs in each store, measured on disk: a throwaway local server (its D1, R2 and Durable
 * Object state in a directory of its own) grows one archive from real passages
 * (scripts/lib/realtext.ts) in batches of 200; then the bytes of the D1 database by table (SQLite's
 * dbstat), of the capital chunk's and the local vector index's object SQLite (file + WAL), and of R2,
 * per head. Writes bench/results/bytes-latest.json; `npm run report` computes the scale plan in
 * docs/sharding.md from it and bench/results/probe-latest.json.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PaperGuruClient } from "../src/client";
import { realTextOrSkip } from "./lib/realtext";
import { machine } from "./lib/results";
import { harnessFetch, sourceState, startServer } from "./lib/server";
import { Database } from "./lib/sqlite";

const args = process.argv.slice(2);
const at = args.indexOf("--passages");
const N = at >= 0 ? Number(args[at + 1]) || 10_000 : 10_000;
const rt = realTextOrSkip(args);

/** Every file under `dir` (recursive). */
function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else out.push(p);
  }
  return out;
}
const size = (fs: string[]) => fs.reduce((n, f) => n + statSync(f).size, 0);

const source = sourceState();
const state = mkdtempSync(join(tmpdir(), "pg-bytes-"));
const server = await startServer({ fresh: true, snapshot: true, state });
try {
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `bytes-${Date.now().toString(36)}`;
  const pg = admin.withKey((await admin.createArchive({ id, name: "bytes per head" })).key.secret);
  for (let i = 0; i < N; i += 200)
    await pg.ingest(id, { artifacts: rt.batch(i, Math.min(N, i + 200)).map(({ parts: _, ...a }) => a) });
  const info = (await admin.request("GET", `/v1/archives/${encodeURIComponent(id)}`)) as {
    stats: { capital: { heads: number; bytes_per_head: number; storage_bytes?: number } };
  };
  server.stop();
  const all = files(join(state, "v3"));
  const sqlite = (dir: string) => all.filter((f) => f.includes(`/${dir}/`) && /\.sqlite(-wal)?$/.test(f));
  const d1Files = sqlite("miniflare-D1DatabaseObject").filter((f) => !f.endsWith("metadata.sqlite"));
  const d1Main = d1Files.find((f) => f.endsWith(".sqlite")) as string;
  // dbstat on a copy of the D1 file and its WAL: the copy is opened with an exclusive lock (the
  // SQLite here has no shared memory for a WAL index) and its WAL is checkpointed on close, so the
  // files measured stay as the server left them.
  const copy = join(state, "dbstat.sqlite");
  copyFileSync(d1Main, copy);
  if (existsSync(`${d1Main}-wal`)) copyFileSync(`${d1Main}-wal`, `${copy}-wal`);
  const db = new Database(copy);
  db.exec("PRAGMA locking_mode=EXCLUSIVE");
  const tables = db.all("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC") as Array<{
    name: string;
    bytes: number;
  }>;
  db.close();
  const heads = info.stats.capital.heads;
  const per = (b: number) => Math.round(b / heads);
  const out = {
    date: new Date().toISOString(),
    commit: source.commit,
    source,
    machine: machine(),
    text: "real text (scripts/lib/realtext.ts)",
    heads,
    bytesPerHead: {
      d1: per(size(d1Files)),
      d1Tables: Object.fromEntries(tables.filter((t) => t.bytes >= 65_536).map((t) => [t.name, per(t.bytes)])),
      capitalObject: per(size(sqlite("paperguru-CapitalChunk"))),
      capitalObjectReported: info.stats.capital.storage_bytes ? per(info.stats.capital.storage_bytes) : null,
      capitalHeap: Math.round(info.stats.capital.bytes_per_head),
      localVectorIndex: per(size(sqlite("paperguru-LocalVectorIndex"))),
      r2: per(size(all.filter((f) => f.includes("/r2/")))),
    },
  };
  console.log(JSON.stringify(out, null, 2));
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/bytes-latest.json", `${JSON.stringify(out, null, 2)}\n`);
} finally {
  server.stop();
  rmSync(state, { recursive: true, force: true });
}
