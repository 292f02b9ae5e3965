/**
 * `npm run report [-- --check]`: rewrites the generated tables of README.md and docs/*.md from the
 * results files, so
 * no figure in them is typed by hand or outlives the run that produced it:
 * - bench/results/latest.json (`npm run bench`) -> the block `report:performance`;
 * - bench/results/eval-latest.json (`npm run eval`) -> `report:quality`, `report:targets` and
 *   `report:lifecycle`;
 * - the research-memory sections (`report:research`) from eval-latest.json when it has them, else
 *   from the newest section run in bench/results/eval-sections/ that does.
 * A block is the text between `<!-- report:NAME:start -->` and `<!-- report:NAME:end -->`. Each
 * names the date, commit and machine of its run. `--check` rewrites nothing and exits 1 when
 * a page differs from what the results files give.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import type { HeldOutPool, HeldOutReferences } from "./lib/papers-eval";
import type { EvalResults, EvalSet, MetricRow } from "./lib/results";
import { strongerBm25, targets } from "./lib/results";
import type { PlacementRow } from "./shard-placement";

const args = process.argv.slice(2);
/** The pages whose generated blocks this rewrites (a block lives in whichever page holds its markers). */
const PAGES = [
  "README.md",
  ...readdirSync("docs")
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const BENCH = "bench/results/latest.json";
const EVAL = "bench/results/eval-latest.json";
const EXPLORE = "bench/results/explore-latest.json";
const HEAP = "bench/results/heap-latest.json";
const SHARDS = "bench/results/shards-latest.json";
const EVAL_SHARDED = "bench/results/eval-sharded-latest.json";
const SPLIT_KILL = "bench/results/split-kill-latest.json";
const CV = "bench/results/cv-latest.json";
const ABSTENTION = "bench/results/abstention-latest.json";
const BUDGETS = "bench/results/budgets-latest.json";

interface CvResults {
  date: string;
  commit: string;
  source?: SourceLike | null;
  machine?: { cores: number; cpu?: string; node: string };
  sets: Array<{
    key: string;
    name: string;
    judged: number[];
    questions: number;
    strongestBm25: Record<string, number>;
  }>;
  settings: Array<{
    name: string;
    sets: Record<string, { pg: Record<string, number>; margins: Record<string, number>; mentionsPerQuestion: number }>;
    worst: number;
  }>;
  folds: Array<{ held: string; chosen: string; heldMargin: number }>;
  chosen: string;
  mentionsBefore?: Record<string, number>;
}

/** The cross-validation: per set the chosen setting against the strongest BM25, and per fold the held-out margin. */
function cvBlock(r: CvResults | null): string {
  if (!r) return `_No results file (${CV}); run \`npm run cv -- --data ../shared/testdata\`._`;
  const chosen = r.settings.find((x) => x.name === r.chosen);
  const defaults = r.settings.find((x) => x.name === "defaults");
  const p1 = (x: number | undefined) => (x === undefined ? "–" : (x * 100).toFixed(1));
  const sg = (x: number | undefined) => (x === undefined ? "–" : `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(1)}`);
  const rows = r.sets.map((s) => {
    const c = chosen?.sets[s.key];
    const d = defaults?.sets[s.key];
    return [
      s.name,
      String(s.questions),
      s.judged.map((k) => `R@${k}`).join(", "),
      s.judged.map((k) => p1(s.strongestBm25[`R@${k}`])).join(" / "),
      s.judged.map((k) => p1(d?.pg[`R@${k}`])).join(" / "),
      s.judged.map((k) => sg(d?.margins[`R@${k}`])).join(" / "),
      `${r.mentionsBefore?.[s.key]?.toFixed(2) ?? "–"} → ${d?.mentionsPerQuestion.toFixed(2) ?? "–"}`,
      s.judged.map((k) => sg(c?.margins[`R@${k}`])).join(" / "),
    ];
  });
  const folds = r.folds.map((f) => [
    r.sets.find((s) => s.key === f.held)?.name ?? f.held,
    `\`${f.chosen}\``,
    sg(f.heldMargin),
  ]);
  return [
    runLine(`Last \`npm run cv\` (${r.settings.length} settings)`, r),
    "",
    table(
      [
        "set",
        "questions",
        "judged at",
        "strongest BM25",
        "PaperGuru (defaults)",
        "margin",
        "query entities per question (all grounded names → name_share)",
        `margin of the CV choice \`${r.chosen}\``,
      ],
      rows,
    ),
    "",
    "Leave one set out: the setting with the best worst margin on the other sets, and its margin on the held-out set (worst of its judged cut-offs):",
    "",
    table(["held-out set", "chosen on the others", "held-out margin"], folds),
  ].join("\n");
}

interface SplitKill {
  date: string;
  commit: string;
  passages: number;
  kills: Array<{ batch: number; afterMs: number; requestFinished: boolean; shardsBefore: number }>;
  shards: number;
  headsSharded: number;
  headsPerShardSum: number;
  headsSingle: number;
  queries: number;
  sameAnswers: number;
}

function splitKill(r: SplitKill | null): string {
  if (!r) return `_No results file (${SPLIT_KILL}); run \`npx tsx scripts/probe-split-kill.ts\`._`;
  const mid = r.kills.filter((k) => !k.requestFinished).length;
  return [
    runLine("Last `npx tsx scripts/probe-split-kill.ts`", r),
    "",
    `${int(r.passages)} passages in batches of 40 into an archive with a 64 KiB heap budget and one in a single object; the whole local server was killed (SIGKILL) ${r.kills.length} times during ingests into the first (${mid} of them before the request was answered), ${r.kills.map((k) => `${k.afterMs} ms into batch ${k.batch} with ${k.shardsBefore} shards`).join(", ")}, started again on the same state, and the batch sent again. At the end the first archive spans ${r.shards} shards holding ${int(r.headsPerShardSum)} heads (${int(r.headsSharded)} by its stats, ${int(r.headsSingle)} in the single object), and ${r.sameAnswers} of ${r.queries} \`/route\` answers equal the single object's.`,
  ].join("\n");
}
const GROW = "bench/results/grow-latest.json";

/** scripts/probe-grow.ts: one archive grown through the local Worker, measured at sizes on the way. */
interface GrowResults {
  date: string;
  commit: string;
  source?: SourceLike | null;
  machine?: { cores: number; cpu?: string; node: string };
  passages: number;
  batch: number;
  queries: number;
  milestones: Array<{
    passages: number;
    ingestPerSec: number;
    route: { p50: number | null; p99: number | null };
    context: { p50: number | null; p99: number | null };
    rounds: { median: number | null; max: number | null };
    heads: number;
    shards: Array<{ heads: number }>;
    heapBytesPerHead: number;
    sqliteBytesPerHead: number | null;
    d1BytesPerHead: number;
    rssMb: Record<string, number>;
  }>;
  waitsOver1s: Array<{ passages: number; ms: number }>;
  failed: string | null;
  minutes: number;
}

function growBlock(r: GrowResults | null): string {
  if (!r) return `_No results file (${GROW}); run \`npx tsx scripts/probe-grow.ts\`._`;
  const ms = (x: number | null) => (x === null ? "n/a" : x.toFixed(1));
  const rows = r.milestones.map((m) => [
    int(m.passages),
    int(m.ingestPerSec),
    `${ms(m.route.p50)} / ${ms(m.route.p99)}`,
    `${ms(m.context.p50)} / ${ms(m.context.p99)}`,
    `${m.rounds.median ?? "n/a"} / ${m.rounds.max ?? "n/a"}`,
    String(m.shards.length),
    int(m.heapBytesPerHead),
    m.sqliteBytesPerHead === null ? "n/a" : int(m.sqliteBytesPerHead),
    int(m.d1BytesPerHead),
    int(m.rssMb.worker ?? 0),
  ]);
  const worst = r.waitsOver1s.reduce((a, w) => (w.ms > a.ms ? w : a), { passages: 0, ms: 0 });
  const end = r.failed
    ? `It stopped: ${r.failed}.`
    : `It reached ${int(r.passages)} passages without the server exiting, in ${r.minutes.toFixed(0)} minutes.`;
  return [
    runLine("Last `npx tsx scripts/probe-grow.ts`", r),
    "",
    `One archive grown from real passages (three paragraphs each, \`id\`, \`kind\`, \`title\`, \`content\`) in batches of ${r.batch} by one client through a throwaway local Worker, with the default heap budget, so shards open as they would for a user. At each size ingest stops and ${r.queries} \`/route\` and ${r.queries} \`/context\` calls run one after another on the corpora's questions. Ingest/s is the mean from the start; rounds are the directory's per \`/route\` (1 in one object); bytes per head are the capital chunk's heap and its objects' SQLite (all shards, as the objects report them), and the local D1 files with their WAL. ${end} ${r.waitsOver1s.length} ingest calls took over 1 s${r.waitsOver1s.length ? `, the longest ${int(worst.ms)} ms at ${int(worst.passages)} passages` : ""}.`,
    "",
    table(
      [
        "passages",
        "ingest/s",
        "/route p50 / p99 ms",
        "/context p50 / p99 ms",
        "rounds median / max",
        "shards",
        "heap B/head",
        "SQLite B/head",
        "D1 B/head",
        "Worker RSS MB",
      ],
      rows,
    ),
  ].join("\n");
}

const PLACEMENT = "bench/results/placement-latest.json";
const PROBE = "bench/results/probe-latest.json";

interface ProbeStat {
  p50: number;
  p99: number;
  n: number;
}

/** scripts/probe-scale.ts (issue 38's probe; every part optional, as a run stopped early writes what it measured). */
interface ProbeResults {
  date: string;
  commit: string;
  source?: SourceLike | null;
  machine?: { cores: number; cpu?: string; node: string };
  args: { passages: number; sharded: number; queries: number; synthetic: boolean; batch: number };
  text: { label: string; synthetic: boolean; sources: Record<string, number>; meanChars: number };
  ingest?: {
    passages: number;
    answeredPerSec: number;
    sustainedPerSec: number;
    derived: { method: string; waitedMs: number };
    segments: Array<{ from: number; to: number; passagesPerSec: number }>;
    firstM: { passages: number; passagesPerSec: number };
  };
  baselines?: {
    fts5: { passagesPerSec: number };
    fts5Memory: { passagesPerSec: number };
    wink: { passagesPerSec: number };
    ratios: { fts5: number; fts5Memory: number; wink: number };
  };
  capital?: { heads: number | null; bytesPerHead: number | null; storageBytes: number | null; shards: number | null };
  queries?: {
    idle: { route: ProbeStat; context: ProbeStat };
    busy: { route: ProbeStat; context: ProbeStat; passages: number; ingestPerSec: number };
    ratios: { routeP99: number | null; contextP99: number | null };
  };
  knownItem?: { probes: number; hits: number; recall: number };
  cold?: { heads: number; firstRouteMs: number | null; nextRouteMs: number | null; rebuild: { ms?: number } | null };
  sharded?: {
    passages: number;
    heapBudgetBytes: number;
    shards: number | null;
    ingestPerSec: number;
    ingestRatio: number | null;
    ingestRatioBasis: string;
    oneShardArchive: { ingestPerSec: number; shards: number | null };
    route: { sharded: ProbeStat; oneShard: ProbeStat };
    routeP50Ratio: number | null;
    perShard?: Array<{ heads: number; bytes: number }>;
    serverCpuMsPerPassage?: { sharded: number | null; oneShard: number | null };
    ingestWorkRatio?: number | null;
  };
  heavy?: Array<{
    label: string;
    expected: string;
    status: number;
    message: string | null;
    heavyMs: number;
    worstHealthzMs: number;
  }>;
  errors: { count: number; byPhase: Record<string, number>; runtimeRestarts: number };
  aborted: string | null;
  judged?: Array<{ key: string; label: string; value: number | null; limit: number; op: string; met: boolean }>;
  allTargetsMet?: boolean;
}

function probe(p: ProbeResults | null): string {
  if (!p) return `_No results file (${PROBE}); run \`npx tsx scripts/probe-scale.ts\`._`;
  if (!p.judged)
    return `_${PROBE} is from before the probe of issue 38 (commit \`${p.commit}\`); run \`npx tsx scripts/probe-scale.ts\`._`;
  const x = (v: number | null | undefined, d = 2) => (v === null || v === undefined ? "–" : `${v.toFixed(d)}×`);
  const msOr = (v: number | null | undefined) => (v === null || v === undefined ? "–" : ms(v));
  const shards = (n: number | null) => (n === null ? "– shards" : n === 1 ? "1 shard" : `${n} shards`);
  const lat = (s: ProbeStat | undefined) => (s ? `${ms(s.p50)} / ${ms(s.p99)} (${s.n})` : "–");
  const a = p.args;
  const sources = Object.entries(p.text.sources)
    .map(([k, n]) => `${k} ${int(n)}`)
    .join(", ");
  const target = (j: NonNullable<ProbeResults["judged"]>[number]) => {
    const unit = (v: number) =>
      j.key === "knownItemRecall"
        ? `${pct(v)}%`
        : j.key === "noErrors"
          ? String(v)
          : ["routeP50", "contextP50", "healthzWorst"].includes(j.key)
            ? `${ms(v)} ms`
            : `${v.toFixed(2)}×`;
    const op = j.op === "<=" ? "≤" : "≥";
    return [j.label, j.value === null ? "–" : unit(j.value), `${op} ${unit(j.limit)}`, j.met ? "met" : "**missed**"];
  };
  const i = p.ingest;
  const b = p.baselines;
  const q = p.queries;
  const sh = p.sharded;
  const figures: string[][] = [];
  if (i && b)
    figures.push(
      [
        `ingest, one shard, to ${int(i.passages)} passages (batches of ${a.batch}, one client)`,
        `${int(i.sustainedPerSec)} passages/s sustained (${int(i.answeredPerSec)} to the last answer; ${i.derived.method})`,
      ],
      [
        "ingest per 10,000-passage segment",
        i.segments.map((g) => `${int(g.from)}-${int(g.to)}: ${int(g.passagesPerSec)}/s`).join(", "),
      ],
      [
        "the same artifacts in process: SQLite FTS5 (porter; file, in memory), wink-bm25-text-search",
        `${int(b.fts5.passagesPerSec)}, ${int(b.fts5Memory.passagesPerSec)}, ${int(b.wink.passagesPerSec)} passages/s`,
      ],
      [
        "PaperGuru ÷ FTS5 (file, memory), ÷ wink",
        `${x(b.ratios.fts5, 3)}, ${x(b.ratios.fts5Memory, 3)}, ${x(b.ratios.wink)}`,
      ],
    );
  if (p.capital)
    figures.push([
      "capital chunk at N",
      `${p.capital.heads === null ? "–" : int(p.capital.heads)} heads, ${p.capital.bytesPerHead === null ? "–" : int(p.capital.bytesPerHead)} B/head by its own accounting, ${shards(p.capital.shards)}${p.capital.storageBytes ? `, ${(p.capital.storageBytes / 1048576).toFixed(1)} MiB of the object's SQLite` : ""}`,
    ]);
  if (q)
    figures.push(
      ["`/route` (limit 10) p50 / p99 ms idle (queries)", lat(q.idle.route)],
      ["`/context` (1,200 tokens) p50 / p99 ms idle (queries)", lat(q.idle.context)],
      [
        `\`/route\`, \`/context\` p50 / p99 ms while ${int(q.busy.passages)} more are ingested (${int(q.busy.ingestPerSec)}/s)`,
        `${lat(q.busy.route)}; ${lat(q.busy.context)}`,
      ],
      ["p99 during ingest ÷ idle: `/route`, `/context`", `${x(q.ratios.routeP99)}, ${x(q.ratios.contextP99)}`],
    );
  if (p.knownItem)
    figures.push([
      "known-item recall@10 of `/route` (a paragraph's first 12 words)",
      `${p.knownItem.hits} / ${p.knownItem.probes}`,
    ]);
  if (p.cold)
    figures.push([
      `first \`/route\` after POST …/admin/evict (${int(p.cold.heads)} heads)`,
      `${msOr(p.cold.firstRouteMs)} ms (rebuild ${msOr(p.cold.rebuild?.ms)} ms; the next ${msOr(p.cold.nextRouteMs)} ms)`,
    ]);
  if (sh)
    figures.push(
      [
        `ingest to ${int(sh.passages)} with a heap budget of ${(sh.heapBudgetBytes / 1048576).toFixed(2)} MiB`,
        `${int(sh.ingestPerSec)} passages/s over ${shards(sh.shards)}; ${x(sh.ingestRatio)} ${sh.ingestRatioBasis} (a one-shard archive of the same: ${int(sh.oneShardArchive.ingestPerSec)}/s)`,
      ],
      [
        `\`/route\` p50 / p99 ms at ${int(sh.passages)}: ${shards(sh.shards)}, one shard`,
        `${lat(sh.route.sharded)}; ${lat(sh.route.oneShard)} (${x(sh.routeP50Ratio)} at p50)`,
      ],
    );
  const cpu = sh?.serverCpuMsPerPassage;
  if (sh && cpu?.sharded && cpu.oneShard)
    figures.push([
      "the server's CPU time per passage over the same ingests, sharded and in one shard (secondary: the work sharding adds, steadier than wall time here)",
      `${cpu.sharded.toFixed(2)} and ${cpu.oneShard.toFixed(2)} ms: the one shard does ${x(sh.ingestWorkRatio ?? null)} of the sharded work`,
    ]);
  figures.push([
    "failed requests (non-2xx or none)",
    `${p.errors.count}${
      p.errors.count
        ? ` (${Object.entries(p.errors.byPhase)
            .map(([k, n]) => `${k}: ${n}`)
            .join(", ")})`
        : ""
    }${p.errors.runtimeRestarts ? `; ${p.errors.runtimeRestarts} resent after a local runtime restart` : ""}`,
  ]);
  const out = [
    runLine("Last `npx tsx scripts/probe-scale.ts`", p),
    "",
    `**Issue 38's probe, from outside through the public API** of a throwaway local server, on ${p.text.label.replace(/ \((.*)\)$/, ", $1")}: notes of ${int(p.text.meanChars)} characters on average (${sources}); ${int(a.passages)} passages into one archive, then ${int(sh?.passages ?? a.sharded)} into an archive forced to shard and into one that is not, ${a.queries} queries per latency figure.${p.aborted ? ` **The run stopped early: ${p.aborted}.**` : ""} Targets ${p.allTargetsMet ? "all met" : `met: ${p.judged.filter((j) => j.met).length} of ${p.judged.length}`}:`,
    "",
    table(["target", "measured", "limit", "result"], p.judged.map(target)),
    "",
    table(["figure", "measured"], figures),
  ];
  if (p.heavy?.length)
    out.push(
      "",
      "The longest wait of a `/healthz` polled every 50 ms beside each heavy request:",
      "",
      table(
        ["request", "answer (expected)", "ms", "longest `/healthz` wait ms"],
        p.heavy.map((h) => [
          h.label,
          `${h.status} (${h.expected})${h.message && !(h.status >= 200 && h.status < 300) ? `: ${h.message.slice(0, 120)}` : ""}`,
          ms(h.heavyMs),
          ms(h.worstHealthzMs),
        ]),
      ),
    );
  return out.join("\n");
}

const INGEST_PROFILE = "bench/results/ingest-profile-latest.json";
const BYTES = "bench/results/bytes-latest.json";

interface BytesResults {
  date: string;
  commit: string;
  source?: SourceLike | null;
  machine?: { cores: number; cpu?: string; node: string };
  heads: number;
  bytesPerHead: {
    d1: number;
    d1Tables: Record<string, number>;
    capitalObject: number;
    capitalObjectReported: number | null;
    capitalHeap: number;
    localVectorIndex: number;
    r2: number;
  };
}

/**
 * The scale plan of docs/sharding.md, computed from measured per-head costs (probe-bytes) and the
 * probe's shards (heap per head of a shard, rounds): objects, D1 databases, Vectorize indexes and
 * R2 per archive size, and which limit binds first.
 */
function scalePlan(b: BytesResults | null, p: ProbeResults | null): string {
  if (!b) return `_No results file (${BYTES}); run \`npx tsx scripts/probe-bytes.ts\`._`;
  const GB = 1e9;
  const bph = b.bytesPerHead;
  const perShard = p?.sharded?.perShard ?? [];
  const shardHeap =
    perShard.length > 0 ? perShard.reduce((a, s) => a + s.bytes, 0) / perShard.reduce((a, s) => a + s.heads, 0) : null;
  // Cloudflare's limits (docs, 2026): 10 GB of SQLite per Durable Object, 10 GB per D1 database
  // (a second database past 60% of it), 5M vectors per Vectorize index, ~1,000 requests/s per object.
  const objectSql = bph.capitalObjectReported ?? bph.capitalObject;
  const d1Heads = (0.6 * 10 * GB) / bph.d1;
  const heapPerShard = (64 * 2 ** 20) / 2;
  const headsPerShard = shardHeap ? heapPerShard / shardHeap : null;
  const objectHeads = (10 * GB) / objectSql;
  const sizes = [1e6, 1e7, 1e8];
  const fmt = (x: number) =>
    x >= 1e9
      ? `${(x / 1e9).toFixed(1)}B`
      : x >= 1e6
        ? `${(x / 1e6).toFixed(1)}M`
        : x >= 1e3
          ? `${(x / 1e3).toFixed(0)}k`
          : x.toFixed(0);
  const rows = sizes.map((n) => [
    fmt(n),
    headsPerShard ? int(Math.ceil(n / headsPerShard)) : "–",
    int(Math.ceil(n / d1Heads)),
    int(Math.ceil(n / 5e6)),
    `${((n * bph.r2) / GB).toFixed(0)} GB`,
    `${((n * objectSql) / GB).toFixed(0)} GB${n * objectSql > 10 * GB ? " (**over 10 GB**)" : ""}`,
  ]);
  const rounds = "at most 4 + steps + hops";
  return [
    runLine("Per-head costs from `npx tsx scripts/probe-bytes.ts`", b),
    "",
    `Measured on ${int(b.heads)} heads of real text through a local Worker (bytes on disk per head): D1 ${int(bph.d1)} B (${Object.entries(
      bph.d1Tables,
    )
      .slice(0, 3)
      .map(([t, v]) => `${t} ${int(v)}`)
      .join(
        ", ",
      )}), the capital object's SQLite ${int(objectSql)} B (${int(bph.capitalObject)} B with its WAL), its heap ${int(bph.capitalHeap)} B (write buffer and caches included${shardHeap ? `; ${int(shardHeap)} B a head in the probe's closed shards` : ""}), R2 ${int(bph.r2)} B, the local vector index ${int(bph.localVectorIndex)} B (Vectorize in production).`,
    "",
    table(
      [
        "heads per archive",
        "shards (heap: half of 64 MiB per shard)",
        "D1 databases (60% of 10 GB each)",
        "Vectorize indexes (5M each)",
        "R2",
        "each object's SQLite today (archive-wide tables on every shard)",
      ],
      rows,
    ),
    "",
    `- **Limits in the order an archive meets them:** ${[
      {
        at: (10 * GB) / bph.d1,
        text: `its D1 database (${int(bph.d1)} B a head, most of it the versions' metadata and the change log, which carries each head's terms) at ${fmt((10 * GB) / bph.d1)} heads; the step is due at 60%, ${fmt(d1Heads)} heads: archives, then one archive's versions and log by chunk-id hash, map to further databases through a table read at the composition root (not built yet)`,
      },
      {
        at: objectHeads,
        text: `every object's SQLite at ${fmt(objectHeads)} heads whatever the number of shards, because every shard holds the archive-wide tables (entity dictionary, postings, aliases, owners, timelines) of the whole archive, ${int(objectSql)} B a head: 10M and 100M heads need the partition below`,
      },
      {
        at: 5e6,
        text: "Vectorize's 5M vectors per index at 5M heads: one index per 5M heads, queried per index in the semantic round",
      },
    ]
      .sort((x, y) => x.at - y.at)
      .map((x, k) => `${k + 1}. ${x.text}`)
      .join("; ")}.`,
    `- **Requests per object:** a sharded query asks every shard once per round (${rounds}, whatever the number of shards), so an archive answers at most ~1,000 ÷ rounds ≈ ${int(1000 / (4 + 3 + 1))} queries/s before its busiest object meets ~1,000 requests/s (3 diffusion steps, 1 hop); ${headsPerShard ? int(Math.ceil(1e8 / headsPerShard)) : "–"} shards at 100M heads make each round a fan-out that wide, and the slowest shard sets the round's latency.`,
  ].join("\n");
}

