/**
 * Heap measured as a Durable Object would hold it: V8 heap plus ArrayBuffer bytes after GC, in Node
 * (`global.gc` exposed at run time, so no flag is needed on the command line).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { CapitalStore, route } from "../../src/core/capital";
import type { CapitalTables } from "../../src/core/capital/tables";
import type { RouteInput } from "../../src/core/types";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap used plus ArrayBuffer bytes after GC; external buffers are released by finalizers a few ticks later. */
export async function heapUsed(): Promise<number> {
  for (let k = 0; k < 4; k++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * Bytes per head of a store rebuilt from a snapshot that has answered one query: hold one copy,
 * then five, and divide the growth by four. Differencing two holdings cancels what a single reading
 * cannot (ArrayBuffers of earlier garbage released a collection or two late, a value left in a
 * suspended frame), which otherwise move a reading by a whole store's size; four copies instead of
 * two halve the spread of readings of one build (264-306 B/head with two on these machines).
 * Returns the first copy too.
 */
export async function rebuiltHeapPerHead(
  snap: Uint8Array,
  tables: () => CapitalTables,
  query: RouteInput,
): Promise<{ perHead: number; store: CapitalStore }> {
  const copies: CapitalStore[] = [];
  const add = (k: number) => {
    for (let j = 0; j < k; j++) {
      const s = CapitalStore.deserialize(snap, tables());
      route(s, query); // allocates the per-query scratch vectors
      copies.push(s);
    }
  };
  add(1);
  const one = await heapUsed();
  add(4);
  const perHead = ((await heapUsed()) - one) / 4 / (copies[0] as CapitalStore).size;
  return { perHead, store: copies[0] as CapitalStore };
}
