/**
 * The route as a layered graph, before any drawing: a query node, the mentions and the entities
 * they resolved to, the seeds (each joined to the query or its entity by the reason it was seeded),
 * then the router's steps over typed edges. Every chunk carries its diffusion mass and its lead
 * expert (what seeded it, else its strongest per-expert score), so the view can filter by expert and by edge type
 * and cap the chunks shown at the top N by mass. Pure: no DOM, no cytoscape; O(nodes + edges) per
 * call plus one sort of the chunks by mass.
 */
import type { RouteResponse } from "../client";

export type Trace = NonNullable<RouteResponse["trace"]>;

/** The six routing experts, in the order the API lists them. */
export const EXPERTS = ["sem", "lex", "sym", "graph", "rec", "thread"] as const;
export type Expert = (typeof EXPERTS)[number];
export const EXPERT_NAMES: Record<Expert, string> = {
  sem: "semantic",
  lex: "lexical",
  sym: "symbolic",
  graph: "graph",
  rec: "recency",
  thread: "thread",
};
/** Fill colour per expert (distinct hues, readable on a light and a dark background). */
export const EXPERT_COLOURS: Record<Expert, string> = {
  sem: "#2563eb",
  lex: "#d97706",
  sym: "#7c3aed",
  graph: "#0d9488",
  rec: "#db2777",
  thread: "#65a30d",
};

/** A colour per edge type: the twelve API edge types fixed, any other hashed onto the same list. */
const EDGE_PALETTE: Record<string, string> = {
  cites: "#0b72d9",
  "benchmarked-on": "#c2410c",
  implements: "#15803d",
  tests: "#7c3aed",
  "part-of": "#64748b",
  "depends-on": "#b91c1c",
  "introduced-by": "#0e7490",
  "discussed-in": "#a16207",
  "deprecated-by": "#be185d",
  motivates: "#4d7c0f",
  mentions: "#9333ea",
  follows: "#ea580c",
};
const EXTRA = Object.values(EDGE_PALETTE);

export function edgeColour(type: string): string {
  const known = EDGE_PALETTE[type];
  if (known) return known;
  let h = 0;
  for (let i = 0; i < type.length; i++) h = (h * 31 + type.charCodeAt(i)) >>> 0;
  return EXTRA[h % EXTRA.length] ?? "#666";
}

export type NodeKind = "query" | "mention" | "entity" | "chunk";

export interface RouteNode {
  id: string;
  kind: NodeKind;
  label: string;
  /** The chunk id (chunk nodes only). */
  chunk?: string;
  /** Diffusion mass (the trace's, else the candidate's; 0 when neither lists it). */
  mass: number;
  /** Chunk nodes: the seed reason's expert, else the strongest scaled score's, else graph. */
  expert?: Expert;
  seed: boolean;
  selected: boolean;
}

/** `step`: one of the router's steps (typed); the others join the query, mentions, entities and seeds. */
export interface RouteEdge {
  id: string;
  source: string;
  target: string;
  role: "mention" | "seed" | "step";
  /** The edge type of a step; the resolution (`alias`, …) or seed reason otherwise. */
  type: string;
  accepted: boolean;
  score?: number;
}

export interface RouteModel {
  nodes: RouteNode[];
  edges: RouteEdge[];
  /** Chunk nodes per lead expert, and router steps per edge type (what the filters offer). */
  experts: Map<Expert, number>;
  edgeTypes: Map<string, number>;
  chunks: number;
}

