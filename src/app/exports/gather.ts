/**
 * The reads behind the rendered exports: chunk records (the version shown at as_of, papers with
 * their contents, entity names and id-like aliases), the edge graph, the review statuses of chunks
 * and edges, and the records of a /context result's cards. The other formats are built in memory
 * from these (a 50,000-chunk CSV is ~15 MB).
 */
import type { ChunkRecord, GraphEdge, GraphNode } from "../../core/export/types";
import { canonicalPaperId } from "../../core/ids";
import type { ChunkRecord as ChunkRow, VersionRecord as VersionRow } from "../../core/ports";
import { EDGE_REVIEW_PREFIX, NODE_REVIEW_KEY, readReviewValue, reviewStatusAt } from "../../core/review";
import type { EvidenceCard } from "../../core/types";
import { annotationsPaged, contentOf, EDGE_PAGE, type ExportDeps, READ_PAGE, store } from "./common";

export function recordOf(c: ChunkRow, v: VersionRow): ChunkRecord {
  return {
    id: c.chunkId,
    kind: v.kind,
    version: v.version,
    latestVersion: c.latestVersion,
    title: v.title,
    synopsis: v.synopsis,
    validFrom: v.validFrom,
    validTo: v.validTo,
    deprecatedAt: c.deprecatedAt,
    deprecatedBy: c.deprecatedBy,
    entities: v.entities,
    boundaries: v.boundaries,
    source: v.source,
  };
}

/** Add what the bibliographic formats need to paper records: content, entity names, own id-like aliases. */
async function enrichPapers(deps: ExportDeps, archiveId: string, records: ChunkRecord[], versions: VersionRow[]) {
  const st = store(deps);
  const papers = records.filter((r) => r.kind === "paper");
  if (!papers.length) return;
  const vOf = new Map(versions.map((v) => [`${v.chunkId}\u0000${v.version}`, v]));
  const contents = await Promise.all(
    papers.map((r) => {
      const v = vOf.get(`${r.id}\u0000${r.version}`);
      return v ? contentOf(deps, v) : Promise.resolve("");
    }),
  );
  const entIds = [...new Set(papers.flatMap((r) => r.entities))];
  const ents = new Map((await st.entitiesByIds(archiveId, entIds)).map((e) => [e.entityId, e]));
  const selfIds = papers.map((r) => canonicalPaperId(r.id) ?? r.id);
  const aliases = await st.aliasesOf(archiveId, selfIds);
  papers.forEach((r, i) => {
    r.content = contents[i] ?? "";
    r.entityInfo = r.entities.flatMap((id) => {
      const e = ents.get(id);
      return e ? [{ id, type: e.type, name: e.name }] : [];
    });
    const self = selfIds[i];
    r.aliases = aliases.filter((a) => a.entityId === self && canonicalPaperId(a.alias)).map((a) => a.alias);
  });
}

/** Every chunk (latest version), or the chunks visible at `asOf` (the version valid then), in id order. */
export async function archiveRecords(
  deps: ExportDeps,
  archiveId: string,
  asOf: number | undefined,
  withPapers: boolean,
  only?: ReadonlySet<string> | undefined,
): Promise<ChunkRecord[]> {
  const st = store(deps);
  const out: ChunkRecord[] = [];
  let after: string | null = null;
  const wanted = only ? [...only].sort() : null;
  for (let i = 0; !wanted || i < wanted.length; i += READ_PAGE) {
    if (i > 0) await deps.pause?.();
    // A selection reads its ids page by page (ids not in the archive are skipped), else the archive in id order.
    const page: ChunkRow[] = wanted
      ? (await st.chunksByIds(archiveId, wanted.slice(i, i + READ_PAGE))).sort((a, b) =>
          a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0,
        )
      : await st.chunkPage(archiveId, after, READ_PAGE);
    if (!wanted && page.length === 0) break;
    after = page[page.length - 1]?.chunkId ?? null;
    const shown = await st.shownVersions(archiveId, page, asOf);
    const recs: ChunkRecord[] = [];
    for (const c of page) {
      const v = shown.get(c.chunkId);
      if (v) recs.push(recordOf(c, v));
    }
    if (withPapers) await enrichPapers(deps, archiveId, recs, [...shown.values()]);
    out.push(...recs);
  }
  return out;
}

/** Set each record's review status at t (annotation key `review`; auto-generated when never reviewed). */
export async function withReviewStatus<R extends { id: string; reviewStatus?: string | undefined }>(
  deps: ExportDeps,
  archiveId: string,
  records: R[],
  t: number,
): Promise<R[]> {
  const rows = await annotationsPaged(
    deps,
    archiveId,
    records.map((r) => r.id),
    NODE_REVIEW_KEY,
    t,
  );
  const by = new Map<string, Array<{ id: number; at: number; value: unknown }>>();
  for (const r of rows) by.set(r.chunkId, [...(by.get(r.chunkId) ?? []), r]);
  for (const r of records) r.reviewStatus = reviewStatusAt(by.get(r.id) ?? [], t).status;
  return records;
}

