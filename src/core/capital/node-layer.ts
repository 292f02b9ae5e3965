/**
 * The node layer of a capital store (store.ts): the per-node struct-of-arrays (kind, flags, validity,
 * versions, access, sketches), the archive-wide numbering of a shard's ids and the ghosts that stand
 * for another shard's nodes, version starts and visibility, and access recency. Grown by half; never
 * per-node JS objects. The layers build on each other: nodes, slots (slot-layer.ts), lexical index
 * (lexical-layer.ts), names (name-layer.ts), change log (store.ts).
 */
import { SKETCH_BYTES } from "../sketch";
import type { KernelParams } from "../types";
import { CHUNK_KIND_CODES } from "./codes";
import { GhostIndex, IdIndex } from "./id-index";
import { DEPRECATED, growF64, growI32, growU8, growU32, HAS_HEAD, OPEN_TO } from "./layout";
import type { HeadInfo } from "./records";
import { type CapitalTables, type RemoteHead, stringBytes } from "./tables";

const RING = 64;

/** @internal Layer 1 of CapitalStore (store.ts), which is what the rest of the code uses. */
export class NodeLayer {
  /** Last applied change-log sequence number. */
  seq = 0;
  readonly params: KernelParams;

  // ---- nodes (struct of arrays, grown by doubling)
  /** @internal */ ids: string[] = [];
  /** @internal */ index = new IdIndex(() => this.ids);
  /** @internal */ kind: Uint8Array = new Uint8Array(0);
  /** @internal */ flags: Uint8Array = new Uint8Array(0);
  /** @internal */ firstValidFrom: Float64Array = new Float64Array(0);
  /** End of validity of deprecated nodes (flag DEPRECATED); every other node is open-ended. */
  /** @internal */ endAt = new Map<number, number>();
  /** @internal */ latestVersion: Uint32Array = new Uint32Array(0);
  /** @internal */ recordedAt: Float64Array = new Float64Array(0);
  /** @internal */ lastAccess: Float64Array = new Float64Array(0);
  /** @internal */ accessCount: Uint32Array = new Uint32Array(0);
  /** @internal */ sketches: Uint8Array = new Uint8Array(0);
  /** Version start times, only for chunks with more than one version (most have one). */
  /**
   * Version start times of the chunks with more than one version (most have one), pooled: at a
   * node's offset the count, the capacity, then the starts (capacity doubles, so appends are
   * amortised O(1) and holes stay under half the pool).
   */
  /** @internal */ vsPool: Float64Array = new Float64Array(0);
  /** @internal */ vsUsed = 0;
  /** @internal */ vsAt = new Map<number, number>();

  // ---- neighbour tables per node (the slots themselves are in slot-layer.ts)
  /** @internal */ nbrStart: Int32Array = new Int32Array(0);
  /** @internal */ nbrCount: Uint8Array = new Uint8Array(0);
  /** @internal */ nbrCap: Uint8Array = new Uint8Array(0);
  /** Latest lexical document of each node (-1 = none). */
  /** @internal */ nodeDoc: Int32Array = new Int32Array(0);
  /** Heads (nodes with a head) and the accounted bytes of the id strings, kept as they change. */
  /** @internal */ headCount = 0;
  /** @internal */ idBytes = 0;

  // ---- entities, postings, aliases, title owners and timelines: read a few entries per query,
  // so they live behind the tables port (SQLite storage in a Durable Object, see tables.ts).
  readonly tables: CapitalTables;

  // ---- sharding: a store may hold one shard of an archive. Nodes are numbered archive-wide in the
  // order their ids first appear in the change log; a shard holds the ids first seen while it was the
  // open shard, which are consecutive numbers from `lo`, so local node i is archive-wide lo + i.
  // Every shard numbers every id and keeps the validity of the heads its slots point at; the name
  // tables (entity dictionary, aliases, entity postings, owners, timelines) live on the names shard
  // (shard 0, `derives`), which derives the mention and timeline edges; the other shards take those
  // edges (applyDerived). The heap holds only the shard's own nodes, plus a ghost (its head's
  // validity) for each node of another shard that one of its slots points at.
  /** @internal */ sharded = false;
  /** @internal Archive-wide number of local node 0. */ lo = 0;
  /** @internal Change-log positions [ownFrom, ownTo) whose new ids this shard holds. */
  ownFrom = 0;
  /** @internal */ ownTo = Number.POSITIVE_INFINITY;
  /** @internal Ids seen across the archive (unsharded: the store's own nodes). */ globalCount = 0;
  /** @internal Position of the change being applied (ownership of the ids it introduces). */
  applySeq = 0;
  /** @internal Ghosts: slotDst holds -(k + 1) for ghost k. */
  ghostG: Int32Array = new Int32Array(0);
  /** @internal */ ghostFlags: Uint8Array = new Uint8Array(0);
  /** @internal */ ghostFirst: Float64Array = new Float64Array(0);
  /** @internal */ ghostEnd: Float64Array = new Float64Array(0);
  /** @internal */ ghostCount = 0;
  /** @internal */ ghostAt = new GhostIndex(() => this.ghostG);

