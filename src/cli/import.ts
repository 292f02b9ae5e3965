/**
 * `paperguru import`: send files and folders to an archive's /import endpoint. Each file goes in one
 * or more pieces (JSONL 10 records, OpenIE JSON 500 docs, BibTeX 500 entries per request; the server
 * splits a piece into atomic batches of 200 and deduplicates papers).
 *
 * Resumable: a state file (default `.paperguru-import-state.json` in the working directory; one entry
 * per archive and server, so imports into several archives from one folder keep their own) keeps the
 * sha256 of every piece the server acknowledged, and a re-run skips those (`--restart` ignores the
 * state). Ctrl-C lets the piece in flight finish, writes the state and exits 130 (a second Ctrl-C
 * aborts the request; the server's ingest is idempotent, so resending it later is harmless).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { basename, extname, join, relative, resolve } from "node:path";
import cliProgress from "cli-progress";
import { type ImportCounts, type PaperGuruClient, PaperGuruError } from "../client";
import { measureBibtex } from "../core/formats/bibtex-size";
import { IMPORT_FORMATS, zeroImportCounts } from "../core/imports";
import { cpuBudgetChars } from "../core/limits";
import { EXIT, type OutStream, UsageError } from "./io";

/** The server's import formats. */
export const FORMATS = IMPORT_FORMATS;
export type Format = (typeof FORMATS)[number];

/** Format from the extension, and for JSON from the shape of the first record. */
export function detectFormat(path: string, text: string): Format | null {
  const ext = extname(path).toLowerCase();
  if (ext === ".bib" || ext === ".bibtex") return "bibtex";
  if (ext === ".md" || ext === ".markdown") return "markdown";
  if (ext === ".pdf") return "pdf";
  if (ext === ".bbl") return "bbl";
  if (ext !== ".json" && ext !== ".jsonl") return null;
  const head = text.slice(0, 200_000);
  // A PaperGuru archive dump (`paperguru export --format json`) opens with its format marker.
  if (/^\s*\{\s*"format"\s*:\s*"paperguru\.archive"/.test(head)) return "archive";
  if (/"artifacts"\s*:|"deprecations"\s*:/.test(head)) return "json";
  if (/"techniques"\s*:|"paper_title"\s*:|"technique_nodes"\s*:/.test(head)) return "xkg";
  // HippoRAG's openie_results_*.json: docs with extracted_entities / extracted_triples.
  if (/"extracted_triples"\s*:|"extracted_entities"\s*:/.test(head)) return "openie";
  if (/"body_text"\s*:|"bib_entries"\s*:|"pdf_parse"\s*:|"grobid_parse"\s*:/.test(head)) return "fulltext";
  // JSON Lines of artifacts in the ingest format (one {id, kind, title, content, ...} per line).
  if (ext === ".jsonl" && isArtifactLine(head.slice(0, head.indexOf("\n") >>> 0))) return "json";
  return null;
}

function isArtifactLine(line: string): boolean {
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    return typeof v?.id === "string" && typeof v.kind === "string" && typeof v.content === "string";
  } catch {
    return false;
  }
}

/**
 * JSONL files go 10 records per request: a full-text paper is ~15 chunks, so a request stays near
 * 150 chunks (one or two atomic batches) and an interruption loses at most one request of work.
 * BibTeX files go 500 entries per request, each piece carrying the file's @string and @preamble
 * definitions so macros still expand.
 */
export const JSONL_RECORDS = 10;
/** JSONL artifact feeds go 200 artifacts (one ingest batch) per request. */
export const JSONL_ARTIFACTS = 200;
export const BIBTEX_ENTRIES = 500;
/** And at most this many characters of entries, inside the server's CPU budget for BibTeX parsing. */
export const BIBTEX_PIECE_CHARS = Math.floor(cpuBudgetChars("bibtex") * 0.8);
/** OpenIE JSON files (one chunk per doc) go 500 docs per request: ~2 s of one request. */
export const OPENIE_DOCS = 500;

