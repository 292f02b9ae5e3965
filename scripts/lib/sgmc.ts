/**
 * SGMC (seed 001 §3) through the public API.
 *
 * 1. Draft convergence on real revision histories: each document of `versions/` (the s2orc README's
 *    68 dated revisions; each of the 50 Wikipedia articles' revisions, revision k dated day k) is
 *    ingested as successive versions of one chunk (title and content, as a user would), then
 *    `GET /convergence` gives ROUGE-1 between consecutive versions and Eq. 10's stop iteration t* for
 *    ε ∈ {0.8, 0.9, 0.95} with t_max = 4 (the seed's) and with t_max = the whole history. The
 *    consecutive-F1 distribution is over every pair the endpoint returns; each pair is also recomputed
 *    here with the core ROUGE-1 on the original texts (the stored contents must give the same score).
 * 2. Eq. 12's selector on a seeded simulation: per run 20 feedback records (chunks with the boundary
 *    `feedback`) with latent failure rates p ~ U(0, 0.9); each step selects a record through
 *    `POST /feedback/select` as of the step's time, counts a use (`uses` add 1 with an event_id) and
 *    the failed attempts before a success (each fails with p, at most 5) as `revisions` through the
 *    annotations endpoint. Baselines on the same seeds, computed here: a uniformly random record, and
 *    the most used record alone (ties: the oldest). Reported: revisions per output, and how often the
 *    API's choice equals the core selector's on the same counters.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PaperGuruClient } from "../../src/client";
import { type FeedbackCounters, selectFeedback } from "../../src/core/research/feedback";
import { rouge1 } from "../../src/core/research/rouge";
import { harnessFetch, type Server } from "./server";
import { mixedRng } from "./synthetic";

const EPSILONS = [0.8, 0.9, 0.95] as const;
const T_MAX = 4;
const DAY = 86_400_000;

export interface Distribution {
  n: number;
  min: number;
  p25: number;
  median: number;
  p75: number;
  max: number;
  mean: number;
}

export interface StopStats {
  epsilon: number;
  tMax: number | "full";
  documents: number;
  /** Documents where Eq. 10 stopped (similar or t_max). */
  stopped: number;
  bySimilar: number;
  byTMax: number;
  /** Not stopped: fewer than t_max + 1 versions and no pair above ε. */
  open: number;
  /** t* over the stopped documents. */
  stop: Distribution | null;
  /** Histogram of t* (key "open" for not stopped). */
  histogram: Record<string, number>;
}

export interface ConvergenceSet {
  name: string;
  documents: number;
  versions: number;
  pairs: number;
  f1: Distribution;
  precision: Distribution;
  recall: Distribution;
  /** Pairs whose API F1 equals the core ROUGE-1 on the original texts (to 4 decimals). */
  agree: number;
  /** Documents whose convergence read fewer versions than were stored (must be 0). */
  short: number;
  stops: StopStats[];
}

export interface SgmcEval {
  convergence: ConvergenceSet[];
  feedback: {
    runs: number;
    steps: number;
    records: number;
    revisionsPerOutput: { eq12: number; random: number; mostUsed: number };
    /** Steps where the API's choice equals the core selector's on the same counters. */
    agree: number;
    apiCalls: number;
    msPerSelect: number;
  };
  ms: number;
}

export function distribution(xs: number[]): Distribution {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => {
    if (s.length === 0) return Number.NaN;
    const i = (s.length - 1) * p;
    const lo = Math.floor(i);
    const hi = Math.ceil(i);
    return (s[lo] as number) + ((s[hi] as number) - (s[lo] as number)) * (i - lo);
  };
  return {
    n: s.length,
    min: s[0] ?? Number.NaN,
    p25: q(0.25),
    median: q(0.5),
    p75: q(0.75),
    max: s[s.length - 1] ?? Number.NaN,
    mean: s.length ? s.reduce((a, b) => a + b, 0) / s.length : Number.NaN,
  };
}

interface Doc {
  id: string;
  title: string;
  revisions: Array<{ text: string; at: number }>;
}

