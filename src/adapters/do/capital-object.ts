/**
 * The capital chunk's Durable Object: the object side of one shard of an archive's capital chunk
 * (the Worker's side, which fans out over the shards, is src/adapters/do/capital-port.ts).
 */
import { DurableObject } from "cloudflare:workers";
import { CapitalStore, capitalBytes, capitalStats, route } from "../../core/capital";
import type { DerivedEdge } from "../../core/capital/records";
import { LocalShard, type ResolveQuery } from "../../core/capital/shard";
import { ownsChange } from "../../core/capital/split";
import { SqlTables, type SqlValue, type SyncSql } from "../../core/capital/sql-tables";
import type { ArchiveStore, CapitalCapacity, ChangeLog, RebuildReport } from "../../core/ports";
import {
  type AccessChannel,
  DEFAULT_PARAMS,
  type Freshness,
  type KernelParams,
  mergeParams,
  type RouteInput,
  type RouteResult,
} from "../../core/types";
import { D1ArchiveStore } from "../d1/archives";
import { D1ChangeLog } from "../d1/changelog";
import { d1Db } from "../d1/queries";

interface CapitalEnv {
  DB: D1Database;
  CONTENT: R2Bucket;
}

/** What a capital chunk reads from D1: the change log and access statistics, and archive params. */
export interface CapitalDeps {
  log: ChangeLog;
  archives: Pick<ArchiveStore, "getArchive">;
}

/**
 * The object of shard k of an archive is named by this key (shard 0 keeps the archive's id, so an
 * archive that never shards has one object under its own name). Archive ids never hold U+0000.
 */
export function shardKey(archiveId: string, shard: number): string {
  return shard === 0 ? archiveId : `${archiveId}\u0000${shard}`;
}
function parseKey(key: string): { archiveId: string; shard: number } {
  const at = key.indexOf("\u0000");
  return at < 0 ? { archiveId: key, shard: 0 } : { archiveId: key.slice(0, at), shard: Number(key.slice(at + 1)) };
}

/**
 * The second composition root: the runtime constructs a Durable Object with `env`, so src/wiring.ts
 * cannot hand it its dependencies; this one function builds them, and nothing else in the object
 * reads `env`.
 */
export function capitalDeps(env: CapitalEnv): CapitalDeps {
  const db = d1Db(env.DB);
  return { log: new D1ChangeLog(db), archives: new D1ArchiveStore(db) };
}

/**
 * Checkpoint after this many applied changes, or a twentieth of the heads when that is more (a
 * checkpoint rewrites the heap snapshot, ~200 B a head, so its cost stays amortised O(1) per change
 * and a cold start replays at most max(2,000, heads / 20) changes).
 */
const CHECKPOINT_EVERY = 2000;
/** ...or when the write buffer holds this many values (~8 B each in the heap). */
const CHECKPOINT_PENDING = 400_000;
const LOG_PAGE = 1000;
/**
 * Changes applied in one synchronous slice of a replay (~8 ms locally at ~0.25 ms per plain-text
 * head); between slices the object yields, so a query that arrives while a batch is applied waits
 * for at most one slice, not the batch.
 */
const SLICE = 32;
/**
 * Reads look at the change log at most this often. Every write path (ingest, deprecate, entity
 * operations) syncs the object before it answers, and a delete rebuilds it, so an answered write is
 * already applied; the look only catches a write whose sync failed after it committed.
 */
const READ_CATCH_UP_MS = 1000;
/**
 * Postings one slice of a segment merge reads and writes (~8 ms at ~0.5 us a posting); the object
 * yields between slices, so merges run between requests, never inside one.
 */
const MERGE_SLICE = 16_000;
/**
 * How long a read with a bookmark waits for the object to apply it, and how often it looks: every
 * answered write has been applied already, so a wait means a write whose sync failed, or a store
 * rebuilt from an older checkpoint replaying.
 */
const REACH_MS = 2000;
const REACH_POLL_MS = 25;