  // ---- recency: the 64 most recently accessed nodes (recency seeding is O(64), not O(N))
  /** @internal */ ring: Int32Array = new Int32Array(RING).fill(-1);
  /** @internal */ ringPos = 0;

  /** @internal Allocated capacity of the per-node arrays. */ cap = 0;

  constructor(params: KernelParams, tables: CapitalTables) {
    this.params = params;
    this.tables = tables;
  }

  /**
   * Whether this store holds the archive-wide name tables (entity dictionary, aliases, entity
   * postings, title owners, timelines) and derives the mention and timeline edges from them: one
   * store, or shard 0 of a sharded archive (the names shard). Every other shard holds its own heads,
   * their slots and term postings, and takes the derived edges from the names shard (applyDerived).
   */
  get derives(): boolean {
    return !this.sharded || this.ownFrom === 0;
  }

  get size(): number {
    return this.ids.length;
  }

  protected ensureNodeCapacity(n: number) {
    if (n <= this.cap) return;
    let c = Math.max(64, this.cap);
    // Grown by half: the live slack over a rebuilt store stays under 1.5x (the heap budget counts it).
    while (c < n) c = Math.ceil(c * 1.5);
    this.kind = growU8(this.kind, c);
    this.flags = growU8(this.flags, c);
    this.firstValidFrom = growF64(this.firstValidFrom, c);
    this.latestVersion = growU32(this.latestVersion, c);
    this.recordedAt = growF64(this.recordedAt, c);
    this.lastAccess = growF64(this.lastAccess, c);
    this.accessCount = growU32(this.accessCount, c);
    this.sketches = growU8(this.sketches, c * SKETCH_BYTES);
    this.nbrStart = growI32(this.nbrStart, c);
    this.nbrCount = growU8(this.nbrCount, c);
    this.nbrCap = growU8(this.nbrCap, c);
    const nd = new Int32Array(c).fill(-1);
    nd.set(this.nodeDoc.subarray(0, Math.min(this.nodeDoc.length, c)));
    this.nodeDoc = nd;
    this.cap = c;
  }

  /**
   * Make this store one shard of an archive: it holds the ids first seen at change-log positions
   * [from, to) and keeps only tables and ghosts for the others. Set before the first change.
   */
  shard(from: number, to = Number.POSITIVE_INFINITY): void {
    this.sharded = true;
    this.ownFrom = from;
    this.ownTo = to;
  }

  /**
   * Make this store the archive's next shard before it opens (warming: docs/sharding.md): its window
   * is not known yet, so it numbers every id as another shard's and derives nothing until `openAt`.
   */
  standby(): void {
    this.shard(Number.POSITIVE_INFINITY);
  }

  /** Whether this store is a standby shard whose window has not been given yet. */
  get waiting(): boolean {
    return this.sharded && this.ownFrom === Number.POSITIVE_INFINITY;
  }

  /**
   * A standby shard's window starts at change-log position `from`. Only before it has applied that
   * position (so it holds no node yet): everything it applied before is outside its window.
   */
  openAt(from: number): void {
    if (!this.waiting || this.ids.length > 0 || this.seq >= from || !Number.isInteger(from) || from < 1)
      throw new Error(`a standby shard at position ${this.seq} cannot open at ${from}`);
    this.ownFrom = from;
  }

  /** Stop taking new ids from change-log position `to` on (a newer shard takes them). */
  closeAt(to: number): void {
    this.sharded = true;
    this.ownTo = Math.min(this.ownTo, to);
  }

  /** @internal Local node of an archive-wide number, or -1 when another shard holds it. */
  local(g: number): number {
    const i = g - this.lo;
    return i >= 0 && i < this.ids.length ? i : -1;
  }

