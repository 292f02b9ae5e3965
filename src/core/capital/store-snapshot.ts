/**
 * The snapshot format of a capital store (store.ts): its heap arrays, and with in-memory tables the
 * tables too, in one buffer.
 */
import { SKETCH_BYTES } from "../sketch";
import type { KernelParams } from "../types";
import { checkCodes, KNOWN_CODES } from "./codes";
import { IdIndex } from "./id-index";
import { growF32, growF64, growI32, growU8, growU32, HAS_HEAD, TYPE_MASK } from "./layout";
import type { NameLayer } from "./name-layer";
import { type CapitalTables, MemoryTables, type MemoryTablesDump, stringBytes } from "./tables";

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

export function serializeStore(s: NameLayer): Uint8Array {
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

/** A store from a snapshot: `make` builds the empty store the snapshot's arrays are loaded into. */
export function deserializeStore<S extends NameLayer>(
  buf: Uint8Array,
  tables: CapitalTables | undefined,
  make: (params: KernelParams, tables: CapitalTables) => S,
): S {
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
  const s = make(h.params, t);
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
  s.cap = cap;
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
