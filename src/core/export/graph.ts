/**
 * The typed temporal graph as GraphML (well-formed XML) or Mermaid (capped, safe node ids), with the
 * review status of nodes and edges when the export read them (GraphML: `review_status` data; Mermaid:
 * the status in the label of a reviewed node or edge, a class per status on nodes, a linkStyle on edges).
 */
import { joinParts, type Parts } from "./parts";
import { EXPORT_LIMITS, type GraphEdge, type GraphNode, iso } from "./types";

/** Drop characters XML 1.0 cannot carry (controls except TAB/LF/CR, lone surrogates, U+FFFE/U+FFFF). */
function xmlChars(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const n = s.charCodeAt(i + 1);
      if (n >= 0xdc00 && n <= 0xdfff) {
        out += s.slice(i, i + 2);
        i++;
      }
      continue;
    }
    if (c >= 0xdc00 && c <= 0xdfff) continue;
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) continue;
    if (c === 0xfffe || c === 0xffff) continue;
    out += s[i];
  }
  return out;
}

export function xmlEscape(s: string): string {
  return xmlChars(s)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\r/g, "&#13;")
    .replace(/\n/g, "&#10;")
    .replace(/\t/g, "&#9;");
}

const NODE_KEYS = [
  ["kind", "string"],
  ["version", "int"],
  ["title", "string"],
  ["deprecated_at", "string"],
  ["external", "boolean"],
  ["review_status", "string"],
] as const;
const EDGE_KEYS = [
  ["type", "string"],
  ["weight", "double"],
  ["valid_from", "string"],
  ["valid_to", "string"],
  ["context", "string"],
  ["review_status", "string"],
] as const;

export function renderGraphml(
  graph: { nodes: GraphNode[]; edges: GraphEdge[] },
  meta: { archive: string; asOf: number },
): string {
  return joinParts(graphmlParts(graph, meta));
}

/** renderGraphml's lines, one part each (joined with line breaks). */
export function graphmlParts(
  graph: { nodes: GraphNode[]; edges: GraphEdge[] },
  meta: { archive: string; asOf: number },
): Parts {
  function* lines(): Generator<string, void, undefined> {
    yield '<?xml version="1.0" encoding="UTF-8"?>';
    yield '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">';
    for (const [k, t] of NODE_KEYS) yield `  <key id="n_${k}" for="node" attr.name="${k}" attr.type="${t}"/>`;
    for (const [k, t] of EDGE_KEYS) yield `  <key id="e_${k}" for="edge" attr.name="${k}" attr.type="${t}"/>`;
    yield `  <graph id="${xmlEscape(meta.archive)}" edgedefault="directed">`;
    yield `    <desc>${xmlEscape(`PaperGuru archive ${meta.archive}: chunks visible and edges valid at ${iso(meta.asOf)}`)}</desc>`;
    for (const n of graph.nodes) {
      yield `    <node id="${xmlEscape(n.id)}">`;
      yield `      <data key="n_kind">${xmlEscape(n.kind)}</data>`;
      yield `      <data key="n_version">${n.version}</data>`;
      yield `      <data key="n_title">${xmlEscape(n.title)}</data>`;
      if (n.deprecatedAt !== null) yield `      <data key="n_deprecated_at">${iso(n.deprecatedAt)}</data>`;
      yield `      <data key="n_external">${n.external}</data>`;
      if (n.reviewStatus !== undefined) yield `      <data key="n_review_status">${xmlEscape(n.reviewStatus)}</data>`;
      yield "    </node>";
    }
    for (const [i, e] of graph.edges.entries()) {
      yield `    <edge id="e${i}" source="${xmlEscape(e.src)}" target="${xmlEscape(e.dst)}">`;
      yield `      <data key="e_type">${xmlEscape(e.type)}</data>`;
      yield `      <data key="e_weight">${e.weight}</data>`;
      yield `      <data key="e_valid_from">${iso(e.validFrom)}</data>`;
      if (e.validTo !== null) yield `      <data key="e_valid_to">${iso(e.validTo)}</data>`;
      if (e.context) yield `      <data key="e_context">${xmlEscape(e.context)}</data>`;
      if (e.reviewStatus !== undefined) yield `      <data key="e_review_status">${xmlEscape(e.reviewStatus)}</data>`;
      yield "    </edge>";
    }
    yield "  </graph>";
    yield "</graphml>";
    yield "";
  }
  return { parts: lines(), sep: "\n" };
}