function loadDocs(data: string): { s2orc: Doc[]; wikipedia: Doc[] } {
  const s2orc: Doc[] = [];
  const f = join(data, "versions", "s2orc_readme_versions.jsonl");
  if (existsSync(f)) {
    const rows = readFileSync(f, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { date: string; text: string });
    s2orc.push({
      id: "s2orc:readme",
      title: "S2ORC README",
      revisions: rows.map((r) => ({ text: r.text, at: Date.parse(r.date) })),
    });
  }
  const wikipedia: Doc[] = [];
  const root = join(data, "versions", "wikipedia");
  if (existsSync(root))
    for (const [i, article] of readdirSync(root).sort().entries()) {
      const files = readdirSync(join(root, article))
        .filter((x) => /^\d+\.txt$/.test(x))
        .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
      // Article i starts on day 100·i after 2010-01-01 (every article has fewer than 100 revisions).
      const t0 = Date.parse("2010-01-01") + i * 100 * DAY;
      wikipedia.push({
        id: `wiki:${i}`,
        title: article,
        revisions: files.map((x, k) => ({ text: readFileSync(join(root, article, x), "utf8"), at: t0 + k * DAY })),
      });
    }
  return { s2orc, wikipedia };
}

function stopStats(
  epsilon: number,
  tMax: number | "full",
  stops: Array<{ iteration: number; reason: string } | null>,
): StopStats {
  const histogram: Record<string, number> = {};
  for (const s of stops) {
    const k = s === null ? "open" : String(s.iteration);
    histogram[k] = (histogram[k] ?? 0) + 1;
  }
  const done = stops.filter((s) => s !== null);
  return {
    epsilon,
    tMax,
    documents: stops.length,
    stopped: done.length,
    bySimilar: done.filter((s) => s.reason === "similar").length,
    byTMax: done.filter((s) => s.reason === "t_max").length,
    open: stops.length - done.length,
    stop: done.length ? distribution(done.map((s) => s.iteration)) : null,
    histogram,
  };
}