interface IngestProfile {
  date: string;
  commit: string;
  source?: SourceLike | null;
  machine?: { cores: number; cpu?: string; node: string };
  passages: number;
  batch: number;
  meanChars: number;
  passagesPerSec: number;
  wallMsPerBatch: number;
  profiledMsPerBatch: number;
  msPerBatch: Record<string, number>;
}

function ingestProfile(p: IngestProfile | null): string {
  if (!p) return `_No results file (${INGEST_PROFILE}); run \`npx tsx scripts/profile-ingest.ts\`._`;
  const rows = Object.entries(p.msPerBatch).sort((a, b) => b[1] - a[1]);
  const budget = (p.batch / 2000) * 1000;
  return [
    runLine("Last `npx tsx scripts/profile-ingest.ts`", p),
    "",
    `**Where an ingest batch's time goes** (CPU profile of the Worker's isolate, which also runs its Durable Objects; ${int(p.passages)} plain-text passages of ${int(p.meanChars)} characters on average in batches of ${p.batch}, one at a time): ${int(p.passagesPerSec)} passages/s while profiled, ${ms(p.wallMsPerBatch)} ms per batch. 2,000 passages/s would leave ${ms(budget)} ms per batch.`,
    "",
    table(
      ["phase", "ms per batch", "share"],
      rows.map(([k, v]) => [k, ms(v), `${((100 * v) / p.profiledMsPerBatch).toFixed(0)}%`]),
    ),
  ].join("\n");
}

