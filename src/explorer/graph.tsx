/**
 * The route drawn as a graph (cytoscape, breadth-first layout): mentions -> entities -> seed chunks,
 * then the router's steps over typed edges (coloured by type), nodes sized by diffusion mass.
 * Hovering or focusing a chunk shows its per-expert scores; the steps are also listed as a table
 * beside it, so the graph is never the only way to read the route.
 */
import cytoscape, { type Core, type ElementDefinition } from "cytoscape";
import { useEffect, useRef, useState } from "preact/hooks";
import type { TracedRoute as RouteResponse } from "../client";

const PALETTE = ["#0b72d9", "#c2410c", "#15803d", "#7c3aed", "#b91c1c", "#0e7490", "#a16207", "#be185d", "#4d7c0f"];

/** A stable colour per edge type. */
export function edgeColour(type: string): string {
  let h = 0;
  for (let i = 0; i < type.length; i++) h = (h * 31 + type.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length] ?? "#666";
}

interface Tip {
  x: number;
  y: number;
  lines: string[];
}

export function routeElements(route: RouteResponse): ElementDefinition[] {
  const t = route.trace;
  const els: ElementDefinition[] = [];
  const nodes = new Set<string>();
  const mass = new Map(t.diffusion.mass.map((m) => [m.chunk, m.mass]));
  const selected = new Set(route.selected.map((s) => s.chunk));
  const seeds = new Set(t.seeds.map((s) => s.chunk));
  const chunk = (id: string) => {
    if (nodes.has(id)) return;
    nodes.add(id);
    const m = mass.get(id) ?? 0;
    const cls = [selected.has(id) ? "selected" : "", seeds.has(id) ? "seed" : ""].join(" ").trim();
    els.push({
      data: {
        id: `c:${id}`,
        label: id.length > 28 ? `${id.slice(0, 27)}…` : id,
        chunk: id,
        size: 18 + Math.round(Math.sqrt(m) * 60),
      },
      classes: cls || "chunk",
    });
  };
  for (const [i, m] of t.mentions.entries()) {
    els.push({ data: { id: `m:${i}`, label: `“${m.text}”`, size: 16 }, classes: "mention" });
    if (!nodes.has(`e:${m.entity}`)) {
      nodes.add(`e:${m.entity}`);
      els.push({ data: { id: `e:${m.entity}`, label: m.entity, size: 18 }, classes: "entity" });
    }
    els.push({ data: { id: `me:${i}`, source: `m:${i}`, target: `e:${m.entity}`, type: m.via, colour: "#888" } });
  }
  for (const s of t.seeds) {
    chunk(s.chunk);
    for (const r of s.reasons)
      if (r.startsWith("entity:") && nodes.has(`e:${r.slice(7)}`))
        els.push({
          data: {
            id: `es:${r}:${s.chunk}`,
            source: `e:${r.slice(7)}`,
            target: `c:${s.chunk}`,
            type: "seed",
            colour: "#888",
          },
        });
  }
  for (const m of t.diffusion.mass.slice(0, 40)) chunk(m.chunk);
  for (const [i, step] of t.router_steps.entries()) {
    chunk(step.from);
    chunk(step.to);
    els.push({
      data: {
        id: `r:${i}`,
        source: `c:${step.from}`,
        target: `c:${step.to}`,
        type: step.edge_type,
        colour: edgeColour(step.edge_type),
        score: step.score,
      },
      classes: step.accepted ? "accepted" : "rejected",
    });
  }
  return els;
}

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

export function RouteGraph({ route, theme }: { route: RouteResponse; theme: string }) {
  const box = useRef<HTMLDivElement>(null);
  const cy = useRef<Core | null>(null);
  const [tip, setTip] = useState<Tip | null>(null);
  const tipRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const fg = cssVar("--fg", "#1b1f24");
    const bg = cssVar("--bg", "#ffffff");
    const acc = cssVar("--acc", "#0b5cad");
    const experts = new Map(route.candidates.map((c) => [c.chunk, c]));
    const graph = cytoscape({
      container: box.current,
      elements: routeElements(route),
      style: [
        {
          selector: "node",
          style: {
            label: "data(label)",
            width: "data(size)",
            height: "data(size)",
            "font-size": 10,
            color: fg,
            "text-valign": "bottom",
            "text-margin-y": 3,
            "background-color": "#9aa3ad",
            "text-background-color": bg,
            "text-background-opacity": 0.7,
          },
        },
        { selector: ".mention", style: { shape: "round-rectangle", "background-color": "#a16207" } },
        { selector: ".entity", style: { shape: "diamond", "background-color": "#7c3aed" } },
        { selector: ".seed", style: { "background-color": "#15803d" } },
        { selector: ".selected", style: { "border-width": 3, "border-color": acc, "background-color": acc } },
        {
          selector: "edge",
          style: {
            width: 2,
            "line-color": "data(colour)",
            "target-arrow-color": "data(colour)",
            "target-arrow-shape": "triangle",
            "curve-style": "bezier",
            label: "data(type)",
            "font-size": 8,
            color: fg,
            "text-rotation": "autorotate",
          },
        },
        { selector: "edge.rejected", style: { "line-style": "dashed", opacity: 0.5 } },
      ],
      layout: { name: "breadthfirst", directed: true, spacingFactor: 1.1, padding: 12 },
      wheelSensitivity: 0.4,
    });
    const show = (id: string, x: number, y: number) => {
      const c = experts.get(id);
      const mass = route.trace.diffusion.mass.find((m) => m.chunk === id)?.mass;
      const lines = [id];
      if (c) {
        lines.push(`v${c.version} · score ${c.score}`);
        lines.push(`sem ${c.experts.sem} · lex ${c.experts.lex} · sym ${c.experts.sym}`);
        lines.push(`graph ${c.experts.graph} · rec ${c.experts.rec} · thread ${c.experts.thread}`);
      }
      if (mass !== undefined) lines.push(`diffusion mass ${mass}`);
      setTip({ x, y, lines });
    };
    graph.on("mouseover tap", "node", (e) => {
      const id = e.target.data("chunk") as string | undefined;
      const p = e.target.renderedPosition();
      if (id) show(id, p.x, p.y);
    });
    graph.on("mouseout", "node", () => setTip(null));
    cy.current = graph;
    return () => {
      graph.destroy();
      cy.current = null;
    };
  }, [route, theme]);
  useEffect(() => {
    // Positioned through the CSSOM (allowed by the page's style-src 'self'; no style attribute).
    if (tipRef.current && tip) {
      tipRef.current.style.left = `${Math.round(tip.x + 12)}px`;
      tipRef.current.style.top = `${Math.round(tip.y + 12)}px`;
    }
  }, [tip]);
  return (
    <div class="graph-wrap">
      <div ref={box} class="graph" role="img" aria-label="Route graph: mentions, entities, seeds and router steps" />
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
