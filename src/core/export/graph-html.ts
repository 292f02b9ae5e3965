/**
 * Graph page (Paper Circle, seed 004 §3.6): one self-contained HTML page drawing a paper's or a
 * collection's graph as inline SVG, laid out here, so it opens offline: no script, no CDN, no
 * external resource, no URL but the stored texts themselves. Its inline style is allowed by its
 * SHA-256 in the page's own Content-Security-Policy (`default-src 'none'`); colours in the drawing are
 * SVG presentation attributes, which that policy does not block.
 *
 * Layout: columns by the undirected hop distance from the root (the `within` chunk or the collection;
 * else, per connected component, its highest-degree node), each column sorted by kind then id and
 * wrapped every GRAPH_PAGE_LIMITS.columnRows nodes. Edges are drawn as curves with arrowheads; a
 * node's border and an edge's stroke show the review status (auto-generated grey, human-verified
 * green, human-edited blue, flagged red and dashed). The tables under the drawing list every node and
 * edge drawn with its status; a node links to its row by fragment.
 */
import { escapeHtml, HTML_STYLE, styleCsp } from "./html";
import { joinParts, type Parts } from "./parts";
import { type GraphEdge, type GraphNode, iso } from "./types";

export const GRAPH_PAGE_LIMITS = { maxNodes: 300, maxEdges: 1200, columnRows: 40, labelChars: 30 } as const;

export const GRAPH_STYLE = `${HTML_STYLE}
svg.g{display:block;max-width:100%;height:auto;border:1px solid #ddd;border-radius:.4rem;background:#fcfcfc}
svg.g text{font:11px system-ui,sans-serif}.legend span{margin-right:1rem}`;

export const STATUS_COLOURS: Record<string, string> = {
  "auto-generated": "#9aa0a6",
  "human-verified": "#1e8e3e",
  "human-edited": "#1a73e8",
  flagged: "#d93025",
};
const KIND_FILL = ["#e8f0fe", "#e6f4ea", "#fef7e0", "#fce8e6", "#f3e8fd", "#e4f7fb", "#fdf0e6", "#eceff1"];

const NODE_W = 180;
const NODE_H = 30;
const COL_GAP = 80;
const ROW_GAP = 14;
const PAD = 20;

