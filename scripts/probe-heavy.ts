/**
 * `npx tsx scripts/probe-heavy.ts [--only key,key] [--profile] [--data ../shared/testdata] [--export-chunks 10000]`:
 * how long the heaviest requests the API accepts keep other requests waiting, measured from outside
 * on a throwaway local server (wrangler dev runs the Worker and its Durable Objects on one thread,
 * so any long synchronous stretch holds every other request). For each heavy request a /healthz is
 * polled every 50 ms from before the request is sent until its work is over: at least `--settle`
 * ms (default 5,000) after the answer and until the archive's state (GET /v1/archives/{a}: capital
 * chunk and storage counts) has not changed for 3 s, so work left running after the answer
 * (waitUntil, queue consumers, the capital object's rebuilds) is counted too. Reported per request:
 * its status and answer time, the longest single /healthz wait (and when it started, before or
 * after the answer), how long until the state settled.
 *
 * The requests (scripts/lib/heavy-inputs.ts; real text from ../shared/testdata when present): a
 * 500 KB BibTeX file and the largest one a request takes, the macro bomb of scripts/probe-scale.ts,
 * a Markdown paper citing 100,000 references, the largest unarXive JSONL, OpenIE and feed JSON
 * files a request takes, an xKG file of 500 techniques (and one grown with references to the
 * limit), an 80-page PDF, five 2 MiB artifacts in one /ingest, exports of an archive of
 * `--export-chunks` notes in every archive format, and a ProjectGuard render over 2,000 code units.
 *
 * `--ref <commit>` measures that commit instead of the working tree. `--profile` also takes a CPU profile of the isolate over each request (wrangler dev
 * --inspector-port) and reports its longest busy stretches with the functions they spent their time
 * in; `--save-profiles DIR` keeps the raw profiles. Writes bench/results/heavy-latest.json (`--out`).
 */
import { createHmac } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PaperGuruClient, PaperGuruError } from "../src/client";
import { busyStretches, type CpuProfile, type DevTools, devtools } from "./lib/devtools";
import {
  bibtexMacroBomb,
  bibtexOfSize,
  type Corpus,
  densePdf,
  feedFile,
  fits,
  fulltextFile,
  largestFitting,
  loadCorpus,
  markdownWithReferences,
  openieFile,
  projectArtifacts,
  proseOfSize,
  xkgWithReferences,
} from "./lib/heavy-inputs";
import { machine } from "./lib/results";
import { harnessFetch, sourceState, startServer } from "./lib/server";
import { xkgPaper } from "./lib/xkg-fixture";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const only = opt("--only")?.split(",");
const profile = args.includes("--profile");
const saveProfiles = opt("--save-profiles");
const dataDir = opt("--data") ?? "../shared/testdata";
/** Chunks of the archive the exports read: EXPORT_LIMITS.maxChunks, the most an export reads. */
const exportChunks = Number(opt("--export-chunks") ?? 50_000);
/** Notes of the archive whose JSON dump is imported back: ~30 MB of dump, under the 32 MiB body cap. */
const reimportChunks = Number(opt("--reimport-chunks") ?? 24_000);
const settleMs = Number(opt("--settle") ?? 5000);
const outFile = opt("--out") ?? "bench/results/heavy-latest.json";
/** `--ref <commit>`: measure that commit's tree instead of the working tree (a before/after pair). */
const ref = opt("--ref");
/** The state must stay the same this long (after the answer) to count as settled. */
const QUIET_MS = 3000;
/** A /healthz wait longer than this in the quiet window means work is still running. */
const SLOW_MS = 250;
/** Give up waiting for the state to settle this long after the answer. */
const MAX_AFTER_MS = 300_000;
const POLL_MS = 50;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Client = PaperGuruClient;

interface HeavyCase {
  key: string;
  label: string;
  /** Builds the request (inputs, and an archive when the request needs one filled first). */
  prepare: (ctx: Ctx) => Promise<{ archive: string; pg: Client; send: () => Promise<unknown>; size: string }>;
}

interface Ctx {
  admin: Client;
  corpus: Corpus;
  fresh: (name: string) => Promise<{ archive: string; pg: Client }>;
  /** The archive the export cases share, filled (once) to at least `n` (default exportChunks) notes. */
  exportArchive: (n?: number) => Promise<{ archive: string; pg: Client }>;
}

