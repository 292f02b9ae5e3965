/**
 * ProjectGuard's evaluation over stored runs (seed 002): a run (a task, a platform, a condition and
 * the final repository's rubric score per component, with its DIR) is stored as a `benchmark_row`
 * chunk `pgrun:<condition>:<platform>:<paper>` with boundary `projectguard:run`, its content the run
 * as JSON; storing the same run again with other scores is that chunk's next version, so metrics read
 * `as_of` a time see the runs as they were. An exposure audit is the chunk `pgexposure:<paper>` with
 * boundary `projectguard:exposure`. GET …/projectguard/metrics folds them into MCF, DIR, IF50 per run,
 * SLUMP_F and Recovery_F per task and platform, the exposure audits (RCR, ESR, Fig. 1) and their
 * means. POST …/projectguard/calibration compares a judge's scores with the caller's human scores.
 */

import { z } from "zod";
import type * as S from "../../contract";
import { RUN_CONDITIONS } from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import { calibration } from "../../core/projectguard/calibration";
import { exposureAudit, if50, mcf, recovery, slump } from "../../core/projectguard/metrics";
import type { AppDeps } from "../deps";
import { archiveAt, missingArchive } from "../lib/archives";
import { type In, iso, round4, timeOf } from "../lib/wire";
import { metricsUseCases } from "../metrics";

type Summary = In<typeof S.PgRunResult>;
type Exposure = In<typeof S.PgExposureResult>;
type Condition = (typeof RUN_CONDITIONS)[number];

export const RUN_BOUNDARY = "projectguard:run";
export const EXPOSURE_BOUNDARY = "projectguard:exposure";
/** Run and audit chunks one metrics read folds (beyond: 413 naming `paper` to narrow). */
const MAX_ROWS = 2000;

export const runChunkId = (condition: string, platform: string, paper: string) =>
  `pgrun:${condition}:${platform}:${paper}`;
export const exposureChunkId = (paper: string) => `pgexposure:${paper}`;

/** What a run chunk's content holds. */
const StoredRun = z.object({
  paper: z.string(),
  platform: z.string(),
  condition: z.enum(RUN_CONDITIONS),
  scores: z.array(z.object({ component: z.string(), score: z.number().int().min(0).max(4) })),
  dir: z.number().min(0).max(1).nullable(),
  dir_prefix: z.string().nullable(),
});
type StoredRun = z.infer<typeof StoredRun>;

const StoredExposure = z.object({
  paper: z.string(),
  turns: z.number().int().nullable(),
  components: z.array(
    z.object({ id: z.string(), levels: z.array(z.object({ turn: z.number().int(), level: z.number().int() })) }),
  ),
});
type StoredExposure = z.infer<typeof StoredExposure>;

function summarise(run: StoredRun, id: string, version: number, validFrom: number): Omit<Summary, "written"> {
  const scores = run.scores.map((s) => s.score);
  const m = mcf(scores);
  return {
    id,
    version,
    paper: run.paper,
    platform: run.platform,
    condition: run.condition,
    components: scores.length,
    mcf: round4(m),
    dir: run.dir === null ? null : round4(run.dir),
    if50: run.dir === null ? null : round4(if50(m, run.dir)),
    faithful: scores.filter((s) => s === 4).length,
    severe: scores.filter((s) => s <= 1).length,
    valid_from: iso(validFrom),
  };
}

function summariseExposure(e: StoredExposure, version: number): Omit<Exposure, "written"> {
  const a = exposureAudit(e.components, e.turns ?? undefined);
  return {
    paper: e.paper,
    components: a.components.length,
    rcr: round4(a.rcr),
    esr: round4(a.esr),
    per_component: a.components,
    curve: a.curve.map((p) => ({ turn: p.turn, recoverable: round4(p.recoverable), explicit: round4(p.explicit) })),
    version,
  };
}

const mean = (xs: ReadonlyArray<number | null>) => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? round4(v.reduce((a, b) => a + b, 0) / v.length) : null;
};

type Metrics = ReturnType<typeof metricsUseCases>;

