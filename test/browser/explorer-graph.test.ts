/**
 * The route graph at 142 chunks and the card's claim: the page's `POST …/route` is answered with a
 * synthetic route (./route-fixture.ts; `/context` and everything else stays the real local
 * Worker's), and the cytoscape instance on the graph's container is read for positions, classes and
 * edge types.
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import type { Core } from "cytoscape";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ask, fx, signIn, useExplorer } from "./fixture";
import { EDGE_TYPES, fanRoute, syntheticRoute } from "./route-fixture";

useExplorer();

/** The graph's container: src/explorer/graph.tsx puts its cytoscape instance there. */
type GraphHost = { cy?: Core };

const SHOTS = join(import.meta.dirname, "..", "..", "test-results", "explorer");
const synthetic = syntheticRoute();
const routeBodies: Array<Record<string, unknown>> = [];

interface Box {
  id: string;
  classes: string[];
  expert: string | null;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** The drawn graph: every node's box (labels included, model coordinates) and every edge's type. */
async function drawn(
  p: Page,
): Promise<{ nodes: Box[]; edges: Array<{ type: string; source: string; target: string }> }> {
  return p.locator(".graph").evaluate((el) => {
    const cy = (el as GraphHost).cy;
    if (!cy) throw new Error("no cytoscape instance on .graph");
    return {
      nodes: cy.nodes().map((n) => {
        const bb = n.boundingBox({ includeLabels: true, includeOverlays: false });
        return {
          id: n.id(),
          classes: n.classes(),
          expert: (n.data("expert") as string | undefined) ?? null,
          x1: bb.x1,
          y1: bb.y1,
          x2: bb.x2,
          y2: bb.y2,
        };
      }),
      edges: cy
        .edges()
        .map((e) => ({ type: e.data("type") as string, source: e.source().id(), target: e.target().id() })),
    };
  });
}

/** Pairs of node boxes that overlap by more than half a pixel on both axes. */
function overlaps(nodes: Box[]): string[] {
  const bad: string[] = [];
  for (let i = 0; i < nodes.length; i++)
    for (let j = i + 1; j < nodes.length; j++) {
      const a = nodes[i] as Box;
      const b = nodes[j] as Box;
      const w = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
      const h = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
      if (w > 0.5 && h > 0.5) bad.push(`${a.id} × ${b.id} (${w.toFixed(1)}×${h.toFixed(1)})`);
    }
  return bad;
}

const chunks = (nodes: Box[]) => nodes.filter((n) => n.classes.includes("chunk"));
const count = (p: Page) => p.getByTestId("graph-count").textContent();

describe("route graph at 100+ nodes", () => {
  it("asks /route for its trace explicitly and draws the top 40 chunks by mass, the rest counted", async () => {
    await fx.page.route("**/v1/archives/*/route", async (r) => {
      routeBodies.push(r.request().postDataJSON() as Record<string, unknown>);
      await r.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(synthetic.route) });
    });
    await signIn(fx.page, fx.A.key);
    await ask(fx.page);
    await fx.page.locator(".graph canvas").first().waitFor();
    expect(routeBodies.length).toBeGreaterThan(0);
    for (const b of routeBodies) expect(b.include_trace).toBe(true);
    expect(synthetic.chunks.length).toBe(142);
    await expect.poll(() => count(fx.page)).toBe("40 of 142 chunks shown, 102 hidden");
    const g = await drawn(fx.page);
    expect(chunks(g.nodes).length).toBe(40);
    expect(overlaps(g.nodes)).toEqual([]);
    // Labels on the important chunks only: at most 16 of the 40.
    const labelled = chunks(g.nodes).filter((n) => n.classes.includes("labelled")).length;
    expect(labelled).toBeGreaterThan(0);
    expect(labelled).toBeLessThanOrEqual(16);
    await fx.page.locator(".graph").scrollIntoViewIfNeeded();
    await fx.page.locator(".graph").screenshot({ path: join(SHOTS, "route-graph-40.png") });
    await fx.page
      .locator("section", { has: fx.page.getByRole("heading", { name: "Route" }) })
      .screenshot({ path: join(SHOTS, "route-panel-40.png") });
  });

