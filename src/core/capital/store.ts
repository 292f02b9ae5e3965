/**
 * The capital chunk of one shard of an archive (the whole archive when it has one shard): head catalog, entity -> chunk inverted index,
 * time-aware alias table, access-recency statistics and the bounded, type-aware neighbour tables.
 * What one query's diffusion and scoring touch per node is kept in the heap as struct-of-arrays in
 * growable typed arrays (never per-node JS objects); the entity dictionary, postings, aliases, title
 * owners and timelines are behind the tables port (tables.ts), in a Durable Object's SQLite
 * storage. stats() accounts the heap; test/core/heap.test.ts holds it to the measured growth.
 */
import { canonicalPaperId, normAlias, slug } from "../ids";
import { fromBase64, SKETCH_BYTES } from "../sketch";
import { BM25_B, BM25_K1, parseDocTerms, termHash } from "../text/lexical";
import { type ChangeOp, DEFAULT_PARAMS, type EdgeType, type KernelParams } from "../types";
import { CHUNK_KIND_CODES, checkCodes, EDGE_TYPE_CODES, edgeCode, KNOWN_CODES, kindCode } from "./codes";
import { GhostIndex, IdIndex } from "./id-index";
import {
  CLOSED_BIT,
  DEPRECATED,
  DIR_IN,
  edgeFrom,
  edgeTo,
  FROM_DST,
  FROM_MASK,
  FROM_OPEN,
  FROM_SELF,
  GRID,
  GRID_MIN,
  GRID_STEP,
  gridValue,
  growF32,
  growF64,
  growI32,
  growU8,
  growU16,
  growU32,
  HAS_HEAD,
  KEY_MASK,
  OPEN_FROM,
  OPEN_TO,
  PALETTE_MAX,
  REVERSE_FACTOR,
  TYPE_MASK,
  TYPE_WEIGHT,
} from "./layout";
import { lexicalPlan } from "./lexical-plan";
import type { DerivedAt, DerivedEdge, HeadInfo, NeighbourInfo } from "./records";
import { scratch } from "./scratch";
import {
  type CapitalTables,
  MAP_ENTRY_BYTES,
  MemoryTables,
  type MemoryTablesDump,
  type RemoteHead,
  stringBytes,
} from "./tables";

const RING = 64;

/** Heads linked per derived `mentions` step (a new owner from its mentioners, a mention to owners). */
export const MAX_MENTION_LINKS = 64;

/** The alias key a `concept:` id grounds through (null for other ids). */
function conceptAliasKey(id: string): string | null {
  if (!id.startsWith("concept:")) return null;
  // Concept slugs are ASCII in the common case and then already alias keys (no folding to do).
  const key = id.slice(8).replace(/-/g, " ");
  return /^[ -~]*$/.test(key) ? key : normAlias(key);
}
const MENTIONS: EdgeType = "mentions";
const FOLLOWS: EdgeType = "follows";
/** Edge types a shard derives from names and timelines, by their code in a DerivedEdge. */
const DERIVED_TYPES: readonly EdgeType[] = [MENTIONS, FOLLOWS];

export class CapitalStore {
  /** Last applied change-log sequence number. */
  seq = 0;
  readonly params: KernelParams;

  // ---- nodes (struct of arrays, grown by doubling)
  /** @internal */ ids: string[] = [];
  /** @internal */ index = new IdIndex(() => this.ids);
  private cap = 0;
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

  // ---- neighbour slots (pooled; per node a contiguous run of capacity 4/8/16/32)
  /** @internal */ nbrStart: Int32Array = new Int32Array(0);
  /** @internal */ nbrCount: Uint8Array = new Uint8Array(0);
  /** @internal */ nbrCap: Uint8Array = new Uint8Array(0);
  // A slot is 7 bytes: dst (Int32), weight as a palette index (Uint16), type|dir|from|closed bits
  // (Uint8). Validity times are exact epoch ms: the start is the first version of one of the two
  // nodes for nearly every edge (FROM_SELF / FROM_DST); other starts and the end of the rare closed
  // edges (a later version dropped them) are kept aside, so the common case pays nothing for them.
  /** @internal */ slotDst: Int32Array = new Int32Array(0);
  /** @internal */ slotWi: Uint16Array = new Uint16Array(0);
  /** @internal */ slotType: Uint8Array = new Uint8Array(0);
  /** @internal */ palette: Float32Array = new Float32Array(64);
  /** @internal */ paletteSize = 0;
  private paletteIndex = new Map<number, number>();
  /** Closed slots: node -> list of (dst, type|dir bits, validTo ms). */
  /** @internal */ closed = new Map<number, Array<[number, number, number]>>();
  /** Slots with an explicit start: node -> list of (dst, type|dir bits, validFrom ms). */
  /** @internal */ fromAt = new Map<number, Array<[number, number, number]>>();
  /** Heads (nodes with a head) and the accounted bytes of the id strings, kept as they change. */
  /** @internal */ headCount = 0;
  /** @internal */ idBytes = 0;
  /** @internal */ slotsUsed = 0;
  /** @internal */ liveSlots = 0;
  /** @internal */ edgeCount = 0;

  // ---- entities, postings, aliases, title owners and timelines: read a few entries per query,
  // so they live behind the tables port (SQLite storage in a Durable Object, see tables.ts).
  readonly tables: CapitalTables;
  /** Entity merges (rare): merged entity -> (into, at), and into -> entities merged into it. */
  /** @internal */ mergedInto = new Map<number, { into: number; at: number }>();
  /** @internal */ mergedFrom = new Map<number, number[]>();
  /** @internal */ aliasCount = 0;

  // ---- lexical index: one document per head version (its bag of terms); the postings per hashed
  // term (document and term frequency) are in the tables.
  // A document is valid while its version is (from that version's start to the next one's and the
  // head's end), so it keeps the version's position among the node's starts, not the times.
  /** @internal */ docNode: Int32Array = new Int32Array(0);
  /** @internal */ docVer: Uint32Array = new Uint32Array(0);
  /** @internal */ docLen: Float32Array = new Float32Array(0);
  /** 1 once the document no longer counts among the open ones (superseded or deprecated). */
  /** @internal */ docClosed: Uint8Array = new Uint8Array(0);
  /** @internal */ docCount = 0;
  /** Latest lexical document of each node (-1 = none). */
  /** @internal */ nodeDoc: Int32Array = new Int32Array(0);
  /** Documents currently open (the latest version of a live head) and their summed length. */
  /** @internal */ openDocs = 0;
  /** @internal */ openLen = 0;

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
  /**
   * Edges derived at change-log positions from the first other shard's on (names shard of a sharded
   * archive only): what the other shards take with applyDerived, drained by the caller.
   */
  #derived: DerivedAt[] = [];

  // ---- recency: the 64 most recently accessed nodes (recency seeding is O(64), not O(N))
  /** @internal */ ring: Int32Array = new Int32Array(RING).fill(-1);
  /** @internal */ ringPos = 0;

