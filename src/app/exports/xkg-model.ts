/**
 * The model-made techniques of the xKG export (src/core/export/xkg-model.ts states the layout): the
 * `technique` chunks whose shown version has a `model:` source and no `xkg:` boundary, found by the
 * export's own read of the archive (or of one paper's key range `<paper>#…`; a technique stored
 * under the `technique:` fallback id is found by the part-of edges into the paper, at most
 * MAX_FALLBACK). For those, it reads the code that `implements` each (any `code_unit`, wherever its
 * id), the units that `tests` that code, imported code nodes' `xkg` annotation (package,
 * documentation offset), each technique's stored type (its `proposal` annotation) and its review
 * status, all at the export's time. A paper no xKG import wrote gets an object when a model
 * technique is part-of it, or when `paper=` names it and it is a `paper` chunk.
 */
import { foldAnnotations } from "../../core/annotations";
import {
  type ModelCode,
  type ModelTechnique,
  plainPaperObject,
  withModelTechniques,
} from "../../core/export/xkg-model";
import { XKG_KEY } from "../../core/formats/xkg";
import type { ChunkRecord as ChunkRow, VersionRecord as VersionRow } from "../../core/ports";
import { PROPOSAL_KEY } from "../lib/proposals";
import { toEvent } from "../lib/records";
import { annotationsPaged, contentOf, type ExportDeps, READ_PAGE, store } from "./common";
import { withReviewStatus } from "./gather";

type Json = unknown;
type Picked = { c: ChunkRow; v: VersionRow };
type Paper = { id: string; paper: Record<string, Json> };

/** Chunks part-of one paper outside its key range read for `technique:` ids; code units per technique. */
const MAX_FALLBACK = 2000;
const MAX_CODE = 20;

/** A technique chunk POST /techniques/propose wrote (not one an xKG import wrote). */
export const isModelTechnique = (v: VersionRow): boolean =>
  v.kind === "technique" && v.source.startsWith("model:") && !v.boundaries.some((b) => b.startsWith("xkg:"));

/** The shown versions of these chunk ids (chunks without one are left out). */
async function shown(deps: ExportDeps, archiveId: string, ids: readonly string[], asOf: number | undefined) {
  const out = new Map<string, VersionRow>();
  const uniq = [...new Set(ids)];
  for (let i = 0; i < uniq.length; i += READ_PAGE) {
    await deps.pause?.();
    const rows = await store(deps).chunksByIds(archiveId, uniq.slice(i, i + READ_PAGE));
    for (const [id, v] of await store(deps).shownVersions(archiveId, rows, asOf)) out.set(id, v);
  }
  return out;
}

/** Each chunk's folded annotation value under `key` at t. */
async function annotationValues(deps: ExportDeps, archiveId: string, ids: readonly string[], key: string, t: number) {
  const rows = await annotationsPaged(deps, archiveId, ids, key, t);
  const byChunk = new Map<string, typeof rows>();
  for (const r of rows) byChunk.set(r.chunkId, [...(byChunk.get(r.chunkId) ?? []), r]);
  const out = new Map<string, unknown>();
  for (const [chunk, evs] of byChunk) out.set(chunk, foldAnnotations(evs.map(toEvent), t).get(key)?.value);
  return out;
}

const field = (v: unknown, k: string): unknown =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined;

