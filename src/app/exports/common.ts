/**
 * What the export use cases share: their dependencies, the body they return, the archive size check
 * (an archive export reads at most EXPORT_LIMITS.maxChunks (50,000) chunks, else 413), file names and
 * the page sizes of the reads.
 */
import { fail, ok, type Result } from "../../core/errors";
import type { Parts } from "../../core/export/parts";
import { EXPORT_LIMITS, type ExportFormat, FILE_EXTENSIONS } from "../../core/export/types";
import type { Pause } from "../../core/pace";
import type {
  AnnotationRecord,
  AnnotationStore,
  ArchiveStore,
  BlobStore,
  ChunkStore,
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
   * Edges at a time: the xKG export follows `implements`, `tests` and a paper's `part-of` edges to
   * its model-made techniques and their code (src/app/exports/xkg-model.ts); without it they show
   * no code.
   */
  chunks?: Pick<ChunkStore, "edgesAt"> | undefined;
  /**
   * Yields the thread between pages of reads and slices of rendering (src/core/pace.ts): locally
   * the reads answer in-process, and an export of 10,000 chunks held every other request for the
   * whole export without it (9 s for the JSON dump).
   */
  pause?: Pause | undefined;
}

export interface ExportBody {
  /** Text, or a stream of UTF-8 bytes (the JSON dump; a large rendered export, partsBody). */
  body: string | ReadableStream<Uint8Array>;
  contentType: string;
  filename: string;
  /** An HTML page's own Content-Security-Policy, sent as the header (default: the html export's). */
  csp?: string | undefined;
}

export const LIST_PAGE = 500;
/**
 * Chunks per read of the rendered exports, with a pause after each: locally the reads answer
 * in-process, and a request that arrives meanwhile needs a few turns of the thread to reach the
 * Worker, each one waiting for the slice running then. 500 chunks a read made slices of ~0.25 s
 * on a 50,000-chunk archive, and /healthz waited up to ~1 s; 200 keeps them near 0.1 s.
 */
export const READ_PAGE = 200;
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
 * annotationsOf over many chunks, READ_PAGE chunks per read with a pause between reads. The store
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
  for (let i = 0; i < ids.length; i += READ_PAGE) {
    if (i > 0) await deps.pause?.();
    for (const r of await deps.annotations.annotationsOf(archiveId, ids.slice(i, i + READ_PAGE), key, asOf))
      out.push(r);
  }
  return out;
}

/** Characters per chunk of a streamed body (a few ms of rendering and encoding); a text up to this long is sent as it is. */
export const ENCODE_SLICE = 1 << 20;

/**
 * The body of a rendered document: its text when short (at most ENCODE_SLICE characters, the text
 * as before), else a stream of its UTF-8 bytes made as it is read, about ENCODE_SLICE characters
 * per chunk with a pause before each. Building 50,000 chunks as one HTML string held ~90 MB of heap
 * (and the Worker for GC pauses of most of a second), and the runtime's encoding of it ~0.3 s. The
 * bytes are TextEncoder's of joinParts(doc): no chunk ends inside a surrogate pair.
 */
export function partsBody(doc: Parts, pause?: Pause): string | ReadableStream<Uint8Array> {
  const it = doc.parts[Symbol.iterator]();
  let first = true;
  let done = false;
  /** The next parts, joined, until at least `chars` characters or the end. */
  const take = (chars: number): string => {
    let text = "";
    while (text.length < chars) {
      const n = it.next();
      if (n.done) {
        done = true;
        break;
      }
      text += first ? n.value : doc.sep + n.value;
      first = false;
    }
    return text;
  };
  let pending = take(ENCODE_SLICE + 1);
  if (done) return pending;
  const enc = new TextEncoder();
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let text = pending;
      pending = "";
      if (started && !done) {
        await pause?.();
        text += take(ENCODE_SLICE);
      }
      started = true;
      // A high surrogate at the end waits for its pair in the next chunk.
      const last = text.charCodeAt(text.length - 1);
      if (!done && last >= 0xd800 && last <= 0xdbff) {
        pending = text.slice(-1);
        text = text.slice(0, -1);
      }
      if (text) controller.enqueue(enc.encode(text));
      if (done && !pending) controller.close();
    },
  });
}
