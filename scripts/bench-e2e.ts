/**
 * `npm run bench:e2e [-- --heads 1000,10000] [-- --prose 4000] [-- --data ../shared/testdata] [-- --prose-synthetic]`:
 * end to end through the public API of a throwaway local Worker run from a snapshot of the working
 * tree (or PAPERGURU_URL when set).
 *
 * 1. Structured papers: for each size it creates an archive, bulk-ingests synthetic papers (Zipf
 *    entity mentions, preferential-attachment citations) in batches of 200, then times /route and
 *    /context (concurrency 1 and 8), the server-side phases and a cold start.
 * 2. Plain text: `--prose N` notes of real text (scripts/lib/realtext.ts: three real paragraphs of
 *    ../shared/testdata, or `--data DIR`, ~1.6 KB each) with only id, kind, title and content, in
 *    batches of 200: ingest chunks/s and characters/s. Then ingest + query together: N/2 more
 *    notes are ingested while one client asks /route and /context in turn without pause, on the
 *    corpora's own questions; reported: ingest chunks/s and queries/s during that phase, and query
 *    latency under load. Without the data the section is skipped with a message. `--prose-synthetic`
 *    adds the same on encyclopedia-style synthetic prose (scripts/lib/prose.ts) as a secondary,
 *    labelled row.
 */
import { execSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname } from "node:path";
import { PaperGuruClient } from "../src/client";
import { shuffled } from "./lib/datasets";
import { proseCorpus } from "./lib/prose";
import { loadRealText } from "./lib/realtext";
import { gitCommit, harnessFetch, startServer } from "./lib/server";
import { rng } from "./lib/synthetic";

const server = await startServer({ snapshot: true });
const url = server.url;
const args = process.argv.slice(2);
const headsArg = args[args.indexOf("--heads") + 1];
const sizes =
  args.includes("--heads") && headsArg
    ? headsArg
        .split(",")
        .map(Number)
        .filter((n) => n > 0)
    : [1000, 10000];
const proseArg = args[args.indexOf("--prose") + 1];
const PROSE = args.includes("--prose") && proseArg ? Number(proseArg) : 2000;
const dataArg = args[args.indexOf("--data") + 1];
const DATA = args.includes("--data") && dataArg ? dataArg : "../shared/testdata";
const PROSE_SYNTHETIC = args.includes("--prose-synthetic");
const outArg = args[args.indexOf("--out") + 1];
const outFile = args.includes("--out") && outArg ? outArg : "bench/results/e2e.json";
const QUERIES = Number(process.env.QUERIES ?? 40);

const WORDS =
  "graph retrieval memory passage entity citation benchmark protocol dense sparse index version revision model training evaluation dataset split metric recall precision agent context budget diffusion router head content anchor span".split(
    " ",
  );

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

