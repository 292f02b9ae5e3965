/**
 * The route drawn as a layered graph (cytoscape with the dagre layout, top to bottom): the query,
 * its mentions and their entities, the seeds, then one layer per router step depth; the seeds that
 * only the query reaches and that lead nowhere packed in rows beside the seed layer. Chunks are
 * coloured by their lead expert and sized by diffusion mass; steps are coloured by edge type and
 * dashed when rejected. Filters by expert and by edge type, a cap on the chunks shown (the heaviest
 * N, with a count of the hidden), labels on the selected and heaviest chunks only (hover or tap any
 * node for its id and per-expert scores), zoom and fit. The tables beside it list every step
 * whatever the filters, so the graph is never the only way to read the route.
 */
import cytoscape, { type Core, type ElementDefinition, type StylesheetJson } from "cytoscape";
import dagre from "cytoscape-dagre";
import type { RefObject } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { RouteResponse } from "../client";
import {
  EXPERT_COLOURS,
  EXPERT_NAMES,
  EXPERTS,
  type Expert,
  edgeColour,
  filterModel,
  type GraphFilter,
  type GraphView,
  LABEL_TOP,
  QUERY_ID,
  type RouteModel,
  routeModel,
  type Trace,
} from "./route-model";

cytoscape.use(dagre);

/** The graph's container, with its cytoscape instance for tests and for the zoom buttons. */
export interface GraphHost extends HTMLDivElement {
  cy?: Core;
}

/** The cap's choices; the default keeps the graph readable in the panel. */
export const CAPS = [20, 40, 80, 160, Number.POSITIVE_INFINITY] as const;
export const DEFAULT_CAP = 40;

interface Tip {
  x: number;
  y: number;
  lines: string[];
}

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/** 10 px for no mass to 40 px for the heaviest chunk shown (area grows with mass). */
const nodeSize = (mass: number, max: number) => 10 + Math.round(Math.sqrt(max > 0 ? mass / max : 0) * 30);

export function viewElements(view: GraphView, hasMentions: boolean): ElementDefinition[] {
  const els: ElementDefinition[] = [];
  const heaviest = Math.max(0, ...view.nodes.map((n) => n.mass));
  for (const n of view.nodes) {
    const cls: string[] = [n.kind];
    if (n.seed) cls.push("seed");
    if (n.selected) cls.push("selected");
    if (view.labelled.has(n.id)) cls.push("labelled");
    if (view.loose.has(n.id)) cls.push("loose");
    els.push({
      data: {
        id: n.id,
        label: n.label,
        size: n.kind === "chunk" ? nodeSize(n.mass, heaviest) : n.kind === "query" ? 22 : 16,
        colour: n.expert ? EXPERT_COLOURS[n.expert] : "#9aa3ad",
        ...(n.chunk ? { chunk: n.chunk } : {}),
        ...(n.expert ? { expert: n.expert } : {}),
      },
      classes: cls.join(" "),
    });
  }
  for (const e of view.edges) {
    if (view.loose.has(e.target)) continue;
    els.push({
      data: {
        id: e.id,
        source: e.source,
        target: e.target,
        type: e.type,
        colour: e.role === "step" ? edgeColour(e.type) : "#9aa3ad",
        // A seed joined straight to the query spans the mention and entity ranks.
        minLen: e.role === "seed" && e.source === QUERY_ID && hasMentions ? 3 : 1,
      },
      classes: `${e.role} ${e.accepted ? "accepted" : "rejected"}`,
    });
  }
  return els;
}

