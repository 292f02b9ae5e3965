/**
 * Dense diffusion scratch vectors, one set per store, kept between queries (a store's heap counts
 * them: 24 bytes per node).
 */

/** A store as the scratch vectors see it: how many nodes it has. */
interface Sized {
  readonly size: number;
}

/** Dense scratch vectors reused across queries (sparse accumulators: only touched slots are reset). */
export interface Scratch {
  x: Float64Array;
  next: Float64Array;
  g: Float64Array;
}
const scratchOf = new WeakMap<Sized, Scratch>();
/** @internal The scratch vectors of a store (all zero between queries). */
export function scratch(s: Sized): Scratch {
  let sc = scratchOf.get(s);
  if (!sc || sc.x.length < s.size) {
    // Exact on first use (a rebuilt store); with room to grow once the store outgrows it.
    const n = Math.max(1024, sc ? Math.ceil(s.size * 1.25) : s.size);
    sc = { x: new Float64Array(n), next: new Float64Array(n), g: new Float64Array(n) };
    scratchOf.set(s, sc);
  }
  return sc;
}

/** Bytes of the diffusion scratch vectors currently allocated for a store (24 bytes per node). */
export function scratchBytes(s: Sized): number {
  const sc = scratchOf.get(s);
  return sc ? sc.x.byteLength * 3 : 0;
}