/** Notes [from, to) of real paragraphs. */
function notes(ctx: Ctx, from: number, to: number) {
  return Array.from({ length: to - from }, (_, k) => {
    const p = ctx.corpus.paragraphs[(from + k) % ctx.corpus.paragraphs.length];
    return {
      id: `note:${from + k}`,
      kind: "note" as const,
      title: `${p?.title ?? "Note"} (${from + k})`,
      content: p?.text ?? "",
    };
  });
}

/**
 * Fill an archive with notes [from, to) in batches of 200, then wait until its state has settled
 * (the capital object goes on checkpointing and merging after the answers), so the next request is
 * measured on its own.
 */
async function fill(ctx: Ctx, a: { archive: string; pg: Client }, to: number, from = 0) {
  const t = performance.now();
  for (let i = from; i < to; i += 200)
    await a.pg.ingest(a.archive, { artifacts: notes(ctx, i, Math.min(to, i + 200)) });
  const filled = performance.now();
  await settle(ctx.admin, a.archive);
  process.stderr.write(
    `${a.archive}: ${to - from} notes in ${((filled - t) / 1000).toFixed(0)} s, settled ${((performance.now() - filled) / 1000).toFixed(0)} s later\n`,
  );
}

/** The archive's state (GET /v1/archives/{a}: capital chunk and storage counts) as a string. */
async function archiveState(admin: Client, archive: string): Promise<string> {
  try {
    const info = (await admin.request("GET", `/v1/archives/${encodeURIComponent(archive)}`)) as { stats: unknown };
    return JSON.stringify(info.stats);
  } catch (e) {
    return `error ${e instanceof Error ? e.message : String(e)}`;
  }
}

/** Wait until the state has not changed for QUIET_MS (at most MAX_AFTER_MS). */
async function settle(admin: Client, archive: string): Promise<void> {
  let last = await archiveState(admin, archive);
  let since = performance.now();
  const start = since;
  while (performance.now() - since < QUIET_MS && performance.now() - start < MAX_AFTER_MS) {
    await sleep(1000);
    const h = performance.now();
    await fetch(`${admin.baseUrl}/healthz`, { headers: { connection: "close" } })
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
    const slow = performance.now() - h > SLOW_MS;
    const s = await archiveState(admin, archive);
    if (s !== last || slow) {
      last = s;
      since = performance.now();
    }
  }
}

const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;
const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;

function importCase(
  key: string,
  label: string,
  format: string,
  make: (ctx: Ctx) => string | Promise<string>,
  describe: (text: string) => string = (t) => kb(t.length),
): HeavyCase {
  return {
    key,
    label,
    prepare: async (ctx) => {
      const text = await make(ctx);
      const { archive, pg } = await ctx.fresh(key);
      return {
        archive,
        pg,
        size: describe(text),
        send: () =>
          pg.request("POST", `/v1/archives/${archive}/import?format=${format}&name=${key}`, text, "text/plain"),
      };
    },
  };
}