function styles(): StylesheetJson {
  const fg = cssVar("--fg", "#1b1f24");
  const bg = cssVar("--bg", "#ffffff");
  const acc = cssVar("--acc", "#0b5cad");
  return [
    {
      selector: "node",
      style: {
        width: "data(size)",
        height: "data(size)",
        "background-color": "data(colour)",
        "border-width": 1,
        "border-color": bg,
        "font-size": LABEL_PX,
        color: fg,
        "text-valign": "top",
        "text-halign": "center",
        "text-margin-y": -3,
        "text-background-color": bg,
        "text-background-opacity": 0.85,
        "text-background-padding": "1px",
        "min-zoomed-font-size": 5,
      },
    },
    {
      selector: "node.labelled",
      style: {
        label: "data(label)",
        "text-wrap": "wrap",
        "text-max-width": "150px",
      },
    },
    { selector: ".query", style: { shape: "star", "background-color": fg } },
    { selector: ".mention", style: { shape: "round-rectangle", "background-color": "#a16207" } },
    { selector: ".entity", style: { shape: "diamond", "background-color": "#7c3aed" } },
    { selector: "node.seed", style: { "border-width": 3, "border-style": "double", "border-color": fg } },
    { selector: "node.selected", style: { "border-width": 3, "border-style": "solid", "border-color": acc } },
    { selector: "node.loose", style: { opacity: 0.75 } },
    {
      selector: "edge",
      style: {
        width: 1.5,
        "line-color": "data(colour)",
        "target-arrow-color": "data(colour)",
        "target-arrow-shape": "triangle",
        "arrow-scale": 0.7,
        "curve-style": "bezier",
        opacity: 0.8,
      },
    },
    { selector: "edge.mention, edge.seed", style: { width: 1, opacity: 0.5 } },
    { selector: "edge.fan", style: { opacity: 0.25 } },
    { selector: "edge.step.accepted", style: { width: 2.5, opacity: 0.95 } },
    { selector: "edge.rejected", style: { "line-style": "dashed", opacity: 0.45 } },
  ];
}

/** The fitted zoom of a box of w x h in the viewport (what "readable" means here: larger is better). */
const fitZoom = (cy: Core, w: number, h: number) => Math.min(cy.width() / Math.max(w, 1), cy.height() / Math.max(h, 1));

const NODE_SEP = 10;
const RANK_SEP = 56;
/** Between the rows the packed seeds take. */
const ROW_SEP = 14;

interface Placed {
  node: cytoscape.NodeSingular;
  w: number;
  h: number;
}

/** Greedy rows of at most `width` (a node wider than that gets a row of its own), in order. */
function pack(rank: Placed[], width: number): Placed[][] {
  const rows: Placed[][] = [];
  let row: Placed[] = [];
  let used = 0;
  for (const p of rank) {
    if (row.length > 0 && used + NODE_SEP + p.w > width) {
      rows.push(row);
      row = [];
      used = 0;
    }
    used += (row.length > 0 ? NODE_SEP : 0) + p.w;
    row.push(p);
  }
  if (row.length > 0) rows.push(row);
  return rows;
}

const rowWidth = (row: Placed[]) => row.reduce((a, p) => a + p.w, 0) + NODE_SEP * Math.max(0, row.length - 1);
const rowHeight = (row: Placed[]) => Math.max(...row.map((p) => p.h));

/** Move a node so its box, label included, is centred at (x, y) (labels are drawn above nodes). */
function centreBox(node: cytoscape.NodeSingular, x: number, y: number): void {
  const bb = node.boundingBox({ includeLabels: true, includeOverlays: false });
  const pos = node.position();
  node.position({ x: x - ((bb.x1 + bb.x2) / 2 - pos.x), y: y - ((bb.y1 + bb.y2) / 2 - pos.y) });
}

/**
 * Top to bottom layers (dagre) for the route's structure; the seeds joined to the query alone that
 * lead nowhere (a route often seeds a hundred chunks by semantic similarity, most of which no step
 * leaves) are packed in rows, in order of mass, in a block to the left of the seed layer, as wide as
 * fits the box at the largest zoom: one layer of a hundred would shrink everything else to dots.
 * Returns the fitted zoom of the whole.
 */
