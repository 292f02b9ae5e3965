import { DurableObject } from "cloudflare:workers";
import { CapitalStore, capitalStats, route } from "../../core/capital";
import { snapshotPrefix } from "../../core/ingest";
import type { ArchiveStore, CapitalFor, CapitalPort, CapitalStats, ChangeLog, RebuildReport } from "../../core/ports";
import {
  type AccessChannel,
  DEFAULT_PARAMS,
  type KernelParams,
  mergeParams,
  type RouteInput,
  type RouteResult,
} from "../../core/types";
import { D1Store } from "../d1/store";

interface CapitalEnv {
  DB: D1Database;
  CONTENT: R2Bucket;
}

/** What a capital chunk reads and writes: the change log and archive params (D1), snapshots (R2). */
export interface CapitalDeps {
  log: ChangeLog & Pick<ArchiveStore, "getArchive">;
  snapshots: { get(key: string): Promise<Uint8Array | null>; put(key: string, bytes: Uint8Array): Promise<void> };
}

/**
 * The second composition root: the runtime constructs a Durable Object with `env`, so src/wiring.ts
 * cannot hand it its dependencies; this one function builds them, and nothing else in the object
 * reads `env`.
 */
export function capitalDeps(env: CapitalEnv): CapitalDeps {
  return {
    log: new D1Store(env.DB),
    snapshots: {
      async get(key) {
        const obj = await env.CONTENT.get(key);
        return obj ? new Uint8Array(await obj.arrayBuffer()) : null;
      },
      async put(key, bytes) {
        await env.CONTENT.put(key, bytes);
      },
    },
  };
}

/** Write a snapshot after this many replayed changes, so a cold start replays at most ~2k ops. */
const SNAPSHOT_EVERY = 2000;
const LOG_PAGE = 1000;

export type { RebuildReport };

/**
 * The capital chunk of one archive: a thin Durable Object shell around the pure
 * CapitalStore. D1 stays the source of truth: on a cold start the object loads the latest snapshot
 * from R2 and replays the change log after it. Only the methods below are reachable over RPC.
 */
export class CapitalChunk extends DurableObject<CapitalEnv> {
  #store: CapitalStore | null = null;
  #archiveId: string | null = null;
  #loading: Promise<CapitalStore> | null = null;
  #params: KernelParams = DEFAULT_PARAMS;
  #sinceSnapshot = 0;
  #lastRebuild: RebuildReport | null = null;
  readonly #deps: CapitalDeps;

  constructor(ctx: DurableObjectState, env: CapitalEnv) {
    super(ctx, env);
    this.#deps = capitalDeps(env);
  }

