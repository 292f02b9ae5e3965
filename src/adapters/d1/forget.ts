/**
 * Hard deletes in D1 (the ForgetStore port). Each delete is one D1 batch, i.e. one transaction:
 * - the rows of the target (versions, chunk, edges in either direction, access events, events);
 * - every change-log entry that would bring it back when a capital chunk is rebuilt by replaying
 *   the log: entries about the target are dropped, entries of other chunks that name it are
 *   rewritten without it (a head's entity list, a deprecation's successor);
 * - every capital snapshot of the archive (they serialise the old state; the next rebuild replays
 *   the scrubbed log from the start and the object writes a new one);
 * - an audit row with counts, never content.
 * Blobs and vectors are outside D1: the report lists what the caller must purge.
 */
import { and, desc, eq, inArray, isNotNull, or, sql } from "drizzle-orm";
import { withoutEntities } from "../../core/extract";
import { slug } from "../../core/ids";
import { type HashedParts, hashParts, sha256Hex } from "../../core/ingest";
import type { ContentOf, DeletionRecord, ForgetReport, ForgetStore, PendingPurge, PurgePlan } from "../../core/ports";
import { readJsonColumn } from "../../core/ports";
import { EDGE_REVIEW_PREFIX } from "../../core/review";
import type { ChangeOp } from "../../core/types";
import { resetDerived } from "./changelog";
import { chunked, type Db, decoded, IN_CHUNK, type Stmt, VERSION_FIELDS, versionKey } from "./queries";
import * as s from "./schema";

/** What a hard-deleted chunk's id reads as where a stored record keeps its place (metric runs). */
export const FORGOTTEN_ID = "(forgotten)";

/**
 * Chunks whose content PaperGuru wrote by quoting other chunks (an SGMC hub: its cards' anchors and
 * snippets, citing every source it quotes). Deleting a quoted chunk deletes them too.
 */
export const QUOTING_BOUNDARIES = ["sgmc:hub"];

/** Whether a JSON value names the id anywhere. */
function names(v: unknown, id: string): boolean {
  if (v === id) return true;
  if (Array.isArray(v)) return v.some((x) => names(x, id));
  if (v && typeof v === "object") return Object.values(v).some((x) => names(x, id));
  return false;
}

/** A JSON value without the id: array elements that are records naming it go, the bare id reads FORGOTTEN_ID. */
export function scrubValue(v: unknown, id: string): unknown {
  if (v === id) return FORGOTTEN_ID;
  if (Array.isArray(v))
    return v.filter((x) => !(x && typeof x === "object" && names(x, id))).map((x) => scrubValue(x, id));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrubValue(x, id)]));
  return v;
}

/** What a scrub removes: chunk ids and entity ids. */
interface Targets {
  chunks: Set<string>;
  entities: Set<string>;
}

/** A change-log entry without the targets: null drops it, the same object keeps it unchanged. */
export function scrubOp(op: ChangeOp, t: Targets): ChangeOp | null {
  const gone = (id: string) => t.chunks.has(id) || t.entities.has(id);
  switch (op.op) {
    case "head.upsert": {
      if (t.chunks.has(op.chunk)) return null;
      const entities = op.entities.filter((e) => !t.entities.has(e));
      const owns = op.owns?.filter((e) => !t.entities.has(e));
      if (entities.length === op.entities.length && owns?.length === op.owns?.length) return op;
      const out: ChangeOp = { ...op, entities };
      if (owns?.length) out.owns = owns;
      else delete out.owns;
      return out;
    }
    case "head.sketch":
      return t.chunks.has(op.chunk) ? null : op;
    case "head.extend": {
      if (t.chunks.has(op.chunk)) return null;
      const entities = op.entities.filter((e) => !t.entities.has(e));
      if (entities.length === op.entities.length) return op;
      return entities.length ? { ...op, entities } : null;
    }
    case "head.deprecate":
      if (t.chunks.has(op.chunk)) return null;
      return op.by !== null && t.chunks.has(op.by) ? { ...op, by: null } : op;
    case "edge.upsert":
    case "edge.close":
      return gone(op.src) || gone(op.dst) ? null : op;
    case "entity.upsert":
      return t.entities.has(op.id) ? null : op;
    case "alias.add":
    case "alias.close":
      return t.entities.has(op.entity) ? null : op;
    case "entity.merge":
      return t.entities.has(op.from) || t.entities.has(op.into) ? null : op;
    default: {
      const never: never = op;
      return never;
    }
  }
}