function layered(cy: Core, nodes: cytoscape.NodeCollection, extraHeight: number): number {
  const fan = nodes.filter(
    (n) =>
      n.hasClass("chunk") &&
      n.outgoers("edge").empty() &&
      n.incomers("edge").length === 1 &&
      n.incomers("node").id() === QUERY_ID,
  );
  fan.incomers("edge").addClass("fan");
  const tree = nodes.not(fan);
  tree
    .union(tree.edgesWith(tree))
    .layout({
      name: "dagre",
      rankDir: "TB",
      nodeSep: NODE_SEP,
      rankSep: RANK_SEP,
      edgeSep: 4,
      nodeDimensionsIncludeLabels: true,
      minLen: (edge: cytoscape.EdgeSingular) => edge.data("minLen") as number,
      fit: false,
      animate: false,
    } as cytoscape.LayoutOptions)
    .run();
  // Dagre centres each node's box, label included, on its position: move the node down by half
  // its label's height so the box drawn is that box.
  const layers = new Map<number, cytoscape.NodeSingular[]>();
  tree.forEach((n) => {
    const y = Math.round(n.position("y"));
    layers.set(y, [...(layers.get(y) ?? []), n]);
    const bb = n.boundingBox({ includeLabels: true, includeOverlays: false });
    n.position("y", n.position("y") + (bb.h - n.boundingBox({ includeLabels: false, includeOverlays: false }).h) / 2);
  });
  // Dagre sizes a node by its box as cytoscape first measures it; a label measured wider once its
  // font is enlarged can reach into its neighbour by a pixel or two: push such nodes right.
  for (const layer of layers.values()) {
    layer.sort((a, b) => a.position("x") - b.position("x"));
    let edge = Number.NEGATIVE_INFINITY;
    for (const n of layer) {
      const bb = n.boundingBox({ includeLabels: true, includeOverlays: false });
      if (bb.x1 < edge + 2) n.position("x", n.position("x") + (edge + 2 - bb.x1));
      edge = n.boundingBox({ includeLabels: true, includeOverlays: false }).x2;
    }
  }
  const whole = () => {
    const bb = nodes.boundingBox({ includeLabels: true });
    return fitZoom(cy, bb.w, bb.h + extraHeight);
  };
  if (fan.empty()) return whole();
  // The block's top: a layer under the query, mentions and entities.
  const head = tree.filter((n) => !n.hasClass("chunk")).boundingBox({ includeLabels: true });
  const top = head.y2 + RANK_SEP;
  // Its right edge: left of every chunk of the tree (all of them lie below the head).
  const chunks = tree.filter((n) => n.hasClass("chunk"));
  const right = chunks.nonempty() ? chunks.boundingBox({ includeLabels: true }).x1 - 3 * NODE_SEP : null;
  const items: Placed[] = [];
  fan.forEach((node) => {
    const bb = node.boundingBox({ includeLabels: true, includeOverlays: false });
    items.push({ node, w: bb.w, h: bb.h });
  });
  items.sort((a, b) => (b.node.data("size") as number) - (a.node.data("size") as number));
  const all = rowWidth(items);
  const place = (width: number) => {
    const rows = pack(items, width);
    const blockW = Math.max(...rows.map(rowWidth));
    const x0 = right === null ? (head.x1 + head.x2) / 2 - blockW / 2 : right - blockW;
    let y = top;
    for (const row of rows) {
      const rh = rowHeight(row);
      let x = x0;
      for (const p of row) {
        centreBox(p.node, x + p.w / 2, y + rh / 2);
        x += p.w + NODE_SEP;
      }
      y += rh + ROW_SEP;
    }
    return whole();
  };
  let best = { zoom: 0, width: all };
  for (let k = 1; k <= 32; k++) {
    const width = Math.max(...items.map((p) => p.w), all / k);
    const zoom = place(width);
    if (zoom > best.zoom) best = { zoom, width };
  }
  return place(best.width);
}

