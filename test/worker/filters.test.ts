/**
 * Query filters applied before the top-M cut (kinds, boundaries, a part-of subtree, grounding,
 * similarity) and `follow`, the exact neighbours attached to each card, on route, context and expand.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const A = (id: string, kind: string, title: string, content: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind,
  title,
  content,
  valid_from: "2024-01-01",
  ...extra,
});

const ARTIFACTS = [
  A(
    "paper:ppr",
    "paper",
    "Personalized PageRank for retrieval",
    "We rank passages with personalized PageRank over a graph.",
    {
      boundaries: ["area:retrieval"],
    },
  ),
  A("sec:ppr/method", "section", "Method: PageRank damping", "The PageRank damping is 0.85 in every run.", {
    edges: [
      { type: "part-of", target: "paper:ppr" },
      { type: "cites", target: "tech:ppr" },
    ],
    boundaries: ["area:retrieval", "split:dev"],
  }),
  A("sec:ppr/method/seeds", "section", "Seeding PageRank", "PageRank seeds come from entity mentions.", {
    edges: [
      { type: "part-of", target: "sec:ppr/method" },
      { type: "cites", target: "tech:bm25" },
    ],
  }),
  A("sec:other/intro", "section", "Intro of another PageRank paper", "Another paper also uses PageRank.", {
    boundaries: ["split:dev"],
  }),
  A("tech:ppr", "technique", "Personalized PageRank technique", "Power iteration of PageRank with a restart vector."),
  A("tech:bm25", "technique", "BM25 PageRank hybrid technique", "Mix BM25 scores into PageRank seeds."),
  A("code:ppr.ts#ppr", "code_unit", "ppr()", "export function ppr(g, seeds) { /* PageRank power iteration */ }", {
    edges: [{ type: "implements", target: "tech:ppr", weight: 0.9 }],
  }),
];

const base = (id: string) => `/v1/archives/${id}`;