const CASES: HeavyCase[] = [
  importCase("bibtex-500k", "BibTeX import, 500 KB", "bibtex", (c) => bibtexOfSize(c.corpus, 500_000)),
  importCase("bibtex-limit", "BibTeX import, the largest a request takes", "bibtex", (c) => {
    const best = largestFitting(
      (n) => bibtexOfSize(c.corpus, n * 10_000),
      (t) => fits("bibtex", t),
      50,
      87,
    );
    if (!best) throw new Error("no BibTeX size fits");
    return best.text;
  }),
  importCase("bibtex-bomb", "BibTeX macro bomb (2^24-character @string)", "bibtex", () => bibtexMacroBomb()),
  importCase(
    "markdown-100k-refs",
    "Markdown paper citing 100,000 references",
    "markdown",
    (c) => markdownWithReferences(c.corpus, 100_000),
    (t) => mib(t.length),
  ),
  importCase(
    "fulltext-limit",
    "unarXive JSONL, the most papers a request takes",
    "fulltext",
    (c) => {
      const best = largestFitting(
        (n) => fulltextFile(c.corpus, n),
        (t) => fits("fulltext", t),
        1,
        Math.max(1, c.corpus.fulltextLines.length || 50),
      );
      if (!best) throw new Error("no unarXive prefix fits");
      return best.text;
    },
    (t) => `${mib(t.length)}, ${t.trim().split("\n").length} papers`,
  ),
  importCase(
    "openie-limit",
    "OpenIE results, the largest a request takes",
    "openie",
    (c) => {
      const best = largestFitting(
        (paras) => openieFile(c.corpus, 2000, paras),
        (t) => fits("openie", t),
        1,
        12,
      );
      if (!best) throw new Error("no OpenIE size fits");
      return best.text;
    },
    (t) => `${mib(t.length)}, 2,000 docs`,
  ),
  importCase(
    "json-limit",
    "feed JSON, 2,000 notes, the largest a request takes",
    "json",
    (c) => {
      const best = largestFitting(
        (chars) => feedFile(c.corpus, 2000, chars * 500),
        (t) => fits("json", t),
        1,
        16,
      );
      if (!best) throw new Error("no feed size fits");
      return best.text;
    },
    (t) => mib(t.length),
  ),
  importCase("xkg-500", "xKG import, 500 techniques", "xkg", () => JSON.stringify(xkgPaper(200, 500))),
  importCase(
    "xkg-500-limit",
    "xKG import, 500 techniques and the most references a request stores",
    "xkg",
    (c) => {
      const best = largestFitting(
        (k) => xkgWithReferences(c.corpus, 500, k * 1000),
        (t) => fits("xkg", t),
        1,
        40,
      );
      if (!best) throw new Error("no xKG size fits");
      return best.text;
    },
    (t) => mib(t.length),
  ),
  importCase(
    "xkg-500-27mib",
    "xKG import, 500 techniques and 250,000 references (parsed, then refused: one stored value)",
    "xkg",
    (c) => xkgWithReferences(c.corpus, 500, 250_000),
    (t) => mib(t.length),
  ),
  {
    key: "pdf-80",
    label: "PDF import, 80 dense pages",
    prepare: async (ctx) => {
      const bytes = await densePdf(ctx.corpus, 80);
      const { archive, pg } = await ctx.fresh("pdf-80");
      return {
        archive,
        pg,
        size: mib(bytes.length),
        send: () =>
          pg.request("POST", `/v1/archives/${archive}/import?format=pdf&name=dense.pdf`, bytes, "application/pdf"),
      };
    },
  },
  {
    key: "prose-5x2mib",
    label: "/ingest of five 2 MiB prose artifacts",
    prepare: async (ctx) => {
      const artifacts = Array.from({ length: 5 }, (_, i) => ({
        id: `long:${i}`,
        kind: "note" as const,
        title: `Long notes ${i}`,
        content: proseOfSize(ctx.corpus, 2 * 1024 * 1024, i * 997),
      }));
      const { archive, pg } = await ctx.fresh("prose");
      return { archive, pg, size: "5 x 2 MiB", send: () => pg.ingest(archive, { artifacts }) };
    },
  },
  {
    key: "ingest-to-50k",
    label: "the last /ingest of 200 notes into the export archive, until the archive settles",
    prepare: async (ctx) => {
      const a = await ctx.exportArchive(exportChunks - 200);
      return {
        ...a,
        size: `${exportChunks - 200} notes before`,
        send: () => a.pg.ingest(a.archive, { artifacts: notes(ctx, exportChunks - 200, exportChunks) }),
      };
    },
  },
  ...(["json", "csv", "markdown", "html", "graphml"] as const).map(
    (format): HeavyCase => ({
      key: `export-${format}`,
      label: `export format=${format}`,
      prepare: async (ctx) => {
        const { archive, pg } = await ctx.exportArchive();
        return { archive, pg, size: `${exportChunks} notes`, send: () => pg.export(archive, { format }) };
      },
    }),
  ),
  {
    key: "archive-reimport",
    label: "import of the JSON dump of the export archive (format=archive)",
    prepare: async (ctx) => {
      const src = await ctx.fresh("dump-source");
      await fill(ctx, src, reimportChunks);
      const dump = await src.pg.export(src.archive, { format: "json" });
      const { archive, pg } = await ctx.fresh("reimport");
      return {
        archive,
        pg,
        size: `${mib(dump.length)}, ${reimportChunks} notes`,
        send: () =>
          pg.request("POST", `/v1/archives/${archive}/import?format=archive&name=dump.json`, dump, "text/plain"),
      };
    },
  },
  {
    key: "webhook-feed",
    label: "signed webhook delivery of a 2,000-note feed (applied by the queue consumer after the 202)",
    prepare: async (ctx) => {
      const { archive, pg } = await ctx.fresh("webhook");
      const hook = (await ctx.admin.request("PUT", `/v1/archives/${archive}/webhooks/feed`, { kind: "generic" })) as {
        secret: string;
      };
      const body = feedFile(ctx.corpus, 2000, 3000);
      const ts = String(Math.floor(Date.now() / 1000));
      const sig = createHmac("sha256", hook.secret).update(`${ts}.${body}`).digest("hex");
      return {
        archive,
        pg,
        size: mib(body.length),
        send: async () => {
          const res = await harnessFetch(`${pg.baseUrl}/v1/archives/${archive}/webhooks/feed`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-paperguru-timestamp": ts,
              "x-paperguru-signature": `sha256=${sig}`,
              "x-paperguru-delivery": `probe-${ts}`,
            },
            body,
          });
          const text = await res.text();
          if (!res.ok) throw new PaperGuruError(res.status, JSON.parse(text));
          return text;
        },
      };
    },
  },
  {
    key: "render-2000",
    label: "ProjectGuard render over 2,000 code units",
    prepare: async (ctx) => {
      const { archive, pg } = await ctx.fresh("render");
      const artifacts = projectArtifacts(2000);
      for (let i = 0; i < artifacts.length; i += 200)
        await pg.ingest(archive, { artifacts: artifacts.slice(i, i + 200) });
      for (const a of artifacts.filter((x) => x.kind !== "code_unit"))
        await pg.annotate(archive, a.id, { key: "status", value: "committed", at: "2024-01-02" });
      return {
        archive,
        pg,
        size: "2,000 code units, 40 records",
        send: () => pg.request("POST", `/v1/archives/${archive}/render`, { budget_tokens: 200_000 }),
      };
    },
  },
];