/** Fit the drawing, but a small one is not blown up past this zoom (it is centred instead). */
const MAX_FIT_ZOOM = 1.25;
function fitAtMost(cy: Core): void {
  cy.fit(undefined, 16);
  if (cy.zoom() > MAX_FIT_ZOOM) {
    cy.zoom(MAX_FIT_ZOOM);
    cy.center();
  }
}

/** The labels' font size (px) on screen at 1:1. */
const LABEL_PX = 10;

/**
 * The layers for what the query reaches, then the loose chunks in a grid under them; then fit.
 * Fitted below 1:1, the labels would shrink with everything else: their font is enlarged so they
 * are drawn at about 10 px and the layers are laid out again around them (once: the zoom falls a
 * little).
 */
function layout(cy: Core): void {
  const loose = cy.nodes(".loose");
  const main = cy.nodes().not(loose);
  const cell = 36;
  const looseHeight = loose.nonempty() ? 40 + cell * Math.ceil(loose.length / 24) : 0;
  const zoom = layered(cy, main, looseHeight);
  if (zoom < 0.95) {
    const px = Math.min(24, Math.round(LABEL_PX / Math.max(zoom, 0.1)));
    cy.style().selector("node.labelled").style({ "font-size": px }).update();
    layered(cy, main, looseHeight);
  }
  if (loose.nonempty()) {
    const bb = main.boundingBox({ includeLabels: true });
    const width = Math.max(bb.w, 8 * cell);
    const cols = Math.max(1, Math.floor(width / cell));
    const rows = Math.ceil(loose.length / cols);
    loose
      .layout({
        name: "grid",
        boundingBox: { x1: bb.x1, y1: bb.y2 + 40, w: width, h: rows * cell },
        avoidOverlap: true,
        avoidOverlapPadding: 6,
        nodeDimensionsIncludeLabels: true,
        condense: true,
        cols,
        fit: false,
        animate: false,
        sort: (a, b) => (b.data("size") as number) - (a.data("size") as number),
      })
      .run();
  }
  fitAtMost(cy);
}

function Chip(props: {
  checked: boolean;
  onChange: (v: boolean) => void;
  colour: string;
  line?: boolean;
  children: preact.ComponentChildren;
  name: string;
  value: string;
}) {
  return (
    <label class="chip">
      <input
        type="checkbox"
        name={props.name}
        value={props.value}
        checked={props.checked}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
      <svg width="14" height="10" aria-hidden="true">
        {props.line ? (
          <line x1="0" y1="5" x2="14" y2="5" stroke={props.colour} stroke-width="3" />
        ) : (
          <circle cx="7" cy="5" r="5" fill={props.colour} />
        )}
      </svg>
      {props.children}
    </label>
  );
}

const toggle = <T,>(set: ReadonlySet<T>, v: T, on: boolean): Set<T> => {
  const next = new Set(set);
  if (on) next.add(v);
  else next.delete(v);
  return next;
};

