/**
 * `npx tsx scripts/probe-split-kill.ts [--batches 40] [--kills 4]`: shards opened while the process
 * dies. A throwaway local Worker with persisted state grows two plain-text archives batch by batch
 * (40 passages each, through the public API): one with a 64 KiB heap budget, so it opens a shard
 * every few batches, one in a single object. During some ingests into the first archive the whole
 * server is killed (SIGKILL, a random 20-600 ms into the request), started again on the same state
 * and the batch is sent again (ingest is idempotent). At the end both archives must hold every
 * passage once and answer every query alike. Writes bench/results/split-kill-latest.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PaperGuruClient } from "../src/client";
import { proseCorpus } from "./lib/prose";
import { machine } from "./lib/results";
import { harnessFetch, type Server, sourceState, startServer } from "./lib/server";

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  const v = i >= 0 ? Number(args[i + 1]) : Number.NaN;
  return Number.isInteger(v) && v >= 0 ? v : dflt;
};
const BATCHES = arg("--batches", 40);
const KILLS = arg("--kills", 4);
const SIZE = 40;

const source = sourceState();
const state = mkdtempSync(join(tmpdir(), "paperguru-kill-"));
const port = 20000 + Math.floor(Math.random() * 20000);
let server: Server = await startServer({ fresh: true, snapshot: true, state, port });
const corpus = proseCorpus(BATCHES * SIZE, 9);
const batch = (b: number) =>
  corpus.passages
    .slice(b * SIZE, (b + 1) * SIZE)
    .map((p) => ({ id: p.id, kind: "note" as const, title: p.title, content: p.text }));
const client = () => new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
const stamp = Date.now().toString(36);
const sharded = `kill-${stamp}`;
const single = `one-${stamp}`;
const keys = {
  [sharded]: (await client().createArchive({ id: sharded, name: sharded, params: { heap_budget_bytes: 65_536 } })).key
    .secret,
  [single]: (await client().createArchive({ id: single, name: single })).key.secret,
};
const pg = (id: string) => client().withKey(keys[id] as string);

/** Send a batch until it is answered 200 (after a kill the first attempts may meet a restart). */
async function ingest(id: string, b: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await pg(id).ingest(id, { artifacts: batch(b) });
      return;
    } catch (e) {
      if (attempt >= 5) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

// Kill during evenly spread batches past the first few.
const killAt = new Set(Array.from({ length: KILLS }, (_, k) => Math.floor(((k + 1) * BATCHES) / (KILLS + 1))));
const kills: Array<{ batch: number; afterMs: number; requestFinished: boolean; shardsBefore: number }> = [];
try {
  for (let b = 0; b < BATCHES; b++) {
    if (killAt.has(b)) {
      const info = await pg(sharded).archive(sharded);
      const shardsBefore = (info.stats as { capital?: { shards?: unknown[] } }).capital?.shards?.length ?? 1;
      const afterMs = 20 + Math.floor(Math.random() * 580);
      let requestFinished = false;
      const inFlight = pg(sharded)
        .ingest(sharded, { artifacts: batch(b) })
        .then(() => {
          requestFinished = true;
        })
        .catch(() => undefined);
      await new Promise((r) => setTimeout(r, afterMs));
      server.kill();
      await inFlight;
      kills.push({ batch: b, afterMs, requestFinished, shardsBefore });
      process.stderr.write(`killed during batch ${b} after ${afterMs} ms (request finished: ${requestFinished})\n`);
      server = await startServer({ fresh: true, snapshot: true, state, port });
    }
    await ingest(sharded, b);
    await ingest(single, b);
  }
  const capital = async (id: string) =>
    (
      (await pg(id).archive(id)).stats as {
        capital: { heads: number; shards?: Array<{ heads: number }> };
        storage: { chunks: number };
      }
    ).capital;
  const a = await capital(sharded);
  const o = await capital(single);
  let same = 0;
  const queries = corpus.questions.slice(0, 40);
  for (const q of queries) {
    const x = await pg(sharded).route(sharded, { query: q, limit: 10 });
    const y = await pg(single).route(single, { query: q, limit: 10 });
    if (JSON.stringify(x.selected.map((s) => s.chunk)) === JSON.stringify(y.selected.map((s) => s.chunk))) same++;
  }
  const out = {
    date: new Date().toISOString(),
    commit: source.commit,
    source,
    machine: machine(),
    passages: BATCHES * SIZE,
    kills,
    shards: a.shards?.length ?? 1,
    headsSharded: a.heads,
    headsPerShardSum: a.shards?.reduce((s, x) => s + x.heads, 0) ?? a.heads,
    headsSingle: o.heads,
    queries: queries.length,
    sameAnswers: same,
  };
  console.log(JSON.stringify(out, null, 2));
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/split-kill-latest.json", `${JSON.stringify(out, null, 2)}\n`);
  if (a.heads !== BATCHES * SIZE || o.heads !== BATCHES * SIZE || same !== queries.length) process.exitCode = 1;
} finally {
  server.stop();
  rmSync(state, { recursive: true, force: true });
}
