/**
 * `paperguru import`: send files and folders to an archive's /import endpoint, one request per file
 * (the server splits a file into atomic batches of 200 and deduplicates papers). Idempotent: an
 * interrupted import is resumed by running the same command again; what landed reports "unchanged".
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { PaperGuruClient, PaperGuruError } from "../client";

export const FORMATS = ["bibtex", "markdown", "fulltext", "xkg", "json"] as const;
export type Format = (typeof FORMATS)[number];

/** Format from the extension, and for JSON from the shape of the first record. */
export function detectFormat(path: string, text: string): Format | null {
  const ext = extname(path).toLowerCase();
  if (ext === ".bib" || ext === ".bibtex") return "bibtex";
  if (ext === ".md" || ext === ".markdown") return "markdown";
  if (ext !== ".json" && ext !== ".jsonl") return null;
  const head = text.slice(0, 200_000);
  if (/"artifacts"\s*:|"deprecations"\s*:/.test(head)) return "json";
  if (/"techniques"\s*:|"paper_title"\s*:|"technique_nodes"\s*:/.test(head)) return "xkg";
  if (/"body_text"\s*:|"bib_entries"\s*:|"pdf_parse"\s*:|"grobid_parse"\s*:/.test(head)) return "fulltext";
  return null;
}

/**
 * JSONL files go 10 records per request: a full-text paper is ~15 chunks, so a request stays near
 * 150 chunks (one or two atomic batches) and an interruption loses at most one request of work.
 * BibTeX files go 500 entries per request, each piece carrying the file's @string and @preamble
 * definitions so macros still expand.
 */
export const JSONL_RECORDS = 10;
export const BIBTEX_ENTRIES = 500;

function splitBibtex(text: string): string[] {
  // Entries start with `@type{` or `@type(` at the beginning of a line (how every tool writes them).
  const starts = [...text.matchAll(/^[ \t]*@[a-z]+\s*[{(]/gim)].map((m) => m.index ?? 0);
  if (starts.length <= BIBTEX_ENTRIES) return [text];
  const blocks = starts.map((s, i) => text.slice(s, starts[i + 1] ?? text.length));
  const isMacro = (b: string) => /^\s*@(string|preamble)\b/i.test(b);
  const header = `${text.slice(0, starts[0])}${blocks.filter(isMacro).join("")}`;
  const entries = blocks.filter((b) => !isMacro(b) && !/^\s*@comment\b/i.test(b));
  const out: string[] = [];
  for (let i = 0; i < entries.length; i += BIBTEX_ENTRIES)
    out.push(header + entries.slice(i, i + BIBTEX_ENTRIES).join(""));
  return out;
}

export function splitRecords(path: string, text: string): string[] {
  const ext = extname(path).toLowerCase();
  if (ext === ".bib" || ext === ".bibtex") return splitBibtex(text);
  if (ext !== ".jsonl") return [text];
  const lines = text.split("\n").filter((l) => l.trim());
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += JSONL_RECORDS) out.push(lines.slice(i, i + JSONL_RECORDS).join("\n"));
  return out.length ? out : [text];
}

function walk(path: string, out: string[]) {
  const st = statSync(path);
  if (st.isDirectory()) {
    for (const name of readdirSync(path).sort()) if (!name.startsWith(".")) walk(join(path, name), out);
  } else out.push(path);
}

export interface ImportOptions {
  url: string;
  key: string;
  archive: string;
  format?: Format | undefined;
  log: (line: string) => void;
}

export async function runImport(paths: string[], o: ImportOptions): Promise<{ failedFiles: number }> {
  const files: string[] = [];
  for (const p of paths) walk(p, files);
  const client = new PaperGuruClient(o.url, o.key);
  const total = { files: 0, created: 0, updated: 0, unchanged: 0, deprecated: 0, merged: 0, skipped: 0, failed: 0 };
  let failedFiles = 0;
  const started = Date.now();
  for (const [i, f] of files.entries()) {
    const text = readFileSync(f, "utf8");
    const format = o.format ?? detectFormat(f, text);
    const tag = `[${i + 1}/${files.length}] ${f}`;
    if (!format) {
      o.log(`${tag}: skipped (unknown format; pass --format)`);
      continue;
    }
    try {
      const c = { created: 0, updated: 0, unchanged: 0, deprecated: 0, merged: 0, skipped: 0, failed: 0 };
      const pieces = splitRecords(f, text);
      for (const [j, piece] of pieces.entries()) {
        const res = await client.importText(o.archive, format, piece, basename(f));
        for (const k of Object.keys(c) as Array<keyof typeof c>) c[k] += (res.counts as typeof c)[k] ?? 0;
        if (pieces.length > 1) o.log(`${tag}: piece ${j + 1}/${pieces.length}`);
      }
      for (const k of Object.keys(c) as Array<keyof typeof c>) total[k] += c[k];
      total.files++;
      o.log(
        `${tag}: ${format}: ${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged, ${c.deprecated} deprecated, ${c.merged} merged, ${c.failed} failed`,
      );
    } catch (e) {
      failedFiles++;
      const msg = e instanceof PaperGuruError ? JSON.stringify(e.body) : String(e);
      o.log(`${tag}: FAILED ${msg}`);
    }
  }
  const secs = (Date.now() - started) / 1000;
  o.log(
    `done: ${total.files} files in ${secs.toFixed(1)} s; ${total.created} created, ${total.updated} updated, ${total.unchanged} unchanged, ${total.deprecated} deprecated, ${total.merged} merged, ${total.skipped} skipped, ${total.failed} failed records; ${failedFiles} failed files`,
  );
  return { failedFiles };
}
