/**
 * `PAPERGURU_SERVER_LOG=/tmp/server.log npx tsx scripts/probe-grow.ts [--passages 300000] [--data DIR] [--heap] [--ref COMMIT]`:
 * one archive grown from real passages (scripts/lib/realtext.ts, batches of 200, one client)
 * through a throwaway local Worker until N or the first failed ingest, printing every 5,000 the
 * rate, the longest ingest call and the resident memory of the runtime's processes (workerd,
 * wrangler's node). Written to find why the local server exits on the way to 300k (issue 38, item
 * 7): with the server's log kept, the runtime's own last words say how it ended. `--heap` also
 * polls the Worker isolate's JavaScript heap over DevTools every 200 ms and prints the largest
 * used in each 5,000 (a peak between two batches shows there, not in the resident memory).
 * `--ref` runs the Worker from that commit's tree instead of the working tree.
 */
import { execSync } from "node:child_process";
import { PaperGuruClient } from "../src/client";
import { type DevTools, devtools } from "./lib/devtools";
import { realTextOrSkip } from "./lib/realtext";
import { harnessFetch, startServer } from "./lib/server";

const args = process.argv.slice(2);
const at = args.indexOf("--passages");
const N = at >= 0 ? Number(args[at + 1]) || 300_000 : 300_000;
const rt = realTextOrSkip(args);
const heap = args.includes("--heap");
const inspectorPort = 9300 + Math.floor(Math.random() * 500);
const refAt = args.indexOf("--ref");
const snapshot = refAt >= 0 ? { ref: String(args[refAt + 1]) } : true;
const server = await startServer({ fresh: true, snapshot, ...(heap ? { inspectorPort } : {}) });
let peak = 0;
let dt: DevTools | null = null;
let poll: ReturnType<typeof setInterval> | undefined;
if (heap) {
  dt = await devtools(inspectorPort);
  poll = setInterval(() => {
    void dt?.send("Runtime.getHeapUsage").then((r) => {
      const used = (r as { usedSize?: number } | undefined)?.usedSize ?? 0;
      if (used > peak) peak = used;
    });
  }, 200);
}
const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
const id = `grow-${Date.now().toString(36)}`;
const pg = admin.withKey((await admin.createArchive({ id, name: "grow" })).key.secret);
/** Resident memory of the runtime's processes: the Worker's workerd (it has the inspector), the proxy's, wrangler. */
const rss = () =>
  execSync("ps -eo rss,args --sort=-rss")
    .toString()
    .split("\n")
    .filter((l) => /bin\/workerd|wrangler-dist/.test(l))
    .map((l) => {
      const [kb] = l.trim().split(/\s+/);
      const name = l.includes("wrangler-dist") ? "wrangler" : l.includes("--inspector-addr") ? "worker" : "proxy";
      return `${name} ${Math.round(Number(kb) / 1024)} MB`;
    })
    .join(", ");
const t0 = performance.now();
let last = t0;
let longest = 0;
try {
  for (let i = 0; i < N; i += 200) {
    try {
      const b0 = performance.now();
      await pg.ingest(id, { artifacts: rt.batch(i, Math.min(N, i + 200)).map(({ parts, ...a }) => a) });
      longest = Math.max(longest, performance.now() - b0);
    } catch (e) {
      console.log(
        `ingest failed at ${i} passages after ${((performance.now() - t0) / 1000).toFixed(0)} s: ${String(e).slice(0, 300)}`,
      );
      process.exitCode = 1;
      break;
    }
    if ((i + 200) % 5000 === 0) {
      const now = performance.now();
      const js = heap ? `; JS heap peak ${Math.round(peak / 2 ** 20)} MB` : "";
      console.log(
        `${i + 200} passages, ${(5000 / ((now - last) / 1000)).toFixed(0)}/s, longest batch ${Math.round(longest)} ms; ${rss()}${js}`,
      );
      last = now;
      longest = 0;
      peak = 0;
    }
  }
} finally {
  if (poll) clearInterval(poll);
  dt?.close();
  server.stop();
}