/** The code units implementing each technique, with their tests. */
async function codeOf(
  deps: ExportDeps,
  archiveId: string,
  techniques: readonly string[],
  asOf: number | undefined,
  t: number,
): Promise<Map<string, ModelCode[]>> {
  const out = new Map<string, ModelCode[]>();
  const chunks = deps.chunks;
  if (!chunks || techniques.length === 0) return out;
  const impl = await chunks.edgesAt(archiveId, [...techniques], "implements", "in", t);
  const codeVs = await shown(
    deps,
    archiveId,
    impl.map((e) => e.to),
    asOf,
  );
  const codeIds = [...codeVs.values()].filter((v) => v.kind === "code_unit").map((v) => v.chunkId);
  const testEdges = await chunks.edgesAt(archiveId, codeIds, "tests", "in", t);
  const testVs = await shown(
    deps,
    archiveId,
    testEdges.map((e) => e.to),
    asOf,
  );
  const xkg = await annotationValues(deps, archiveId, codeIds, XKG_KEY, t);
  const texts = new Map<string, string>();
  const all = [...codeIds.map((id) => codeVs.get(id)), ...testVs.values()].filter(
    (v): v is VersionRow => v !== undefined,
  );
  for (let i = 0; i < all.length; i += 50) {
    await deps.pause?.();
    const slice = all.slice(i, i + 50);
    const got = await Promise.all(slice.map((v) => contentOf(deps, v)));
    for (const [j, v] of slice.entries()) texts.set(v.chunkId, got[j] ?? "");
  }
  const testsOf = new Map<string, string[]>();
  for (const e of [...testEdges].sort((a, b) => (a.to < b.to ? -1 : 1)))
    if (testVs.get(e.to)?.kind === "code_unit")
      testsOf.set(e.from, [...(testsOf.get(e.from) ?? []), texts.get(e.to) ?? ""]);
  for (const e of [...impl].sort((a, b) => (a.to < b.to ? -1 : 1))) {
    const v = codeVs.get(e.to);
    if (v?.kind !== "code_unit" || (out.get(e.from)?.length ?? 0) >= MAX_CODE) continue;
    const node = xkg.get(v.chunkId);
    const role = field(node, "role");
    const at = field(node, "documentation_at");
    out.set(e.from, [
      ...(out.get(e.from) ?? []),
      {
        id: v.chunkId,
        content: texts.get(v.chunkId) ?? "",
        origin: role === "code" ? "xkg" : v.source,
        documentationAt: role === "code" && typeof at === "number" ? at : undefined,
        package: role === "code" ? field(node, "package") : undefined,
        tests: testsOf.get(v.chunkId) ?? [],
      },
    ]);
  }
  return out;
}

/**
 * The papers of the xKG export with their model techniques appended, and the papers no xKG import
 * wrote that have some (or that `paper` names), in paper id order.
 */
export async function addModelTechniques(
  deps: ExportDeps,
  archiveId: string,
  asOf: number | undefined,
  t: number,
  papers: Paper[],
  found: readonly Picked[],
  paper: string | undefined,
): Promise<Paper[]> {
  const techs = new Map(found.map((x) => [x.c.chunkId, x.v]));
  // One paper: techniques stored under `technique:` ids are not in its key range; its part-of edges find them.
  if (paper !== undefined && deps.chunks) {
    const prefix = `${paper}#`;
    const into = (await deps.chunks.edgesAt(archiveId, [paper], "part-of", "in", t))
      .map((e) => e.to)
      .filter((id) => !id.startsWith(prefix) && !techs.has(id))
      .slice(0, MAX_FALLBACK);
    for (const [id, v] of await shown(deps, archiveId, into, asOf)) if (isModelTechnique(v)) techs.set(id, v);
  }
  const known = new Set(papers.map((p) => p.id));
  const ownerOf = (v: VersionRow) =>
    v.edges.find((e) => e.type === "part-of" && !techs.has(e.target) && (paper === undefined || e.target === paper))
      ?.target;
  const wanted = new Set<string>();
  for (const v of techs.values()) {
    const o = ownerOf(v);
    if (o !== undefined && !known.has(o)) wanted.add(o);
  }
  if (paper !== undefined && !known.has(paper)) wanted.add(paper);
  const plain: Paper[] = [];
  const ownerVs = await shown(deps, archiveId, [...wanted], asOf);
  for (const [id, v] of ownerVs)
    if (v.kind === "paper") plain.push({ id, paper: plainPaperObject(v.title, await contentOf(deps, v)) });
  const owners = new Set([...known, ...plain.map((p) => p.id)]);

  const ids = [...techs.keys()].filter((id) => {
    const o = ownerOf(techs.get(id) as VersionRow);
    return o !== undefined && owners.has(o);
  });
  const code = await codeOf(deps, archiveId, ids, asOf, t);
  const proposals = await annotationValues(deps, archiveId, ids, PROPOSAL_KEY, t);
  const reviews = await withReviewStatus(
    deps,
    archiveId,
    ids.map((id) => ({ id, reviewStatus: undefined as string | undefined })),
    t,
  );
  const list: ModelTechnique[] = [];
  for (const [i, id] of ids.entries()) {
    const v = techs.get(id) as VersionRow;
    const type = field(proposals.get(id), "type");
    list.push({
      id,
      content: await contentOf(deps, v),
      partOf: v.edges.filter((e) => e.type === "part-of").map((e) => e.target),
      origin: v.source,
      type: typeof type === "string" ? type : undefined,
      review: reviews[i]?.reviewStatus,
      code: code.get(id) ?? [],
    });
  }
  return [...papers, ...plain]
    .map((p) => ({ id: p.id, paper: withModelTechniques(p.paper, p.id, list) }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