/** A Mermaid label inside `["..."]`: entity codes for the characters Mermaid would parse. */
export function mermaidLabel(s: string, max: number = EXPORT_LIMITS.mermaidLabelChars): string {
  const one = s.replace(/[\r\n\t]+/g, " ").trim();
  const clipped = one.length > max ? `${one.slice(0, max - 1)}…` : one;
  return clipped
    .replace(/#/g, "#35;")
    .replace(/&/g, "#38;")
    .replace(/"/g, "#quot;")
    .replace(/</g, "#lt;")
    .replace(/>/g, "#gt;")
    .replace(/`/g, "#96;")
    .replace(/\|/g, "#124;")
    .replace(/[[\]{}()]/g, (c) => `#${c.charCodeAt(0)};`);
}

/** Class names are identifiers: kinds are `[a-z_]`, anything else is folded to `_`. */
function className(kind: string): string {
  return `k_${kind.replace(/[^a-zA-Z0-9_]/g, "_")}`;
}

/**
 * Mermaid flowchart. Node ids are `n0, n1, …` (never the chunk id: ids hold `:`, `/`, `.`), labels are
 * entity-escaped. Capped at EXPORT_LIMITS.mermaidMaxNodes nodes (highest degree first, then id) and
 * mermaidMaxEdges edges among them; a comment says what was left out.
 */
export function renderMermaid(
  graph: { nodes: GraphNode[]; edges: GraphEdge[] },
  meta: { archive: string; asOf: number },
  limits: { maxNodes: number; maxEdges: number } = {
    maxNodes: EXPORT_LIMITS.mermaidMaxNodes,
    maxEdges: EXPORT_LIMITS.mermaidMaxEdges,
  },
): string {
  const degree = new Map<string, number>();
  for (const e of graph.edges) {
    degree.set(e.src, (degree.get(e.src) ?? 0) + 1);
    degree.set(e.dst, (degree.get(e.dst) ?? 0) + 1);
  }
  const kept = [...graph.nodes]
    .sort((a, b) => (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, limits.maxNodes)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const idOf = new Map(kept.map((n, i) => [n.id, `n${i}`]));
  const edges = graph.edges.filter((e) => idOf.has(e.src) && idOf.has(e.dst));
  const shownEdges = edges.slice(0, limits.maxEdges);
  const out: string[] = [
    `%% PaperGuru archive ${meta.archive.replace(/[\r\n]/g, " ")}, as of ${iso(meta.asOf)}`,
    `%% nodes ${kept.length} of ${graph.nodes.length}, edges ${shownEdges.length} of ${graph.edges.length}${kept.length < graph.nodes.length || shownEdges.length < graph.edges.length ? " (truncated: use format=graphml for the whole graph)" : ""}`,
    "flowchart LR",
  ];
  for (const n of kept) {
    const reviewed = n.reviewStatus && n.reviewStatus !== "auto-generated" ? ` · ${mermaidLabel(n.reviewStatus)}` : "";
    const label = n.external ? n.id : `${n.title} · ${n.id}@v${n.version}`;
    const shape = n.external ? [`(["`, `"])`] : [`["`, `"]`];
    // The status is kept whole after the clipped label.
    out.push(`  ${idOf.get(n.id)}${shape[0]}${mermaidLabel(label)}${reviewed}${shape[1]}`);
  }
  const linkStyles: string[] = [];
  for (const [i, e] of shownEdges.entries()) {
    const arrow = e.type === "deprecated-by" ? "-.->" : "-->";
    const reviewed = e.reviewStatus && e.reviewStatus !== "auto-generated" ? e.reviewStatus : null;
    const label = reviewed ? `${e.type} · ${reviewed}` : e.type;
    out.push(`  ${idOf.get(e.src)} ${arrow}|${mermaidLabel(label, 60)}| ${idOf.get(e.dst)}`);
    const style = reviewed ? REVIEW_LINK_STYLES[reviewed] : undefined;
    if (style) linkStyles.push(`  linkStyle ${i} ${style}`);
  }
  out.push(...linkStyles);
  const kinds = new Map<string, string[]>();
  for (const n of kept) {
    const k = n.external ? "external" : n.kind;
    kinds.set(k, [...(kinds.get(k) ?? []), idOf.get(n.id) as string]);
  }
  const palette = ["#e8f0fe", "#e6f4ea", "#fef7e0", "#fce8e6", "#f3e8fd", "#e4f7fb", "#fdf0e6", "#eceff1"];
  [...kinds.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .forEach(([k, ids], i) => {
      const style = k === "external" ? "fill:#ffffff,stroke-dasharray:3 3" : `fill:${palette[i % palette.length]}`;
      out.push(`  classDef ${className(k)} ${style}`, `  class ${ids.join(",")} ${className(k)}`);
    });
  // Review status: a second class on reviewed nodes (its border), after the kind classes.
  const byStatus = new Map<string, string[]>();
  for (const n of kept)
    if (n.reviewStatus && n.reviewStatus !== "auto-generated" && REVIEW_NODE_STYLES[n.reviewStatus])
      byStatus.set(n.reviewStatus, [...(byStatus.get(n.reviewStatus) ?? []), idOf.get(n.id) as string]);
  for (const [st, ids] of [...byStatus.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const cls = `r_${st.replace(/[^a-zA-Z0-9_]/g, "_")}`;
    out.push(`  classDef ${cls} ${REVIEW_NODE_STYLES[st]}`, `  class ${ids.join(",")} ${cls}`);
  }
  out.push("");
  return out.join("\n");
}

/** Mermaid styles of the review statuses (auto-generated keeps the default look). */
const REVIEW_NODE_STYLES: Record<string, string> = {
  "human-verified": "stroke:#1e8e3e,stroke-width:3px",
  "human-edited": "stroke:#1a73e8,stroke-width:3px",
  flagged: "stroke:#d93025,stroke-width:3px,stroke-dasharray:5 3",
};
const REVIEW_LINK_STYLES: Record<string, string> = {
  "human-verified": "stroke:#1e8e3e,stroke-width:2px",
  "human-edited": "stroke:#1a73e8,stroke-width:2px",
  flagged: "stroke:#d93025,stroke-width:2px,stroke-dasharray:5 3",
};