// ------------------------------------------------------------------ formatting

const int = (x: number) => Math.round(x).toLocaleString("en");
/** Milliseconds: 3 significant digits below 10, one decimal below 1,000, integers above. */
const ms = (x: number) => (x < 10 ? x.toPrecision(2) : x < 1000 ? x.toFixed(1) : int(x));
const pct = (x: number | undefined) => (x === undefined ? "–" : (x * 100).toFixed(1));
const secs = (x: number) => `${(x / 1000).toFixed(1)} s`;
const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(1)}`;

interface SourceLike {
  commit: string;
  dirty?: string[];
  dirtyHash?: string | null;
}

function runLine(
  what: string,
  r: {
    date: string;
    commit: string;
    source?: SourceLike | null;
    machine?: { cores: number; cpu?: string; node: string };
  },
): string {
  const m = r.machine;
  const dirty = r.source?.dirtyHash
    ? ` plus uncommitted changes to ${r.source.dirty?.length ?? "?"} files under src/ and migrations/ (content hash \`${r.source.dirtyHash}\`)`
    : "";
  const cpu = m?.cpu ? `, ${m.cpu.replace(/\s+/g, " ").trim()}` : "";
  return `_${what}: ${r.date.slice(0, 10)}, commit \`${r.commit}\`${dirty}; ${m ? `${m.cores} cores${cpu}, Node ${m.node}` : "machine not recorded"}._`;
}

