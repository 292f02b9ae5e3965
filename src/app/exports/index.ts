/**
 * Exports: an archive in one of the export formats (the JSON dump in ./dump, the other formats in
 * ./render), or a /context result rendered as a document. The re-import of a dump is an import
 * (src/app/intake/reimport.ts).
 */
import { type ContextBody, type ExportQuery, toMs } from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import type { ContextExportFormat } from "../../core/export/types";
import type { ScoredCard } from "../../core/query";
import { codeCards, codeOptions } from "../code-context";
import type { AppDeps } from "../deps";
import { MAX_SUBTREE, resolveFilter, toContextRequest } from "../lib/filter";
import { type In, timeOf } from "../lib/wire";
import type { ExportDeps } from "./common";
import { exportDump } from "./dump";
import { exportContext, renderArchive } from "./render";

/** GET /export's query as its schema parses it. */
export type ExportFormatQuery = In<typeof ExportQuery>;

/** The part of the archive a collection or within names (at `t`), or none: the whole archive. */
async function selection(
  d: AppDeps,
  archive: string,
  q: ExportFormatQuery,
  t: number,
): Promise<Result<{ only: Set<string>; label: string; root: string } | undefined>> {
  if (q.collection === undefined && q.within === undefined) return ok(undefined);
  if (q.collection !== undefined && q.within !== undefined)
    return fail("validation", "give collection or within, not both", "within");
  if (q.format === "xkg")
    return fail("validation", "collection and within do not apply to format=xkg", "format", "use paper=");
  const root = (q.collection ?? q.within) as string;
  const field = q.collection !== undefined ? "collection" : "within";
  if (!(await d.stores.chunks.chunkRow(archive, root)))
    return fail("not_found", `chunk ${root} is not in archive ${archive}`, field);
  const only =
    q.collection !== undefined
      ? new Set((await d.stores.chunks.edgesAt(archive, [root], "cites", "out", t)).map((e) => e.to))
      : new Set(await d.stores.chunks.subtree(archive, root, t, MAX_SUBTREE));
  const label = q.collection !== undefined ? `collection ${root} (${only.size} members)` : `subtree of ${root}`;
  // The graph page draws the root too: a paper with its sections, a collection with its members.
  if (q.format === "graph-html") only.add(root);
  return ok({ only, label, root });
}

export function exportUseCases(d: AppDeps) {
  const deps: ExportDeps = {
    kernel: d.kernel,
    blobs: d.intake.blobs,
    reader: d.stores.exports,
    archives: d.stores.archives,
    annotations: d.stores.annotations,
    chunks: d.stores.chunks,
    pause: d.pause,
  };
  return {
    /** The archive (or a collection or subtree of it) as a download (json is streamed); 413 over the export size limit. */
    async archive(archive: string, q: ExportFormatQuery) {
      const now = d.clock.now();
      const asOf = toMs(q.as_of);
      if (q.view === "planning" && q.format !== "xkg")
        return fail(
          "validation",
          "view=planning applies to format=xkg only",
          "view",
          "add format=xkg (with paper= for one paper), or drop view",
        );
      const sel = await selection(d, archive, q, asOf ?? now);
      if (!sel.ok) return sel;
      // json is streamed.
      return q.format === "json"
        ? exportDump(deps, archive, now, sel.value?.only)
        : renderArchive(deps, archive, q.format, asOf, now, q.paper, sel.value, q.view ?? "full");
    },
    /** The cards of a /context request rendered in `format`. */
    async context(archive: string, b: In<typeof ContextBody> & { format: ContextExportFormat }) {
      const t = timeOf(d, b.as_of);
      const filter = await resolveFilter(d.stores.chunks, archive, b.filter, t);
      const code = codeOptions(b);
      const reads = { versions: d.stores.chunks, contentOf: d.kernel.contentOf };
      const coded = code
        ? async (cards: ScoredCard[]) => ({ ...(await codeCards(reads, archive, cards, code)), max: code.maxCodeBytes })
        : undefined;
      return exportContext(deps, toContextRequest(archive, b, t, filter), b.format, coded);
    },
  };
}
