/**
 * Exports: gather an archive (or a query result) from D1 and R2 and hand it to the pure
 * renderers in src/core/export; and the lossless re-import of the JSON dump, replayed through the
 * normal write paths (ingest, entity operations, deprecate) so every invariant holds and a second
 * import of the same dump changes nothing.
 *
 * Limits: an archive export reads at most EXPORT_LIMITS.maxChunks (50,000) chunks, else 413. The JSON
 * dump is streamed page by page (100 chunks with all their versions and contents at a time), so its
 * size is bounded by the client, not by Worker memory; the other formats are built in memory (a
 * 50,000-chunk CSV is ~15 MB). The re-import takes one dump per request, so it is bounded by the /v1
 * body limit (32 MiB).
 */

import { foldAnnotations } from "../../core/annotations";
import { fail, ok, type Result } from "../../core/errors";
import { renderBibtex, renderCslItems } from "../../core/export/biblio";
import { renderCardsCsv, renderCsv } from "../../core/export/csv";
import { renderGraphml, renderMermaid } from "../../core/export/graph";
import { renderHtml } from "../../core/export/html";
import { anchorLabel, renderArchiveMarkdown, renderContextMarkdown } from "../../core/export/markdown";
import { parseDump, planReplay, type ReplayPlan } from "../../core/export/replay";
import {
  type ArchiveDump,
  type ChunkRecord,
  CONTENT_TYPES,
  type ContextExportFormat,
  DUMP_FORMAT,
  DUMP_SCHEMA_VERSION,
  type DumpAnnotation,
  type DumpChunk,
  type DumpDeprecation,
  type DumpEdge,
  type DumpEntity,
  type DumpEntityOp,
  EXPORT_LIMITS,
  type ExportFormat,
  FILE_EXTENSIONS,
  type GraphEdge,
  type GraphNode,
} from "../../core/export/types";
import { buildXkgPapers, type XkgExportNode } from "../../core/export/xkg";
import { XKG_KEY, type XkgNode } from "../../core/formats/xkg";
import { canonicalPaperId, normAlias } from "../../core/ids";
import type { EdgeInput } from "../../core/ingest";
import type { AnnotationRecord, AnnotationStore } from "../../core/ports";
import {
  type ArchiveStore,
  type BlobStore,
  type ChunkRecord as ChunkRow,
  type EntityRecord as EntityRow,
  type ExportReader,
  parseJson,
  type VersionRecord as VersionRow,
} from "../../core/ports";
import type { ContextRequest } from "../../core/query";
import type { RelationInput } from "../../core/relations";
import { EDGE_REVIEW_PREFIX, NODE_REVIEW_KEY, readReviewValue, reviewStatusAt } from "../../core/review";
import type { EvidenceCard } from "../../core/types";
import type { PaperGuru } from "../kernel";
import { toEvent } from "../lib/records";
import type { ApplyOutcome } from "./apply";
import type { FeedDeps } from "./deps";

