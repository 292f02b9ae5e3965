/**
 * What the export use cases share: their dependencies, the body they return, the archive size check
 * (an archive export reads at most EXPORT_LIMITS.maxChunks (50,000) chunks, else 413), file names and
 * the page sizes of the reads.
 */
import { fail, ok, type Result } from "../../core/errors";
import { EXPORT_LIMITS, type ExportFormat, FILE_EXTENSIONS } from "../../core/export/types";
import type { Pause } from "../../core/pace";
import type {
  AnnotationRecord,
  AnnotationStore,
  ArchiveStore,
  BlobStore,
  ExportReader,
  VersionRecord as VersionRow,
} from "../../core/ports";
import type { Kernel } from "../kernel";

export interface ExportDeps {
  kernel: Kernel;
  blobs: BlobStore;
  reader: ExportReader;
  archives: ArchiveStore;
  /** Annotations: the xKG export's attributes, and the dump's annotation events. */
  annotations: AnnotationStore;
  /**
   * Yields the thread between pages of reads and slices of rendering (src/core/pace.ts): locally
   * the reads answer in-process, and an export of 10,000 chunks held every other request for the
   * whole export without it (9 s for the JSON dump).
   */
  pause?: Pause | undefined;
}

export interface ExportBody {
  /** Text, its UTF-8 bytes (a large rendered export, encodeText), or a stream (the JSON dump). */
  body: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;
  contentType: string;
  filename: string;
}

export const LIST_PAGE = 500;
export const EDGE_PAGE = 1000;

export function store(deps: ExportDeps): ExportReader {
  return deps.reader;
}

export function safeName(s: string): string {
  return s.replace(/[^a-zA-Z0-9._-]+/g, "-").slice(0, 80) || "export";
}

export function exportFilename(archive: string, format: ExportFormat, suffix = ""): string {
  return `${safeName(`${archive}${suffix}`)}.${FILE_EXTENSIONS[format]}`;
}

/** 413 when the archive is larger than an export reads. */
export async function checkExportSize(deps: ExportDeps, archiveId: string): Promise<Result<number>> {
  const n = await store(deps).countChunks(archiveId);
  if (n > EXPORT_LIMITS.maxChunks)
    return fail(
      "too_large",
      `archive ${archiveId} holds ${n} chunks; an export reads at most ${EXPORT_LIMITS.maxChunks}`,
      "archive",
      "export query results instead (POST /export/context), or split the archive",
    );
  return ok(n);
}

export async function contentOf(deps: ExportDeps, v: VersionRow): Promise<string> {
  return (await deps.blobs.get(v.contentKey)) ?? "";
}

/**
 * annotationsOf over many chunks, LIST_PAGE chunks per read with a pause between reads. The store
 * reads each chunk's rows in one query ordered by (at, id) and drops repeated ids, so the rows of
 * each chunk are the ones and in the order one call over every id gives.
 */
export async function annotationsPaged(
  deps: ExportDeps,
  archiveId: string,
  chunkIds: readonly string[],
  key: string | undefined,
  asOf: number,
): Promise<AnnotationRecord[]> {
  const ids = [...new Set(chunkIds)];
  const out: AnnotationRecord[] = [];
  for (let i = 0; i < ids.length; i += LIST_PAGE) {
    if (i > 0) await deps.pause?.();
    for (const r of await deps.annotations.annotationsOf(archiveId, ids.slice(i, i + LIST_PAGE), key, asOf))
      out.push(r);
  }
  return out;
}

/** Characters encoded between two pauses (a few ms); a text up to this long is sent as it is. */
export const ENCODE_SLICE = 1 << 20;

/**
 * A long text as its UTF-8 bytes, encoded a MiB of characters at a time with a pause between: the
 * runtime's own encoding of a 21 MB export body took ~0.3 s in one go. Never cuts a surrogate pair,
 * so the bytes are TextEncoder's of the whole text.
 */
export async function encodeText(text: string, pause?: Pause): Promise<Uint8Array<ArrayBuffer>> {
  const enc = new TextEncoder();
  if (text.length <= ENCODE_SLICE) return new Uint8Array(enc.encode(text));
  const parts: Uint8Array[] = [];
  let total = 0;
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + ENCODE_SLICE);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    const bytes = enc.encode(text.slice(i, end));
    parts.push(bytes);
    total += bytes.length;
    i = end;
    await pause?.();
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
