/**
 * D1Store: the archive, chunk, entity, session and change-log stores behind one object, as before
 * they were split by aggregate. Every method delegates to the per-aggregate adapter of the same name.
 * The Durable Object (src/adapters/do/capital-object.ts) builds one from its binding; new code takes the
 * ports from d1Stores() instead.
 */
import type { ArchiveStore, ChangeLog, ChunkStore, EntityStore, SessionLog } from "../../core/ports";
import { D1ArchiveStore } from "./archives";
import { D1ChangeLog } from "./changelog";
import { D1ChunkStore } from "./chunks";
import { D1EntityStore } from "./entities";
import { d1Db } from "./queries";
import { D1SessionLog } from "./sessions";

export class D1Store implements ArchiveStore, ChunkStore, EntityStore, SessionLog, ChangeLog {
  readonly #archives: ArchiveStore;
  readonly #chunks: ChunkStore;
  readonly #entities: EntityStore;
  readonly #sessions: D1SessionLog;
  readonly #changes: ChangeLog;

  constructor(d1: D1Database) {
    const db = d1Db(d1);
    this.#archives = new D1ArchiveStore(db);
    this.#chunks = new D1ChunkStore(db);
    this.#entities = new D1EntityStore(db);
    this.#sessions = new D1SessionLog(db);
    this.#changes = new D1ChangeLog(db);
  }

  // ------------------------------------------------------------------ archives and keys

  createArchive: ArchiveStore["createArchive"] = (a) => this.#archives.createArchive(a);
  getArchive: ArchiveStore["getArchive"] = (id) => this.#archives.getArchive(id);
  listArchives: ArchiveStore["listArchives"] = () => this.#archives.listArchives();
  createKey: ArchiveStore["createKey"] = (k) => this.#archives.createKey(k);
  listKeys: ArchiveStore["listKeys"] = (archiveId) => this.#archives.listKeys(archiveId);
  revokeKey: ArchiveStore["revokeKey"] = (archiveId, keyId, at) => this.#archives.revokeKey(archiveId, keyId, at);
  findKeyByHash: ArchiveStore["findKeyByHash"] = (keyHash) => this.#archives.findKeyByHash(keyHash);

  // ------------------------------------------------------------------ chunks and versions

  loadExisting: ChunkStore["loadExisting"] = (archiveId, chunkIds, entityIds) =>
    this.#chunks.loadExisting(archiveId, chunkIds, entityIds);
  executePlan: ChunkStore["executePlan"] = (archiveId, plan, now, vectorIdOf) =>
    this.#chunks.executePlan(archiveId, plan, now, vectorIdOf);
  chunkRow: ChunkStore["chunkRow"] = (archiveId, chunkId) => this.#chunks.chunkRow(archiveId, chunkId);
  deprecate: ChunkStore["deprecate"] = (archiveId, chunkId, by, at, reason, now) =>
    this.#chunks.deprecate(archiveId, chunkId, by, at, reason, now);
  chunkHistory: ChunkStore["chunkHistory"] = (archiveId, chunkId) => this.#chunks.chunkHistory(archiveId, chunkId);
  visibleAt: ChunkStore["visibleAt"] = (archiveId, chunkIds, t) => this.#chunks.visibleAt(archiveId, chunkIds, t);
  exact: ChunkStore["exact"] = (archiveId, chunkId, version) => this.#chunks.exact(archiveId, chunkId, version);
  codeModules: ChunkStore["codeModules"] = (archiveId, prefix, t, max) =>
    this.#chunks.codeModules(archiveId, prefix, t, max);
  subtree: ChunkStore["subtree"] = (archiveId, root, t, max) => this.#chunks.subtree(archiveId, root, t, max);
  entitiesAt: ChunkStore["entitiesAt"] = (archiveId, ids, t) => this.#chunks.entitiesAt(archiveId, ids, t);
  implementedAt: ChunkStore["implementedAt"] = (archiveId, t) => this.#chunks.implementedAt(archiveId, t);
  edgesAt: ChunkStore["edgesAt"] = (archiveId, ids, type, direction, t) =>
    this.#chunks.edgesAt(archiveId, ids, type, direction, t);
  listChunks: ChunkStore["listChunks"] = (archiveId, f, after, limit) =>
    this.#chunks.listChunks(archiveId, f, after, limit);
  listChunkIds: ChunkStore["listChunkIds"] = (archiveId, f, after, limit) =>
    this.#chunks.listChunkIds(archiveId, f, after, limit);
  chunkIdsForVectorIds: ChunkStore["chunkIdsForVectorIds"] = (archiveId, ids) =>
    this.#chunks.chunkIdsForVectorIds(archiveId, ids);
  counts: ChunkStore["counts"] = (archiveId) => this.#chunks.counts(archiveId);