async function run(n: number) {
  const r = rng(n);
  const admin = new PaperGuruClient(url, server.adminKey, { fetch: harnessFetch });
  const id = `bench-${n}-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: `bench ${n}` });
  const pg = admin.withKey(created.key.secret);
  const nEnt = Math.max(20, Math.floor(n / 4));
  const targets: number[] = [];
  const t0 = performance.now();
  for (let start = 0; start < n; start += 200) {
    const artifacts = [];
    for (let i = start; i < Math.min(n, start + 200); i++) {
      const words = Array.from({ length: 60 }, () => WORDS[Math.floor(r() * WORDS.length)]).join(" ");
      const ents = Array.from({ length: 3 }, () => Math.floor(nEnt / (1 + r() * nEnt)));
      const edges = [];
      for (let k = 0; k < 4 && i > 0; k++) {
        const dst =
          targets.length && r() < 0.7 ? (targets[Math.floor(r() * targets.length)] as number) : Math.floor(r() * i);
        if (dst !== i) edges.push({ type: "cites" as const, target: `p:${dst}` });
        targets.push(dst);
      }
      targets.push(i);
      artifacts.push({
        id: `p:${i}`,
        kind: "paper" as const,
        title: `Paper ${i} on ${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}`,
        content: `${words}. Method ${ents[0]} is evaluated against Method ${ents[1]}.`,
        entities: [...new Set(ents)].map((e) => ({ type: "method" as const, id: `method:m${e}`, name: `Method ${e}` })),
        edges,
        valid_from: new Date(Date.parse("2020-01-01") + i * 3_600_000).toISOString(),
      });
    }
    await pg.ingest(id, { artifacts });
  }
  const ingestS = (performance.now() - t0) / 1000;
  const queries = Array.from({ length: QUERIES }, (_, q) => {
    const e = Math.floor(nEnt / (1 + r() * nEnt));
    return `How is Method ${e} used for ${WORDS[q % WORDS.length]} ${WORDS[(q * 3) % WORDS.length]}?`;
  });
  const timed = async (concurrency: number, fn: (q: string) => Promise<unknown>) => {
    const out: number[] = [];
    let next = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < queries.length) {
          const q = queries[next++] as string;
          const t1 = performance.now();
          await fn(q);
          out.push(performance.now() - t1);
        }
      }),
    );
    return { p50: pct(out, 50), p99: pct(out, 99), qps: queries.length / ((performance.now() - t) / 1000) };
  };
  // Server-side phase split from each response's trace (vector index call vs capital-chunk routing).
  const semanticMs: number[] = [];
  const routeMs: number[] = [];
  const route1 = await timed(1, async (query) => {
    const r = await pg.route(id, { query, limit: 16, include_trace: true });
    semanticMs.push(r.trace?.timings_ms.semantic as number);
    routeMs.push(r.trace?.timings_ms.route as number);
  });
  const context1 = await timed(1, (query) => pg.context(id, { query, budget_tokens: 1200 }));
  const context8 = await timed(8, (query) => pg.context(id, { query, budget_tokens: 1200 }));
  // Cold start: snapshot, drop the in-memory capital chunk, then one query rebuilds it.
  await admin.snapshot(id);
  await admin.evict(id);
  const tc = performance.now();
  await pg.route(id, { query: queries[0] as string, limit: 16 });
  const coldMs = performance.now() - tc;
  const rebuild = (await pg.archive(id)).stats.capital.last_rebuild as {
    ms: number;
    snapshot_bytes: number;
    replayed: number;
  };
  const stats = (await pg.archive(id)).stats.capital;
  return {
    heads: n,
    ingestPerSec: n / ingestS,
    route: route1,
    context: context1,
    context8,
    phases: { semanticP50: pct(semanticMs, 50), routeP50: pct(routeMs, 50) },
    coldStart: {
      firstQueryMs: coldMs,
      rebuildMs: rebuild.ms,
      snapshotBytes: rebuild.snapshot_bytes,
      replayed: rebuild.replayed,
    },
    bytesPerHead: stats.bytes_per_head as number,
  };
}

interface PlainCorpus {
  /** What the text is, for the tables. */
  text: string;
  synthetic: boolean;
  arts: Array<{ id: string; kind: "note"; title: string; content: string }>;
  questions: string[];
}

/** `total` notes of real text, or null (with a message) when no corpus is under DATA. */
function realCorpus(total: number): PlainCorpus | null {
  const rt = loadRealText(DATA, "real");
  if (!rt) {
    console.log(
      `\nno real text under ${DATA} (pass --data DIR pointing at shared/testdata): plain-text section skipped`,
    );
    return null;
  }
  return {
    text: `real text (scripts/lib/realtext.ts: ${Object.keys(rt.sources).join(", ")})`,
    synthetic: false,
    arts: rt.batch(0, total).map(({ id, kind, title, content }) => ({ id, kind, title, content })),
    questions: shuffled(rt.questions, 38),
  };
}

function syntheticCorpus(total: number): PlainCorpus {
  const corpus = proseCorpus(total, 11);
  return {
    text: "synthetic prose (scripts/lib/prose.ts)",
    synthetic: true,
    arts: corpus.passages.map((p) => ({ id: p.id, kind: "note" as const, title: p.title, content: p.text })),
    questions: corpus.questions,
  };
}

/** Plain-text ingest, then ingest and queries together. */
async function prose(n: number, make: (total: number) => PlainCorpus | null) {
  const extra = Math.max(200, Math.floor(n / 2));
  const corpus = make(n + extra);
  if (!corpus) return null;
  const admin = new PaperGuruClient(url, server.adminKey, { fetch: harnessFetch });
  const id = `bench-prose-${n}-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: `bench prose ${n}` });
  const pg = admin.withKey(created.key.secret);
  const arts = corpus.arts;
  const chars = (xs: typeof arts) => xs.reduce((s, a) => s + a.content.length + a.title.length, 0);
  const first = arts.slice(0, n);
  const t0 = performance.now();
  for (let i = 0; i < first.length; i += 200) await pg.ingest(id, { artifacts: first.slice(i, i + 200) });
  const ingestS = (performance.now() - t0) / 1000;
  // Ingest + query together: one writer, one reader, until the writer is done.
  const rest = arts.slice(n);
  const lat: number[] = [];
  let queries = 0;
  let writing = true;
  const t1 = performance.now();
  const writer = (async () => {
    for (let i = 0; i < rest.length; i += 200) await pg.ingest(id, { artifacts: rest.slice(i, i + 200) });
    writing = false;
  })();
  const reader = (async () => {
    while (writing) {
      const q = corpus.questions[(queries * 7919) % corpus.questions.length] as string;
      const t = performance.now();
      if (queries % 2 === 0) await pg.route(id, { query: q, limit: 16 });
      else await pg.context(id, { query: q, budget_tokens: 1200 });
      lat.push(performance.now() - t);
      queries++;
    }
  })();
  await Promise.all([writer, reader]);
  const mixedS = (performance.now() - t1) / 1000;
  const stats = (await pg.archive(id)).stats.capital;
  return {
    text: corpus.text,
    synthetic: corpus.synthetic,
    passages: n,
    meanChars: chars(first) / first.length,
    ingestChunksPerSec: n / ingestS,
    ingestCharsPerSec: chars(first) / ingestS,
    mixed: {
      passages: rest.length,
      ingestChunksPerSec: rest.length / mixedS,
      queries,
      queriesPerSec: queries / mixedS,
      queryP50: pct(lat, 50),
      queryP99: pct(lat, 99),
    },
    bytesPerHead: stats.bytes_per_head as number,
  };
}

