import { describe, expect, it } from "vitest";
import { CapitalStore, route } from "../../src/core/capital";
import { type ArtifactInput, planIngest, prepareBatch } from "../../src/core/ingest";
import { findNames, groundContent, titleConcept } from "../../src/core/text/grounding";
import { DEFAULT_PARAMS, type RouteInput } from "../../src/core/types";
import { ingestInto } from "../fixtures/ingest-state";
import { cpuNow } from "./cpu-clock";

const names = (t: string) => findNames(t).map((m) => m.text);

describe("names in plain text", () => {
  it("finds capitalised names with joiners, splits lists joined by 'and', skips sentence openers", () => {
    const t =
      "Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer. However, Scott Derrickson and Ed Wood met at the University of Chicago in May. Born in Denver, he stayed.";
    const got = names(t);
    for (const n of [
      "Kiss and Tell",
      "Shirley Temple",
      "Corliss Archer",
      "Scott Derrickson",
      "Ed Wood",
      "University of Chicago",
    ])
      expect(got).toContain(n);
    for (const n of ["However", "May", "Born", "Born in Denver", "University of Chicago in May"])
      expect(got).not.toContain(n);
  });

  it("keeps exact spans of the content and bounds names and spans per version", () => {
    const t = "Alice Smith met Bob Jones. Alice Smith left.";
    const g = groundContent(t);
    const alice = g.find((x) => x.id === "concept:alice-smith");
    expect(alice?.spans.map(([a, b]) => t.slice(a, b))).toEqual(["Alice Smith", "Alice Smith"]);
    const many = Array.from({ length: 300 }, (_, i) => `Person${String.fromCharCode(65 + (i % 26))}${i} arrived.`).join(
      " ",
    );
    expect(groundContent(many).length).toBeLessThanOrEqual(48);
  });

  it("names the concept of a title without its parenthetical; sentences own nothing", () => {
    expect(titleConcept("Doctor Strange (2016 film)")).toBe("concept:doctor-strange");
    expect(titleConcept("The")).toBeNull();
    expect(
      titleConcept("this title is really a whole sentence that goes on for many more words than names do"),
    ).toBeNull();
  });

  it("scans in linear time (pathological inputs grow ~linearly, not quadratically)", () => {
    const once = (s: string) => {
      const t0 = cpuNow();
      findNames(s);
      groundContent(s);
      return cpuNow() - t0;
    };
    // The best of three runs, so a garbage collection in one run does not decide.
    const time = (s: string) => Math.min(once(s), once(s), once(s));
    for (const unit of ["Aa ", "Aa of ", "A", " ", "Aa'", "of the and ", "X.Y.Z.", "Aa: "]) {
      time(unit.repeat(2000));
      const small = Math.max(5, time(unit.repeat(5_000)));
      const big = time(unit.repeat(80_000));
      // 16x the input: linear growth is ~16x, quadratic ~256x; 100x leaves room for garbage
      // collection and a loaded machine (measured alone: 6-30x).
      expect(big / small).toBeLessThan(100);
    }
  }, 60_000);
});

const ingest = ingestInto;
const q = (over: Partial<RouteInput>): RouteInput => ({
  mentions: [],
  identifiers: [],
  boundaries: [],
  semantic: [],
  querySketch: new Uint8Array(32),
  asOf: 1e7,
  now: 1e7,
  limit: 10,
  ...over,
});

