/**
 * POST /references/select: A_S's selection (seed 001 §3.3): "filters and ranks the retrieved
 * references by citation count, removes incomplete entries, and selects the top Q_k unique
 * references". The candidates are a node's cites targets at `as_of`, or the ids given. An entry
 * lacking a required field (title, abstract, year) is removed before the top Q_k and reported with
 * what it lacks (abstract: content that is neither a bibliography line, boundary reference-only, nor
 * the title again); an entry whose normalised title equals a better-ranked one's is a duplicate.
 * Citations: the `citations` annotation at `as_of` (from a source), else the chunks citing it in the
 * archive then. Order: citations, then year (newest), then id. Nothing is written.
 */

import type * as S from "../../contract";
import type { COMPLETENESS_FIELDS } from "../../contract/sgmc";
import { foldAnnotations } from "../../core/annotations";
import { fail, ok, type Result } from "../../core/errors";
import { REFERENCE_ONLY } from "../../core/formats/fulltext";
import type { StoredVersion } from "../../core/ports";
import { paperYear } from "../../core/research/stats";
import type { AppDeps } from "../deps";
import { toEvent } from "../lib/records";
import { archiveUseCase } from "../lib/use-case";
import { type In, iso } from "../lib/wire";
import { nodeIdCheck, readContents } from "./common";

type Field = (typeof COMPLETENESS_FIELDS)[number];

/** A title as the key of "the same work": case, accents, punctuation and spacing folded. */
export const titleKey = (title: string) =>
  title
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/** Contents at most this long are read to tell a title repeated as content from an abstract. */
const TITLE_ONLY_CHARS = 1_000;

/**
 * An abstract: content that is more than a bibliography line (boundary reference-only) or the title
 * again (case and punctuation folded).
 */
function hasAbstract(v: StoredVersion, content: string | undefined): boolean {
  if (v.contentChars === 0 || v.boundaries.includes(REFERENCE_ONLY)) return false;
  if (content === undefined) return true;
  const k = titleKey(content);
  return k.length > 0 && k !== titleKey(v.title);
}

export function referenceUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;

  return {
    selectReferences: archiveUseCase(d, {
      check: (b: In<typeof S.ReferencesSelectBody>) =>
        (b.node === undefined) === (b.ids === undefined)
          ? fail("validation", "give exactly one of node or ids", "node", "node: an outline node; ids: chunk ids")
          : b.node !== undefined
            ? nodeIdCheck(b.node)
            : null,
      async run({ archive, t }, b): Promise<Result<In<typeof S.ReferencesSelectResult>>> {
        let ids: string[];
        if (b.node !== undefined) {
          const node = (await chunks.visibleAt(archive, [b.node], t)).get(b.node);
          if (!node) return fail("not_found", `chunk ${b.node} has no version valid at ${iso(t)}`, "node");
          ids = [...new Set((await chunks.edgesAt(archive, [b.node], "cites", "out", t)).map((e) => e.to))];
        } else ids = [...new Set(b.ids)];

        const [visible, papers, events] = ids.length
          ? await Promise.all([
              chunks.visibleAt(archive, ids, t),
              d.stores.discovery.papersOf(archive, ids, t),
              d.stores.annotations.annotationsOf(archive, ids, "citations", t),
            ])
          : [new Map(), [], []];
        const rows = new Map(papers.map((p) => [p.chunkId, p]));
        const byChunk = new Map<string, ReturnType<typeof toEvent>[]>();
        for (const e of events) byChunk.set(e.chunkId, [...(byChunk.get(e.chunkId) ?? []), toEvent(e)]);
        const annotated = new Map<string, number>();
        for (const [c, evs] of byChunk) {
          const v = foldAnnotations(evs, t).get("citations")?.value;
          if (typeof v === "number" && Number.isFinite(v)) annotated.set(c, v);
        }

        const require = new Set<Field>(b.require);
        // Only short contents can be a title alone; longer ones are not read.
        const short = [...visible.values()].filter((v) => v.contentChars <= TITLE_ONLY_CHARS);
        const contents = require.has("abstract")
          ? await readContents(
              d,
              short.map((v) => v.contentKey),
            )
          : new Map<string, string>();
        const incomplete: In<typeof S.ReferencesSelectResult>["incomplete"] = [];
        const notVisible: string[] = [];
        const complete: In<typeof S.ReferencesSelectResult>["selected"] = [];
        for (const id of ids) {
          const v = visible.get(id);
          if (!v) {
            notVisible.push(id);
            continue;
          }
          const year = paperYear(v.boundaries, v.validFrom);
          const missing: Field[] = [];
          // A title that is the id again is a placeholder (an import without one).
          if (require.has("title") && (v.title.trim() === "" || v.title === v.chunkId)) missing.push("title");
          if (require.has("abstract") && !hasAbstract(v, contents.get(v.contentKey))) missing.push("abstract");
          if (require.has("year") && year === null) missing.push("year");
          if (missing.length) {
            incomplete.push({ id, missing });
            continue;
          }
          const a = annotated.get(id);
          complete.push({
            id,
            version: v.version,
            title: v.title,
            year,
            citations: a ?? rows.get(id)?.citesIn ?? 0,
            citations_from: a !== undefined ? "annotation" : "cites",
          });
        }
        complete.sort(
          (x, y) =>
            y.citations - x.citations || (y.year ?? -1) - (x.year ?? -1) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
        );
        const seen = new Map<string, string>();
        const duplicates: In<typeof S.ReferencesSelectResult>["duplicates"] = [];
        const unique: typeof complete = [];
        for (const r of complete) {
          const k = titleKey(r.title);
          const of = k ? seen.get(k) : undefined;
          if (of !== undefined) {
            duplicates.push({ id: r.id, of });
            continue;
          }
          if (k) seen.set(k, r.id);
          unique.push(r);
        }
        return ok({
          as_of: iso(t),
          node: b.node ?? null,
          q_k: b.q_k,
          require: [...b.require],
          candidates: ids.length,
          selected: unique.slice(0, b.q_k),
          incomplete,
          duplicates,
          not_visible: notVisible,
          beyond_q_k: Math.max(0, unique.length - b.q_k),
        });
      },
    }),
  };
}