  constructor(params: KernelParams = DEFAULT_PARAMS, tables: CapitalTables = new MemoryTables()) {
    this.params = params;
    this.tables = tables;
    // The derived edges' weights take the first codes in every store, so a shard that never sees an
    // edge derived before it opened has the same palette as the names shard and one store.
    for (const type of DERIVED_TYPES) {
      this.weightIndex(TYPE_WEIGHT[type]);
      this.weightIndex(TYPE_WEIGHT[type] * REVERSE_FACTOR);
    }
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

  /** Whether any node is a record, so the store may hold timelines; null until first asked. */
  #hasRecords: boolean | null = null;

  /**
   * Whether this store holds a record (timelines link only records): the thread expert reads no
   * neighbour tables without one. One scan of the kind bytes on first use, then kept up to date by
   * apply (a record forgotten later leaves it true, which costs only the reads).
   */
  hasRecords(): boolean {
    if (this.#hasRecords === null) this.#hasRecords = this.kind.subarray(0, this.size).includes(kindCode("record"));
    return this.#hasRecords;
  }

  private ensureNodeCapacity(n: number) {
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

  private setGhost(k: number, h: RemoteHead): void {
    this.ghostFlags[k] = (h.version > 0 ? HAS_HEAD : 0) | (Number.isFinite(h.end) ? DEPRECATED : 0);
    this.ghostFirst[k] = h.first;
    this.ghostEnd[k] = h.end;
  }

  /**
   * Drop the ghosts no live slot points at (a slot replaced in a full neighbour table leaves its
   * ghost behind), renumbering the rest: live ghosts stay bounded by the shard's own slots.
   */
  compactGhosts(): void {
    if (this.ghostCount === 0) return;
    const keep = new Int32Array(this.ghostCount).fill(-1);
    let kept = 0;
    const n = this.ids.length;
    for (let i = 0; i < n; i++) {
      const st = this.nbrStart[i] as number;
      for (let k = st; k < st + (this.nbrCount[i] as number); k++) {
        const d = this.slotDst[k] as number;
        if (d < 0 && keep[-d - 1] === -1) keep[-d - 1] = kept++;
      }
    }
    if (kept === this.ghostCount) return;
    const old = { g: this.ghostG, f: this.ghostFlags, first: this.ghostFirst, end: this.ghostEnd };
    this.ghostG = new Int32Array(Math.max(16, kept));
    this.ghostFlags = new Uint8Array(this.ghostG.length);
    this.ghostFirst = new Float64Array(this.ghostG.length);
    this.ghostEnd = new Float64Array(this.ghostG.length);
    this.ghostAt = new GhostIndex(() => this.ghostG);
    for (let k = 0; k < this.ghostCount; k++) {
      const to = keep[k] as number;
      if (to < 0) continue;
      this.ghostG[to] = old.g[k] as number;
      this.ghostFlags[to] = old.f[k] as number;
      this.ghostFirst[to] = old.first[k] as number;
      this.ghostEnd[to] = old.end[k] as number;
      this.ghostAt.set(old.g[k] as number, to);
    }
    this.ghostCount = kept;
    const remap = (r: number) => (r >= 0 ? r : -((keep[-r - 1] as number) + 1));
    for (let i = 0; i < n; i++) {
      const st = this.nbrStart[i] as number;
      for (let k = st; k < st + (this.nbrCount[i] as number); k++) this.slotDst[k] = remap(this.slotDst[k] as number);
    }
    // Side lists name slots by target: entries of dropped ghosts belong to no live slot.
    for (const map of [this.closed, this.fromAt])
      for (const [u, list] of map) {
        const live = list
          .filter(([d]) => d >= 0 || (keep[-d - 1] as number) >= 0)
          .map(([d, b, x]) => [remap(d), b, x] as [number, number, number]);
        if (live.length) map.set(u, live);
        else map.delete(u);
      }
  }

  /** @internal Archive-wide number of a slot reference. */
  gOfRef(r: number): number {
    return r >= 0 ? this.lo + r : (this.ghostG[-r - 1] as number);
  }

  /** @internal Id of a slot reference. */
  idOfRef(r: number): string {
    return r >= 0 ? (this.ids[r] as string) : (this.tables.remoteId(this.ghostG[-r - 1] as number) ?? "");
  }

  private hasHead(r: number): boolean {
    return (((r >= 0 ? this.flags[r] : this.ghostFlags[-r - 1]) as number) & HAS_HEAD) !== 0;
  }

  private firstOf(r: number): number {
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

  private entityOf(id: string): number {
    return this.tables.entityIndex(id) ?? this.tables.entityAdd(id);
  }

  /** @internal The entity with this id, if any. */
  entityIndex(id: string): number | undefined {
    return this.tables.entityIndex(id);
  }

  /** @internal The id of entity e. */
  entityId(e: number): string {
    return this.tables.entityId(e);
  }

  /** @internal Postings of entity e (without merges). */
  postCount(e: number): number {
    return this.tables.entityPosts.count(e);
  }

  /** @internal Visit e's postings newest first until `visit` returns false or `cap` were visited. */
  eachPosting(e: number, cap: number, visit: (node: number) => boolean | undefined): number {
    return this.tables.entityPosts.each(e, cap, visit);
  }

  private addPosting(e: number, node: number, scan: boolean) {
    if (scan) {
      // Only revisions re-add entities; new heads skip this O(df) check.
      let found = false;
      this.eachPosting(e, Number.POSITIVE_INFINITY, (n) => {
        if (n === node) found = true;
        return !found;
      });
      if (found) return;
    }
    this.tables.entityPosts.push(e, node, 0);
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

  private pushStart(i: number, t: number) {
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

  // ------------------------------------------------------------------ neighbour slots

  private growSlots(capacity: number) {
    this.slotDst = growI32(this.slotDst, capacity);
    this.slotWi = growU16(this.slotWi, capacity);
    this.slotType = growU8(this.slotType, capacity);
  }

  /** @internal Weight of slot k. */
  slotWeight(k: number): number {
    const c = this.slotWi[k] as number;
    return c < PALETTE_MAX ? (this.palette[c] as number) : gridValue(c);
  }

  /** @internal Replace the palette with these weights, in order (snapshot load). */
  loadPalette(weights: Iterable<number>): void {
    this.paletteSize = 0;
    this.paletteIndex.clear();
    for (const w of weights) this.weightIndex(w);
  }

  /** The 16-bit code of a weight: its palette index, or past the palette, the nearest grid point. */
  private weightIndex(w: number): number {
    const f = Math.fround(w);
    const known = this.paletteIndex.get(f);
    if (known !== undefined) return known;
    if (this.paletteSize >= PALETTE_MAX) {
      const g = Math.round(Math.log(Math.max(f, GRID_MIN) / GRID_MIN) / GRID_STEP);
      return PALETTE_MAX + Math.min(GRID - 1, Math.max(0, g));
    }
    if (this.paletteSize >= this.palette.length) this.palette = growF32(this.palette, this.palette.length * 2);
    const k = this.paletteSize++;
    this.palette[k] = f;
    this.paletteIndex.set(f, k);
    return k;
  }

  /**
   * Rewrite the pool with every node's slots contiguous and no holes. Relocations (capacity
   * 4 -> 8 -> 16 -> 32) leave holes; compacting when they exceed half the pool keeps the waste
   * bounded at 2x and the cost amortised O(1) per insert.
   */
  compactSlots(exact = false): void {
    const n = this.ids.length;
    const capOf = (c: number) => (exact || c === 0 ? c : c <= 4 ? 4 : c <= 8 ? 8 : Math.max(16, c));
    let total = 0;
    for (let i = 0; i < n; i++) total += capOf(this.nbrCount[i] as number);
    const room = exact ? total : Math.max(256, Math.ceil(total * 1.25));
    const dst = new Int32Array(room);
    const w = new Uint16Array(room);
    const ty = new Uint8Array(room);
    let pos = 0;
    for (let i = 0; i < n; i++) {
      const c = this.nbrCount[i] as number;
      const from = this.nbrStart[i] as number;
      dst.set(this.slotDst.subarray(from, from + c), pos);
      w.set(this.slotWi.subarray(from, from + c), pos);
      ty.set(this.slotType.subarray(from, from + c), pos);
      this.nbrStart[i] = pos;
      this.nbrCap[i] = capOf(c);
      pos += capOf(c);
    }
    this.slotDst = dst;
    this.slotWi = w;
    this.slotType = ty;
    this.slotsUsed = pos;
  }

  private relocate(i: number, newCap: number) {
    if (this.slotsUsed + newCap > this.slotDst.length) {
      // Holes over a quarter of the pool: compact instead of growing (waste stays <= ~1.5x).
      if (this.slotsUsed - this.liveSlots > this.slotsUsed / 4) this.compactSlots();
      if (this.slotsUsed + newCap > this.slotDst.length)
        this.growSlots(Math.max(256, Math.ceil((this.slotsUsed + newCap) * 1.25)));
    }
    const from = this.nbrStart[i] as number;
    const n = this.nbrCount[i] as number;
    const to = this.slotsUsed;
    if (n > 0) {
      this.slotDst.copyWithin(to, from, from + n);
      this.slotWi.copyWithin(to, from, from + n);
      this.slotType.copyWithin(to, from, from + n);
    }
    this.nbrStart[i] = to;
    this.nbrCap[i] = newCap;
    this.slotsUsed += newCap;
  }

  /** @internal Start of validity of slot k of node u (epoch ms). */
  slotFrom(u: number, k: number): number {
    const bits = this.slotType[k] as number;
    switch (bits & FROM_MASK) {
      case FROM_SELF:
        return this.firstValidFrom[u] as number;
      case FROM_DST:
        return this.firstOf(this.slotDst[k] as number);
      case FROM_OPEN:
        return OPEN_FROM;
      default: {
        const d = this.slotDst[k] as number;
        const key = bits & KEY_MASK;
        for (const [fd, fb, from] of this.fromAt.get(u) ?? []) if (fd === d && fb === key) return from;
        return OPEN_FROM;
      }
    }
  }

  /** @internal Is slot k of node u valid at time t (epoch ms)? */
  slotValid(u: number, k: number, t: number): boolean {
    const bits = this.slotType[k] as number;
    if ((bits & FROM_MASK) !== FROM_OPEN && this.slotFrom(u, k) > t) return false;
    if ((bits & CLOSED_BIT) === 0) return true;
    const d = this.slotDst[k] as number;
    const key = bits & KEY_MASK;
    for (const [cd, cb, to] of this.closed.get(u) ?? []) if (cd === d && cb === key) return t < to;
    return true;
  }

  /** Keyed side lists (closed ends, explicit starts): set, replace or (null) drop an entry. */
  private static setAside(
    map: Map<number, Array<[number, number, number]>>,
    u: number,
    dst: number,
    bits: number,
    at: number | null,
  ) {
    const list = map.get(u) ?? [];
    const i = list.findIndex(([d, b]) => d === dst && b === bits);
    if (at === null) {
      if (i >= 0) list.splice(i, 1);
    } else if (i >= 0) (list[i] as [number, number, number])[2] = at;
    else list.push([dst, bits, at]);
    if (list.length) map.set(u, list);
    else map.delete(u);
  }

  private setClosed(u: number, dst: number, bits: number, to: number | null) {
    CapitalStore.setAside(this.closed, u, dst, bits, to);
  }

  /** The from bits of a slot of u to dst starting at `from`, keeping an explicit start aside. */
  private fromBits(u: number, dst: number, bits: number, from: number): number {
    let code = 0;
    if (from === OPEN_FROM) code = FROM_OPEN;
    else if (this.hasHead(u) && from === this.firstValidFrom[u]) code = FROM_SELF;
    else if (this.hasHead(dst) && from === this.firstOf(dst)) code = FROM_DST;
    CapitalStore.setAside(this.fromAt, u, dst, bits, code === 0 ? from : null);
    return code;
  }

  /** `wi` is the weight's code (weightIndex), taken by the caller for every edge. */
  private upsertSlot(i: number, dst: number, bits: number, w: number, wi: number, from: number, to: number) {
    const s = this.nbrStart[i] as number;
    const n = this.nbrCount[i] as number;
    const closedBit = to === OPEN_TO ? 0 : CLOSED_BIT;
    for (let k = s; k < s + n; k++) {
      if (this.slotDst[k] === dst && ((this.slotType[k] as number) & KEY_MASK) === bits) {
        this.slotWi[k] = wi;
        this.slotType[k] = bits | closedBit | this.fromBits(i, dst, bits, from);
        this.setClosed(i, dst, bits, closedBit ? to : null);
        return;
      }
    }
    const kr = Math.min(this.params.kr, 255);
    let k: number;
    if (n >= kr) {
      // Full: keep the K_r heaviest (the neighbour table is bounded).
      let min = s;
      for (let j = s + 1; j < s + n; j++) if (this.slotWeight(j) < this.slotWeight(min)) min = j;
      if (this.slotWeight(min) >= Math.fround(w)) return;
      const old = (this.slotType[min] as number) & KEY_MASK;
      this.setClosed(i, this.slotDst[min] as number, old, null);
      CapitalStore.setAside(this.fromAt, i, this.slotDst[min] as number, old, null);
      k = min;
    } else {
      if (n >= (this.nbrCap[i] as number)) this.relocate(i, Math.min(kr, Math.max(4, (this.nbrCap[i] as number) * 2)));
      k = (this.nbrStart[i] as number) + n;
      this.nbrCount[i] = n + 1;
      this.liveSlots++;
    }
    this.slotDst[k] = dst;
    this.slotWi[k] = wi;
    this.slotType[k] = bits | closedBit | this.fromBits(i, dst, bits, from);
    if (closedBit) this.setClosed(i, dst, bits, to);
  }

  private closeSlot(i: number, dst: number, bits: number, to: number) {
    const s = this.nbrStart[i] as number;
    for (let k = s; k < s + (this.nbrCount[i] as number); k++) {
      if (this.slotDst[k] === dst && ((this.slotType[k] as number) & KEY_MASK) === bits) {
        let cur = OPEN_TO;
        for (const [cd, cb, t] of this.closed.get(i) ?? []) if (cd === dst && cb === bits) cur = t;
        this.slotType[k] = (this.slotType[k] as number) | CLOSED_BIT;
        this.setClosed(i, dst, bits, Math.min(cur, to));
      }
    }
  }

  private addEdge(src: string, dst: string, type: EdgeType, weight: number, validFrom: number, validTo: number | null) {
    if (src === dst) return;
    const a = this.globalOf(src);
    this.addEdgeG(a, this.globalOf(dst), type, weight, validFrom, validTo);
  }

  /** An edge between two archive-wide numbers: a slot on each end this store holds. */
  private addEdgeG(ga: number, gb: number, type: EdgeType, weight: number, validFrom: number, validTo: number | null) {
    if (ga === gb) return;
    const t = edgeCode(type);
    const w = Math.max(0, weight) * TYPE_WEIGHT[type];
    // Weight codes are taken for every edge, held here or not: the palette is then the same on every
    // shard and in one store holding everything, so a weight has the same value everywhere.
    const wa = this.weightIndex(w);
    const wb = this.weightIndex(w * REVERSE_FACTOR);
    const a = this.local(ga);
    const b = this.local(gb);
    if (a < 0 && b < 0) return;
    const from = edgeFrom(validFrom);
    const to = edgeTo(validTo);
    if (a >= 0) this.upsertSlot(a, b >= 0 ? b : this.refOf(gb), t, w, wa, from, to);
    if (b >= 0) this.upsertSlot(b, a >= 0 ? a : this.refOf(ga), t | DIR_IN, w * REVERSE_FACTOR, wb, from, to);
    this.edgeCount++;
  }

  // ------------------------------------------------------------------ grounding and mentions

  /**
   * Read ahead what applying these changes will look up in the tables (entity numbers, owner
   * lists, concept aliases), so storage answers a slice in a few statements. Changes nothing.
   */
  prefetch(ops: readonly ChangeOp[]): void {
    if (this.sharded && this.tables.prefetchRemote) {
      const remote = new Set<string>();
      const want = (id: string) => {
        if (this.index.get(id) === undefined) remote.add(id);
      };
      for (const op of ops) {
        if (op.op === "edge.upsert" || op.op === "edge.close") {
          want(op.src);
          want(op.dst);
        } else if ("chunk" in op) want(op.chunk);
        if (op.op === "head.deprecate" && op.by) want(op.by);
      }
      this.tables.prefetchRemote(remote);
    }
    if (!this.tables.prefetch || !this.derives) return;
    const ids = new Set<string>();
    for (const op of ops) {
      if (op.op !== "head.upsert" && op.op !== "head.extend") continue;
      for (const id of op.entities) ids.add(id);
      if (op.op === "head.upsert") {
        for (const id of op.owns ?? []) ids.add(id);
        for (const b of op.boundaries) ids.add(`boundary:${b}`);
      }
    }
    this.tables.prefetch(ids, conceptAliasKey);
  }

  /**
   * The entity a head's entity id stands for. A `concept:` id (a name grounded in content) that is
   * not an entity yet but whose name is an open alias of one (a declared method, a paper title)
   * grounds to that entity instead, so "HippoRAG" in a passage meets `method:hipporag`.
   * @internal
   */
  groundEntity(id: string, t: number): number {
    const known = this.tables.entityIndex(id);
    if (known !== undefined || !id.startsWith("concept:")) return known ?? this.tables.entityAdd(id);
    const list = this.tables.aliases(conceptAliasKey(id) as string);
    const hit = list?.find((a) => a.from <= t && t < a.to);
    return hit ? this.followMerges(hit.e, t).e : this.tables.entityAdd(id);
  }

  /**
   * Derived `mentions` edges: a head whose text names a concept that another head's title names
   * points at that head, in both orders of arrival. A new owner is linked from the heads already
   * naming its concept, at most MAX_MENTION_LINKS of them (most recent first), so the cost of one
   * head is bounded whatever the archive size. Heads sharing one title do not link each other.
   */
  private linkMentions(i: number, ents: number[], owns: number[], at: number) {
    // i and the tables' nodes are archive-wide numbers.
    const ownSet = new Set(owns);
    for (const e of ents) {
      if (ownSet.has(e)) continue;
      const list = this.tables.owners(e);
      for (const o of list.slice(-MAX_MENTION_LINKS)) if (o !== i) this.deriveEdge(i, o, 0, at);
    }
    for (const e of owns) {
      const before = this.tables.owners(e);
      if (before.includes(i)) continue;
      this.tables.addOwner(e, i);
      const others = new Set(before);
      others.add(i);
      let linked = 0;
      this.eachPosting(e, Number.POSITIVE_INFINITY, (p) => {
        if (others.has(p)) return true;
        this.deriveEdge(p, i, 0, at);
        linked++;
        return linked < MAX_MENTION_LINKS;
      });
    }
  }

  /**
   * Derived `follows` edges: a new record (a conversation turn, an event) follows the record just
   * before it on its timeline and is followed by the one just after it, so a question that matches
   * one turn reaches the reply next to it. Two links per record whatever the archive size; a
   * back-dated record adds its two links and leaves the link between its neighbours in place.
   */
  private linkTimeline(i: number, boundaries: string[], at: number) {
    const key = [...boundaries].sort().join("\u0000");
    const { prev, next } = this.tables.timelineInsert(key, at, i);
    if (prev >= 0) this.deriveEdge(i, prev, 1, at);
    if (next >= 0) this.deriveEdge(next, i, 1, at);
  }

  /** A derived edge (type: its DERIVED_TYPES code), kept for the other shards once there are any. */
  private deriveEdge(ga: number, gb: number, type: number, at: number): void {
    this.addEdgeG(ga, gb, DERIVED_TYPES[type] as EdgeType, 1, at, null);
    if (!this.sharded || this.applySeq < this.ownTo) return;
    const last = this.#derived[this.#derived.length - 1];
    if (last?.seq === this.applySeq) last.edges.push([ga, gb, type, at]);
    else this.#derived.push({ seq: this.applySeq, edges: [[ga, gb, type, at]] });
  }

  /**
   * The edges derived since the last drain, by change-log position (names shard of a sharded
   * archive: the positions at or after the first other shard's, where they can touch its nodes).
   */
  drainDerived(): DerivedAt[] {
    const out = this.#derived;
    this.#derived = [];
    return out;
  }

  /**
   * Take the edges the names shard derived at the change just applied (every shard but the names
   * shard, right after apply() of that change, so slots change in the order one store changes them).
   */
  applyDerived(edges: readonly DerivedEdge[]): void {
    if (this.derives) throw new Error("the names shard derives its own edges");
    for (const [ga, gb, type, at] of edges) {
      const t = DERIVED_TYPES[type];
      if (
        t === undefined ||
        !Number.isInteger(ga) ||
        !Number.isInteger(gb) ||
        ga >= this.globalCount ||
        gb >= this.globalCount
      )
        throw new Error(`derived edge ${JSON.stringify([ga, gb, type, at])} names no node of this archive`);
      this.addEdgeG(ga, gb, t, 1, at, null);
    }
  }

  // ------------------------------------------------------------------ lexical index

  private growDocs(n: number) {
    if (n <= this.docNode.length) return;
    const c = Math.max(64, Math.ceil(this.docNode.length * 1.5), n);
    this.docNode = growI32(this.docNode, c);
    this.docVer = growU32(this.docVer, c);
    this.docLen = growF32(this.docLen, c);
    this.docClosed = growU8(this.docClosed, c);
  }

  private closeLexicalDoc(i: number) {
    const d = this.nodeDoc[i] as number;
    if (d < 0 || this.docClosed[d] === 1) return;
    this.docClosed[d] = 1;
    this.openDocs--;
    this.openLen -= this.docLen[d] as number;
  }

  /** A new version's bag of terms ("term:tf ..."); the previous version's document ends here. */
  private addLexicalDoc(i: number, encoded: string, len: number) {
    this.closeLexicalDoc(i);
    const d = this.docCount++;
    this.growDocs(d + 1);
    this.docNode[d] = i;
    this.docVer[d] = Math.max(1, this.startsLen(i)) - 1;
    this.docLen[d] = len;
    this.nodeDoc[i] = d;
    if (((this.flags[i] as number) & DEPRECATED) !== 0) this.docClosed[d] = 1;
    else {
      this.openDocs++;
      this.openLen += len;
    }
    for (const [term, tf] of parseDocTerms(encoded)) this.tables.termPosts.push(termHash(term), d, tf);
  }

  /**
   * Okapi BM25 (k1 1.2, b 0.75) of the heads visible at t whose version's bag holds the query terms;
   * IDF = ln(1 + (N - df + 0.5) / (df + 0.5)) with N the open documents. At most `maxPostings`
   * postings are read per term, newest first, so a query costs O(terms x maxPostings) at any size.
   * Terms are scored rarest first until `budget` postings have been read.
   * Returns node -> score.
   * @internal
   */
  lexicalScores(
    queryTerms: string[],
    t: number,
    maxPostings: number,
    budget = Number.POSITIVE_INFINITY,
  ): Map<number, number> {
    const n = Math.max(1, this.openDocs);
    const avg = this.openDocs > 0 ? Math.max(1, this.openLen / this.openDocs) : 1;
    const plan = lexicalPlan(this.termCounts(queryTerms), n, maxPostings, budget);
    return this.lexicalScan(
      plan.map((p) => [p.term, p.cap, p.idf]),
      t,
      avg,
    );
  }

  /** @internal Hashed query terms (distinct, in query order) and their posting counts here. */
  termCounts(queryTerms: string[]): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    const seen = new Set<number>();
    for (const q of queryTerms) {
      const term = termHash(q);
      if (seen.has(term)) continue;
      seen.add(term);
      out.push([term, this.tables.termPosts.count(term)]);
    }
    return out;
  }

  /**
   * @internal BM25 of this store's documents visible at t for a plan of (term hash, postings to
   * read newest first, IDF), in plan order; `avg` is the mean document length. Local node -> score.
   */
  lexicalScan(plan: Array<[number, number, number]>, t: number, avg: number): Map<number, number> {
    // Dense accumulator by node with a touched list: no hashing per posting, reset costs the hits.
    // It borrows the diffusion's scratch vector, which is all zero between queries too.
    const acc = scratch(this).g;
    const touched: number[] = [];
    const lists = this.tables.termPosts;
    for (const [term, cap, idf] of plan) {
      if (cap <= 0) continue;
      lists.each(term, cap, (d, tf) => {
        const node = this.docNode[d] as number;
        // Valid from its version's start to the next version's start.
        const v = this.docVer[d] as number;
        const several = v > 0 || this.nodeDoc[node] !== d ? this.startsLen(node) : 0;
        const from = several ? this.startAt(node, v) : (this.firstValidFrom[node] as number);
        if (from > t || (v + 1 < several && t >= this.startAt(node, v + 1))) return true;
        // A document exists only for a head, starts no earlier than it, and ends at its
        // deprecation; only a deprecation dated before a later version began needs this check.
        if (t >= this.endOf(node)) return true;
        const norm = tf + BM25_K1 * (1 - BM25_B + (BM25_B * (this.docLen[d] as number)) / avg);
        if (acc[node] === 0) touched.push(node);
        acc[node] = (acc[node] as number) + (idf * (tf * (BM25_K1 + 1))) / norm;
        return true;
      });
    }
    const out = new Map<number, number>();
    for (const node of touched) {
      out.set(node, acc[node] as number);
      acc[node] = 0;
    }
    return out;
  }

  /** Document frequency of a query term (0 when unknown), for query analysis. */
  termDocFreq(term: string): number {
    return this.tables.termPosts.count(termHash(term));
  }

  // ------------------------------------------------------------------ change log

  /** Apply one change; `seq` is its change-log position (it decides which shard holds new ids). */
  apply(op: ChangeOp, seq = this.applySeq): void {
    this.applySeq = seq;
    switch (op.op) {
      case "head.upsert": {
        const g = this.globalOf(op.chunk);
        const i = this.local(g);
        if (i < 0) {
          this.applyRemoteHead(g, op);
          return;
        }
        const had = ((this.flags[i] as number) & HAS_HEAD) !== 0;
        if (had && op.version <= (this.latestVersion[i] as number)) return; // replay: already applied
        if (!had) {
          this.headCount++;
          this.firstValidFrom[i] = op.validFrom;
          this.flags[i] = (this.flags[i] as number) | HAS_HEAD;
        } else {
          this.pushStart(i, op.validFrom);
        }
        this.kind[i] = kindCode(op.kind);
        this.latestVersion[i] = op.version;
        this.recordedAt[i] = op.recordedAt;
        const sk = fromBase64(op.sketch);
        if (sk.length === SKETCH_BYTES) this.sketches.set(sk, i * SKETCH_BYTES);
        if (op.terms !== undefined) this.addLexicalDoc(i, op.terms, op.len ?? 0);
        this.headTables(g, op, had);
        return;
      }
      case "head.sketch": {
        // Only the shard holding the head keeps its sketch; an unknown id is not numbered.
        const g = this.lookupG(op.chunk);
        const i = g === undefined ? -1 : this.local(g);
        if (i < 0 || ((this.flags[i] as number) & HAS_HEAD) === 0) return;
        if (op.version !== this.latestVersion[i]) return;
        const sk = fromBase64(op.sketch);
        if (sk.length === SKETCH_BYTES) this.sketches.set(sk, i * SKETCH_BYTES);
        return;
      }
      case "head.deprecate": {
        const g = this.globalOf(op.chunk);
        const i = this.local(g);
        if (i < 0) {
          const h = this.tables.remoteHead(g);
          if (Number.isFinite(h.end)) return;
          this.setRemote(g, { ...h, end: op.at });
        } else {
          if (((this.flags[i] as number) & DEPRECATED) !== 0) return;
          this.endAt.set(i, op.at);
          this.flags[i] = (this.flags[i] as number) | DEPRECATED;
          this.closeLexicalDoc(i);
        }
        if (op.by) this.addEdge(op.chunk, op.by, "deprecated-by", 1, op.at, null);
        return;
      }
      case "head.extend": {
        // Never numbers a new id: an extension of a chunk the store has not seen has nothing to extend.
        const g = this.lookupG(op.chunk);
        if (g === undefined) return;
        const i = this.local(g);
        if (i >= 0) {
          const f = this.flags[i] as number;
          if ((f & HAS_HEAD) === 0 || (f & DEPRECATED) !== 0 || this.latestVersion[i] !== op.version) return;
        } else {
          const h = this.tables.remoteHead(g);
          if (h.version !== op.version || Number.isFinite(h.end)) return;
        }
        if (this.derives) this.extendTables(g, op);
        return;
      }
      case "edge.upsert":
        this.addEdge(op.src, op.dst, op.type, op.weight, op.validFrom, op.validTo);
        return;
      case "edge.close": {
        const ga = this.lookupG(op.src);
        const gb = this.lookupG(op.dst);
        if (ga === undefined || gb === undefined) return;
        const a = this.local(ga);
        const b = this.local(gb);
        const t = edgeCode(op.type);
        const to = edgeTo(op.at);
        // A slot to another shard's node exists only if its ghost does.
        const ref = (g: number, i: number) =>
          i >= 0 ? i : this.ghostAt.get(g) !== undefined ? this.refOf(g) : undefined;
        const rb = ref(gb, b);
        const ra = ref(ga, a);
        if (a >= 0 && rb !== undefined) this.closeSlot(a, rb, t, to);
        if (b >= 0 && ra !== undefined) this.closeSlot(b, ra, t | DIR_IN, to);
        return;
      }
      case "entity.upsert": {
        if (!this.derives) return;
        this.tables.setEntityInfo(this.entityOf(op.id), op.name, op.type);
        return;
      }
      case "alias.add": {
        if (!this.derives) return;
        const norm = normAlias(op.alias);
        if (!norm) return;
        const e = this.entityOf(op.entity);
        const list = (this.tables.aliases(norm) ?? []).map((a) => ({ ...a }));
        const to = op.validTo ?? Number.POSITIVE_INFINITY;
        const cur = list.find((a) => a.e === e && a.from === op.validFrom);
        if (cur) cur.to = to;
        else {
          list.push({ e, from: op.validFrom, to });
          this.aliasCount++;
        }
        this.tables.setAliases(norm, list);
        return;
      }
      case "alias.close": {
        if (!this.derives) return;
        const norm = normAlias(op.alias);
        const stored = this.tables.aliases(norm);
        const e = this.tables.entityIndex(op.entity);
        if (!stored || e === undefined) return;
        const list = stored.map((a) => ({ ...a }));
        for (const a of list) if (a.e === e && a.from <= op.at && a.to > op.at) a.to = op.at;
        this.tables.setAliases(norm, list);
        return;
      }
      case "entity.merge": {
        if (!this.derives) return;
        const from = this.entityOf(op.from);
        const into = this.entityOf(op.into);
        if (this.mergedInto.get(from)?.into === into) return;
        this.mergedInto.set(from, { into, at: op.at });
        const list = this.mergedFrom.get(into) ?? [];
        list.push(from);
        this.mergedFrom.set(into, list);
        return;
      }
      default: {
        const never: never = op;
        throw new Error(`unknown change op ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * A head of a node another shard holds: its validity (for this shard's slots to it) and, on the
   * names shard, the name tables and the edges they derive, as for an own head.
   */
  private applyRemoteHead(g: number, op: Extract<ChangeOp, { op: "head.upsert" }>): void {
    const h = this.tables.remoteHead(g);
    const had = h.version > 0;
    if (had && op.version <= h.version) return;
    this.setRemote(g, { version: op.version, first: had ? h.first : op.validFrom, end: h.end });
    this.headTables(g, op, had);
  }

  /**
   * What a head does to the name tables (entity and boundary postings, title owners, the timeline)
   * and the mention and timeline edges they derive (names shard only). `g` is the head's
   * archive-wide number; `had`: it had a head before.
   */
  private headTables(g: number, op: Extract<ChangeOp, { op: "head.upsert" }>, had: boolean): void {
    if (!had && op.kind === "record" && this.#hasRecords === false) this.#hasRecords = true;
    if (!this.derives) return;
    const ents: number[] = [];
    for (const id of op.entities) {
      const e = this.groundEntity(id, op.validFrom);
      this.addPosting(e, g, had);
      ents.push(e);
    }
    for (const b of op.boundaries) this.addPosting(this.entityOf(`boundary:${b}`), g, had);
    this.linkMentions(
      g,
      ents,
      (op.owns ?? []).map((id) => this.groundEntity(id, op.validFrom)),
      op.validFrom,
    );
    if (!had && op.kind === "record") this.linkTimeline(g, op.boundaries, op.validFrom);
  }

  /**
   * What an extension does to the name tables: the head's postings under the new entities (scanned
   * first, so applying it again adds nothing) and the mention links they derive, as headTables does
   * (names shard only).
   */
  private extendTables(g: number, op: Extract<ChangeOp, { op: "head.extend" }>): void {
    const ents: number[] = [];
    for (const id of op.entities) {
      const e = this.groundEntity(id, op.at);
      this.addPosting(e, g, true);
      ents.push(e);
    }
    this.linkMentions(g, ents, [], op.at);
  }

  private setRemote(g: number, h: RemoteHead): void {
    this.tables.setRemoteHead(g, h);
    const k = this.ghostAt.get(g);
    if (k !== undefined) this.setGhost(k, h);
  }

  // ------------------------------------------------------------------ entities

  /** @internal */
  followMerges(e: number, t: number): { e: number; merged: boolean } {
    let cur = e;
    let merged = false;
    for (let hops = 0; hops < 16; hops++) {
      const m = this.mergedInto.get(cur);
      if (!m || m.at > t) break;
      cur = m.into;
      merged = true;
    }
    return { e: cur, merged };
  }

  /** @internal All entities a mention resolves to at t (ids and aliases), after merges. */
  resolveIdx(mention: string, t: number): Array<{ e: number; via: string }> {
    // A paper identifier in any written form ("arXiv:2104.06921v2", "https://doi.org/...") is
    // canonicalised first; a work known under another id has this one as an alias.
    const id = canonicalPaperId(mention) ?? mention.trim();
    const direct = this.tables.entityIndex(id);
    if (direct !== undefined) {
      const m = this.followMerges(direct, t);
      return [{ e: m.e, via: m.merged ? "merge" : "identifier" }];
    }
    const list = this.tables.aliases(normAlias(id));
    if (!list || list.length === 0) {
      // A name grounded in content is an entity without alias rows: its id is the name's slug.
      const s = slug(id);
      const concept = s ? this.tables.entityIndex(`concept:${s}`) : undefined;
      if (concept === undefined || this.postCount(concept) === 0) return [];
      const m = this.followMerges(concept, t);
      return [{ e: m.e, via: m.merged ? "merge" : "grounded" }];
    }
    let chosen = list.filter((a) => a.from <= t && t < a.to);
    let via = "alias";
    if (chosen.length === 0) {
      // A renamed entity's old name keeps resolving after the rename closed it (and a name
      // introduced later resolves for earlier times): the most recent entry wins.
      const latest = list.reduce((b, a) => (a.from > b.from ? a : b));
      chosen = list.filter((a) => a.from === latest.from);
      via = "alias-historical";
    }
    const out = new Map<number, string>();
    for (const a of chosen) {
      const m = this.followMerges(a.e, t);
      if (!out.has(m.e)) out.set(m.e, m.merged ? "merge" : via);
    }
    return [...out.entries()].map(([e, v]) => ({ e, via: v }));
  }

  /**
   * The entity a mention denotes at t; when the name is an alias of several entities (two people
   * named "J. Smith"), `candidates` lists them all and the first is only the earliest declared.
   */
  resolve(
    mention: string,
    t: number,
  ): { entity: string; name: string; via: string; candidates?: Array<{ entity: string; name: string }> } | null {
    const r = this.resolveIdx(mention, t);
    const first = r[0];
    if (!first) return null;
    const show = (e: number) => {
      const id = this.tables.entityId(e);
      const name = this.tables.entityName(e);
      // Grounded concepts keep no name string of their own (memory): show the words of the slug.
      return { entity: id, name: name === id && id.startsWith("concept:") ? id.slice(8).replace(/-/g, " ") : name };
    };
    return { ...show(first.e), via: first.via, ...(r.length > 1 ? { candidates: r.map((x) => show(x.e)) } : {}) };
  }

  /** @internal Node postings of an entity as of t, including entities merged into it by then. */
  postingsAt(e: number, t: number, visit: (node: number) => void, cap: number): number {
    let seen = 0;
    const stack = [e];
    while (stack.length) {
      const cur = stack.pop() as number;
      // Most recent first: the newest postings are the likeliest to be visible and relevant.
      seen += this.eachPosting(cur, cap - seen, (node) => {
        visit(node);
        return true;
      });
      for (const f of this.mergedFrom.get(cur) ?? [])
        if ((this.mergedInto.get(f)?.at ?? Number.POSITIVE_INFINITY) <= t) stack.push(f);
    }
    return seen;
  }

  /** @internal */
  docFreq(e: number): number {
    let n = this.postCount(e);
    for (const f of this.mergedFrom.get(e) ?? []) n += this.postCount(f);
    return n;
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

  // ------------------------------------------------------------------ reads

  neighbours(chunk: string, t: number): NeighbourInfo[] {
    const i = this.index.get(chunk);
    if (i === undefined) return [];
    const out: NeighbourInfo[] = [];
    const s = this.nbrStart[i] as number;
    for (let k = s; k < s + (this.nbrCount[i] as number); k++) {
      if (!this.slotValid(i, k, t)) continue;
      const d = this.slotDst[k] as number;
      const bits = this.slotType[k] as number;
      out.push({
        chunk: this.idOfRef(d),
        type: EDGE_TYPE_CODES[bits & TYPE_MASK] as EdgeType,
        weight: this.slotWeight(k),
        direction: bits & DIR_IN ? "in" : "out",
        visible: this.visibleAt(d, t),
      });
    }
    return out.sort((a, b) => b.weight - a.weight);
  }

  /**
   * Heap bytes: typed arrays by byteLength (capacity); strings, map entries and array slots with the
   * constants of tables.ts (calibrated against heap growth after GC in Node). No storage reads: the
   * ingest guard asks for it before every batch.
   */
  heapBytes() {
    const ids = this.idBytes + this.index.byteLength();
    const nodes =
      this.kind.byteLength +
      this.flags.byteLength +
      this.firstValidFrom.byteLength +
      this.endAt.size * MAP_ENTRY_BYTES +
      this.latestVersion.byteLength +
      this.recordedAt.byteLength +
      this.lastAccess.byteLength +
      this.accessCount.byteLength +
      this.nbrStart.byteLength +
      this.nbrCount.byteLength +
      this.nbrCap.byteLength +
      this.vsPool.byteLength +
      this.vsAt.size * MAP_ENTRY_BYTES;
    const ghosts =
      this.ghostG.byteLength +
      this.ghostFlags.byteLength +
      this.ghostFirst.byteLength +
      this.ghostEnd.byteLength +
      this.ghostAt.byteLength();
    let aside = ghosts;
    for (const l of this.closed.values()) aside += MAP_ENTRY_BYTES + 16 + l.length * 56;
    for (const l of this.fromAt.values()) aside += MAP_ENTRY_BYTES + 16 + l.length * 56;
    const neighbours =
      this.slotDst.byteLength +
      this.slotWi.byteLength +
      this.slotType.byteLength +
      this.palette.byteLength +
      this.paletteSize * MAP_ENTRY_BYTES +
      aside;
    const lexical =
      this.docNode.byteLength +
      this.docVer.byteLength +
      this.docLen.byteLength +
      this.docClosed.byteLength +
      this.nodeDoc.byteLength;
    let merges = 0;
    for (const l of this.mergedFrom.values()) merges += 2 * MAP_ENTRY_BYTES + 32 + 8 * l.length + 32 * l.length;
    const tables = this.tables.heapBytes();
    const total = ids + nodes + this.sketches.byteLength + neighbours + lexical + merges + tables;
    return { nodes, sketches: this.sketches.byteLength, neighbours, ids, lexical, merges, tables, total };
  }

  stats() {
    const bytes = this.heapBytes();
    const { total } = bytes;
    const heads = this.headCount;
    return {
      heads,
      nodes: this.ids.length,
      edges: this.edgeCount,
      slots: this.liveSlots,
      slotPool: this.slotDst.length,
      entities: this.tables.entityCount(),
      aliases: this.aliasCount,
      terms: this.tables.termCount(),
      bytes,
      bytesPerHead: heads ? total / heads : 0,
    };
  }

  serialize(): Uint8Array {
    return serializeStore(this);
  }

  /**
   * A store from a snapshot. With `tables` (SQLite storage at the snapshot's change-log position)
   * the snapshot holds the heap arrays only; without, it must carry in-memory tables.
   */
  static deserialize(buf: Uint8Array, tables?: CapitalTables): CapitalStore {
    return deserializeStore(buf, tables);
  }
}

// ------------------------------------------------------------------ snapshot format
// "PGC1" | u32 header length | header JSON (UTF-8) | padding to 8 | typed arrays, 8-byte aligned.
// Neighbour slots are compacted (holes left by relocations are dropped). Version 3: entities,
// postings, aliases, owners and timelines are in the tables; a snapshot of a store whose tables are
// in memory carries them in the header (`tables`), one over SQLite storage does not (the storage is
// written at the same change-log position). Version 4: a shard other than the names shard holds no
// name tables and takes derived edges from the names shard. Versions 1-2 kept the tables in the
// snapshot itself; a Durable Object that finds no version-4 checkpoint rebuilds from the change log.

type ArrayName =
  | "kind"
  | "flags"
  | "firstValidFrom"
  | "latestVersion"
  | "recordedAt"
  | "lastAccess"
  | "accessCount"
  | "sketches"
  | "nbrStart"
  | "nbrCount"
  | "nbrCap"
  | "slotDst"
  | "slotWi"
  | "slotType"
  | "palette"
  | "docNode"
  | "docVer"
  | "docLen"
  | "docClosed"
  | "nodeDoc";

const SNAPSHOT_VERSION = 4;
const enc = (x: number) => (Number.isFinite(x) ? x : x > 0 ? "inf" : "-inf");
const dec = (x: number | string) =>
  x === "inf" ? Number.POSITIVE_INFINITY : x === "-inf" ? Number.NEGATIVE_INFINITY : (x as number);

function serializeStore(s: CapitalStore): Uint8Array {
  const n = s.ids.length;
  // Snapshots are compacted exactly (capacity = count): most nodes never change after a rebuild,
  // and the next insert into a node relocates it with room to grow.
  s.compactSlots(true);
  s.compactGhosts();
  const { slotDst, slotWi, slotType } = s;
  const arrays: Record<ArrayName, ArrayBufferView> = {
    kind: s.kind.subarray(0, n),
    flags: s.flags.subarray(0, n),
    firstValidFrom: s.firstValidFrom.subarray(0, n),
    latestVersion: s.latestVersion.subarray(0, n),
    recordedAt: s.recordedAt.subarray(0, n),
    lastAccess: s.lastAccess.subarray(0, n),
    accessCount: s.accessCount.subarray(0, n),
    sketches: s.sketches.subarray(0, n * SKETCH_BYTES),
    nbrStart: s.nbrStart.subarray(0, n),
    nbrCount: s.nbrCount.subarray(0, n),
    nbrCap: s.nbrCap.subarray(0, n),
    slotDst,
    slotWi,
    slotType,
    palette: s.palette.subarray(0, s.paletteSize),
    docNode: s.docNode.subarray(0, s.docCount),
    docVer: s.docVer.subarray(0, s.docCount),
    docLen: s.docLen.subarray(0, s.docCount),
    docClosed: s.docClosed.subarray(0, s.docCount),
    nodeDoc: s.nodeDoc.subarray(0, n),
  };
  const layout: Array<{ name: ArrayName; offset: number; bytes: number }> = [];
  let off = 0;
  for (const [name, a] of Object.entries(arrays) as Array<[ArrayName, ArrayBufferView]>) {
    layout.push({ name, offset: off, bytes: a.byteLength });
    off += Math.ceil(a.byteLength / 8) * 8;
  }
  const header = {
    v: SNAPSHOT_VERSION,
    lex: { docCount: s.docCount, openDocs: s.openDocs, openLen: s.openLen },
    seq: s.seq,
    params: s.params,
    ids: s.ids,
    slotsUsed: s.slotsUsed,
    liveSlots: s.liveSlots,
    closed: [...s.closed.entries()].map(([k, l]) => [k, l.map(([d, b, to]) => [d, b, enc(to)])]),
    fromAt: [...s.fromAt.entries()].map(([k, l]) => [k, l.map(([d, b, from]) => [d, b, enc(from)])]),
    edgeCount: s.edgeCount,
    ends: [...s.endAt.entries()],
    merges: [...s.mergedInto.entries()].map(([from, m]) => [from, m.into, enc(m.at)]),
    aliasCount: s.aliasCount,
    versionStarts: [...s.vsAt.keys()].map((i) => [i, s.startsOf(i)]),
    ring: [...s.ring],
    ringPos: s.ringPos,
    shard: s.sharded
      ? {
          lo: s.lo,
          from: enc(s.ownFrom),
          to: enc(s.ownTo),
          count: s.globalCount,
          ghosts: Array.from(s.ghostG.subarray(0, s.ghostCount)),
        }
      : null,
    tables: s.tables instanceof MemoryTables ? s.tables.dump() : null,
    codes: KNOWN_CODES,
    layout,
  };
  const hb = new TextEncoder().encode(JSON.stringify(header));
  const base = Math.ceil((8 + hb.byteLength) / 8) * 8;
  const out = new Uint8Array(base + off);
  const dv = new DataView(out.buffer);
  out.set([0x50, 0x47, 0x43, 0x31], 0);
  dv.setUint32(4, hb.byteLength, true);
  out.set(hb, 8);
  for (const l of layout) {
    const a = arrays[l.name];
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), base + l.offset);
  }
  return out;
}

function deserializeStore(buf: Uint8Array, tables?: CapitalTables): CapitalStore {
  if (buf[0] !== 0x50 || buf[1] !== 0x47 || buf[2] !== 0x43 || buf[3] !== 0x31)
    throw new Error("not a capital-chunk snapshot");
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const hl = dv.getUint32(4, true);
  const h = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + hl))) as {
    v: number;
    lex: { docCount: number; openDocs: number; openLen: number };
    seq: number;
    params: KernelParams;
    ids: string[];
    slotsUsed: number;
    liveSlots: number;
    closed: Array<[number, Array<[number, number, number | string]>]>;
    fromAt: Array<[number, Array<[number, number, number | string]>]>;
    edgeCount: number;
    ends: Array<[number, number]>;
    merges: Array<[number, number, number | string]>;
    aliasCount: number;
    versionStarts: Array<[number, number[]]>;
    ring: number[];
    ringPos: number;
    shard?: { lo: number; from: number | string; to: number | string; count: number; ghosts: number[] } | null;
    tables: MemoryTablesDump | null;
    /** How many edge-type and chunk-kind codes the writer knew (src/core/capital/codes.ts). */
    codes?: { edge: number; kind: number };
    layout: Array<{ name: ArrayName; offset: number; bytes: number }>;
  };
  if (h.v !== SNAPSHOT_VERSION) throw new Error(`capital-chunk snapshot version ${h.v}: rebuild from the change log`);
  const t = tables ?? (h.tables ? MemoryTables.load(h.tables) : null);
  if (!t) throw new Error("this snapshot's tables are in SQLite storage: pass them");
  const base = Math.ceil((8 + hl) / 8) * 8;
  const raw = (name: ArrayName): ArrayBuffer => {
    const l = h.layout.find((x) => x.name === name);
    if (!l) throw new Error(`snapshot lacks ${name}`);
    const start = buf.byteOffset + base + l.offset;
    return buf.buffer.slice(start, start + l.bytes) as ArrayBuffer;
  };
  const s = new CapitalStore(h.params, t);
  s.seq = h.seq;
  const n = h.ids.length;
  s.ids = h.ids;
  s.index = IdIndex.of(() => s.ids);
  for (const id of s.ids) s.idBytes += stringBytes(id) + 8;
  const cap = Math.max(64, n);
  // Re-grow to capacity so appends after a rebuild do not reallocate immediately.
  const f64 = (name: ArrayName, fill = 0) => growF64(new Float64Array(raw(name)), cap, fill);
  s.kind = growU8(new Uint8Array(raw("kind")), cap);
  s.flags = growU8(new Uint8Array(raw("flags")), cap);
  for (let i = 0; i < n; i++) if (((s.flags[i] as number) & HAS_HEAD) !== 0) s.headCount++;
  s.firstValidFrom = f64("firstValidFrom");
  s.latestVersion = growU32(new Uint32Array(raw("latestVersion")), cap);
  s.recordedAt = f64("recordedAt");
  s.lastAccess = f64("lastAccess");
  s.accessCount = growU32(new Uint32Array(raw("accessCount")), cap);
  s.sketches = growU8(new Uint8Array(raw("sketches")), cap * SKETCH_BYTES);
  s.nbrStart = growI32(new Int32Array(raw("nbrStart")), cap);
  s.nbrCount = growU8(new Uint8Array(raw("nbrCount")), cap);
  s.nbrCap = growU8(new Uint8Array(raw("nbrCap")), cap);
  (s as unknown as { cap: number }).cap = cap;
  s.slotDst = new Int32Array(raw("slotDst"));
  s.slotWi = new Uint16Array(raw("slotWi"));
  s.slotType = new Uint8Array(raw("slotType"));
  checkCodes(h.codes, s.kind.subarray(0, n), s.slotType.subarray(0, h.slotsUsed), TYPE_MASK);
  const palette = new Float32Array(raw("palette"));
  s.loadPalette(palette);
  s.slotsUsed = h.slotsUsed;
  s.liveSlots = h.liveSlots;
  s.closed = new Map(h.closed.map(([k, l]) => [k, l.map(([d, b, to]) => [d, b, dec(to)] as [number, number, number])]));
  s.fromAt = new Map(h.fromAt.map(([k, l]) => [k, l.map(([d, b, f]) => [d, b, dec(f)] as [number, number, number])]));
  s.edgeCount = h.edgeCount;
  s.endAt = new Map(h.ends);
  for (const [from, into, at] of h.merges) {
    s.mergedInto.set(from, { into, at: dec(at) });
    const list = s.mergedFrom.get(into) ?? [];
    list.push(from);
    s.mergedFrom.set(into, list);
  }
  s.aliasCount = h.aliasCount;
  for (const [i, starts] of h.versionStarts) {
    s.vsAt.set(i, s.vsUsed);
    s.vsUsed += 2 + starts.length;
  }
  s.vsPool = new Float64Array(Math.max(64, s.vsUsed));
  for (const [i, starts] of h.versionStarts) {
    const o = s.vsAt.get(i) as number;
    s.vsPool[o] = starts.length;
    s.vsPool[o + 1] = starts.length;
    s.vsPool.set(starts, o + 2);
  }
  s.ring = Int32Array.from(h.ring);
  s.ringPos = h.ringPos;
  s.globalCount = n;
  if (h.shard) {
    s.shard(dec(h.shard.from), dec(h.shard.to));
    s.lo = h.shard.lo;
    s.globalCount = h.shard.count;
    // Ghosts in their slot order; their validity is read back from the tables.
    for (const g of h.shard.ghosts) s.refOf(g);
  }
  s.docCount = h.lex.docCount;
  s.openDocs = h.lex.openDocs;
  s.openLen = h.lex.openLen;
  const docCap = Math.max(64, s.docCount);
  s.docNode = growI32(new Int32Array(raw("docNode")), docCap);
  s.docVer = growU32(new Uint32Array(raw("docVer")), docCap);
  s.docLen = growF32(new Float32Array(raw("docLen")), docCap);
  s.docClosed = growU8(new Uint8Array(raw("docClosed")), docCap);
  const nd = new Int32Array(cap).fill(-1);
  nd.set(new Int32Array(raw("nodeDoc")));
  s.nodeDoc = nd;
  return s;
}
