/**
 * `npx tsx scripts/probe-scale.ts [--passages 30000] [--queries 100]`: the scale probe, run from
 * outside through the public API of a throwaway local Worker: grows one plain-text archive (id,
 * kind, title and content only; scripts/lib/prose.ts) in batches of 200 and reports ingest/s, the
 * capital chunk's bytes per head (its own accounting, GET /v1/archives/{a}), query p50/p99 idle and
 * while a further tenth of the passages is ingested, and the longest wait of a /healthz polled every
 * 50 ms beside two pathological requests (a BibTeX macro bomb; an 84 KB xKG file of 1,981 records).
 * Writes bench/results/probe-latest.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { PaperGuruClient } from "../src/client";
import { proseCorpus } from "./lib/prose";
import { harnessFetch, sourceState, startServer } from "./lib/server";
import { xkgPaper } from "./lib/xkg-fixture";

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) || dflt : dflt;
};
const N = arg("--passages", 30_000);
const Q = arg("--queries", 100);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

const source = sourceState();
const server = await startServer({ fresh: true, snapshot: true });
try {
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `probe-${Date.now().toString(36)}`;
  const pg = admin.withKey((await admin.createArchive({ id, name: "scale probe" })).key.secret);
  const extra = Math.floor(N / 10);
  const corpus = proseCorpus(N + extra, 5);
  const batch = (from: number, to: number) =>
    corpus.passages.slice(from, to).map((p) => ({ id: p.id, kind: "note" as const, title: p.title, content: p.text }));
  const t0 = performance.now();
  for (let i = 0; i < N; i += 200) {
    await pg.ingest(id, { artifacts: batch(i, Math.min(N, i + 200)) });
    if ((i / 200) % 25 === 0) process.stderr.write(`ingested ${i + 200}/${N}\n`);
  }
  const ingestPerSec = N / ((performance.now() - t0) / 1000);
  const query = async (k: number) => {
    const q = corpus.questions[k % corpus.questions.length] as string;
    const s = performance.now();
    if (k % 2 === 0) await pg.route(id, { query: q, limit: 10 });
    else await pg.context(id, { query: q, budget_tokens: 1200 });
    return performance.now() - s;
  };
  const idle: number[] = [];
  for (let k = 0; k < Q; k++) idle.push(await query(k));
  // Queries while a tenth more is ingested.
  const busy: number[] = [];
  let ingesting = true;
  const writer = (async () => {
    for (let i = N; i < N + extra; i += 200) await pg.ingest(id, { artifacts: batch(i, Math.min(N + extra, i + 200)) });
    ingesting = false;
  })();
  for (let k = 0; ingesting; k++) busy.push(await query(k));
  await writer;
  const info = (await admin.request("GET", `/v1/archives/${encodeURIComponent(id)}`)) as {
    stats: {
      capital: { heads: number; bytes_per_head: number; bytes: Record<string, number>; storage_bytes?: number };
    };
  };
  // /healthz beside pathological requests.
  const beside = async (label: string, heavy: () => Promise<unknown>) => {
    let done = false;
    let worst = 0;
    const poll = (async () => {
      while (!done) {
        const s = performance.now();
        await fetch(`${server.url}/healthz`);
        worst = Math.max(worst, performance.now() - s);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const s = performance.now();
    const status = await heavy().then(
      () => 200,
      (e: { status?: number }) => e.status ?? 0,
    );
    const heavyMs = performance.now() - s;
    done = true;
    await poll;
    return { label, status, heavyMs, worstHealthzMs: worst };
  };
  const bombArchive = `probe-bomb-${Date.now().toString(36)}`;
  const bp = admin.withKey((await admin.createArchive({ id: bombArchive, name: "bomb" })).key.secret);
  const bomb = [
    '@string{a0 = "xx"}',
    ...Array.from({ length: 23 }, (_, i) => `@string{a${i + 1} = a${i} # a${i}}`),
    "@article{k, title = a23}",
  ].join("\n");
  const pathological = [
    await beside("BibTeX macro bomb", () =>
      bp.request("POST", `/v1/archives/${bombArchive}/import?format=bibtex&name=bomb.bib`, bomb),
    ),
    await beside("xKG import, 84 KB, 1,981 records", () =>
      bp.request("POST", `/v1/archives/${bombArchive}/import?format=xkg&name=gen.json`, JSON.stringify(xkgPaper(84))),
    ),
  ];
  const out = {
    date: new Date().toISOString(),
    commit: source.commit,
    source,
    machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? "unknown", node: process.version },
    passages: N,
    ingestPerSec,
    heads: info.stats.capital.heads,
    bytesPerHead: info.stats.capital.bytes_per_head,
    storageBytes: info.stats.capital.storage_bytes ?? null,
    idle: { p50: pct(idle, 50), p99: pct(idle, 99), n: idle.length },
    duringIngest: { p50: pct(busy, 50), p99: pct(busy, 99), n: busy.length, passages: extra },
    pathological,
  };
  console.log(JSON.stringify(out, null, 2));
  mkdirSync("bench/results", { recursive: true });
  writeFileSync("bench/results/probe-latest.json", `${JSON.stringify(out, null, 2)}\n`);
} finally {
  server.stop();
}