export /** Set each edge's review status at t (key `review:edge:<type>:<to>` on its source chunk). */
async function withEdgeStatus(deps: ExportDeps, archiveId: string, edges: GraphEdge[], t: number) {
  const rows = await annotationsPaged(deps, archiveId, [...new Set(edges.map((e) => e.src))], undefined, t);
  const by = new Map<string, Array<{ id: number; at: number; value: unknown }>>();
  for (const r of rows) {
    if (!r.key.startsWith(EDGE_REVIEW_PREFIX)) continue;
    const k = readReviewValue(r.value)?.edge;
    if (!k) continue;
    const key = `${r.chunkId}\u0000${k.type}\u0000${k.to}`;
    by.set(key, [...(by.get(key) ?? []), r]);
  }
  for (const e of edges)
    e.reviewStatus = reviewStatusAt(by.get(`${e.src}\u0000${e.type}\u0000${e.dst}`) ?? [], t).status;
  return edges;
}

export async function archiveGraph(
  deps: ExportDeps,
  archiveId: string,
  asOf: number,
  only?: ReadonlySet<string> | undefined,
  /** archiveRecords(deps, archiveId, asOf, false, only), when the caller has read them already. */
  read?: ChunkRecord[],
): Promise<{ nodes: GraphNode[]; edges: GraphEdge[] }> {
  const st = store(deps);
  const records = read ?? (await archiveRecords(deps, archiveId, asOf, false, only));
  const nodes = new Map<string, GraphNode>(
    records.map((r) => [
      r.id,
      { id: r.id, kind: r.kind, version: r.version, title: r.title, deprecatedAt: r.deprecatedAt, external: false },
    ]),
  );
  const edges: GraphEdge[] = [];
  let after = 0;
  for (;;) {
    await deps.pause?.();
    const page = await st.edgePage(archiveId, after, EDGE_PAGE, asOf);
    if (page.length === 0) break;
    after = page[page.length - 1]?.id ?? after;
    for (const e of page)
      if (!only || only.has(e.src))
        edges.push({
          src: e.src,
          dst: e.dst,
          type: e.type,
          weight: e.weight,
          validFrom: e.validFrom,
          validTo: e.validTo,
          context: e.context,
        });
  }
  // Endpoints not visible at as_of: chunks of the archive (latest head, e.g. a deprecated one) or external ids.
  const missing = [...new Set(edges.flatMap((e) => [e.src, e.dst]))].filter((id) => !nodes.has(id));
  const rows = await st.chunksByIds(archiveId, missing);
  const latest = await st.shownVersions(archiveId, rows, undefined);
  for (const c of rows) {
    const v = latest.get(c.chunkId);
    nodes.set(c.chunkId, {
      id: c.chunkId,
      kind: c.kind,
      version: v?.version ?? c.latestVersion,
      title: v?.title ?? c.chunkId,
      deprecatedAt: c.deprecatedAt,
      external: false,
    });
  }
  for (const id of missing)
    if (!nodes.has(id))
      nodes.set(id, { id, kind: "external", version: 0, title: id, deprecatedAt: null, external: true });
  const sorted = [...nodes.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { nodes: sorted, edges };
}

/** Records for the cards' chunks at the cards' versions, plus the papers that card sections are part of. */
export async function cardRecords(
  deps: ExportDeps,
  archiveId: string,
  cards: EvidenceCard[],
  asOf: number,
  withPapers: boolean,
): Promise<{ cardRecs: ChunkRecord[]; bib: ChunkRecord[] }> {
  const st = store(deps);
  const wanted = cards.map((c) => ({ chunk: c.artifact_id, version: c.version }));
  const versions = await st.exactVersions(archiveId, wanted);
  const chunks = new Map(
    (
      await st.chunksByIds(
        archiveId,
        wanted.map((w) => w.chunk),
      )
    ).map((c) => [c.chunkId, c]),
  );
  const cardRecs: ChunkRecord[] = [];
  for (const v of versions) {
    const c = chunks.get(v.chunkId);
    if (c) cardRecs.push(recordOf(c, v));
  }
  if (!withPapers) return { cardRecs, bib: [] };
  // Sections cite as their paper: follow declared part-of edges to paper chunks (the version valid at as_of).
  const parents = new Set<string>();
  for (const v of versions) for (const e of v.edges) if (e.type === "part-of") parents.add(e.target);
  const have = new Set(cardRecs.filter((r) => r.kind === "paper").map((r) => r.id));
  const parentRows = (
    await st.chunksByIds(
      archiveId,
      [...parents].filter((p) => !have.has(p)),
    )
  ).filter((c) => c.kind === "paper");
  const shown = await st.shownVersions(archiveId, parentRows, asOf);
  const parentRecs = parentRows.flatMap((c) => {
    const v = shown.get(c.chunkId);
    return v ? [recordOf(c, v)] : [];
  });
  const bib = [...cardRecs.filter((r) => r.kind === "paper"), ...parentRecs];
  await enrichPapers(deps, archiveId, bib, [...versions, ...shown.values()]);
  return { cardRecs, bib };
}