describe("grounding at ingest links chunks", () => {
  const film: ArtifactInput = {
    id: "p1",
    kind: "note",
    title: "Kiss and Tell (1945 film)",
    content: "Kiss and Tell is a 1945 American comedy film starring Shirley Temple as Corliss Archer.",
    valid_from: 1000,
  };
  const actress: ArtifactInput = {
    id: "p2",
    kind: "note",
    title: "Shirley Temple",
    content: "Shirley Temple Black was an American actress, singer, dancer, and diplomat.",
    valid_from: 2000,
  };

  for (const [label, order] of [
    ["named chunk first", [actress, film]],
    ["naming chunk first", [film, actress]],
  ] as const) {
    it(`adds a mentions edge from the naming chunk to the titled one (${label})`, async () => {
      const s = new CapitalStore(DEFAULT_PARAMS);
      await ingest(s, [order[0]], 5000);
      await ingest(s, [order[1]], 6000);
      const out = s.neighbours("p1", 1e7).filter((n) => n.type === "mentions" && n.direction === "out");
      expect(out.map((n) => n.chunk)).toEqual(["p2"]);
      // The second hop is reached through the edge: a query naming only the film finds the actress.
      const r = route(s, q({ mentions: ["kiss and tell"] }));
      expect(r.selected.map((x) => x.chunk)).toContain("p2");
      expect(r.trace.routerSteps.some((st) => st.from === "p1" && st.to === "p2" && st.edgeType === "mentions")).toBe(
        true,
      );
    });
  }

  it("grounds names without changing the artifact hash: re-ingesting is a no-op", async () => {
    const s = new CapitalStore(DEFAULT_PARAMS);
    const first = await ingest(s, [film], 5000);
    expect(first.versions[0]?.mentions.map((m) => m.entity)).toContain("concept:shirley-temple");
    const prep = prepareBatch([film]);
    if (!prep.ok) throw new Error("prep");
    const existing = {
      chunks: new Map([
        [
          "p1",
          {
            chunkId: "p1",
            latestVersion: 1,
            artifactHash: first.versions[0]?.artifactHash ?? "",
            validFrom: 1000,
            deprecatedAt: null,
            openEdges: [],
          },
        ],
      ]),
      entities: new Set<string>(),
      aliases: new Set<string>(),
    };
    const again = await planIngest("a", prep.value, existing, 7000, async () => "");
    expect(again.ok && again.value.results[0]?.status).toBe("unchanged");
  });

  it("resolves a grounded name in a query to its concept, and a declared alias wins over a concept", async () => {
    const s = new CapitalStore(DEFAULT_PARAMS);
    await ingest(
      s,
      [
        { ...actress },
        {
          id: "m",
          kind: "note",
          title: "Method",
          content: "We describe HippoRAG here.",
          entities: [{ type: "method", name: "HippoRAG" }],
          valid_from: 1000,
        },
        {
          id: "n",
          kind: "note",
          title: "Note",
          content: "Later, HippoRAG was compared with Shirley Temple.",
          valid_from: 3000,
        },
      ],
      5000,
    );
    expect(s.resolve("shirley temple", 1e7)?.entity).toBe("concept:shirley-temple");
    expect(s.neighbours("n", 1e7).some((x) => x.chunk === "p2" && x.type === "mentions")).toBe(true);
    const r = route(s, q({ mentions: ["hipporag"] }));
    expect(r.trace.mentions[0]?.entity).toBe("method:hipporag");
    expect(r.selected.map((x) => x.chunk)).toEqual(expect.arrayContaining(["m", "n"]));
  });
});

describe("edge validity is exact", () => {
  it("uses an edge from the millisecond its version starts (no rounding to minutes)", () => {
    const s = new CapitalStore(DEFAULT_PARAMS);
    const at = 1_700_000_000_123;
    for (const c of ["x", "y"])
      s.apply({
        op: "head.upsert",
        chunk: c,
        kind: "note",
        version: 1,
        validFrom: at - 5000,
        recordedAt: at - 5000,
        entities: [],
        boundaries: [],
        sketch: "",
      });
    s.apply({ op: "edge.upsert", src: "x", dst: "y", type: "cites", weight: 1, validFrom: at, validTo: null });
    expect(s.neighbours("x", at - 1)).toEqual([]);
    expect(s.neighbours("x", at + 1).map((n) => n.chunk)).toEqual(["y"]);
    const rebuilt = CapitalStore.deserialize(s.serialize());
    expect(rebuilt.neighbours("x", at + 1).map((n) => n.chunk)).toEqual(["y"]);
    expect(rebuilt.neighbours("x", at - 1)).toEqual([]);
  });
});
