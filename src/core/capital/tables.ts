/**
 * The capital chunk's tables that a query reads a few entries of, never as a whole: the entity
 * dictionary, entity and term postings, aliases, title owners and record timelines. They are kept
 * behind this port so they can live outside the heap: in a Durable Object's SQLite storage
 * (SqlTables, src/core/capital/sql-tables.ts) or, for in-process use and tests, in memory
 * (MemoryTables below). The heap keeps only what diffusion and scoring touch per node.
 */
import { BlockLists } from "./blocks";

/** The head of a node another shard holds, as far as this shard needs it (edge and slot validity). */
export interface RemoteHead {
  version: number;
  first: number;
  end: number;
}
export const NO_HEAD: RemoteHead = { version: 0, first: 0, end: Number.POSITIVE_INFINITY };

export interface AliasEntry {
  e: number;
  from: number;
  to: number;
}

/** Append-only integer lists keyed by a non-negative integer, each value with an optional byte. */
export interface IntLists {
  count(key: number): number;
  /** Visit at most `cap` values of a list, newest first, until `visit` returns false; returns how many. */
  each(key: number, cap: number, visit: (value: number, extra: number) => boolean | undefined): number;
  push(key: number, value: number, extra: number): void;
}

export interface CapitalTables {
  /** Entity -> nodes whose head names it, in the order they were added. */
  readonly entityPosts: IntLists;
  /** 32-bit term hash -> (lexical document, term frequency). */
  readonly termPosts: IntLists;
  /** Post node under entity e (entityPosts gains it). */
  post(e: number, node: number): void;
  /** Whether node is posted under entity e: a revision or an extension re-adding an entity asks first. */
  posted(e: number, node: number): boolean;
  entityIndex(id: string): number | undefined;
  /** A new entity; entities are numbered densely from 0 in the order they were added. */
  entityAdd(id: string): number;
  entityCount(): number;
  entityId(e: number): string;
  /** Declared name (the id itself for a grounded concept). */
  entityName(e: number): string;
  entityType(e: number): string;
  setEntityInfo(e: number, name: string, type: string): void;
  aliases(norm: string): readonly AliasEntry[] | undefined;
  setAliases(norm: string, list: AliasEntry[]): void;
  /** Nodes whose title names entity e, in the order they were added. */
  owners(e: number): readonly number[];
  addOwner(e: number, node: number): void;
  /**
   * Insert a node into timeline `key` at time `at`, after every entry at or before `at` (arrival
   * breaks ties); returns the entries just before and after it, -1 where there is none.
   */
  timelineInsert(key: string, at: number, node: number): { prev: number; next: number };
  /** Distinct terms with postings. */
  termCount(): number;
  /**
   * Nodes another shard of the archive holds (sharding only): their archive-wide number by id, and
   * the validity of their head (version 0: no head yet; end +Infinity unless deprecated).
   */
  remoteIndex(id: string): number | undefined;
  remoteAdd(id: string, g: number): void;
  remoteId(g: number): string | undefined;
  remoteHead(g: number): RemoteHead;
  setRemoteHead(g: number, head: RemoteHead): void;
  /** Bytes these tables hold in the JS heap (estimated the same way as the store's own arrays). */
  heapBytes(): number;
  /**
   * Optional: read ahead, in a few statements, what applying changes naming these entity ids will
   * read one at a time (storage-backed tables; answers are the same without it).
   */
  prefetch?(ids: Iterable<string>, aliasKey: (id: string) => string | null): void;
  /** Optional: read ahead the remote nodes of these ids (a shard looks each up before numbering it). */
  prefetchRemote?(ids: Iterable<string>): void;
}

/** Where `at` goes in times sorted ascending: after every entry at or before it. */
export function insertionPoint(times: readonly number[], at: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] as number) <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether list `key` holds `value` (a scan, newest first, that stops at the first match). */
export function contains(lists: IntLists, key: number, value: number): boolean {
  let found = false;
  lists.each(key, Number.POSITIVE_INFINITY, (v) => {
    if (v === value) found = true;
    return !found;
  });
  return found;
}

/** Estimated heap bytes of a one-byte V8 string (header plus characters, 8-byte aligned). */
export function stringBytes(s: string): number {
  return 16 + Math.ceil(s.length / 8) * 8;
}
/** Estimated heap bytes of one Map entry (ordered hash table slot and bucket share). */
export const MAP_ENTRY_BYTES = 40;