const rows = [];
for (const n of sizes) {
  process.stdout.write(`ingesting ${n} heads through ${url} ... `);
  const row = await run(n);
  console.log(`${row.ingestPerSec.toFixed(0)} chunks/s`);
  rows.push(row);
}
console.log(
  "\n| heads | ingest chunks/s | /route p50 / p99 ms (c=1) | of which: vector index p50, capital route p50 | /context p50 / p99 ms (c=1) | /context p50 / p99 ms, q/s (c=8) | cold start: rebuild ms (snapshot KB) | DO bytes/head |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows)
  console.log(
    `| ${r.heads} | ${r.ingestPerSec.toFixed(0)} | ${r.route.p50.toFixed(1)} / ${r.route.p99.toFixed(1)} | ${r.phases.semanticP50.toFixed(1)}, ${r.phases.routeP50.toFixed(1)} | ${r.context.p50.toFixed(1)} / ${r.context.p99.toFixed(1)} | ${r.context8.p50.toFixed(1)} / ${r.context8.p99.toFixed(1)}, ${r.context8.qps.toFixed(0)} | ${r.coldStart.rebuildMs.toFixed(0)} (${(r.coldStart.snapshotBytes / 1024).toFixed(0)}) | ${r.bytesPerHead.toFixed(0)} |`,
  );
type PlainRun = NonNullable<Awaited<ReturnType<typeof prose>>>;
const plainRow = (p: PlainRun) => {
  const m = p.mixed;
  return `| ${p.text} | ${p.passages} (${p.meanChars.toFixed(0)}) | ${p.ingestChunksPerSec.toFixed(0)} | ${p.ingestCharsPerSec.toFixed(0)} | ${m.ingestChunksPerSec.toFixed(0)}, ${m.queriesPerSec.toFixed(1)} | ${m.queryP50.toFixed(1)} / ${m.queryP99.toFixed(1)} | ${p.bytesPerHead.toFixed(0)} |`;
};
let plain: PlainRun | null = null;
let plainSynthetic: PlainRun | null = null;
if (PROSE > 0) {
  const more = Math.max(200, Math.floor(PROSE / 2));
  process.stdout.write(`\ningesting ${PROSE} real-text notes, then ${more} more while querying ... `);
  plain = await prose(PROSE, realCorpus);
  if (plain) console.log("done");
  if (PROSE_SYNTHETIC) {
    process.stdout.write(
      `ingesting ${PROSE} synthetic prose passages (secondary row), then ${more} more while querying ... `,
    );
    plainSynthetic = await prose(PROSE, syntheticCorpus);
    console.log("done");
  }
  if (plain || plainSynthetic) {
    console.log(
      "| text | plain-text passages (mean chars) | ingest chunks/s | ingest chars/s | ingest + query together: ingest chunks/s, queries/s | query p50 / p99 ms under ingest | DO bytes/head |",
    );
    console.log("|---|---|---|---|---|---|---|");
    for (const p of [plain, plainSynthetic]) if (p) console.log(plainRow(p));
  }
}
let bundle = "unknown";
try {
  const out = execSync("npm run -s build", { stdio: ["ignore", "pipe", "pipe"] }).toString();
  bundle = /Total Upload: ([^\n]+)/.exec(out)?.[1]?.trim() ?? bundle;
} catch {
  // dry-run unavailable
}
console.log(`\nbundle (wrangler deploy --dry-run): ${bundle}`);
const commit = server.source?.commit ?? gitCommit();
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(
  outFile,
  `${JSON.stringify({ date: new Date().toISOString(), commit, source: server.source ?? null, machine: { cores: cpus().length, node: process.version }, bundle, rows, prose: plain, proseSynthetic: plainSynthetic }, null, 2)}\n`,
);
console.log(`wrote ${outFile}`);
server.stop();
process.exit(0);