/** The object's own SQLite storage as the capital chunk's synchronous SQL port. */
export function storageSql(storage: DurableObjectStorage): SyncSql {
  const bind = (p: SqlValue[]) =>
    p.map((v) => (v instanceof Uint8Array ? v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength) : v));
  return {
    all(q, ...p) {
      return storage.sql
        .exec(q, ...bind(p))
        .toArray()
        .map((row) => {
          const out: Record<string, SqlValue> = {};
          for (const [k, v] of Object.entries(row))
            out[k] = v instanceof ArrayBuffer ? new Uint8Array(v) : (v as SqlValue);
          return out;
        });
    },
    run(q, ...p) {
      storage.sql.exec(q, ...bind(p)).toArray();
    },
    atomic: (fn) => storage.transactionSync(fn),
  };
}

export type { RebuildReport };

/**
 * One shard of an archive's capital chunk: a thin Durable Object shell around the pure
 * CapitalStore. D1 stays the source of truth: on a cold start the object loads its last checkpoint
 * from its own storage and replays the change log after it. Only the public methods below are
 * reachable over RPC (the README lists them; test/core/docs-drift.test.ts checks the list).
 */
export class CapitalChunk extends DurableObject<CapitalEnv> {
  #store: CapitalStore | null = null;
  #tables: SqlTables | null = null;
  #archiveId: string | null = null;
  #loading: Promise<CapitalStore> | null = null;
  #params: KernelParams = DEFAULT_PARAMS;
  /** Change-log position of the last checkpoint. */
  #checkpointSeq = 0;
  #lastRebuild: RebuildReport | null = null;
  /** A warm() is loading this object as the archive's next shard, before its row exists. */
  #warming = false;
  /** Replays run one at a time (two would read the same page and apply it twice). */
  #lock: Promise<unknown> = Promise.resolve();
  /** A replay is applying changes (between its slices, reads use the state as it stands). */
  #replaying = false;
  /** When a replay last finished (Date.now()). */
  #replayedAt = 0;
  /** Bumped by evict and forget: a rebuild that started before is discarded. */
  #generation = 0;
  /** A background merge of posting segments is scheduled. */
  #merging = false;
  /**
   * Change-log position of shard 1's first change (+Infinity while the archive has one shard): from
   * there on, the names shard writes the edges it derives to D1 and the other shards read them.
   */
  #firstOther = Number.POSITIVE_INFINITY;
  /** Names shard: the derived-edge epoch it loaded under (ChangeLog.derivedMark). */
  #epoch = 0;
  /** Names shard: the position its last derived-edge write moved the mark to. */
  #marked = -1;
  /** Names shard: a checkpoint is due once the edges derived so far are in D1. */
  #checkpointDue = false;
  readonly #deps: CapitalDeps;
  readonly #sql: SyncSql;
  readonly #storage: DurableObjectStorage;

  constructor(ctx: DurableObjectState, env: CapitalEnv) {
    super(ctx, env);
    this.#deps = capitalDeps(env);
    this.#storage = ctx.storage;
    this.#sql = storageSql(ctx.storage);
  }