export interface ExportDeps {
  pg: PaperGuru;
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

const DUMP_PAGE = 100;
const LIST_PAGE = 500;
const EDGE_PAGE = 1000;

function store(deps: ExportDeps): ExportReader {
  return deps.reader;
}

function safeName(s: string): string {
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

async function contentOf(deps: ExportDeps, v: VersionRow): Promise<string> {
  return (await deps.blobs.get(v.contentKey)) ?? "";
}

// ------------------------------------------------------------------ the lossless JSON dump

function dumpVersion(v: VersionRow, content: string) {
  return {
    version: v.version,
    kind: v.kind,
    title: v.title,
    synopsis: v.synopsis,
    content,
    content_hash: v.contentHash,
    artifact_hash: v.artifactHash,
    entities: parseJson<string[]>(v.entities, []),
    boundaries: parseJson<string[]>(v.boundaries, []),
    edges: parseJson<EdgeInput[]>(v.edges, []),
    ...(v.relations ? { relations: parseJson<RelationInput[]>(v.relations, []) } : {}),
    valid_from: v.validFrom,
    valid_to: v.validTo,
    recorded_at: v.recordedAt,
    source: v.source,
  };
}

function dumpAnnotation(r: AnnotationRecord): DumpAnnotation {
  return {
    key: r.key,
    op: r.op === "add" ? "add" : "set",
    value: parseJson<unknown>(r.value, null),
    version: r.version,
    actor: r.actor,
    reason: r.reason,
    at: r.at,
    recorded_at: r.recordedAt,
    event_id: r.eventId,
    seq: r.id,
  };
}

function parseDetail(detail: string): Record<string, unknown> {
  return parseJson<Record<string, unknown>>(detail, {});
}

/** One entity of the dump: its names over time, aliases with their intervals and its operations. */
function dumpEntity(
  e: EntityRow,
  aliases: Awaited<ReturnType<ExportReader["aliasesOf"]>>,
  events: Awaited<ReturnType<ExportReader["eventsOf"]>>,
): DumpEntity {
  const evs = events.filter((x) => x.entityId === e.entityId);
  const created = evs.find((x) => x.op === "created");
  const ops: DumpEntityOp[] = [];
  for (const x of evs) {
    const d = parseDetail(x.detail);
    const base = { at: x.at, recorded_at: x.recordedAt, seq: x.id };
    // Alias events of ingests are kept too: replayed after their ingest they are no-ops (the row
    // exists), and they restore a row if the replayed ingest did not create it.
    if (x.op === "alias" && typeof d.alias === "string") ops.push({ op: "alias", alias: d.alias, ...base });
    else if (x.op === "rename" && typeof d.to === "string")
      ops.push({ op: "rename", from: String(d.from ?? ""), to: d.to, ...base });
    else if (x.op === "merged_into" && typeof d.into === "string") ops.push({ op: "merge", into: d.into, ...base });
  }
  return {
    id: e.entityId,
    type: e.type,
    name: e.name,
    created: created
      ? {
          name: String(parseDetail(created.detail).name ?? e.name),
          at: created.at,
          recorded_at: created.recordedAt,
        }
      : null,
    merged_into: e.mergedInto,
    merged_at: e.mergedAt,
    aliases: aliases
      .filter((a) => a.entityId === e.entityId)
      .map((a) => ({ alias: a.alias, valid_from: a.validFrom, valid_to: a.validTo })),
    ops,
  };
}

/** The dump as a stream of JSON text: chunks (with versions and contents), entities, deprecations, edges. */
export function streamArchiveDump(
  deps: ExportDeps,
  archiveId: string,
  now: number,
  only?: ReadonlySet<string> | undefined,
): ReadableStream<Uint8Array> {
  const st = store(deps);
  const enc = new TextEncoder();
  async function* pieces(): AsyncGenerator<string> {
    const archive = await deps.archives.getArchive(archiveId);
    const head = {
      format: DUMP_FORMAT,
      schema_version: DUMP_SCHEMA_VERSION,
      exported_at: now,
      archive: {
        id: archiveId,
        name: archive?.name ?? archiveId,
        description: archive?.description ?? "",
        params: archive?.params ?? {},
      },
    };
    yield `${JSON.stringify(head).slice(0, -1)},\n"chunks":[`;
    const deprecated: ChunkRow[] = [];
    let after: string | null = null;
    let first = true;
    // A selection (collection or subtree) keeps its chunks, the entities they name and their edges.
    const named = new Set<string>();
    for (;;) {
      const all = await st.chunkPage(archiveId, after, DUMP_PAGE);
      if (all.length === 0) break;
      after = all[all.length - 1]?.chunkId ?? null;
      const page = only ? all.filter((c) => only.has(c.chunkId)) : all;
      if (page.length === 0) continue;
      const versions = await st.allVersions(
        archiveId,
        page.map((c) => c.chunkId),
      );
      const contents = await Promise.all(versions.map((v) => contentOf(deps, v)));
      const notes = new Map<string, DumpAnnotation[]>();
      for (const r of await deps.annotations.annotationsOf(
        archiveId,
        page.map((c) => c.chunkId),
        undefined,
        Number.MAX_SAFE_INTEGER,
      ))
        notes.set(r.chunkId, [...(notes.get(r.chunkId) ?? []), dumpAnnotation(r)]);
      const byChunk = new Map<string, ReturnType<typeof dumpVersion>[]>();
      if (only) for (const v of versions) for (const e of parseJson<string[]>(v.entities, [])) named.add(e);
      versions.forEach((v, i) => {
        byChunk.set(v.chunkId, [...(byChunk.get(v.chunkId) ?? []), dumpVersion(v, contents[i] ?? "")]);
      });
      for (const c of page) {
        if (c.deprecatedAt !== null) deprecated.push(c);
        const item: DumpChunk = {
          id: c.chunkId,
          kind: c.kind,
          latest_version: c.latestVersion,
          first_valid_from: c.firstValidFrom,
          deprecated_at: c.deprecatedAt,
          deprecated_by: c.deprecatedBy,
          versions: byChunk.get(c.chunkId) ?? [],
          ...(notes.has(c.chunkId) ? { annotations: notes.get(c.chunkId) } : {}),
        };
        yield `${first ? "\n" : ",\n"}${JSON.stringify(item)}`;
        first = false;
      }
    }
    yield '],\n"entities":[';
    let eAfter: string | null = null;
    first = true;
    for (;;) {
      const page = await st.entityPage(archiveId, eAfter, LIST_PAGE);
      if (page.length === 0) break;
      eAfter = page[page.length - 1]?.entityId ?? null;
      const ids = page.map((e) => e.entityId).filter((e) => !only || named.has(e));
      if (ids.length === 0) continue;
      const [aliases, events] = await Promise.all([st.aliasesOf(archiveId, ids), st.eventsOf(archiveId, ids)]);
      for (const e of page) {
        if (only && !named.has(e.entityId)) continue;
        const item = dumpEntity(e, aliases, events);
        yield `${first ? "\n" : ",\n"}${JSON.stringify(item)}`;
        first = false;
      }
    }
    yield '],\n"deprecations":[';
    const depEvents = new Map<string, { reason: string; recordedAt: number }>();
    for (const ev of await st.deprecationEvents(archiveId)) {
      const d = parseDetail(ev.detail);
      depEvents.set(ev.entityId.slice("chunk:".length), {
        reason: typeof d.reason === "string" ? d.reason : "",
        recordedAt: ev.recordedAt,
      });
    }
    const deps_: DumpDeprecation[] = deprecated
      .map((c) => ({
        id: c.chunkId,
        at: c.deprecatedAt as number,
        by: c.deprecatedBy,
        reason: depEvents.get(c.chunkId)?.reason ?? "",
        recorded_at: depEvents.get(c.chunkId)?.recordedAt ?? c.updatedAt,
        version: c.latestVersion,
      }))
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
    yield deps_.map((d, i) => `${i ? ",\n" : "\n"}${JSON.stringify(d)}`).join("");
    yield '],\n"edges":[';
    let edgeAfter = 0;
    first = true;
    for (;;) {
      const page = await st.edgePage(archiveId, edgeAfter, EDGE_PAGE);
      if (page.length === 0) break;
      edgeAfter = page[page.length - 1]?.id ?? edgeAfter;
      for (const e of page) {
        if (only && !only.has(e.src)) continue;
        const item: DumpEdge = {
          src: e.src,
          dst: e.dst,
          type: e.type,
          weight: e.weight,
          valid_from: e.validFrom,
          valid_to: e.validTo,
          version: e.version,
          context: e.context,
        };
        yield `${first ? "\n" : ",\n"}${JSON.stringify(item)}`;
        first = false;
      }
    }
    yield "]}\n";
  }
  const it = pieces();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await it.next();
        if (done) controller.close();
        else controller.enqueue(enc.encode(value));
      } catch (e) {
        controller.error(e);
      }
    },
  });
}

