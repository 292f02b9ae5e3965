/** Exports: an archive in one of the export formats, or a /context result rendered as a document. */
import type { z } from "zod";
import { type ContextBody, toMs } from "../contract";
import type { ContextExportFormat, ExportFormat } from "../core/export/types";
import type { AppDeps } from "./deps";
import { exportArchive, exportContext } from "./feeds/export";
import { contextRanking, resolveFilter, toContextRequest } from "./operations";

type In<T extends z.ZodType> = z.infer<T>;

export interface ExportFormatQuery {
  format: ExportFormat;
  as_of?: string | undefined;
  paper?: string | undefined;
}

export function exportUseCases(d: AppDeps) {
  const deps = {
    pg: d.kernel,
    blobs: d.feeds.blobs,
    reader: d.stores.exports,
    archives: d.stores.archives,
    annotations: d.stores.annotations,
  };
  return {
    /** The archive as a download (json is streamed); 413 over the export size limit. */
    archive(archive: string, q: ExportFormatQuery) {
      return exportArchive(deps, archive, q.format, toMs(q.as_of), d.clock.now(), q.paper);
    },
    /** The cards of a /context request rendered in `format`. */
    async context(archive: string, b: In<typeof ContextBody> & { format: ContextExportFormat }) {
      const filter = await resolveFilter(d.stores.chunks, archive, b.filter, toMs(b.as_of) ?? d.clock.now());
      const { order } = contextRanking(
        { discovery: d.stores.discovery, annotations: d.stores.annotations },
        archive,
        b,
      );
      return exportContext(deps, { ...toContextRequest(archive, b, filter), order }, b.format);
    },
  };
}
