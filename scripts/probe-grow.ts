/**
 * `PAPERGURU_SERVER_LOG=/tmp/server.log npx tsx scripts/probe-grow.ts [--passages 300000] [--data DIR]`:
 * one archive grown from real passages (scripts/lib/realtext.ts, batches of 200, one client)
 * through a throwaway local Worker until N or the first failed ingest, printing every 5,000 the
 * rate and the resident memory of the runtime's processes (workerd, wrangler's node). Written to
 * find why the local server exits on the way to 300k (issue 38, item 7): with the server's log
 * kept, the runtime's own last words say how it ended.
 */
import { execSync } from "node:child_process";
import { PaperGuruClient } from "../src/client";
import { realTextOrSkip } from "./lib/realtext";
import { harnessFetch, startServer } from "./lib/server";

const args = process.argv.slice(2);
const at = args.indexOf("--passages");
const N = at >= 0 ? Number(args[at + 1]) || 300_000 : 300_000;
const rt = realTextOrSkip(args);
const server = await startServer({ fresh: true, snapshot: true });
const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
const id = `grow-${Date.now().toString(36)}`;
const pg = admin.withKey((await admin.createArchive({ id, name: "grow" })).key.secret);
const rss = () =>
  execSync("ps -eo rss,comm --sort=-rss")
    .toString()
    .split("\n")
    .filter((l) => /workerd|node/.test(l))
    .slice(0, 3)
    .map((l) => {
      const [kb, name] = l.trim().split(/\s+/);
      return `${name} ${Math.round(Number(kb) / 1024)} MB`;
    })
    .join(", ");
const t0 = performance.now();
let last = t0;
try {
  for (let i = 0; i < N; i += 200) {
    try {
      await pg.ingest(id, { artifacts: rt.batch(i, Math.min(N, i + 200)).map(({ parts, ...a }) => a) });
    } catch (e) {
      console.log(
        `ingest failed at ${i} passages after ${((performance.now() - t0) / 1000).toFixed(0)} s: ${String(e).slice(0, 300)}`,
      );
      process.exitCode = 1;
      break;
    }
    if ((i + 200) % 5000 === 0) {
      const now = performance.now();
      console.log(`${i + 200} passages, ${(5000 / ((now - last) / 1000)).toFixed(0)}/s; ${rss()}`);
      last = now;
    }
  }
} finally {
  server.stop();
}