  /** @internal Archive-wide number of an id, or undefined when the archive has never seen it. */
  lookupG(chunk: string): number | undefined {
    const i = this.index.get(chunk);
    if (i !== undefined) return this.lo + i;
    return this.sharded ? this.tables.remoteIndex(chunk) : undefined;
  }

  /** @internal Archive-wide number of an id, numbering it if new (here when this shard takes new ids). */
  globalOf(chunk: string): number {
    const known = this.lookupG(chunk);
    if (known !== undefined) return known;
    if (!this.sharded || (this.applySeq >= this.ownFrom && this.applySeq < this.ownTo)) {
      if (this.ids.length === 0) this.lo = this.globalCount;
      else if (this.lo + this.ids.length !== this.globalCount) throw new Error("a shard's nodes must be consecutive");
      const i = this.nodeOf(chunk);
      this.globalCount++;
      return this.lo + i;
    }
    const g = this.globalCount++;
    this.tables.remoteAdd(chunk, g);
    return g;
  }

  /** @internal Slot reference of an archive-wide number: a local node, or -(k + 1) for ghost k. */
  refOf(g: number): number {
    const i = this.local(g);
    if (i >= 0) return i;
    let k = this.ghostAt.get(g);
    if (k === undefined) {
      k = this.ghostCount++;
      if (k >= this.ghostG.length) {
        const c = Math.max(16, Math.ceil(this.ghostG.length * 1.5));
        this.ghostG = growI32(this.ghostG, c);
        this.ghostFlags = growU8(this.ghostFlags, c);
        this.ghostFirst = growF64(this.ghostFirst, c);
        this.ghostEnd = growF64(this.ghostEnd, c);
      }
      this.ghostG[k] = g;
      this.ghostAt.set(g, k);
      this.setGhost(k, this.tables.remoteHead(g));
    }
    return -(k + 1);
  }

  protected setGhost(k: number, h: RemoteHead): void {
    this.ghostFlags[k] = (h.version > 0 ? HAS_HEAD : 0) | (Number.isFinite(h.end) ? DEPRECATED : 0);
    this.ghostFirst[k] = h.first;
    this.ghostEnd[k] = h.end;
  }

  /** @internal Archive-wide number of a slot reference. */
  gOfRef(r: number): number {
    return r >= 0 ? this.lo + r : (this.ghostG[-r - 1] as number);
  }

  /** @internal Id of a slot reference. */
  idOfRef(r: number): string {
    return r >= 0 ? (this.ids[r] as string) : (this.tables.remoteId(this.ghostG[-r - 1] as number) ?? "");
  }

  protected hasHead(r: number): boolean {
    return (((r >= 0 ? this.flags[r] : this.ghostFlags[-r - 1]) as number) & HAS_HEAD) !== 0;
  }

  protected firstOf(r: number): number {
    return (r >= 0 ? this.firstValidFrom[r] : this.ghostFirst[-r - 1]) as number;
  }

  /** @internal */
  nodeOf(chunk: string): number {
    let i = this.index.get(chunk);
    if (i === undefined) {
      i = this.ids.length;
      this.ensureNodeCapacity(i + 1);
      this.ids.push(chunk);
      this.idBytes += stringBytes(chunk) + 8;
      this.index.set(chunk, i);
    }
    return i;
  }

  // ------------------------------------------------------------------ visibility

  /** @internal Version starts of node i (0 when it has one version: its start is firstValidFrom). */
  startsLen(i: number): number {
    const o = this.vsAt.get(i);
    return o === undefined ? 0 : (this.vsPool[o] as number);
  }

  /** @internal Start of the k-th version (0-based) of a node with several. */
  startAt(i: number, k: number): number {
    return this.vsPool[(this.vsAt.get(i) as number) + 2 + k] as number;
  }

  /** @internal The version starts of node i, oldest first ([] with one version). */
  startsOf(i: number): number[] {
    const o = this.vsAt.get(i);
    if (o === undefined) return [];
    return Array.from(this.vsPool.subarray(o + 2, o + 2 + (this.vsPool[o] as number)));
  }

  protected pushStart(i: number, t: number) {
    let o = this.vsAt.get(i);
    const n = o === undefined ? 0 : (this.vsPool[o] as number);
    const cap = o === undefined ? 0 : (this.vsPool[o + 1] as number);
    if (o === undefined || n >= cap) {
      const first = o === undefined ? [this.firstValidFrom[i] as number] : this.startsOf(i);
      const room = Math.max(4, cap * 2);
      if (this.vsUsed + 2 + room > this.vsPool.length) this.compactStarts(2 + room);
      o = this.vsUsed;
      this.vsPool[o] = first.length;
      this.vsPool[o + 1] = room;
      this.vsPool.set(first, o + 2);
      this.vsUsed += 2 + room;
      this.vsAt.set(i, o);
    }
    const m = this.vsPool[o] as number;
    this.vsPool[o + 2 + m] = t;
    this.vsPool[o] = m + 1;
  }