/** Store one JSON artifact as a benchmark_row chunk; the written status and version. */
async function store(
  d: AppDeps,
  archive: string,
  id: string,
  title: string,
  boundaries: string[],
  body: unknown,
  validFrom: number,
): Promise<Result<{ version: number; status: "created" | "updated" | "unchanged"; validFrom: number }>> {
  const res = await d.kernel.ingest(archive, [
    {
      id,
      kind: "benchmark_row",
      title,
      content: JSON.stringify(body),
      boundaries,
      valid_from: validFrom,
      source: "projectguard",
    },
  ]);
  if (!res.ok) return res;
  const r = res.value.results[0];
  if (!r) return fail("unavailable", `the ingest of ${id} answered no result`);
  const head = await d.stores.chunks.visibleAt(archive, [id], Number.MAX_SAFE_INTEGER);
  return ok({ version: r.version, status: r.status, validFrom: head.get(id)?.validFrom ?? validFrom });
}

/** One stored row at t, parsed by `schema`; null when absent or not of that shape. */
async function readOne<T>(d: AppDeps, archive: string, id: string, t: number, schema: z.ZodType<T>) {
  const h = (await d.stores.chunks.visibleAt(archive, [id], t)).get(id);
  if (!h?.boundaries.some((x) => x === RUN_BOUNDARY || x === EXPOSURE_BOUNDARY)) return null;
  const text = await d.kernel.contentOf(h.contentKey);
  try {
    const v = schema.safeParse(text === null ? null : JSON.parse(text));
    return v.success ? { id, version: h.version, validFrom: h.validFrom, value: v.data } : null;
  } catch {
    return null;
  }
}

/** Every chunk with a boundary at t, parsed by `schema`; unparsable ones are named in `skipped`. */
async function rows<T>(
  d: AppDeps,
  archive: string,
  boundary: string,
  t: number,
  schema: z.ZodType<T>,
  skipped: string[],
): Promise<Result<Array<{ id: string; version: number; validFrom: number; value: T }>>> {
  const out: Array<{ id: string; version: number; validFrom: number; value: T }> = [];
  let after: string | null = null;
  for (;;) {
    const page = await d.stores.chunks.listChunks(archive, { asOf: t, kind: "benchmark_row", boundary }, after, 500);
    if (!page.length) break;
    const heads = await d.stores.chunks.visibleAt(
      archive,
      page.map((r) => r.chunkId),
      t,
    );
    for (const r of page) {
      const h = heads.get(r.chunkId);
      if (!h) continue;
      const text = await d.kernel.contentOf(h.contentKey);
      let parsed: unknown = null;
      try {
        parsed = text === null ? null : JSON.parse(text);
      } catch {
        parsed = null;
      }
      const v = schema.safeParse(parsed);
      if (v.success) out.push({ id: r.chunkId, version: h.version, validFrom: h.validFrom, value: v.data });
      else skipped.push(r.chunkId);
    }
    if (out.length + skipped.length > MAX_ROWS)
      return fail("too_large", `more than ${MAX_ROWS} ProjectGuard rows`, "paper", "narrow the read with paper");
    if (page.length < 500) break;
    after = page[page.length - 1]?.chunkId ?? null;
  }
  return ok(out);
}

/** POST …/projectguard/runs: store a run (a re-stored run is the next version of its chunk). */
async function storeRun(
  d: AppDeps,
  metrics: Metrics,
  archive: string,
  b: In<typeof S.PgRunBody>,
): Promise<Result<Summary>> {
  const absent = await missingArchive(d.stores.archives, archive);
  if (absent) return absent;
  const seen = new Set<string>();
  for (const [i, s] of b.scores.entries()) {
    if (seen.has(s.component))
      return fail(
        "validation",
        `scores.${i}.component: ${s.component} is scored twice`,
        `scores.${i}.component`,
        "score each component once",
      );
    seen.add(s.component);
  }
  if (b.dir !== undefined && b.dir_prefix !== undefined)
    return fail("validation", "give dir or dir_prefix, not both", "dir_prefix", "drop one of them");
  const t = timeOf(d, b.as_of);
  let dirValue: number | null = b.dir ?? null;
  if (b.dir_prefix !== undefined) {
    const m = await metrics.dir(archive, { prefix: b.dir_prefix, as_of: iso(t) });
    if (!m.ok) return m;
    dirValue = m.value.dir;
  }
  const run: StoredRun = {
    paper: b.paper,
    platform: b.platform,
    condition: b.condition,
    scores: [...b.scores].sort((x, y) => (x.component < y.component ? -1 : x.component > y.component ? 1 : 0)),
    dir: dirValue,
    dir_prefix: b.dir_prefix ?? null,
  };
  const id = runChunkId(b.condition, b.platform, b.paper);
  const w = await store(
    d,
    archive,
    id,
    `ProjectGuard run: ${b.paper} (${b.platform}, ${b.condition})`,
    [RUN_BOUNDARY, `pg:platform:${b.platform}`, `pg:condition:${b.condition}`],
    run,
    t,
  );
  if (!w.ok) return w;
  return ok({ ...summarise(run, id, w.value.version, w.value.validFrom), written: w.value.status });
}

