/**
 * Posting lists in synchronous SQLite as immutable segments, the way full-text engines store them
 * (Lucene's segments, SQLite FTS5's b-tree segments): each checkpoint writes the postings it
 * buffered as one new segment, its lists sorted by key and packed many to a page of ~4 KB, so a
 * checkpoint writes one row per page (a batch of 200 real passages: ~30,000 lists in ~200 rows),
 * never a row per list, and never rewrites what is stored. A list's postings are the
 * concatenation of its entries in the live segments, oldest segment first.
 *
 * Segments merge in the background, eight of a level into one of the next (tiered merging): a
 * posting is rewritten once per level, log8(flushes) times in all, and a list is read from at most
 * 7 segments per level. A merge runs in slices (`merge(budget)`), each writing its output pages to
 * a segment that is not live yet; the last slice makes it live and drops its inputs in one
 * transaction, so readers see the inputs or the output, never both, and a crash leaves a
 * segment that is not live, removed when the tables next open.
 *
 * Page layout (little-endian): u32 m (entries), u32 total (a dedicated page: the entry's length
 * over all its pages, else 0), u32 keys[m], u32 starts[m + 1], i32 vals[starts[m]], then u8
 * extra[starts[m]] when the lists carry a byte per value. A list longer than a shared page gets
 * pages of its own (part 1, 2, …, each DEDICATED values); a shared page has part 0. Pages are keyed
 * (space, seg, last key, part), so the page holding a key is the first one whose last key is at or
 * after it.
 */
import { PostingBuffer } from "./posting-buffer";
import type { SqlRow, SqlValue, SyncSql } from "./sync-sql";
import type { IntLists } from "./tables";
import { MAP_ENTRY_BYTES } from "./tables";

/** Bytes of a shared page's keys, starts and values before it is closed. */
const PAGE_BYTES = 4096;
/** Values per dedicated page (16 KB of values, 4 KB of bytes). */
export const DEDICATED = 4096;
/** A newest level-0 segment of fewer values than this takes the next flush in (see flush). */
const SMALL = 8192;
/** Live segments of one level that start a merge into the next. */
export const FANOUT = 8;
/** Decoded entries kept between a list's count and its read (one query's terms). */
const ENTRY_CACHE = 256;

export const SEGMENT_SCHEMA = [
  "CREATE TABLE IF NOT EXISTS pg_seg(space INTEGER NOT NULL, seg INTEGER NOT NULL, last INTEGER NOT NULL, part INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY(space, seg, last, part)) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS pg_segs(space INTEGER NOT NULL, seg INTEGER NOT NULL, ord INTEGER NOT NULL, level INTEGER NOT NULL, live INTEGER NOT NULL, vals INTEGER NOT NULL, PRIMARY KEY(space, seg))",
];
export const SEGMENT_TABLES = ["pg_seg", "pg_segs"];

const num = (v: SqlValue | undefined): number => (typeof v === "number" ? v : Number(v ?? 0));

interface Segment {
  seg: number;
  ord: number;
  level: number;
  vals: number;
}

/** A list's entry in one segment: its values oldest first (and their bytes). */
interface Entry {
  vals: Int32Array;
  extra: Uint8Array;
}

/**
 * Where a list's entry is in one segment: its values at hand (a shared page's), or, for a list
 * with pages of its own, its length and pages to read newest first as far as a read goes.
 */
type Located = { n: number; entry: Entry } | { n: number; entry: null; seg: number; parts: number };

interface Page {
  keys: Uint32Array;
  starts: Uint32Array;
  vals: Int32Array;
  extra: Uint8Array;
  total: number;
}

