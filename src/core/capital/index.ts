export { fullPpr, localPpr, type PprResult } from "./diffusion";
export { ROUTER_LAMBDA, route, TYPE_PRIOR } from "./route";
export { CapitalStore, type HeadInfo, type NeighbourInfo, REVERSE_FACTOR, TYPE_WEIGHT } from "./store";
