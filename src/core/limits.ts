/**
 * Request-level limits shared by every interface (REST, MCP). Per-artifact and per-batch limits are
 * INGEST_LIMITS in src/core/ingest.ts.
 */
import { fail, ok, type Result } from "./errors";

/**
 * One request body at most: 32 MiB. A batch of 200 artifacts at the 2 MiB content cap would be
 * larger, so the request itself is capped too (Workers accept up to 100 MB).
 */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/**
 * The largest value one stored annotation holds, as UTF-8 JSON: D1 stores a row of at most
 * 2,000,000 bytes (SQLITE_TOOBIG beyond), and the annotation's other columns take the rest. An
 * import whose plan carries a larger one (an xKG paper node keeps its `paper_references` as
 * written) is refused before anything is stored.
 */
export const MAX_ANNOTATION_VALUE_BYTES = 1_900_000;

/**
 * The per-request CPU budget for work that grows with the input (parsing a file, analysing
 * content): estimated from the input's size before the work starts, so a request over it is
 * refused at once with a 413 naming the budget, and no request holds the isolate (and /healthz)
 * for more than about this long. Routing and context assembly are bounded by their own limits.
 */
export const CPU_BUDGET_MS = 2000;

/**
 * CPU cost per MB of input, the larger of two measurements with Node 20 on the 2-core development
 * machine (workerd runs the same V8), rounded up: real data (BibTeX entries with abstracts 1,692
 * ms/MB, the feed JSON of 2,000 2Wiki passages 123, testdata/xkg 65, OpenIE 38, unarXive full text
 * 23, Markdown 6, planning an ingest of 10.8 MB of unarXive text 115) and the generated inputs of
 * scripts/lib/cpu-costs.ts, which `npm run bench` re-measures and records beside these figures
 * (BibTeX 1,867 and, on a loaded machine, 2,244; ingest planning 103-110; the rest lower than
 * real data).
 */
export const CPU_MS_PER_MB = {
  bibtex: 2300,
  json: 130,
  xkg: 70,
  openie: 40,
  fulltext: 25,
  markdown: 10,
  analyse: 120,
} as const;

export type CpuWork = keyof typeof CPU_MS_PER_MB;

/** Estimated CPU milliseconds of `work` over `chars` characters of input. */
export function cpuEstimateMs(work: CpuWork, chars: number): number {
  return (chars / 1_000_000) * CPU_MS_PER_MB[work];
}

/** The most input of one kind a request may carry within the budget (characters). */
export function cpuBudgetChars(work: CpuWork): number {
  return Math.floor((CPU_BUDGET_MS / CPU_MS_PER_MB[work]) * 1_000_000);
}

/**
 * Refuse work whose estimated CPU exceeds the budget, before doing it: a 413 (`too_large`) whose
 * message names the estimate and the budget, on `field`, with `hint` saying how to split it.
 */
export function withinCpuBudget(
  work: Array<[CpuWork, number]>,
  what: string,
  field: string,
  hint: string,
): Result<void> {
  const ms = work.reduce((s, [w, chars]) => s + cpuEstimateMs(w, chars), 0);
  if (ms <= CPU_BUDGET_MS) return ok(undefined);
  return fail(
    "too_large",
    `${what} needs an estimated ${Math.round(ms).toLocaleString("en-US")} ms of CPU; the per-request CPU budget is ${CPU_BUDGET_MS.toLocaleString("en-US")} ms`,
    field,
    hint,
  );
}
