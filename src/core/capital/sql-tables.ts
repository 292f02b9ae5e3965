/**
 * The capital chunk's tables in synchronous SQLite storage (a Durable Object's `ctx.storage.sql`:
 * up to 10 GB per object, outside the isolate's 128 MB). Writes go to a small in-heap write buffer
 * and reach SQLite only at a checkpoint, in one atomic step together with the heap snapshot and the
 * change-log position, so storage and heap always describe the same point of the log: after an
 * eviction the object loads the checkpoint and replays the log after it, and nothing is applied
 * twice. Reads merge the buffer (newest) with storage.
 *
 * Postings are stored as blobs of up to BLOCK values (Int32 little-endian, plus one byte each for
 * term frequencies): one row per block, so a list costs O(len / BLOCK) rows and a query reads only
 * the newest blocks it needs.
 */
import type { AliasEntry, CapitalTables, IntLists, RemoteHead } from "./tables";
import { insertionPoint, MAP_ENTRY_BYTES, NO_HEAD, stringBytes } from "./tables";

export type SqlValue = string | number | null | Uint8Array;
export type SqlRow = Record<string, SqlValue>;

/** Synchronous SQLite: a Durable Object's storage, or better-sqlite3 in Node. */
export interface SyncSql {
  all(query: string, ...params: SqlValue[]): SqlRow[];
  run(query: string, ...params: SqlValue[]): void;
  /** Run fn as one transaction. */
  atomic<T>(fn: () => T): T;
}

/** Values per stored block: 4,096 postings are 16-20 KB, well under a row's 2 MB limit. */
export const BLOCK = 4096;
/** Heap snapshot parts: 1 MiB each (a row holds at most 2 MB). */
const SNAP_PART = 1 << 20;

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS pg_meta(k TEXT PRIMARY KEY, v)",
  "CREATE TABLE IF NOT EXISTS pg_ent(e INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT, type TEXT)",
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
const TABLES = ["pg_meta", "pg_ent", "pg_list", "pg_list_len", "pg_alias", "pg_owner", "pg_tl", "pg_snap", "pg_remote"];

const ENTITY_POSTS = 0;
const TERM_POSTS = 1;

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
const READ_CACHE = 8192;

/** Values appended since the last checkpoint, oldest first. */
interface Pending {
  vals: number[];
  extra: number[];
}

class SqlLists implements IntLists {
  /** Buffered appends per key. */
  readonly pending = new Map<number, Pending>();
  pendingValues = 0;
  constructor(
    private readonly sql: SyncSql,
    private readonly space: number,
    private readonly withExtra: boolean,
  ) {}

  stored(key: number): { len: number; blocks: number } {
    const r = this.sql.all("SELECT len, blocks FROM pg_list_len WHERE space = ? AND key = ?", this.space, key)[0];
    return r ? { len: num(r.len), blocks: num(r.blocks) } : { len: 0, blocks: 0 };
  }

  count(key: number): number {
    return this.stored(key).len + (this.pending.get(key)?.vals.length ?? 0);
  }

  each(key: number, cap: number, visit: (value: number, extra: number) => boolean | undefined): number {
    let seen = 0;
    const p = this.pending.get(key);
    if (p) {
      for (let k = p.vals.length - 1; k >= 0 && seen < cap; k--) {
        seen++;
        if (visit(p.vals[k] as number, p.extra[k] ?? 0) === false) return seen;
      }
    }
    if (seen >= cap) return seen;
    const { blocks } = this.stored(key);
    for (let b = blocks - 1; b >= 0 && seen < cap; b--) {
      const row = this.sql.all(
        "SELECT vals, extra FROM pg_list WHERE space = ? AND key = ? AND blk = ?",
        this.space,
        key,
        b,
      )[0];
      if (!row) break;
      const vals = i32(row.vals);
      const extra = u8(row.extra);
      for (let k = vals.length - 1; k >= 0 && seen < cap; k--) {
        seen++;
        if (visit(vals[k] as number, this.withExtra ? (extra[k] ?? 0) : 0) === false) return seen;
      }
    }
    return seen;
  }

  push(key: number, value: number, extra: number): void {
    let p = this.pending.get(key);
    if (!p) {
      p = { vals: [], extra: [] };
      this.pending.set(key, p);
    }
    p.vals.push(value);
    if (this.withExtra) p.extra.push(extra);
    this.pendingValues++;
  }