  async #ensure(archiveId: string): Promise<CapitalStore> {
    if (this.#archiveId !== null && this.#archiveId !== archiveId) {
      // One object per archive: a mismatched id is a wiring bug, never served.
      throw new Error(`capital chunk of ${this.#archiveId} asked for ${archiveId}`);
    }
    this.#archiveId = archiveId;
    if (this.#store) return this.#store;
    if (!this.#loading) {
      this.#loading = this.#rebuild(archiveId).finally(() => {
        this.#loading = null;
      });
    }
    return this.#loading;
  }

  async #rebuild(archiveId: string): Promise<CapitalStore> {
    const t0 = performance.now();
    const archive = await this.#deps.log.getArchive(archiveId);
    this.#params = mergeParams((archive?.params ?? {}) as Parameters<typeof mergeParams>[0]);
    const snap = await this.#deps.log.latestSnapshot(archiveId);
    let store: CapitalStore | null = null;
    let snapshotBytes = 0;
    if (snap) {
      const buf = await this.#deps.snapshots.get(snap.r2Key);
      if (buf) {
        snapshotBytes = buf.byteLength;
        store = CapitalStore.deserialize(buf);
      }
    }
    store ??= new CapitalStore(this.#params);
    const replayed = await this.#replay(archiveId, store);
    // Recency statistics come from the access log (all three channels).
    const stats = await this.#deps.log.accessStats(archiveId);
    stats.sort((a, b) => a.last - b.last);
    for (const s of stats) store.recordAccess(s.chunk, s.last);
    this.#store = store;
    this.#lastRebuild = {
      ms: performance.now() - t0,
      fromSnapshotSeq: snap && snapshotBytes ? snap.seq : null,
      snapshotBytes,
      replayed,
      seq: store.seq,
    };
    return store;
  }

  async #replay(archiveId: string, store: CapitalStore): Promise<number> {
    let applied = 0;
    for (;;) {
      const page = await this.#deps.log.readLog(archiveId, store.seq, LOG_PAGE);
      for (const { seq, op } of page) {
        store.apply(op);
        store.seq = seq;
      }
      applied += page.length;
      if (page.length < LOG_PAGE) break;
    }
    this.#sinceSnapshot += applied;
    return applied;
  }

  /** Pull changes committed to D1 since the last applied sequence number. */
  async sync(archiveId: string): Promise<{ seq: number; applied: number }> {
    const store = await this.#ensure(archiveId);
    const applied = await this.#replay(archiveId, store);
    if (this.#sinceSnapshot >= SNAPSHOT_EVERY) await this.snapshot(archiveId);
    return { seq: store.seq, applied };
  }

  async route(archiveId: string, input: RouteInput): Promise<RouteResult> {
    const store = await this.#ensure(archiveId);
    // Read-your-writes: one indexed range read of the change log (normally empty) per query.
    await this.#replay(archiveId, store);
    return route(store, input, this.#params);
  }

  recordAccess(archiveId: string, events: Array<{ chunk: string; channel: AccessChannel; at: number }>): void {
    if (this.#archiveId !== archiveId || !this.#store) return; // rebuilt from the access log on load
    for (const e of events) this.#store.recordAccess(e.chunk, e.at);
  }

  async neighbours(archiveId: string, chunk: string, t: number) {
    const store = await this.#ensure(archiveId);
    await this.#replay(archiveId, store);
    if (!store.has(chunk)) return null;
    return { head: store.head(chunk), neighbours: store.neighbours(chunk, t) };
  }

  async resolve(archiveId: string, mention: string, t: number) {
    const store = await this.#ensure(archiveId);
    await this.#replay(archiveId, store);
    return store.resolve(mention, t);
  }

  async stats(archiveId: string) {
    const store = await this.#ensure(archiveId);
    await this.#replay(archiveId, store);
    return { ...capitalStats(store), seq: store.seq, lastRebuild: this.#lastRebuild, params: this.#params };
  }

  /** Serialise the capital chunk to R2 and record it in D1 (the rebuild starting point). */
  async snapshot(archiveId: string): Promise<{ seq: number; bytes: number; key: string }> {
    const store = await this.#ensure(archiveId);
    const buf = store.serialize();
    const key = `${snapshotPrefix(archiveId)}${String(store.seq).padStart(12, "0")}.snap`;
    await this.#deps.snapshots.put(key, buf);
    await this.#deps.log.recordSnapshot({
      archiveId,
      seq: store.seq,
      r2Key: key,
      bytes: buf.byteLength,
      heads: store.stats().heads,
      createdAt: Date.now(),
    });
    this.#sinceSnapshot = 0;
    return { seq: store.seq, bytes: buf.byteLength, key };
  }

  /** Drop the in-memory copy, as an eviction would; the next call rebuilds from D1 + R2. */
  evict(): void {
    this.#store = null;
    this.#lastRebuild = null;
  }
}

/** The capital port of each archive over its Durable Object (RPC results cast to the port's types). */
export function doCapital(ns: DurableObjectNamespace<CapitalChunk>): CapitalFor {
  return (archiveId) => {
    const stub = ns.get(ns.idFromName(archiveId));
    return {
      route: (input) => stub.route(archiveId, input) as Promise<RouteResult>,
      sync: () => stub.sync(archiveId),
      recordAccess: (events) => stub.recordAccess(archiveId, events),
      neighbours: (chunk, t) => stub.neighbours(archiveId, chunk, t) as ReturnType<CapitalPort["neighbours"]>,
      resolve: (mention, t) => stub.resolve(archiveId, mention, t),
      stats: () => stub.stats(archiveId) as Promise<CapitalStats>,
      snapshot: () => stub.snapshot(archiveId),
      evict: () => stub.evict(),
    };
  };
}
