/**
 * A synthetic route of 142 chunks for the route graph: 3 mentions resolving to 3 entities, 18 seeds
 * (9 through the entities, 4 semantic, 3 lexical, 2 recent), 54 depth-1 steps (3 from each seed),
 * 60 depth-2 steps (2 from each of the first 30 depth-1 targets), 10 chunks with diffusion mass and
 * no step, over 5 edge types; every 7th step rejected; 4 depth-2 chunks heavier than their parents. Deterministic, so positions and counts
 * repeat from run to run.
 */
import type { RouteResponse } from "../../src/client";

export const EDGE_TYPES = ["cites", "implements", "part-of", "mentions", "motivates"] as const;
const EXPERT_KEYS = ["sem", "lex", "sym", "graph", "rec", "thread"] as const;

export interface SyntheticRoute {
  route: RouteResponse;
  chunks: string[];
  steps: number;
}

export function syntheticRoute(): SyntheticRoute {
  const mentions = [
    { text: "PageRank", entity: "method:pagerank", via: "alias" },
    { text: "HippoRAG", entity: "method:hipporag", via: "alias" },
    { text: "damping", entity: "concept:damping", via: "identifier" },
  ];
  const seeds: RouteResponse["trace"]["seeds"] = [];
  for (const [i, m] of mentions.entries())
    for (let j = 0; j < 3; j++)
      seeds.push({
        chunk: `paper:${m.entity.split(":")[1]}-${j}`,
        weight: 1 - i * 0.1,
        reasons: [`entity:${m.entity}`],
      });
  for (let j = 0; j < 4; j++) seeds.push({ chunk: `note:semantic-${j}`, weight: 0.6, reasons: ["semantic"] });
  for (let j = 0; j < 3; j++) seeds.push({ chunk: `note:lexical-${j}`, weight: 0.5, reasons: ["lexical"] });
  for (let j = 0; j < 2; j++) seeds.push({ chunk: `record:recent-${j}`, weight: 0.3, reasons: ["recent"] });
  const steps: RouteResponse["trace"]["router_steps"] = [];
  const depth1: string[] = [];
  let k = 0;
  const step = (depth: number, from: string, to: string) => {
    steps.push({
      depth,
      from,
      to,
      edge_type: EDGE_TYPES[k % EDGE_TYPES.length] as string,
      score: Math.round((0.9 - (k % 10) * 0.05) * 1000) / 1000,
      accepted: k % 7 !== 6,
    });
    k++;
  };
  for (const s of seeds)
    for (let j = 0; j < 3; j++) {
      const to = `section:${s.chunk.split(":")[1]}#${j}`;
      depth1.push(to);
      step(1, s.chunk, to);
    }
  for (const from of depth1.slice(0, 30))
    for (let j = 0; j < 2; j++) step(2, from, `code:${from.split(":")[1]}/unit-${j}`);
  const loose = Array.from({ length: 10 }, (_, j) => `note:diffused-${j}`);
  const chunks = [...seeds.map((s) => s.chunk), ...steps.map((s) => s.to), ...loose];
  // Mass falls with the position: the seeds, then 4 depth-2 chunks heavier than the depth-1 chunks
  // that reach them (so a cap must keep a path, not a chunk), then the loose chunks, so some
  // survive the default cap, then the rest.
  const deep = steps.slice(-4).map((s) => s.to);
  const order = [...new Set([...chunks.slice(0, 18), ...deep, ...chunks.slice(18, 30), ...loose, ...chunks])];
  const mass = order.map((chunk, i) => ({ chunk, mass: Math.round((0.2 / (1 + i * 0.15)) * 1e4) / 1e4 }));
  const candidates: RouteResponse["candidates"] = order.slice(0, 48).map((chunk, i) => {
    const experts = { sem: 0.1, lex: 0.1, sym: 0.1, graph: 0.1, rec: 0.05, thread: 0 };
    experts[EXPERT_KEYS[i % 4] as keyof typeof experts] = 0.9;
    return {
      chunk,
      kind: chunk.split(":")[0] as string,
      version: 1,
      score: 1 - i / 100,
      experts,
      mass: mass[i]?.mass ?? 0,
    };
  });
  const route: RouteResponse = {
    as_of: "2025-01-01T00:00:00.000Z",
    candidates,
    selected: candidates
      .slice(0, 8)
      .map((c, i) => ({ chunk: c.chunk, version: 1, score: c.score, depth: i % 2, via: null })),
    trace: {
      mentions,
      seeds,
      diffusion: { touched: 400, steps: 3, mass },
      router_steps: steps,
      filtered_by_time: 0,
      candidate_pool: candidates.length,
      timings_ms: { resolve: 0.1, diffusion: 0.5, route: 0.3 },
    },
  };
  return { route, chunks: [...new Set(chunks)], steps: steps.length };
}