  it("shows all 142 chunks without two nodes (labels included) overlapping, and saves a screenshot", async () => {
    await fx.page.getByRole("button", { name: "Full width" }).click();
    await fx.page.locator("select[name=cap]").selectOption("Infinity");
    await expect.poll(() => count(fx.page)).toBe("142 of 142 chunks shown");
    await expect.poll(async () => chunks((await drawn(fx.page)).nodes).length).toBe(142);
    const g = await drawn(fx.page);
    // Query, 3 mentions, 3 entities.
    expect(g.nodes.length).toBe(149);
    expect(overlaps(g.nodes)).toEqual([]);
    // Laid out, the labels enlarged and laid out again.
    const ms = Number(await fx.page.locator(".graph").getAttribute("data-layout-ms"));
    console.info(`route graph: 149 nodes, ${g.edges.length} edges laid out in ${ms} ms`);
    expect(ms).toBeLessThan(3000);
    // Layered top to bottom: every edge points downwards (the synthetic route has no cycle).
    const at = new Map(g.nodes.map((n) => [n.id, (n.y1 + n.y2) / 2]));
    const backwards = g.edges.filter((e) => (at.get(e.source) ?? 0) >= (at.get(e.target) ?? 0));
    expect(backwards).toEqual([]);
    await fx.page.locator(".graph").scrollIntoViewIfNeeded();
    const path = join(SHOTS, "route-graph-142.png");
    await fx.page.locator(".graph").screenshot({ path });
    copyFileSync(path, "/tmp/expl-graph.png");
  });

  it("unchecking an expert removes its chunks; unchecking an edge type removes its steps and what only they reach", async () => {
    const before = await drawn(fx.page);
    expect(before.nodes.some((n) => n.expert === "sem")).toBe(true);
    await fx.page.getByRole("checkbox", { name: /^semantic/ }).uncheck();
    await expect.poll(async () => (await drawn(fx.page)).nodes.filter((n) => n.expert === "sem").length).toBe(0);
    const noSem = await drawn(fx.page);
    expect(chunks(noSem.nodes).length).toBeLessThan(142);
    expect(await count(fx.page)).toMatch(
      new RegExp(`^${chunks(noSem.nodes).length} of 142 chunks shown, \\d+ hidden$`),
    );
    expect(overlaps(noSem.nodes)).toEqual([]);
    await fx.page.getByRole("checkbox", { name: /^semantic/ }).check();

    const cut = EDGE_TYPES[0];
    expect(before.edges.some((e) => e.type === cut)).toBe(true);
    await fx.page.getByRole("checkbox", { name: new RegExp(`^${cut} \\d+$`) }).uncheck();
    await expect.poll(async () => (await drawn(fx.page)).edges.filter((e) => e.type === cut).length).toBe(0);
    const after = await drawn(fx.page);
    // Every chunk reached only over the unchecked type is gone; every remaining step target has a
    // drawn edge in.
    const reachedBy = new Map<string, Set<string>>();
    for (const s of synthetic.route.trace.router_steps) {
      const set = reachedBy.get(`c:${s.to}`) ?? new Set<string>();
      set.add(s.edge_type);
      reachedBy.set(`c:${s.to}`, set);
    }
    const ids = new Set(after.nodes.map((n) => n.id));
    const seeds = new Set(synthetic.route.trace.seeds.map((s) => `c:${s.chunk}`));
    const onlyCut = [...reachedBy].filter(([id, types]) => !seeds.has(id) && types.size === 1 && types.has(cut));
    expect(onlyCut.length).toBeGreaterThan(0);
    for (const [id] of onlyCut) expect(ids.has(id)).toBe(false);
    const targets = new Set(after.edges.map((e) => e.target));
    for (const id of ids) if (reachedBy.has(id) && !seeds.has(id)) expect(targets.has(id)).toBe(true);
    // Rejected steps off: no dashed edge left.
    await fx.page.getByRole("checkbox", { name: /^rejected steps/ }).uncheck();
    await expect
      .poll(() => fx.page.locator(".graph").evaluate((el) => (el as GraphHost).cy?.edges(".rejected").length))
      .toBe(0);
  });

  it("the step table still lists every step whatever the filters", async () => {
    const summary = fx.page.getByText(/^Router steps \(\d+\)$/);
    expect(await summary.textContent()).toBe(`Router steps (${synthetic.steps})`);
    await summary.click();
    const rows = summary.locator("xpath=..").locator("tbody tr");
    expect(await rows.count()).toBe(synthetic.steps);
  });