  /** Rewrite the starts pool without holes, with room for `extra` more values. */
  private compactStarts(extra: number) {
    let live = 0;
    for (const o of this.vsAt.values()) live += 2 + (this.vsPool[o + 1] as number);
    const pool = new Float64Array(Math.max(64, Math.ceil((live + extra) * 1.5)));
    let pos = 0;
    for (const [i, o] of this.vsAt) {
      const len = 2 + (this.vsPool[o + 1] as number);
      pool.set(this.vsPool.subarray(o, o + len), pos);
      this.vsAt.set(i, pos);
      pos += len;
    }
    this.vsPool = pool;
    this.vsUsed = pos;
  }

  /** @internal */
  visibleAt(i: number, t: number): boolean {
    if (i < 0) {
      const k = -i - 1;
      const gf = this.ghostFlags[k] as number;
      return (gf & HAS_HEAD) !== 0 && (this.ghostFirst[k] as number) <= t && t < (this.ghostEnd[k] as number);
    }
    const f = this.flags[i] as number;
    if ((f & HAS_HEAD) === 0 || (this.firstValidFrom[i] as number) > t) return false;
    return (f & DEPRECATED) === 0 || t < (this.endAt.get(i) as number);
  }

  /** @internal End of validity of node i (+Infinity unless deprecated). */
  endOf(i: number): number {
    if (i < 0) return this.ghostEnd[-i - 1] as number;
    return ((this.flags[i] as number) & DEPRECATED) === 0 ? OPEN_TO : (this.endAt.get(i) as number);
  }

  /** @internal */
  versionAtIdx(i: number, t: number): number {
    if (!this.visibleAt(i, t)) return 0;
    const o = this.vsAt.get(i);
    if (o === undefined) return this.latestVersion[i] as number;
    // Largest k with starts[k] <= t; versions are 1-based.
    const pool = this.vsPool;
    let lo = 0;
    let hi = (pool[o] as number) - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((pool[o + 2 + mid] as number) <= t) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  visibleVersion(chunk: string, t: number): number {
    const i = this.index.get(chunk);
    return i === undefined ? 0 : this.versionAtIdx(i, t);
  }

  has(chunk: string): boolean {
    const i = this.index.get(chunk);
    return i !== undefined && ((this.flags[i] as number) & HAS_HEAD) !== 0;
  }

  head(chunk: string): HeadInfo | null {
    const i = this.index.get(chunk);
    if (i === undefined) return null;
    const has = ((this.flags[i] as number) & HAS_HEAD) !== 0;
    const end = this.endOf(i);
    return {
      chunk,
      kind: has ? (CHUNK_KIND_CODES[this.kind[i] as number] ?? null) : null,
      latestVersion: this.latestVersion[i] as number,
      firstValidFrom: has ? (this.firstValidFrom[i] as number) : null,
      endAt: Number.isFinite(end) ? end : null,
      deprecated: ((this.flags[i] as number) & DEPRECATED) !== 0,
      lastAccess: (this.lastAccess[i] as number) || null,
      accessCount: this.accessCount[i] as number,
    };
  }

  /** @internal */
  sketchOf(i: number): Uint8Array {
    return this.sketches.subarray(i * SKETCH_BYTES, (i + 1) * SKETCH_BYTES);
  }

  // ------------------------------------------------------------------ access recency

  recordAccess(chunk: string, at: number): void {
    const i = this.index.get(chunk);
    if (i === undefined) return;
    this.lastAccess[i] = Math.max(this.lastAccess[i] as number, at);
    this.accessCount[i] = (this.accessCount[i] as number) + 1;
    for (let k = 0; k < RING; k++) if (this.ring[k] === i) this.ring[k] = -1;
    this.ring[this.ringPos] = i;
    this.ringPos = (this.ringPos + 1) % RING;
  }

  /** @internal */
  recentNodes(): number[] {
    const out: number[] = [];
    for (let k = 0; k < RING; k++) {
      const i = this.ring[k] as number;
      if (i >= 0) out.push(i);
    }
    return out;
  }
}