// ------------------------------------------------------------------ listing formats

function recordOf(c: ChunkRow, v: VersionRow): ChunkRecord {
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
    entities: parseJson<string[]>(v.entities, []),
    boundaries: parseJson<string[]>(v.boundaries, []),
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
  for (let i = 0; !wanted || i < wanted.length; i += LIST_PAGE) {
    // A selection reads its ids page by page (ids not in the archive are skipped), else the archive in id order.
    const page: ChunkRow[] = wanted
      ? (await st.chunksByIds(archiveId, wanted.slice(i, i + LIST_PAGE))).sort((a, b) =>
          a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0,
        )
      : await st.chunkPage(archiveId, after, LIST_PAGE);
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
export async function withReviewStatus(deps: ExportDeps, archiveId: string, records: ChunkRecord[], t: number) {
  const rows = await deps.annotations.annotationsOf(
    archiveId,
    records.map((r) => r.id),
    NODE_REVIEW_KEY,
    t,
  );
  const by = new Map<string, Array<{ id: number; at: number; value: unknown }>>();
  for (const r of rows) by.set(r.chunkId, [...(by.get(r.chunkId) ?? []), { ...r, value: parseJson(r.value, null) }]);
  for (const r of records) r.reviewStatus = reviewStatusAt(by.get(r.id) ?? [], t).status;
  return records;
}

/** Set each edge's review status at t (key `review:edge:<type>:<to>` on its source chunk). */
async function withEdgeStatus(deps: ExportDeps, archiveId: string, edges: GraphEdge[], t: number) {
  const rows = await deps.annotations.annotationsOf(archiveId, [...new Set(edges.map((e) => e.src))], undefined, t);
  const by = new Map<string, Array<{ id: number; at: number; value: unknown }>>();
  for (const r of rows) {
    if (!r.key.startsWith(EDGE_REVIEW_PREFIX)) continue;
    const k = readReviewValue(parseJson(r.value, null))?.edge;
    if (!k) continue;
    const key = `${r.chunkId}\u0000${k.type}\u0000${k.to}`;
    by.set(key, [...(by.get(key) ?? []), { ...r, value: parseJson(r.value, null) }]);
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
): Promise<{ nodes: GraphNode[]; edges: GraphEdge[] }> {
  const st = store(deps);
  const records = await archiveRecords(deps, archiveId, asOf, false, only);
  const nodes = new Map<string, GraphNode>(
    records.map((r) => [
      r.id,
      { id: r.id, kind: r.kind, version: r.version, title: r.title, deprecatedAt: r.deprecatedAt, external: false },
    ]),
  );
  const edges: GraphEdge[] = [];
  let after = 0;
  for (;;) {
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

/** An archive export in one of the formats; json is streamed. */
export async function exportArchive(
  deps: ExportDeps,
  archiveId: string,
  format: ExportFormat,
  asOf: number | undefined,
  now: number,
  paper?: string | undefined,
  sel?: { only: ReadonlySet<string>; label: string } | undefined,
): Promise<Result<ExportBody>> {
  const size = await checkExportSize(deps, archiveId);
  if (!size.ok) return size;
  const filename = exportFilename(archiveId, format);
  const contentType = CONTENT_TYPES[format];
  const only = sel?.only;
  // Review statuses are read at as_of (default now), like the versions shown.
  const records = async (withPapers: boolean) =>
    withReviewStatus(deps, archiveId, await archiveRecords(deps, archiveId, asOf, withPapers, only), asOf ?? now);
  switch (format) {
    case "json":
      return ok({ body: streamArchiveDump(deps, archiveId, now, only), contentType, filename });
    case "xkg":
      return exportXkg(deps, archiveId, asOf, now, paper);
    case "csv":
      return ok({ body: renderCsv(await records(false)), contentType, filename });
    case "bibtex":
      return ok({ body: renderBibtex(await records(true)), contentType, filename });
    case "csljson":
      return ok({
        body: `${JSON.stringify(renderCslItems(await records(true)), null, 2)}\n`,
        contentType,
        filename,
      });
    case "markdown": {
      const archive = await deps.archives.getArchive(archiveId);
      return ok({
        body: renderArchiveMarkdown({ id: archiveId, name: archive?.name ?? archiveId }, await records(false), {
          asOf,
          exportedAt: now,
        }),
        contentType,
        filename,
      });
    }
    case "html": {
      const t = asOf ?? now;
      const archive = await deps.archives.getArchive(archiveId);
      const graph = await archiveGraph(deps, archiveId, t, only);
      const recs = await withReviewStatus(deps, archiveId, await archiveRecords(deps, archiveId, t, false, only), t);
      return ok({
        body: await renderHtml(
          { id: archiveId, name: archive?.name ?? archiveId },
          recs,
          await withEdgeStatus(deps, archiveId, graph.edges, t),
          { asOf: t, exportedAt: now, scope: sel?.label },
        ),
        contentType,
        filename,
      });
    }
    case "graphml":
    case "mermaid": {
      const t = asOf ?? now;
      const graph = await archiveGraph(deps, archiveId, t, only);
      const meta = { archive: archiveId, asOf: t };
      return ok({
        body: format === "graphml" ? renderGraphml(graph, meta) : renderMermaid(graph, meta),
        contentType,
        filename,
      });
    }
  }
}

// ------------------------------------------------------------------ xKG (Figure 5 layout)

/**
 * The chunks an xKG import wrote (a boundary starting `xkg:` and an `xkg` annotation), at the version
 * shown at `asOf`, rebuilt into one Figure 5 object per paper. `paper` picks one paper chunk: the
 * body is then that paper's JSON file; otherwise JSON Lines, one paper per line (re-importable).
 */
export async function exportXkg(
  deps: ExportDeps,
  archiveId: string,
  asOf: number | undefined,
  now: number,
  paper: string | undefined,
): Promise<Result<ExportBody>> {
  const st = store(deps);
  const t = asOf ?? now;
  const picked: Array<{ c: ChunkRow; v: VersionRow }> = [];
  let after: string | null = null;
  for (;;) {
    const page = await st.chunkPage(archiveId, after, LIST_PAGE);
    if (page.length === 0) break;
    after = page[page.length - 1]?.chunkId ?? null;
    const shown = await st.shownVersions(archiveId, page, asOf);
    for (const c of page) {
      const v = shown.get(c.chunkId);
      if (v && parseJson<string[]>(v.boundaries, []).some((b) => b.startsWith("xkg:"))) picked.push({ c, v });
    }
  }
  const roles = new Map<string, XkgNode>();
  const ids = picked.map((x) => x.c.chunkId);
  for (let i = 0; i < ids.length; i += 200) {
    const rows = await deps.annotations.annotationsOf(archiveId, ids.slice(i, i + 200), XKG_KEY, t);
    const byChunk = new Map<string, AnnotationRecord[]>();
    for (const r of rows) byChunk.set(r.chunkId, [...(byChunk.get(r.chunkId) ?? []), r]);
    for (const [chunk, evs] of byChunk) {
      const v = foldAnnotations(evs.map(toEvent), t).get(XKG_KEY)?.value;
      if (v && typeof v === "object" && typeof (v as { role?: unknown }).role === "string")
        roles.set(chunk, v as XkgNode);
    }
  }
  const nodes: XkgExportNode[] = [];
  const withRole = picked.filter((x) => roles.has(x.c.chunkId));
  for (let i = 0; i < withRole.length; i += 50) {
    const slice = withRole.slice(i, i + 50);
    const contents = await Promise.all(slice.map((x) => contentOf(deps, x.v)));
    for (const [j, x] of slice.entries())
      nodes.push({
        id: x.c.chunkId,
        content: contents[j] ?? "",
        edges: parseJson<EdgeInput[]>(x.v.edges, []).map((e) => ({ type: e.type, target: e.target })),
        node: roles.get(x.c.chunkId) as XkgNode,
      });
  }
  const papers = buildXkgPapers(nodes);
  if (paper !== undefined) {
    const one = papers.find((p) => p.id === paper);
    if (!one)
      return fail(
        "not_found",
        `no xKG paper ${paper} in archive ${archiveId}${asOf !== undefined ? " at as_of" : ""}`,
        "paper",
        "give the id of a paper chunk an xkg import wrote (GET /chunks?boundary=xkg:paper lists them)",
      );
    return ok({
      body: `${JSON.stringify(one.paper, null, 2)}\n`,
      contentType: "application/json; charset=utf-8",
      filename: `${safeName(paper)}.json`,
    });
  }
  return ok({
    body: papers.map((p) => `${JSON.stringify(p.paper)}\n`).join(""),
    contentType: CONTENT_TYPES.xkg,
    filename: exportFilename(archiveId, "xkg"),
  });
}

// ------------------------------------------------------------------ query results

/** Records for the cards' chunks at the cards' versions, plus the papers that card sections are part of. */
async function cardRecords(
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
  for (const v of versions)
    for (const e of parseJson<EdgeInput[]>(v.edges, [])) if (e.type === "part-of") parents.add(e.target);
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

export async function exportContext(
  deps: ExportDeps,
  req: ContextRequest,
  format: ContextExportFormat,
): Promise<ExportBody> {
  const r = await deps.pg.context(req);
  const filename = exportFilename(req.archiveId, format, "-context");
  const contentType = CONTENT_TYPES[format];
  switch (format) {
    case "json":
      return {
        body: `${JSON.stringify(
          {
            query: req.query,
            as_of: new Date(r.asOf).toISOString(),
            short_term: r.shortTerm,
            cards: r.cards,
            budget: r.budget,
            skipped: r.skipped,
            selected: r.route.selected,
          },
          null,
          2,
        )}\n`,
        contentType,
        filename,
      };
    case "markdown":
      return {
        body: renderContextMarkdown({
          query: req.query,
          asOf: r.asOf,
          cards: r.cards,
          budget: r.budget,
          skipped: r.skipped,
        }),
        contentType,
        filename,
      };
    case "csv": {
      const { cardRecs } = await cardRecords(deps, req.archiveId, r.cards, r.asOf, false);
      await withReviewStatus(deps, req.archiveId, cardRecs, r.asOf);
      const byKey = new Map(cardRecs.map((x) => [`${x.id}\u0000${x.version}`, x]));
      const rows = r.cards.flatMap((c) => {
        const record = byKey.get(`${c.artifact_id}\u0000${c.version}`);
        return record
          ? [{ record, claim: c.claim_boundary, anchors: c.anchored_spans.map(anchorLabel), tokens: c.tokens }]
          : [];
      });
      return { body: renderCardsCsv(rows), contentType, filename };
    }
    case "bibtex":
    case "csljson": {
      const { bib } = await cardRecords(deps, req.archiveId, r.cards, r.asOf, true);
      return {
        body: format === "bibtex" ? renderBibtex(bib) : `${JSON.stringify(renderCslItems(bib), null, 2)}\n`,
        contentType,
        filename,
      };
    }
  }
}

// ------------------------------------------------------------------ lossless re-import

export interface ReplayReport {
  source_archive: string;
  exported_at: string;
  versions: { created: number; present: number };
  entity_ops: { applied: number; present: number };
  deprecations: { applied: number; present: number };
  annotations: { applied: number; present: number };
  /** Versions whose rebuilt artifact does not hash like the dump's (empty when lossless). */
  hash_mismatches: ReplayPlan["mismatches"];
  warnings: string[];
}

/**
 * Replay a dump into `archiveId`. Idempotent and resumable: versions the archive already holds (same
 * number, same artifact hash), entity operations whose effect is already stored, and chunks already
 * deprecated are skipped; a stored version with another hash is a failure for that chunk (nothing of it
 * is overwritten).
 */
export async function importArchive(
  deps: FeedDeps,
  archiveId: string,
  text: string,
): Promise<Result<ApplyOutcome & { replay: ReplayReport }>> {
  const parsed = parseDump(text);
  if (!parsed.ok) return parsed;
  const dump: ArchiveDump = parsed.value;
  const pg = deps.apply.pg;
  const st = deps.exports;
  const plan = await planReplay(dump);
  const outcome: ApplyOutcome & { replay: ReplayReport } = {
    counts: { created: 0, updated: 0, unchanged: 0, deprecated: 0, merged: 0, duplicates: 0, skipped: 0, failed: 0 },
    items: [],
    merges: [],
    failures: [],
    skipped: [],
    replay: {
      source_archive: dump.archive.id,
      exported_at: new Date(dump.exported_at).toISOString(),
      versions: { created: 0, present: 0 },
      entity_ops: { applied: 0, present: 0 },
      deprecations: { applied: 0, present: 0 },
      annotations: { applied: 0, present: 0 },
      hash_mismatches: plan.mismatches,
      warnings: [],
    },
  };
  const target = await deps.archives.getArchive(archiveId);
  if (target && JSON.stringify(target.params) !== JSON.stringify(dump.archive.params))
    outcome.replay.warnings.push(
      `kernel params differ from the source archive's (${JSON.stringify(dump.archive.params)}): routing may differ; create the archive with the same params`,
    );
  const failed = new Set<string>();
  const failure = (id: string, message: string, field?: string) => {
    outcome.counts.failed++;
    if (outcome.failures.length < 500) outcome.failures.push({ id, message, ...(field ? { field } : {}) });
  };
  // A version that does not rebuild to its recorded hash is a failure: its chunk is not imported
  // (a later version could not follow it), so a damaged dump never lands as different data.
  for (const m of plan.mismatches) {
    if (failed.has(m.chunk)) continue;
    failed.add(m.chunk);
    failure(
      m.chunk,
      `version ${m.version} of ${m.chunk} does not match its artifact_hash (expected ${m.expected.slice(0, 12)}…, got ${String(m.got).slice(0, 12)}…); the chunk was not imported`,
      "chunks",
    );
  }
  for (const step of plan.steps) {
    if (step.step === "ingest") {
      const states = new Map(
        (
          await st.chunksByIds(
            archiveId,
            step.items.map((i) => i.chunk),
          )
        ).map((c) => [c.chunkId, c]),
      );
      const present = await st.exactVersions(
        archiveId,
        step.items.filter((i) => (states.get(i.chunk)?.latestVersion ?? 0) >= i.version),
      );
      const presentHash = new Map(present.map((v) => [`${v.chunkId}\u0000${v.version}`, v.artifactHash]));
      const todo = [];
      for (const i of step.items) {
        if (failed.has(i.chunk)) continue;
        const latest = states.get(i.chunk)?.latestVersion ?? 0;
        if (latest >= i.version) {
          if (presentHash.get(`${i.chunk}\u0000${i.version}`) === i.artifactHash) {
            outcome.counts.unchanged++;
            outcome.replay.versions.present++;
          } else {
            failed.add(i.chunk);
            failure(i.chunk, `version ${i.version} of ${i.chunk} is stored with other contents; not overwritten`);
          }
        } else if (latest !== i.version - 1) {
          failed.add(i.chunk);
          failure(i.chunk, `${i.chunk} has ${latest} versions here; the dump's version ${i.version} cannot follow`);
        } else todo.push(i);
      }
      if (!todo.length) continue;
      const res = await pg.ingest(
        archiveId,
        todo.map((i) => i.artifact),
      );
      if (!res.ok) {
        for (const i of todo) {
          failed.add(i.chunk);
          failure(i.chunk, res.error.message, res.error.field);
        }
        continue;
      }
      for (const r of res.value.results) {
        if (r.status === "created") outcome.counts.created++;
        else if (r.status === "updated") outcome.counts.updated++;
        else outcome.counts.unchanged++;
        if (r.status !== "unchanged") outcome.replay.versions.created++;
        else outcome.replay.versions.present++;
        if (outcome.items.length < 500) outcome.items.push({ id: r.id, status: r.status, version: r.version });
      }
    } else if (step.step === "deprecate") {
      const c = (await st.chunksByIds(archiveId, [step.chunk]))[0];
      if (c?.deprecatedAt !== null && c?.deprecatedAt !== undefined) {
        outcome.counts.skipped++;
        outcome.replay.deprecations.present++;
        continue;
      }
      const res = await pg.deprecate(archiveId, step.chunk, step.by, step.at, step.reason);
      if (!res.ok) failure(step.chunk, res.error.message, res.error.field);
      else {
        outcome.counts.deprecated++;
        outcome.replay.deprecations.applied++;
      }
    } else {
      const ent = await st.entityRow(archiveId, step.entity);
      let done = false;
      if (ent && step.step === "merge") done = ent.mergedInto !== null;
      else if (ent && step.step === "alias")
        done =
          (await st.aliasRowExists(archiveId, step.entity, normAlias(step.alias), step.at)) ||
          // An ingest's alias on an entity merged since: the merged entity takes no operations.
          ent.mergedInto !== null;
      else if (ent && step.step === "rename")
        done = await st.aliasRowExists(archiveId, step.entity, normAlias(step.newName), step.at);
      if (done) {
        outcome.counts.skipped++;
        outcome.replay.entity_ops.present++;
        continue;
      }
      const res = await pg.entityOp(
        archiveId,
        step.step === "alias"
          ? { op: "alias", entity: step.entity, alias: step.alias, at: step.at }
          : step.step === "rename"
            ? { op: "rename", entity: step.entity, newName: step.newName, at: step.at }
            : { op: "merge", entity: step.entity, into: step.into, at: step.at },
      );
      if (!res.ok) failure(step.entity, `${step.step}: ${res.error.message}`, res.error.field);
      else {
        outcome.replay.entity_ops.applied++;
        if (step.step === "merge") {
          outcome.counts.merged++;
          outcome.merges.push({ from: step.entity, into: step.into, matched_by: "archive-dump", kept: "existing" });
        }
      }
    }
  }
  // Annotation events after the chunks they annotate; an event id makes each append idempotent.
  for (const c of dump.chunks) {
    if (failed.has(c.id) || !c.annotations?.length) continue;
    for (const a of c.annotations) {
      const res = await deps.apply.annotations.appendAnnotation({
        archiveId,
        chunkId: c.id,
        version: a.version,
        key: a.key,
        op: a.op,
        value: JSON.stringify(a.value ?? null),
        actor: a.actor,
        reason: a.reason,
        at: a.at,
        recordedAt: a.recorded_at,
        eventId: a.event_id ?? `dump:${a.seq}`,
      });
      if (res.duplicate) outcome.replay.annotations.present++;
      else outcome.replay.annotations.applied++;
    }
  }
  return ok(outcome);
}

/** importFile's path for format=archive: replay, then record the run in the ingest log. */
export async function importArchiveFile(
  deps: FeedDeps,
  archiveId: string,
  text: string,
  name: string,
): Promise<Result<ApplyOutcome & { replay: ReplayReport }>> {
  const started = Date.now();
  const res = await importArchive(deps, archiveId, text);
  if (!res.ok) return res;
  await deps.world.appendLog({
    archiveId,
    origin: "import",
    ref: `archive:${name}`.slice(0, 300),
    status: res.value.counts.failed > 0 || res.value.replay.hash_mismatches.length > 0 ? "partial" : "ok",
    counts: JSON.stringify(res.value.counts),
    error: res.value.failures[0]?.message ?? null,
    at: deps.apply.now(),
    durationMs: Date.now() - started,
  });
  await deps.events.emit(archiveId, "import.completed", {
    name: name.slice(0, 300),
    format: "archive",
    counts: res.value.counts,
    error: res.value.failures[0]?.message ?? null,
  });
  return res;
}
