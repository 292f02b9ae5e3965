/**
 * The capital chunk's tables in synchronous SQLite storage (a Durable Object's `ctx.storage.sql`:
 * up to 10 GB per object, outside the isolate's 128 MB). Writes go to a small in-heap write buffer
 * and reach SQLite only at a checkpoint, in one atomic step together with the heap snapshot and the
 * change-log position, so storage and heap always describe the same point of the log: after an
 * eviction the object loads the checkpoint and replays the log after it, and nothing is applied
 * twice. Reads merge the buffer (newest) with storage.
 *
 * Postings are stored as immutable segments of pages, many lists to a page (src/core/capital/
 * segments.ts): a checkpoint writes one row per ~4 KB of postings whatever the number of lists it
 * touches, and merges run in slices between requests (`merge`).
 */
import { SEGMENT_SCHEMA, SEGMENT_TABLES, SegmentLists } from "./segments";
import type { AliasEntry, CapitalTables, RemoteHead } from "./tables";
import { contains, insertionPoint, MAP_ENTRY_BYTES, NO_HEAD, stringBytes } from "./tables";

export type { SqlRow, SqlValue, SyncSql } from "./sync-sql";

import type { SqlRow, SqlValue, SyncSql } from "./sync-sql";

/** Values per dedicated page of a long list: 4,096 postings are 16-20 KB, under a row's 2 MB limit. */
export { DEDICATED as BLOCK } from "./segments";

/** Heap snapshot parts: 1 MiB each (a row holds at most 2 MB). */
const SNAP_PART = 1 << 20;

const SCHEMA = [
  ...SEGMENT_SCHEMA,
  "CREATE TABLE IF NOT EXISTS pg_meta(k TEXT PRIMARY KEY, v)",
  "CREATE TABLE IF NOT EXISTS pg_ent(e INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT, type TEXT)",
  // Posting blocks of the layout before segments: read only to see that a checkpoint predates them.
  "CREATE TABLE IF NOT EXISTS pg_list(space INTEGER NOT NULL, key INTEGER NOT NULL, blk INTEGER NOT NULL, n INTEGER NOT NULL, vals BLOB NOT NULL, extra BLOB, PRIMARY KEY(space, key, blk)) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS pg_list_len(space INTEGER NOT NULL, key INTEGER NOT NULL, len INTEGER NOT NULL, blocks INTEGER NOT NULL, PRIMARY KEY(space, key)) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS pg_alias(norm TEXT PRIMARY KEY, data TEXT NOT NULL) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS pg_owner(e INTEGER PRIMARY KEY, nodes BLOB NOT NULL)",
  "CREATE TABLE IF NOT EXISTS pg_tl(key TEXT NOT NULL, at REAL NOT NULL, ord INTEGER NOT NULL, node INTEGER NOT NULL, PRIMARY KEY(key, at, ord)) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS pg_snap(part INTEGER PRIMARY KEY, data BLOB NOT NULL)",
  // Nodes other shards of the archive hold: archive-wide number, id, head version, first start, end
  // (NULL while open-ended).
  "CREATE TABLE IF NOT EXISTS pg_remote(g INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, ver INTEGER NOT NULL, first REAL NOT NULL, end REAL)",
];
const TABLES = [
  "pg_meta",
  "pg_ent",
  "pg_list",
  "pg_list_len",
  "pg_alias",
  "pg_owner",
  "pg_tl",
  "pg_snap",
  "pg_remote",
  ...SEGMENT_TABLES,
];

const ENTITY_POSTS = 0;
const TERM_POSTS = 1;
const NODE_ENTITIES = 2;

