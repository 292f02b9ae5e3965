/**
 * `npx tsx scripts/probe-open.ts [--budget 16777216] [--passages 60000] [--data DIR] [--ref COMMIT]`:
 * what opening a shard costs the write that opens it (issue 38, items 5 and 7). One archive with
 * `params.heap_budget_bytes` = budget grows from real passages (scripts/lib/realtext.ts, batches of
 * 200, one client) through a throwaway local Worker; each batch that opens a shard (the archive's
 * shard count goes up) is reported with its time, the heads before it and the batch times around
 * it, and the CPU profile of that batch: the busiest stretches and the functions they spent their
 * time in (the Worker and its Durable Objects share the isolate locally).
 */
import { PaperGuruClient } from "../src/client";
import { busyStretches, type CpuProfile, devtools } from "./lib/devtools";
import { realTextOrSkip } from "./lib/realtext";
import { harnessFetch, startServer } from "./lib/server";

const args = process.argv.slice(2);
const opt = (name: string, dflt: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) || dflt : dflt;
};
const budget = opt("--budget", 16 * 2 ** 20);
const N = opt("--passages", 60_000);
const refAt = args.indexOf("--ref");
const rt = realTextOrSkip(args);
const inspectorPort = 9300 + Math.floor(Math.random() * 500);
const server = await startServer({
  fresh: true,
  snapshot: refAt >= 0 ? { ref: String(args[refAt + 1]) } : true,
  inspectorPort,
});
const dt = await devtools(inspectorPort);
await dt.send("Profiler.enable");
await dt.send("Profiler.setSamplingInterval", { interval: 1000 });
const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
const id = `open-${Date.now().toString(36)}`;
const pg = admin.withKey(
  (await admin.createArchive({ id, name: "open", params: { heap_budget_bytes: budget } })).key.secret,
);
const shardsOf = async () => {
  const s = (await pg.archive(id)).stats.capital.shards;
  return Array.isArray(s) ? s.length : 1;
};
let shards = await shardsOf();
const times: number[] = [];
try {
  for (let i = 0; i < N; i += 200) {
    await dt.send("Profiler.start");
    const t0 = performance.now();
    await pg.ingest(id, { artifacts: rt.batch(i, Math.min(N, i + 200)).map(({ parts, ...a }) => a) });
    const ms = performance.now() - t0;
    const { profile } = (await dt.send("Profiler.stop")) as { profile: CpuProfile };
    times.push(ms);
    const now = await shardsOf();
    if (now === shards) continue;
    shards = now;
    const around = times.slice(-6, -1).map((t) => Math.round(t));
    console.log(
      `shard ${now - 1} opened by the batch after ${i} passages: ${Math.round(ms)} ms (the 5 batches before: ${around.join(", ")} ms)`,
    );
    for (const s of busyStretches(profile, 2, 12))
      console.log(
        `  busy ${Math.round(s.ms)} ms from ${Math.round(s.startMs)} ms; inclusive: ${s.inclusive
          .map((f) => `${f.fn} ${Math.round(f.ms)}`)
          .join(" | ")}`,
      );
  }
} finally {
  dt.close();
  server.stop();
}
