/**
 * `npm run bench:e2e [-- --heads 1000,10000]`: end to end through a running Worker (PAPERGURU_URL,
 * default http://127.0.0.1:8787; start it with `npm start`). For each size it creates an archive,
 * bulk-ingests synthetic papers (Zipf entity mentions, preferential-attachment citations) through
 * the public API in batches of 200, then times /route and /context (concurrency 1).
 */
import { readFileSync } from "node:fs";
import { PaperGuruClient } from "../src/client";
import { rng } from "./lib/synthetic";

const url = process.env.PAPERGURU_URL ?? "http://127.0.0.1:8787";
const args = process.argv.slice(2);
const headsArg = args[args.indexOf("--heads") + 1];
const sizes = args.includes("--heads") && headsArg ? headsArg.split(",").map(Number) : [1000, 10000];
const QUERIES = Number(process.env.QUERIES ?? 60);

function adminKey(): string {
  if (process.env.PAPERGURU_ADMIN_KEY) return process.env.PAPERGURU_ADMIN_KEY;
  const m = /^ADMIN_KEY=(.*)$/m.exec(readFileSync(".dev.vars", "utf8"));
  return m?.[1]?.trim() ?? "pg_admin_local_dev_key";
}

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
  const admin = new PaperGuruClient(url, adminKey());
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
  const route: number[] = [];
  const context: number[] = [];
  for (let q = 0; q < QUERIES; q++) {
    const e = Math.floor(nEnt / (1 + r() * nEnt));
    const query = `How is Method ${e} used for ${WORDS[q % WORDS.length]} ${WORDS[(q * 3) % WORDS.length]}?`;
    let t = performance.now();
    await pg.route(id, { query, limit: 16 });
    route.push(performance.now() - t);
    t = performance.now();
    await pg.context(id, { query, budget_tokens: 1200 });
    context.push(performance.now() - t);
  }
  const stats = (await pg.archive(id)).stats.capital;
  return {
    heads: n,
    ingestPerSec: n / ingestS,
    route: { p50: pct(route, 50), p99: pct(route, 99) },
    context: { p50: pct(context, 50), p99: pct(context, 99) },
    bytesPerHead: stats.bytesPerHead as number,
  };
}

const rows = [];
for (const n of sizes) {
  process.stdout.write(`ingesting ${n} heads through ${url} ... `);
  const row = await run(n);
  console.log(`${row.ingestPerSec.toFixed(0)} chunks/s`);
  rows.push(row);
}
console.log("\n| heads | ingest chunks/s | /route p50 / p99 ms | /context p50 / p99 ms | DO bytes/head |");
console.log("|---|---|---|---|---|");
for (const r of rows)
  console.log(
    `| ${r.heads} | ${r.ingestPerSec.toFixed(0)} | ${r.route.p50.toFixed(1)} / ${r.route.p99.toFixed(1)} | ${r.context.p50.toFixed(1)} / ${r.context.p99.toFixed(1)} | ${r.bytesPerHead.toFixed(0)} |`,
  );