async function convergenceSet(admin: PaperGuruClient, name: string, docs: Doc[]): Promise<ConvergenceSet | null> {
  if (docs.length === 0) return null;
  const id = `eval-sgmc-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: `SGMC convergence: ${name}` });
  const pg = admin.withKey(created.key.secret);
  const stored = new Map<string, string[]>();
  let versions = 0;
  for (const d of docs) {
    const texts: string[] = [];
    for (const r of d.revisions) {
      const res = await pg.ingest(id, {
        artifacts: [
          { id: d.id, kind: "note", title: d.title, content: r.text, valid_from: new Date(r.at).toISOString() },
        ],
      });
      if ((res.results[0] as { status: string }).status !== "unchanged") texts.push(r.text);
    }
    stored.set(d.id, texts);
    versions += texts.length;
  }
  const f1: number[] = [];
  const precision: number[] = [];
  const recall: number[] = [];
  let agree = 0;
  let short = 0;
  const stops: StopStats[] = [];
  for (const tMax of [T_MAX, "full"] as const)
    for (const epsilon of EPSILONS) {
      const per: Array<{ iteration: number; reason: string } | null> = [];
      for (const d of docs) {
        const n = stored.get(d.id)?.length ?? 0;
        const c = await pg.convergence(id, {
          draft: d.id,
          epsilon,
          t_max: tMax === "full" ? Math.max(1, n - 1) : tMax,
          max_versions: 500,
        });
        per.push(c.stop);
        if (tMax === T_MAX && epsilon === EPSILONS[0]) {
          const texts = stored.get(d.id) ?? [];
          if (c.versions.length < texts.length) short++;
          for (const [i, p] of c.pairs.entries()) {
            f1.push(p.f1);
            precision.push(p.precision);
            recall.push(p.recall);
            const local = rouge1(texts[i + 1] as string, texts[i] as string);
            if (Math.abs(Math.round(local.f1 * 10_000) / 10_000 - p.f1) < 1e-9) agree++;
          }
        }
      }
      stops.push(stopStats(epsilon, tMax, per));
    }
  return {
    name,
    documents: docs.length,
    versions,
    pairs: f1.length,
    f1: distribution(f1),
    precision: distribution(precision),
    recall: distribution(recall),
    agree,
    short,
    stops,
  };
}

async function feedbackSimulation(admin: PaperGuruClient, runs = 10, steps = 100, records = 20) {
  const totals = { eq12: 0, random: 0, mostUsed: 0 };
  let agree = 0;
  let calls = 0;
  let selectMs = 0;
  let selects = 0;
  const t0 = Date.parse("2025-01-01");
  for (let seed = 1; seed <= runs; seed++) {
    const id = `eval-sgmc-feedback-${seed}-${Date.now().toString(36)}`;
    const created = await admin.createArchive({ id, name: `SGMC feedback simulation ${seed}` });
    const pg = admin.withKey(created.key.secret);
    const latent = mixedRng(seed);
    const p = Array.from({ length: records }, () => latent() * 0.9);
    await pg.ingest(id, {
      artifacts: p.map((_, i) => ({
        id: `fb:${String(i).padStart(2, "0")}`,
        kind: "note" as const,
        title: `Feedback record ${i}`,
        content: `Checklist item ${i}: verify the claim against its cited span before drafting.`,
        boundaries: ["feedback"],
        valid_from: new Date(t0 + i * 1000).toISOString(),
      })),
    });
    calls++;
    const fresh = (): FeedbackCounters[] =>
      p.map((_, i) => ({ id: `fb:${String(i).padStart(2, "0")}`, revisions: 0, uses: 0, createdAt: t0 + i * 1000 }));
    const rate = new Map(p.map((x, i) => [`fb:${String(i).padStart(2, "0")}`, x]));
    const policies = {
      eq12: null,
      random: (rs: FeedbackCounters[], r: () => number) => rs[Math.floor(r() * rs.length)] as FeedbackCounters,
      mostUsed: (rs: FeedbackCounters[]) =>
        rs.reduce((b, x) => (x.uses > b.uses || (x.uses === b.uses && x.createdAt < b.createdAt) ? x : b)),
    };
    for (const name of Object.keys(policies) as Array<keyof typeof policies>) {
      const rs = fresh();
      const act = mixedRng(seed * 7919);
      for (let s = 0; s < steps; s++) {
        const at = t0 + DAY + s * 60_000;
        let chosen: FeedbackCounters;
        if (name === "eq12") {
          const t = performance.now();
          const sel = await pg.selectFeedback(id, { as_of: new Date(at).toISOString() });
          selectMs += performance.now() - t;
          selects++;
          calls++;
          chosen = rs.find((r) => r.id === sel.selected?.id) as FeedbackCounters;
          if (selectFeedback(rs)?.id === chosen.id) agree++;
        } else chosen = (policies[name] as (rs: FeedbackCounters[], r: () => number) => FeedbackCounters)(rs, act);
        let failures = 0;
        while (failures < 5 && act() < (rate.get(chosen.id) ?? 0)) failures++;
        chosen.revisions += failures;
        chosen.uses++;
        totals[name] += failures;
        if (name === "eq12") {
          const when = new Date(at + 1000).toISOString();
          await pg.annotate(id, chosen.id, { key: "uses", add: 1, at: when, event_id: `use-${s}` });
          calls++;
          if (failures > 0) {
            await pg.annotate(id, chosen.id, { key: "revisions", add: failures, at: when, event_id: `rev-${s}` });
            calls++;
          }
        }
      }
    }
  }
  const outputs = runs * steps;
  return {
    runs,
    steps,
    records,
    revisionsPerOutput: {
      eq12: totals.eq12 / outputs,
      random: totals.random / outputs,
      mostUsed: totals.mostUsed / outputs,
    },
    agree,
    apiCalls: calls,
    msPerSelect: selectMs / Math.max(1, selects),
  };
}

export async function sgmcEval(server: Server, data: string): Promise<SgmcEval | null> {
  const t0 = performance.now();
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const docs = loadDocs(data);
  const convergence: ConvergenceSet[] = [];
  for (const [name, set] of [
    ["s2orc README", docs.s2orc],
    ["Wikipedia", docs.wikipedia],
  ] as const) {
    const c = await convergenceSet(admin, name, set);
    if (c) convergence.push(c);
  }
  const feedback = await feedbackSimulation(admin);
  return { convergence, feedback, ms: performance.now() - t0 };
}