const num = (v: SqlValue | undefined): number => (typeof v === "number" ? v : Number(v ?? 0));
const i32 = (b: SqlValue | undefined): Int32Array => {
  if (!(b instanceof Uint8Array) || b.byteLength === 0) return new Int32Array(0);
  // Copy: the driver's buffer may be unaligned or reused.
  const c = new Uint8Array(b.byteLength);
  c.set(b);
  return new Int32Array(c.buffer, 0, c.byteLength >> 2);
};
const u8 = (b: SqlValue | undefined): Uint8Array => (b instanceof Uint8Array ? b : new Uint8Array(0));
const bytesOf = (a: Int32Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const encInf = (x: number) => (Number.isFinite(x) ? x : x > 0 ? "inf" : "-inf");
const decInf = (x: number | string) =>
  x === "inf" ? Number.POSITIVE_INFINITY : x === "-inf" ? Number.NEGATIVE_INFINITY : (x as number);

/** Entries of the read cache of stored entity numbers and owner lists (emptied when full). */
const READ_CACHE = 16384;
/** Bytes of that cache unless the owner sets `readLimit`. */
const READ_CACHE_BYTES = 2 << 20;

function parseAliases(data: SqlValue | undefined): AliasEntry[] {
  const rows = JSON.parse(String(data)) as Array<[number, number | string, number | string]>;
  return rows.map(([e, from, to]) => ({ e, from: decInf(from), to: decInf(to) }));
}

/** HyperLogLog registers (2^12: about 1.6% standard error). */
const HLL_BITS = 12;
const HLL_M = 1 << HLL_BITS;

/**
 * The number of distinct terms, estimated by HyperLogLog (Flajolet et al. 2007, with the
 * small-range correction): 4 KB whatever the vocabulary, kept in pg_meta at each checkpoint.
 */
class TermSketch {
  readonly reg = new Uint8Array(HLL_M);
  constructor(stored: SqlValue | undefined) {
    if (stored instanceof Uint8Array && stored.byteLength === HLL_M) this.reg.set(stored);
  }
  add(key: number): void {
    // Term keys are FNV-1a hashes: mix them (murmur3's finaliser) before taking bits.
    let h = key >>> 0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    h >>>= 0;
    const idx = h >>> (32 - HLL_BITS);
    const rest = (h << HLL_BITS) >>> 0;
    const rank = rest === 0 ? 32 - HLL_BITS + 1 : Math.clz32(rest) + 1;
    if (rank > (this.reg[idx] as number)) this.reg[idx] = rank;
  }
  merge(o: TermSketch): void {
    for (let i = 0; i < HLL_M; i++)
      if ((o.reg[i] as number) > (this.reg[i] as number)) this.reg[i] = o.reg[i] as number;
  }
  estimate(): number {
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < HLL_M; i++) {
      const r = this.reg[i] as number;
      sum += 2 ** -r;
      if (r === 0) zeros++;
    }
    if (zeros === HLL_M) return 0;
    const alpha = 0.7213 / (1 + 1.079 / HLL_M);
    const raw = (alpha * HLL_M * HLL_M) / sum;
    return Math.round(raw <= 2.5 * HLL_M && zeros > 0 ? HLL_M * Math.log(HLL_M / zeros) : raw);
  }
  bytes(): Uint8Array {
    return this.reg;
  }
}

interface PendingTimeline {
  at: number[];
  ord: number[];
  node: number[];
}