/** Lists keyed by any non-negative integer (sparse keys map to dense list numbers). */
class MemoryLists implements IntLists {
  readonly blocks: BlockLists;
  readonly listOf = new Map<number, number>();
  constructor(withExtra: boolean) {
    this.blocks = new BlockLists(4, withExtra);
  }
  count(key: number): number {
    const l = this.listOf.get(key);
    return l === undefined ? 0 : this.blocks.count(l);
  }
  each(key: number, cap: number, visit: (value: number, extra: number) => boolean | undefined): number {
    const l = this.listOf.get(key);
    return l === undefined ? 0 : this.blocks.each(l, cap, visit);
  }
  push(key: number, value: number, extra: number): void {
    let l = this.listOf.get(key);
    if (l === undefined) {
      l = this.blocks.addList();
      this.listOf.set(key, l);
    }
    this.blocks.push(l, value, extra);
  }
  heapBytes(): number {
    return this.blocks.byteLength() + this.listOf.size * MAP_ENTRY_BYTES;
  }
  /** [key, values oldest first, extras oldest first] per list, for snapshots. */
  dump(): Array<[number, number[], number[]]> {
    const out: Array<[number, number[], number[]]> = [];
    for (const [key, l] of this.listOf) {
      const vals: number[] = [];
      const extra: number[] = [];
      this.blocks.each(l, Number.POSITIVE_INFINITY, (v, x) => {
        vals.push(v);
        extra.push(x);
        return true;
      });
      out.push([key, vals.reverse(), this.blocks.withExtra ? extra.reverse() : []]);
    }
    return out;
  }
  load(rows: Array<[number, number[], number[]]>): void {
    for (const [key, vals, extra] of rows)
      for (let k = 0; k < vals.length; k++) this.push(key, vals[k] as number, extra[k] ?? 0);
  }
}

interface Timeline {
  at: number[];
  node: number[];
}

/** What MemoryTables writes into a snapshot (JSON; infinities as strings). */
export interface MemoryTablesDump {
  ids: string[];
  info: Array<[number, string, string]>;
  entityPosts: Array<[number, number[], number[]]>;
  termPosts: Array<[number, number[], number[]]>;
  aliases: Array<[string, Array<[number, number | string, number | string]>]>;
  owners: Array<[number, number[]]>;
  timelines: Array<[string, number[], number[]]>;
  /** [g, id, version, first, end] of the nodes other shards hold (absent before sharding). */
  remote?: Array<[number, string, number, number, number | string]>;
}

const enc = (x: number) => (Number.isFinite(x) ? x : x > 0 ? "inf" : "-inf");
const dec = (x: number | string) =>
  x === "inf" ? Number.POSITIVE_INFINITY : x === "-inf" ? Number.NEGATIVE_INFINITY : (x as number);

/** The tables in the JS heap: for tests and in-process use (a Durable Object uses SqlTables). */
export class MemoryTables implements CapitalTables {
  readonly entityPosts = new MemoryLists(false);
  readonly termPosts = new MemoryLists(true);
  #ids: string[] = [];
  #index = new Map<string, number>();
  /** Name and type of declared entities; grounded concepts have neither (name = id, type concept). */
  #info = new Map<number, [string, string]>();
  #aliases = new Map<string, AliasEntry[]>();
  #owners = new Map<number, number[]>();
  #timelines = new Map<string, Timeline>();
  #remoteIdx = new Map<string, number>();
  #remote = new Map<number, { id: string; head: RemoteHead }>();