function table(head: string[], rows: string[][]): string {
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

// ------------------------------------------------------------------ performance (bench)

interface BenchRow {
  heads: number;
  edges: number;
  bytesPerHead: number;
  /** Absent before the tables moved to SQLite. */
  heapPerHead?: number;
  storagePerHead?: number;
  applyPerSec?: number;
  checkpointMs?: number;
  snapshotBytes?: number;
  paperguru: { p50: number; p99: number };
  fullPpr: { p50: number; p99: number };
  flatCosine: { p50: number; p99: number };
  localPpr: { touched: number };
  top10Agreement: number;
  precise: { p50: number; top10Agreement: number };
  filtered?: { kinds: { p50: number; p99: number }; only: { p50: number; p99: number } };
}

interface E2eRow {
  heads: number;
  ingestPerSec: number;
  route: { p50: number; p99: number };
  context: { p50: number; p99: number };
  context8: { p50: number; p99: number; qps: number };
  phases: { semanticP50: number; routeP50: number };
  coldStart: { rebuildMs: number; snapshotBytes: number };
  bytesPerHead: number;
}

interface ProseRun {
  /** What the text is (absent before issue 38: synthetic prose). */
  text?: string;
  synthetic?: boolean;
  passages: number;
  meanChars: number;
  ingestChunksPerSec: number;
  ingestCharsPerSec: number;
  mixed: {
    passages: number;
    ingestChunksPerSec: number;
    queries: number;
    queriesPerSec: number;
    queryP50: number;
    queryP99: number;
  };
  bytesPerHead: number;
}

interface BenchResults {
  date: string;
  commit: string;
  source?: SourceLike | null;
  machine: { cores: number; cpu: string; node: string };
  durationMs?: number;
  queriesPerSize: Record<string, number>;
  routing: BenchRow[];
  e2e: {
    date: string;
    commit: string;
    source?: SourceLike | null;
    bundle: string;
    rows: E2eRow[];
    prose?: ProseRun | null;
    /** `--prose-synthetic`: the same on synthetic prose, a secondary row. */
    proseSynthetic?: ProseRun | null;
  } | null;
}

function performance(b: BenchResults): string {
  const out: string[] = [
    runLine(`Last \`npm run bench\`${b.durationMs ? ` (${(b.durationMs / 60000).toFixed(1)} min in all)` : ""}`, b),
  ];
  const base = b.routing[0]?.paperguru.p50 ?? 1;
  out.push(
    "",
    `**Routing, in one process on the same graphs** (milliseconds per query; ${Object.entries(b.queriesPerSize)
      .map(([n, q]) => `${q} queries at ${int(Number(n))} heads`)
      .join(", ")}):`,
    "",
    table(
      [
        "heads",
        "edges",
        "PaperGuru route p50 / p99",
        "growth vs smallest",
        "full PPR p50 / p99",
        "full PPR ÷ PaperGuru",
        "flat cosine p50 / p99",
        "flat ÷ PaperGuru",
        "nodes with mass",
        "top-10 agreement with full PPR",
        "ε = 10⁻⁴: route p50, agreement",
        "heap B/head: measured (accounted)",
        "SQLite B/head",
        "apply ops/s",
      ],
      b.routing.map((r) => [
        int(r.heads),
        int(r.edges),
        `${ms(r.paperguru.p50)} / ${ms(r.paperguru.p99)}`,
        `${(r.paperguru.p50 / base).toFixed(2)}×`,
        `${ms(r.fullPpr.p50)} / ${ms(r.fullPpr.p99)}`,
        `${(r.fullPpr.p50 / r.paperguru.p50).toFixed(1)}×`,
        `${ms(r.flatCosine.p50)} / ${ms(r.flatCosine.p99)}`,
        `${(r.flatCosine.p50 / r.paperguru.p50).toFixed(1)}×`,
        int(r.localPpr.touched),
        `${(r.top10Agreement * 100).toFixed(0)}%`,
        `${ms(r.precise.p50)} ms, ${(r.precise.top10Agreement * 100).toFixed(0)}%`,
        r.heapPerHead === undefined ? int(r.bytesPerHead) : `${int(r.heapPerHead)} (${int(r.bytesPerHead)})`,
        r.storagePerHead === undefined ? "–" : int(r.storagePerHead),
        r.applyPerSec === undefined ? "–" : int(r.applyPerSec),
      ]),
    ),
  );
  const filtered = b.routing.filter((r) => r.filtered);
  if (filtered.length)
    out.push(
      "",
      "**Filters before the top-M cut**, same queries and graphs (`kinds: [paper]` keeps a fifth of the heads; `only` is an exact set of 256 heads, what a `within` subtree resolves to):",
      "",
      table(
        ["heads", "no filter p50 / p99", "kinds p50 / p99", "÷ no filter", "only (256) p50 / p99", "÷ no filter"],
        filtered.map((r) => {
          const f = r.filtered as NonNullable<BenchRow["filtered"]>;
          return [
            int(r.heads),
            `${ms(r.paperguru.p50)} / ${ms(r.paperguru.p99)}`,
            `${ms(f.kinds.p50)} / ${ms(f.kinds.p99)}`,
            `${(f.kinds.p50 / r.paperguru.p50).toFixed(2)}×`,
            `${ms(f.only.p50)} / ${ms(f.only.p99)}`,
            `${(f.only.p50 / r.paperguru.p50).toFixed(2)}×`,
          ];
        }),
      ),
    );
  const e = b.e2e;
  if (e) {
    if (e.commit !== b.commit || (e.source?.dirtyHash ?? null) !== (b.source?.dirtyHash ?? null))
      out.push(
        "",
        runLine("End-to-end part of that run (the Worker started from the tree as it was then)", {
          ...e,
          machine: b.machine,
        }),
      );
    out.push(
      "",
      "**End to end through the Worker, structured papers** (entities and `cites` edges given by the caller; batches of 200; 40 queries, sequential unless marked c=8):",
      "",
      table(
        [
          "heads",
          "ingest chunks/s",
          "`/route` p50 / p99 ms",
          "of which: vector index p50, capital-chunk route p50 (ms)",
          "`/context` p50 / p99 ms",
          "`/context` c=8: p50 / p99 ms, q/s",
          "cold start: rebuild ms (snapshot)",
          "DO bytes/head",
        ],
        e.rows.map((r) => [
          int(r.heads),
          int(r.ingestPerSec),
          `${ms(r.route.p50)} / ${ms(r.route.p99)}`,
          `${ms(r.phases.semanticP50)}, ${ms(r.phases.routeP50)}`,
          `${ms(r.context.p50)} / ${ms(r.context.p99)}`,
          `${ms(r.context8.p50)} / ${ms(r.context8.p99)}, ${r.context8.qps.toFixed(0)}`,
          `${int(r.coldStart.rebuildMs)} (${(r.coldStart.snapshotBytes / 1e6).toFixed(1)} MB)`,
          int(r.bytesPerHead),
        ]),
      ),
    );
    // Before issue 38 the plain-text row was synthetic prose and carried no `text` label.
    const plainRows = [e.prose, e.proseSynthetic].filter((p): p is ProseRun => !!p);
    const first = plainRows[0];
    if (first) {
      const what = (p: ProseRun) =>
        p.text ??
        "synthetic prose (scripts/lib/prose.ts: encyclopedia-style, 500-3,000 characters naming other passages' subjects)";
      out.push(
        "",
        `**End to end, plain text** (id, kind, title and content only; ${plainRows.map(what).join("; secondary row: ")}; then ${int(first.mixed.passages)} more passages ingested while one client alternates \`/route\` and \`/context\` without pause):`,
        "",
        table(
          [
            "text",
            "passages (mean characters)",
            "ingest chunks/s",
            "ingest characters/s",
            "ingest + query together: ingest chunks/s, queries/s",
            "query p50 / p99 ms during ingest",
            "DO bytes/head",
          ],
          plainRows.map((p) => [
            p.synthetic === false ? "real text" : "synthetic prose",
            `${int(p.passages)} (${int(p.meanChars)})`,
            int(p.ingestChunksPerSec),
            int(p.ingestCharsPerSec),
            `${int(p.mixed.ingestChunksPerSec)}, ${p.mixed.queriesPerSec.toFixed(1)}`,
            `${ms(p.mixed.queryP50)} / ${ms(p.mixed.queryP99)}`,
            int(p.bytesPerHead),
          ]),
        ),
      );
    }
    out.push("", `Bundle (\`wrangler deploy --dry-run --minify\`): ${e.bundle}.`);
  } else out.push("", "_The end-to-end pass did not run (`--no-e2e`)._");
  return out.join("\n");
}

// ------------------------------------------------------------------ quality (eval)

function vsCell(rows: MetricRow[], row: MetricRow, ks: number[]): string {
  if (row.role === "baseline") return "";
  return ks
    .map((k) => {
      const b = strongerBm25(rows, `R@${k}`);
      const v = row.recall[`R@${k}`];
      return b && v !== undefined ? signed((v - b.value) * 100) : "–";
    })
    .join(" / ");
}

function setTable(s: EvalSet): string {
  const hasCards = s.rows.some((r) => r.cardsPerContext !== undefined);
  const hasMrr = s.rows.some((r) => r.mrr !== undefined);
  const head = [
    "method",
    ...s.ks.map((k) => `R@${k}`),
    ...(hasMrr ? ["MRR"] : []),
    `vs strongest BM25 (${s.ks.map((k) => `R@${k}`).join(" / ")})`,
    ...(hasCards ? ["cards per context"] : []),
  ];
  const rows = s.rows.map((r) => [
    r.role === "baseline" ? r.label : `**${r.label}**`,
    ...s.ks.map((k) => pct(r.recall[`R@${k}`])),
    ...(hasMrr ? [r.mrr !== undefined ? r.mrr.toFixed(3) : "–"] : []),
    vsCell(s.rows, r, s.ks),
    ...(hasCards ? [r.cardsPerContext !== undefined ? r.cardsPerContext.toFixed(1) : ""] : []),
  ]);
  return table(head, rows);
}

function conversationTable(s: EvalSet): string {
  const groups = s.groups ?? [];
  const k = s.ks.includes(10) ? 10 : (s.ks[0] as number);
  const head = [
    "method",
    ...s.ks.map((x) => `R@${x}`),
    `vs strongest BM25 (${s.ks.map((x) => `R@${x}`).join(" / ")})`,
    ...groups.map((g) => `R@${k}: ${g.label} (${g.questions} q)`),
  ];
  const rows = s.rows.map((r) => [
    r.role === "baseline" ? r.label : `**${r.label}**`,
    ...s.ks.map((x) => pct(r.recall[`R@${x}`])),
    vsCell(s.rows, r, s.ks),
    ...groups.map((g) => {
      const gr = g.rows.find((x) => x.method === r.method);
      const v = gr?.recall[`R@${k}`];
      const b = strongerBm25(g.rows, `R@${k}`);
      return v === undefined
        ? "–"
        : r.role === "baseline" || !b
          ? pct(v)
          : `${pct(v)} (${signed((v - b.value) * 100)})`;
    }),
  ]);
  return table(head, rows);
}

function quality(r: EvalResults): string {
  const out: string[] = [runLine(`Last \`npm run eval\` (${(r.durationMs / 60000).toFixed(1)} min in all)`, r)];
  if (r.runtimeRestarts)
    out.push(
      "",
      `The local runtime restarted its Worker mid-request ${r.runtimeRestarts} times during this run (after multi-megabyte imports); the harness re-sent those requests, as the runtime's answer asks.`,
    );
  for (const s of r.sets) {
    out.push("", `**${s.name}.** ${s.description} ${s.notes.join(" ")}`, "");
    out.push(s.groups ? conversationTable(s) : setTable(s));
  }
  out.push(
    "",
    "Time per set (ingest through the API in batches of 200, while the baselines are built and run in the evaluating process; PaperGuru queries one at a time after that; wall time of the whole set):",
    "",
    table(
      ["set", "ingest chunks/s", "`/route` ms per query", "wall time"],
      r.sets.map((s) => [
        s.name,
        int(s.timings.ingestChunksPerS),
        ms(s.timings.routeMsPerQuery),
        secs(s.timings.totalMs),
      ]),
    ),
  );
  const x = r.xkgRetrieval;
  if (x) {
    const label: Record<string, string> = {
      "code-pairs": "PaperGuru `/code-pairs` (techniques routed, `implements` followed)",
      "route-code": "PaperGuru `/route` over code chunks",
      "bm25-code": "BM25 over code chunks (implementation + documentation)",
      "bm25-code-title": "BM25 over code chunks with their titles",
      "bm25-technique+code": "BM25 over technique + its code, one document each",
    };
    const rows = (m: Record<string, { mrr: number; r1: number; r5: number; r10: number; p5?: number }>) => {
      const bm = Math.max(
        ...Object.entries(m)
          .filter(([k]) => k.startsWith("bm25"))
          .map(([, v]) => v.mrr),
      );
      const withP5 = Object.values(m).some((v) => v.p5 !== undefined);
      return Object.entries(m).map(([k, v]) => [
        label[k] ?? k,
        v.mrr.toFixed(3),
        pct(v.r1),
        pct(v.r5),
        pct(v.r10),
        ...(withP5 ? [v.p5 === undefined ? "–" : pct(v.p5)] : []),
        k.startsWith("bm25") ? "" : `${(v.mrr / bm).toFixed(2)}×`,
      ]);
    };
    const head = ["method", "MRR", "R@1 %", "R@5 %", "R@10 %", "MRR ÷ strongest BM25"];
    const headP5 = ["method", "MRR", "R@1 %", "R@5 %", "R@10 %", "P@5 %", "MRR ÷ strongest BM25"];
    const pairedLine = (p: { against: string; wins: number; ties: number; losses: number } | undefined) =>
      p
        ? ` Query by query against ${label[p.against] ?? p.against}: ${p.wins} better, ${p.ties} equal, ${p.losses} worse.`
        : "";
    const th = x.threshold;
    const eb = th.exactBestWrong;
    out.push(
      "",
      `**xKG technique → code** (${x.graphs} released graphs imported as files through the API). Self-retrieval: each of the ${x.self["bm25-code"]?.queries ?? 0} techniques with code asks for its code by its own name and description:`,
      "",
      table(head, rows(x.self)),
      "",
      `\`/code-pairs\` routes over the techniques, whose text is the query here: BM25 over technique + code is the comparison on the same text.${pairedLine(x.paired?.self)}`,
      "",
      `Realistic queries: the ${x.targetQueries} techniques of ${x.targetGuides} target guides (\`../shared/testdata/xkg/targets\`) against all ${x.graphs} graphs; a hit is a graph labelled relevant to the guide in \`scripts/data/xkg-target-labels.json\` (labelled from titles before any run; the sixth guide has no relevant graph); graph level, first relevant graph; P@5: the share of the first 5 distinct graphs labelled relevant:`,
      "",
      table(Object.values(x.targets).some((v) => v.p5 !== undefined) ? headP5 : head, rows(x.targets)),
      ...(x.paired ? ["", pairedLine(x.paired.targets).trim()] : []),
      "",
      `\`/code-pairs\` threshold (the technique's cosine to the query, local embedder): default ${th.default.value}, the lowest in steps of 0.05 with pair precision ≥ 0.85 on the target queries' top-10 pairs (precision ${pct(th.reuse.precision)}%, recall ${pct(th.reuse.recall)}%; chosen leave-one-guide-out: ${pct(th.reuseLeaveOneGuideOut.precision)}% / ${pct(th.reuseLeaveOneGuideOut.recall)}% on the guide left out).${
        eb
          ? ` For a technique's own code asked by its exact name and description (right technique vs the best wrong one per query): F1 is highest at ${eb.f1.value} (precision ${pct(eb.f1.precision)}%, recall ${pct(eb.f1.recall)}%)${eb.precision90 ? `, precision reaches 90% at ${eb.precision90.value} (recall ${pct(eb.precision90.recall)}%)` : ""}; at ${eb.f1.value} the target queries keep ${pct(eb.f1.targets.recall)}% of their relevant pairs, hence the lower default, which on exact lookups keeps ${th.default.selfBestWrong ? `${pct(th.default.selfBestWrong.recall)}% of the right pairs at ${pct(th.default.selfBestWrong.precision)}% precision` : "every right pair"}.`
          : ` For an exact technique's own code, ${th.exact?.value ?? "–"} separates it from the other routed pairs best (F1 ${th.exact ? th.exact.f1.toFixed(3) : "–"}, precision ${th.exact ? pct(th.exact.precision) : "–"}%, recall ${th.exact ? pct(th.exact.recall) : "–"}%).`
      }`,
    );
  }
  const g = r.projectguard;
  if (g) {
    const b = g.brief;
    out.push(
      "",
      `**ProjectGuard brief and render** (\`scripts/lib/eval-projectguard.ts\`: ${g.projects} generated project histories, ${g.steps} steps, ${g.briefs} briefs at ${int(g.budgetTokens)} tokens; designs and decisions proposed, committed, rejected, revised and superseded, code pushed that implements, tests and depends on modules; ground truth from the generator):`,
      "",
      table(
        ["", "`POST /brief`", "version-blind BM25 over every version, same budget"],
        [
          [
            "stale items per briefed record (superseded, rejected or uncommitted: records or their text)",
            `${pct(b.staleShare)}% (${b.staleItems} of ${b.items})`,
            `${pct(g.baseline.staleShare)}% (${g.baseline.staleItems} of ${g.baseline.items})`,
          ],
          [
            "commitment recall (the asked aspect's live commitments briefed)",
            `${pct(b.commitmentRecall)}%`,
            `${pct(g.baseline.commitmentRecall)}%`,
          ],
          ["commitment precision (briefed records that are the asked aspect's)", `${pct(b.commitmentPrecision)}%`, "–"],
          [
            "modules to preserve: precision / recall",
            `${pct(b.preserve.precision)}% / ${pct(b.preserve.recall)}% (${b.preserve.predicted} given, ${b.preserve.expected} expected)`,
            "–",
          ],
          [
            "modules to revise: precision / recall",
            `${pct(b.revise.precision)}% / ${pct(b.revise.recall)}% (${b.revise.predicted} given, ${b.revise.expected} expected)`,
            "–",
          ],
          ["signature anchors that verify", `${b.anchorsVerified} of ${b.anchors}`, "–"],
          ["largest brief ÷ budget", b.maxTokensOverBudget.toFixed(2), "–"],
        ],
      ),
      "",
      `Render of each final state: at ${g.render.tight.budget} tokens the largest was ${g.render.tight.maxTokens} tokens and ${g.render.tight.withOmitted} of ${g.projects} listed what they left out; at ${int(g.render.generous.budget)} tokens (nothing left out: ${g.render.generous.omitted} omitted) ${g.render.generous.commitmentsRendered} of ${g.render.generous.commitmentsLive} live commitments were rendered; stale items in renders: ${g.render.tight.staleItems + g.render.generous.staleItems}.`,
    );
  }
  return out.join("\n");
}

/** Research-memory sections: each rendered from the full eval when it has it, else from a section run. */
const SECTIONS = [
  { key: "ranking", flag: "ranking" },
  { key: "retrievalMetrics", flag: "retrieval-metrics" },
  { key: "sgmc", flag: "sgmc" },
  { key: "papers", flag: "papers" },
] as const;
type SectionKey = (typeof SECTIONS)[number]["key"];
type SectionResults = Pick<EvalResults, SectionKey>;

/** The tables of the research-memory sections present in `r`. */
function researchTables(r: Partial<SectionResults>): string[] {
  const out: string[] = [];
  const rk = r.ranking;
  // Recall points with a sign (−0.0 printed as 0.0).
  const signedPts = (d: number) => {
    const x = Math.round(d * 1000) / 10;
    return x > 0 ? `+${x.toFixed(1)}` : x < 0 ? `−${(-x).toFixed(1)}` : "0.0";
  };
  if (rk) {
    out.push(
      "",
      `**Ranking modes and MMR** (\`--only ranking\`, scripts/lib/ranking-eval.ts). Template queries, generated deterministically before any run: ${rk.generator}. Each document is a \`paper\` artifact with title and content and its class as a boundary (CiteSeer also its \`cites\` edges); neither set has years as a user has them, so recency is equal within each pool. \`/route\` with limit 50 (the modes rank the top-256 candidate pool after the scope filter); BM25 ranks the whole set and keeps the scope's documents. Hit rate: a gold document in the first 10; MRR: first gold document within 50; ILS@10: mean pairwise TF-IDF cosine of the first 10 (vectors over the set).`,
    );
    for (const set of rk.sets) {
      const bm = set.rows.find((x) => x.method === "bm25");
      out.push(
        "",
        `${set.name}: ${int(set.documents)} documents, ${set.queries} queries (${set.scoped} scoped), ${set.meanGold.toFixed(1)} gold per query; e.g. ${set.examples.map((e) => `“${e}”`).join(", ")}. \`/route\` ms per call through the local Worker: the route's own order (poe) ${ms(set.routeMs.poe)}, a mode ${ms(set.routeMs.mode)}, a mode with MMR (k = 50) ${ms(set.routeMs.mmr)}.`,
        "",
        table(
          [
            "method",
            "hit@10 %",
            "MRR",
            "R@1 %",
            "R@5 %",
            "R@10 %",
            "R@20 %",
            "R@50 %",
            "ILS@10",
            "MRR ÷ BM25",
            "R@10 ÷ BM25",
          ],
          set.rows.map((x) => [
            x.label,
            pct(x.hitRate10),
            x.mrr.toFixed(3),
            pct(x.recall["R@1"] ?? 0),
            pct(x.recall["R@5"] ?? 0),
            pct(x.recall["R@10"] ?? 0),
            pct(x.recall["R@20"] ?? 0),
            pct(x.recall["R@50"] ?? 0),
            x.ils10.toFixed(3),
            bm && x.method !== "bm25" ? `${(x.mrr / bm.mrr).toFixed(2)}×` : "",
            bm && x.method !== "bm25" ? `${((x.recall["R@10"] ?? 0) / (bm.recall["R@10"] ?? 1)).toFixed(2)}×` : "",
          ]),
        ),
        "",
        table(
          ["balanced + MMR, λ", "ILS@10", "R@10 %", "R@50 %", "MRR", "R@10 vs no MMR"],
          set.mmr.map((m) => [
            m.lambda === 1 ? "1 (no MMR)" : String(m.lambda),
            m.ils10.toFixed(3),
            pct(m.recall10),
            pct(m.recall50),
            m.mrr.toFixed(3),
            m.lambda === 1 ? "" : signedPts(m.recall10 - (set.mmr[0]?.recall10 ?? 0)),
          ]),
        ),
      );
    }
  }
  const rm = r.retrievalMetrics;
  if (rm) {
    const row = (name: string, a: typeof rm.bm25) => [
      name,
      pct(a.hit_rate),
      pct(a.mrr),
      ...rm.k.map((k) => pct(a.recall[String(k)])),
    ];
    out.push(
      "",
      `**Retrieval metrics** (\`scripts/lib/retrieval-metrics.ts\`: \`POST /metrics/retrieval\` on CiteSeer, ${int(rm.papers)} papers, ${rm.queries} known-item queries = a paper's second sentence, gold = that paper; BM25 scored by the same metric code; ${ms(rm.msPerQuery)} per query through the endpoint; runs stored ${rm.runs.stored}, listed ${rm.runs.listed}, read back equal: ${rm.runs.readBackEqual}):`,
      "",
      table(
        ["", `hit@${rm.k[rm.k.length - 1]}`, "MRR", ...rm.k.map((k) => `R@${k}`)],
        [row("PaperGuru `/route`", rm.paperguru), row("BM25 (k1 1.2, b 0.75)", rm.bm25)],
      ),
    );
  }
  const sg = r.sgmc;
  if (sg) {
    const f3 = (x: number) => x.toFixed(3);
    out.push(
      "",
      "**SGMC draft convergence** (`scripts/lib/sgmc.ts`): each document of `versions/` ingested as successive versions of one chunk (title and content), then `GET /convergence`: ROUGE-1 of each version against the one before (the API's scores equal the core ROUGE-1 recomputed on the original texts for every pair), and Eq. 10's stop iteration t* (t counted from 0) with t_max = 4 (the seed's) and with t_max = the whole history:",
      "",
      table(
        ["set", "documents", "versions", "consecutive pairs", "F1 min", "p25", "median", "p75", "max", "API = core"],
        sg.convergence.map((c) => [
          c.name,
          String(c.documents),
          String(c.versions),
          String(c.pairs),
          f3(c.f1.min),
          f3(c.f1.p25),
          f3(c.f1.median),
          f3(c.f1.p75),
          f3(c.f1.max),
          `${c.agree}/${c.pairs}`,
        ]),
      ),
      "",
      table(
        ["set", "ε", "t_max", "stopped: ψ > ε / at t_max / not yet", "t* median", "t* histogram"],
        sg.convergence.flatMap((c) =>
          c.stops.map((s) => [
            c.name,
            String(s.epsilon),
            s.tMax === "full" ? "whole history" : String(s.tMax),
            `${s.bySimilar} / ${s.byTMax} / ${s.open}`,
            s.stop ? String(s.stop.median) : "–",
            Object.entries(s.histogram)
              .map(([k, v]) => `${k === "open" ? "open" : `t=${k}`}: ${v}`)
              .join(", "),
          ]),
        ),
      ),
    );
    const fb = sg.feedback;
    out.push(
      "",
      `**SGMC feedback selector (Eq. 12)**, seeded simulation through the API: ${fb.runs} runs of ${fb.steps} outputs over ${fb.records} \`feedback\` records with latent failure rates p ~ U(0, 0.9); each output selects a record with \`POST /feedback/select\` as of that step, counts a use and its failed attempts (each fails with p, at most 5) as \`uses\` / \`revisions\` annotations. Baselines on the same seeds:`,
      "",
      table(
        ["policy", "revisions per output", "Eq. 12 ÷ policy"],
        [
          ["**Eq. 12 (`/feedback/select`)**", f3(fb.revisionsPerOutput.eq12), ""],
          [
            "random record",
            f3(fb.revisionsPerOutput.random),
            `${f3(fb.revisionsPerOutput.eq12 / fb.revisionsPerOutput.random)}×`,
          ],
          [
            "most used alone",
            f3(fb.revisionsPerOutput.mostUsed),
            `${f3(fb.revisionsPerOutput.eq12 / fb.revisionsPerOutput.mostUsed)}×`,
          ],
        ],
      ),
      "",
      `The API's choice equals the core selector's on the same counters in ${fb.agree} of ${fb.runs * fb.steps} steps; ${ms(fb.msPerSelect)} ms per select.`,
    );
  }
  const pp = r.papers;
  if (pp) {
    const l = pp.locate;
    const f = pp.references;
    const p1 = (x: number) => x.toFixed(1);
    const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : "–");
    const bestRef = f.bm25.mrr >= f.bm25Title2.mrr ? f.bm25 : f.bm25Title2;
    out.push(
      "",
      `**Locate** (\`scripts/lib/papers-eval.ts\`; the ${pp.papers} unarXive papers imported with \`POST /import?format=fulltext\`: ${int(pp.chunks.sections)} sections, ${int(pp.chunks.elements)} figure / table / equation elements). Each of the ${l.elements} figures and tables some section references is asked for by its caption (${l.skippedNoCaption} referenced ones without a caption skipped); gold = the sections whose text references it; BM25 ranks the same paper's sections (title + content as stored). ${ms(l.msPerQuery)} ms per \`/locate\`.`,
      "",
      table(
        ["method", "hit@1 %", "MRR", "MRR ÷ BM25"],
        [
          ["BM25 (wink, k1 = 1.2, b = 0.75) over the paper's sections", p1(l.bm25.hit1), l.bm25.mrr.toFixed(3), ""],
          [
            "**PaperGuru `/locate`, sections only** (`kinds: [section]`: the sections' own text)",
            p1(l.sectionsOnly.hit1),
            l.sectionsOnly.mrr.toFixed(3),
            ratio(l.sectionsOnly.mrr, l.bm25.mrr),
          ],
          [
            "**PaperGuru `/locate` `sections`** (elements included: a caption hit resolves to the sections that discuss it)",
            p1(l.withElements.hit1),
            l.withElements.mrr.toFixed(3),
            ratio(l.withElements.mrr, l.bm25.mrr),
          ],
        ],
      ),
      "",
      "The second PaperGuru row follows the `discussed-in` edges the importer derived from the same markers the gold comes from, so it measures the element chunks end to end (caption → element → its sections), not text matching; the first row is the text-only comparison.",
      "",
      ...heldOutBlock(f.heldOut, pp.papers),
      `**Per-node references from a bare reference list** (no full text, no edges): for each of the ${int(f.sections)} sections that cite a work, query = its heading and first paragraph with citation markers removed; candidates = the ${int(f.works)} bibliography works of the ${pp.papers} papers (entries sharing an id are one work), stored as \`paper\` artifacts with the raw reference string as title and content; gold = the works the section cites. PaperGuru \`/route\` (kinds: paper) vs BM25 over the same text. ${ms(f.msPerQuery)} ms per \`/route\`.`,
      "",
      table(
        ["method", "R@10 %", "MRR", "MRR ÷ strongest BM25"],
        [
          ["BM25 (wink, k1 = 1.2, b = 0.75)", p1(f.bm25.recall10), f.bm25.mrr.toFixed(3), ""],
          ["BM25 (wink, title field weight 2)", p1(f.bm25Title2.recall10), f.bm25Title2.mrr.toFixed(3), ""],
          [
            "**PaperGuru `/route`**",
            p1(f.paperguru.recall10),
            f.paperguru.mrr.toFixed(3),
            ratio(f.paperguru.mrr, bestRef.mrr),
          ],
        ],
      ),
      "",
      `Here PaperGuru's top 10 is the same set as BM25's for ${p1(f.sameTop10AsBm25 ?? 0)}% of the queries and the two tie: bare reference strings carry no edges, so routing has its lexical expert and the names grounded in the strings (mostly authors) to go on, and BM25 sees the same words.`,
      "",
      `**Coverage** (\`GET /coverage\`, default rule \`either\`, micro) over the ${pp.coverage.papers} papers: mean share ${p1(pp.coverage.share)}%; linked figures ${p1(pp.coverage.figures)}%, tables ${p1(pp.coverage.tables)}%, sections ${p1(pp.coverage.sections)}%, equations ${p1(pp.coverage.equations)}%.`,
    );
  }
  return out;
}

