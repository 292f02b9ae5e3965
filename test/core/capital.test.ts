import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { syntheticArchive } from "../../scripts/lib/synthetic";
import { CapitalStore, fullPpr, localPpr, route } from "../../src/core/capital";
import { toBase64 } from "../../src/core/sketch";
import { type ChangeOp, DEFAULT_PARAMS, type KernelParams, type RouteInput } from "../../src/core/types";

const SK = toBase64(new Uint8Array(32).fill(7));
const head = (
  chunk: string,
  version: number,
  validFrom: number,
  entities: string[] = [],
  kind: "paper" | "record" = "paper",
): ChangeOp => ({
  op: "head.upsert",
  chunk,
  kind,
  version,
  validFrom,
  recordedAt: validFrom,
  entities,
  boundaries: [],
  sketch: SK,
});
const edge = (src: string, dst: string, weight = 1, validFrom = 0): ChangeOp => ({
  op: "edge.upsert",
  src,
  dst,
  type: "cites",
  weight,
  validFrom,
  validTo: null,
});

function input(over: Partial<RouteInput>): RouteInput {
  return {
    mentions: [],
    identifiers: [],
    boundaries: [],
    semantic: [],
    querySketch: new Uint8Array(32),
    asOf: 1e13,
    now: 1e13,
    limit: 10,
    ...over,
  };
}

function build(ops: ChangeOp[], params: KernelParams = DEFAULT_PARAMS) {
  const s = new CapitalStore(params);
  for (const op of ops) s.apply(op);
  return s;
}

