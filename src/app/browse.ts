/**
 * Browse use cases: chunk and entity listings (cursor pages), one chunk or entity with its history,
 * and exact content reads. Stored records become public views here (snake_case, ISO 8601 times,
 * weights rounded to 4 decimals, JSON columns parsed, no storage keys).
 */

import type * as S from "../contract";
import { CONTENT_DEFAULT_CHARS } from "../contract/browse";
import { fail, ok, type Result } from "../core/errors";
import type {
  AliasRecord,
  ChunkListRow,
  ChunkRecord,
  EdgeRecord,
  EntityEventRecord,
  EntityRecord,
  VersionRecord,
} from "../core/ports";
import type { RelationInput } from "../core/relations";
import { lineDiff } from "../core/text/diff";
import type { AppDeps } from "./deps";
import { decodeCursor, encodeCursor, type In, iso, isoOrNull, round4, timeOf } from "./lib/wire";

function page<R, V>(rows: R[], limit: number, idOf: (r: R) => string, view: (r: R) => V) {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return { items: kept.map(view), next_cursor: more && last !== undefined ? encodeCursor(idOf(last)) : null };
}

// ------------------------------------------------------------------ views

const strings = (xs: readonly unknown[]): string[] => xs.filter((x) => typeof x === "string");

function chunkSummary(r: ChunkListRow) {
  return {
    id: r.chunkId,
    kind: r.kind,
    version: r.version,
    latest_version: r.latestVersion,
    title: r.title,
    synopsis: r.synopsis,
    valid_from: iso(r.validFrom),
    valid_to: isoOrNull(r.validTo),
    content_chars: r.contentChars,
    boundaries: strings(r.boundaries),
    entities: strings(r.entities),
    deprecated_at: isoOrNull(r.deprecatedAt),
    deprecated_by: r.deprecatedBy,
  };
}

function relationView(r: RelationInput) {
  return {
    subject: r.subject ?? "",
    predicate: r.predicate ?? "",
    object: r.object ?? "",
    ...(r.subject_type ? { subject_type: r.subject_type } : {}),
    ...(r.object_type ? { object_type: r.object_type } : {}),
  };
}

function versionView(v: VersionRecord) {
  const edges = v.edges.map((e) => ({
    type: e.type,
    target: e.target,
    weight: round4(e.weight ?? 1),
    ...(e.valid_from !== undefined ? { valid_from: isoOrNull(e.valid_from) } : {}),
    ...(e.valid_to !== undefined ? { valid_to: isoOrNull(e.valid_to) } : {}),
    ...(e.context !== undefined ? { context: e.context } : {}),
  }));
  return {
    version: v.version,
    kind: v.kind,
    title: v.title,
    synopsis: v.synopsis,
    valid_from: iso(v.validFrom),
    valid_to: isoOrNull(v.validTo),
    recorded_at: iso(v.recordedAt),
    source: v.source,
    content_chars: v.contentChars,
    content_sha256: v.contentHash,
    artifact_sha256: v.artifactHash,
    entities: strings(v.entities),
    boundaries: strings(v.boundaries),
    edges,
    symbols: v.symbols ?? [],
    relations: (v.relations ?? []).map(relationView),
    extracted: v.extracted
      ? {
          model: v.extracted.model,
          at: iso(v.extracted.at),
          entities: strings(v.extracted.ids),
          added: strings(v.extracted.added),
          relations: (v.extracted.relations ?? []).map(relationView),
        }
      : null,
  };
}

function edgeView(e: EdgeRecord) {
  return {
    src: e.src,
    dst: e.dst,
    type: e.type,
    weight: round4(e.weight),
    valid_from: iso(e.validFrom),
    valid_to: isoOrNull(e.validTo),
    version: e.version,
    context: e.context,
  };
}