  /** `key` names the archive and the shard (shardKey). */
  async #ensure(key: string): Promise<CapitalStore> {
    if (this.#archiveId !== null && this.#archiveId !== key) {
      // One object per archive shard: a mismatched key is a wiring bug, never served.
      throw new Error(`capital chunk of ${this.#archiveId} asked for ${key}`);
    }
    this.#archiveId = key;
    const archiveId = key;
    if (this.#store) return this.#store;
    if (!this.#loading) {
      this.#loading = this.#rebuild(archiveId).finally(() => {
        this.#loading = null;
      });
    }
    return this.#loading;
  }

  /**
   * Load the last checkpoint from the object's own storage (heap snapshot and tables at one
   * change-log position) and replay the log after it; without a usable checkpoint, empty the
   * tables and replay the whole log (D1 keeps it whole).
   */
  async #rebuild(archiveId: string): Promise<CapitalStore> {
    const generation = this.#generation;
    try {
      return await this.#load(archiveId, generation);
    } catch (e) {
      // Forgotten meanwhile (its storage deleted under the load): start again on the empty storage.
      if (generation !== this.#generation) return this.#rebuild(archiveId);
      throw e;
    }
  }

  async #load(key: string, generation: number): Promise<CapitalStore> {
    const t0 = performance.now();
    const { archiveId, shard } = parseKey(key);
    // The epoch is read before the log: a hard delete after this point is seen when the mark is written.
    const [archive, shards, mark] = await Promise.all([
      this.#deps.archives.getArchive(archiveId),
      this.#deps.log.shards(archiveId),
      this.#deps.log.derivedMark(archiveId),
    ]);
    this.#epoch = mark.epoch;
    this.#firstOther = shards.find((r) => r.shard === 1)?.firstSeq ?? Number.POSITIVE_INFINITY;
    this.#params = mergeParams((archive?.params ?? {}) as Parameters<typeof mergeParams>[0]);
    // A shard that is not open (its archive deleted, or made again with fewer shards) is never
    // built: nothing is written to its storage. The one exception is the shard that opens next,
    // asked to warm (warm()): it builds as a standby and learns its window when its row appears.
    const first = shard === 0 ? 0 : shards.find((r) => r.shard === shard)?.firstSeq;
    const standby = first === undefined && this.#warming && archive !== null && shard === shards.length + 1;
    if (first === undefined && !standby) throw new Error(`shard ${shard} of ${archiveId} is not open`);
    const tables = new SqlTables(this.#sql);
    // The read cache is heap too: a sixteenth of the budget (the write buffer has an eighth).
    tables.readLimit = this.#params.heapBudgetBytes / 16;
    let store: CapitalStore | null = null;
    let snapshotBytes = 0;
    const from = tables.checkpointSeq();
    const snap = from > 0 ? tables.heapSnapshot() : null;
    if (snap) {
      try {
        store = CapitalStore.deserialize(snap, tables);
        snapshotBytes = snap.byteLength;
      } catch (e) {
        // An older snapshot format, or codes this build does not know: rebuild from the log.
        console.warn(`capital ${key}: checkpoint not used (${e instanceof Error ? e.message : String(e)}); rebuilding`);
        store = null;
      }
    }
    // A standby's checkpoint whose row has appeared since: its window starts there. It applied
    // only changes committed before the row (the replay reads the rows after each page), so it
    // has not reached that position; a store that has is not used.
    if (store?.waiting && first !== undefined) {
      if (store.seq < first) store.openAt(first);
      else store = null;
    }
    if (!store) {
      tables.clear();
      store = new CapitalStore(this.#params, tables);
      if (first === undefined) store.standby();
      else if (shard > 0) store.shard(first);
    }
    const next = shards.find((r) => r.shard === shard + 1);
    if (next) store.closeAt(next.firstSeq);
    this.#tables = tables;
    this.#checkpointSeq = store.seq;
    const replayed = await this.#replay(key, store);
    // Recency statistics come from the access log (all three channels).
    const stats = await this.#deps.log.accessStats(archiveId);
    stats.sort((a, b) => a.last - b.last);
    // Only this shard's own nodes take an access (recordAccess ignores the others).
    for (const s of stats) store.recordAccess(s.chunk, s.last);
    // Evicted or forgotten meanwhile: what was read may predate a delete; start again.
    if (generation !== this.#generation) return this.#rebuild(key);
    this.#store = store;
    this.#scheduleMerge();
    this.#lastRebuild = {
      ms: performance.now() - t0,
      fromSnapshotSeq: snapshotBytes ? from : null,
      snapshotBytes,
      replayed,
      seq: store.seq,
    };
    return store;
  }

  /** Apply the change log after the store's position, one replay at a time. */
  #replay(archiveId: string, store: CapitalStore): Promise<number> {
    const run = this.#lock.then(() => this.#replayNow(archiveId, store));
    this.#lock = run.catch(() => undefined);
    return run;
  }

  /**
   * Read-your-writes for a read: every answered write was synced, so a read replays only what a
   * failed sync may have left behind, at most once a second. While a replay is applying a batch,
   * the read uses the state as it stands instead of waiting behind it: that batch's writer has not
   * been answered yet.
   */
  async #catchUp(archiveId: string, store: CapitalStore): Promise<void> {
    if (this.#replaying || Date.now() - this.#replayedAt < READ_CATCH_UP_MS) return;
    await this.#replay(archiveId, store);
  }

  async #replayNow(key: string, store: CapitalStore): Promise<number> {
    const { archiveId, shard } = parseKey(key);
    let applied = 0;
    this.#replaying = true;
    try {
      for (;;) {
        // Before its window a shard that derives nothing reads only what numbers ids, head
        // validity and edge weights (beforeWindow), and no derived edges (they join nodes it does
        // not hold). A standby's window is not known yet: everything is before it.
        const before = !store.derives && store.seq + 1 < store.ownFrom;
        // Past its window a closed shard reads the same light rows, then its own heads' changes
        // (their revisions) whole: the names shard derives, and the newest shard holds the new heads.
        const after = !store.derives && Number.isFinite(store.ownTo) && store.seq + 1 >= store.ownTo;
        const page =
          before || after
            ? await this.#deps.log.readLogBefore(
                archiveId,
                store.seq,
                before ? Math.min(store.ownFrom, Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER,
                LOG_PAGE,
              )
            : await this.#deps.log.readLog(archiveId, store.seq, LOG_PAGE);
        if (after) {
          const own = page.filter((c) => ownsChange(store, c.op)).map((c) => c.seq);
          const whole = new Map((await this.#deps.log.readLogAt(archiveId, own)).map((c) => [c.seq, c.op]));
          // Scrubbed between the two reads (a hard delete, which resets every shard): apply nothing.
          if (whole.size < own.length) return applied;
          for (const c of page) c.op = whole.get(c.seq) ?? c.op;
        }
        // Read after the page: a shard opened before any change on it was committed, so a newer
        // shard that covers part of this page is listed now (then its new ids are not ours).
        if (page.length > 0 && (store.ownTo === Number.POSITIVE_INFINITY || store.waiting)) {
          const rows = await this.#deps.log.shards(archiveId);
          if (store.waiting) {
            // Opened since the last page: the window starts past everything applied so far, and
            // this page, read as before it, may reach into it; read again from there.
            const mine = rows.find((r) => r.shard === shard);
            if (mine) {
              store.openAt(mine.firstSeq);
              continue;
            }
          }
          const next = rows.find((r) => r.shard === shard + 1);
          if (next) store.closeAt(next.firstSeq);
          // Shard 1's first position (a standby loaded before any row learns it here).
          const other = rows.find((r) => r.shard === 1);
          if (other) this.#firstOther = other.firstSeq;
        }
        const derived = before ? null : await this.#derivedFor(archiveId, store, page);
        let blocked = false;
        for (const [k, { seq, op }] of page.entries()) {
          // Evicted or forgotten meanwhile: this store is no longer the object's.
          if (store.tables !== this.#tables) return applied;
          if (seq <= store.seq) continue;
          // Another shard applies a change from shard 1's first on only with the edges derived at it.
          if (derived && seq > derived.upto) {
            blocked = true;
            break;
          }
          if (k % SLICE === 0) store.prefetch(page.slice(k, k + SLICE).map((c) => c.op));
          store.apply(op, seq);
          if (derived) store.applyDerived(derived.edges.get(seq) ?? []);
          store.seq = seq;
          applied++;
          // The write buffer is heap too: keep it within an eighth of the budget (an O(1) check).
          this.#maybeCheckpoint(store);
          if (k % SLICE === SLICE - 1) await new Promise((r) => setTimeout(r, 0));
        }
        if (store.derives && Number.isFinite(store.ownTo)) {
          if (!(await this.#writeDerived(archiveId, store))) return applied;
        }
        if (blocked) break;
        if (page.length === LOG_PAGE) continue;
        // A short page read everything up to where it was asked to stop: the log's end, or (before
        // a known window) the window, below which nothing more is committed (the window starts past
        // every change committed when it opened). The archive may have no change just below it.
        if (!before || store.waiting) break;
        store.seq = Math.max(store.seq, store.ownFrom - 1);
      }
      return applied;
    } finally {
      this.#replaying = false;
      this.#replayedAt = Date.now();
    }
  }

  /**
   * A shard other than the names shard, about to apply a page reaching shard 1's first change: how
   * far the names shard has derived, and the edges it derived in the page up to there. Null: the
   * store derives its own (the names shard), or the page lies before any other shard.
   */
  async #derivedFor(
    archiveId: string,
    store: CapitalStore,
    page: ReadonlyArray<{ seq: number }>,
  ): Promise<{ upto: number; edges: Map<number, DerivedEdge[]> } | null> {
    const last = page[page.length - 1]?.seq;
    if (store.derives || last === undefined || last < this.#firstOther) return null;
    const mark = await this.#deps.log.derivedMark(archiveId);
    // Before shard 1's first change nothing derived can touch another shard's nodes.
    const upto = Math.max(mark.seq, this.#firstOther - 1);
    const rows =
      upto > store.seq ? await this.#deps.log.readDerived(archiveId, mark.epoch, store.seq, Math.min(upto, last)) : [];
    return { upto, edges: new Map(rows.map((r) => [r.seq, r.edges])) };
  }

  /**
   * Names shard of a sharded archive: write the edges derived since the last write and move the
   * mark to the store's position, then take a checkpoint that came due meanwhile (a checkpoint never
   * passes the mark, so a restart re-derives whatever was not written). False: a hard delete moved
   * the epoch on since this store loaded; the object drops it and the next call loads again.
   */
  async #writeDerived(archiveId: string, store: CapitalStore): Promise<boolean> {
    const rows = store.drainDerived();
    // Nothing applied since the last write (a read's catch-up over an empty page): nothing to say.
    if (rows.length === 0 && store.seq === this.#marked && !this.#checkpointDue) return true;
    const ok = await this.#deps.log.writeDerived(archiveId, this.#epoch, rows, store.seq);
    if (!ok) {
      this.evict();
      return false;
    }
    this.#marked = store.seq;
    if (this.#checkpointDue && store.tables === this.#tables) {
      this.#checkpointDue = false;
      this.#checkpoint(store);
    }
    return true;
  }

  /**
   * Checkpoint when enough changes have accumulated, or when the write buffer holds more than an
   * eighth of the heap budget (the ingest guard reserves that eighth for it). The names shard of a
   * sharded archive checkpoints only after its derived edges are written (#writeDerived, or
   * `settled`: a replay just finished, so every edge it derived is written).
   */
  #maybeCheckpoint(store: CapitalStore, settled = false): void {
    const tables = this.#tables;
    if (!tables || store.tables !== tables) return;
    const every = Math.max(CHECKPOINT_EVERY, Math.floor(store.size / 20));
    if (
      store.seq - this.#checkpointSeq >= every ||
      tables.pendingValues() >= CHECKPOINT_PENDING ||
      tables.bufferBytes() >= this.#params.heapBudgetBytes / 8
    ) {
      if (!settled && store.derives && Number.isFinite(store.ownTo)) this.#checkpointDue = true;
      else this.#checkpoint(store);
    }
  }

  #checkpoint(store: CapitalStore): number {
    const tables = this.#tables;
    // Only the object's current store writes to its storage (not one an eviction left behind).
    if (!tables || store.tables !== tables) return 0;
    const heap = store.serialize();
    tables.checkpoint(store.seq, heap);
    this.#checkpointSeq = store.seq;
    this.#scheduleMerge();
    return heap.byteLength;
  }

  /**
   * Merge posting segments in slices of MERGE_SLICE postings, one slice per turn of the event
   * loop, until none is due (tiered; a closed shard's term postings down to one or two segments). A merge changes no answer (its output replaces its inputs in one
   * transaction); one interrupted by an eviction or a crash starts again after the next load.
   */
  #scheduleMerge(): void {
    const tables = this.#tables;
    // A closed shard's documents only take revisions: its term postings merge down to one or two
    // segments, so a query's counts and reads seek one or two pages per term there.
    if (tables && this.#store && Number.isFinite(this.#store.ownTo)) tables.sealTerms();
    if (this.#merging || !tables || !tables.mergeDue()) return;
    this.#merging = true;
    const generation = this.#generation;
    const step = () => {
      let more = false;
      try {
        more = generation === this.#generation && this.#tables === tables && tables.merge(MERGE_SLICE);
      } catch (e) {
        console.warn(
          `capital ${this.#archiveId}: segment merge failed (${e instanceof Error ? e.message : String(e)})`,
        );
      }
      if (more) setTimeout(step, 0);
      else this.#merging = false;
    };
    setTimeout(step, 0);
  }

  /**
   * Warm this object as the archive's next shard before it opens (the kernel asks once the newest
   * shard is past half the way to opening one): load, or catch up, in the background and answer at
   * once. A standby numbers every id and keeps head validity as a shard outside its window does;
   * when its row appears it takes the window from there, so the write that opens it waits only for
   * the changes since its last warm, not for the whole log.
   */
  warm(key: string): void {
    const fail = (e: unknown) =>
      console.warn(`capital ${key}: warming failed (${e instanceof Error ? e.message : String(e)})`);
    if (this.#store) {
      if (!this.#replaying) this.#replay(key, this.#store).catch(fail);
      return;
    }
    if (this.#loading) return;
    this.#warming = true;
    this.#ensure(key)
      .catch(fail)
      .finally(() => {
        this.#warming = false;
      });
  }

  /** Pull changes committed to D1 since the last applied sequence number. */
  /** `closed`: a newer shard of the archive exists (this one takes no new ids). */
  async sync(archiveId: string): Promise<{ seq: number; applied: number; closed: boolean }> {
    let store = await this.#ensure(archiveId);
    let applied = await this.#replay(archiveId, store);
    if (this.#store !== store) {
      // Dropped meanwhile (a hard delete moved the derived-edge epoch on): load again, once.
      store = await this.#ensure(archiveId);
      applied += await this.#replay(archiveId, store);
    }
    this.#maybeCheckpoint(store, true);
    return { seq: store.seq, applied, closed: Number.isFinite(store.ownTo) };
  }

  /** Routes in place while the archive has this one shard; null once a newer shard exists. */
  async route(key: string, input: RouteInput): Promise<RouteResult | null> {
    const store = await this.#ensure(key);
    const freshness = await this.#reach(key, store, input.after);
    if (Number.isFinite(store.ownTo)) return null;
    return { ...route(store, input, this.#params), freshness };
  }

  /**
   * Read-your-writes by bookmark: replay the log until the store has applied position `after`, for
   * at most REACH_MS. Without a bookmark, the read catches up as every read does.
   */
  async #reach(key: string, store: CapitalStore, after: number | undefined): Promise<Freshness> {
    if (after === undefined || store.seq >= after) {
      await this.#catchUp(key, store);
      return { applied: store.seq, after: after ?? null, reached: true, waitedMs: 0 };
    }
    const t0 = Date.now();
    for (;;) {
      await this.#replay(key, store);
      if (store.seq >= after || Date.now() - t0 >= REACH_MS) break;
      await new Promise((r) => setTimeout(r, REACH_POLL_MS));
    }
    return { applied: store.seq, after, reached: store.seq >= after, waitedMs: Date.now() - t0 };
  }

  // ---- one shard's answers to the directory (src/core/capital/directory.ts)

  async #shard(key: string): Promise<LocalShard> {
    const store = await this.#ensure(key);
    await this.#catchUp(key, store);
    return new LocalShard(store);
  }
  /**
   * A sharded query's first round in one call: wait (bounded) for the bookmark `after`, then the
   * counts, with how far this shard has applied the log, and the archive's parameters if asked.
   */
  async shardCounts(key: string, terms: string[], after?: number, withParams = false) {
    const store = await this.#ensure(key);
    const freshness = await this.#reach(key, store, after);
    const counts = new LocalShard(store).counts(terms);
    return { ...counts, freshness, ...(withParams ? { params: this.#params } : {}) };
  }
  async shardResolve(key: string, q: ResolveQuery) {
    return (await this.#shard(key)).resolve(q);
  }
  async shardLexical(key: string, plan: Array<[number, number, number]>, t: number, avg: number) {
    return (await this.#shard(key)).lexical(plan, t, avg);
  }
  async shardNodes(key: string, info: number[], adj: number[], t: number, sketch: Uint8Array | null, kr: number) {
    return (await this.#shard(key)).nodes(info, adj, t, sketch, kr);
  }

  /** Heap held (the store's accounting), heads and the archive's budget, for the ingest guard. */
  async capacity(archiveId: string): Promise<CapitalCapacity & { closed: boolean }> {
    const store = await this.#ensure(archiveId);
    await this.#replay(archiveId, store);
    return {
      bytes: capitalBytes(store),
      heads: store.headCount,
      budget: this.#params.heapBudgetBytes,
      closed: Number.isFinite(store.ownTo),
    };
  }

  recordAccess(archiveId: string, events: Array<{ chunk: string; channel: AccessChannel; at: number }>): void {
    if (this.#archiveId !== archiveId || !this.#store) return; // rebuilt from the access log on load
    for (const e of events) this.#store.recordAccess(e.chunk, e.at);
  }

  async neighbours(archiveId: string, chunk: string, t: number) {
    const store = await this.#ensure(archiveId);
    await this.#catchUp(archiveId, store);
    if (!store.has(chunk)) return null;
    return { head: store.head(chunk), neighbours: store.neighbours(chunk, t) };
  }

  async resolve(archiveId: string, mention: string, t: number) {
    const store = await this.#ensure(archiveId);
    await this.#catchUp(archiveId, store);
    return store.resolve(mention, t);
  }

  async stats(archiveId: string) {
    const store = await this.#ensure(archiveId);
    await this.#replay(archiveId, store);
    return {
      ...capitalStats(store),
      storageBytes: this.#storage.sql.databaseSize,
      seq: store.seq,
      lastRebuild: this.#lastRebuild,
      params: this.#params,
      closed: Number.isFinite(store.ownTo),
    };
  }

  /**
   * Checkpoint now: the heap snapshot, the buffered tables and the change-log position in one
   * transaction of the object's own storage (rebuilds start from the latest checkpoint).
   */
  async snapshot(archiveId: string): Promise<{ seq: number; bytes: number; key: string }> {
    const store = await this.#ensure(archiveId);
    // After a replay, with no wait before the checkpoint: every edge it derived is written by then.
    await this.#replay(archiveId, store);
    const bytes = this.#checkpoint(store);
    const { archiveId: archive, shard } = parseKey(archiveId);
    const key = `capital/${archive}/${shard > 0 ? `shard-${shard}/` : ""}${String(store.seq).padStart(12, "0")}`;
    await this.#deps.log.recordSnapshot({
      archiveId: archive,
      seq: store.seq,
      r2Key: key,
      bytes,
      heads: store.stats().heads,
      createdAt: Date.now(),
    });
    return { seq: store.seq, bytes, key };
  }

  /** Drop the in-memory copy, as an eviction would; the next call rebuilds from the checkpoint. */
  evict(): void {
    this.#generation++;
    this.#marked = -1;
    this.#store = null;
    this.#tables = null;
    this.#lastRebuild = null;
  }

  /**
   * After a hard delete: drop the in-memory copy and every byte of the object's storage (its
   * checkpoint holds the deleted data); the next call replays the scrubbed change log.
   */
  async forget(key: string): Promise<boolean> {
    this.evict();
    // Whether this object ever held a capital chunk (its tables exist once it has loaded).
    const used = this.#storage.sql.exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'pg_meta'").one().n !== 0;
    await this.#storage.deleteAll();
    // The names shard's derived edges go with it: rows a load before the delete may have written
    // are discarded, and the next load derives again from the scrubbed log.
    const { archiveId, shard } = parseKey(key);
    if (shard === 0) await this.#deps.log.resetDerived(archiveId);
    return used;
  }
}