  post(e: number, node: number): void {
    this.entityPosts.push(e, node, 0);
  }
  /** A scan of e's postings in the heap, O(df): this implementation serves tests and in-process use. */
  posted(e: number, node: number): boolean {
    return contains(this.entityPosts, e, node);
  }
  entityIndex(id: string): number | undefined {
    return this.#index.get(id);
  }
  entityAdd(id: string): number {
    const e = this.#ids.length;
    this.#ids.push(id);
    this.#index.set(id, e);
    return e;
  }
  entityCount(): number {
    return this.#ids.length;
  }
  entityId(e: number): string {
    return this.#ids[e] as string;
  }
  entityName(e: number): string {
    return this.#info.get(e)?.[0] ?? (this.#ids[e] as string);
  }
  entityType(e: number): string {
    return this.#info.get(e)?.[1] ?? "concept";
  }
  setEntityInfo(e: number, name: string, type: string): void {
    this.#info.set(e, [name, type]);
  }
  aliases(norm: string): readonly AliasEntry[] | undefined {
    return this.#aliases.get(norm);
  }
  setAliases(norm: string, list: AliasEntry[]): void {
    this.#aliases.set(norm, list);
  }
  owners(e: number): readonly number[] {
    return this.#owners.get(e) ?? [];
  }
  addOwner(e: number, node: number): void {
    const list = this.#owners.get(e) ?? [];
    list.push(node);
    this.#owners.set(e, list);
  }
  timelineInsert(key: string, at: number, node: number): { prev: number; next: number } {
    let tl = this.#timelines.get(key);
    if (!tl) {
      tl = { at: [], node: [] };
      this.#timelines.set(key, tl);
    }
    const lo = insertionPoint(tl.at, at);
    const prev = lo > 0 ? (tl.node[lo - 1] as number) : -1;
    const next = lo < tl.node.length ? (tl.node[lo] as number) : -1;
    tl.at.splice(lo, 0, at);
    tl.node.splice(lo, 0, node);
    return { prev, next };
  }
  termCount(): number {
    return this.termPosts.listOf.size;
  }
  remoteIndex(id: string): number | undefined {
    return this.#remoteIdx.get(id);
  }
  remoteAdd(id: string, g: number): void {
    this.#remoteIdx.set(id, g);
    this.#remote.set(g, { id, head: NO_HEAD });
  }
  remoteId(g: number): string | undefined {
    return this.#remote.get(g)?.id;
  }
  remoteHead(g: number): RemoteHead {
    return this.#remote.get(g)?.head ?? NO_HEAD;
  }
  setRemoteHead(g: number, head: RemoteHead): void {
    const r = this.#remote.get(g);
    if (r) r.head = { ...head };
  }
  heapBytes(): number {
    let b = this.entityPosts.heapBytes() + this.termPosts.heapBytes();
    for (const r of this.#remote.values()) b += 2 * stringBytes(r.id) + 2 * MAP_ENTRY_BYTES + 64;
    for (const id of this.#ids) b += stringBytes(id) + MAP_ENTRY_BYTES + 8;
    for (const [name, type] of this.#info.values()) b += stringBytes(name) + stringBytes(type) + MAP_ENTRY_BYTES + 32;
    for (const [k, list] of this.#aliases) b += stringBytes(k) + MAP_ENTRY_BYTES + 32 + list.length * 48;
    for (const l of this.#owners.values()) b += MAP_ENTRY_BYTES + 32 + 8 * l.length;
    for (const [k, tl] of this.#timelines) b += stringBytes(k) + MAP_ENTRY_BYTES + 64 + 16 * tl.at.length;
    return b;
  }

  dump(): MemoryTablesDump {
    return {
      ids: this.#ids,
      info: [...this.#info.entries()].map(([e, [n, t]]) => [e, n, t]),
      entityPosts: this.entityPosts.dump(),
      termPosts: this.termPosts.dump(),
      aliases: [...this.#aliases.entries()].map(([k, l]) => [k, l.map((a) => [a.e, enc(a.from), enc(a.to)])]),
      owners: [...this.#owners.entries()],
      timelines: [...this.#timelines.entries()].map(([k, tl]) => [k, tl.at, tl.node]),
      remote: [...this.#remote.entries()].map(([g, r]) => [g, r.id, r.head.version, r.head.first, enc(r.head.end)]),
    };
  }

  static load(d: MemoryTablesDump): MemoryTables {
    const t = new MemoryTables();
    for (const id of d.ids) t.entityAdd(id);
    for (const [e, n, ty] of d.info) t.#info.set(e, [n, ty]);
    t.entityPosts.load(d.entityPosts);
    t.termPosts.load(d.termPosts);
    t.#aliases = new Map(
      d.aliases.map(([k, l]) => [k, l.map(([e, from, to]) => ({ e, from: dec(from), to: dec(to) }))]),
    );
    t.#owners = new Map(d.owners);
    t.#timelines = new Map(d.timelines.map(([k, at, node]) => [k, { at, node }]));
    for (const [g, id, version, first, end] of d.remote ?? []) {
      t.remoteAdd(id, g);
      t.setRemoteHead(g, { version, first, end: dec(end) });
    }
    return t;
  }
}
