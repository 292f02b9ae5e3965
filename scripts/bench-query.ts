/**
 * `npx tsx scripts/bench-query.ts [--heads 10000] [--queries 120] [--ref main] [--out file]`: query
 * latency through a throwaway local Worker on plain text. Ingests `--heads` encyclopedia-style
 * passages (scripts/lib/prose.ts; id, kind, title, content only) in batches of 200, then asks
 * `--queries` questions one at a time to /route (limit 16) and to /context (budget 1,200 tokens), after
 * 10 warm-up queries of each. Reports client p50/p99, the p50 of each server phase (the responses'
 * trace.timings_ms) and the floor under them (/healthz, and an authorised /route refused with a
 * 400). `--ref` runs the Worker from that commit's tree instead of the working tree.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { PaperGuruClient } from "../src/client";
import { proseCorpus } from "./lib/prose";
import { harnessFetch, startServer } from "./lib/server";

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const HEADS = Number(arg("heads") ?? 10_000);
const QUERIES = Number(arg("queries") ?? 120);
const ref = arg("ref");
const outFile = arg("out");

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

const server = await startServer({ fresh: true, snapshot: ref ? { ref } : true });
try {
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `bench-query-${HEADS}-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: `bench query ${HEADS}` });
  const pg = admin.withKey(created.key.secret);
  const corpus = proseCorpus(HEADS, 11);
  const arts = corpus.passages.map((p) => ({ id: p.id, kind: "note" as const, title: p.title, content: p.text }));
  const t0 = performance.now();
  for (let i = 0; i < arts.length; i += 200) await pg.ingest(id, { artifacts: arts.slice(i, i + 200) });
  const ingestS = (performance.now() - t0) / 1000;
  console.log(`${server.source?.commit ?? "?"}: ingested ${HEADS} passages in ${ingestS.toFixed(1)} s`);
  const question = (q: number) => corpus.questions[(q * 7919) % corpus.questions.length] as string;

  async function measure(name: string, ask: (q: string) => Promise<Record<string, number>>) {
    for (let q = 0; q < 10; q++) await ask(question(QUERIES + q));
    const lat: number[] = [];
    const phases = new Map<string, number[]>();
    for (let q = 0; q < QUERIES; q++) {
      const t = performance.now();
      const timings = await ask(question(q));
      lat.push(performance.now() - t);
      for (const [k, v] of Object.entries(timings)) phases.set(k, [...(phases.get(k) ?? []), v]);
    }
    const phaseP50 = Object.fromEntries([...phases].map(([k, v]) => [k, Math.round(pct(v, 50) * 100) / 100]));
    const row = { name, p50: pct(lat, 50), p99: pct(lat, 99), phaseP50 };
    console.log(
      `${name}: p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms; server phases p50 ${JSON.stringify(phaseP50)}`,
    );
    return row;
  }

  // The floor under every query: a request that does nothing (/healthz), and one that is authorised
  // (one D1 key read) and refused by validation (an empty query, 400) before any query work.
  const floor = async (name: string, send: () => Promise<Response>) => {
    const lat: number[] = [];
    for (let q = 0; q < QUERIES + 10; q++) {
      const t = performance.now();
      await (await send()).text();
      if (q >= 10) lat.push(performance.now() - t);
    }
    console.log(`${name}: p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms`);
    return { name, p50: pct(lat, 50), p99: pct(lat, 99) };
  };
  const floors = [
    await floor("healthz", () => harnessFetch(`${server.url}/healthz`)),
    await floor("route 400 (auth + validation)", () =>
      harnessFetch(`${server.url}/v1/archives/${id}/route`, {
        method: "POST",
        headers: { authorization: `Bearer ${created.key.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ query: "" }),
      }),
    ),
  ];
  const route = await measure("route", async (query) => {
    const r = await pg.route(id, { query, limit: 16, include_trace: true });
    return r.trace?.timings_ms as Record<string, number>;
  });
  const context = await measure("context", async (query) => {
    const r = await pg.context(id, { query, budget_tokens: 1200, include_trace: true });
    return r.trace?.timings_ms as Record<string, number>;
  });
  if (outFile) {
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(
      outFile,
      `${JSON.stringify({ date: new Date().toISOString(), source: server.source ?? null, heads: HEADS, queries: QUERIES, ingestS, floors, route, context }, null, 2)}\n`,
    );
  }
} finally {
  server.stop();
}
process.exit(0);