interface Poll {
  /** ms from the request's send. */
  at: number;
  ms: number;
  ok: boolean;
}

interface Outcome {
  key: string;
  label: string;
  size: string;
  status: number;
  error: string | null;
  answerMs: number;
  worstHealthzMs: number;
  /** When the worst wait started, ms from the send. */
  worstAtMs: number;
  worstBeforeAnswerMs: number;
  worstAfterAnswerMs: number;
  polls: number;
  failedPolls: number;
  /** ms from the send until the archive's state last changed. */
  lastChangeMs: number;
  settled: boolean;
  profile?: ReturnType<typeof busyStretches>;
}

async function measure(
  url: string,
  c: HeavyCase,
  r: Awaited<ReturnType<HeavyCase["prepare"]>>,
  admin: Client,
  dt: DevTools | null,
): Promise<Outcome> {
  const state = () => archiveState(admin, r.archive);
  const before = await state();
  if (dt) {
    await dt.send("Profiler.enable");
    await dt.send("Profiler.setSamplingInterval", { interval: 500 });
    await dt.send("Profiler.start");
  }
  const polls: Poll[] = [];
  let stop = false;
  const t0 = performance.now();
  let pollStarted: number | null = null;
  const poller = (async () => {
    while (!stop) {
      const s = performance.now();
      pollStarted = s;
      let ok = false;
      try {
        const res = await fetch(`${url}/healthz`, { headers: { connection: "close" } });
        await res.arrayBuffer();
        ok = res.ok;
      } catch {
        ok = false;
      }
      polls.push({ at: s - t0, ms: performance.now() - s, ok });
      pollStarted = null;
      await sleep(POLL_MS);
    }
  })();
  await sleep(200);
  const sent = performance.now();
  let status = 200;
  let error: string | null = null;
  try {
    await r.send();
  } catch (e) {
    status = e instanceof PaperGuruError ? e.status : 0;
    error =
      e instanceof PaperGuruError
        ? (e.body.error?.message ?? "").slice(0, 300)
        : String(e instanceof Error ? e.message : e);
  }
  const answered = performance.now();
  const answerMs = answered - sent;
  let last = before;
  let lastChange = sent;
  let settled = false;
  for (;;) {
    const s = await state();
    const now = performance.now();
    if (s !== last) {
      last = s;
      lastChange = now;
    }
    // Quiet: no change of state, and no slow /healthz (answered or still waiting) for QUIET_MS.
    const slowSince = polls.reduce((m, p) => (p.ms > SLOW_MS ? Math.max(m, t0 + p.at + p.ms) : m), 0);
    const waiting = pollStarted !== null && now - pollStarted > SLOW_MS ? now : 0;
    if (now - answered >= settleMs && now - Math.max(lastChange, answered, slowSince, waiting) >= QUIET_MS) {
      settled = true;
      break;
    }
    if (now - answered > MAX_AFTER_MS) break;
    await sleep(1000);
  }
  stop = true;
  await poller;
  let prof: ReturnType<typeof busyStretches> | undefined;
  if (dt) {
    const { profile: p } = (await dt.send("Profiler.stop")) as { profile: CpuProfile };
    if (saveProfiles) {
      mkdirSync(saveProfiles, { recursive: true });
      writeFileSync(join(saveProfiles, `${c.key}.cpuprofile`), JSON.stringify(p));
    }
    prof = busyStretches(p, 3, 12);
  }
  const rel = polls.map((p) => ({ ...p, at: p.at - (sent - t0) }));
  const worst = rel.reduce((w, p) => (p.ms > w.ms ? p : w), { at: 0, ms: 0, ok: true });
  const max = (xs: Poll[]) => xs.reduce((m, p) => Math.max(m, p.ms), 0);
  return {
    key: c.key,
    label: c.label,
    size: r.size,
    status,
    error,
    answerMs: Math.round(answerMs),
    worstHealthzMs: Math.round(worst.ms),
    worstAtMs: Math.round(worst.at),
    worstBeforeAnswerMs: Math.round(max(rel.filter((p) => p.at < answerMs))),
    worstAfterAnswerMs: Math.round(max(rel.filter((p) => p.at >= answerMs))),
    polls: polls.length,
    failedPolls: polls.filter((p) => !p.ok).length,
    lastChangeMs: Math.round(lastChange - sent),
    settled,
    ...(prof ? { profile: prof } : {}),
  };
}