export const QUERY_ID = "q";
export const chunkNode = (id: string) => `c:${id}`;
/** Shortened to n characters, with a zero-width space after each : / # so a label wraps there. */
const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s).replace(/([:/#])/g, "$1\u200b");

/** A seed reason's expert: entity and identifier hits are the symbolic expert's. */
function reasonExpert(reason: string): Expert | undefined {
  if (reason.startsWith("entity:") || reason === "identifier") return "sym";
  if (reason === "semantic") return "sem";
  if (reason === "lexical") return "lex";
  if (reason === "recent") return "rec";
  if (reason === "thread") return "thread";
  return undefined;
}

export function routeModel(route: RouteResponse, trace: Trace): RouteModel {
  const nodes = new Map<string, RouteNode>();
  const edges: RouteEdge[] = [];
  const mass = new Map<string, number>();
  for (const c of route.candidates) if (c.mass > 0) mass.set(c.chunk, c.mass);
  for (const m of trace.diffusion.mass) mass.set(m.chunk, m.mass);
  const candidates = new Map(route.candidates.map((c) => [c.chunk, c]));
  const selected = new Set(route.selected.map((s) => s.chunk));
  const seedReasons = new Map(trace.seeds.map((s) => [s.chunk, s.reasons]));

  // Each expert's scores span a different range (recency is ~1 for everything recorded today): a
  // candidate's scores are compared after scaling each expert's to [0, 1] over the candidates, and
  // an expert that gives every candidate the same score leads none.
  const lo = new Map<Expert, number>();
  const hi = new Map<Expert, number>();
  for (const c of route.candidates)
    for (const e of EXPERTS) {
      lo.set(e, Math.min(lo.get(e) ?? Number.POSITIVE_INFINITY, c.experts[e]));
      hi.set(e, Math.max(hi.get(e) ?? Number.NEGATIVE_INFINITY, c.experts[e]));
    }
  const lead = (c: RouteResponse["candidates"][number]): Expert | undefined => {
    let best = 0;
    let expert: Expert | undefined;
    for (const e of EXPERTS) {
      const span = (hi.get(e) ?? 0) - (lo.get(e) ?? 0);
      const v = span > 0 ? (c.experts[e] - (lo.get(e) ?? 0)) / span : 0;
      if (v > best) {
        best = v;
        expert = e;
      }
    }
    return expert;
  };

  const chunk = (id: string): string => {
    const key = chunkNode(id);
    if (nodes.has(key)) return key;
    // A seed's expert is the one that seeded it (entities first, then identifiers, semantic,
    // lexical and recent hits, the order the router adds them); any other chunk's is its strongest
    // scaled score, else graph (reached by diffusion or a step).
    const c = candidates.get(id);
    const expert =
      (seedReasons.get(id) ?? []).map(reasonExpert).find((e) => e !== undefined) ??
      (c ? lead(c) : undefined) ??
      "graph";
    nodes.set(key, {
      id: key,
      kind: "chunk",
      label: short(id, 32),
      chunk: id,
      mass: mass.get(id) ?? 0,
      expert,
      seed: seedReasons.has(id),
      selected: selected.has(id),
    });
    return key;
  };

  nodes.set(QUERY_ID, { id: QUERY_ID, kind: "query", label: "query", mass: 0, seed: false, selected: false });
  for (const [i, m] of trace.mentions.entries()) {
    const mid = `m:${i}`;
    nodes.set(mid, {
      id: mid,
      kind: "mention",
      label: `“${short(m.text, 30)}”`,
      mass: 0,
      seed: false,
      selected: false,
    });
    edges.push({ id: `qm:${i}`, source: QUERY_ID, target: mid, role: "mention", type: "mention", accepted: true });
    const eid = `e:${m.entity}`;
    if (!nodes.has(eid))
      nodes.set(eid, { id: eid, kind: "entity", label: short(m.entity, 32), mass: 0, seed: false, selected: false });
    edges.push({ id: `me:${i}`, source: mid, target: eid, role: "mention", type: m.via, accepted: true });
  }
  for (const s of trace.seeds) {
    const target = chunk(s.chunk);
    let joined = false;
    for (const r of s.reasons) {
      const eid = `e:${r.slice(7)}`;
      if (r.startsWith("entity:") && nodes.has(eid)) {
        edges.push({ id: `es:${r}:${s.chunk}`, source: eid, target, role: "seed", type: "entity", accepted: true });
        joined = true;
      }
    }
    // Seeded without a resolved entity (semantic, lexical, identifier, recent): from the query,
    // two ranks long so it lines up with the entity seeds.
    if (!joined) {
      const why = s.reasons.find((r) => !r.startsWith("entity:")) ?? "seed";
      edges.push({ id: `qs:${s.chunk}`, source: QUERY_ID, target, role: "seed", type: why, accepted: true });
    }
  }
  const edgeTypes = new Map<string, number>();
  for (const [i, step] of trace.router_steps.entries()) {
    const source = chunk(step.from);
    const target = chunk(step.to);
    edges.push({
      id: `r:${i}`,
      source,
      target,
      role: "step",
      type: step.edge_type,
      accepted: step.accepted,
      score: step.score,
    });
    edgeTypes.set(step.edge_type, (edgeTypes.get(step.edge_type) ?? 0) + 1);
  }
  for (const m of trace.diffusion.mass) chunk(m.chunk);
  const experts = new Map<Expert, number>();
  let chunks = 0;
  for (const n of nodes.values())
    if (n.kind === "chunk" && n.expert) {
      chunks++;
      experts.set(n.expert, (experts.get(n.expert) ?? 0) + 1);
    }
  return { nodes: [...nodes.values()], edges, experts, edgeTypes, chunks };
}

export interface GraphFilter {
  /** Lead experts whose chunks are shown. */
  experts: ReadonlySet<Expert>;
  /** Edge types whose router steps are shown (a chunk reached only over hidden types is hidden). */
  edgeTypes: ReadonlySet<string>;
  /** Show the steps the router rejected (dashed). */
  rejected: boolean;
  /** At most this many chunk nodes (Infinity: all). */
  cap: number;
}

export interface GraphView {
  nodes: RouteNode[];
  edges: RouteEdge[];
  /** Chunk nodes shown, and those the filters and the cap leave out. */
  shown: number;
  hidden: number;
  /** Chunks shown that no shown edge reaches (diffusion mass without a step, or a hidden parent). */
  loose: Set<string>;
  /** Nodes drawn with a label: query, mentions, entities, selected chunks and the heaviest. */
  labelled: Set<string>;
}

/** How many of the heaviest chunks are labelled besides the selected ones. */
export const LABEL_TOP = 8;
/** At most this many chunk labels in all. */
export const LABEL_MAX = 16;

/**
 * What the filters and the cap leave: chunks of a checked expert that the query reaches over shown
 * edges (or that have diffusion mass and no step at all), then the heaviest `cap` of them, each
 * kept with the chunks on its path from a seed so no kept chunk hangs without the step that
 * reached it (a path that would pass the cap is skipped, so the cap is never exceeded).
 */
export function filterModel(model: RouteModel, filter: GraphFilter): GraphView {
  const byId = new Map(model.nodes.map((n) => [n.id, n]));
  const allowed = (id: string) => {
    const n = byId.get(id);
    return n !== undefined && (n.kind !== "chunk" || (n.expert !== undefined && filter.experts.has(n.expert)));
  };
  const usable = model.edges.filter(
    (e) => e.role !== "step" || (filter.edgeTypes.has(e.type) && (e.accepted || filter.rejected)),
  );
  const out = new Map<string, RouteEdge[]>();
  const stepTargets = new Set<string>();
  for (const e of model.edges) if (e.role === "step") stepTargets.add(e.target);
  for (const e of usable) {
    const list = out.get(e.source);
    if (list) list.push(e);
    else out.set(e.source, [e]);
  }
  // Breadth-first from the query over usable edges into allowed nodes; parent = first edge in.
  const parent = new Map<string, string | null>([[QUERY_ID, null]]);
  const queue = [QUERY_ID];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i] as string;
    for (const e of out.get(id) ?? [])
      if (!parent.has(e.target) && allowed(e.target)) {
        parent.set(e.target, id);
        queue.push(e.target);
      }
  }
  const eligible: RouteNode[] = [];
  for (const n of model.nodes) {
    if (n.kind !== "chunk") continue;
    if (!allowed(n.id)) continue;
    if (parent.has(n.id)) eligible.push(n);
    else if (!n.seed && !stepTargets.has(n.id)) {
      // Diffusion mass only: no step reached it, nothing to hide it behind but its expert.
      parent.set(n.id, null);
      eligible.push(n);
    }
  }
  eligible.sort((a, b) => b.mass - a.mass || Number(b.selected) - Number(a.selected) || (a.id < b.id ? -1 : 1));
  const kept = new Set<string>();
  for (const n of eligible) {
    if (kept.size >= filter.cap) break;
    if (kept.has(n.id)) continue;
    const path: string[] = [];
    let at: string | null | undefined = n.id;
    while (at && byId.get(at)?.kind === "chunk" && !kept.has(at)) {
      path.push(at);
      at = parent.get(at);
    }
    if (kept.size + path.length > filter.cap) continue;
    for (const id of path) kept.add(id);
  }
  const nodes = model.nodes.filter((n) => n.kind !== "chunk" || kept.has(n.id));
  const present = new Set(nodes.map((n) => n.id));
  const edges = usable.filter((e) => present.has(e.source) && present.has(e.target));
  const reached = new Set(edges.map((e) => e.target));
  const loose = new Set<string>();
  for (const id of kept) if (!reached.has(id)) loose.add(id);
  const labelled = new Set<string>();
  for (const n of nodes) if (n.kind !== "chunk") labelled.add(n.id);
  const chunksByMass = eligible.filter((n) => kept.has(n.id));
  let labels = 0;
  for (const n of chunksByMass)
    if (n.selected && labels < LABEL_MAX) {
      labelled.add(n.id);
      labels++;
    }
  for (const n of chunksByMass.slice(0, LABEL_TOP))
    if (!labelled.has(n.id) && labels < LABEL_MAX) {
      labelled.add(n.id);
      labels++;
    }
  return { nodes, edges, shown: kept.size, hidden: model.chunks - kept.size, loose, labelled };
}
