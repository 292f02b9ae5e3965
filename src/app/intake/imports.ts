/**
 * File imports (API endpoint and CLI): BibTeX, Markdown papers, full-text JSON (unarXive / S2ORC),
 * xKG JSON, OpenIE results (HippoRAG), the feed JSON, PDFs (read from bytes: importPdf) and a
 * paper's .bbl reference list (src/app/intake/bbl.ts). The parsers are pure (src/core/formats);
 * this applies their plan and records the run in the ingest log.
 */

import type { IMPORT_FORMATS } from "../../contract";
import { fail, type Result } from "../../core/errors";
import { parseBibtexSliced } from "../../core/formats/bibtex";
import { parseFullTextPapersSliced } from "../../core/formats/fulltext";
import { parseMarkdownPaperSliced } from "../../core/formats/markdown";
import { parseOpenIeSliced } from "../../core/formats/openie";
import { type PdfPlan, parsePdfSliced } from "../../core/formats/pdf";
import type { ImportPlan } from "../../core/formats/types";
import { parseXkgSliced } from "../../core/formats/xkg";
import { type CpuWork, cpuBudgetChars, MAX_ANNOTATION_VALUE_BYTES, withinCpuBudget } from "../../core/limits";
import { runSliced, runSync, type Sliced, slicer } from "../../core/pace";
import type { IntakeDeps } from "../deps";
import { applyPlan } from "./apply";
import type { ApplyOutcome } from "./outcome";
import { readPdf } from "./pdf";
import { type ReferenceReport, resolveReferences, UNRESOLVED_REFERENCES_KEY } from "./references";
import { importArchiveFile } from "./reimport";
import type { Recreate } from "./tombstones";
import { feedPlanSliced } from "./webhooks";

export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export function parseImport(format: ImportFormat, text: string, name: string): Result<ImportPlan> {
  return runSync(parseImportSliced(format, text, name));
}

/** parseImport, yielding between slices of the parse (src/core/pace.ts; importFile pauses at each). */
export function* parseImportSliced(format: ImportFormat, text: string, name: string): Sliced<Result<ImportPlan>> {
  const source = name;
  switch (format) {
    case "bibtex":
      return yield* parseBibtexSliced(text, { source });
    case "markdown":
      return yield* parseMarkdownPaperSliced(text, { source });
    case "xkg":
      return yield* parseXkgSliced(text, { source, maxRecords: MAX_IMPORT_ARTIFACTS });
    case "openie":
      return yield* parseOpenIeSliced(text, { source });
    case "fulltext": {
      const r = yield* parseFullTextPapersSliced(text, { source });
      if (!r.ok) return r;
      // The citing sentence becomes the cites edge's context.
      const ctx = new Map(r.value.citationContexts.map((c) => [`${c.src}\u0000${c.dst}`, c.sentence]));
      const slice = slicer(ARTIFACT_SLICE);
      for (const a of r.value.artifacts)
        for (const e of a.edges ?? []) {
          yield* slice();
          const s = e.type === "cites" ? ctx.get(`${a.id}\u0000${e.target}`) : undefined;
          if (s) e.context = s.slice(0, 1000);
        }
      return {
        ok: true,
        value: { artifacts: r.value.artifacts, deprecations: r.value.deprecations, skipped: r.value.skipped },
      };
    }
    case "pdf":
      return fail("validation", "a PDF is read from its bytes, not from text", "format", "use importPdf");
    case "bbl":
      // A .bbl is the reference list of a paper already in the archive (src/app/intake/bbl.ts).
      return fail("validation", "a .bbl is imported into its citing paper", "paper", "use importBbl");
    case "archive":
      // A PaperGuru dump is replayed (importArchiveFile), not turned into an artifact plan.
      return fail("validation", "archive dumps are replayed, not parsed into a plan", "format", "use importFile");
    case "json": {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        const lines = feedLines(text);
        if (!lines.ok) return lines;
        json = lines.value;
      }
      yield;
      return yield* feedPlanSliced(json);
    }
  }
}

/** Edges (and artifacts) looked at between two yields. */
const ARTIFACT_SLICE = 2000;

/**
 * Records per import request. The unarXive run lands ~250 chunks/s in a local Worker, so 2,000 take
 * ~8 s of one request; larger files go in pieces (the CLI splits JSONL and BibTeX files itself).
 */
export const MAX_IMPORT_ARTIFACTS = 2000;