/**
 * Section runs (`npm run eval -- --data … --only <key> --out bench/results/eval-sections/<key>.json`)
 * stand in for a section the last full eval lacks; each is shown with its own date and commit.
 */
const SECTION_DIR = "bench/results/eval-sections";

function sectionRun(key: SectionKey): (Partial<EvalResults> & { date: string; commit: string }) | null {
  if (!existsSync(SECTION_DIR)) return null;
  let best: (Partial<EvalResults> & { date: string; commit: string }) | null = null;
  for (const f of readdirSync(SECTION_DIR)
    .filter((x) => x.endsWith(".json"))
    .sort()) {
    const r = JSON.parse(readFileSync(`${SECTION_DIR}/${f}`, "utf8")) as Partial<EvalResults> & {
      date: string;
      commit: string;
    };
    if (r[key] && (!best || r.date > best.date)) best = r;
  }
  return best;
}

function research(ev: EvalResults | null): string {
  const out: string[] = [];
  for (const { key, flag } of SECTIONS) {
    const src = ev?.[key] ? ev : sectionRun(key);
    if (!src) {
      out.push("", `_No results for \`${flag}\` yet: \`npm run eval -- --data ../shared/testdata --only ${flag}\`._`);
      continue;
    }
    const what = src === ev ? "From the last `npm run eval`" : `From \`npm run eval -- --only ${flag}\``;
    out.push("", runLine(what, src as EvalResults), ...researchTables({ [key]: src[key] }));
  }
  return out.join("\n").trim();
}