function decode(b: SqlValue | undefined, withExtra: boolean): Page {
  const src = b instanceof Uint8Array ? b : new Uint8Array(0);
  // Copy: the driver's buffer may be unaligned or reused.
  const buf = new Uint8Array(src.byteLength + ((4 - (src.byteLength % 4)) % 4));
  buf.set(src);
  const u = new Uint32Array(buf.buffer, 0, buf.byteLength >> 2);
  const m = u[0] ?? 0;
  const total = u[1] ?? 0;
  const keys = u.subarray(2, 2 + m);
  const starts = u.subarray(2 + m, 3 + 2 * m);
  const n = starts[m] ?? 0;
  const vOff = (3 + 2 * m) * 4;
  const vals = new Int32Array(buf.buffer, vOff, n);
  const extra = withExtra ? buf.subarray(vOff + 4 * n, vOff + 5 * n) : new Uint8Array(0);
  return { keys, starts, vals, extra, total };
}

function encode(keys: number[], starts: number[], vals: Int32Array, extra: Uint8Array | null, total: number) {
  const m = keys.length;
  const n = vals.length;
  const head = 3 + 2 * m;
  const out = new Uint8Array(head * 4 + 4 * n + (extra ? n : 0));
  const u = new Uint32Array(out.buffer, 0, head);
  u[0] = m;
  u[1] = total;
  for (let k = 0; k < m; k++) u[2 + k] = keys[k] as number;
  for (let k = 0; k <= m; k++) u[2 + m + k] = starts[k] as number;
  new Int32Array(out.buffer, head * 4, n).set(vals);
  if (extra) out.set(extra, head * 4 + 4 * n);
  return out;
}