describe("versions", () => {
  it("exposes exactly one version per time window and nothing outside", () => {
    const s = build([head("c", 1, 100), head("c", 2, 200), { op: "head.deprecate", chunk: "c", at: 300, by: null }]);
    expect([50, 100, 150, 200, 250, 300, 400].map((t) => s.visibleVersion("c", t))).toEqual([0, 1, 1, 2, 2, 0, 0]);
  });

  it("filters by time before the top-M cut", () => {
    // 20 strong chunks valid only in the future, 3 weak ones valid now; topM = 5.
    const ops: ChangeOp[] = [
      { op: "entity.upsert", id: "method:x", type: "method", name: "X", at: 0 },
      { op: "alias.add", entity: "method:x", alias: "X", validFrom: 0, validTo: null },
    ];
    for (let i = 0; i < 20; i++) ops.push(head(`future${i}`, 1, 5000, ["method:x"]));
    for (let i = 0; i < 3; i++) ops.push(head(`now${i}`, 1, 10, ["method:x"]));
    const s = build(ops, { ...DEFAULT_PARAMS, topM: 5 });
    const r = route(s, input({ mentions: ["x"], asOf: 1000, now: 1000 }), { ...DEFAULT_PARAMS, topM: 5 });
    expect(r.candidates.map((c) => c.chunk).sort()).toEqual(["now0", "now1", "now2"]);
    expect(r.trace.filteredByTime).toBe(20);
  });

  it("property: version intervals never overlap and the visible one is the latest started", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 8 }),
        fc.option(fc.integer({ min: 1, max: 20000 })),
        (gaps, dep) => {
          const starts: number[] = [];
          let t = 0;
          for (const g of gaps) {
            t += g;
            starts.push(t);
          }
          const ops: ChangeOp[] = starts.map((st, i) => head("c", i + 1, st));
          const depAt = dep === null ? null : Math.max(dep, (starts[starts.length - 1] as number) + 1);
          if (depAt !== null) ops.push({ op: "head.deprecate", chunk: "c", at: depAt, by: null });
          const s = build(ops);
          for (let probe = 0; probe <= t + 25000; probe += 97) {
            const v = s.visibleVersion("c", probe);
            const expected = depAt !== null && probe >= depAt ? 0 : starts.filter((x) => x <= probe).length;
            expect(v).toBe(expected);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("experts", () => {
  it("stay within [0, 1] for a query naming many things (a pasted abstract)", () => {
    // 20 heads each carrying 3 of 30 names; the query names all 30.
    const ops: ChangeOp[] = [];
    for (let i = 0; i < 20; i++)
      ops.push(
        head(
          `c${i}`,
          1,
          0,
          [0, 1, 2].map((k) => `concept:name${(i * 3 + k) % 30}`),
        ),
      );
    const s = build(ops);
    const r = route(s, input({ mentions: Array.from({ length: 30 }, (_, k) => `name${k}`) }));
    expect(r.trace.mentions.length).toBe(30);
    expect(r.candidates.length).toBe(20);
    for (const c of r.candidates)
      for (const [name, v] of Object.entries(c.experts)) {
        expect(v, name).toBeGreaterThanOrEqual(0);
        expect(v, name).toBeLessThanOrEqual(1);
      }
  });
});

describe("graph expert degree exponent", () => {
  // Six seeds (they carry the query's name) all cite a hub; one of them also cites a leaf.
  const ops: ChangeOp[] = [
    { op: "entity.upsert", id: "concept:topic", type: "concept", name: "topic", at: 0 },
    { op: "alias.add", entity: "concept:topic", alias: "topic", validFrom: 0, validTo: null },
    head("hub", 1, 0),
    head("leaf", 1, 0),
  ];
  for (let i = 0; i < 6; i++) ops.push(head(`s${i}`, 1, 0, ["concept:topic"]), edge(`s${i}`, "hub"));
  ops.push(edge("s0", "leaf"));
  const expertsAt = (beta: number) => {
    const params = { ...DEFAULT_PARAMS, degreeExponent: beta };
    const s = build(ops, params);
    const r = route(s, input({ mentions: ["topic"] }), params);
    const c = (id: string) => r.candidates.find((x) => x.chunk === id);
    const slots = (id: string) => s.nbrCount[s.index.get(id) as number] as number;
    return { hub: c("hub"), leaf: c("leaf"), slots };
  };

  it("0 reads raw mass: the hub that collects from six seeds leads the leaf", () => {
    const { hub, leaf } = expertsAt(0);
    expect(hub && leaf).toBeTruthy();
    expect(hub?.mass as number).toBeGreaterThan(leaf?.mass as number);
    expect((hub?.experts.graph as number) / (leaf?.experts.graph as number)).toBeCloseTo(
      (hub?.mass as number) / (leaf?.mass as number),
      9,
    );
  });

  it("beta divides mass by slots^beta before the relative cut, so the hub's lead shrinks", () => {
    const raw = expertsAt(0);
    for (const beta of [0.5, 1]) {
      const { hub, leaf, slots } = expertsAt(beta);
      expect(slots("hub")).toBeGreaterThan(slots("leaf"));
      const ratio = (hub?.experts.graph as number) / (leaf?.experts.graph as number);
      const expected = (hub?.mass as number) / slots("hub") ** beta / ((leaf?.mass as number) / slots("leaf") ** beta);
      expect(ratio).toBeCloseTo(expected, 9);
      expect(ratio).toBeLessThan((raw.hub?.experts.graph as number) / (raw.leaf?.experts.graph as number));
      for (const c of [hub, leaf]) expect(c?.experts.graph as number).toBeLessThanOrEqual(1);
    }
  });
});

describe("entities", () => {
  const base: ChangeOp[] = [
    { op: "entity.upsert", id: "method:x", type: "method", name: "Old Name", at: 0 },
    { op: "alias.add", entity: "method:x", alias: "Old Name", validFrom: 0, validTo: null },
    { op: "alias.close", entity: "method:x", alias: "Old Name", at: 500 },
    { op: "alias.add", entity: "method:x", alias: "New Name", validFrom: 500, validTo: null },
    { op: "entity.upsert", id: "method:y", type: "method", name: "Y", at: 0 },
    { op: "alias.add", entity: "method:y", alias: "Y", validFrom: 0, validTo: null },
    head("cx", 1, 0, ["method:x"]),
    head("cy", 1, 0, ["method:y"]),
    { op: "entity.merge", from: "method:y", into: "method:x", at: 800 },
  ];

  it("resolves old and new names of a renamed entity at any time", () => {
    const s = build(base);
    for (const t of [100, 600, 2000]) {
      expect(s.resolve("Old Name", t)?.entity).toBe("method:x");
      expect(s.resolve("new name", t)?.entity).toBe("method:x");
    }
    expect(s.resolve("Old Name", 100)?.via).toBe("alias");
    expect(s.resolve("Old Name", 600)?.via).toBe("alias-historical");
    expect(s.resolve("method:x", 100)?.entity).toBe("method:x");
    // Paper ids in any written form resolve, also through an alias id of the same work.
    const p = build([
      { op: "entity.upsert", id: "arxiv:2104.06921", type: "paper", name: "Roots", at: 0 },
      { op: "alias.add", entity: "arxiv:2104.06921", alias: "openalex:W4225968159", validFrom: 0, validTo: null },
    ]);
    for (const form of ["arXiv:2104.06921v3", "https://arxiv.org/abs/2104.06921", "https://openalex.org/W4225968159"])
      expect(p.resolve(form, 10)?.entity).toBe("arxiv:2104.06921");
    expect(s.resolve("unknown thing", 100)).toBeNull();
  });

  it("merges redirect only from their time, and the survivor then finds the merged postings", () => {
    const s = build(base);
    expect(s.resolve("Y", 700)?.entity).toBe("method:y");
    expect(s.resolve("Y", 900)?.entity).toBe("method:x");
    const before = route(s, input({ mentions: ["new name"], asOf: 700, now: 700 }));
    expect(before.candidates.map((c) => c.chunk)).toEqual(["cx"]);
    const after = route(s, input({ mentions: ["new name"], asOf: 900, now: 900 }));
    expect(after.candidates.map((c) => c.chunk).sort()).toEqual(["cx", "cy"]);
  });
});

describe("neighbour tables", () => {
  it("keep at most K_r slots, the heaviest ones", () => {
    const ops: ChangeOp[] = [head("hub", 1, 0)];
    const weights = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1);
    for (const [i, w] of weights.entries()) ops.push(head(`n${i}`, 1, 0), edge("hub", `n${i}`, w));
    const s = build(ops);
    const out = s.neighbours("hub", 10).filter((n) => n.direction === "out");
    expect(out.length).toBe(DEFAULT_PARAMS.kr);
    const kept = out.map((n) => n.weight).sort((a, b) => a - b);
    expect(kept[0]).toBeGreaterThanOrEqual(100 - DEFAULT_PARAMS.kr + 1);
  });

  it("edges carry no mass outside their validity", () => {
    const s = build([
      head("a", 1, 0),
      head("b", 1, 0),
      { ...edge("a", "b", 1, 600_000) },
      { op: "edge.close", src: "a", dst: "b", type: "cites", at: 1_200_000 },
    ]);
    const seeds = new Map([[s.index.get("a") as number, 1]]);
    const b = s.index.get("b") as number;
    expect(localPpr(s, seeds, 300_000, DEFAULT_PARAMS).mass.get(b)).toBeUndefined();
    expect(localPpr(s, seeds, 900_000, DEFAULT_PARAMS).mass.get(b)).toBeGreaterThan(0);
    expect(localPpr(s, seeds, 1_300_000, DEFAULT_PARAMS).mass.get(b)).toBeUndefined();
  });
});

const graphArb = fc.record({
  n: fc.integer({ min: 2, max: 60 }),
  edges: fc.array(fc.tuple(fc.nat(59), fc.nat(59), fc.double({ min: 0.01, max: 5, noNaN: true })), { maxLength: 200 }),
  seeds: fc.array(fc.tuple(fc.nat(59), fc.double({ min: 0.01, max: 1, noNaN: true })), { minLength: 1, maxLength: 5 }),
});

function graphOps(g: { n: number; edges: Array<[number, number, number]> }): ChangeOp[] {
  const ops: ChangeOp[] = [];
  // Every third head is a record, arriving out of time order, so timelines are exercised too.
  for (let i = 0; i < g.n; i++)
    ops.push(
      i % 3 === 0
        ? head(`c${i}`, 1, (i * 7) % 11, [`method:e${i % 5}`], "record")
        : head(`c${i}`, 1, 0, [`method:e${i % 5}`]),
    );
  for (const [a, b, w] of g.edges) if (a < g.n && b < g.n) ops.push(edge(`c${a}`, `c${b}`, w));
  return ops;
}

describe("diffusion properties", () => {
  it("conserves mass: sum(g) + residual = 1, g >= 0, for any graph and seeds", () => {
    fc.assert(
      fc.property(graphArb, (g) => {
        const s = build(graphOps(g));
        const seeds = new Map<number, number>();
        for (const [i, w] of g.seeds) if (i < g.n) seeds.set(i, w);
        if (seeds.size === 0) return;
        for (const ppr of [localPpr(s, seeds, 10, DEFAULT_PARAMS), fullPpr(s, seeds, 10, DEFAULT_PARAMS)]) {
          let sum = ppr.residual;
          expect(ppr.residual).toBeGreaterThanOrEqual(0);
          for (const m of ppr.mass.values()) {
            expect(m).toBeGreaterThanOrEqual(0);
            sum += m;
          }
          expect(Math.abs(sum - 1)).toBeLessThan(1e-9);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("touches at most iterations x maxFrontier nodes", () => {
    const params = { ...DEFAULT_PARAMS, maxFrontier: 8, iterations: 5 };
    fc.assert(
      fc.property(graphArb, (g) => {
        const s = build(graphOps(g), params);
        const seeds = new Map(g.seeds.filter(([i]) => i < g.n).map(([i, w]) => [i, w] as [number, number]));
        if (seeds.size === 0) return;
        expect(localPpr(s, seeds, 10, params).touched).toBeLessThanOrEqual(
          params.iterations * params.maxFrontier + seeds.size,
        );
      }),
      { numRuns: 100 },
    );
  });

  it("replay is idempotent and snapshot + tail replay equals one pass", () => {
    fc.assert(
      fc.property(graphArb, fc.nat(1000), (g, cutSeed) => {
        const ops = graphOps(g);
        const q = input({ mentions: ["method e1", "e2"], semantic: [{ chunk: "c1", score: 0.5 }], asOf: 10, now: 10 });
        const once = build(ops);
        const twice = build([...ops, ...ops]);
        const cut = cutSeed % (ops.length + 1);
        const snap = CapitalStore.deserialize(build(ops.slice(0, cut)).serialize());
        for (const op of ops.slice(cut)) snap.apply(op);
        const a = JSON.stringify(route(once, q));
        expect(JSON.stringify(route(twice, q))).toBe(a);
        expect(JSON.stringify(route(snap, q))).toBe(a);
      }),
      { numRuns: 100 },
    );
  });
});

describe("local vs full diffusion at scale", () => {
  const arch = syntheticArchive({ heads: 2000, seed: 3 });
  const s = build(arch.ops);
  it("top-10 of local PPR agrees with full PPR (>= 85% at epsilon 1e-4, >= 70% at the default 1e-3)", () => {
    expect(agreement({ ...DEFAULT_PARAMS, pushEpsilon: 1e-4, maxFrontier: 4096 })).toBeGreaterThanOrEqual(0.85);
    expect(agreement(DEFAULT_PARAMS)).toBeGreaterThanOrEqual(0.7);
  });
  function agreement(params: KernelParams): number {
    let agree = 0;
    for (let q = 0; q < 20; q++) {
      const seeds = new Map<number, number>([
        [(q * 97) % 2000, 1],
        [(q * 389 + 5) % 2000, 0.5],
      ]);
      const top = (m: Map<number, number>) =>
        new Set(
          [...m.entries()]
            .sort((a, b) => b[1] - a[1] || a[0] - b[0])
            .slice(0, 10)
            .map(([k]) => k),
        );
      const a = top(localPpr(s, seeds, arch.end, params).mass);
      const b = top(fullPpr(s, seeds, arch.end, params).mass);
      agree += [...a].filter((k) => b.has(k)).length / 10;
    }
    return agree / 20;
  }

  it("local diffusion work does not grow with archive size", () => {
    // Same local structure, 50x more of it: a forest of identical citation communities.
    const forest = (communities: number) => {
      const ops: ChangeOp[] = [];
      for (let c = 0; c < communities; c++) {
        for (let i = 0; i < 20; i++) ops.push(head(`k${c}-${i}`, 1, 0));
        for (let i = 1; i < 20; i++)
          ops.push(edge(`k${c}-${i}`, `k${c}-${Math.floor(i / 2)}`), edge(`k${c}-${i}`, `k${c}-${(i * 7) % 20}`));
      }
      return build(ops);
    };
    const small = forest(50);
    const big = forest(2500);
    const seeds = (st: CapitalStore) => new Map([[st.index.get("k7-3") as number, 1]]);
    const ws = localPpr(small, seeds(small), 10, DEFAULT_PARAMS);
    const wb = localPpr(big, seeds(big), 10, DEFAULT_PARAMS);
    expect(big.size).toBe(50 * small.size);
    expect(wb.work).toBeLessThanOrEqual(ws.work * 1.5);
    expect(wb.touched).toBeLessThanOrEqual(ws.touched * 1.5);
    // The global iteration, by contrast, does ~50x the work.
    expect(fullPpr(big, seeds(big), 10, DEFAULT_PARAMS).work).toBeGreaterThan(
      40 * fullPpr(small, seeds(small), 10, DEFAULT_PARAMS).work,
    );
  });
});

describe("stats", () => {
  it("keeps bytes per head compact: < 580 B after a rebuild, live pools within 1.6x of that", () => {
    // 8 in-archive citations and 5 entity mentions per head: 16 neighbour slots of 17 bytes per head
    // (272 B; edge validity is exact epoch ms, a Float64 per slot).
    const live = build(syntheticArchive({ heads: 20000, seed: 5 }).ops);
    const rebuilt = CapitalStore.deserialize(live.serialize());
    expect(rebuilt.stats().heads).toBe(20000);
    expect(rebuilt.stats().bytesPerHead).toBeGreaterThan(50);
    expect(rebuilt.stats().bytesPerHead).toBeLessThan(580);
    const fresh = build(syntheticArchive({ heads: 20000, seed: 5 }).ops);
    expect(fresh.stats().bytesPerHead).toBeLessThan(1.6 * rebuilt.stats().bytesPerHead);
  }, 60_000);
});