function targetBlock(r: EvalResults): string {
  const ts = targets(r);
  const met = ts.filter((t) => t.pass === true).length;
  const before = r.context.before;
  const out = [
    runLine("Targets, from the last `npm run eval`", r),
    "",
    `${met} of ${ts.length} met. PaperGuru is compared with the strongest BM25 baseline at each cutoff (wink with title weight 1 or 2, or minisearch); differences in recall points.${before ? ` The /context "before" figure is commit \`${before.commit}\` (${before.date.slice(0, 10)}): ${before.cardsPerContext.toFixed(1)} cards per 4,000-token context, cards R@5 ${pct(before.recall5)}.` : ""}`,
    "",
    table(
      ["target", "measured", "bar", "met"],
      ts.map((t) => [t.label, t.measured, t.target, t.pass === null ? "not measured" : t.pass ? "yes" : "**no**"]),
    ),
  ];
  return out.join("\n");
}

function lifecycle(r: EvalResults): string {
  const out: string[] = [runLine("Last `npm run eval`", r)];
  const st = r.staleness;
  if (st.s2orc || st.wikipedia) {
    const rows: string[][] = [];
    if (st.s2orc)
      rows.push([
        `s2orc README: ${st.s2orc.versions} dated revisions (${st.s2orc.stored} distinct), ${st.s2orc.asked} as-of questions`,
        `${pct(st.s2orc.pgStale)}%`,
        `${pct(st.s2orc.blindStale)}% (BM25 over every revision, top hit)`,
      ]);
    if (st.wikipedia)
      rows.push([
        `Wikipedia: ${st.wikipedia.articles} articles, ${st.wikipedia.revisions} revisions (revision k dated day k)`,
        `${pct(st.wikipedia.pgStale)}% (${st.wikipedia.pgMissed} article(s) not retrieved, counted apart)`,
        `${pct(st.wikipedia.blindStale)}% (BM25 over the article's revisions)`,
      ]);
    out.push(
      "",
      "Stale-evidence rate (evidence that is not the version valid at the as-of date):",
      "",
      table(["set", "PaperGuru with `as_of`", "version-blind"], rows),
    );
  }
  if (st.synthetic.length)
    out.push(
      "",
      `Synthetic archives (${st.synthetic[0]?.n ?? 100} facts revised with probability ρ per step for T steps, asked as of step 0):`,
      "",
      table(
        ["ρ", "T", "PaperGuru with `as_of`", "version-blind (latest)", "bound 1 − (1 − ρ)^T"],
        st.synthetic.map((s) => [
          String(s.rho),
          String(s.T),
          `${pct(s.pgStale)}%`,
          `${pct(s.blindStale)}%`,
          `${pct(s.bound)}%`,
        ]),
      ),
    );
  const ua = r.unarxive as Record<string, number | Record<string, number>> | null;
  if (ua) {
    const n = (k: string) => (typeof ua[k] === "number" ? (ua[k] as number) : 0);
    const again = (ua.again ?? {}) as Record<string, number>;
    out.push(
      "",
      "Full-text import of the unarXive sample (`POST /import?format=fulltext`, 10 papers per request) and its references:",
      "",
      table(
        [
          "papers → chunks",
          "import s (chunks/s)",
          "same files again",
          "bibliography entries (with DOI / arXiv / OpenAlex id)",
          "distinct works by id",
          "entries whose id forms resolve to one entity",
          "works resolving to one entity",
          "title-only references: distinct entities, cited by ≥ 2 papers",
        ],
        [
          [
            `${n("papers")} → ${int(n("chunks"))}`,
            `${(n("importMs") / 1000).toFixed(1)} (${int((1000 * n("chunks")) / Math.max(1, n("importMs")))})`,
            `${int(again.unchanged ?? 0)} unchanged, ${int((again.created ?? 0) + (again.updated ?? 0))} created or updated (${(n("reimportMs") / 1000).toFixed(1)} s)`,
            `${int(n("refs"))} (${int(n("withIds"))}, ${pct(n("withIds") / Math.max(1, n("refs")))}%)`,
            int(n("works")),
            `${int(n("consistent"))}/${int(n("checked"))}`,
            `${int(n("worksOneEntity"))}/${int(n("works"))}`,
            `${int(n("titleEntities"))}, ${int(n("titleShared"))}`,
          ],
        ],
      ),
      "",
      table(
        ["lossless `json` dump", "export", "replay into a new archive", "`/route` identical (chunks and versions)"],
        [
          [
            `${(n("dumpBytes") / 1e6).toFixed(1)} MB`,
            secs(n("exportMs")),
            secs(n("reimportDumpMs")),
            `${n("sameRoutes")}/${n("routeQueries")} queries`,
          ],
        ],
      ),
    );
  }
  if (r.roundTrips?.length) {
    const v = (t: Record<string, unknown>, k: string) => t[k] as number | boolean | undefined;
    out.push(
      "",
      "Every archive the eval built, dumped (`export?format=json`), imported into a new archive, then imported again:",
      "",
      table(
        [
          "archive",
          "chunks",
          "first import: failures / hash mismatches",
          "copy dumps to the same archive",
          "second import: created or updated / failures",
          "storage unchanged",
        ],
        r.roundTrips.map((t) => [
          String(t.archive),
          int(Number(v(t, "chunks") ?? 0)),
          `${v(t, "firstFailures")} / ${v(t, "firstMismatches")}`,
          v(t, "sameDump") ? "yes" : "no",
          `${v(t, "secondCreated")} / ${v(t, "secondFailures")}`,
          v(t, "storageUnchanged") ? "yes" : "no",
        ]),
      ),
    );
  }
  const x = r.xkgRoundTrip;
  if (x)
    out.push(
      "",
      `xKG: the ${x.files} released graphs imported with \`POST /import?format=xkg\`, exported with \`export?format=xkg\`, and the export imported again:`,
      "",
      table(
        [
          "files identical (parsed JSON / compact JSON bytes)",
          "chunks created",
          "re-import: created / updated",
          "techniques in the files (with code)",
          "`/metrics/grounding`: total / grounded / ungrounded",
          "import / export / re-import",
        ],
        [
          [
            `${x.exactJson}/${x.files} / ${x.exactBytes}/${x.files}`,
            int(x.firstImport.created ?? 0),
            `${x.reimport.created ?? 0} / ${x.reimport.updated ?? 0}`,
            `${x.techniques.inFiles} (${x.techniques.withCode})`,
            `${x.techniques.grounding.total} / ${x.techniques.grounding.grounded} / ${x.techniques.grounding.ungrounded}`,
            `${secs(x.ms.import)} / ${secs(x.ms.export)} / ${secs(x.ms.reimport)}`,
          ],
        ],
      ),
    );
  const p = r.provenance;
  out.push(
    "",
    table(
      ["provenance: anchors returned by `/context` during the eval", "verified by `/verify`"],
      [[int(p.anchors), `${int(p.verified)} (${p.anchors ? pct(p.verified / p.anchors) : "–"}%)`]],
    ),
  );
  return out.join("\n");
}

// ------------------------------------------------------------------ kernel parameter runs (bench/results/params)

const PARAMS_DIR = "bench/results/params";

/**
 * The default kernel against each run with overridden parameters (`npm run eval -- --params '{..}'
 * --only .. --out bench/results/params/<name>.json`), on every figure both runs have.
 */
function paramRuns(ev: EvalResults | null): string {
  if (!ev) return missing(EVAL, "npm run eval -- --data ../shared/testdata");
  const runs = existsSync(PARAMS_DIR)
    ? readdirSync(PARAMS_DIR)
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => JSON.parse(readFileSync(`${PARAMS_DIR}/${f}`, "utf8")) as EvalResults & { args?: string[] })
    : [];
  if (!runs.length) return `_No runs in ${PARAMS_DIR}._`;
  /** What a run changed: its --params, or a port choice it ran with (VECTOR_INDEX=none). */
  const paramsOf = (r: { args?: string[] }) => {
    const i = r.args?.indexOf("--params") ?? -1;
    return i >= 0 ? (r.args?.[i + 1] ?? "") : (r.args?.find((a) => /^[A-Z_]+=/.test(a)) ?? "");
  };
  const labelOf = (r: { args?: string[] }) =>
    r.args?.includes("--params") ? `\`--params ${paramsOf(r)}\`` : `\`${paramsOf(r)}\``;
  type Fig = [string, (r: EvalResults) => number | undefined, number | undefined];
  const setRecall = (name: string, method: string, k: string) => (r: EvalResults) =>
    r.sets.find((x) => x.name === name)?.rows.find((x) => x.method === method)?.recall[k];
  const bm = (name: string, k: string) => strongerBm25(ev.sets.find((x) => x.name === name)?.rows ?? [], k)?.value;
  const rank = (set: string, method: string) => (r: EvalResults) =>
    r.ranking?.sets.find((x) => x.name === set)?.rows.find((x) => x.method === method)?.mrr;
  /** The papers eval stores recall in percent; the table's recall cells take a share. */
  const per100 = (x: number | undefined) => (x === undefined ? undefined : x / 100);
  const held = (pool: "archive" | "ownBibliography") => (r: EvalResults) =>
    r.papers?.references?.heldOut?.[pool].paperguru.mrr;
  const figs: Fig[] = [
    ["HotpotQA /route R@5", setRecall("HotpotQA", "route", "R@5"), bm("HotpotQA", "R@5")],
    [
      "HotpotQA + 2Wiki /route R@5",
      setRecall("HotpotQA + 2Wiki distractors", "route", "R@5"),
      bm("HotpotQA + 2Wiki distractors", "R@5"),
    ],
    ["LoCoMo /route R@10", setRecall("Conversations (LoCoMo)", "route", "R@10"), bm("Conversations (LoCoMo)", "R@10")],
    [
      "CiteSeer citation recovery /route R@10",
      setRecall("CiteSeer citation recovery", "route", "R@10"),
      bm("CiteSeer citation recovery", "R@10"),
    ],
    [
      "CiteSeer known items (retrieval metrics) MRR",
      (r) => r.retrievalMetrics?.paperguru.mrr,
      ev.retrievalMetrics?.bm25.mrr,
    ],
    [
      "CiteSeer template queries, /route (poe) MRR",
      rank("CiteSeer", "poe"),
      ev.ranking?.sets.find((x) => x.name === "CiteSeer")?.rows.find((x) => x.method === "bm25")?.mrr,
    ],
    [
      "unArXive per-node references, own bibliography MRR",
      held("ownBibliography"),
      ev.papers?.references?.heldOut?.ownBibliography.bm25.mrr,
    ],
    [
      "unArXive per-node references, whole archive MRR",
      held("archive"),
      ev.papers?.references?.heldOut?.archive.bm25.mrr,
    ],
    [
      "unArXive per-node references, whole archive R@10",
      (r) => per100(r.papers?.references?.heldOut?.archive.paperguru.recall10),
      per100(ev.papers?.references?.heldOut?.archive.bm25.recall10),
    ],
    ["unArXive locate, sections only MRR", (r) => r.papers?.locate.sectionsOnly.mrr, ev.papers?.locate.bm25.mrr],
    [
      "xKG target guides /code-pairs MRR",
      (r) => r.xkgRetrieval?.targets["code-pairs"]?.mrr,
      ev.xkgRetrieval?.targets["bm25-technique+code"]?.mrr,
    ],
    [
      "xKG target guides /route over code MRR",
      (r) => r.xkgRetrieval?.targets["route-code"]?.mrr,
      ev.xkgRetrieval?.targets["bm25-technique+code"]?.mrr,
    ],
  ];
  const fmt = (x: number | undefined, recall: boolean) =>
    x === undefined ? "–" : recall ? (x * 100).toFixed(1) : x.toFixed(3);
  const out: string[] = [
    runLine("Default kernel: the last `npm run eval`", ev),
    ...runs.map((r) => runLine(labelOf(r), r)),
    "",
    table(
      ["figure", "default", ...runs.map((r) => `\`${paramsOf(r)}\``), "strongest plain BM25"],
      figs
        .filter(([, f]) => f(ev) !== undefined && runs.some((r) => f(r) !== undefined))
        .map(([label, f, b]) => {
          const recall = label.includes("R@");
          return [label, fmt(f(ev), recall), ...runs.map((r) => fmt(f(r), recall)), fmt(b, recall)];
        }),
    ),
  ];
  return out.join("\n");
}