/** Index of `key` in sorted `keys`, or -1. */
function find(keys: Uint32Array, key: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const k = keys[mid] as number;
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Writes one segment's pages in key order. */
class PageWriter {
  #keys: number[] = [];
  #starts: number[] = [0];
  #vals: number[] = [];
  #extra: number[] = [];
  rows = 0;
  constructor(
    private readonly sql: SyncSql,
    private readonly space: number,
    private readonly seg: number,
    private readonly withExtra: boolean,
  ) {}

  /** Append a list's entry (keys ascending). */
  add(key: number, vals: ArrayLike<number>, extra: ArrayLike<number>): void {
    const n = vals.length;
    if (n === 0) return;
    if (8 + 5 * n > PAGE_BYTES) {
      this.close();
      for (let from = 0, part = 1; from < n; from += DEDICATED, part++) {
        const to = Math.min(n, from + DEDICATED);
        const v = Int32Array.from({ length: to - from }, (_, k) => vals[from + k] as number);
        const x = this.withExtra ? Uint8Array.from({ length: to - from }, (_, k) => extra[from + k] as number) : null;
        this.#put(key, part, encode([key], [0, to - from], v, x, n));
      }
      return;
    }
    if (this.#keys.length > 0 && 8 * (this.#keys.length + 1) + 5 * (this.#vals.length + n) > PAGE_BYTES) this.close();
    this.#keys.push(key);
    for (let k = 0; k < n; k++) this.#vals.push(vals[k] as number);
    if (this.withExtra) for (let k = 0; k < n; k++) this.#extra.push(extra[k] as number);
    this.#starts.push(this.#vals.length);
  }

  /** Write the open shared page, if any. */
  close(): void {
    if (this.#keys.length === 0) return;
    const last = this.#keys[this.#keys.length - 1] as number;
    this.#put(
      last,
      0,
      encode(
        this.#keys,
        this.#starts,
        Int32Array.from(this.#vals),
        this.withExtra ? Uint8Array.from(this.#extra) : null,
        0,
      ),
    );
    this.#keys = [];
    this.#starts = [0];
    this.#vals = [];
    this.#extra = [];
  }

  #put(last: number, part: number, data: Uint8Array): void {
    this.sql.run(
      "INSERT INTO pg_seg(space, seg, last, part, data) VALUES (?, ?, ?, ?, ?)",
      this.space,
      this.seg,
      last,
      part,
      data,
    );
    this.rows++;
  }

  heapBytes(): number {
    return 16 * this.#keys.length + 8 * this.#vals.length + 8 * this.#extra.length;
  }
}

/** Reads one segment's lists in key order (a merge's input). */
class PageCursor {
  #page: Page | null = null;
  #at = 0;
  /** Last key and part of the page read last. */
  #last = -1;
  #part = 0;
  done = false;
  constructor(
    private readonly sql: SyncSql,
    private readonly space: number,
    private readonly seg: number,
    private readonly withExtra: boolean,
  ) {}

  /** The next list's key, or -1 at the end. */
  key(): number {
    this.#fill();
    if (this.done || !this.#page) return -1;
    return this.#page.keys[this.#at] as number;
  }

  /** The current list's entry; moves past it. */
  take(): Entry {
    this.#fill();
    const p = this.#page as Page;
    if (p.total > 0) {
      // A dedicated list: this page is its first part; read the rest.
      const key = p.keys[0] as number;
      const vals = new Int32Array(p.total);
      const extra = new Uint8Array(this.withExtra ? p.total : 0);
      let off = 0;
      const rows = this.sql.all(
        "SELECT part, data FROM pg_seg WHERE space = ? AND seg = ? AND last = ? AND part >= 1 ORDER BY part",
        this.space,
        this.seg,
        key,
      );
      for (const r of rows) {
        const q = decode(r.data, this.withExtra);
        vals.set(q.vals, off);
        if (this.withExtra) extra.set(q.extra, off);
        off += q.vals.length;
        this.#part = num(r.part);
      }
      this.#page = null;
      return { vals, extra };
    }
    const from = p.starts[this.#at] as number;
    const to = p.starts[this.#at + 1] as number;
    const out = { vals: p.vals.slice(from, to), extra: this.withExtra ? p.extra.slice(from, to) : new Uint8Array(0) };
    this.#at++;
    if (this.#at >= p.keys.length) this.#page = null;
    return out;
  }

  #fill(): void {
    if (this.#page || this.done) return;
    const r = this.sql.all(
      "SELECT last, part, data FROM pg_seg WHERE space = ? AND seg = ? AND (last > ? OR (last = ? AND part > ?)) ORDER BY last, part LIMIT 1",
      this.space,
      this.seg,
      this.#last,
      this.#last,
      this.#part,
    )[0];
    if (!r) {
      this.done = true;
      return;
    }
    this.#last = num(r.last);
    this.#part = num(r.part);
    this.#page = decode(r.data, this.withExtra);
    this.#at = 0;
  }
}

interface MergeJob {
  inputs: Segment[];
  out: Segment;
  cursors: PageCursor[];
  writer: PageWriter;
}

/** Append-only integer lists over segments in SQLite, with an in-heap buffer until `flush`. */
export class SegmentLists implements IntLists {
  /** Appends since the last flush. */
  readonly pending: PostingBuffer;
  /** Live segments, newest first. */
  #live: Segment[] = [];
  #nextSeg: number;
  #cache = new Map<number, Located[]>();
  #cacheValues = 0;
  #job: MergeJob | null = null;
  /** The segment a flush wrote, live once its transaction commits, and the one it replaced. */
  #staged: Segment | null = null;
  #absorbed: number | null = null;

  constructor(
    private readonly sql: SyncSql,
    private readonly space: number,
    private readonly withExtra: boolean,
  ) {
    this.pending = new PostingBuffer(withExtra);
    // A merge that did not finish left a segment that is not live: drop it.
    for (const r of sql.all("SELECT seg FROM pg_segs WHERE space = ? AND live = 0", space)) {
      sql.run("DELETE FROM pg_seg WHERE space = ? AND seg = ?", space, num(r.seg));
      sql.run("DELETE FROM pg_segs WHERE space = ? AND seg = ?", space, num(r.seg));
    }
    this.#live = sql
      .all("SELECT seg, ord, level, vals FROM pg_segs WHERE space = ? AND live = 1 ORDER BY ord DESC", space)
      .map((r: SqlRow) => ({ seg: num(r.seg), ord: num(r.ord), level: num(r.level), vals: num(r.vals) }));
    this.#nextSeg = num(sql.all("SELECT COALESCE(MAX(seg) + 1, 1) AS n FROM pg_segs WHERE space = ?", space)[0]?.n);
    this.#maxKey = num(sql.all("SELECT COALESCE(MAX(last), -1) AS k FROM pg_seg WHERE space = ?", space)[0]?.k);
  }

  /** Live segments, newest first (for tests and stats). */
  segments(): ReadonlyArray<Readonly<Segment>> {
    return this.#live;
  }

  /**
   * The largest key stored: reads of larger keys skip storage (entity postings are keyed by
   * entity numbers, given in order, so a new entity's list is never stored yet).
   */
  #maxKey = -1;

  /** The list's entries in the live segments, newest segment first. */
  #entries(key: number): Located[] {
    if (key > this.#maxKey) return [];
    const hit = this.#cache.get(key);
    if (hit) return hit;
    const out: Located[] = [];
    for (const s of this.#live) {
      const r = this.sql.all(
        "SELECT last, part, data FROM pg_seg WHERE space = ? AND seg = ? AND last >= ? ORDER BY last, part LIMIT 1",
        this.space,
        s.seg,
        key,
      )[0];
      if (!r) continue;
      const p = decode(r.data, this.withExtra);
      if (num(r.part) >= 1) {
        if (num(r.last) !== key) continue;
        const parts = Math.ceil(p.total / DEDICATED);
        if (parts === 1) out.push({ n: p.total, entry: { vals: p.vals, extra: p.extra } });
        else out.push({ n: p.total, entry: null, seg: s.seg, parts });
        continue;
      }
      const at = find(p.keys, key);
      if (at < 0) continue;
      const from = p.starts[at] as number;
      const to = p.starts[at + 1] as number;
      const entry = { vals: p.vals.subarray(from, to), extra: this.withExtra ? p.extra.subarray(from, to) : p.extra };
      out.push({ n: to - from, entry });
    }
    if (this.#cache.size >= ENTRY_CACHE) this.#dropCache();
    this.#cache.set(key, out);
    for (const e of out) if (e.entry) this.#cacheValues += e.n;
    return out;
  }

  /** Part `part` of a list's own pages in a segment. */
  #part(seg: number, key: number, part: number): Entry {
    const r = this.sql.all(
      "SELECT data FROM pg_seg WHERE space = ? AND seg = ? AND last = ? AND part = ?",
      this.space,
      seg,
      key,
      part,
    )[0];
    const q = decode(r?.data, this.withExtra);
    return { vals: q.vals, extra: q.extra };
  }

  #dropCache(): void {
    this.#cache.clear();
    this.#cacheValues = 0;
  }

  count(key: number): number {
    let n = this.pending.count(key);
    for (const e of this.#entries(key)) n += e.n;
    return n;
  }

  each(key: number, cap: number, visit: (value: number, extra: number) => boolean | undefined): number {
    let stop = false;
    let seen = this.pending.each(key, cap, (v, x) => {
      stop = visit(v, x) === false;
      return !stop;
    });
    if (stop || seen >= cap) return seen;
    for (const at of this.#entries(key)) {
      const n = at.entry ? 1 : at.parts;
      for (let part = n; part >= 1 && seen < cap; part--) {
        const e = at.entry ?? this.#part(at.seg, key, part);
        for (let k = e.vals.length - 1; k >= 0 && seen < cap; k--) {
          seen++;
          if (visit(e.vals[k] as number, this.withExtra ? (e.extra[k] ?? 0) : 0) === false) return seen;
        }
      }
      if (seen >= cap) break;
    }
    return seen;
  }

  push(key: number, value: number, extra: number): void {
    this.pending.push(key, value, extra);
  }

  /** Postings buffered since the last flush. */
  get pendingValues(): number {
    return this.pending.values;
  }

  /**
   * Write the buffer as a new live level-0 segment (call inside the checkpoint's transaction, then
   * `flushed()` once it has committed). Returns the keys written, ascending.
   */
  flush(): number[] {
    const keys = this.pending.keys();
    if (keys.length === 0) return [];
    const seg = this.#nextSeg++;
    const w = new PageWriter(this.sql, this.space, seg, this.withExtra);
    // A small newest segment (frequent small checkpoints: a tiny heap budget) takes the flush in:
    // rewriting it costs at most SMALL values, and readers meet one small segment, not hundreds.
    const newest = this.#live[0];
    const absorb =
      newest && newest.level === 0 && newest.vals < SMALL && !this.#job?.inputs.some((x) => x.seg === newest.seg)
        ? newest
        : null;
    const old = absorb ? new PageCursor(this.sql, this.space, absorb.seg, this.withExtra) : null;
    for (const k of keys) {
      while (old && old.key() >= 0 && old.key() < k) {
        const key = old.key();
        const e = old.take();
        w.add(key, e.vals, e.extra);
      }
      const p = this.pending.list(k);
      if (old && old.key() === k) {
        const e = old.take();
        w.add(k, [...e.vals, ...p.vals], [...e.extra, ...p.extra]);
      } else w.add(k, p.vals, p.extra);
    }
    while (old && old.key() >= 0) {
      const key = old.key();
      const e = old.take();
      w.add(key, e.vals, e.extra);
    }
    w.close();
    const vals = this.pendingValues + (absorb?.vals ?? 0);
    const ord = absorb ? absorb.ord : (newest?.ord ?? 0) + 1;
    if (absorb) {
      this.sql.run("DELETE FROM pg_seg WHERE space = ? AND seg = ?", this.space, absorb.seg);
      this.sql.run("DELETE FROM pg_segs WHERE space = ? AND seg = ?", this.space, absorb.seg);
    }
    this.sql.run(
      "INSERT INTO pg_segs(space, seg, ord, level, live, vals) VALUES (?, ?, ?, 0, 1, ?)",
      this.space,
      seg,
      ord,
      vals,
    );
    this.#staged = { seg, ord, level: 0, vals };
    this.#absorbed = absorb?.seg ?? null;
    return Array.from(keys);
  }

  /** The flush's transaction committed: its segment is live and the buffer empty. */
  flushed(): void {
    if (this.#absorbed !== null) this.#live = this.#live.filter((x) => x.seg !== this.#absorbed);
    if (this.#staged) this.#live.unshift(this.#staged);
    this.#staged = null;
    this.#absorbed = null;
    this.#maxKey = Math.max(this.#maxKey, this.pending.maxKey());
    this.pending.clear();
    this.#dropCache();
  }

  /** Drop everything (the tables were emptied). */
  reset(): void {
    this.pending.clear();
    this.#live = [];
    this.#maxKey = -1;
    this.#nextSeg = 1;
    this.#job = null;
    this.#staged = null;
    this.#absorbed = null;
    this.#dropCache();
  }

  /** Whether a merge is due or under way. */
  mergeDue(): boolean {
    return this.#job !== null || this.#pickMerge() !== null;
  }

  /**
   * The lists only grow by revisions from now on (a closed shard's term postings): merge the live
   * segments down to one or two, the way a search engine merges a read-only index, so a count or
   * read seeks one page per segment in one or two segments instead of up to 7 per level. Not kept
   * across a reopen: the owner seals again.
   */
  seal(): void {
    this.#sealed = true;
  }
  #sealed = false;

  /**
   * Sealed, with three or more live segments: the segments newer than the oldest while the oldest
   * holds at least FANOUT times their values (revisions piling up), else all of them; each posting
   * is rewritten about once per growth of an eighth. Oldest first.
   */
  #pickSealed(): Segment[] | null {
    if (!this.#sealed || this.#live.length < 3) return null;
    const oldestFirst = [...this.#live].reverse();
    const [big, ...rest] = oldestFirst as [Segment, ...Segment[]];
    const small = rest.reduce((n, x) => n + x.vals, 0);
    return big.vals >= FANOUT * small ? rest : oldestFirst;
  }

  /** The oldest run of FANOUT live segments of the lowest level that has one (oldest first). */
  #pickMerge(): Segment[] | null {
    const sealed = this.#pickSealed();
    if (sealed) return sealed;
    const byLevel = new Map<number, Segment[]>();
    for (let k = this.#live.length - 1; k >= 0; k--) {
      const s = this.#live[k] as Segment;
      const l = byLevel.get(s.level) ?? [];
      l.push(s);
      byLevel.set(s.level, l);
    }
    for (const level of [...byLevel.keys()].sort((a, b) => a - b)) {
      const l = byLevel.get(level) as Segment[];
      if (l.length >= FANOUT) return l.slice(0, FANOUT);
    }
    return null;
  }

  /**
   * Merge work: up to about `budget` values read and written (one slice; call again while it
   * returns true). Inputs stay live until the output is complete.
   */
  merge(budget: number): boolean {
    if (!this.#job) {
      const inputs = this.#pickMerge();
      if (!inputs) return false;
      const seg = this.#nextSeg++;
      const newest = inputs[inputs.length - 1] as Segment;
      const out = {
        seg,
        ord: newest.ord,
        level: Math.max(...inputs.map((x) => x.level)) + 1,
        vals: inputs.reduce((n, s) => n + s.vals, 0),
      };
      this.sql.run(
        "INSERT INTO pg_segs(space, seg, ord, level, live, vals) VALUES (?, ?, ?, ?, 0, ?)",
        this.space,
        seg,
        out.ord,
        out.level,
        out.vals,
      );
      this.#job = {
        inputs,
        out,
        cursors: inputs.map((s) => new PageCursor(this.sql, this.space, s.seg, this.withExtra)),
        writer: new PageWriter(this.sql, this.space, seg, this.withExtra),
      };
    }
    const job = this.#job;
    let done = 0;
    while (done < budget) {
      let key = -1;
      for (const c of job.cursors) {
        const k = c.key();
        if (k >= 0 && (key < 0 || k < key)) key = k;
      }
      if (key < 0) {
        this.#finish(job);
        return this.#pickMerge() !== null;
      }
      // Oldest input first: the list's values stay in arrival order.
      const parts: Entry[] = [];
      for (const c of job.cursors) if (c.key() === key) parts.push(c.take());
      const n = parts.reduce((a, e) => a + e.vals.length, 0);
      const vals = new Int32Array(n);
      const extra = new Uint8Array(this.withExtra ? n : 0);
      let off = 0;
      for (const e of parts) {
        vals.set(e.vals, off);
        if (this.withExtra) extra.set(e.extra, off);
        off += e.vals.length;
      }
      job.writer.add(key, vals, extra);
      done += n;
    }
    return true;
  }

  #finish(job: MergeJob): void {
    job.writer.close();
    this.sql.atomic(() => {
      this.sql.run("UPDATE pg_segs SET live = 1 WHERE space = ? AND seg = ?", this.space, job.out.seg);
      for (const s of job.inputs) {
        this.sql.run("DELETE FROM pg_seg WHERE space = ? AND seg = ?", this.space, s.seg);
        this.sql.run("DELETE FROM pg_segs WHERE space = ? AND seg = ?", this.space, s.seg);
      }
    });
    const gone = new Set(job.inputs.map((s) => s.seg));
    const live = this.#live.filter((s) => !gone.has(s.seg));
    live.push(job.out);
    live.sort((a, b) => b.ord - a.ord);
    this.#live = live;
    this.#job = null;
    this.#dropCache();
  }

  /** Heap bytes of the buffer a flush empties. */
  bufferBytes(): number {
    return this.pending.bytes();
  }

  heapBytes(): number {
    return (
      this.bufferBytes() +
      this.#cache.size * (MAP_ENTRY_BYTES + 64) +
      this.#cacheValues * 5 +
      this.#live.length * 64 +
      (this.#job ? this.#job.writer.heapBytes() + this.#job.cursors.length * (PAGE_BYTES + 256) : 0)
    );
  }
}