export function chunkDetail(h: {
  chunk: ChunkRecord;
  versions: VersionRecord[];
  edges: EdgeRecord[];
  deprecationReason: string | null;
}): In<typeof S.ChunkDetail> {
  return {
    id: h.chunk.chunkId,
    kind: h.chunk.kind,
    latest_version: h.chunk.latestVersion,
    first_valid_from: iso(h.chunk.firstValidFrom),
    deprecated_at: isoOrNull(h.chunk.deprecatedAt),
    deprecated_by: h.chunk.deprecatedBy,
    deprecation_reason: h.deprecationReason,
    versions: h.versions.map(versionView),
    edges: h.edges.map(edgeView),
  };
}

function entitySummary(e: EntityRecord & { aliases: number }) {
  return {
    id: e.entityId,
    type: e.type,
    name: e.name,
    aliases: e.aliases,
    merged_into: e.mergedInto,
    merged_at: isoOrNull(e.mergedAt),
    created_at: iso(e.createdAt),
  };
}

export function entityDetail(h: {
  entity: EntityRecord;
  aliases: AliasRecord[];
  events: EntityEventRecord[];
  mentions: Array<{ chunk_id: string; version: number; valid_from: number; valid_to: number | null }>;
}): In<typeof S.EntityDetail> {
  return {
    id: h.entity.entityId,
    type: h.entity.type,
    name: h.entity.name,
    merged_into: h.entity.mergedInto,
    merged_at: isoOrNull(h.entity.mergedAt),
    created_at: iso(h.entity.createdAt),
    aliases: h.aliases.map((a) => ({ alias: a.alias, valid_from: iso(a.validFrom), valid_to: isoOrNull(a.validTo) })),
    events: h.events.map((e) => ({
      op: e.op,
      detail: e.detail,
      at: iso(e.at),
      recorded_at: iso(e.recordedAt),
    })),
    mentions: h.mentions.map((m) => ({
      chunk: m.chunk_id,
      version: m.version,
      valid_from: iso(m.valid_from),
      valid_to: isoOrNull(m.valid_to),
    })),
  };
}

// ------------------------------------------------------------------ use cases

