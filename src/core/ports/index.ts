/**
 * Ports: the narrow interfaces the core needs from the outside world. Each has a local
 * implementation (src/adapters/local, runs in Node and workerd) and a production one
 * (src/adapters/r2, vectorize, workers-ai, d1). One contract suite per port runs against all.
 */

export * from "./capital";
export * from "./chunks";
export * from "./discovery";
export * from "./embedding";
export * from "./events";
export * from "./forget";
export * from "./intake";
export * from "./logs";
export * from "./models";
export * from "./services";
export * from "./storage";
export * from "./world";
