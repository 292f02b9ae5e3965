/**
 * `npx tsx scripts/profile-query.ts [--passages 5000] [--queries 100] [--kind route|context] [--budget BYTES]`: where a
 * query's time goes, from a CPU profile of the local Worker's isolate (its Durable Objects included)
 * over an archive of real passages (scripts/lib/realtext.ts). Prints the functions with the most
 * time, inclusive, per query, and the wall time per query. `--budget` sets the archive's
 * params.heap_budget_bytes (1310720 spreads 10,000 passages over about 4 shards).
 */
import { writeFileSync } from "node:fs";
import { PaperGuruClient } from "../src/client";
import { realTextOrSkip } from "./lib/realtext";
import { harnessFetch, startServer } from "./lib/server";
import { devtools } from "./profile-ingest";

const args = process.argv.slice(2);
const arg = (n: string, d: string) => (args.indexOf(n) >= 0 ? (args[args.indexOf(n) + 1] ?? d) : d);
const N = Number(arg("--passages", "5000"));
const Q = Number(arg("--queries", "100"));
const kind = arg("--kind", "route");
const budget = Number(arg("--budget", "0")) || undefined;
const rt = realTextOrSkip(args);
const inspectorPort = 40000 + Math.floor(Math.random() * 5000);
const server = await startServer({ fresh: true, snapshot: true, inspectorPort });
try {
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `pq-${Date.now().toString(36)}`;
  const pg = admin.withKey(
    (
      await admin.createArchive({
        id,
        name: "query profile",
        ...(budget ? { params: { heap_budget_bytes: budget } } : {}),
      })
    ).key.secret,
  );
  for (let i = 0; i < N; i += 200) await pg.ingest(id, { artifacts: rt.batch(i, i + 200).map(({ parts, ...a }) => a) });
  const ask = (k: number) => {
    const query = rt.questions[k % rt.questions.length] as string;
    return kind === "route" ? pg.route(id, { query, limit: 10 }) : pg.context(id, { query, budget_tokens: 1200 });
  };
  for (let k = 0; k < 20; k++) await ask(k);
  const dt = await devtools(inspectorPort);
  await dt.send("Profiler.enable");
  await dt.send("Profiler.setSamplingInterval", { interval: 100 });
  await dt.send("Profiler.start");
  const t0 = performance.now();
  for (let k = 0; k < Q; k++) await ask(k);
  const wall = (performance.now() - t0) / Q;
  const { profile } = (await dt.send("Profiler.stop")) as {
    profile: {
      nodes: Array<{
        id: number;
        callFrame: { functionName: string; url: string; lineNumber: number };
        children?: number[];
      }>;
      samples: number[];
      timeDeltas: number[];
    };
  };
  dt.close();
  if (args.includes("--save")) writeFileSync(arg("--save", "/tmp/query-profile.json"), JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const total = new Map<string, number>();
  const self = new Map<string, number>();
  const name = (id: number) => {
    const f = byId.get(id)?.callFrame;
    return `${f?.functionName || "(anon)"}:${f?.lineNumber ?? 0}`;
  };
  for (const [k, id] of profile.samples.entries()) {
    const dtm = (profile.timeDeltas[k] ?? 0) / 1000 / Q;
    self.set(name(id), (self.get(name(id)) ?? 0) + dtm);
    const seen = new Set<string>();
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
      const nm = name(x);
      if (seen.has(nm)) continue;
      seen.add(nm);
      total.set(nm, (total.get(nm) ?? 0) + dtm);
    }
  }
  console.log(`${kind} at ${N} heads: ${wall.toFixed(1)} ms per query (wall)`);
  console.log("inclusive ms/query:");
  for (const [k, v] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 45))
    console.log(`${v.toFixed(2).padStart(8)} ${k}`);
  console.log("self ms/query:");
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`${v.toFixed(2).padStart(8)} ${k}`);
} finally {
  server.stop();
}
