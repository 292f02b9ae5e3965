/**
 * The capital chunk of one shard of an archive (the whole archive when it has one shard): head catalog, entity -> chunk inverted index,
 * time-aware alias table, access-recency statistics and the bounded, type-aware neighbour tables.
 * What one query's diffusion and scoring touch per node is kept in the heap as struct-of-arrays in
 * growable typed arrays (never per-node JS objects); the entity dictionary, postings, aliases, title
 * owners and timelines are behind the tables port (tables.ts), in a Durable Object's SQLite
 * storage. stats() accounts the heap; test/core/heap.test.ts holds it to the measured growth.
 * The store is built in layers, one file each: nodes (node-layer.ts), neighbour slots (slot-layer.ts),
 * the lexical index (lexical-layer.ts), names (name-layer.ts); this file applies the change log, and
 * store-snapshot.ts writes and reads snapshots.
 */

import { normAlias } from "../ids";
import { fromBase64, SKETCH_BYTES } from "../sketch";
import { type ChangeOp, DEFAULT_PARAMS, type KernelParams } from "../types";
import { edgeCode, kindCode } from "./codes";
import { DEPRECATED, DIR_IN, edgeTo, HAS_HEAD } from "./layout";
import { conceptAliasKey, NameLayer } from "./name-layer";
import { deserializeStore, serializeStore } from "./store-snapshot";
import { type CapitalTables, MAP_ENTRY_BYTES, MemoryTables, type RemoteHead } from "./tables";

export { MAX_MENTION_LINKS } from "./name-layer";

export class CapitalStore extends NameLayer {
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

  constructor(params: KernelParams = DEFAULT_PARAMS, tables: CapitalTables = new MemoryTables()) {
    super(params, tables);
  }

  // ------------------------------------------------------------------ change log

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

  // ------------------------------------------------------------------ accounting

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
    return deserializeStore(buf, tables, (p, t) => new CapitalStore(p, t));
  }
}