/** The capital chunk's tables in SQLite, with a write buffer flushed at checkpoints. */
export class SqlTables implements CapitalTables {
  readonly entityPosts: SegmentLists;
  readonly termPosts: SegmentLists;
  /**
   * Node -> the entities it is posted under, the same postings keyed the other way, so that a
   * revision asks its node's few entities whether it is posted under one, not the entity's list of
   * every node naming it (a boundary's list holds a whole source: O(archive) per revised head).
   */
  readonly nodeEntities: SegmentLists;
  /**
   * Whether nodeEntities holds every posting (meta `fwd`): tables first written before it existed
   * do not, and scan the entity's list instead until a rebuild empties them.
   */
  #forward: boolean;
  #storedEntities: number;
  #newIds: string[] = [];
  #newIndex = new Map<string, number>();
  #info = new Map<number, [string, string]>();
  #aliases = new Map<string, AliasEntry[]>();
  #owners = new Map<number, number[]>();
  #timelines = new Map<string, PendingTimeline>();
  #ord: number;
  /** Distinct terms, estimated (HyperLogLog): a segment layout has no list of its own per term. */
  #terms: TermSketch;
  /** The stored checkpoint predates segments: it cannot be read (the object rebuilds from the log). */
  readonly legacy: boolean;
  /** Remote nodes added or changed since the last checkpoint. */
  #remote = new Map<number, { id: string; head: RemoteHead }>();
  #remoteIdx = new Map<string, number>();
  /**
   * Heap bytes of the buffered entities, names, aliases, owners and timelines, added as they are
   * buffered (a replaced list counts again: an over-estimate), so heapBytes() is O(1) and the object
   * can check its buffer against the budget after every change.
   */
  #bufferBytes = 0;
  /**
   * Stored entity numbers and owner lists read since the last checkpoint (neither changes in
   * storage before the next one). A batch of 200 plain-text heads asks ~6,400 times for ~2,000
   * distinct ones. At most READ_CACHE entries, counted in heapBytes().
   */
  #entityRead = new Map<string, number>();
  /** Entity ids read as absent (an entityAdd takes its id out). */
  #entityMiss = new Set<string>();
  /** Stored alias lists read since the last checkpoint (null: no such alias). */
  #aliasRead = new Map<string, readonly AliasEntry[] | null>();
  #ownerRead = new Map<number, readonly number[]>();
  /** Stored remote nodes read ahead (`prefetchRemote`), by id (null: not stored) and by number. */
  #remoteRead = new Map<string, number | null>();
  #remoteRow = new Map<number, { id: string; head: RemoteHead }>();
  #readBytes = 0;

  constructor(private readonly sql: SyncSql) {
    for (const s of SCHEMA) sql.run(s);
    this.entityPosts = new SegmentLists(sql, ENTITY_POSTS, false);
    this.termPosts = new SegmentLists(sql, TERM_POSTS, true);
    this.nodeEntities = new SegmentLists(sql, NODE_ENTITIES, false);
    this.legacy = sql.all("SELECT 1 AS x FROM pg_list LIMIT 1").length > 0;
    this.#storedEntities = num(sql.all("SELECT COALESCE(MAX(e) + 1, 0) AS n FROM pg_ent")[0]?.n);
    // No stored entity: no stored posting either, so the two keyings start complete.
    this.#forward = this.meta("fwd") !== undefined || this.#storedEntities === 0;
    this.#ord = num(this.meta("ord"));
    this.#terms = new TermSketch(this.meta("terms"));
  }

  meta(k: string): SqlValue | undefined {
    return this.sql.all("SELECT v FROM pg_meta WHERE k = ?", k)[0]?.v;
  }

  /** Change-log position of the last checkpoint (0: none, or one of a layout before segments). */
  checkpointSeq(): number {
    return this.legacy ? 0 : num(this.meta("seq"));
  }

  /** Whether posting segments wait to be merged (call `merge` in slices while it says so). */
  mergeDue(): boolean {
    return this.termPosts.mergeDue() || this.entityPosts.mergeDue() || this.nodeEntities.mergeDue();
  }

  /** The term postings only take revisions from now on (a closed shard): merge them down (SegmentLists.seal). */
  sealTerms(): void {
    this.termPosts.seal();
  }

  /** One slice of merge work, about `budget` postings; true while more is due. */
  merge(budget: number): boolean {
    if (this.termPosts.mergeDue()) this.termPosts.merge(budget);
    else if (this.entityPosts.mergeDue()) this.entityPosts.merge(budget);
    else if (this.nodeEntities.mergeDue()) this.nodeEntities.merge(budget);
    return this.mergeDue();
  }

