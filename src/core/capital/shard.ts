/**
 * One shard of an archive's capital chunk, as the directory (directory.ts) queries it: batched
 * questions about the nodes it holds, named by archive-wide number. A Durable Object answers them
 * over RPC; in process, LocalShard answers them from a CapitalStore. Every answer is in the order
 * of the question, so the directory combines them exactly as route() does over one store.
 */
import { sketchCosine } from "../sketch";
import { terms as stems } from "../text/analyze";
import { termHash } from "../text/lexical";
import type { KernelParams, ResolvedMention, RouteFilter, RouteInput } from "../types";
import { TYPE_MASK } from "./layout";
import type { CapitalStore } from "./store";

/** What the directory needs for archive-wide statistics, and which numbers a shard holds. */
export interface ShardCounts {
  /** Archive-wide number of the shard's first node, and how many it holds. */
  lo: number;
  size: number;
  /** Ids across the archive (the same on every shard that has applied the same changes). */
  globalCount: number;
  openDocs: number;
  openLen: number;
  /** (term hash, postings here) for the query's distinct terms, in query order. */
  terms: Array<[number, number]>;
  seq: number;
  /** A newer shard exists (this one takes no new ids). */
  closed: boolean;
  /** The shard holds a record, so timelines (the thread expert's neighbours) may exist. */
  records?: boolean | undefined;
  /** The archive's parameters, when the shard was asked for them (the newest shard, by the port). */
  params?: KernelParams | undefined;
}

/** What the name tables say about a query (the names shard, shard 0, holds them). */
export interface ShardResolved {
  mentions: ResolvedMention[];
  /** Query entities in route() order: archive-wide postings (capped, merges followed) and df. */
  entities: Array<{ mention: ResolvedMention; entityId: string; docFreq: number; hits: number[] }>;
  /** Archive-wide numbers of the identifiers, semantic hits and session chunks (-1: unknown). */
  idChunks: number[];
  semantic: number[];
  recent: number[];
  filter: { only: number[] | null; any: number[] | null; all: number[][]; exclude: number[] };
}

export interface NodeInfo {
  id: string;
  kind: number;
  /** Version visible at t (0: not visible). */
  version: number;
  visible: boolean;
  recordedAt: number;
  nbrCount: number;
  /** Sketch cosine to the query (null when the query has no sketch). */
  cos: number | null;
}

/**
 * What the directory needs of nodes a shard owns (diffusion and the router), for each node asked:
 * its slot visits (`work`), the weight of its valid slots (`sum`; 0: it keeps its mass), and its
 * `n` listed slots in `dst` / `w` / `type`, in slot order: the valid slots to visible targets that
 * have a weight (localPpr pushes ((alpha * m) / sum) * w along each, as diffusion.ts computes it) or
 * lie among the first kr (the router's view: the first `nr` listed ones, route.ts step 5).
 */
export interface Adjacency {
  work: number[];
  sum: number[];
  n: number[];
  nr: number[];
  dst: number[];
  w: number[];
  type: number[];
}

/** A shard's answer to CapitalShard.nodes. */
export interface ShardNodes {
  info: Array<NodeInfo | null>;
  adj: Adjacency;
}

/** One node's part of an Adjacency answer. */
export interface NodeAdjacency {
  work: number;
  sum: number;
  nr: number;
  dst: number[];
  w: number[];
  type: number[];
}

/** An Adjacency answer for `nodes`, per node. */
export function adjacencyByNode(nodes: number[], r: Adjacency): Map<number, NodeAdjacency> {
  const out = new Map<number, NodeAdjacency>();
  let off = 0;
  nodes.forEach((g, j) => {
    const n = r.n[j] as number;
    out.set(g, {
      work: r.work[j] as number,
      sum: r.sum[j] as number,
      nr: r.nr[j] as number,
      dst: r.dst.slice(off, off + n),
      w: r.w.slice(off, off + n),
      type: r.type.slice(off, off + n),
    });
    off += n;
  });
  return out;
}

/** Router view of a frontier: per node the valid slot weight and its first kr valid slots. */
export interface SlotLists {
  sum: number[];
  n: number[];
  dst: number[];
  type: number[];
  weight: number[];
}

export interface ResolveQuery {
  mentions: string[];
  identifiers: string[];
  boundaries: string[];
  semantic: string[];
  recent: string[];
  filter?: RouteFilter | undefined;
  t: number;
  maxPostingsPerEntity: number;
  /**
   * A name grounded from content (no declared alias) is a query entity only if the archive writes it
   * as a name in at least this share of the documents that contain its rarest word (0: every
   * grounded name counts). "First" grounded at the start of a few sentences is not a name in an
   * archive where "first" appears in hundreds of passages; "Obama" is.
   */
  nameShare: number;
  /**
   * Archive-wide postings of the mentions' words (term hash, count), which nameShare weighs against;
   * without them, the store's own (one store: the same).
   */
  wordDf?: Array<[number, number]> | undefined;
}

