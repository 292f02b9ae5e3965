/**
 * The capital store's heap layout (store.ts): node flags, the neighbour slot's type byte, the
 * palette and log grid of slot weights, edge type weights, edge validity bounds, and the growth of
 * its typed arrays.
 */
import type { EdgeType } from "../types";

export const HAS_HEAD = 1;
export const DEPRECATED = 2;
/**
 * Slot type byte: bits 0-3 edge type, bit 4 direction (reverse slot), bits 5-6 where the edge's
 * start of validity comes from, bit 7 closed.
 */
export const TYPE_MASK = 15;
export const DIR_IN = 16;
/** Type and direction: what identifies a slot of a node. */
export const KEY_MASK = 31;
export const CLOSED_BIT = 128;
/**
 * Valid from the first version of the slot's own node / of its neighbour / always; 0 means an
 * explicit start kept aside (`fromAt`). Edges start with the version that declares them, so the
 * first two cover nearly every slot and a slot needs no 8-byte time of its own.
 */
export const FROM_SELF = 32;
export const FROM_DST = 64;
export const FROM_OPEN = 96;
export const FROM_MASK = 96;
/**
 * A slot holds its weight as a 16-bit code: below PALETTE_MAX an index into the store's palette of
 * distinct weights (exact as Float32; edge weights are mostly a few type factors times a few user
 * weights), above it a point of a fixed geometric grid from 1e-6 to 1e6 (relative error <= 0.023%)
 * once an archive has used up its palette on continuous weights.
 */
export const PALETTE_MAX = 1024;
export const GRID = 65536 - PALETTE_MAX;
export const GRID_MIN = 1e-6;
export const GRID_STEP = Math.log(1e12) / (GRID - 1);
let gridTable: Float32Array | null = null;
export function gridValue(code: number): number {
  if (!gridTable) {
    gridTable = new Float32Array(GRID);
    for (let k = 0; k < GRID; k++) gridTable[k] = GRID_MIN * Math.exp(k * GRID_STEP);
  }
  return gridTable[code - PALETTE_MAX] as number;
}

/** Type-aware normalisation of the diffusion (routing step 3): how much of a node's mass an edge type may carry. */
export const TYPE_WEIGHT: Record<EdgeType, number> = {
  cites: 1.0,
  "part-of": 1.0,
  implements: 1.0,
  "benchmarked-on": 0.9,
  "introduced-by": 0.9,
  tests: 0.8,
  "depends-on": 0.8,
  "discussed-in": 0.7,
  motivates: 0.7,
  "deprecated-by": 0.6,
  mentions: 0.8,
  follows: 0.8,
};

/** A cited paper is relevant to its citer, but less than the other way round. */
export const REVERSE_FACTOR = 0.5;

export const OPEN_FROM = Number.NEGATIVE_INFINITY;
export const OPEN_TO = Number.POSITIVE_INFINITY;

/**
 * Edge validity is kept in exact epoch milliseconds (Float64), so an edge is usable from the very
 * millisecond its version starts: an agent that stores something and asks right away gets the graph.
 */
export function edgeFrom(ms: number): number {
  return Number.isFinite(ms) ? ms : OPEN_FROM;
}
export function edgeTo(ms: number | null): number {
  return ms === null || !Number.isFinite(ms) ? OPEN_TO : ms;
}

export function growF64(a: Float64Array, n: number, fill = 0): Float64Array {
  const b = new Float64Array(n);
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}
export function growI32(a: Int32Array, n: number): Int32Array {
  const b = new Int32Array(n);
  b.set(a);
  return b;
}
export function growU32(a: Uint32Array, n: number): Uint32Array {
  const b = new Uint32Array(n);
  b.set(a);
  return b;
}
export function growU8(a: Uint8Array, n: number): Uint8Array {
  const b = new Uint8Array(n);
  b.set(a);
  return b;
}
export function growU16(a: Uint16Array, n: number): Uint16Array {
  const b = new Uint16Array(n);
  b.set(a);
  return b;
}
export function growF32(a: Float32Array, n: number): Float32Array {
  const b = new Float32Array(n);
  b.set(a);
  return b;
}
