/**
 * The lossless JSON dump (export?format=json): an archive's chunks with all their versions and
 * contents, entities, deprecations and edges, streamed page by page (100 chunks with all their
 * versions and contents at a time), so its size is bounded by the client, not by Worker memory.
 */
import { ok, type Result } from "../../core/errors";
import {
  CONTENT_TYPES,
  DUMP_FORMAT,
  DUMP_SCHEMA_VERSION,
  type DumpAnnotation,
  type DumpChunk,
  type DumpDeprecation,
  type DumpEdge,
  type DumpEntity,
  type DumpEntityOp,
} from "../../core/export/types";
import type {
  AnnotationRecord,
  ChunkRecord as ChunkRow,
  EntityRecord as EntityRow,
  ExportReader,
  VersionRecord as VersionRow,
} from "../../core/ports";
import {
  checkExportSize,
  contentOf,
  EDGE_PAGE,
  type ExportBody,
  type ExportDeps,
  exportFilename,
  LIST_PAGE,
  store,
} from "./common";

const DUMP_PAGE = 100;

function dumpVersion(v: VersionRow, content: string) {
  return {
    version: v.version,
    kind: v.kind,
    title: v.title,
    synopsis: v.synopsis,
    content,
    content_hash: v.contentHash,
    artifact_hash: v.artifactHash,
    entities: v.entities,
    boundaries: v.boundaries,
    edges: v.edges,
    ...(v.relations ? { relations: v.relations } : {}),
    ...(v.extracted
      ? {
          extracted: {
            model: v.extracted.model,
            at: v.extracted.at,
            entities: v.extracted.entities,
            relations: v.extracted.relations,
          },
        }
      : {}),
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
    value: r.value,
    version: r.version,
    actor: r.actor,
    reason: r.reason,
    at: r.at,
    recorded_at: r.recordedAt,
    event_id: r.eventId,
    seq: r.id,
  };
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
    const d = x.detail;
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
          name: String(created.detail.name ?? e.name),
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
      await deps.pause?.();
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
      if (only) for (const v of versions) for (const e of v.entities) named.add(e);
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
      await deps.pause?.();
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
      const d = ev.detail;
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
      await deps.pause?.();
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

/** The archive (or a selection of it) as the JSON dump; 413 over the export size limit. */
export async function exportDump(
  deps: ExportDeps,
  archiveId: string,
  now: number,
  only?: ReadonlySet<string> | undefined,
): Promise<Result<ExportBody>> {
  const size = await checkExportSize(deps, archiveId);
  if (!size.ok) return size;
  return ok({
    body: streamArchiveDump(deps, archiveId, now, only),
    contentType: CONTENT_TYPES.json,
    filename: exportFilename(archiveId, "json"),
  });
}