  // ------------------------------------------------------------------ entities

  entityRow: EntityStore["entityRow"] = (archiveId, entityId) => this.#entities.entityRow(archiveId, entityId);
  entityOp: EntityStore["entityOp"] = (archiveId, op, normAlias, now) =>
    this.#entities.entityOp(archiveId, op, normAlias, now);
  listEntities: EntityStore["listEntities"] = (archiveId, f, after, limit) =>
    this.#entities.listEntities(archiveId, f, after, limit);
  entityHistory: EntityStore["entityHistory"] = (archiveId, entityId) =>
    this.#entities.entityHistory(archiveId, entityId);

  // ------------------------------------------------------------------ sessions and access

  appendSession: SessionLog["appendSession"] = (archiveId, sessionId, events) =>
    this.#sessions.appendSession(archiveId, sessionId, events);
  recent: SessionLog["recent"] = (archiveId, sessionId, asOf, limit) =>
    this.#sessions.recent(archiveId, sessionId, asOf, limit);
  record: SessionLog["record"] = (archiveId, events, sessionId) => this.#sessions.record(archiveId, events, sessionId);
  recentForSession: SessionLog["recentForSession"] = (archiveId, sessionId, asOf, limit) =>
    this.#sessions.recentForSession(archiveId, sessionId, asOf, limit);
  accessCounts: SessionLog["accessCounts"] = (archiveId, q) => this.#sessions.accessCounts(archiveId, q);
  openedBySession: NonNullable<SessionLog["openedBySession"]> = (archiveId, sessionId, asOf, limit) =>
    this.#sessions.openedBySession(archiveId, sessionId, asOf, limit);

  // ------------------------------------------------------------------ change log and snapshots

  readLog: ChangeLog["readLog"] = (archiveId, afterSeq, limit) => this.#changes.readLog(archiveId, afterSeq, limit);
  readLogBefore: ChangeLog["readLogBefore"] = (archiveId, afterSeq, beforeSeq, limit) =>
    this.#changes.readLogBefore(archiveId, afterSeq, beforeSeq, limit);
  readLogAt: ChangeLog["readLogAt"] = (archiveId, seqs) => this.#changes.readLogAt(archiveId, seqs);
  shards: ChangeLog["shards"] = (archiveId) => this.#changes.shards(archiveId);
  openShard: ChangeLog["openShard"] = (archiveId, shard, at) => this.#changes.openShard(archiveId, shard, at);
  derivedMark: ChangeLog["derivedMark"] = (archiveId) => this.#changes.derivedMark(archiveId);
  readDerived: ChangeLog["readDerived"] = (archiveId, epoch, after, upto) =>
    this.#changes.readDerived(archiveId, epoch, after, upto);
  writeDerived: ChangeLog["writeDerived"] = (archiveId, epoch, rows, upto) =>
    this.#changes.writeDerived(archiveId, epoch, rows, upto);
  resetDerived: ChangeLog["resetDerived"] = (archiveId) => this.#changes.resetDerived(archiveId);
  latestSnapshot: ChangeLog["latestSnapshot"] = (archiveId) => this.#changes.latestSnapshot(archiveId);
  recordSnapshot: ChangeLog["recordSnapshot"] = (row) => this.#changes.recordSnapshot(row);
  accessStats: ChangeLog["accessStats"] = (archiveId) => this.#changes.accessStats(archiveId);
}
