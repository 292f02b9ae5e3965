/**
 * What the export use cases share: their dependencies, the body they return, the archive size check
 * (an archive export reads at most EXPORT_LIMITS.maxChunks (50,000) chunks, else 413), file names and
 * the page sizes of the reads.
 */
import { fail, ok, type Result } from "../../core/errors";
import { EXPORT_LIMITS, type ExportFormat, FILE_EXTENSIONS } from "../../core/export/types";
import type {
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
}

export interface ExportBody {
  body: string | ReadableStream<Uint8Array>;
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