/** POST …/projectguard/exposure: store a task's exposure audit and answer its figures. */
async function storeExposure(d: AppDeps, archive: string, b: In<typeof S.PgExposureBody>): Promise<Result<Exposure>> {
  const absent = await missingArchive(d.stores.archives, archive);
  if (absent) return absent;
  const seen = new Set<string>();
  for (const [i, c] of b.components.entries()) {
    if (seen.has(c.id))
      return fail(
        "validation",
        `components.${i}.id: ${c.id} is listed twice`,
        `components.${i}.id`,
        "list each component once",
      );
    seen.add(c.id);
  }
  const e: StoredExposure = {
    paper: b.paper,
    turns: b.turns ?? null,
    components: b.components.map((c) => ({ id: c.id, levels: [...c.levels].sort((x, y) => x.turn - y.turn) })),
  };
  const t = timeOf(d, b.as_of);
  const w = await store(
    d,
    archive,
    exposureChunkId(b.paper),
    `ProjectGuard exposure audit: ${b.paper}`,
    [EXPOSURE_BOUNDARY],
    e,
    t,
  );
  if (!w.ok) return w;
  return ok({ ...summariseExposure(e, w.value.version), written: w.value.status });
}

/** GET …/projectguard/metrics: the runs' metrics, SLUMP_F, Recovery_F and the exposure audits at t. */
async function projectMetrics(
  d: AppDeps,
  archive: string,
  q: In<typeof S.PgMetricsQuery>,
): Promise<Result<In<typeof S.PgMetricsResult>>> {
  const pre = await archiveAt(d, archive, q.as_of);
  if (!pre.ok) return pre;
  const { t } = pre.value;
  const skipped: string[] = [];
  const runs = await rows(d, archive, RUN_BOUNDARY, t, StoredRun, skipped);
  if (!runs.ok) return runs;
  const audits = await rows(d, archive, EXPOSURE_BOUNDARY, t, StoredExposure, skipped);
  if (!audits.ok) return audits;
  // The unrounded figures of each run: SLUMP_F and Recovery_F are computed from these.
  type Raw = { mcf: number; dir: number | null; if50: number | null };
  const groups = new Map<string, Map<Condition, { view: Omit<Summary, "written">; raw: Raw }>>();
  for (const r of runs.value) {
    const v = r.value;
    if (q.paper !== undefined && v.paper !== q.paper) continue;
    if (q.platform !== undefined && v.platform !== q.platform) continue;
    const key = JSON.stringify([v.paper, v.platform]);
    const g = groups.get(key) ?? new Map();
    const m = mcf(v.scores.map((s) => s.score));
    g.set(v.condition, {
      view: summarise(v, r.id, r.version, r.validFrom),
      raw: { mcf: m, dir: v.dir, if50: v.dir === null ? null : if50(m, v.dir) },
    });
    groups.set(key, g);
  }
  const papers: In<typeof S.PgMetricsResult>["papers"] = [];
  for (const [key, g] of [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const [paper, platform] = JSON.parse(key) as [string, string];
    const em = g.get("emergent");
    const ss = g.get("single_shot");
    const mem = g.get("memory");
    const of = (s: typeof em, f: "mcf" | "dir" | "if50") => (s ? s.raw[f] : null);
    const gap = (f: "mcf" | "dir" | "if50") => {
      const a = of(ss, f);
      const b = of(em, f);
      return a === null || b === null ? null : round4(slump(a, b));
    };
    const rec = (f: "mcf" | "dir" | "if50") => {
      const m = of(mem, f);
      const e = of(em, f);
      const s = of(ss, f);
      if (m === null || e === null || s === null) return null;
      const r = recovery(m, e, s);
      return r === null ? null : round4(r);
    };
    papers.push({
      paper,
      platform,
      runs: RUN_CONDITIONS.flatMap((c) => {
        const s = g.get(c);
        return s ? [s.view] : [];
      }),
      slump: { mcf: gap("mcf"), dir: gap("dir"), if50: gap("if50") },
      recovery: { mcf: rec("mcf"), dir: rec("dir"), if50: rec("if50") },
    });
  }
  const exposure = audits.value
    .filter((a) => q.paper === undefined || a.value.paper === q.paper)
    .map((a) => summariseExposure(a.value, a.version));
  const col = (part: "slump" | "recovery", f: "mcf" | "dir" | "if50") => mean(papers.map((p) => p[part][f]));
  return ok({
    as_of: iso(t),
    papers,
    macro: {
      tasks: papers.length,
      slump: { mcf: col("slump", "mcf"), dir: col("slump", "dir"), if50: col("slump", "if50") },
      recovery: { mcf: col("recovery", "mcf"), dir: col("recovery", "dir"), if50: col("recovery", "if50") },
      rcr: mean(exposure.map((e) => e.rcr)),
      esr: mean(exposure.map((e) => e.esr)),
    },
    exposure,
    skipped,
  });
}

/** POST …/projectguard/calibration: Table 2's figures, judge against the caller's human scores. */
async function calibrate(
  d: AppDeps,
  archive: string,
  b: In<typeof S.PgCalibrationBody>,
): Promise<Result<In<typeof S.PgCalibrationResult>>> {
  if ((b.judge === undefined) === (b.run === undefined))
    return fail(
      "validation",
      "give exactly one of judge or run",
      "judge",
      "pass the judge's scores, or name a stored run",
    );
  let judge = b.judge ?? [];
  if (b.run) {
    const pre = await archiveAt(d, archive, b.as_of);
    if (!pre.ok) return pre;
    const { t } = pre.value;
    const id = runChunkId(b.run.condition, b.run.platform, b.run.paper);
    const row = await readOne(d, archive, id, t, StoredRun);
    if (!row)
      return fail("not_found", `no run ${id} stored at ${iso(t)}`, "run", "store it with POST …/projectguard/runs");
    judge = row.value.scores;
  }
  for (const [side, xs] of [
    ["human", b.human],
    ["judge", judge],
  ] as const) {
    const seen = new Set<string>();
    for (const [i, s] of xs.entries()) {
      if (seen.has(s.component))
        return fail(
          "validation",
          `${side}.${i}.component: ${s.component} is scored twice`,
          `${side}.${i}.component`,
          "score each component once",
        );
      seen.add(s.component);
    }
  }
  const j = new Map(judge.map((s) => [s.component, s.score]));
  const h = new Map(b.human.map((s) => [s.component, s.score]));
  const both = [...h.keys()].filter((c) => j.has(c)).sort();
  const unmatched = [...new Set([...h.keys(), ...j.keys()])].filter((c) => !(h.has(c) && j.has(c))).sort();
  if (!both.length)
    return fail(
      "validation",
      "no component is scored by both sides",
      "human",
      "score the same component ids on both sides",
    );
  const c = calibration(
    both.map((x) => j.get(x) as number),
    both.map((x) => h.get(x) as number),
  );
  const r = (x: number | null) => (x === null ? null : round4(x));
  return ok({
    pairs: c.pairs,
    weighted_kappa: r(c.weighted_kappa),
    exact: round4(c.exact),
    within_one: round4(c.within_one),
    spearman: r(c.spearman),
    boundary_2_3: round4(c.boundary_2_3),
    boundary_3_4: round4(c.boundary_3_4),
    unmatched,
  });
}

export function evaluationUseCases(d: AppDeps) {
  const metrics = metricsUseCases(d);
  return {
    storeRun: (archive: string, b: In<typeof S.PgRunBody>) => storeRun(d, metrics, archive, b),
    storeExposure: (archive: string, b: In<typeof S.PgExposureBody>) => storeExposure(d, archive, b),
    projectMetrics: (archive: string, q: In<typeof S.PgMetricsQuery>) => projectMetrics(d, archive, q),
    calibrate: (archive: string, b: In<typeof S.PgCalibrationBody>) => calibrate(d, archive, b),
  };
}
