/**
 * The results files the evaluation and the benchmark write, and the targets derived from them.
 * `npm run eval` writes bench/results/eval-latest.json, `npm run bench` bench/results/latest.json;
 * `npm run report` renders both into README.md. Recall values are fractions in [0, 1].
 */
import { cpus } from "node:os";
import type { DiscoveryDedupEval } from "./discovery-eval";
import type { ProjectGuardEval } from "./eval-projectguard";
import type { PapersEval } from "./papers-eval";
import type { PdfReferencesEval } from "./pdf-references-eval";
import type { RankingEval } from "./ranking-eval";
import type { RerankEval } from "./rerank-eval";
import type { RetrievalMetricsEval } from "./retrieval-metrics";
import type { SourceState } from "./server";
import type { SgmcEval } from "./sgmc";
import type { XkgRetrieval } from "./xkg-retrieval";
import type { XkgRoundTrip } from "./xkg-roundtrip";

export interface Machine {
  cores: number;
  cpu: string;
  node: string;
}

export function machine(): Machine {
  return { cores: cpus().length, cpu: cpus()[0]?.model ?? "unknown", node: process.version };
}

/** One method's numbers on one set (or one question group of a set). */
export interface MetricRow {
  /** Stable key: bm25, bm25-title2, minisearch, dense, route, context, route-structure, context-structure. */
  method: string;
  label: string;
  /** baseline | paperguru (plain text, the headline) | structure (caller-supplied entities and edges). */
  role: "baseline" | "paperguru" | "structure";
  /** "R@5" -> recall in [0, 1]. */
  recall: Record<string, number>;
  /** Mean reciprocal rank of the first gold id (sets that report it). */
  mrr?: number;
  /** /context rows: cards per context, card tokens per context. */
  cardsPerContext?: number;
  tokensPerContext?: number;
}

export interface SetTimings {
  ingestMs: number;
  ingestChunksPerS: number;
  /** Mean wall time of one /route call (sequential). */
  routeMsPerQuery: number;
  /** Wall time of the whole set: ingest, baselines, every query. */
  totalMs: number;
}

export interface EvalSet {
  key:
    | "hotpotqa"
    | "hotpotqa-2wiki"
    | "locomo"
    | "locomo-note"
    | "citeseer"
    | "simpleqa"
    | "scifact"
    | "pubmedqa"
    | "unarxive-refs";
  name: string;
  /** What the numbers mean, in one or two sentences. */
  description: string;
  ks: number[];
  size: Record<string, number>;
  rows: MetricRow[];
  /** Per question group (LoCoMo categories); `rows` then holds the overall numbers. */
  groups?: Array<{ key: string; label: string; questions: number; rows: MetricRow[] }>;
  timings: SetTimings;
  notes: string[];
}

/** Cards per /context at 4,000 tokens and the recall of those cards, on the HotpotQA plain-text archive. */
export interface ContextFigure {
  cardsPerContext: number;
  recall5: number;
  date: string;
  commit: string;
  source: SourceState | null;
}

export interface EvalResults {
  date: string;
  commit: string;
  source: SourceState | null;
  machine: Machine;
  durationMs: number;
  args: string[];
  sets: EvalSet[];
  context: { budgetTokens: number; before: ContextFigure | null; now: ContextFigure | null };
  staleness: {
    s2orc: { versions: number; stored: number; asked: number; pgStale: number; blindStale: number } | null;
    wikipedia: { articles: number; revisions: number; pgStale: number; pgMissed: number; blindStale: number } | null;
    synthetic: Array<{ rho: number; T: number; n: number; pgStale: number; blindStale: number; bound: number }>;
  };
  unarxive: Record<string, unknown> | null;
  /** xKG import -> export format=xkg -> import on the released graphs (absent in older runs). */
  xkgRoundTrip?: XkgRoundTrip | null;
  /** Technique -> code retrieval on the xKG graphs (absent in older runs). */
  xkgRetrieval?: XkgRetrieval | null;
  /** Paper Circle's ranking modes and MMR on template queries (absent in older runs). */
  ranking?: RankingEval | null;
  /** ProjectGuard briefs and renders over scripted histories (absent in older runs). */
  projectguard?: ProjectGuardEval | null;
  /** SGMC: draft convergence on real revisions, Eq. 12's feedback simulation (absent in older runs). */
  sgmc?: SgmcEval | null;
  /** Locate and per-node references on the unarXive sample (absent in older runs). */
  papers?: PapersEval | null;
  /** POST /metrics/retrieval on CiteSeer known-item queries vs BM25 (absent in older runs). */
  retrievalMetrics?: RetrievalMetricsEval | null;
  /** PDF references recovered as cites on the generated PDF (scripts/lib/pdf-references-eval.ts). */
  pdfReferences?: PdfReferencesEval | null;
  /** One-shot discovery's merge of the five recorded engine answers (scripts/lib/discovery-eval.ts). */
  discoveryDedup?: DiscoveryDedupEval | null;
  /** The reranker port's four answer shapes against the mock rerank endpoint (scripts/lib/rerank-eval.ts). */
  rerankMock?: RerankEval | null;
  /** Dump -> import -> import of every archive the run built (absent in results of older runs). */
  roundTrips?: Array<Record<string, unknown>>;
  /** Shards of each archive the run built (several only with a small params.heap_budget_bytes). */
  shards?: Array<{ name: string; shards: number; heads: number }>;
  provenance: { anchors: number; verified: number };
  /** Cards per distiller over every /context of the run (absent in runs before it was recorded). */
  cardsByDistiller?: Record<string, number>;
  /** A run against a model endpoint (npm run eval -- --distiller ...): its settings (no keys) and spending. */
  model?: {
    settings: Record<string, string>;
    spent: { inputTokens: number; outputTokens: number; requests: number; fallbacks: number };
  };
  /** Wall time of each lifecycle and import check (ms). */
  /** Requests re-sent because the local runtime restarted mid-request (absent in older runs). */
  runtimeRestarts?: number;
  checkMs: Record<string, number>;
  targets: Target[];
}