/** The cytoscape drawing of `view` in `box`, redrawn when the view, theme or width changes; hover and tap set the tooltip. */
function useRouteCytoscape(
  box: RefObject<GraphHost>,
  props: { view: GraphView; route: RouteResponse; trace: Trace; theme: string; wide: boolean },
  setTip: (tip: Tip | null) => void,
) {
  const { view, route, trace, theme, wide } = props;
  useEffect(() => {
    const host = box.current;
    if (!host) return;
    host.style.height = "";
    const experts = new Map(route.candidates.map((c) => [c.chunk, c]));
    const mass = new Map(trace.diffusion.mass.map((m) => [m.chunk, m.mass]));
    const graph = cytoscape({
      container: host,
      elements: viewElements(view, trace.mentions.length > 0),
      style: styles(),
      layout: { name: "preset" },
      wheelSensitivity: 0.4,
      minZoom: 0.05,
      maxZoom: 4,
    });
    const t0 = performance.now();
    layout(graph);
    host.dataset.layoutMs = String(Math.round(performance.now() - t0));
    // A wide, flat route fitted to the box's width leaves its height empty: shrink the box to the
    // drawing (never below 12rem), through the CSSOM like the tooltip.
    const drawnHeight = graph.elements().renderedBoundingBox().h + 40;
    if (drawnHeight < host.clientHeight) {
      host.style.height = `${Math.max(192, Math.ceil(drawnHeight))}px`;
      graph.resize();
      fitAtMost(graph);
    }
    const show = (id: string, x: number, y: number) => {
      const c = experts.get(id);
      const lines = [id];
      if (c) {
        lines.push(`v${c.version} · score ${c.score}`);
        lines.push(`sem ${c.experts.sem} · lex ${c.experts.lex} · sym ${c.experts.sym}`);
        lines.push(`graph ${c.experts.graph} · rec ${c.experts.rec} · thread ${c.experts.thread}`);
      }
      const m = mass.get(id);
      if (m !== undefined) lines.push(`diffusion mass ${m}`);
      setTip({ x, y, lines });
    };
    graph.on("mouseover tap", "node", (e) => {
      const id = (e.target.data("chunk") as string | undefined) ?? (e.target.data("label") as string);
      const p = e.target.renderedPosition();
      show(id, p.x + host.offsetLeft, p.y + host.offsetTop);
    });
    graph.on("mouseout", "node", () => setTip(null));
    graph.on("viewport", () => setTip(null));
    host.cy = graph;
    return () => {
      graph.destroy();
      host.cy = undefined;
    };
  }, [view, theme, wide]);
}

type SetFilter = (update: (f: GraphFilter) => GraphFilter) => void;

/** The expert chips and, when the route has steps, the edge type chips and the rejected-steps switch. */
function GraphFilters({ model, filter, setFilter }: { model: RouteModel; filter: GraphFilter; setFilter: SetFilter }) {
  const presentExperts = EXPERTS.filter((e) => model.experts.has(e));
  return (
    <>
      <fieldset class="filters">
        <legend>Experts (lead expert of each chunk)</legend>
        {presentExperts.map((e) => (
          <Chip
            key={e}
            name="expert"
            value={e}
            colour={EXPERT_COLOURS[e]}
            checked={filter.experts.has(e)}
            onChange={(on) => setFilter((f) => ({ ...f, experts: toggle(f.experts, e as Expert, on) }))}
          >
            {EXPERT_NAMES[e]} <span class="muted">{model.experts.get(e)}</span>
          </Chip>
        ))}
      </fieldset>
      {model.edgeTypes.size > 0 && (
        <fieldset class="filters">
          <legend>Edge types (router steps)</legend>
          {[...model.edgeTypes].map(([type, count]) => (
            <Chip
              key={type}
              name="edge_type"
              value={type}
              line
              colour={edgeColour(type)}
              checked={filter.edgeTypes.has(type)}
              onChange={(on) => setFilter((f) => ({ ...f, edgeTypes: toggle(f.edgeTypes, type, on) }))}
            >
              {type} <span class="muted">{count}</span>
            </Chip>
          ))}
          <label class="chip">
            <input
              type="checkbox"
              name="rejected"
              checked={filter.rejected}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                setFilter((f) => ({ ...f, rejected: on }));
              }}
            />
            rejected steps (dashed)
          </label>
        </fieldset>
      )}
    </>
  );
}