  it("zoom buttons change the zoom and Fit brings every node back into view", async () => {
    const zoom = () => fx.page.locator(".graph").evaluate((el) => (el as GraphHost).cy?.zoom() ?? 0);
    const z0 = await zoom();
    await fx.page.getByRole("button", { name: "Zoom in" }).click();
    expect(await zoom()).toBeCloseTo(z0 * 1.25, 5);
    await fx.page.getByRole("button", { name: "Zoom in" }).click();
    await fx.page.getByRole("button", { name: "Fit", exact: true }).click();
    const inside = await fx.page.locator(".graph").evaluate((el) => {
      const cy = (el as GraphHost).cy;
      if (!cy) return false;
      const bb = cy.elements().renderedBoundingBox();
      return bb.x1 >= -1 && bb.y1 >= -1 && bb.x2 <= cy.width() + 1 && bb.y2 <= cy.height() + 1;
    });
    expect(inside).toBe(true);
  });

  it("a route of 100 chunks seeded from the query alone packs them in rows: no overlap, readable zoom", async () => {
    const fan = fanRoute();
    await fx.page.unroute("**/v1/archives/*/route");
    await fx.page.route("**/v1/archives/*/route", (r) =>
      r.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(fan.route) }),
    );
    await fx.page.getByRole("button", { name: "Ask", exact: true }).click();
    await fx.page.locator("select[name=cap]").selectOption("Infinity");
    await fx.page.getByRole("checkbox", { name: /^rejected steps/ }).check();
    await expect.poll(() => count(fx.page)).toBe("108 of 108 chunks shown");
    await expect.poll(async () => chunks((await drawn(fx.page)).nodes).length).toBe(108);
    const g = await drawn(fx.page);
    expect(overlaps(g.nodes)).toEqual([]);
    // One layer of 100 seeds (about 28 px each with their ring and spacing: ~2,800 px) would fit
    // this ~1,230 px box at about 0.45; in rows it stays above 0.6.
    const zoom = await fx.page.locator(".graph").evaluate((el) => (el as GraphHost).cy?.zoom() ?? 0);
    expect(zoom).toBeGreaterThan(0.6);
    // The 100 sit in several rows, all below the entity and left of the chunks the entity seeded.
    const similar = g.nodes.filter((n) => n.id.startsWith("c:p:similar-"));
    const rows = new Set(similar.map((n) => Math.round((n.y1 + n.y2) / 2 / 10)));
    expect(rows.size).toBeGreaterThan(2);
    const entity = g.nodes.find((n) => n.id === "e:concept:gallu");
    const seeded = g.nodes.filter((n) => n.id === "c:p:gallu" || n.id === "c:p:lilu");
    for (const n of similar) {
      expect(n.y1).toBeGreaterThan(entity?.y2 ?? Number.POSITIVE_INFINITY);
      for (const s of seeded) expect(n.x2).toBeLessThan(s.x1);
    }
    await fx.page.locator(".graph").screenshot({ path: join(SHOTS, "route-graph-fan-108.png") });
  });

  it("cards show the claim first and prominent, the logic sketch after it, labelled", async () => {
    await fx.page.unroute("**/v1/archives/*/route");
    const card = fx.page.locator('li.card[data-chunk="decision:damping"]');
    const claim = card.getByTestId("claim");
    const text = await claim.textContent();
    expect(text).toContain("0.5");
    const real = await new (await import("../../src/client")).PaperGuruClient(fx.server.url, fx.A.key).context(
      fx.A.id,
      {
        query: "Which PageRank damping do we use?",
        budget_tokens: 1200,
      },
    );
    const apiCard = real.cards.find((c) => c.artifact_id === "decision:damping");
    expect(text).toBe(apiCard?.claim_boundary);
    // The claim right under the card's id, the sketch right after it in a smaller font; the claim
    // bold; nothing labelled "Boundary".
    expect(await card.locator("p.mono + p.claim").count()).toBe(1);
    const font = (l: ReturnType<Page["locator"]>) =>
      l.evaluate((el) => {
        const s = (
          globalThis as unknown as { getComputedStyle(e: unknown): { fontSize: string; fontWeight: string } }
        ).getComputedStyle(el);
        return { size: Number.parseFloat(s.fontSize), weight: s.fontWeight };
      });
    const claimFont = await font(claim);
    expect(claimFont.weight).toBe("600");
    if (apiCard?.logic_sketch) {
      expect(await card.locator("p.claim + p.sketch").count()).toBe(1);
      expect(claimFont.size).toBeGreaterThan((await font(card.getByTestId("sketch"))).size);
    }
    if (apiCard?.logic_sketch)
      expect(await card.getByTestId("sketch").textContent()).toBe(`Logic sketch ${apiCard.logic_sketch}`);
    expect(await card.textContent()).not.toContain("Boundary:");
  });
});