export async function importFile(
  deps: IntakeDeps,
  archiveId: string,
  format: ImportFormat,
  text: string,
  name: string,
  validFrom?: number,
  recreate?: Recreate,
): Promise<Result<ApplyOutcome>> {
  if (format === "archive") {
    if (validFrom !== undefined)
      return fail(
        "validation",
        "an archive dump keeps its own times",
        "valid_from",
        "omit valid_from for format=archive",
      );
    return importArchiveFile(deps, archiveId, text, name || format, recreate);
  }
  if (format === "pdf")
    return fail(
      "validation",
      "a PDF must be sent as bytes",
      "format",
      "send the file as the raw body (curl --data-binary @paper.pdf)",
    );
  if (format === "bbl")
    return fail(
      "validation",
      "format=bbl imports a reference list into the paper that cites it: paper is required",
      "paper",
      "add paper=<chunk id of the citing paper>",
    );
  const started = Date.now();
  // The CPU budget, before any work: parsing grows with the file, analysing with the records' text.
  const parseWork: CpuWork = format;
  const parseBudget = withinCpuBudget(
    [[parseWork, text.length]],
    `parsing this ${(text.length / 1e6).toFixed(1)} MB ${format} file`,
    "body",
    `send at most ${cpuBudgetChars(parseWork).toLocaleString("en-US")} characters of ${format} per request (\`npx paperguru import\` splits files)`,
  );
  if (!parseBudget.ok) return parseBudget;
  const plan = await runSliced(parseImportSliced(format, text, name || format), deps.pause);
  if (!plan.ok) return plan;
  let chars = 0;
  for (const a of plan.value.artifacts) chars += a.content.length + a.title.length + (a.synopsis?.length ?? 0);
  const budget = withinCpuBudget(
    [
      [parseWork, text.length],
      ["analyse", chars],
    ],
    `this ${format} file (${plan.value.artifacts.length} records, ${chars.toLocaleString("en-US")} characters of text)`,
    "body",
    "split the file into smaller ones (`npx paperguru import` sends large files in pieces)",
  );
  if (!budget.ok) return budget;
  const stored = annotationsFit(plan.value, format);
  if (!stored.ok) return stored;
  // The caller's event time replaces the file's own dates (recorded_at stays the import time).
  if (validFrom !== undefined) for (const a of plan.value.artifacts) a.valid_from = validFrom;
  if (plan.value.artifacts.length === 0 && plan.value.deprecations.length === 0)
    return fail(
      "validation",
      `no records found in this ${format} file${plan.value.skipped[0] ? ` (first skipped: ${plan.value.skipped[0].reason})` : ""}`,
      "body",
      `check that the file is ${format}`,
    );
  if (plan.value.artifacts.length > MAX_IMPORT_ARTIFACTS)
    return fail(
      "too_large",
      `this ${format} file holds ${plan.value.artifacts.length} records; one request takes at most ${MAX_IMPORT_ARTIFACTS}`,
      "body",
      "split the file (`npx paperguru import` sends JSONL and BibTeX files in pieces)",
    );
  return applyAndLog(deps, archiveId, format, name, plan.value, started, recreate);
}

/**
 * Every annotation of the plan fits one stored value (MAX_ANNOTATION_VALUE_BYTES), else a 413 naming
 * the largest: a larger one failed the import with a 500 after its chunks were stored.
 */
export function annotationsFit(plan: ImportPlan, format: ImportFormat): Result<void> {
  const enc = new TextEncoder();
  let worst: { chunk: string; key: string; bytes: number } | null = null;
  for (const a of plan.annotations ?? []) {
    const text = JSON.stringify(a.value) ?? "";
    // UTF-8 takes at most 3 bytes per UTF-16 unit: only a long value is encoded to be measured.
    if (text.length * 3 <= MAX_ANNOTATION_VALUE_BYTES) continue;
    const bytes = enc.encode(text).length;
    if (bytes > MAX_ANNOTATION_VALUE_BYTES && (!worst || bytes > worst.bytes))
      worst = { chunk: a.chunk, key: a.key, bytes };
  }
  if (!worst) return { ok: true, value: undefined };
  const fmt = (n: number) => n.toLocaleString("en-US");
  return fail(
    "too_large",
    `the ${worst.key} annotation this ${format} file gives ${worst.chunk} holds ${fmt(worst.bytes)} bytes (its fields as written, e.g. paper_references); one stored value holds at most ${fmt(MAX_ANNOTATION_VALUE_BYTES)}`,
    "body",
    "split the paper's references (or its other long lists) across smaller files",
  );
}

/**
 * A PDF's bytes: its text layer read (src/app/intake/pdf.ts, bounded in bytes, pages and time),
 * laid out into a paper, its sections and captions with pages (src/core/formats/pdf.ts), applied
 * like any other import.
 */