/** The cap, the count of chunks shown, zoom, fit and the width switch. */
function GraphTools(props: {
  box: RefObject<GraphHost>;
  model: RouteModel;
  view: GraphView;
  filter: GraphFilter;
  setFilter: SetFilter;
  wide: boolean;
  onWide: (wide: boolean) => void;
}) {
  const { box, model, view, filter, setFilter, wide, onWide } = props;
  const zoom = (factor: number) => {
    const cy = box.current?.cy;
    if (!cy) return;
    cy.zoom({ level: cy.zoom() * factor, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
  };
  return (
    <div class="graph-tools">
      <label>
        Show top{" "}
        <select
          name="cap"
          value={String(filter.cap)}
          onChange={(e) => {
            const cap = Number(e.currentTarget.value);
            setFilter((f) => ({ ...f, cap }));
          }}
        >
          {CAPS.map((c) => (
            <option key={c} value={String(c)}>
              {Number.isFinite(c) ? c : "all"}
            </option>
          ))}
        </select>{" "}
        chunks by mass
      </label>
      <output data-testid="graph-count" aria-live="polite">
        {view.shown} of {model.chunks} chunks shown{view.hidden > 0 ? `, ${view.hidden} hidden` : ""}
      </output>
      <span class="grow" />
      <button type="button" onClick={() => zoom(1.25)} aria-label="Zoom in">
        +
      </button>
      <button type="button" onClick={() => zoom(0.8)} aria-label="Zoom out">
        −
      </button>
      <button
        type="button"
        onClick={() => {
          const cy = box.current?.cy;
          if (cy) fitAtMost(cy);
        }}
      >
        Fit
      </button>
      <button type="button" aria-pressed={wide} onClick={() => onWide(!wide)}>
        {wide ? "Beside the cards" : "Full width"}
      </button>
    </div>
  );
}

export function RouteGraph({
  route,
  trace,
  theme,
  wide,
  onWide,
}: {
  route: RouteResponse;
  trace: Trace;
  theme: string;
  wide: boolean;
  onWide: (wide: boolean) => void;
}) {
  const model: RouteModel = useMemo(() => routeModel(route, trace), [route, trace]);
  const [filter, setFilter] = useState<GraphFilter>(() => ({
    experts: new Set(EXPERTS),
    edgeTypes: new Set(model.edgeTypes.keys()),
    rejected: true,
    cap: DEFAULT_CAP,
  }));
  // A new route offers its own edge types: all checked again, the other choices kept.
  useEffect(() => setFilter((f) => ({ ...f, edgeTypes: new Set(model.edgeTypes.keys()) })), [model]);
  const view = useMemo(() => filterModel(model, filter), [model, filter]);
  const box = useRef<GraphHost>(null);
  const [tip, setTip] = useState<Tip | null>(null);
  const tipRef = useRef<HTMLDivElement>(null);
  useRouteCytoscape(box, { view, route, trace, theme, wide }, setTip);
  useEffect(() => {
    // Positioned through the CSSOM (allowed by the page's style-src 'self'; no style attribute).
    if (tipRef.current && tip) {
      tipRef.current.style.left = `${Math.round(tip.x + 12)}px`;
      tipRef.current.style.top = `${Math.round(tip.y + 12)}px`;
    }
  }, [tip]);
  return (
    <div class="graph-wrap" data-shown={view.shown} data-hidden={view.hidden}>
      <GraphFilters model={model} filter={filter} setFilter={setFilter} />
      <GraphTools
        box={box}
        model={model}
        view={view}
        filter={filter}
        setFilter={setFilter}
        wide={wide}
        onWide={onWide}
      />
      <div
        ref={box}
        class="graph"
        role="img"
        aria-label={`Route graph: query, mentions, entities, seeds and router steps; ${view.shown} of ${model.chunks} chunks shown`}
      />
      <p class="muted graph-key">
        ★ query · ▭ mention · ◆ entity · ● chunk, coloured by lead expert, sized by diffusion mass; double ring: seed;
        accent ring: selected; labels on the selected and the {LABEL_TOP} heaviest (hover or tap any node for its
        scores); chunks no shown step reaches sit in a grid below.
      </p>
      {tip && (
        <div ref={tipRef} class="tip" role="tooltip">
          {tip.lines.map((l) => (
            <div key={l}>{l}</div>
          ))}
        </div>
      )}
    </div>
  );
}