async function main() {
  const source = ref ? { commit: ref, dirty: [], dirtyHash: null } : sourceState();
  const corpus = loadCorpus(dataDir);
  process.stderr.write(`inputs: ${corpus.real ? `real text from ${dataDir}` : "generated text"}\n`);
  const inspectorPort = profile ? 40000 + Math.floor(Math.random() * 5000) : undefined;
  const server = await startServer({
    fresh: true,
    snapshot: ref ? { ref } : true,
    ...(inspectorPort ? { inspectorPort } : {}),
  });
  const dt = inspectorPort ? await devtools(inspectorPort) : null;
  const results: Outcome[] = [];
  try {
    const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
    const stamp = Date.now().toString(36);
    const fresh = async (name: string) => {
      const archive = `heavy-${name}-${stamp}`.toLowerCase().replace(/[^a-z0-9-]/g, "-");
      const created = await admin.createArchive({ id: archive, name });
      return { archive, pg: admin.withKey(created.key.secret) };
    };
    let exp: { archive: string; pg: Client; notes: number } | null = null;
    const exportArchive = async (n = exportChunks) => {
      if (!exp) exp = { ...(await fresh("export")), notes: 0 };
      if (exp.notes < n) {
        await fill(ctx, exp, n, exp.notes);
        exp.notes = n;
      }
      return exp;
    };
    const ctx: Ctx = { admin, corpus, fresh, exportArchive };
    for (const c of CASES) {
      if (only && !only.includes(c.key)) continue;
      process.stderr.write(`${c.key}: preparing\n`);
      const r = await c.prepare(ctx);
      const o = await measure(server.url, c, r, admin, dt);
      results.push(o);
      process.stderr.write(
        `${c.key} (${o.size}): ${o.status} in ${(o.answerMs / 1000).toFixed(1)} s; worst /healthz ${(o.worstHealthzMs / 1000).toFixed(2)} s at +${(o.worstAtMs / 1000).toFixed(1)} s (before answer ${(o.worstBeforeAnswerMs / 1000).toFixed(2)}, after ${(o.worstAfterAnswerMs / 1000).toFixed(2)}); state last changed +${(o.lastChangeMs / 1000).toFixed(1)} s${o.settled ? "" : " (not settled)"}${o.error ? `; ${o.error.slice(0, 120)}` : ""}\n`,
      );
      if (o.profile)
        for (const s of o.profile.slice(0, 1))
          process.stderr.write(
            `  longest busy stretch ${s.ms} ms at +${s.startMs} ms: ${s.self
              .slice(0, 6)
              .map((f) => `${f.fn} ${f.ms}`)
              .join("; ")}\n`,
          );
    }
  } finally {
    dt?.close();
    server.stop();
  }
  const out = {
    date: new Date().toISOString(),
    commit: source.commit,
    source,
    machine: machine(),
    inputs: corpus.real ? `real text (${dataDir})` : "generated",
    pollMs: POLL_MS,
    limitMs: 1000,
    worstHealthzMs: results.reduce((m, r) => Math.max(m, r.worstHealthzMs), 0),
    results,
  };
  console.log(JSON.stringify(out, null, 2));
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(out, null, 2)}\n`);
}

await main();