export async function importPdf(
  deps: IntakeDeps,
  archiveId: string,
  bytes: Uint8Array,
  name: string,
  validFrom?: number,
  recreate?: Recreate,
): Promise<Result<ApplyOutcome & { references: PdfReferenceReport }>> {
  const started = Date.now();
  const doc = await readPdf(bytes, deps.pause);
  if (!doc.ok) return doc;
  const plan = await runSliced(parsePdfSliced(doc.value, { source: name || "upload.pdf" }), deps.pause);
  if (!plan.ok) return plan;
  let chars = 0;
  for (const a of plan.value.artifacts) chars += a.content.length + a.title.length;
  const budget = withinCpuBudget(
    [["analyse", chars]],
    `this PDF's text (${plan.value.artifacts.length} chunks, ${chars.toLocaleString("en-US")} characters)`,
    "body",
    "split the PDF into parts and import them one by one",
  );
  if (!budget.ok) return budget;
  if (validFrom !== undefined) for (const a of plan.value.artifacts) a.valid_from = validFrom;
  const references = await resolvePdfReferences(deps, archiveId, plan.value);
  const { paper: _paper, references: _refs, ...importPlan } = plan.value;
  const applied = await applyAndLog(deps, archiveId, "pdf", name, importPlan, started, recreate);
  return applied.ok ? { ok: true, value: { ...applied.value, references } } : applied;
}

/** Annotation key of a paper's references that matched nothing (src/app/intake/references.ts). */
export { UNRESOLVED_REFERENCES_KEY } from "./references";

/** The References entries of a PDF as the answer lists them (src/app/intake/references.ts). */
export type PdfReferenceReport = ReferenceReport;

/**
 * The References entries of a PDF as `cites` edges of its paper (resolveReferences): an entry with a
 * DOI, arXiv or OpenAlex id cites that id (the plan carries those edges; apply lands each on the
 * chunk holding the work, in any id form); an entry with only a title cites the archive paper whose
 * normalised title (or alias) it equals; the rest are kept on the paper as the annotation
 * `references:unresolved` (rewritten by each import, so a re-import after the cited papers arrive
 * resolves them).
 */
async function resolvePdfReferences(deps: IntakeDeps, archiveId: string, plan: PdfPlan): Promise<PdfReferenceReport> {
  const refs = plan.references;
  const paper = plan.artifacts.find((a) => a.id === plan.paper);
  const { report, edges, unresolved } = await resolveReferences(deps.world, archiveId, refs, {
    paper: plan.paper,
    ids: "cite",
    alreadyCited: (paper?.edges ?? []).filter((e) => e.type === "cites").map((e) => e.target),
  });
  if (!paper) {
    // No paper to carry edges or the list: every entry a title matched is unresolved too.
    const items = report.items.map((x) =>
      x.matched_by === "title" ? { ...x, target: null, matched_by: null, in_archive: false } : x,
    );
    const open = items.filter((x) => x.target === null).length;
    return { ...report, items, cited: items.length - open, unresolved: open };
  }
  if (edges.length) paper.edges = [...(paper.edges ?? []), ...edges];
  if (refs.length)
    plan.annotations = [
      ...(plan.annotations ?? []),
      { chunk: plan.paper, key: UNRESOLVED_REFERENCES_KEY, value: unresolved },
    ];
  return report;
}

/** Apply a plan and record the run (ingest log, `import.completed` event); format=bbl applies its own plan with it. */
export async function applyAndLog(
  deps: IntakeDeps,
  archiveId: string,
  format: ImportFormat,
  name: string,
  plan: ImportPlan,
  started: number,
  recreate: Recreate | undefined,
): Promise<Result<ApplyOutcome>> {
  const outcome = await applyPlan(deps.apply, archiveId, plan, { recreate });
  await deps.world.appendLog({
    archiveId,
    origin: "import",
    ref: `${format}:${name}`.slice(0, 300),
    status: outcome.counts.failed > 0 ? "partial" : "ok",
    counts: outcome.counts,
    error: outcome.failures[0]?.message ?? null,
    at: deps.apply.now(),
    durationMs: Date.now() - started,
  });
  await deps.events.emit(archiveId, "import.completed", {
    name: name.slice(0, 300),
    format,
    counts: outcome.counts,
    error: outcome.failures[0]?.message ?? null,
  });
  return { ok: true, value: outcome };
}

/**
 * JSONL artifact feeds: one JSON value per line, each an artifact or a feed object
 * ({artifacts, deprecations}), gathered into one feed. A line that is not JSON fails naming it.
 */
function feedLines(text: string): Result<{ artifacts: unknown[]; deprecations: unknown[] }> {
  const artifacts: unknown[] = [];
  const deprecations: unknown[] = [];
  let n = 0;
  for (const line of text.split("\n")) {
    n++;
    if (!line.trim()) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      return fail(
        "validation",
        `line ${n} is not valid JSON (the body is neither one JSON feed nor JSON Lines)`,
        "body",
        "send {artifacts: [...], deprecations: [...]}, or one artifact (or feed object) per line",
      );
    }
    const o = typeof v === "object" && v !== null ? (v as Record<string, unknown>) : null;
    if (o && (Array.isArray(o.artifacts) || Array.isArray(o.deprecations))) {
      if (Array.isArray(o.artifacts)) artifacts.push(...o.artifacts);
      if (Array.isArray(o.deprecations)) deprecations.push(...o.deprecations);
    } else artifacts.push(v);
  }
  return { ok: true, value: { artifacts, deprecations } };
}
