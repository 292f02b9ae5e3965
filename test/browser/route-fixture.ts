/**
 * A synthetic route of 142 chunks for the route graph: 3 mentions resolving to 3 entities, 18 seeds
 * (9 through the entities, 4 semantic, 3 lexical, 2 recent), 54 depth-1 steps (3 from each seed),
 * 60 depth-2 steps (2 from each of the first 30 depth-1 targets), 10 chunks with diffusion mass and
 * no step, over 5 edge types; every 7th step rejected; 4 depth-2 chunks heavier than their parents. Deterministic, so positions and counts
 * repeat from run to run.
 */
import type { TracedRoute as RouteResponse } from "../../src/client";

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
      relevance: 0.9 - i / 100,
      match: 0.8 - i / 100,
      experts,
      mass: mass[i]?.mass ?? 0,
    };
  });
  const route: RouteResponse = {
    as_of: "2025-01-01T00:00:00.000Z",
    freshness: { applied: "1", after: null, reached: true, waited_ms: 0 },
    candidates,
    selected: candidates
      .slice(0, 8)
      .map((c, i) => ({ chunk: c.chunk, version: 1, score: c.score, relevance: c.relevance, depth: i % 2, via: null })),
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

/**
 * The shape real routes have (measured on the HotpotQA corpus: 100 seeds, 12 steps): one mention,
 * its entity seeding 2 chunks that 6 steps leave, and 100 chunks seeded by semantic similarity
 * alone that no step leaves.
 */
export function fanRoute(): SyntheticRoute {
  const mentions = [{ text: "Gallu", entity: "concept:gallu", via: "alias" }];
  const seeds: RouteResponse["trace"]["seeds"] = [
    { chunk: "p:gallu", weight: 2.6, reasons: ["entity:concept:gallu", "semantic"] },
    { chunk: "p:lilu", weight: 1.7, reasons: ["entity:concept:gallu", "lexical"] },
  ];
  for (let j = 0; j < 100; j++)
    seeds.push({ chunk: `p:similar-${j}`, weight: Math.round((0.7 - j * 0.006) * 1e4) / 1e4, reasons: ["semantic"] });
  const steps: RouteResponse["trace"]["router_steps"] = [];
  for (const [i, from] of ["p:gallu", "p:lilu"].entries())
    for (let j = 0; j < 3; j++)
      steps.push({ depth: 1, from, to: `p:linked-${i}-${j}`, edge_type: "mentions", score: 0.5, accepted: j !== 2 });
  const chunks = [...seeds.map((s) => s.chunk), ...steps.map((s) => s.to)];
  const mass = chunks.map((chunk, i) => ({ chunk, mass: Math.round((0.3 / (1 + i * 0.2)) * 1e4) / 1e4 }));
  const candidates: RouteResponse["candidates"] = chunks.slice(0, 48).map((chunk, i) => ({
    chunk,
    kind: "note",
    version: 1,
    score: 1 - i / 100,
    relevance: 0.9 - i / 200,
    match: 0.8 - i / 200,
    experts: { sem: 0.9 - i / 100, lex: 0.1, sym: i < 2 ? 1 : 0, graph: 0.1, rec: 1, thread: 0 },
    mass: mass[i]?.mass ?? 0,
  }));
  const route: RouteResponse = {
    as_of: "2025-01-01T00:00:00.000Z",
    freshness: { applied: "1", after: null, reached: true, waited_ms: 0 },
    candidates,
    selected: candidates
      .slice(0, 5)
      .map((c) => ({ chunk: c.chunk, version: 1, score: c.score, relevance: c.relevance, depth: 0, via: null })),
    trace: {
      mentions,
      seeds,
      diffusion: { touched: 134, steps: 20, mass },
      router_steps: steps,
      filtered_by_time: 0,
      candidate_pool: candidates.length,
      timings_ms: { resolve: 0.1, diffusion: 0.5, route: 0.3 },
    },
  };
  return { route, chunks, steps: steps.length };
}