describe("filters and follow", () => {
  it("filters route and context before the cut, and attaches exact neighbours", async () => {
    const { id, key } = await newArchive("flt");
    expect((await api("POST", `${base(id)}/ingest`, { artifacts: ARTIFACTS }, key)).status).toBe(200);
    const route = async (filter: Record<string, unknown>) => {
      const r = await api(
        "POST",
        `${base(id)}/route`,
        { query: "PageRank", filter, limit: 20, include_trace: true },
        key,
      );
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return {
        candidates: r.body.candidates.map((c: { chunk: string }) => c.chunk).sort(),
        selected: r.body.selected.map((c: { chunk: string }) => c.chunk).sort(),
        excluded: r.body.trace.filtered_by_filter,
      };
    };
    const all = await route({});
    expect(all.candidates).toHaveLength(ARTIFACTS.length);

    const techniques = await route({ kinds: ["technique"] });
    expect(techniques.candidates).toEqual(["tech:bm25", "tech:ppr"]);
    // The router never selects what the filter excludes (code reached over implements, papers over part-of).
    expect(techniques.selected).toEqual(["tech:bm25", "tech:ppr"]);
    expect(techniques.excluded).toBeGreaterThan(0);

    expect((await route({ within: "paper:ppr" })).selected).toEqual([
      "paper:ppr",
      "sec:ppr/method",
      "sec:ppr/method/seeds",
    ]);
    expect((await route({ within: "sec:ppr/method" })).selected).toEqual(["sec:ppr/method", "sec:ppr/method/seeds"]);
    expect((await route({ grounded: true })).selected).toEqual(["tech:ppr"]);
    expect((await route({ boundaries_any: ["split:dev"] })).selected).toEqual(["sec:other/intro", "sec:ppr/method"]);
    expect((await route({ boundaries_all: ["split:dev", "area:retrieval"] })).selected).toEqual(["sec:ppr/method"]);
    expect((await route({ kinds: ["section"], boundaries_any: ["area:retrieval"] })).selected).toEqual([
      "sec:ppr/method",
    ]);
    expect((await route({ min_similarity: 1 })).selected.length).toBeLessThan(all.selected.length);
    expect((await route({ within: "no:such" })).selected).toEqual([]);
    // cited_by: what a chunk and its part-of subtree cite (exact; as of the query's time).
    expect((await route({ cited_by: "paper:ppr" })).selected).toEqual(["tech:bm25", "tech:ppr"]);
    expect((await route({ cited_by: "sec:ppr/method/seeds" })).selected).toEqual(["tech:bm25"]);
    expect((await route({ cited_by: "sec:ppr/method/seeds", kinds: ["paper"] })).selected).toEqual([]);
    expect((await route({ cited_by: "tech:ppr" })).selected).toEqual([]);
    // exclude: never returned, yet the paper still passes relevance to its sections over part-of.
    const without = await route({ exclude: ["paper:ppr", "no:such"] });
    expect(without.candidates).not.toContain("paper:ppr");
    expect(without.selected).not.toContain("paper:ppr");
    expect(without.selected).toEqual(expect.arrayContaining(["sec:ppr/method", "sec:ppr/method/seeds"]));
    expect((await route({ within: "paper:ppr", exclude: ["paper:ppr"] })).selected).toEqual([
      "sec:ppr/method",
      "sec:ppr/method/seeds",
    ]);

    // Context: the filter, and follow reads the exact implements edges into each technique.
    const ctx = await api(
      "POST",
      `${base(id)}/context`,
      {
        query: "PageRank technique",
        filter: { kinds: ["technique"] },
        follow: [{ type: "implements", direction: "in" }],
        budget_tokens: 2000,
      },
      key,
    );
    expect(ctx.status, JSON.stringify(ctx.body)).toBe(200);
    const byId = new Map(ctx.body.cards.map((c: { artifact_id: string }) => [c.artifact_id, c]));
    expect([...byId.keys()].sort()).toEqual(["tech:bm25", "tech:ppr"]);
    expect((byId.get("tech:ppr") as { follow: unknown }).follow).toEqual([
      { type: "implements", direction: "in", chunk: "code:ppr.ts#ppr", version: 1, weight: 0.9 },
    ]);
    expect((byId.get("tech:bm25") as { follow: unknown }).follow).toEqual([]);

    // Expand: filters what it can check itself; follow outwards from code.
    const ex = await api(
      "POST",
      `${base(id)}/expand`,
      {
        chunks: [{ id: "code:ppr.ts#ppr" }, { id: "paper:ppr" }],
        filter: { kinds: ["code_unit"] },
        follow: [{ type: "implements" }],
      },
      key,
    );
    expect(ex.body.cards.map((c: { artifact_id: string }) => c.artifact_id)).toEqual(["code:ppr.ts#ppr"]);
    expect(ex.body.cards[0].follow).toEqual([
      { type: "implements", direction: "out", chunk: "tech:ppr", version: 1, weight: 0.9 },
    ]);
    expect(ex.body.skipped).toEqual([{ chunk: "paper:ppr", reason: "filtered" }]);
    const ex2 = await api(
      "POST",
      `${base(id)}/expand`,
      { chunks: [{ id: "code:ppr.ts#ppr" }, { id: "paper:ppr" }], filter: { exclude: ["paper:ppr"] } },
      key,
    );
    expect(ex2.body.cards.map((c: { artifact_id: string }) => c.artifact_id)).toEqual(["code:ppr.ts#ppr"]);

    // Bad filters are a 400 naming the field.
    const bad = await api("POST", `${base(id)}/route`, { query: "x", filter: { kinds: ["poem"] } }, key);
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("filter.kinds.0");
    expect((await api("POST", `${base(id)}/route`, { query: "x", filter: { colour: "red" } }, key)).status).toBe(400);
    const tooMany = await api(
      "POST",
      `${base(id)}/route`,
      { query: "x", filter: { exclude: Array.from({ length: 1001 }, (_, i) => `c${i}`) } },
      key,
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.field).toBe("filter.exclude");
  });

  it("as_of applies to the subtree and to grounding", async () => {
    const { id, key } = await newArchive("flt2");
    await api("POST", `${base(id)}/ingest`, { artifacts: ARTIFACTS }, key);
    // The code moves away from the technique in 2025: tech:ppr is grounded before, not after.
    await api(
      "POST",
      `${base(id)}/ingest`,
      {
        artifacts: [
          {
            ...(ARTIFACTS[6] as Record<string, unknown>),
            edges: [],
            valid_from: "2025-01-01",
            content: "export function ppr() {}",
          },
        ],
      },
      key,
    );
    const grounded = async (as_of: string) =>
      (
        await api("POST", `${base(id)}/route`, { query: "PageRank", as_of, filter: { grounded: true } }, key)
      ).body.selected.map((c: { chunk: string }) => c.chunk);
    expect(await grounded("2024-06-01")).toEqual(["tech:ppr"]);
    expect(await grounded("2025-06-01")).toEqual([]);
  });
});