// ------------------------------------------------------------------ explorer (scripts/explore-timing.ts)

interface ExploreResults {
  date: string;
  commit: string;
  source?: SourceLike | null;
  machine: { cores: number; cpu: string; node: string };
  chunks: number;
  runs: number;
  viewport: string;
  ingestMs: number;
  screens: Array<{ screen: string; medianMs: number; maxMs: number }>;
  pageErrors: string[];
  sizes: { js: { bytes: number; gzip: number }; css: { bytes: number; gzip: number } } | null;
}

function explorer(x: ExploreResults, bench: BenchResults | null): string {
  const kib = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
  const out = [
    runLine("Last `npx tsx scripts/explore-timing.ts`", x),
    "",
    `Render times on a ${int(x.chunks)}-chunk archive (ingested through \`POST /ingest\` in ${secs(x.ingestMs)}), headless Chromium at ${x.viewport}, ${x.runs} runs, from the click to the content in the DOM; page errors: ${x.pageErrors.length}.`,
    "",
    table(
      ["screen", "median ms", "max ms"],
      x.screens.map((r) => [r.screen, int(r.medianMs), int(r.maxMs)]),
    ),
  ];
  if (x.sizes)
    out.push(
      "",
      `Built explorer (esbuild, minified): script ${kib(x.sizes.js.bytes)} (${kib(x.sizes.js.gzip)} gzip), stylesheet ${kib(x.sizes.css.bytes)} (${kib(x.sizes.css.gzip)} gzip), carried by the Worker as text modules, so this is what the explorer adds to the upload${bench?.e2e ? `; the whole Worker upload (\`wrangler deploy --dry-run --minify\`, from the last bench) is ${bench.e2e.bundle}` : ""}.`,
    );
  return out.join("\n");
}

// ------------------------------------------------------------------ scale plan (heap per head)

interface HeapResults {
  date: string;
  commit: string;
  source?: SourceLike | null;
  machine?: { cores: number; cpu?: string; node: string };
  corpus: string;
  heads: number;
  applyPerSec: number;
  heapPerHeadRebuilt: number;
  accountedPerHeadRebuilt: number;
  sqliteBytesPerHead: number;
  breakdownPerHead: Record<string, number>;
}

/** The default heap budget of one capital chunk (DEFAULT_PARAMS.heapBudgetBytes). */
const BUDGET = 64 * 1024 * 1024;

interface PlacementResults {
  date: string;
  commit: string;
  source?: SourceLike | null;
  machine?: { cores: number; cpu?: string; node: string };
  rows: PlacementRow[];
}

function scale(h: HeapResults | null, b: BenchResults | null, p: PlacementResults | null): string {
  const out: string[] = [];
  if (h) {
    out.push(
      runLine("Last `npm run bench:heap`", h),
      "",
      `**Plain text** (${h.corpus}; ${int(h.heads)} heads): a capital chunk rebuilt from its checkpoint holds **${int(h.heapPerHeadRebuilt)} B/head** of heap, measured (V8 heap plus ArrayBuffers after GC, one copy held against three); its own accounting (\`stats.bytes\`) says ${int(h.accountedPerHeadRebuilt)} B/head (${Object.entries(
        h.breakdownPerHead,
      )
        .filter(([k, v]) => k !== "total" && v > 0)
        .map(([k, v]) => `${k} ${int(v)}`)
        .join(
          ", ",
        )}). Entities, postings, aliases, title owners and timelines are in the object's SQLite storage: ${int(h.sqliteBytesPerHead)} B/head there. At the default budget of 64 MiB one shard takes ~${int(BUDGET / 2 / h.heapPerHeadRebuilt)} such heads (half its budget, docs/sharding.md); changes apply at ${int(h.applyPerSec)}/s in process.`,
    );
  } else out.push(`_No results file (${HEAP}); run \`npm run bench:heap\`._`);
  const rows = (b?.routing ?? []).filter((r) => r.heapPerHead !== undefined);
  if (b && rows.length) {
    const last = rows[rows.length - 1] as BenchRow;
    out.push(
      "",
      `**Structured heads** (the synthetic citation graphs of \`npm run bench\`, ~8 citations and 60 distinct words per head; ${runLine("run", b).slice(1, -2)}):`,
      "",
      table(
        [
          "heads",
          "heap B/head measured",
          "accounted",
          "SQLite B/head",
          "apply ops/s",
          "one checkpoint ms (snapshot MiB)",
          "route p50 / p99 ms",
          "heads per shard at 64 MiB",
        ],
        rows.map((r) => [
          int(r.heads),
          int(r.heapPerHead ?? 0),
          int(r.bytesPerHead),
          int(r.storagePerHead ?? 0),
          int(r.applyPerSec ?? 0),
          r.checkpointMs === undefined
            ? "–"
            : `${int(r.checkpointMs)} (${((r.snapshotBytes ?? 0) / 1048576).toFixed(1)})`,
          `${ms(r.paperguru.p50)} / ${ms(r.paperguru.p99)}`,
          `~${int(BUDGET / 2 / (r.heapPerHead ?? r.bytesPerHead))}`,
        ]),
      ),
      "",
      `At ${int(last.heads)} heads one object would need ~${int(((last.heapPerHead ?? last.bytesPerHead) * last.heads) / 1024 / 1024)} MiB: the archive spans shards.`,
    );
  }
  if (p)
    out.push(
      "",
      `**Placement of heads on shards**, measured before sharding was built (\`npx tsx scripts/shard-placement.ts ../shared/testdata\`; ${runLine("run", p).slice(1, -2)}): the share of neighbour slots whose target would be on another shard, and per query the shards holding its seeds, its top-M candidates and the nodes its diffusion reaches:`,
      "",
      table(
        [
          "archive",
          "shards",
          "placement",
          "cross-shard slots",
          "shards with seeds",
          "with candidates",
          "reached by diffusion",
          "largest shard ÷ mean",
        ],
        p.rows.map((r) => [
          r.archive,
          String(r.shards),
          r.placement,
          `${(r.crossShare * 100).toFixed(1)}% of ${int(r.slots)}`,
          r.seedShards.toFixed(2),
          r.candidateShards.toFixed(2),
          r.massShards.toFixed(2),
          r.largestOverMean.toFixed(2),
        ]),
      ),
    );
  return out.join("\n");
}

interface ShardRow {
  heads: number;
  shards: number;
  oneBytesPerHead: number;
  largestShare: number;
  ghosts: number;
  closedGrowthMax: number;
  closedGrowthMean: number;
  applyMsOne: number;
  applyMsAllShards: number;
  routeOneP50: number;
  routeOneP99: number;
  routeShardedP50: number;
  routeShardedP99: number;
  roundsMean: number;
  roundsMax: number;
  sameTop: number;
}

function shardsBlock(r: { date: string; commit: string; queries: number; rows: ShardRow[] } | null): string {
  if (!r) return `_No results file (${SHARDS}); run \`npm run bench:shards\`._`;
  return [
    runLine("Last `npm run bench:shards`", r),
    "",
    `Synthetic citation graphs split by arrival into equal shares of heads, in process over SQLite tables; ${r.queries} queries per row (an entity and eight words). Heap is the stores' own accounting after a checkpoint. "Closed shard growth" is a closed shard's heap at the end over its heap when the next shard opened. Route times run the directory's rounds in process, so they hold no RPC time.`,
    "",
    table(
      [
        "heads",
        "shards",
        "largest shard ÷ one store",
        "ghosts per head",
        "closed shard growth mean / max",
        "apply: all shards ÷ one store",
        "route p50 / p99 ms: one store",
        "sharded",
        "rounds per query mean / max",
        "top 16 as one store",
      ],
      r.rows.map((x) => [
        int(x.heads),
        String(x.shards),
        x.largestShare.toFixed(2),
        (x.ghosts / x.heads).toFixed(2),
        `${x.closedGrowthMean.toFixed(2)} / ${x.closedGrowthMax.toFixed(2)}`,
        (x.applyMsAllShards / x.applyMsOne).toFixed(2),
        `${ms(x.routeOneP50)} / ${ms(x.routeOneP99)}`,
        `${ms(x.routeShardedP50)} / ${ms(x.routeShardedP99)}`,
        `${x.roundsMean.toFixed(1)} / ${x.roundsMax}`,
        `${(x.sameTop * 100).toFixed(0)}%`,
      ]),
    ),
  ].join("\n");
}

/** The eval's retrieval sets with a small heap budget (several shards) against the latest full eval. */
function shardedEval(sh: EvalResults | null, one: EvalResults | null): string {
  if (!sh || !one)
    return `_No results file (${EVAL_SHARDED}); run \`npm run eval -- --data ../shared/testdata --only hotpotqa,2wiki,locomo,citeseer --params '{"heap_budget_bytes":131072}' --out ${EVAL_SHARDED}\`._`;
  const route = (r: EvalResults, set: string) =>
    r.sets.find((x) => x.name === set)?.rows.find((x) => x.label === "PaperGuru /route");
  const recall = (x: { recall: Record<string, number> } | undefined) =>
    x
      ? Object.entries(x.recall)
          .map(([k, v]) => `${k} ${(v * 100).toFixed(1)}`)
          .join(", ")
      : "–";
  const params = sh.args.includes("--params") ? (sh.args[sh.args.indexOf("--params") + 1] ?? "") : "";
  return [
    runLine("Last sharded `npm run eval`", sh),
    "",
    `The retrieval sets run with \`--params '${params}'\`, a budget small enough that the archives span ${(sh.shards ?? []).map((x) => `${x.shards} (${x.name}, ${int(x.heads)} heads)`).join(", ")} shards, against the latest full eval in one object (\`${one.commit}\`). Times are through the local Worker, where each round of the directory is an RPC to every shard concerned, and every shard applies every change.`,
    "",
    table(
      [
        "set",
        "/route recall, one object",
        "sharded",
        "ms per /route: one object",
        "sharded",
        "ingest/s: one object",
        "sharded",
      ],
      sh.sets.map((x) => {
        const o = one.sets.find((y) => y.name === x.name);
        return [
          x.name,
          recall(route(one, x.name)),
          recall(route(sh, x.name)),
          ms(o?.timings?.routeMsPerQuery ?? 0),
          ms(x.timings?.routeMsPerQuery ?? 0),
          int(o?.timings?.ingestChunksPerS ?? 0),
          int(x.timings?.ingestChunksPerS ?? 0),
        ];
      }),
    ),
  ].join("\n");
}

// ------------------------------------------------------------------ relevance, abstention, budgets

interface AbstentionFigure {
  set: string;
  kind: "answerable" | "unanswerable";
  questions: number;
  k: number;
  recallNoFloor?: number;
  recallAtFloor?: number;
  abstained?: number;
}
interface AbstentionResults {
  date: string;
  commit: string;
  source?: SourceLike | null;
  machine?: { cores: number; cpu?: string; node: string };
  features: string[];
  inForce: number[];
  defaults: { query: number; card: number };
  atDefaults: AbstentionFigure[];
  pooledAbstained: number;
  worstLoss: number;
  chosen: { query: number; card: number };
  refit: number[];
  single: { floor: { query: number; card: number }; sets: AbstentionFigure[]; pooledAbstained: number };
  folds: Array<{
    fit: number[];
    floor: { query: number; card: number };
    heldOut: AbstentionFigure[];
    worstLoss: number;
    pooledAbstained: number;
  }>;
  questions: number;
}