  /**
   * Write the buffered appends: the last stored block is filled up to BLOCK, then new blocks.
   * Returns how many lists were new.
   */
  flush(): number {
    let created = 0;
    for (const [key, p] of this.pending) {
      const st = this.stored(key);
      if (st.len === 0) created++;
      let from = 0;
      let blocks = st.blocks;
      if (blocks > 0) {
        const last = this.sql.all(
          "SELECT n, vals, extra FROM pg_list WHERE space = ? AND key = ? AND blk = ?",
          this.space,
          key,
          blocks - 1,
        )[0];
        const n = num(last?.n);
        if (last && n < BLOCK) {
          const take = Math.min(BLOCK - n, p.vals.length);
          const vals = new Int32Array(n + take);
          vals.set(i32(last.vals));
          for (let k = 0; k < take; k++) vals[n + k] = p.vals[k] as number;
          let extra: Uint8Array | null = null;
          if (this.withExtra) {
            extra = new Uint8Array(n + take);
            extra.set(u8(last.extra).subarray(0, n));
            for (let k = 0; k < take; k++) extra[n + k] = p.extra[k] as number;
          }
          this.sql.run(
            "UPDATE pg_list SET n = ?, vals = ?, extra = ? WHERE space = ? AND key = ? AND blk = ?",
            n + take,
            bytesOf(vals),
            extra,
            this.space,
            key,
            blocks - 1,
          );
          from = take;
        }
      }
      for (; from < p.vals.length; from += BLOCK) {
        const end = Math.min(p.vals.length, from + BLOCK);
        const vals = Int32Array.from(p.vals.slice(from, end));
        const extra = this.withExtra ? Uint8Array.from(p.extra.slice(from, end)) : null;
        this.sql.run(
          "INSERT INTO pg_list(space, key, blk, n, vals, extra) VALUES (?, ?, ?, ?, ?, ?)",
          this.space,
          key,
          blocks++,
          end - from,
          bytesOf(vals),
          extra,
        );
      }
      this.sql.run(
        "INSERT OR REPLACE INTO pg_list_len(space, key, len, blocks) VALUES (?, ?, ?, ?)",
        this.space,
        key,
        st.len + p.vals.length,
        blocks,
      );
    }
    this.pending.clear();
    this.pendingValues = 0;
    return created;
  }

  heapBytes(): number {
    // Per buffered list: a map entry, two arrays; per value 8 bytes (+ 8 with a byte of extra).
    return this.pending.size * (MAP_ENTRY_BYTES + 96) + this.pendingValues * (this.withExtra ? 16 : 8);
  }
}

interface PendingTimeline {
  at: number[];
  ord: number[];
  node: number[];
}

/** The capital chunk's tables in SQLite, with a write buffer flushed at checkpoints. */
export class SqlTables implements CapitalTables {
  readonly entityPosts: SqlLists;
  readonly termPosts: SqlLists;
  #storedEntities: number;
  #newIds: string[] = [];
  #newIndex = new Map<string, number>();
  #info = new Map<number, [string, string]>();
  #aliases = new Map<string, AliasEntry[]>();
  #owners = new Map<number, number[]>();
  #timelines = new Map<string, PendingTimeline>();
  #ord: number;
  #termCount: number;
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
  #ownerRead = new Map<number, readonly number[]>();
  #readBytes = 0;

  constructor(private readonly sql: SyncSql) {
    for (const s of SCHEMA) sql.run(s);
    this.entityPosts = new SqlLists(sql, ENTITY_POSTS, false);
    this.termPosts = new SqlLists(sql, TERM_POSTS, true);
    this.#storedEntities = num(sql.all("SELECT COALESCE(MAX(e) + 1, 0) AS n FROM pg_ent")[0]?.n);
    this.#ord = num(this.meta("ord"));
    this.#termCount = num(this.meta("terms"));
  }

  meta(k: string): SqlValue | undefined {
    return this.sql.all("SELECT v FROM pg_meta WHERE k = ?", k)[0]?.v;
  }