export interface PlacedNode {
  node: GraphNode;
  x: number;
  y: number;
  layer: number;
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The nodes kept (highest degree first, the root always) and their positions. */
export function layoutGraph(
  graph: { nodes: GraphNode[]; edges: GraphEdge[] },
  root: string | undefined,
  limits: { maxNodes: number; columnRows: number } = GRAPH_PAGE_LIMITS,
): { placed: PlacedNode[]; width: number; height: number } {
  const degree = new Map<string, number>();
  for (const e of graph.edges) {
    degree.set(e.src, (degree.get(e.src) ?? 0) + 1);
    degree.set(e.dst, (degree.get(e.dst) ?? 0) + 1);
  }
  const deg = (id: string) => degree.get(id) ?? 0;
  const kept = [...graph.nodes]
    .sort((a, b) => (a.id === root ? -1 : b.id === root ? 1 : deg(b.id) - deg(a.id) || byId(a.id, b.id)))
    .slice(0, limits.maxNodes);
  const keptIds = new Set(kept.map((n) => n.id));
  const adj = new Map<string, string[]>();
  for (const e of graph.edges)
    if (keptIds.has(e.src) && keptIds.has(e.dst)) {
      adj.set(e.src, [...(adj.get(e.src) ?? []), e.dst]);
      adj.set(e.dst, [...(adj.get(e.dst) ?? []), e.src]);
    }
  const layer = new Map<string, number>();
  let base = 0;
  const starts = [...kept].sort((a, b) =>
    a.id === root ? -1 : b.id === root ? 1 : deg(b.id) - deg(a.id) || byId(a.id, b.id),
  );
  for (const s of starts) {
    if (layer.has(s.id)) continue;
    // One component: breadth-first from its start, its columns after the previous component's.
    layer.set(s.id, base);
    const queue = [s.id];
    let deepest = base;
    for (let i = 0; i < queue.length; i++) {
      const cur = queue[i] as string;
      const l = layer.get(cur) as number;
      for (const nb of [...(adj.get(cur) ?? [])].sort(byId))
        if (!layer.has(nb)) {
          layer.set(nb, l + 1);
          deepest = Math.max(deepest, l + 1);
          queue.push(nb);
        }
    }
    base = deepest + 1;
  }
  const columns = new Map<number, GraphNode[]>();
  for (const n of kept) {
    const l = layer.get(n.id) as number;
    columns.set(l, [...(columns.get(l) ?? []), n]);
  }
  const placed: PlacedNode[] = [];
  let col = 0;
  let height = 0;
  for (const l of [...columns.keys()].sort((a, b) => a - b)) {
    const nodes = (columns.get(l) ?? []).sort((a, b) => byId(a.kind, b.kind) || byId(a.id, b.id));
    for (let i = 0; i < nodes.length; i += limits.columnRows) {
      const slice = nodes.slice(i, i + limits.columnRows);
      slice.forEach((node, j) => {
        const y = PAD + j * (NODE_H + ROW_GAP);
        placed.push({ node, x: PAD + col * (NODE_W + COL_GAP), y, layer: l });
        height = Math.max(height, y + NODE_H + PAD);
      });
      col++;
    }
  }
  const width = Math.max(1, col) * (NODE_W + COL_GAP) - COL_GAP + 2 * PAD;
  return { placed, width, height: Math.max(height, NODE_H + 2 * PAD) };
}

const clip = (s: string, n: number) => {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};
const statusOf = (s: string | undefined) => s ?? "auto-generated";
const colour = (s: string | undefined) => STATUS_COLOURS[statusOf(s)] ?? STATUS_COLOURS["auto-generated"];

export interface GraphPageMeta {
  archive: { id: string; name: string };
  asOf: number;
  exportedAt: number;
  /** What the page shows: "subtree of paper:x", "collection c (12 members)", or the whole archive. */
  scope?: string | undefined;
  /** The node the layout starts from. */
  root?: string | undefined;
}

export async function renderGraphPage(graph: { nodes: GraphNode[]; edges: GraphEdge[] }, meta: GraphPageMeta) {
  return joinParts(graphPageParts(graph, meta, await graphPageCsp()));
}

/** The CSP of the graph page: nothing but its inline style, by hash. */
export function graphPageCsp(): Promise<string> {
  return styleCsp(GRAPH_STYLE);
}

/** renderGraphPage's lines with its CSP (graphPageCsp()), one part each. */
export function graphPageParts(
  graph: { nodes: GraphNode[]; edges: GraphEdge[] },
  meta: GraphPageMeta,
  csp: string,
  limits: typeof GRAPH_PAGE_LIMITS = GRAPH_PAGE_LIMITS,
): Parts {
  const e = escapeHtml;
  const { placed, width, height } = layoutGraph(graph, meta.root, limits);
  const at = new Map(placed.map((p, i) => [p.node.id, { ...p, i }]));
  const edges = graph.edges.filter((g) => at.has(g.src) && at.has(g.dst)).slice(0, limits.maxEdges);
  const kinds = [...new Set(placed.map((p) => (p.node.external ? "external" : p.node.kind)))].sort();
  const fill = (n: GraphNode) =>
    n.external ? "#ffffff" : (KIND_FILL[kinds.indexOf(n.kind) % KIND_FILL.length] as string);
  const title = `${meta.archive.name}${meta.scope ? ` - ${meta.scope}` : ""}`;
  function* lines(): Generator<string, void, undefined> {
    yield "<!doctype html>";
    yield `<html lang="en"><head><meta charset="utf-8">`;
    yield `<meta http-equiv="Content-Security-Policy" content="${e(csp)}">`;
    yield `<meta name="viewport" content="width=device-width, initial-scale=1">`;
    yield `<title>${e(title)} - PaperGuru graph</title>`;
    yield `<style>${GRAPH_STYLE}</style></head><body>`;
    yield `<h1>${e(meta.archive.name)} <code>${e(meta.archive.id)}</code></h1>`;
    const cut =
      placed.length < graph.nodes.length || edges.length < graph.edges.length
        ? ` Drawn: ${placed.length} of ${graph.nodes.length} nodes (highest degree first) and ${edges.length} of ${graph.edges.length} edges; format=graphml has them all.`
        : "";
    yield `<p>${graph.nodes.length} node${graph.nodes.length === 1 ? "" : "s"} and ${graph.edges.length} edge${graph.edges.length === 1 ? "" : "s"} valid at ${e(iso(meta.asOf))}${meta.scope ? `, ${e(meta.scope)}` : ""}; exported ${e(iso(meta.exportedAt))}.${e(cut)}</p>`;
    yield `<p class="legend">Review status: ${Object.entries(STATUS_COLOURS)
      .map(
        ([s, c]) =>
          `<span><svg width="14" height="10" aria-hidden="true"><rect x="1" y="1" width="12" height="8" fill="#ffffff" stroke="${c}" stroke-width="2"/></svg> ${e(s)}</span>`,
      )
      .join("")}</p>`;
    yield `<svg class="g" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${e(`Graph of ${title}`)}">`;
    yield "<defs>";
    for (const [s, c] of Object.entries(STATUS_COLOURS))
      yield `<marker id="arrow-${s}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="${c}"/></marker>`;
    yield "</defs>";
    for (const g of edges) {
      const a = at.get(g.src) as PlacedNode & { i: number };
      const b = at.get(g.dst) as PlacedNode & { i: number };
      const s = statusOf(g.reviewStatus);
      const forward = b.x >= a.x;
      const x1 = a.x + (forward ? NODE_W : 0);
      const x2 = b.x + (forward ? 0 : NODE_W);
      const y1 = a.y + NODE_H / 2;
      const y2 = b.y + NODE_H / 2;
      // Same column: a loop out to the right.
      const d =
        a.x === b.x
          ? `M${a.x + NODE_W},${y1}C${a.x + NODE_W + 50},${y1} ${b.x + NODE_W + 50},${y2} ${b.x + NODE_W},${y2}`
          : `M${x1},${y1}C${(x1 + x2) / 2},${y1} ${(x1 + x2) / 2},${y2} ${x2},${y2}`;
      yield `<path d="${d}" fill="none" stroke="${colour(s)}" stroke-width="${s === "auto-generated" ? 1.2 : 2}"${s === "flagged" ? ' stroke-dasharray="5 3"' : ""} marker-end="url(#arrow-${e(s)})"><title>${e(`${g.src} ${g.type} ${g.dst} · ${s} · weight ${Number(g.weight.toPrecision(4))}`)}</title></path>`;
    }
    for (const p of placed) {
      const n = p.node;
      const s = statusOf(n.reviewStatus);
      const i = at.get(n.id)?.i ?? 0;
      const tip = n.external
        ? `${n.id} (not in the archive)`
        : `${n.title} · ${n.id}@v${n.version} · ${n.kind} · ${s}${n.deprecatedAt !== null ? ` · deprecated ${iso(n.deprecatedAt)}` : ""}`;
      yield `<a href="#n${i}"><g><title>${e(tip)}</title><rect x="${p.x}" y="${p.y}" width="${NODE_W}" height="${NODE_H}" rx="6" fill="${fill(n)}" stroke="${colour(s)}" stroke-width="${s === "auto-generated" ? 1 : 2.5}"${n.external ? ' stroke-dasharray="3 3"' : ""}/><text x="${p.x + 8}" y="${p.y + NODE_H / 2 + 4}">${e(clip(n.external ? n.id : n.title || n.id, limits.labelChars))}</text></g></a>`;
    }
    yield "</svg>";
    yield `<h2>Nodes (${placed.length})</h2>`;
    yield "<table><thead><tr><th>id</th><th>kind</th><th>version</th><th>title</th><th>review</th></tr></thead><tbody>";
    for (const [i, p] of placed.entries()) {
      const n = p.node;
      yield `<tr id="n${i}"><td><code>${e(n.id)}</code></td><td>${e(n.external ? "external" : n.kind)}</td><td>${n.external ? "" : `v${n.version}`}</td><td>${e(n.title)}</td><td><span class="s s-${e(statusOf(n.reviewStatus))}">${e(statusOf(n.reviewStatus))}</span></td></tr>`;
    }
    yield "</tbody></table>";
    if (edges.length) {
      yield `<h2>Edges (${edges.length})</h2>`;
      yield "<table><thead><tr><th>from</th><th>type</th><th>to</th><th>weight</th><th>valid from</th><th>review</th></tr></thead><tbody>";
      for (const g of edges)
        yield `<tr><td><a href="#n${at.get(g.src)?.i}"><code>${e(g.src)}</code></a></td><td>${e(g.type)}</td><td><a href="#n${at.get(g.dst)?.i}"><code>${e(g.dst)}</code></a></td><td>${Number(g.weight.toPrecision(4))}</td><td>${e(iso(g.validFrom))}</td><td><span class="s s-${e(statusOf(g.reviewStatus))}">${e(statusOf(g.reviewStatus))}</span></td></tr>`;
      yield "</tbody></table>";
    }
    yield "</body></html>";
    yield "";
  }
  return { parts: lines(), sep: "\n" };
}
