/**
 * `npx tsx scripts/profile-ingest.ts [--passages 4000] [--data ../shared/testdata] [--synthetic]`: where an ingest batch's time goes, from a
 * CPU profile of the Worker's isolate (which also runs its Durable Objects) taken through the
 * DevTools protocol of a throwaway local server (`wrangler dev --inspector-port`). Plain-text
 * passages (scripts/lib/prose.ts: id, kind, title and content) in batches of 200, one batch at a
 * time after a first unprofiled one. Each sample goes to the nearest enclosing phase below; time
 * the isolate spends waiting (on the local D1 and R2, which answer from other threads) is "idle".
 * `--save <file>` keeps the raw profile. Writes bench/results/ingest-profile-latest.json (`npm run report` puts it into docs/performance.md).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import WebSocket from "ws";
import { PaperGuruClient } from "../src/client";
import { proseCorpus } from "./lib/prose";
import { realTextOrSkip } from "./lib/realtext";
import { machine } from "./lib/results";
import { harnessFetch, sourceState, startServer } from "./lib/server";

const args = process.argv.slice(2);
const at = args.indexOf("--passages");
const N = at >= 0 ? Number(args[at + 1]) || 4000 : 4000;
const BATCH = 200;
/** `--save <file>`: also keep the raw profile (open it in DevTools' Performance panel). */
const saveAt = args.indexOf("--save");
const save = saveAt >= 0 ? args[saveAt + 1] : undefined;
/** `--warm N`: ingest N passages unprofiled first, to profile a batch into a grown archive. */
const warmAt = args.indexOf("--warm");
const WARM = warmAt >= 0 ? Number(args[warmAt + 1]) || 0 : 0;
/** `--budget BYTES`: the archive's params.heap_budget_bytes (a small one spreads it over shards). */
const budgetAt = args.indexOf("--budget");
const BUDGET = budgetAt >= 0 ? Number(args[budgetAt + 1]) || undefined : undefined;
/** `--synthetic`: the secondary row, on scripts/lib/prose.ts instead of real text. */
const synthetic = args.includes("--synthetic");
const real = realTextOrSkip(args);

/** Phases by the function that encloses a sample, nearest first (names as the bundle keeps them). */
const PHASES: Array<[string, string[]]> = [
  ["capital object: checkpoint", ["#checkpoint"]],
  ["capital object: derived edges in D1", ["#derivedFor", "#writeDerived"]],
  ["capital object: apply the batch", ["#replayNow"]],
  ["planning: names and grounding", ["analyse"]],
  ["planning: lexical terms", ["docTerms"]],
  ["planning: the rest (hashes, plan)", ["planIngest"]],
  ["validation and normalisation", ["prepareBatch"]],
  ["embedding and sketches", ["embed", "simhash"]],
  ["D1 statements", ["executePlan", "loadExisting"]],
  ["R2 pack", ["putPack"]],
  ["waiting (idle)", ["(idle)"]],
  ["garbage collection", ["(garbage collector)"]],
];
const OTHER = "request parsing, routing and the rest";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Milliseconds per phase: each sample to the nearest enclosing phase's function. */
export function phases(p: Profile): Record<string, number> {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const phaseOf = new Map<string, string>();
  for (const [label, fns] of PHASES) for (const f of fns) phaseOf.set(f, label);
  const out: Record<string, number> = {};
  for (const [label] of PHASES) out[label] = 0;
  out[OTHER] = 0;
  for (const [k, id] of p.samples.entries()) {
    let label = OTHER;
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
      const hit = phaseOf.get(byId.get(x)?.callFrame.functionName ?? "");
      if (hit) {
        label = hit;
        break;
      }
    }
    out[label] = (out[label] ?? 0) + (p.timeDeltas[k] ?? 0) / 1000;
  }
  return out;
}

export async function devtools(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no DevTools target on port ${port}`);
  const ws = new WebSocket(url.replace("localhost", "127.0.0.1"));
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  let next = 0;
  const pending = new Map<number, (v: unknown) => void>();
  ws.on("message", (m) => {
    const d = JSON.parse(String(m)) as { id?: number; result?: unknown };
    if (d.id !== undefined) pending.get(d.id)?.(d.result);
    if (d.id !== undefined) pending.delete(d.id);
  });
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

async function main() {
  const source = sourceState();
  const inspectorPort = 40000 + Math.floor(Math.random() * 5000);
  const server = await startServer({ fresh: true, snapshot: true, inspectorPort });
  try {
    const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
    const id = `profile-${Date.now().toString(36)}`;
    const params = BUDGET ? { heap_budget_bytes: BUDGET } : undefined;
    const pg = admin.withKey((await admin.createArchive({ id, name: "ingest profile", params })).key.secret);
    const prose = synthetic ? proseCorpus(WARM + N + BATCH, 5) : undefined;
    const batch = (from: number) =>
      prose
        ? prose.passages
            .slice(from, from + BATCH)
            .map((p) => ({ id: p.id, kind: "note" as const, title: p.title, content: p.text }))
        : real.batch(from, from + BATCH).map(({ id, kind, title, content }) => ({ id, kind, title, content }));
    const sample = batch(0);
    for (let i = BATCH; i < WARM + BATCH; i += BATCH) await pg.ingest(id, { artifacts: batch(i) });
    await pg.ingest(id, { artifacts: sample });
    const dt = await devtools(inspectorPort);
    await dt.send("Profiler.enable");
    await dt.send("Profiler.setSamplingInterval", { interval: 200 });
    await dt.send("Profiler.start");
    const t0 = performance.now();
    let batches = 0;
    for (let i = WARM + BATCH; i < WARM + N + BATCH; i += BATCH, batches++)
      await pg.ingest(id, { artifacts: batch(i) });
    const seconds = (performance.now() - t0) / 1000;
    const { profile } = (await dt.send("Profiler.stop")) as { profile: Profile };
    dt.close();
    if (save) writeFileSync(save, JSON.stringify(profile));
    const ms = phases(profile);
    const perBatch = Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, v / batches]));
    const out = {
      date: new Date().toISOString(),
      commit: source.commit,
      source,
      machine: machine(),
      passages: N,
      warm: WARM,
      batch: BATCH,
      text: synthetic ? "synthetic prose (scripts/lib/prose.ts)" : "real text (scripts/lib/realtext.ts)",
      meanChars: sample.reduce((s, p) => s + p.content.length, 0) / sample.length,
      heapBudgetBytes: BUDGET ?? null,
      shards: ((await pg.archive(id)).stats as { capital?: { shards?: unknown[] } }).capital?.shards?.length ?? 1,
      passagesPerSec: N / seconds,
      wallMsPerBatch: (seconds * 1000) / batches,
      profiledMsPerBatch: Object.values(perBatch).reduce((s, v) => s + v, 0),
      msPerBatch: perBatch,
    };
    console.log(JSON.stringify(out, null, 2));
    mkdirSync("bench/results", { recursive: true });
    // A budget run is a side measurement: it does not replace the profile docs/performance.md shows.
    const file = BUDGET ? "ingest-profile-budget-latest.json" : "ingest-profile-latest.json";
    writeFileSync(`bench/results/${file}`, `${JSON.stringify(out, null, 2)}\n`);
  } finally {
    server.stop();
  }
}

if (process.argv[1]?.endsWith("profile-ingest.ts")) await main();