  /** The heap snapshot written with the last checkpoint, or null. */
  heapSnapshot(): Uint8Array | null {
    const parts = this.sql.all("SELECT data FROM pg_snap ORDER BY part");
    if (parts.length === 0) return null;
    let total = 0;
    for (const p of parts) total += u8(p.data).byteLength;
    const out = new Uint8Array(total);
    let off = 0;
    for (const p of parts) {
      const b = u8(p.data);
      out.set(b, off);
      off += b.byteLength;
    }
    return out;
  }

  /** Empty every table (a rebuild from the start of the change log follows). */
  clear(): void {
    this.sql.atomic(() => {
      for (const t of TABLES) this.sql.run(`DELETE FROM ${t}`);
    });
    this.#storedEntities = 0;
    this.#ord = 0;
    this.#terms = new TermSketch(undefined);
    this.entityPosts.reset();
    this.termPosts.reset();
    this.nodeEntities.reset();
    this.#forward = true;
    this.#dropPending();
  }

  #dropPending(reads = true): void {
    this.entityPosts.pending.clear();
    this.termPosts.pending.clear();
    this.nodeEntities.pending.clear();
    this.#newIds = [];
    this.#newIndex.clear();
    this.#info.clear();
    this.#aliases.clear();
    this.#owners.clear();
    this.#timelines.clear();
    this.#remote.clear();
    this.#remoteIdx.clear();
    this.#bufferBytes = 0;
    if (reads) this.#dropReads();
  }

  #dropReads(): void {
    this.#entityRead.clear();
    this.#entityMiss.clear();
    this.#aliasRead.clear();
    this.#ownerRead.clear();
    this.#remoteRead.clear();
    this.#remoteRow.clear();
    this.#readBytes = 0;
  }

  /**
   * Bytes the read cache may hold (the object sets a share of its heap budget); it is emptied when
   * full.
   */
  readLimit = READ_CACHE_BYTES;

  #cacheRoom(): void {
    if (this.#readEntries() >= READ_CACHE || this.#readBytes >= this.readLimit) this.#dropReads();
  }

  #readEntries(): number {
    return (
      this.#entityRead.size +
      this.#ownerRead.size +
      this.#entityMiss.size +
      this.#aliasRead.size +
      this.#remoteRead.size
    );
  }

  /**
   * Read in one statement each what applying a slice of changes will ask for one at a time: the
   * numbers of these entity ids, their owner lists, and for the ids not stored the alias lists
   * under `aliasKey(id)` (a key or null). Statements cost more than the rows they return: a slice
   * of 32 real passages asks for ~600 ids.
   */
  prefetch(ids: Iterable<string>, aliasKey: (id: string) => string | null): void {
    this.#cacheRoom();
    const want: string[] = [];
    for (const id of ids)
      if (!this.#newIndex.has(id) && !this.#entityRead.has(id) && !this.#entityMiss.has(id)) want.push(id);
    if (want.length === 0) return;
    const found = new Map<string, number>();
    for (const r of this.sql.all(
      "SELECT id, e FROM pg_ent WHERE id IN (SELECT value FROM json_each(?))",
      JSON.stringify(want),
    ))
      found.set(String(r.id), num(r.e));
    const es: number[] = [];
    const keys: string[] = [];
    for (const id of want) {
      const e = found.get(id);
      this.#readBytes += stringBytes(id) + MAP_ENTRY_BYTES;
      if (e === undefined) {
        this.#entityMiss.add(id);
        const k = aliasKey(id);
        if (k !== null && !this.#aliases.has(k) && !this.#aliasRead.has(k)) keys.push(k);
      } else {
        this.#entityRead.set(id, e);
        if (!this.#owners.has(e) && !this.#ownerRead.has(e)) es.push(e);
      }
    }
    if (es.length > 0) {
      const lists = new Map<number, number[]>();
      for (const r of this.sql.all(
        "SELECT e, nodes FROM pg_owner WHERE e IN (SELECT value FROM json_each(?))",
        JSON.stringify(es),
      ))
        lists.set(num(r.e), Array.from(i32(r.nodes)));
      for (const e of es) {
        const list = lists.get(e) ?? [];
        this.#ownerRead.set(e, list);
        this.#readBytes += MAP_ENTRY_BYTES + 32 + 8 * list.length;
      }
    }
    if (keys.length > 0) {
      const lists = new Map<string, readonly AliasEntry[]>();
      for (const r of this.sql.all(
        "SELECT norm, data FROM pg_alias WHERE norm IN (SELECT value FROM json_each(?))",
        JSON.stringify(keys),
      ))
        lists.set(String(r.norm), parseAliases(r.data));
      for (const k of keys) {
        const list = lists.get(k) ?? null;
        this.#aliasRead.set(k, list);
        this.#readBytes += stringBytes(k) + MAP_ENTRY_BYTES + 32 + (list?.length ?? 0) * 48;
      }
    }
  }

  /**
   * Read in one statement the stored remote nodes (`pg_remote`) of these ids, which applying a
   * slice of changes on a shard asks for one at a time (a new id is looked up on every shard
   * before it is numbered). Changes nothing.
   */
  prefetchRemote(ids: Iterable<string>): void {
    this.#cacheRoom();
    const want: string[] = [];
    for (const id of ids) if (!this.#remoteIdx.has(id) && !this.#remoteRead.has(id)) want.push(id);
    if (want.length === 0) return;
    for (const id of want) {
      this.#remoteRead.set(id, null);
      this.#readBytes += stringBytes(id) + MAP_ENTRY_BYTES;
    }
    for (const r of this.sql.all(
      "SELECT g, id, ver, first, end FROM pg_remote WHERE id IN (SELECT value FROM json_each(?))",
      JSON.stringify(want),
    )) {
      const g = num(r.g);
      const id = String(r.id);
      this.#remoteRead.set(id, g);
      this.#remoteRow.set(g, { id, head: remoteRowHead(r) });
      this.#readBytes += stringBytes(id) + MAP_ENTRY_BYTES + 48;
    }
  }

  /** Values waiting in the write buffer (a checkpoint empties it). */
  pendingValues(): number {
    return (
      this.entityPosts.pendingValues +
      this.termPosts.pendingValues +
      this.nodeEntities.pendingValues +
      this.#newIds.length +
      this.#timelines.size +
      this.#remote.size
    );
  }

  /**
   * Write the buffer, the heap snapshot and the change-log position in one transaction: storage
   * and snapshot then describe the same point of the log.
   */
  checkpoint(seq: number, heap: Uint8Array): void {
    this.sql.atomic(() => {
      // New entities in statements of up to 10,000 rows (one statement costs more than its rows).
      for (let from = 0; from < this.#newIds.length; from += 10_000) {
        const rows: Array<[number, string, string | null, string | null]> = [];
        for (let k = from; k < Math.min(this.#newIds.length, from + 10_000); k++) {
          const e = this.#storedEntities + k;
          const info = this.#info.get(e);
          rows.push([e, this.#newIds[k] as string, info?.[0] ?? null, info?.[1] ?? null]);
        }
        this.sql.run(
          "INSERT INTO pg_ent(e, id, name, type) SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]') FROM json_each(?)",
          JSON.stringify(rows),
        );
      }
      for (const [e, [name, type]] of this.#info)
        if (e < this.#storedEntities) this.sql.run("UPDATE pg_ent SET name = ?, type = ? WHERE e = ?", name, type, e);
      this.entityPosts.flush();
      this.nodeEntities.flush();
      for (const k of this.termPosts.flush()) this.#terms.add(k);
      for (const [norm, list] of this.#aliases)
        this.sql.run(
          "INSERT OR REPLACE INTO pg_alias(norm, data) VALUES (?, ?)",
          norm,
          JSON.stringify(list.map((a) => [a.e, encInf(a.from), encInf(a.to)])),
        );
      for (const [e, nodes] of this.#owners)
        this.sql.run("INSERT OR REPLACE INTO pg_owner(e, nodes) VALUES (?, ?)", e, bytesOf(Int32Array.from(nodes)));
      for (const [key, tl] of this.#timelines)
        for (let k = 0; k < tl.at.length; k++)
          this.sql.run(
            "INSERT INTO pg_tl(key, at, ord, node) VALUES (?, ?, ?, ?)",
            key,
            tl.at[k] as number,
            tl.ord[k] as number,
            tl.node[k] as number,
          );
      for (const [g, r] of this.#remote)
        this.sql.run(
          "INSERT OR REPLACE INTO pg_remote(g, id, ver, first, end) VALUES (?, ?, ?, ?, ?)",
          g,
          r.id,
          r.head.version,
          r.head.first,
          Number.isFinite(r.head.end) ? r.head.end : null,
        );
      this.sql.run("DELETE FROM pg_snap");
      for (let off = 0, part = 0; off < heap.byteLength; off += SNAP_PART, part++)
        this.sql.run(
          "INSERT INTO pg_snap(part, data) VALUES (?, ?)",
          part,
          heap.subarray(off, Math.min(heap.byteLength, off + SNAP_PART)),
        );
      for (const [k, v] of [
        ["seq", seq],
        ["ord", this.#ord],
        ["terms", this.#terms.bytes()],
        ...(this.#forward ? ([["fwd", 1]] as const) : []),
      ] as const)
        this.sql.run("INSERT OR REPLACE INTO pg_meta(k, v) VALUES (?, ?)", k, v);
    });
    this.#storedEntities += this.#newIds.length;
    this.entityPosts.flushed();
    this.termPosts.flushed();
    this.nodeEntities.flushed();
    // What was buffered is stored now and reads the same from there: keep it as read cache
    // (entity numbers never change; owner lists are the stored ones), within READ_CACHE.
    const ids = [...this.#newIndex];
    const owners = [...this.#owners];
    // Alias lists written now may be cached from before: forget those reads.
    for (const k of this.#aliases.keys()) this.#aliasRead.delete(k);
    // Remote nodes written now were read ahead as absent, or with an older head.
    for (const [g, r] of this.#remote) {
      this.#remoteRead.delete(r.id);
      this.#remoteRow.delete(g);
    }
    this.#dropPending(false);
    for (const [id, e] of ids) {
      if (this.#entityRead.size + this.#ownerRead.size >= READ_CACHE || this.#readBytes >= this.readLimit) break;
      this.#entityRead.set(id, e);
      this.#readBytes += stringBytes(id) + MAP_ENTRY_BYTES;
    }
    for (const [e, list] of owners) {
      // A cached list read before this checkpoint is stale now: replace it whatever the room.
      if (
        !this.#ownerRead.has(e) &&
        (this.#entityRead.size + this.#ownerRead.size >= READ_CACHE || this.#readBytes >= this.readLimit)
      )
        continue;
      this.#ownerRead.set(e, list);
      this.#readBytes += MAP_ENTRY_BYTES + 32 + 8 * list.length;
    }
  }

  post(e: number, node: number): void {
    this.entityPosts.push(e, node, 0);
    if (this.#forward) this.nodeEntities.push(node, e, 0);
  }
  posted(e: number, node: number): boolean {
    return this.#forward ? contains(this.nodeEntities, node, e) : contains(this.entityPosts, e, node);
  }
  entityIndex(id: string): number | undefined {
    const e = this.#newIndex.get(id);
    if (e !== undefined) return e;
    const hit = this.#entityRead.get(id);
    if (hit !== undefined) return hit;
    if (this.#entityMiss.has(id)) return undefined;
    const r = this.sql.all("SELECT e FROM pg_ent WHERE id = ?", id)[0];
    if (!r) return undefined;
    this.#cacheRoom();
    this.#entityRead.set(id, num(r.e));
    this.#readBytes += stringBytes(id) + MAP_ENTRY_BYTES;
    return num(r.e);
  }
  entityAdd(id: string): number {
    const e = this.#storedEntities + this.#newIds.length;
    this.#newIds.push(id);
    this.#newIndex.set(id, e);
    this.#entityMiss.delete(id);
    this.#bufferBytes += 2 * stringBytes(id) + MAP_ENTRY_BYTES + 8;
    return e;
  }
  entityCount(): number {
    return this.#storedEntities + this.#newIds.length;
  }
  entityId(e: number): string {
    if (e >= this.#storedEntities) return this.#newIds[e - this.#storedEntities] as string;
    return String(this.sql.all("SELECT id FROM pg_ent WHERE e = ?", e)[0]?.id ?? "");
  }
  #storedInfo(e: number): [string, string] | null {
    const r = this.sql.all("SELECT id, name, type FROM pg_ent WHERE e = ?", e)[0];
    if (!r || r.name === null || r.name === undefined) return null;
    return [String(r.name), String(r.type ?? "concept")];
  }
  entityName(e: number): string {
    const info = this.#info.get(e) ?? (e < this.#storedEntities ? this.#storedInfo(e) : null);
    return info?.[0] ?? this.entityId(e);
  }
  entityType(e: number): string {
    const info = this.#info.get(e) ?? (e < this.#storedEntities ? this.#storedInfo(e) : null);
    return info?.[1] ?? "concept";
  }
  setEntityInfo(e: number, name: string, type: string): void {
    this.#info.set(e, [name, type]);
    this.#bufferBytes += stringBytes(name) + stringBytes(type) + MAP_ENTRY_BYTES + 32;
  }

  aliases(norm: string): readonly AliasEntry[] | undefined {
    const p = this.#aliases.get(norm);
    if (p) return p;
    const hit = this.#aliasRead.get(norm);
    if (hit !== undefined) return hit ?? undefined;
    const r = this.sql.all("SELECT data FROM pg_alias WHERE norm = ?", norm)[0];
    if (!r) return undefined;
    return parseAliases(r.data);
  }
  setAliases(norm: string, list: AliasEntry[]): void {
    this.#aliases.set(norm, list);
    this.#bufferBytes += stringBytes(norm) + MAP_ENTRY_BYTES + 32 + list.length * 48;
  }

  owners(e: number): readonly number[] {
    const p = this.#owners.get(e);
    if (p) return p;
    // An entity added since the last checkpoint has no stored row.
    if (e >= this.#storedEntities) return [];
    const hit = this.#ownerRead.get(e);
    if (hit) return hit;
    const r = this.sql.all("SELECT nodes FROM pg_owner WHERE e = ?", e)[0];
    const list = r ? Array.from(i32(r.nodes)) : [];
    this.#cacheRoom();
    this.#ownerRead.set(e, list);
    this.#readBytes += MAP_ENTRY_BYTES + 32 + 8 * list.length;
    return list;
  }
  addOwner(e: number, node: number): void {
    const list = [...this.owners(e), node];
    this.#owners.set(e, list);
    this.#bufferBytes += MAP_ENTRY_BYTES + 32 + 8 * list.length;
  }

  timelineInsert(key: string, at: number, node: number): { prev: number; next: number } {
    const ord = ++this.#ord;
    // Stored neighbours (any stored entry is older than a buffered one, so arrival order holds).
    const sp = this.sql.all(
      "SELECT at, ord, node FROM pg_tl WHERE key = ? AND at <= ? ORDER BY at DESC, ord DESC LIMIT 1",
      key,
      at,
    )[0];
    const sn = this.sql.all(
      "SELECT at, ord, node FROM pg_tl WHERE key = ? AND at > ? ORDER BY at, ord LIMIT 1",
      key,
      at,
    )[0];
    let prev = sp ? { at: num(sp.at), ord: num(sp.ord), node: num(sp.node) } : null;
    let next = sn ? { at: num(sn.at), ord: num(sn.ord), node: num(sn.node) } : null;
    let tl = this.#timelines.get(key);
    if (!tl) {
      tl = { at: [], ord: [], node: [] };
      this.#timelines.set(key, tl);
    }
    const lo = insertionPoint(tl.at, at);
    if (lo > 0) {
      const c = { at: tl.at[lo - 1] as number, ord: tl.ord[lo - 1] as number, node: tl.node[lo - 1] as number };
      if (!prev || c.at > prev.at || (c.at === prev.at && c.ord > prev.ord)) prev = c;
    }
    if (lo < tl.at.length) {
      const c = { at: tl.at[lo] as number, ord: tl.ord[lo] as number, node: tl.node[lo] as number };
      if (!next || c.at < next.at || (c.at === next.at && c.ord < next.ord)) next = c;
    }
    tl.at.splice(lo, 0, at);
    tl.ord.splice(lo, 0, ord);
    tl.node.splice(lo, 0, node);
    this.#bufferBytes += tl.at.length === 1 ? stringBytes(key) + MAP_ENTRY_BYTES + 96 + 24 : 24;
    return { prev: prev?.node ?? -1, next: next?.node ?? -1 };
  }

  termCount(): number {
    const fresh = new TermSketch(undefined);
    fresh.merge(this.#terms);
    for (const key of this.termPosts.pending.keys()) fresh.add(key);
    return fresh.estimate();
  }

  remoteIndex(id: string): number | undefined {
    const g = this.#remoteIdx.get(id);
    if (g !== undefined) return g;
    const read = this.#remoteRead.get(id);
    if (read !== undefined) return read ?? undefined;
    const r = this.sql.all("SELECT g FROM pg_remote WHERE id = ?", id)[0];
    return r ? num(r.g) : undefined;
  }
  remoteAdd(id: string, g: number): void {
    this.#remote.set(g, { id, head: NO_HEAD });
    this.#remoteIdx.set(id, g);
    this.#bufferBytes += 2 * stringBytes(id) + 2 * MAP_ENTRY_BYTES + 64;
  }
  #storedRemote(g: number): { id: string; head: RemoteHead } | undefined {
    const hit = this.#remoteRow.get(g);
    if (hit) return hit;
    const r = this.sql.all("SELECT id, ver, first, end FROM pg_remote WHERE g = ?", g)[0];
    return r ? { id: String(r.id), head: remoteRowHead(r) } : undefined;
  }
  remoteId(g: number): string | undefined {
    return (this.#remote.get(g) ?? this.#storedRemote(g))?.id;
  }
  remoteHead(g: number): RemoteHead {
    return (this.#remote.get(g) ?? this.#storedRemote(g))?.head ?? NO_HEAD;
  }
  setRemoteHead(g: number, head: RemoteHead): void {
    const r = this.#remote.get(g) ?? this.#storedRemote(g);
    if (!r) return;
    if (!this.#remote.has(g)) {
      this.#remoteIdx.set(r.id, g);
      this.#bufferBytes += 2 * stringBytes(r.id) + 2 * MAP_ENTRY_BYTES + 64;
    }
    this.#remote.set(g, { id: r.id, head: { ...head } });
  }

  /** Heap bytes of the write buffer, which a checkpoint empties. */
  bufferBytes(): number {
    return (
      this.entityPosts.bufferBytes() +
      this.termPosts.bufferBytes() +
      this.nodeEntities.bufferBytes() +
      this.#bufferBytes
    );
  }

  heapBytes(): number {
    return (
      this.entityPosts.heapBytes() +
      this.termPosts.heapBytes() +
      this.nodeEntities.heapBytes() +
      this.#bufferBytes +
      this.#readBytes +
      HLL_M +
      64
    );
  }
}

function remoteRowHead(r: SqlRow): RemoteHead {
  const end = r.end === null || r.end === undefined ? Number.POSITIVE_INFINITY : num(r.end);
  return { version: num(r.ver), first: num(r.first), end };
}