/** The resolution question of a route input (route() and the directory ask the same one). */
export function resolveQuery(input: RouteInput, params: KernelParams, wordDf?: Array<[number, number]>): ResolveQuery {
  return {
    mentions: input.mentions,
    identifiers: input.identifiers,
    boundaries: input.boundaries,
    semantic: input.semantic.map((h) => h.chunk),
    recent: (input.recent ?? []).map((r) => r.chunk),
    filter: input.filter,
    t: input.asOf,
    maxPostingsPerEntity: params.maxPostingsPerEntity,
    nameShare: params.nameShare,
    ...(wordDf ? { wordDf } : {}),
  };
}

/** The questions a shard answers (async: over RPC for a Durable Object). */
export interface CapitalShard {
  counts(terms: string[]): Promise<ShardCounts>;
  resolve(q: ResolveQuery): Promise<ShardResolved>;
  /** BM25 over the shard's documents for a plan of (term hash, postings to read, IDF). */
  lexical(plan: Array<[number, number, number]>, t: number, avg: number): Promise<Array<[number, number]>>;
  /**
   * What the shard knows of `info` nodes (null: not its own) and the adjacency of `adj` nodes (see
   * Adjacency), in one call: the directory keeps both for the rest of the query.
   */
  nodes(info: number[], adj: number[], t: number, sketch: Uint8Array | null, kr: number): Promise<ShardNodes>;
}

/** Synchronous answers from one store (the Durable Object wraps these; tests call them in process). */
export class LocalShard {
  constructor(readonly store: CapitalStore) {}

  counts(terms: string[]): ShardCounts {
    const s = this.store;
    return {
      lo: s.lo,
      size: s.size,
      globalCount: s.globalCount,
      openDocs: s.openDocs,
      openLen: s.openLen,
      terms: s.termCounts(terms),
      seq: s.seq,
      closed: Number.isFinite(s.ownTo),
      records: s.hasRecords(),
    };
  }

  resolve(q: ResolveQuery): ShardResolved {
    const s = this.store;
    const t = q.t;
    const g = (id: string) => s.lookupG(id) ?? -1;
    // The same resolution as route() step 1.
    const qEntities = new Map<number, ResolvedMention>();
    const mentions: ResolvedMention[] = [];
    const resolvedTexts: Array<{ text: string; e: number }> = [];
    const sorted = [...q.mentions].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    // Documents holding the rarest word of a mention: the evidence a grounded name is a name.
    const wordDf = q.wordDf ? new Map(q.wordDf) : null;
    const rarestWordDf = (m: string) => {
      let min = Number.POSITIVE_INFINITY;
      for (const w of stems(m)) {
        const h = termHash(w);
        min = Math.min(min, wordDf ? (wordDf.get(h) ?? 0) : s.tables.termPosts.count(h));
      }
      return Number.isFinite(min) ? min : 0;
    };
    const isName = (m: string, e: number) =>
      q.nameShare <= 0 || s.docFreq(e) >= q.nameShare * Math.max(1, rarestWordDf(m));
    for (const m of sorted) {
      const all = s.resolveIdx(m, t);
      for (const r of all) {
        if (r.via === "grounded" && !isName(m, r.e)) continue;
        // A shorter mention inside a longer one already resolved is not counted again; the other
        // entities of the same text (an alias several carry) all count.
        const inside = (x: { text: string; e: number }) =>
          x.text !== m && (x.e === r.e || !x.text.includes(" and ")) && ` ${x.text} `.includes(` ${m} `);
        if (resolvedTexts.some(inside)) continue;
        resolvedTexts.push({ text: m, e: r.e });
        const rm = { text: m, entity: s.entityId(r.e), via: r.via, ...(all.length > 1 ? { ambiguous: true } : {}) };
        mentions.push(rm);
        if (!qEntities.has(r.e)) qEntities.set(r.e, rm);
      }
    }
    const idChunks: number[] = [];
    for (const id of q.identifiers) {
      for (const r of s.resolveIdx(id, t)) {
        const rm = { text: id, entity: s.entityId(r.e), via: r.via };
        mentions.push(rm);
        if (!qEntities.has(r.e)) qEntities.set(r.e, rm);
      }
      const node = s.lookupG(id);
      if (node !== undefined) idChunks.push(node);
    }
    for (const b of q.boundaries) {
      const e = s.entityIndex(`boundary:${b}`);
      if (e !== undefined && !qEntities.has(e)) qEntities.set(e, { text: b, entity: `boundary:${b}`, via: "boundary" });
    }
    const entities: ShardResolved["entities"] = [];
    for (const [e, mention] of qEntities) {
      const hits: number[] = [];
      s.postingsAt(e, t, (i) => hits.push(i), q.maxPostingsPerEntity);
      entities.push({ mention, entityId: s.entityId(e), docFreq: s.docFreq(e), hits });
    }
    const tagged = (tag: string) => {
      const out: number[] = [];
      const e = s.entityIndex(`boundary:${tag.trim().toLowerCase().replace(/\s+/g, "-")}`);
      if (e !== undefined) s.postingsAt(e, t, (i) => out.push(i), Number.MAX_SAFE_INTEGER);
      return out;
    };
    const f = q.filter;
    const known = (ids: string[]) => ids.map(g).filter((i) => i >= 0);
    return {
      mentions,
      entities,
      idChunks,
      semantic: q.semantic.map(g),
      recent: q.recent.map(g),
      filter: {
        only: f?.only ? known(f.only) : null,
        any: f?.boundariesAny?.length ? f.boundariesAny.flatMap(tagged) : null,
        all: (f?.boundariesAll ?? []).map(tagged),
        exclude: [...known(f?.exclude ?? []), ...(f?.boundariesNone ?? []).flatMap(tagged)],
      },
    };
  }

