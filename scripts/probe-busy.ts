/**
 * `npx tsx scripts/probe-busy.ts [--passages 5000] [--data ../shared/testdata]`: query latency idle and
 * while real passages are ingested, through a throwaway local server (one client each).
 */
import { PaperGuruClient } from "../src/client";
import { realTextOrSkip } from "./lib/realtext";
import { harnessFetch, startServer } from "./lib/server";

const args = process.argv.slice(2);
const at = args.indexOf("--passages");
const N = at >= 0 ? Number(args[at + 1]) || 5000 : 5000;
const rt = realTextOrSkip(args);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;
const server = await startServer({ fresh: true, snapshot: true });
try {
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `busy-${Date.now().toString(36)}`;
  const pg = admin.withKey((await admin.createArchive({ id, name: "busy" })).key.secret);
  const t0 = performance.now();
  for (let i = 0; i < N; i += 200) await pg.ingest(id, { artifacts: rt.batch(i, i + 200).map(({ parts, ...a }) => a) });
  console.log(`ingest ${N}: ${(N / ((performance.now() - t0) / 1000)).toFixed(0)}/s`);
  const q = async (k: number, kind: "route" | "context") => {
    const s = performance.now();
    const query = rt.questions[k % rt.questions.length] as string;
    if (kind === "route") await pg.route(id, { query, limit: 10 });
    else await pg.context(id, { query, budget_tokens: 1200 });
    return performance.now() - s;
  };
  for (const kind of ["route", "context"] as const) {
    const idle: number[] = [];
    for (let k = 0; k < 60; k++) idle.push(await q(k, kind));
    const busy: number[] = [];
    let going = true;
    const from = N + (kind === "route" ? 0 : 1000);
    const w = (async () => {
      for (let i = from; i < from + 1000; i += 200)
        await pg.ingest(id, { artifacts: rt.batch(i, i + 200).map(({ parts, ...a }) => a) });
      going = false;
    })();
    for (let k = 0; going; k++) busy.push(await q(k, kind));
    await w;
    console.log(
      `${kind}: idle p50 ${pct(idle, 50).toFixed(0)} p99 ${pct(idle, 99).toFixed(0)} ms; busy p50 ${pct(busy, 50).toFixed(0)} p99 ${pct(busy, 99).toFixed(0)} max ${Math.max(...busy).toFixed(0)} ms (${busy.length} queries)`,
    );
  }
} finally {
  server.stop();
}
