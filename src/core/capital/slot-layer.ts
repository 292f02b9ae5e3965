/**
 * The slot layer of a capital store (store.ts): the bounded, type-aware neighbour tables, pooled
 * (per node a contiguous run of capacity 4/8/16/32), their weight palette and the rare validity
 * times kept aside.
 */
import type { EdgeType, KernelParams } from "../types";
import { EDGE_TYPE_CODES, edgeCode } from "./codes";
import { GhostIndex } from "./id-index";
import {
  CLOSED_BIT,
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
  growI32,
  growU8,
  growU16,
  KEY_MASK,
  OPEN_FROM,
  OPEN_TO,
  PALETTE_MAX,
  REVERSE_FACTOR,
  TYPE_MASK,
  TYPE_WEIGHT,
} from "./layout";
import { NodeLayer } from "./node-layer";
import type { NeighbourInfo } from "./records";
import type { CapitalTables } from "./tables";

const MENTIONS: EdgeType = "mentions";
const FOLLOWS: EdgeType = "follows";
/** Edge types a shard derives from names and timelines, by their code in a DerivedEdge. */
export const DERIVED_TYPES: readonly EdgeType[] = [MENTIONS, FOLLOWS];

/** Keyed side lists (closed ends, explicit starts): set, replace or (null) drop an entry. */
function setAside(
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

/** @internal Layer 2 of CapitalStore (store.ts). */
export class SlotLayer extends NodeLayer {
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
  /** @internal */ slotsUsed = 0;
  /** @internal */ liveSlots = 0;
  /** @internal */ edgeCount = 0;

  constructor(params: KernelParams, tables: CapitalTables) {
    super(params, tables);
    // The derived edges' weights take the first codes in every store, so a shard that never sees an
    // edge derived before it opened has the same palette as the names shard and one store.
    for (const type of DERIVED_TYPES) {
      this.weightIndex(TYPE_WEIGHT[type]);
      this.weightIndex(TYPE_WEIGHT[type] * REVERSE_FACTOR);
    }
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

  private setClosed(u: number, dst: number, bits: number, to: number | null) {
    setAside(this.closed, u, dst, bits, to);
  }

  /** The from bits of a slot of u to dst starting at `from`, keeping an explicit start aside. */
  private fromBits(u: number, dst: number, bits: number, from: number): number {
    let code = 0;
    if (from === OPEN_FROM) code = FROM_OPEN;
    else if (this.hasHead(u) && from === this.firstValidFrom[u]) code = FROM_SELF;
    else if (this.hasHead(dst) && from === this.firstOf(dst)) code = FROM_DST;
    setAside(this.fromAt, u, dst, bits, code === 0 ? from : null);
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
      setAside(this.fromAt, i, this.slotDst[min] as number, old, null);
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

  protected closeSlot(i: number, dst: number, bits: number, to: number) {
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

  protected addEdge(
    src: string,
    dst: string,
    type: EdgeType,
    weight: number,
    validFrom: number,
    validTo: number | null,
  ) {
    if (src === dst) return;
    const a = this.globalOf(src);
    this.addEdgeG(a, this.globalOf(dst), type, weight, validFrom, validTo);
  }

  /** An edge between two archive-wide numbers: a slot on each end this store holds. */
  protected addEdgeG(
    ga: number,
    gb: number,
    type: EdgeType,
    weight: number,
    validFrom: number,
    validTo: number | null,
  ) {
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
}