  lexical(plan: Array<[number, number, number]>, t: number, avg: number): Array<[number, number]> {
    const s = this.store;
    return [...s.lexicalScan(plan, t, avg)].map(([i, v]) => [s.lo + i, v]);
  }

  info(nodes: number[], t: number, sketch: Uint8Array | null): Array<NodeInfo | null> {
    const s = this.store;
    return nodes.map((g) => {
      const i = s.local(g);
      if (i < 0) return null;
      return {
        id: s.ids[i] as string,
        kind: s.kind[i] as number,
        version: s.versionAtIdx(i, t),
        visible: s.visibleAt(i, t),
        recordedAt: s.recordedAt[i] as number,
        nbrCount: s.nbrCount[i] as number,
        cos: sketch ? sketchCosine(sketch, s.sketchOf(i)) : null,
      };
    });
  }

  /** See CapitalShard.nodes. */
  nodes(info: number[], adj: number[], t: number, sketch: Uint8Array | null, kr: number): ShardNodes {
    return { info: info.length ? this.info(info, t, sketch) : [], adj: this.adjacency(adj, t, kr) };
  }

  /** See Adjacency. */
  adjacency(nodes: number[], t: number, kr: number): Adjacency {
    const s = this.store;
    const out: Adjacency = { work: [], sum: [], n: [], nr: [], dst: [], w: [], type: [] };
    for (const g of nodes) {
      const u = s.local(g);
      const start = u < 0 ? 0 : (s.nbrStart[u] as number);
      const end = u < 0 ? 0 : start + (s.nbrCount[u] as number);
      let sum = 0;
      for (let k = start; k < end; k++) {
        if (!s.slotValid(u, k, t) || !s.visibleAt(s.slotDst[k] as number, t)) continue;
        sum += s.slotWeight(k);
      }
      let n = 0;
      let nr = 0;
      if (sum > 0)
        for (let k = start; k < end; k++) {
          const d = s.slotDst[k] as number;
          const w = s.slotWeight(k);
          const first = k < start + kr;
          if ((w <= 0 && !first) || !s.slotValid(u, k, t) || !s.visibleAt(d, t)) continue;
          out.dst.push(s.gOfRef(d));
          out.w.push(w);
          out.type.push((s.slotType[k] as number) & TYPE_MASK);
          n++;
          if (first) nr = n;
        }
      out.work.push(end - start);
      out.sum.push(sum);
      out.n.push(n);
      out.nr.push(nr);
    }
    return out;
  }

  /** The router's view of each node's slots (route.ts step 5). */
  slots(nodes: number[], t: number, kr: number): SlotLists {
    const s = this.store;
    const out: SlotLists = { sum: [], n: [], dst: [], type: [], weight: [] };
    for (const g of nodes) {
      const u = s.local(g);
      let sum = 0;
      let n = 0;
      if (u >= 0) {
        const start = s.nbrStart[u] as number;
        const end = start + (s.nbrCount[u] as number);
        for (let k = start; k < end; k++) {
          if (!s.slotValid(u, k, t) || !s.visibleAt(s.slotDst[k] as number, t)) continue;
          sum += s.slotWeight(k);
        }
        if (sum > 0)
          for (let k = start; k < end && k < start + kr; k++) {
            const v = s.slotDst[k] as number;
            if (!s.slotValid(u, k, t) || !s.visibleAt(v, t)) continue;
            out.dst.push(s.gOfRef(v));
            out.type.push((s.slotType[k] as number) & TYPE_MASK);
            out.weight.push(s.slotWeight(k));
            n++;
          }
      }
      out.sum.push(sum);
      out.n.push(n);
    }
    return out;
  }
}

/** A LocalShard behind the async shard interface (in process: tests, benchmarks, scripts). */
export function inProcess(store: CapitalStore): CapitalShard {
  const l = new LocalShard(store);
  return {
    counts: async (terms) => l.counts(terms),
    resolve: async (q) => l.resolve(q),
    lexical: async (plan, t, avg) => l.lexical(plan, t, avg),
    nodes: async (info, adj, t, sketch, kr) => l.nodes(info, adj, t, sketch, kr),
  };
}