/** scripts/abstention.ts: relevance floors on answerable and unanswerable dev questions. */
function abstentionBlock(r: AbstentionResults | null): string {
  if (!r) return missing(ABSTENTION, "npx tsx scripts/abstention.ts --data ../shared/testdata");
  const cell = (x: AbstentionFigure | undefined) =>
    !x
      ? "–"
      : x.kind === "answerable"
        ? `${pct(x.recallAtFloor)} (${((x.recallAtFloor ?? 0) * 100 - (x.recallNoFloor ?? 0) * 100).toFixed(1)})`
        : `${pct(x.abstained)}%`;
  const rows = r.atDefaults.map((x) => {
    const single = r.single.sets.find((y) => y.set === x.set);
    const held = r.folds.map((f) => f.heldOut.find((y) => y.set === x.set));
    return [
      x.set,
      x.kind === "answerable" ? `answerable, R@${x.k}` : "unanswerable",
      int(x.questions),
      x.kind === "answerable" ? pct(x.recallNoFloor) : "",
      cell(x),
      cell(single),
      held.map(cell).join(" / "),
    ];
  });
  const coef = (f: number[]) =>
    [`${f[0]}`, ...r.features.map((name, i) => `${f[i + 1] ?? 0} ${name}`)].join(" + ").replace(/\+ -/g, "- ");
  return [
    runLine("Last `npx tsx scripts/abstention.ts --data ../shared/testdata`", r),
    "",
    `${int(r.questions)} questions through \`/route\` (limit 40). Defaults in force: evidence floor ${r.defaults.query}, card floor ${r.defaults.card}, relevance = σ(${coef(r.inForce)}). Recall cells: recall at the floors (its change from no floor, in points); unanswerable cells: the share with no cards.`,
    "",
    table(
      [
        "set",
        "kind",
        "questions",
        "no floor",
        `floors ${r.defaults.query} / ${r.defaults.card}`,
        `one floor ${r.single.floor.query}`,
        "held out (2 folds)",
      ],
      rows,
    ),
    "",
    `Pooled over the unanswerable questions: ${pct(r.pooledAbstained)}% abstain at the defaults (worst answerable set ${(r.worstLoss * -100).toFixed(1)} points); with one floor for both, ${pct(r.single.pooledAbstained)}%. This run would choose floors ${r.chosen.query} / ${r.chosen.card}; a refit on its candidates gives σ(${coef(r.refit)}). Held out, the folds chose ${r.folds.map((f) => `${f.floor.query} / ${f.floor.card}`).join(" and ")}, abstained on ${r.folds.map((f) => `${pct(f.pooledAbstained)}%`).join(" and ")} and lost at worst ${r.folds.map((f) => (f.worstLoss * 100).toFixed(1)).join(" and ")} points.`,
  ].join("\n");
}

interface BudgetResults {
  date: string;
  commit: string;
  source?: SourceLike | null;
  machine?: { cores: number; cpu?: string; node: string };
  tokenizer: string;
  sets: Array<{ name: string; artifacts: number; questions: number }>;
  rows: Array<{
    form: string;
    budget: number;
    answers: number;
    maxRatio: number;
    meanRatio: number;
    over: number;
    cards: number;
    repeatedSentences: number;
    anchorEchoes?: number;
    rankGaps?: number;
    /** Before rankGaps (results written up to 54dfd9d). */
    packingFaults?: number;
  }>;
}

/** scripts/budgets.ts: tokens returned against the budget, per form. */
function budgetsBlock(r: BudgetResults | null): string {
  if (!r) return missing(BUDGETS, "npx tsx scripts/budgets.ts --data ../shared/testdata");
  const form: Record<string, string> = {
    json: "REST `/context` (cards' JSON + window)",
    markdown: "`/export/context` markdown (whole document)",
    mcp: "MCP `context` (whole result)",
  };
  return [
    runLine("Last `npx tsx scripts/budgets.ts --data ../shared/testdata`", r),
    "",
    `${r.sets.map((s) => `${s.name} (${int(s.questions)} questions)`).join(", ")}, counted in ${r.tokenizer}.`,
    "",
    table(
      [
        "form",
        "budget",
        "answers",
        "largest ÷ budget",
        "mean ÷ budget",
        "over budget",
        "cards",
        "sentences twice in a card",
        "anchors echoing the claim",
        "rank gaps",
      ],
      r.rows.map((x) => [
        form[x.form] ?? x.form,
        int(x.budget),
        int(x.answers),
        x.maxRatio.toFixed(3),
        x.meanRatio.toFixed(3),
        int(x.over),
        int(x.cards),
        int(x.repeatedSentences),
        x.form === "json" && x.anchorEchoes !== undefined ? int(x.anchorEchoes) : "–",
        x.form === "json" ? int(x.rankGaps ?? x.packingFaults ?? 0) : "–",
      ]),
    ),
    "",
    "A sentence twice in a card is counted in the form returned: the JSON card's claim, sketch and the snippets that are not its own anchors; the markdown card's section; the MCP prompt card. The JSON card's full anchors restate the claim's and the sketch's sentences by design (`verify` takes them), counted apart. A rank gap is a card skipped as over budget while a later-ranked card was returned: the skipped chunk's smallest card did not fit what was left at its turn (a property in test/core/cards.test.ts), so the later card fills room no earlier card could use.",
  ].join("\n");
}

// ------------------------------------------------------------------ README rewriting

const before = new Map(PAGES.map((f) => [f, readFileSync(f, "utf8")]));
const pages = new Map(before);

function replaceBlock(name: string, body: string): void {
  const start = `<!-- report:${name}:start -->`;
  const end = `<!-- report:${name}:end -->`;
  const page = PAGES.find((f) => (pages.get(f) as string).includes(start));
  if (!page) throw new Error(`markers ${start} ... ${end} not found in ${PAGES.join(", ")}`);
  const text = pages.get(page) as string;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (j < i) throw new Error(`${page}: ${end} before ${start}`);
  pages.set(page, `${text.slice(0, i + start.length)}\n${body}\n${text.slice(j)}`);
}

function readJson<T>(f: string): T | null {
  if (!existsSync(f)) return null;
  return JSON.parse(readFileSync(f, "utf8")) as T;
}

const bench = readJson<BenchResults>(BENCH);
const ev = readJson<EvalResults>(EVAL);
const missing = (file: string, cmd: string) => `_No results file (${file}); run \`${cmd}\`._`;
replaceBlock("performance", bench ? performance(bench) : missing(BENCH, "npm run bench"));
replaceBlock("quality", ev ? quality(ev) : missing(EVAL, "npm run eval -- --data ../shared/testdata"));
replaceBlock("targets", ev ? targetBlock(ev) : missing(EVAL, "npm run eval -- --data ../shared/testdata"));
replaceBlock("research", research(ev));
replaceBlock("params", paramRuns(ev));
replaceBlock("cv", cvBlock(readJson<CvResults>(CV)));
replaceBlock("abstention", abstentionBlock(readJson<AbstentionResults>(ABSTENTION)));
replaceBlock("budgets", budgetsBlock(readJson<BudgetResults>(BUDGETS)));
const explore = readJson<ExploreResults>(EXPLORE);
replaceBlock("split-kill", splitKill(readJson<SplitKill>(SPLIT_KILL)));
replaceBlock("sharded-eval", shardedEval(readJson<EvalResults>(EVAL_SHARDED), ev));
replaceBlock(
  "shards",
  shardsBlock(readJson<{ date: string; commit: string; queries: number; rows: ShardRow[] }>(SHARDS)),
);
replaceBlock("explorer", explore ? explorer(explore, bench) : missing(EXPLORE, "npx tsx scripts/explore-timing.ts"));
replaceBlock(
  "scale",
  `${scale(readJson<HeapResults>(HEAP), bench, readJson<PlacementResults>(PLACEMENT))}\n\n${probe(readJson<ProbeResults>(PROBE))}`,
);
replaceBlock("ingest-profile", ingestProfile(readJson<IngestProfile>(INGEST_PROFILE)));
replaceBlock("grow", growBlock(readJson<GrowResults>(GROW)));
replaceBlock("scale-plan", scalePlan(readJson<BytesResults>(BYTES), readJson<ProbeResults>(PROBE)));
replaceBlock("lifecycle", ev ? lifecycle(ev) : missing(EVAL, "npm run eval -- --data ../shared/testdata"));
const changed = PAGES.filter((f) => pages.get(f) !== before.get(f));
if (args.includes("--check")) {
  if (changed.length) {
    console.error(`${changed.join(", ")} out of date with the results files: run \`npm run report\``);
    process.exit(1);
  }
  console.log("README.md and docs/ match the results files");
} else if (changed.length) {
  for (const f of changed) writeFileSync(f, pages.get(f) as string);
  console.log(`rewrote the generated tables in ${changed.join(", ")}`);
} else console.log("README.md and docs/ already up to date");

/** The per-node references rows with the papers' full text (absent in runs before the held-out protocol). */
function heldOutBlock(h: HeldOutReferences | undefined, papers: number): string[] {
  if (!h) return [];
  const p1 = (x: number) => x.toFixed(1);
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : "–");
  const rows = (label: string, pool: HeldOutPool) => [
    [
      `${label}: BM25 (wink, k1 = 1.2, b = 0.75), the works' text as stored`,
      p1(pool.bm25.recall10),
      pool.bm25.mrr.toFixed(3),
      "",
      "",
    ],
    [
      `${label}: BM25 with citation contexts (each work's text + the kept sections citing it)`,
      p1(pool.bm25Contexts.recall10),
      pool.bm25Contexts.mrr.toFixed(3),
      "",
      "",
    ],
    [
      `**${label}: PaperGuru \`/route\`**`,
      p1(pool.paperguru.recall10),
      pool.paperguru.mrr.toFixed(3),
      ratio(pool.paperguru.mrr, pool.bm25.mrr),
      ratio(pool.paperguru.mrr, pool.bm25Contexts.mrr),
    ],
  ];
  const own = h.ownBibliography;
  const all = h.archive;
  return [
    "",
    `**Per-node references** (SGMC: a node's references are its \`cites\` edges). The question is asked of sections the archive has not seen: each paper's sections alternate between ${h.folds} folds, and for each fold the ${papers} papers are imported as a user would (\`POST /import?format=fulltext\`) with that fold's sections removed. The bibliographies stay whole: the importer makes every cited work a \`paper\` chunk and links the works no kept section cites from the paper, so the archive knows what each paper cites but not which held-out section cites it. Each of the ${int(h.sections)} held-out sections that cites a work is a query (heading and first paragraph, citation markers removed); gold = the works it cites. Two candidate pools: the paper's own bibliography (SGMC draws a node's references from its parent's; route \`filter.cited_by\` = the paper, ${p1(h.bibliography)} works on average) and the whole archive (all ${int(h.candidates)} \`paper\` chunks but the section's own paper; route \`filter.exclude\`). BM25 with citation contexts is the strongest lexical baseline with the same knowledge (the kept sections' text, joined to the works they cite by the harness from the file). ${ms(own.msPerQuery)} / ${ms(all.msPerQuery)} ms per \`/route\`.`,
    "",
    table(
      ["pool and method", "R@10 %", "MRR", "MRR ÷ BM25", "MRR ÷ BM25 + contexts"],
      [...rows("own bibliography", own), ...rows("whole archive", all)],
    ),
    "",
    `Query by query against the better of the two BM25 runs for that query: own bibliography ${own.vsBest.better} better / ${own.vsBest.equal} equal / ${own.vsBest.worse} worse; whole archive ${all.vsBest.better} / ${all.vsBest.equal} / ${all.vsBest.worse}. Over the whole archive the other papers are hubs (each of their sections that matches the query passes mass to them), so PaperGuru ranks them among the references: there its R@10 is ${ratio(all.paperguru.recall10, all.bm25.recall10)} BM25's and its MRR ${ratio(all.paperguru.mrr, all.bm25.mrr)}, and BM25 with citation contexts is ahead of both. The archive parameter \`degree_exponent\` damps such hubs; its run is under Quality › Kernel parameters.`,
    "",
  ];
}