const BIB_ENTRY = /^[ \t]*@[a-z]+\s*[{(]/gim;
const isBibMacro = (b: string) => /^\s*@(string|preamble)\b/i.test(b);
const isBibComment = (b: string) => /^\s*@comment\b/i.test(b);

/** A file the server would refuse whole, however it is split; nothing of it is sent. */
export class RefusedFile extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/**
 * The server's measure of a BibTeX text (src/core/formats/bibtex-size.ts): its size with macros
 * expanded, or RefusedFile when a value expands past what one request may parse (every piece carries
 * the file's @string lines, so splitting cannot help).
 */
function bibtexSize(text: string, macros?: ReadonlyMap<string, number>) {
  const m = measureBibtex(text, macros ? { macros } : {});
  if (m.over)
    throw new RefusedFile(
      `${m.over.what} expands to ${m.over.chars.toLocaleString("en-US")} characters, more than the server parses in one value`,
      "write the value out, or define the macro without repeating other macros (`a # a` doubles a)",
    );
  return m;
}

function splitBibtex(text: string): string[] {
  // Entries start with `@type{` or `@type(` at the beginning of a line (how every tool writes them).
  const starts = [...text.matchAll(BIB_ENTRY)].map((m) => m.index ?? 0);
  const blocks = starts.map((s, i) => text.slice(s, starts[i + 1] ?? text.length));
  const header = `${text.slice(0, starts[0])}${blocks.filter(isBibMacro).join("")}`;
  const entries = blocks.filter((b) => !isBibMacro(b) && !isBibComment(b));
  // Pieces are sized by their text with macros expanded (what the server's CPU budget counts).
  const head = bibtexSize(header);
  const headSize = Math.max(header.length, head.expanded);
  const sizes = entries.map((e) => Math.max(e.length, bibtexSize(e, head.macros).expanded));
  const total = sizes.reduce((a, b) => a + b, headSize);
  if (starts.length <= BIBTEX_ENTRIES && Math.max(text.length, total) <= BIBTEX_PIECE_CHARS) return [text];
  const out: string[] = [];
  let piece: string[] = [];
  let size = headSize;
  for (const [i, e] of entries.entries()) {
    const chars = sizes[i] ?? e.length;
    if (piece.length > 0 && (piece.length >= BIBTEX_ENTRIES || size + chars > BIBTEX_PIECE_CHARS)) {
      out.push(header + piece.join(""));
      piece = [];
      size = headSize;
    }
    piece.push(e);
    size += chars;
  }
  if (piece.length) out.push(header + piece.join(""));
  return out;
}

/** The docs of an OpenIE JSON file ({docs: [...]} or a bare array); null when it is neither. */
function openIeDocs(text: string): unknown[] | null {
  try {
    const v = JSON.parse(text) as unknown;
    if (Array.isArray(v)) return v;
    const docs = typeof v === "object" && v !== null ? (v as { docs?: unknown }).docs : undefined;
    return Array.isArray(docs) ? docs : null;
  } catch {
    return null;
  }
}

function splitOpenIe(text: string): string[] {
  const docs = openIeDocs(text);
  if (!docs || docs.length <= OPENIE_DOCS) return [text];
  const out: string[] = [];
  for (let i = 0; i < docs.length; i += OPENIE_DOCS) out.push(JSON.stringify({ docs: docs.slice(i, i + OPENIE_DOCS) }));
  return out;
}

export function splitRecords(path: string, text: string, format?: Format): string[] {
  const ext = extname(path).toLowerCase();
  if (ext === ".bib" || ext === ".bibtex") return splitBibtex(text);
  if (format === "openie" && ext === ".json") return splitOpenIe(text);
  if (ext !== ".jsonl") return [text];
  const lines = text.split("\n").filter((l) => l.trim());
  // Artifacts are small records: a full ingest batch per request; full-text papers go 10 at a time.
  const per = format === "json" ? JSONL_ARTIFACTS : JSONL_RECORDS;
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += per) out.push(lines.slice(i, i + per).join("\n"));
  return out.length ? out : [text];
}

/** Records in a piece, as the client counts them for progress and throughput (the server's counts are exact). */
export function countRecords(format: Format, path: string, piece: string): number {
  if (format === "bibtex") {
    const n = piece.match(BIB_ENTRY)?.length ?? 0;
    const macros = [...piece.matchAll(/^[ \t]*@(string|preamble|comment)\s*[{(]/gim)].length;
    return Math.max(1, n - macros);
  }
  if (extname(path).toLowerCase() === ".jsonl") return piece.split("\n").filter((l) => l.trim()).length;
  if (format === "json") {
    try {
      const f = JSON.parse(piece) as { artifacts?: unknown[]; deprecations?: unknown[] };
      return Math.max(1, (f.artifacts?.length ?? 0) + (f.deprecations?.length ?? 0));
    } catch {
      return 1;
    }
  }
  if (format === "archive") {
    try {
      return Math.max(1, ((JSON.parse(piece) as { chunks?: unknown[] }).chunks ?? []).length);
    } catch {
      return 1;
    }
  }
  if (format === "openie") return Math.max(1, openIeDocs(piece)?.length ?? 1);
  if (format === "bbl") return Math.max(1, (piece.match(/\\bibitem(?![A-Za-z@])|\\entry\s*\{/g) ?? []).length);
  if (format === "fulltext" && piece.trimStart().startsWith("[")) {
    try {
      return Math.max(1, (JSON.parse(piece) as unknown[]).length);
    } catch {
      return 1;
    }
  }
  return 1;
}

/** The state key of a piece: sha256 over the format, the citing paper of a .bbl and the exact text sent. */
export function pieceHash(format: Format, piece: string, paper?: string): string {
  const h = createHash("sha256").update(format).update("\u0000");
  if (paper !== undefined) h.update(paper).update("\u0000");
  return h.update(piece).digest("hex");
}

/**
 * A file's text: UTF-8, except a PDF, read as latin1 so each character is one byte (the piece hash
 * covers the exact bytes, and importBytes sends them back unchanged).
 */
export function readInput(path: string, format?: Format): string {
  return readFileSync(path, format === "pdf" || extname(path).toLowerCase() === ".pdf" ? "latin1" : "utf8");
}

export function walk(path: string, out: string[] = []): string[] {
  const st = statSync(path);
  if (st.isDirectory()) {
    for (const name of readdirSync(path).sort()) if (!name.startsWith(".")) walk(join(path, name), out);
  } else out.push(path);
  return out;
}

// ------------------------------------------------------------------ state file

export const DEFAULT_STATE_FILE = ".paperguru-import-state.json";

export interface ImportState {
  version: 1;
  url: string;
  archive: string;
  updated_at: string;
  /** sha256 of each piece the server acknowledged -> where it came from. */
  pieces: Record<string, { file: string; piece: number; records: number; at: string }>;
}

/** The file: one ImportState per archive and server, so imports into several archives share it. */
interface StateFile {
  version: 2;
  archives: Record<string, ImportState>;
}

const stateKey = (archive: string, url: string) => `${archive} ${url}`;

function readFile(path: string): StateFile {
  const empty: StateFile = { version: 2, archives: {} };
  if (!existsSync(path)) return empty;
  try {
    const raw = JSON.parse(readFileSync(path, "utf8")) as Partial<StateFile> | ImportState;
    // Version 1 held one archive.
    if (raw && raw.version === 1 && typeof (raw as ImportState).pieces === "object") {
      const one = raw as ImportState;
      return { version: 2, archives: { [stateKey(one.archive, one.url)]: one } };
    }
    const two = raw as Partial<StateFile>;
    return two && two.version === 2 && typeof two.archives === "object" ? (two as StateFile) : empty;
  } catch {
    return empty;
  }
}

/** The state of one archive on one server (without them: the most recently updated one in the file). */
export function readState(path: string, archive?: string, url?: string): ImportState | null {
  const all = Object.values(readFile(path).archives);
  if (archive === undefined) return all.sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1))[0] ?? null;
  return all.find((s) => s.archive === archive && (url === undefined || s.url === url)) ?? null;
}

function writeState(path: string, s: ImportState): void {
  s.updated_at = new Date().toISOString();
  const file = readFile(path);
  file.archives[stateKey(s.archive, s.url)] = s;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(file, null, 1)}\n`);
  renameSync(tmp, path);
}

// ------------------------------------------------------------------ the run

export interface ImportOptions {
  /** A client for the archive; `signal` aborts its requests (second Ctrl-C). */
  client: (signal: AbortSignal) => PaperGuruClient;
  url: string;
  archive: string;
  format?: Format | undefined;
  statePath: string;
  restart: boolean;
  /** Stop (as Ctrl-C would) after this many pieces were acknowledged in this run. */
  stopAfter?: number | undefined;
  /** Event time (ISO) for every record, replacing the dates the files carry. */
  validFrom?: string | undefined;
  /** format bbl: the chunk id of the paper whose reference list the .bbl files are (required for them). */
  paper?: string | undefined;
  /** Where progress goes: a bar on a TTY, else one line per piece. */
  progress: OutStream;
  /** Messages (warnings, failures); the same stream as progress unless --json. */
  log: (line: string) => void;
  onInterrupt: (handler: () => void) => () => void;
  cwd: string;
}

export type Counts = { [K in keyof ImportCounts]: number };
const zero: () => Counts = zeroImportCounts;

export interface ImportSummary {
  files: number;
  /** Files skipped because their format is unknown. */
  unknownFiles: string[];
  /** Files not sent because the server would refuse them whole (a BibTeX macro expanding past its limit). */
  refusedFiles: string[];
  pieces: number;
  sent: number;
  /** Pieces skipped because the state file says the server already acknowledged them. */
  alreadyImported: number;
  failedPieces: number;
  records: number;
  recordsSent: number;
  counts: Counts;
  seconds: number;
  recordsPerSecond: number;
  interrupted: boolean;
  statePath: string;
  exitCode: number;
}

interface Piece {
  file: string;
  index: number;
  of: number;
  format: Format;
  hash: string;
  records: number;
}

export function formatCounts(c: Counts): string {
  return `${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged, ${c.failed} failed`;
}

/** Every piece of the given files and folders, with its hash and record count (nothing is sent). */
function planPieces(
  paths: string[],
  o: ImportOptions,
  show: (f: string) => string,
): { plan: Piece[]; unknownFiles: string[]; refusedFiles: string[] } {
  const files: string[] = [];
  for (const p of paths) {
    const abs = resolve(o.cwd, p);
    if (!existsSync(abs)) throw new UsageError(`no such file or folder: ${p}`, "import");
    walk(abs, files);
  }
  const plan: Piece[] = [];
  const unknownFiles: string[] = [];
  const refusedFiles: string[] = [];
  for (const f of files) {
    const text = readInput(f, o.format);
    const format = o.format ?? detectFormat(f, text);
    if (!format) {
      unknownFiles.push(show(f));
      continue;
    }
    if (format === "bbl" && o.paper === undefined) {
      o.log(
        `skipping ${show(f)}: a .bbl is the reference list of a paper in the archive\n    hint: pass --paper <chunk id of the citing paper>`,
      );
      continue;
    }
    let pieces: string[];
    try {
      pieces = splitRecords(f, text, format);
    } catch (e) {
      if (!(e instanceof RefusedFile)) throw e;
      o.log(`skipping ${show(f)}: ${e.message}\n    hint: ${e.hint}`);
      refusedFiles.push(show(f));
      continue;
    }
    for (const [index, p] of pieces.entries())
      plan.push({
        file: f,
        index,
        of: pieces.length,
        format,
        hash: pieceHash(format, p, format === "bbl" ? o.paper : undefined),
        records: countRecords(format, f, p),
      });
  }
  for (const f of unknownFiles) o.log(`skipping ${f}: unknown format (pass --format)`);
  return { plan, unknownFiles, refusedFiles };
}

export async function runImport(paths: string[], o: ImportOptions): Promise<ImportSummary> {
  const show = (f: string) => (f.startsWith(o.cwd) ? relative(o.cwd, f) || f : f);
  // Plan: every piece's hash and record count (files are read again when sent, one at a time).
  const { plan, unknownFiles, refusedFiles } = planPieces(paths, o, show);

  // One file keeps the state of every archive (and server) imported into from this folder.
  const state = o.restart ? null : readState(o.statePath, o.archive, o.url);
  const st: ImportState = state ?? {
    version: 1,
    url: o.url,
    archive: o.archive,
    updated_at: new Date().toISOString(),
    pieces: {},
  };

  const controller = new AbortController();
  const client = o.client(controller.signal);
  let interrupted = false;
  const offInterrupt = o.onInterrupt(() => {
    if (!interrupted) {
      interrupted = true;
      o.log("\ninterrupted: finishing the piece in flight, then saving the state (Ctrl-C again to abort now)");
    } else controller.abort();
  });

  const totalRecords = plan.reduce((s, p) => s + p.records, 0);
  const counts = zero();
  const summary: ImportSummary = {
    files: new Set(plan.map((p) => p.file)).size,
    unknownFiles,
    refusedFiles,
    pieces: plan.length,
    sent: 0,
    alreadyImported: 0,
    failedPieces: 0,
    records: totalRecords,
    recordsSent: 0,
    counts,
    seconds: 0,
    recordsPerSecond: 0,
    interrupted: false,
    statePath: o.statePath,
    exitCode: EXIT.ok,
  };
  const started = performance.now();
  const rate = () => summary.recordsSent / Math.max(1e-3, (performance.now() - started) / 1000);

  const tty = !!o.progress.isTTY;
  const bar = tty
    ? new cliProgress.SingleBar(
        {
          stream: o.progress,
          format: "importing {bar} {percentage}% | {value}/{total} records | {rate} records/s | {file}",
          hideCursor: true,
          etaBuffer: 20,
          fps: 10,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const deferred: string[] = [];
  const note = (s: string) => (bar ? deferred.push(s) : o.log(s));
  bar?.start(totalRecords, 0, { rate: "0.0", file: "" });

  let done = 0;
  let fatal = false;
  let text = "";
  let pieces: string[] = [];
  let loaded = "";
  try {
    for (const [i, p] of plan.entries()) {
      if (interrupted || fatal) break;
      const tag = `[${i + 1}/${plan.length}] ${show(p.file)}${p.of > 1 ? ` (piece ${p.index + 1}/${p.of})` : ""}`;
      if (st.pieces[p.hash]) {
        summary.alreadyImported++;
        done += p.records;
        bar?.update(done, { file: show(p.file) });
        if (!bar) o.log(`${tag}: already imported, skipped`);
        continue;
      }
      if (loaded !== p.file) {
        text = readInput(p.file, p.format);
        pieces = splitRecords(p.file, text, p.format);
        loaded = p.file;
      }
      const piece = pieces[p.index] ?? "";
      const paper = p.format === "bbl" ? o.paper : undefined;
      if (pieceHash(p.format, piece, paper) !== p.hash) {
        note(`${tag}: FAILED the file changed during the import; run the command again`);
        summary.failedPieces++;
        continue;
      }
      try {
        const res =
          p.format === "pdf"
            ? await client.importBytes(o.archive, "pdf", Buffer.from(piece, "latin1"), basename(p.file), o.validFrom)
            : await client.importText(o.archive, p.format, piece, basename(p.file), o.validFrom, paper);
        for (const k of Object.keys(counts) as Array<keyof Counts>) counts[k] += res.counts[k] ?? 0;
        st.pieces[p.hash] = { file: show(p.file), piece: p.index, records: p.records, at: new Date().toISOString() };
        writeState(o.statePath, st);
        summary.sent++;
        summary.recordsSent += p.records;
        done += p.records;
        if (bar) bar.update(done, { rate: rate().toFixed(1), file: show(p.file) });
        else
          o.log(
            `${tag}: ${p.format}, ${p.records} record${p.records === 1 ? "" : "s"}: ${formatCounts(res.counts)} (${rate().toFixed(1)} records/s)`,
          );
        for (const f of res.failures.slice(0, 3)) note(`${tag}: record ${f.id} failed: ${f.message}`);
        if (res.paper && res.references)
          note(
            `${tag}: ${res.references.found} references, ${res.references.cited} cited, ${res.references.unresolved} unresolved; ${res.paper.id} ${res.paper.status}${res.paper.version === undefined ? "" : ` (v${res.paper.version})`}`,
          );
        if (o.stopAfter !== undefined && summary.sent >= o.stopAfter && i < plan.length - 1) {
          interrupted = true;
          note(`stopping after ${summary.sent} piece${summary.sent === 1 ? "" : "s"} (--stop-after)`);
        }
      } catch (e) {
        if (controller.signal.aborted) {
          note(`${tag}: aborted`);
          break;
        }
        summary.failedPieces++;
        if (e instanceof PaperGuruError) {
          note(`${tag}: FAILED ${e.type}${e.status ? ` (HTTP ${e.status})` : ""}: ${e.serverMessage}`);
          if (e.field) note(`    field: ${e.field}`);
          if (e.hint) note(`    hint: ${e.hint}`);
          // The server is gone or the key is wrong: every further piece would fail the same way.
          if (e.type === "network" || e.status === 401 || e.status === 403 || e.status === 404) fatal = true;
        } else note(`${tag}: FAILED ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  } finally {
    offInterrupt();
    bar?.stop();
    if (summary.sent > 0 || interrupted) writeState(o.statePath, st);
  }
  for (const d of deferred) o.log(d);

  summary.seconds = (performance.now() - started) / 1000;
  summary.recordsPerSecond = summary.recordsSent / Math.max(1e-3, summary.seconds);
  summary.interrupted = interrupted || controller.signal.aborted;
  summary.exitCode = summary.interrupted
    ? EXIT.interrupted
    : summary.failedPieces > 0 || counts.failed > 0 || refusedFiles.length > 0
      ? EXIT.failed
      : EXIT.ok;
  return summary;
}

export function renderSummary(s: ImportSummary, cwd: string): string {
  const c = s.counts;
  const state = s.statePath.startsWith(cwd) ? relative(cwd, s.statePath) : s.statePath;
  const out = [
    `${s.interrupted ? "interrupted" : "done"}: ${s.sent} of ${s.pieces} pieces sent from ${s.files} file${s.files === 1 ? "" : "s"} in ${s.seconds.toFixed(1)} s (${s.recordsSent} records, ${s.recordsPerSecond.toFixed(1)} records/s)`,
  ];
  if (s.alreadyImported) out.push(`  ${s.alreadyImported} pieces already imported (per ${state}), skipped`);
  out.push(
    `  created ${c.created}, updated ${c.updated}, unchanged ${c.unchanged}, failed ${c.failed}` +
      `; deprecated ${c.deprecated}, merged ${c.merged}, duplicates ${c.duplicates}, skipped ${c.skipped}`,
  );
  if (s.failedPieces) out.push(`  ${s.failedPieces} pieces failed (not recorded; a re-run retries them)`);
  if (s.unknownFiles.length) out.push(`  ${s.unknownFiles.length} files of unknown format skipped`);
  if (s.refusedFiles.length)
    out.push(
      `  ${s.refusedFiles.length} files refused before sending (the reason is above): ${s.refusedFiles.join(", ")}`,
    );
  if (s.interrupted)
    out.push(
      `  state saved to ${state} (${s.alreadyImported + s.sent} of ${s.pieces} pieces done); run the same command again to resume`,
    );
  return out.join("\n");
}