export function browseUseCases(d: AppDeps) {
  const { chunks, entities } = d.stores;
  return {
    async listChunks(archive: string, q: In<typeof S.ChunkListQuery>): Promise<Result<In<typeof S.ChunkPage>>> {
      const after = decodeCursor(q.cursor);
      if (!after.ok) return after;
      const asOf = timeOf(d, q.as_of);
      const rows = await chunks.listChunks(
        archive,
        {
          asOf,
          kind: q.kind,
          entity: q.entity,
          boundary: q.boundary,
          prefix: q.prefix,
          titlePrefix: q.title_prefix,
        },
        after.value,
        q.limit + 1,
      );
      const p = page(rows, q.limit, (r) => r.chunkId, chunkSummary);
      return ok({ as_of: iso(asOf), chunks: p.items, next_cursor: p.next_cursor });
    },

    async listEntities(archive: string, q: In<typeof S.EntityListQuery>): Promise<Result<In<typeof S.EntityPage>>> {
      const after = decodeCursor(q.cursor);
      if (!after.ok) return after;
      const rows = await entities.listEntities(
        archive,
        { type: q.type, prefix: q.prefix, merged: q.merged === "true" },
        after.value,
        q.limit + 1,
      );
      const p = page(rows, q.limit, (r) => r.entityId, entitySummary);
      return ok({ entities: p.items, next_cursor: p.next_cursor });
    },

    async chunk(archive: string, id: string): Promise<Result<In<typeof S.ChunkDetail>>> {
      const h = await chunks.chunkHistory(archive, id);
      return h
        ? ok(chunkDetail(h))
        : fail("not_found", `chunk ${id} is not in archive ${archive}`, "id", "list chunks with GET …/chunks");
    },

    async entity(archive: string, id: string): Promise<Result<In<typeof S.EntityDetail>>> {
      const h = await entities.entityHistory(archive, id);
      return h
        ? ok(entityDetail(h))
        : fail("not_found", `entity ${id} is not in archive ${archive}`, "id", "resolve a name with GET …/resolve");
    },

    /** A line diff between two versions of a chunk (default: the latest and the one before). */
    async diff(archive: string, id: string, q: In<typeof S.DiffQuery>): Promise<Result<In<typeof S.ChunkDiff>>> {
      const head = await chunks.chunkRow(archive, id);
      if (!head) return fail("not_found", `chunk ${id} is not in archive ${archive}`, "id");
      const to = q.to ?? head.latestVersion;
      const from = q.from ?? to - 1;
      if (to > head.latestVersion)
        return fail("not_found", `chunk ${id} has no version ${to} (latest is ${head.latestVersion})`, "to");
      if (from < 1)
        return fail("validation", `chunk ${id} has one version: nothing to diff`, "from", "give from and to");
      if (from > head.latestVersion)
        return fail("not_found", `chunk ${id} has no version ${from} (latest is ${head.latestVersion})`, "from");
      const [a, b] = await Promise.all([chunks.exact(archive, id, from), chunks.exact(archive, id, to)]);
      if (!a || !b) return fail("not_found", `chunk ${id} is missing version ${!a ? from : to}`, !a ? "from" : "to");
      const [ta, tb] = await Promise.all([d.kernel.contentOf(a.contentKey), d.kernel.contentOf(b.contentKey)]);
      if (ta === null || tb === null) return fail("unavailable", `content of ${id} is missing from the blob store`);
      const res = lineDiff(ta, tb, [`${id}@v${from}`, `${id}@v${to}`], q.context);
      if (!res.ok) return res;
      return ok({
        chunk: id,
        from: { version: from, valid_from: iso(a.validFrom), content_chars: ta.length },
        to: { version: to, valid_from: iso(b.validFrom), content_chars: tb.length },
        ...res.value,
      });
    },

    async content(
      archive: string,
      id: string,
      q: Partial<In<typeof S.ContentQuery>>,
    ): Promise<Result<In<typeof S.ContentSlice>>> {
      let v: { version: number; contentKey: string } | null;
      if (q.version !== undefined) {
        v = await chunks.exact(archive, id, q.version);
        if (!v) {
          const head = await chunks.chunkRow(archive, id);
          return head
            ? fail("not_found", `chunk ${id} has no version ${q.version} (latest is ${head.latestVersion})`, "version")
            : fail("not_found", `chunk ${id} is not in archive ${archive}`, "id");
        }
      } else {
        const t = timeOf(d, q.as_of);
        v = (await chunks.visibleAt(archive, [id], t)).get(id) ?? null;
        if (!v) {
          const head = await chunks.chunkRow(archive, id);
          return head
            ? fail(
                "not_found",
                `chunk ${id} has no version valid at ${iso(t)}`,
                "as_of",
                "give `version` to read a superseded or deprecated version",
              )
            : fail("not_found", `chunk ${id} is not in archive ${archive}`, "id");
        }
      }
      const text = await d.kernel.contentOf(v.contentKey);
      if (text === null) return fail("unavailable", `content of ${id} v${v.version} is missing from the blob store`);
      const start = q.start ?? 0;
      const wantEnd = q.end ?? text.length;
      if (start > text.length)
        return fail("validation", `start ${start} is past the end of the content (${text.length} characters)`, "start");
      if (wantEnd < start) return fail("validation", `end ${wantEnd} is before start ${start}`, "end");
      const requestedEnd = Math.min(wantEnd, text.length);
      const max = q.max_chars ?? CONTENT_DEFAULT_CHARS;
      const end = Math.min(requestedEnd, start + max);
      const truncated = end < requestedEnd;
      if (q.session_id !== undefined)
        await d.kernel.logAccess(archive, [{ chunk: id, channel: "expansion", at: d.clock.now() }], q.session_id);
      return ok({
        chunk: id,
        version: v.version,
        start,
        end,
        content_chars: text.length,
        content_sha256: contentSha(v.contentKey),
        text: text.slice(start, end),
        truncated,
        next_start: truncated ? end : null,
      });
    },
  };
}

/** Content is stored content-addressed: the key ends in the content's SHA-256 (src/core/ingest.ts contentKey). */
function contentSha(contentKey: string): string {
  return contentKey.slice(contentKey.lastIndexOf("/") + 1);
}