export interface Target {
  label: string;
  /** What was measured, formatted. */
  measured: string;
  /** The bar, formatted. */
  target: string;
  pass: boolean | null;
}

const pts = (x: number) => (x * 100).toFixed(1);

/** The strongest BM25 variant at one cutoff (the highest recall of wink, wink with title ×2, minisearch). */
export function strongerBm25(rows: MetricRow[], k: string): { label: string; value: number } | null {
  const names: Record<string, string> = { bm25: "wink", "bm25-title2": "wink, title ×2", minisearch: "minisearch" };
  let best: { label: string; value: number } | null = null;
  for (const r of rows) {
    const v = r.recall[k];
    const name = names[r.method];
    if (name && v !== undefined && (!best || v > best.value)) best = { label: name, value: v };
  }
  return best;
}

function row(rows: MetricRow[] | undefined, method: string): MetricRow | undefined {
  return rows?.find((r) => r.method === method);
}

/** PaperGuru minus the stronger BM25 at k must be >= margin (points). */
function vsBm25(label: string, rows: MetricRow[] | undefined, method: string, k: string, margin: number): Target {
  const pg = row(rows, method)?.recall[k];
  const bm = rows ? strongerBm25(rows, k) : null;
  const bar = `≥ BM25 ${margin >= 0 ? "+" : "−"} ${Math.abs(margin)}`;
  if (pg === undefined || !bm) return { label, measured: "not measured", target: bar, pass: null };
  const diff = (pg - bm.value) * 100;
  return {
    label,
    measured: `${pts(pg)} vs ${pts(bm.value)} (${bm.label}): ${signed(diff)}`,
    target: bar,
    pass: diff >= margin - 1e-9,
  };
}

const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(1)}`;

/** The targets the retrieval work is held to, computed from a results file. */
export function targets(r: Pick<EvalResults, "sets" | "context">): Target[] {
  // Every set at least BM25 − 1 at R@2 and R@5 (conversations at R@10), every LoCoMo category at
  // least BM25 − 2, and the mean margin at R@5 (R@10 for conversations) at least +6.
  const out: Target[] = [];
  const margins: number[] = [];
  for (const set of r.sets) {
    const conv = set.key === "locomo" || set.key === "locomo-note";
    for (const k of conv ? ["R@10"] : ["R@2", "R@5"]) {
      const t = vsBm25(`${set.name} /route ${k}`, set.rows, "route", k, -1);
      out.push(t);
      const pg = row(set.rows, "route")?.recall[k];
      const bm = strongerBm25(set.rows, k);
      if ((k === "R@5" || conv) && pg !== undefined && bm) margins.push((pg - bm.value) * 100);
    }
    if (set.key === "locomo")
      for (const g of set.groups ?? [])
        out.push(vsBm25(`${set.name} /route R@10, ${g.label}`, g.rows, "route", "R@10", -2));
  }
  if (margins.length) {
    const mean = margins.reduce((a, b) => a + b, 0) / margins.length;
    out.push({
      label: `Mean margin over the strongest BM25 at R@5 (R@10 for conversations), ${margins.length} sets`,
      measured: signed(mean),
      target: "≥ +6",
      pass: mean >= 6 - 1e-9,
    });
  }
  const { before, now } = r.context;
  if (before && now) {
    const ratio = now.cardsPerContext / Math.max(1e-9, before.cardsPerContext);
    out.push({
      label: "/context at 4,000 tokens: cards per context",
      measured: `${now.cardsPerContext.toFixed(1)} vs ${before.cardsPerContext.toFixed(1)} before (${before.commit}): ${ratio.toFixed(2)}×`,
      target: "≥ 2× before",
      pass: ratio >= 2 - 1e-9,
    });
    out.push({
      label: "/context at 4,000 tokens: R@5 of the cards",
      measured: `${pts(now.recall5)} vs ${pts(before.recall5)} before: ${signed((now.recall5 - before.recall5) * 100)}`,
      target: "≥ before",
      pass: now.recall5 >= before.recall5 - 1e-9,
    });
  } else out.push({ label: "/context at 4,000 tokens", measured: "not measured", target: "≥ 2× cards", pass: null });
  return out;
}