  /** Change-log position of the last checkpoint (0: none). */
  checkpointSeq(): number {
    return num(this.meta("seq"));
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
    this.#termCount = 0;
    this.#dropPending();
  }

  #dropPending(): void {
    this.entityPosts.pending.clear();
    this.entityPosts.pendingValues = 0;
    this.termPosts.pending.clear();
    this.termPosts.pendingValues = 0;
    this.#newIds = [];
    this.#newIndex.clear();
    this.#info.clear();
    this.#aliases.clear();
    this.#owners.clear();
    this.#timelines.clear();
    this.#remote.clear();
    this.#remoteIdx.clear();
    this.#bufferBytes = 0;
    this.#dropReads();
  }

  #dropReads(): void {
    this.#entityRead.clear();
    this.#ownerRead.clear();
    this.#readBytes = 0;
  }

  #cacheRoom(): void {
    if (this.#entityRead.size + this.#ownerRead.size >= READ_CACHE) this.#dropReads();
  }

  /** Values waiting in the write buffer (a checkpoint empties it). */
  pendingValues(): number {
    return (
      this.entityPosts.pendingValues +
      this.termPosts.pendingValues +
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
      for (let k = 0; k < this.#newIds.length; k++) {
        const e = this.#storedEntities + k;
        const info = this.#info.get(e);
        this.sql.run(
          "INSERT INTO pg_ent(e, id, name, type) VALUES (?, ?, ?, ?)",
          e,
          this.#newIds[k] as string,
          info?.[0] ?? null,
          info?.[1] ?? null,
        );
      }
      for (const [e, [name, type]] of this.#info)
        if (e < this.#storedEntities) this.sql.run("UPDATE pg_ent SET name = ?, type = ? WHERE e = ?", name, type, e);
      this.entityPosts.flush();
      this.#termCount += this.termPosts.flush();
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
        ["terms", this.#termCount],
      ] as const)
        this.sql.run("INSERT OR REPLACE INTO pg_meta(k, v) VALUES (?, ?)", k, v);
    });
    this.#storedEntities += this.#newIds.length;
    this.#dropPending();
  }

  entityIndex(id: string): number | undefined {
    const e = this.#newIndex.get(id);
    if (e !== undefined) return e;
    const hit = this.#entityRead.get(id);
    if (hit !== undefined) return hit;
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
    const r = this.sql.all("SELECT data FROM pg_alias WHERE norm = ?", norm)[0];
    if (!r) return undefined;
    const rows = JSON.parse(String(r.data)) as Array<[number, number | string, number | string]>;
    return rows.map(([e, from, to]) => ({ e, from: decInf(from), to: decInf(to) }));
  }
  setAliases(norm: string, list: AliasEntry[]): void {
    this.#aliases.set(norm, list);
    this.#bufferBytes += stringBytes(norm) + MAP_ENTRY_BYTES + 32 + list.length * 48;
  }

  owners(e: number): readonly number[] {
    const p = this.#owners.get(e);
    if (p) return p;
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
    let fresh = 0;
    for (const key of this.termPosts.pending.keys()) if (this.termPosts.stored(key).len === 0) fresh++;
    return this.#termCount + fresh;
  }

  remoteIndex(id: string): number | undefined {
    const g = this.#remoteIdx.get(id);
    if (g !== undefined) return g;
    const r = this.sql.all("SELECT g FROM pg_remote WHERE id = ?", id)[0];
    return r ? num(r.g) : undefined;
  }
  remoteAdd(id: string, g: number): void {
    this.#remote.set(g, { id, head: NO_HEAD });
    this.#remoteIdx.set(id, g);
    this.#bufferBytes += 2 * stringBytes(id) + 2 * MAP_ENTRY_BYTES + 64;
  }
  #storedRemote(g: number): { id: string; head: RemoteHead } | undefined {
    const r = this.sql.all("SELECT id, ver, first, end FROM pg_remote WHERE g = ?", g)[0];
    if (!r) return undefined;
    const end = r.end === null || r.end === undefined ? Number.POSITIVE_INFINITY : num(r.end);
    return { id: String(r.id), head: { version: num(r.ver), first: num(r.first), end } };
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

  heapBytes(): number {
    return this.entityPosts.heapBytes() + this.termPosts.heapBytes() + this.#bufferBytes + this.#readBytes;
  }
}
