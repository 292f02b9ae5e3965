/**
 * `npx tsx scripts/probe-xkg-export.ts [--data ../shared/testdata] [--runs 5] [--ref <commit>]`: how
 * long `GET …/export?format=xkg&paper=<id>` takes against the whole `format=xkg` export, on a fresh
 * local Worker holding the 43 released xKG graphs (testdata/xkg/kg, imported as a user does, one
 * POST /import?format=xkg per file). Reports the median of `--runs` timed requests of each, and their
 * ratio (one paper ÷ all). `--ref` measures a commit instead of the working tree. Skips without the
 * data.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { flags, log } from "./lib/args";
import { harnessFetch, startServer } from "./lib/server";

const flag = flags();
const data = flag("--data") ?? "../shared/testdata";
const runs = Number(flag("--runs") ?? 5);
const ref = flag("--ref");
const dir = join(data, "xkg", "kg");
if (!existsSync(dir)) {
  log(`no xKG graphs at ${dir}: skipped`);
  process.exit(0);
}
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort();

const server = await startServer({ fresh: true, snapshot: ref ? { ref } : true });
try {
  const call = async (method: string, path: string, key: string, body?: string) => {
    const type = path === "/v1/archives" ? "application/json" : "text/plain";
    const res = await harnessFetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": type },
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return text;
  };
  const created = JSON.parse(
    await call("POST", "/v1/archives", server.adminKey, JSON.stringify({ id: "xkg", name: "xkg" })),
  ) as { key: { secret: string } };
  const key = created.key.secret;
  for (const f of files)
    await call(
      "POST",
      `/v1/archives/xkg/import?format=xkg&name=${encodeURIComponent(f)}`,
      key,
      readFileSync(join(dir, f), "utf8"),
    );
  const papers = JSON.parse(await call("GET", "/v1/archives/xkg/chunks?boundary=xkg:paper&limit=100", key)) as {
    chunks: Array<{ id: string }>;
  };
  const paper = papers.chunks[Math.floor(papers.chunks.length / 2)]?.id as string;
  const timed = async (path: string) => {
    const ms: number[] = [];
    let bytes = 0;
    await call("GET", path, key); // warm
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      bytes = Buffer.byteLength(await call("GET", path, key));
      ms.push(performance.now() - t0);
    }
    ms.sort((a, b) => a - b);
    return { median_ms: Math.round(ms[Math.floor(ms.length / 2)] ?? 0), bytes };
  };
  const one = await timed(`/v1/archives/xkg/export?format=xkg&paper=${encodeURIComponent(paper)}`);
  const all = await timed("/v1/archives/xkg/export?format=xkg");
  console.log(
    JSON.stringify(
      {
        code: server.source?.commit ?? ref,
        dirty: (server.source?.dirty.length ?? 0) > 0,
        files: files.length,
        paper,
        one,
        all,
        ratio: Math.round((one.median_ms / Math.max(1, all.median_ms)) * 1000) / 1000,
      },
      null,
      2,
    ),
  );
} finally {
  server.stop();
}