/** The ids a grounded mention of a name gets (core/text/grounding): "concept:<slug>". */
function conceptIds(names: string[]): string[] {
  return names.map((n) => slug(n)).flatMap((x) => (x ? [`concept:${x}`] : []));
}

export class D1ForgetStore implements ForgetStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Statements that drop or rewrite every change-log entry naming a target; and how many. */
  async #scrubLog(archiveId: string, t: Targets): Promise<{ stmts: Stmt[]; touched: number }> {
    const rows = new Map<number, string>();
    for (const id of [...t.chunks, ...t.entities]) {
      // instr() on the JSON-quoted id: no LIKE wildcards to escape, and a substring hit is only a
      // candidate (the parsed entry decides).
      const hits = await this.#db.all<{ seq: number; op: string }>(
        sql`SELECT seq, op FROM change_log WHERE archive_id = ${archiveId} AND instr(op, ${JSON.stringify(id)}) > 0`,
      );
      for (const h of hits) rows.set(h.seq, h.op);
    }
    const drop: number[] = [];
    const stmts: Stmt[] = [];
    let rewritten = 0;
    for (const [seq, text] of rows) {
      const op = readJsonColumn<ChangeOp | null>(text, null);
      if (!op) continue;
      const next = scrubOp(op, t);
      if (next === op) continue;
      if (next === null) drop.push(seq);
      else {
        rewritten++;
        stmts.push(
          this.#db
            .update(s.changeLog)
            .set({ op: JSON.stringify(next) })
            .where(eq(s.changeLog.seq, seq)),
        );
      }
    }
    for (const part of chunked(drop, IN_CHUNK))
      stmts.push(
        this.#db.delete(s.changeLog).where(and(eq(s.changeLog.archiveId, archiveId), inArray(s.changeLog.seq, part))),
      );
    return { stmts, touched: drop.length + rewritten };
  }

  /**
   * Stored retrieval-metric runs naming the chunk (as a gold or a returned id) keep their numbers,
   * computed when they ran, but the id becomes FORGOTTEN_ID.
   */
  async #scrubRuns(archiveId: string, chunkId: string): Promise<Stmt[]> {
    const r = s.retrievalRuns;
    const rows = await this.#db
      .select({ id: r.id, perQuery: r.perQuery })
      .from(r)
      .where(and(eq(r.archiveId, archiveId), sql`instr(${r.perQuery}, ${JSON.stringify(chunkId)}) > 0`));
    const swap = (ids: string[]) => (Array.isArray(ids) ? ids.map((x) => (x === chunkId ? FORGOTTEN_ID : x)) : ids);
    return rows.map((row) => {
      const per = row.perQuery.map((q) => ({
        ...q,
        gold: swap(q.gold),
        returned: swap(q.returned),
      }));
      return this.#db
        .update(r)
        .set({ perQuery: per })
        .where(and(eq(r.archiveId, archiveId), eq(r.id, row.id)));
    });
  }

  /**
   * Annotations of other chunks that name the chunk: an edge review of an edge to it goes (the edge
   * goes); any other value loses the array elements that name it (a draft's evidence anchors, with
   * their snippets) and reads FORGOTTEN_ID where it was the id; a reason naming it likewise.
   */
  async #scrubAnnotations(archiveId: string, chunkId: string): Promise<{ stmts: Stmt[]; n: number }> {
    const a = s.annotations;
    const quoted = JSON.stringify(chunkId);
    const rows = await this.#db
      .select({ id: a.id, key: a.key, value: a.value, reason: a.reason })
      .from(a)
      .where(
        and(
          eq(a.archiveId, archiveId),
          or(sql`instr(${a.value}, ${quoted}) > 0`, sql`instr(${a.reason}, ${chunkId}) > 0`),
        ),
      );
    const stmts: Stmt[] = [];
    for (const row of rows) {
      const value = row.value;
      const edge = (value as { edge?: { to?: unknown } } | null)?.edge;
      if (row.key.startsWith(EDGE_REVIEW_PREFIX) && edge?.to === chunkId) {
        stmts.push(this.#db.delete(a).where(eq(a.id, row.id)));
        continue;
      }
      stmts.push(
        this.#db
          .update(a)
          .set({
            value: s.jsonNullAsText(scrubValue(value, chunkId)),
            reason: row.reason.split(chunkId).join(FORGOTTEN_ID),
          })
          .where(eq(a.id, row.id)),
      );
    }
    return { stmts, n: rows.length };
  }

  /**
   * Webhook deliveries whose raw body carried the chunk: the body goes (its key is reported with the
   * content keys to delete), the row stays with an empty key (no replay) and without the id.
   */
  async #scrubDeliveries(archiveId: string, chunkId: string): Promise<{ stmts: Stmt[]; keys: string[] }> {
    const d = s.webhookDeliveries;
    const rows = await this.#db
      .select({ webhook: d.webhook, deliveryId: d.deliveryId, bodyKey: d.bodyKey, chunkIds: d.chunkIds })
      .from(d)
      .where(and(eq(d.archiveId, archiveId), sql`instr(${d.chunkIds}, ${JSON.stringify(chunkId)}) > 0`));
    const stmts: Stmt[] = [];
    const keys: string[] = [];
    for (const r of rows) {
      const ids = r.chunkIds ?? [];
      if (!ids.includes(chunkId)) continue;
      if (r.bodyKey) keys.push(r.bodyKey);
      stmts.push(
        this.#db
          .update(d)
          .set({ bodyKey: "", chunkIds: ids.filter((x) => x !== chunkId) })
          .where(and(eq(d.archiveId, archiveId), eq(d.webhook, r.webhook), eq(d.deliveryId, r.deliveryId))),
      );
    }
    return { stmts, keys };
  }

  async quotingCopies(archiveId: string, chunkId: string): Promise<string[]> {
    const rows = await this.#db.all<{ id: string }>(
      sql`SELECT DISTINCT e.src AS id FROM edges AS e
          WHERE e.archive_id = ${archiveId} AND e.dst = ${chunkId} AND e.type = 'cites'
            AND EXISTS (SELECT 1 FROM chunk_versions AS v, json_each(v.boundaries) AS b
                        WHERE v.archive_id = e.archive_id AND v.chunk_id = e.src AND b.value IN (${sql.join(
                          QUOTING_BOUNDARIES.map((b) => sql`${b}`),
                          sql`, `,
                        )}))
          ORDER BY e.src`,
    );
    return rows.map((r) => r.id).filter((id) => id !== chunkId);
  }

  #dropSnapshots(archiveId: string): Stmt {
    return this.#db.delete(s.capitalSnapshots).where(eq(s.capitalSnapshots.archiveId, archiveId));
  }

  #audit(
    archiveId: string,
    target: DeletionRecord["target"],
    targetId: string,
    actor: string,
    at: number,
    counts: Record<string, number>,
  ) {
    return this.#db
      .insert(s.deletions)
      .values({ archiveId, target, targetId, actor, at, counts })
      .returning({ id: s.deletions.id });
  }

  /** Run the statements, the audit insert and what follows it as one batch; the audit row's id. */
  async #commit(stmts: Stmt[], audit: Stmt, after: Stmt[] = []): Promise<number> {
    const results = (await this.#db.batch([...stmts, audit, ...after] as unknown as [Stmt, ...Stmt[]])) as unknown[];
    const row = results[stmts.length] as Array<{ id: number }>;
    return row[0]?.id ?? 0;
  }

  /**
   * The tombstone of a deleted chunk id (by its hash), pointing at the audit row inserted just
   * before it in the same batch. Not async: drizzle's statement is thenable and would run at once.
   */
  #tombstone(archiveId: string, idHash: string, now: number): Stmt {
    const auditId = sql<number>`(SELECT MAX(id) FROM deletions WHERE archive_id = ${archiveId})`;
    return this.#db
      .insert(s.tombstones)
      .values({ archiveId, idHash, deletedAt: now, auditId })
      .onConflictDoUpdate({
        target: [s.tombstones.archiveId, s.tombstones.idHash],
        set: { deletedAt: now, auditId, recreatedAt: null, recreatedBy: null },
      });
  }

  /**
   * The delete's pending purge (what is left outside D1), pointing at the audit row inserted just
   * before it in the same batch: a crash after the batch leaves it for resume to finish.
   */
  #pending(archiveId: string, target: DeletionRecord["target"], targetId: string, plan: PurgePlan, now: number): Stmt {
    const auditId = sql<number>`(SELECT MAX(id) FROM deletions WHERE archive_id = ${archiveId})`;
    return this.#db.insert(s.pendingPurges).values({ auditId, archiveId, target, targetId, plan, createdAt: now });
  }

  /** Edges with an end among `ids`, and the statements removing them. */
  async #edges(archiveId: string, ids: string[]): Promise<{ n: number; stmts: Stmt[] }> {
    let n = 0;
    const stmts: Stmt[] = [];
    for (const part of chunked(ids, IN_CHUNK / 2)) {
      const where = and(eq(s.edges.archiveId, archiveId), or(inArray(s.edges.src, part), inArray(s.edges.dst, part)));
      const [c] = await this.#db.select({ n: sql<number>`COUNT(*)` }).from(s.edges).where(where);
      n += c?.n ?? 0;
      stmts.push(this.#db.delete(s.edges).where(where));
    }
    return { n, stmts };
  }

  /** Rows of one entity: the entity, aliases, events; merges into it undone. */
  #entityRows(archiveId: string, ids: string[]): Stmt[] {
    const stmts: Stmt[] = [];
    for (const part of chunked(ids, IN_CHUNK)) {
      stmts.push(
        this.#db.delete(s.entities).where(and(eq(s.entities.archiveId, archiveId), inArray(s.entities.entityId, part))),
        this.#db
          .delete(s.entityAliases)
          .where(and(eq(s.entityAliases.archiveId, archiveId), inArray(s.entityAliases.entityId, part))),
        this.#db
          .delete(s.entityEvents)
          .where(and(eq(s.entityEvents.archiveId, archiveId), inArray(s.entityEvents.entityId, part))),
        this.#db
          .update(s.entities)
          .set({ mergedInto: null, mergedAt: null })
          .where(and(eq(s.entities.archiveId, archiveId), inArray(s.entities.mergedInto, part))),
      );
    }
    return stmts;
  }

  /** Of these content objects, the ones no version of the archive references any more. */
  async #unreferenced(archiveId: string, keys: string[]): Promise<string[]> {
    const still = new Set<string>();
    for (const part of chunked([...new Set(keys)], IN_CHUNK)) {
      const rows = await this.#db
        .selectDistinct({ k: s.chunkVersions.contentKey })
        .from(s.chunkVersions)
        .where(and(eq(s.chunkVersions.archiveId, archiveId), inArray(s.chunkVersions.contentKey, part)));
      for (const r of rows) still.add(r.k);
    }
    return [...new Set(keys)].filter((k) => !still.has(k));
  }

  /**
   * Other versions that name one of `ids` in their entities, grounded mentions or declared edges,
   * rewritten without them and re-hashed (the artifact hash covers entities and edges), so a dump
   * of the archive still verifies. Versions of `skipChunk` are left alone (they are being deleted).
   */
  async #rewriteVersions(
    archiveId: string,
    ids: Set<string>,
    skipChunk: string | null,
    contentOf: ContentOf,
  ): Promise<{ n: number; stmts: Stmt[]; contentHashes: string[] }> {
    const db = this.#db;
    // Every column the rewrite and the hash read; a code unit's symbols are left out (never rewritten).
    const fields = { ...VERSION_FIELDS, mentions: s.chunkVersions.mentions };
    const hits = (q: string) =>
      db
        .select(fields)
        .from(s.chunkVersions)
        .where(
          and(
            eq(s.chunkVersions.archiveId, archiveId),
            or(
              sql`instr(${s.chunkVersions.entities}, ${q}) > 0`,
              and(isNotNull(s.chunkVersions.mentions), sql`instr(${s.chunkVersions.mentions}, ${q}) > 0`),
              sql`instr(${s.chunkVersions.edges}, ${q}) > 0`,
              and(isNotNull(s.chunkVersions.extracted), sql`instr(${s.chunkVersions.extracted}, ${q}) > 0`),
            ),
          ),
        );
    const hit = new Map<string, Awaited<ReturnType<typeof hits>>[number]>();
    for (const id of ids)
      for (const r of await hits(JSON.stringify(id)))
        if (r.chunkId !== skipChunk) hit.set(`${r.chunkId}\u0000${r.version}`, r);
    const stmts: Stmt[] = [];
    // Contents whose cached extraction names a removed id: the cache entry goes too.
    const contentHashes: string[] = [];
    for (const v of hit.values()) {
      const extracted = v.extracted ? withoutEntities(v.extracted, ids) : null;
      if (v.extracted && JSON.stringify(extracted) !== JSON.stringify(v.extracted)) contentHashes.push(v.contentHash);
      const entities = v.entities.filter((e) => !ids.has(e));
      const mentions = (v.mentions ?? []).filter((m) => !ids.has(m.entity));
      // Stored edges are the normalised ones (weight set), which the hash covers.
      const edges = (v.edges as HashedParts["edges"]).filter((e) => !ids.has(e.target));
      const content = await contentOf(v.contentKey);
      const artifactHash =
        content === null
          ? v.artifactHash
          : await hashParts({
              kind: v.kind,
              title: v.title,
              synopsis: v.synopsis,
              content,
              entityIds: entities,
              boundaries: v.boundaries,
              edges,
              relations: v.relations ?? undefined,
            });
      stmts.push(
        db
          .update(s.chunkVersions)
          .set({
            entities,
            mentions: v.mentions === null ? null : mentions,
            edges,
            artifactHash,
            extracted,
          })
          .where(versionKey(archiveId, v.chunkId, v.version)),
      );
    }
    return { n: hit.size, stmts, contentHashes };
  }

  /**
   * Extraction cache entries of these contents (every model): a cached answer is a copy of what the
   * content says, so it goes with the content's forgotten copy, or with a forgotten entity it names.
   * Another archive holding the same content keeps its own extraction; only its cache entry is gone.
   */
  #dropCached(contentHashes: string[]): Stmt[] {
    return chunked([...new Set(contentHashes)], IN_CHUNK).map((part) =>
      this.#db.delete(s.extractionCache).where(inArray(s.extractionCache.contentHash, part)),
    );
  }

  /** Deprecation records naming the chunk as successor: the successor becomes unknown. */
  async #successorRecords(archiveId: string, chunkId: string): Promise<Stmt[]> {
    const rows = await this.#db.all<{ id: number; detail: string }>(
      sql`SELECT id, detail FROM entity_events WHERE archive_id = ${archiveId} AND op = 'deprecated'
            AND instr(detail, ${JSON.stringify(chunkId)}) > 0`,
    );
    const stmts: Stmt[] = [];
    for (const r of rows) {
      const d = decoded(s.entityEvents.detail, r.detail);
      if (d.by !== chunkId) continue;
      stmts.push(
        this.#db
          .update(s.entityEvents)
          .set({ detail: { ...d, by: null } })
          .where(eq(s.entityEvents.id, r.id)),
      );
    }
    return stmts;
  }

  async forgetChunk(
    archiveId: string,
    chunkId: string,
    actor: string,
    now: number,
    contentOf: ContentOf,
    copies: string[] = [],
  ): Promise<ForgetReport | null> {
    const db = this.#db;
    const [chunk] = await db
      .select()
      .from(s.chunks)
      .where(and(eq(s.chunks.archiveId, archiveId), eq(s.chunks.chunkId, chunkId)));
    if (!chunk) return null;
    const versions = await db
      .select({
        contentKey: s.chunkVersions.contentKey,
        contentHash: s.chunkVersions.contentHash,
        entities: s.chunkVersions.entities,
        extracted: s.chunkVersions.extracted,
      })
      .from(s.chunkVersions)
      .where(and(eq(s.chunkVersions.archiveId, archiveId), eq(s.chunkVersions.chunkId, chunkId)));
    // Declared entities (a paper's id and title) and entities a model extracted from it that no
    // other version names and nothing was merged into: their names came from this chunk, so they
    // go with it.
    const declared = new Set(versions.flatMap((v) => [...v.entities, ...(v.extracted?.ids ?? [])]));
    const orphans: string[] = [];
    for (const e of declared) {
      const [row] = await db
        .select({ id: s.entities.entityId })
        .from(s.entities)
        .where(and(eq(s.entities.archiveId, archiveId), eq(s.entities.entityId, e)));
      if (!row) continue;
      const [used] = await db.all<{ n: number }>(
        sql`SELECT (SELECT COUNT(*) FROM chunk_versions AS v, json_each(v.entities) AS j
                     WHERE v.archive_id = ${archiveId} AND v.chunk_id <> ${chunkId} AND j.value = ${e})
                 + (SELECT COUNT(*) FROM chunk_versions AS v, json_each(v.extracted, '$.ids') AS j
                     WHERE v.archive_id = ${archiveId} AND v.chunk_id <> ${chunkId} AND v.extracted IS NOT NULL
                       AND j.value = ${e})
                 + (SELECT COUNT(*) FROM entities WHERE archive_id = ${archiveId} AND merged_into = ${e}) AS n`,
      );
      if ((used?.n ?? 0) === 0) orphans.push(e);
    }
    const log = await this.#scrubLog(archiveId, { chunks: new Set([chunkId]), entities: new Set(orphans) });
    const edges = await this.#edges(archiveId, [chunkId, ...orphans]);
    const rewritten = await this.#rewriteVersions(archiveId, new Set([chunkId, ...orphans]), chunkId, contentOf);
    const notes = await this.#scrubAnnotations(archiveId, chunkId);
    const bodies = await this.#scrubDeliveries(archiveId, chunkId);
    const stmts: Stmt[] = [
      ...rewritten.stmts,
      ...(await this.#successorRecords(archiveId, chunkId)),
      db
        .delete(s.chunkVersions)
        .where(and(eq(s.chunkVersions.archiveId, archiveId), eq(s.chunkVersions.chunkId, chunkId))),
      db.delete(s.chunks).where(and(eq(s.chunks.archiveId, archiveId), eq(s.chunks.chunkId, chunkId))),
      db
        .update(s.chunks)
        .set({ deprecatedBy: null })
        .where(and(eq(s.chunks.archiveId, archiveId), eq(s.chunks.deprecatedBy, chunkId))),
      db
        .delete(s.accessEvents)
        .where(and(eq(s.accessEvents.archiveId, archiveId), eq(s.accessEvents.chunkId, chunkId))),
      // Outbound events that named the chunk (created, versioned, deprecated) go; the chunk.deleted
      // event emitted after this delete names it like the audit row does, never with content.
      db
        .delete(s.eventDeliveries)
        .where(
          and(
            eq(s.eventDeliveries.archiveId, archiveId),
            sql`instr(${s.eventDeliveries.payload}, ${JSON.stringify(chunkId)}) > 0`,
          ),
        ),
      db.delete(s.annotations).where(and(eq(s.annotations.archiveId, archiveId), eq(s.annotations.chunkId, chunkId))),
      // The deprecation event carries the caller's reason (text): it goes too.
      db
        .delete(s.entityEvents)
        .where(and(eq(s.entityEvents.archiveId, archiveId), eq(s.entityEvents.entityId, `chunk:${chunkId}`))),
      ...(await this.#scrubRuns(archiveId, chunkId)),
      // What extraction at ingest kept of it: its cached answers and its ingest-log rows.
      ...this.#dropCached([...versions.map((v) => v.contentHash), ...rewritten.contentHashes]),
      db
        .delete(s.ingestLog)
        .where(
          and(
            eq(s.ingestLog.archiveId, archiveId),
            eq(s.ingestLog.origin, "extract"),
            sql`json_extract(${s.ingestLog.counts}, '$.chunk') = ${chunkId}`,
          ),
        ),
      ...notes.stmts,
      ...bodies.stmts,
      ...edges.stmts,
      ...this.#entityRows(archiveId, orphans),
      ...log.stmts,
      // A re-embed's sketch of the chunk appended after the log was read above (it writes one only
      // while the chunk's row exists, so none can follow this batch).
      db
        .delete(s.changeLog)
        .where(
          and(
            eq(s.changeLog.archiveId, archiveId),
            sql`json_extract(${s.changeLog.op}, '$.op') = 'head.sketch'`,
            sql`json_extract(${s.changeLog.op}, '$.chunk') = ${chunkId}`,
          ),
        ),
      this.#dropSnapshots(archiveId),
      ...resetDerived(this.#db, archiveId, true),
    ];
    const counts = {
      versions: versions.length,
      edges: edges.n,
      entities: orphans.length,
      log_ops: log.touched,
      annotations: notes.n,
      webhook_bodies: bodies.keys.length,
    };
    const idHash = await sha256Hex(chunkId);
    // Every content key the versions had: which of them no version still references is decided
    // when the purge runs (an ingest meanwhile may reference one again).
    const report: Omit<ForgetReport, "auditId"> = {
      versions: versions.length,
      edges: edges.n,
      entities: orphans,
      logOps: log.touched,
      contentKeys: [...new Set([...versions.map((v) => v.contentKey), ...bodies.keys])],
      vectorIds: [chunk.vectorId],
      rows: 0,
      annotations: notes.n,
    };
    const plan = this.#plan(actor, report, copies, false);
    const auditId = await this.#commit(stmts, this.#audit(archiveId, "chunk", chunkId, actor, now, counts), [
      this.#tombstone(archiveId, idHash, now),
      this.#pending(archiveId, "chunk", chunkId, plan, now),
    ]);
    return { auditId, ...report };
  }

  #plan(actor: string, report: Omit<ForgetReport, "auditId">, copies: string[], everything: boolean): PurgePlan {
    return { actor, report, contentKeys: report.contentKeys, vectorIds: report.vectorIds, copies, everything };
  }

  async forgetEntity(
    archiveId: string,
    entityId: string,
    actor: string,
    now: number,
    contentOf: ContentOf,
  ): Promise<ForgetReport | null> {
    const db = this.#db;
    const [row] = await db
      .select()
      .from(s.entities)
      .where(and(eq(s.entities.archiveId, archiveId), eq(s.entities.entityId, entityId)));
    const aliases = await db
      .select({ alias: s.entityAliases.alias })
      .from(s.entityAliases)
      .where(and(eq(s.entityAliases.archiveId, archiveId), eq(s.entityAliases.entityId, entityId)));
    // The entity and the grounded concepts its names produced in other chunks' text.
    const ids = new Set([entityId, ...conceptIds([...(row ? [row.name] : []), ...aliases.map((a) => a.alias)])]);
    const rewritten = await this.#rewriteVersions(archiveId, ids, null, contentOf);
    if (!row && rewritten.n === 0) return null;
    const stmts: Stmt[] = [...rewritten.stmts];
    const versions = rewritten.n;
    const log = await this.#scrubLog(archiveId, { chunks: new Set(), entities: ids });
    const edges = await this.#edges(archiveId, [entityId]);
    stmts.push(
      ...edges.stmts,
      ...this.#entityRows(archiveId, [entityId]),
      ...log.stmts,
      ...this.#dropCached(rewritten.contentHashes),
      this.#dropSnapshots(archiveId),
      ...resetDerived(this.#db, archiveId, true),
    );
    const counts = { versions_rewritten: versions, edges: edges.n, entities: 1, log_ops: log.touched };
    const report: Omit<ForgetReport, "auditId"> = {
      versions,
      edges: edges.n,
      entities: [entityId],
      logOps: log.touched,
      contentKeys: [],
      vectorIds: [],
      rows: 0,
    };
    const auditId = await this.#commit(stmts, this.#audit(archiveId, "entity", entityId, actor, now, counts), [
      this.#pending(archiveId, "entity", entityId, this.#plan(actor, report, [], false), now),
    ]);
    return { auditId, ...report };
  }

  async forgetArchive(archiveId: string, actor: string, now: number): Promise<ForgetReport | null> {
    const db = this.#db;
    const [archive] = await db.select({ id: s.archives.id }).from(s.archives).where(eq(s.archives.id, archiveId));
    if (!archive) return null;
    const vectors = await db.select({ v: s.chunks.vectorId }).from(s.chunks).where(eq(s.chunks.archiveId, archiveId));
    const [c] = await db.all<{ versions: number; edges: number; entities: number; log: number }>(
      sql`SELECT (SELECT COUNT(*) FROM chunk_versions WHERE archive_id = ${archiveId}) AS versions,
                 (SELECT COUNT(*) FROM edges WHERE archive_id = ${archiveId}) AS edges,
                 (SELECT COUNT(*) FROM entities WHERE archive_id = ${archiveId}) AS entities,
                 (SELECT COUNT(*) FROM change_log WHERE archive_id = ${archiveId}) AS log`,
    );
    // Every table keyed by archive (ARCHIVE_TABLES is checked against the schema by a test).
    const stmts: Stmt[] = [
      // The extraction cache is keyed by content, not archive: the archive's contents' entries go
      // first (while its versions still name them).
      db
        .delete(s.extractionCache)
        .where(
          inArray(
            s.extractionCache.contentHash,
            db
              .selectDistinct({ h: s.chunkVersions.contentHash })
              .from(s.chunkVersions)
              .where(eq(s.chunkVersions.archiveId, archiveId)),
          ),
        ),
      ...ARCHIVE_TABLES.map((t) => db.delete(t).where(eq(t.archiveId, archiveId))),
    ];
    stmts.push(db.delete(s.archives).where(eq(s.archives.id, archiveId)));
    const counts = {
      chunks: vectors.length,
      versions: c?.versions ?? 0,
      edges: c?.edges ?? 0,
      entities: c?.entities ?? 0,
      log_ops: c?.log ?? 0,
    };
    const report: Omit<ForgetReport, "auditId"> = {
      versions: counts.versions,
      edges: counts.edges,
      entities: [],
      logOps: counts.log_ops,
      contentKeys: [],
      vectorIds: vectors.map((v) => v.v),
      rows: stmts.length,
    };
    const auditId = await this.#commit(stmts, this.#audit(archiveId, "archive", archiveId, actor, now, counts), [
      this.#pending(archiveId, "archive", archiveId, this.#plan(actor, report, [], true), now),
    ]);
    return { auditId, ...report };
  }

  async pendingPurges(
    limit: number,
    of?: { archiveId: string; target: DeletionRecord["target"]; targetId: string },
  ): Promise<PendingPurge[]> {
    const p = s.pendingPurges;
    const rows = await this.#db
      .select()
      .from(p)
      .where(of ? and(eq(p.archiveId, of.archiveId), eq(p.target, of.target), eq(p.targetId, of.targetId)) : undefined)
      .orderBy(p.auditId)
      .limit(limit);
    // A plan that is not JSON (never written so) cannot be finished: it is listed by the audit row only.
    return rows.flatMap((r) =>
      r.plan
        ? [
            {
              auditId: r.auditId,
              archiveId: r.archiveId,
              target: r.target as DeletionRecord["target"],
              targetId: r.targetId,
              plan: r.plan,
              createdAt: r.createdAt,
            },
          ]
        : [],
    );
  }

  async purged(auditId: number): Promise<void> {
    await this.#db.delete(s.pendingPurges).where(eq(s.pendingPurges.auditId, auditId));
  }

  unreferenced(archiveId: string, keys: string[]): Promise<string[]> {
    return this.#unreferenced(archiveId, keys);
  }

  async vectorsInUse(archiveId: string, vectorIds: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (const part of chunked([...new Set(vectorIds)], IN_CHUNK)) {
      const rows = await this.#db
        .select({ v: s.chunks.vectorId })
        .from(s.chunks)
        .where(and(eq(s.chunks.archiveId, archiveId), inArray(s.chunks.vectorId, part)));
      for (const r of rows) out.add(r.v);
    }
    return out;
  }

  async dropSnapshots(archiveId: string): Promise<void> {
    await this.#dropSnapshots(archiveId);
  }

  async deletions(archiveId: string, limit: number): Promise<DeletionRecord[]> {
    const rows = await this.#db
      .select({
        d: s.deletions,
        recreatedAt: s.recreations.at,
        recreatedBy: s.recreations.by,
      })
      .from(s.deletions)
      .leftJoin(s.recreations, eq(s.recreations.auditId, s.deletions.id))
      .where(eq(s.deletions.archiveId, archiveId))
      .orderBy(desc(s.deletions.id))
      .limit(limit);
    return rows.map(({ d, recreatedAt, recreatedBy }) => ({
      ...d,
      target: d.target as DeletionRecord["target"],
      recreated: recreatedAt === null || recreatedAt === undefined ? null : { at: recreatedAt, by: recreatedBy ?? "" },
    }));
  }
}

/** Every table whose rows belong to one archive (all but `archives` itself and the audit trail). */
export const ARCHIVE_TABLES = [
  s.apiKeys,
  s.chunks,
  s.chunkVersions,
  s.entities,
  s.entityAliases,
  s.entityEvents,
  s.edges,
  s.changeLog,
  s.capitalSnapshots,
  s.capitalShards,
  s.capitalDerived,
  s.capitalDerivedMark,
  s.tombstones,
  s.accessEvents,
  s.sessionEvents,
  s.webhooks,
  s.webhookDeliveries,
  s.sources,
  s.ingestLog,
  s.subscriptions,
  s.eventDeliveries,
  s.eventOutcomes,
  s.annotations,
  s.retrievalRuns,
  s.reembedJobs,
] as const;
