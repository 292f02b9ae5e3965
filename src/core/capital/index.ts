import { scratchBytes } from "./scratch";
import type { CapitalStore } from "./store";

export { fullPpr, localPpr, type PprResult } from "./diffusion";
export { REVERSE_FACTOR, TYPE_WEIGHT } from "./layout";
export type { HeadInfo, NeighbourInfo } from "./records";
export { route } from "./route";
export { TYPE_PRIOR } from "./router";
export { scratchBytes } from "./scratch";
export { CapitalStore } from "./store";

/** The heap the store accounts for, diffusion scratch included, without reading its storage. */
export function capitalBytes(store: CapitalStore): number {
  return store.heapBytes().total + scratchBytes(store);
}

/** Store statistics plus the diffusion scratch vectors (allocated on the first query). */
export function capitalStats(store: CapitalStore) {
  const st = store.stats();
  const scratch = scratchBytes(store);
  const total = st.bytes.total + scratch;
  return { ...st, bytes: { ...st.bytes, scratch, total }, bytesPerHead: st.heads ? total / st.heads : 0 };
}
