/**
 * format=bbl: a LaTeX .bbl file (src/core/formats/bbl.ts) imported as the reference list of a paper
 * already in the archive. The paper gets one next version (nextArtifact) carrying a `cites` edge to
 * every archive paper an entry names (by DOI, arXiv or OpenAlex id, else by title: resolveReferences,
 * as the PDF import matches its References); the entries that match nothing are kept on the paper as
 * `references:unresolved`, so importing the same .bbl after a cited paper arrives cites it. The same
 * file again writes no version (and no annotation). The plan goes through applyPlan like every
 * import: hard-deleted targets stay deleted (src/app/intake/tombstones.ts), the run is logged.
 */
import { fail, ok, type Result } from "../../core/errors";
import { type BblFile, parseBblSliced } from "../../core/formats/bbl";
import { LIMITS } from "../../core/formats/common";
import type { ImportPlan } from "../../core/formats/types";
import { runSliced } from "../../core/pace";
import type { AppDeps } from "../deps";
import { nextArtifact } from "../review/apply";
import { annotationsFit, applyAndLog } from "./imports";
import type { ApplyOutcome } from "./outcome";
import { type ReferenceReport, resolveReferences, UNRESOLVED_REFERENCES_KEY } from "./references";
import type { Recreate } from "./tombstones";

export interface BblImportOptions {
  /** Chunk id of the citing paper. */
  paper: string;
  /** File name, recorded in the ingest log. */
  name: string;
  /** Valid time of the paper's next version (default: now). */
  validFrom?: number | undefined;
  recreate?: Recreate | undefined;
}

export type BblImportOutcome = ApplyOutcome & {
  references: ReferenceReport & { clipped?: number[] };
  paper: { id: string; status: string; version?: number };
};

export async function importBbl(
  d: AppDeps,
  archiveId: string,
  text: string,
  o: BblImportOptions,
): Promise<Result<BblImportOutcome>> {
  const started = Date.now();
  const parsed = await runSliced(parseBblSliced(text), d.intake.pause);
  if (!parsed.ok) return parsed;
  const at = o.validFrom ?? d.clock.now();
  const next = await nextArtifact(d, archiveId, o.paper, at, () => ok(undefined));
  if (!next.ok) return paperFailure(next.error, o.paper, archiveId);
  const paper = next.value;
  if (paper.kind !== "paper")
    return fail(
      "validation",
      `paper: ${o.paper} is a ${paper.kind} chunk, not a paper`,
      "paper",
      "name the chunk id of the citing paper (GET …/chunks?kind=paper lists them)",
    );
  const { report, edges, unresolved } = await resolveReferences(d.intake.world, archiveId, entriesOf(parsed.value), {
    paper: o.paper,
    ids: "archive",
    alreadyCited: paper.edges.filter((e) => e.type === "cites").map((e) => e.target),
  });
  if (paper.edges.length + edges.length > LIMITS.edges)
    return fail(
      "too_large",
      `${o.paper} has ${paper.edges.length} edges and this .bbl adds ${edges.length}; a version holds at most ${LIMITS.edges}`,
      "body",
      "split the .bbl and import the parts into separate chunks, or remove edges the paper no longer needs",
    );
  paper.edges = [...paper.edges, ...edges];
  const plan: ImportPlan = {
    artifacts: [paper],
    deprecations: [],
    skipped: [],
    annotations: [{ chunk: o.paper, key: UNRESOLVED_REFERENCES_KEY, value: unresolved }],
  };
  const fits = annotationsFit(plan, "bbl");
  if (!fits.ok) return fits;
  const applied = await applyAndLog(d.intake, archiveId, "bbl", o.name, plan, started, o.recreate);
  if (!applied.ok) return applied;
  const item = applied.value.items.find((x) => x.id === o.paper);
  const failure = applied.value.failures.find((x) => x.id === o.paper);
  return ok({
    ...applied.value,
    references: { ...report, ...(parsed.value.clipped.length ? { clipped: parsed.value.clipped } : {}) },
    paper: {
      id: o.paper,
      status: failure ? "failed" : (item?.status ?? "unchanged"),
      ...(item?.version !== undefined ? { version: item.version } : {}),
    },
  });
}

function entriesOf(file: BblFile) {
  return file.entries.map((e) => ({ n: e.n, key: e.key, text: e.text, title: e.title, ids: e.ids, cited: e.cited }));
}

/** nextArtifact's failures, about `paper`: 404 when it has no current version, 409 when it takes none. */
function paperFailure(error: { kind: string; message: string }, paper: string, archiveId: string) {
  if (error.kind === "not_found")
    return fail(
      "not_found",
      `paper: ${paper} has no current version in archive ${archiveId}`,
      "paper",
      "import the citing paper first (format=bibtex, markdown or pdf), then its .bbl; or give its chunk id as stored",
    );
  if (error.kind === "conflict")
    return fail(
      "conflict",
      `paper: ${error.message}`,
      "paper",
      "name a current paper (a deprecated one takes no new versions), or give valid_from after its current version",
    );
  return fail("unavailable", error.message, "paper");
}
