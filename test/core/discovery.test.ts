import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  HIDDEN_GEM_RANK,
  LEXICAL_RESCUE,
  type PoolCandidate,
  rankPool,
  SORT_KEYS,
} from "../../src/core/research/rank-pool";
import { collectionStats, openAccessOf, paperYear, sourceName, titleWords } from "../../src/core/research/stats";

const WORDS = ["graph", "memory", "agents", "retrieval", "protein", "music", "rail", "coral", "chess", "noise"];

const poolArb = fc
  .array(
    fc.record({
      words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }),
      year: fc.option(fc.integer({ min: 1990, max: 2025 }), { nil: null }),
      similarity: fc.double({ min: -1, max: 1, noNaN: true }),
      bm25: fc.double({ min: 0, max: 30, noNaN: true }),
      citations: fc.option(fc.integer({ min: 0, max: 500 }), { nil: null }),
      poe: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
    { minLength: 1, maxLength: 40 },
  )
  .map((xs) =>
    xs.map(
      (x, i): PoolCandidate => ({
        id: `c${i}`,
        version: 1,
        text: x.words.join(" "),
        year: x.year,
        similarity: x.similarity,
        bm25: x.bm25,
        citations: x.citations,
        poe: x.poe,
        venues: [],
      }),
    ),
  );

const ids = (xs: Array<{ id: string }>) => xs.map((x) => x.id);

describe("rankPool", () => {
  it("every order is a permutation of the pool; sorts are monotone; MMR picks k then the rest", () => {
    fc.assert(
      fc.property(
        poolArb,
        fc.constantFrom("poe", "stable", "discovery", "balanced" as const),
        fc.integer({ min: 1, max: 12 }),
        (pool, mode, k) => {
          const all = ids(pool).sort();
          const plain = rankPool(pool, { mode, k });
          expect(ids(plain.items).sort()).toEqual(all);
          expect(plain.items.map((x) => x.combinedRank)).toEqual(plain.items.map((_, i) => i + 1));
          for (const sort of SORT_KEYS) {
            const r = rankPool(pool, { mode, sort, k });
            const v = r.items.map((x) => (sort === "citations" ? (x.citations ?? -1) : x[sort]));
            expect(v.every((x, i) => i === 0 || x <= (v[i - 1] as number))).toBe(true);
          }
          const m = rankPool(pool, { mode, mmr: true, k });
          expect(ids(m.items).sort()).toEqual(all);
          const picks = Math.min(k, pool.length);
          expect(m.items.slice(0, picks).map((x) => x.mmrRank)).toEqual(Array.from({ length: picks }, (_, i) => i + 1));
          expect(m.items.slice(picks).every((x) => x.mmrRank === null)).toBe(true);
          expect(m.mmrComparisons).toBeLessThanOrEqual(picks * pool.length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("MMR with λ = 1 is the route's relevance order (ties by combined); hidden gems are below rank 20 by novelty", () => {
    fc.assert(
      fc.property(poolArb, (pool) => {
        const m1 = rankPool(pool, { mode: "balanced", mmr: true, lambda: 1, k: pool.length });
        const poe = new Map(pool.map((p) => [p.id, p.poe]));
        const rel = (x: { id: string }) => poe.get(x.id) as number;
        const byRel = [...m1.items].sort((a, b) => rel(b) - rel(a) || b.combined - a.combined);
        expect(m1.items.map((x) => [rel(x), x.combined])).toEqual(byRel.map((x) => [rel(x), x.combined]));
        const gems = rankPool(pool, { mode: "balanced", view: "hidden_gems", k: 10 }).items;
        expect(gems.length).toBe(Math.max(0, pool.length - HIDDEN_GEM_RANK));
        expect(gems.every((x) => x.combinedRank > HIDDEN_GEM_RANK)).toBe(true);
        expect(gems.every((x, i) => i === 0 || x.novelty <= (gems[i - 1]?.novelty as number))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it("weights override the mode's; poe's combined is PoE over the pool's best", () => {
    const pool: PoolCandidate[] = [
      {
        id: "old",
        version: 1,
        text: "graph memory",
        year: 2000,
        similarity: 0.9,
        bm25: 9,
        citations: 3,
        poe: 0.5,
        venues: [],
      },
      {
        id: "new",
        version: 1,
        text: "music rail",
        year: 2020,
        similarity: 0.1,
        bm25: 1,
        citations: 0,
        poe: 0.25,
        venues: [],
      },
    ];
    expect(ids(rankPool(pool, { mode: "stable", k: 2 }).items)).toEqual(["old", "new"]);
    const r = rankPool(pool, { mode: "stable", weights: { similarity: 0, bm25: 0, novelty: 0 }, k: 2 });
    expect(r.weights).toEqual({ similarity: 0, recency: 0.2, novelty: 0, bm25: 0 });
    expect(ids(r.items)).toEqual(["new", "old"]);
    expect(rankPool(pool, { mode: "poe", k: 2 }).items.map((x) => x.combined)).toEqual([1, 0.5]);
    const canon = rankPool(pool, {
      mode: "poe",
      view: "canonical",
      canonical: { minCitations: 100, topShare: 0, venues: [] },
      k: 2,
    });
    expect(canon.items).toEqual([]);
  });
});

describe("rankPool: relevance before diversity", () => {
  const cand = (id: string, similarity: number, extra: Partial<PoolCandidate> = {}): PoolCandidate => ({
    id,
    version: 1,
    text: id.replace(/-/g, " "),
    year: 2020,
    similarity,
    bm25: 1,
    citations: 0,
    poe: 0.5,
    venues: [],
    ...extra,
  });

  it("property: every view, sort and MMR only returns candidates at or above the floor, or lexically rescued", () => {
    fc.assert(
      fc.property(poolArb, fc.double({ min: 0.01, max: 1, noNaN: true }), (pool, floor) => {
        const maxBm25 = Math.max(0, ...pool.map((p) => p.bm25));
        const passes = (p: { similarity: number; bm25: number }) =>
          Math.min(1, Math.max(0, p.similarity)) >= floor || (maxBm25 > 0 && p.bm25 >= LEXICAL_RESCUE * maxBm25);
        const kept = new Set(ids(pool.filter(passes)));
        const byId = new Map(pool.map((p) => [p.id, p]));
        for (const o of [
          { view: "canonical" as const },
          { view: "hidden_gems" as const },
          { sort: "novelty" as const },
          { mmr: true },
          {},
        ]) {
          const r = rankPool(pool, { mode: "discovery", k: 10, minSimilarity: floor, ...o });
          expect(r.items.every((x) => kept.has(x.id) && passes(byId.get(x.id) as PoolCandidate))).toBe(true);
          expect(r.relevant).toBe(kept.size);
          expect(r.pool).toBe(pool.length);
          if (!o.view) expect(ids(r.items).sort()).toEqual([...kept].sort());
        }
      }),
      { numRuns: 60 },
    );
  });

  it("under the floor, a candidate with at least half the pool's best BM25 stays (the query's words in its text)", () => {
    const pool = [
      cand("long-reference-with-the-phrase", 0.12, { bm25: 8 }),
      cand("on-topic", 0.5, { bm25: 10 }),
      cand("generic-word-match", 0.1, { bm25: 4 }),
    ];
    const r = rankPool(pool, { mode: "stable", k: 3, minSimilarity: 0.2 });
    expect(ids(r.items).sort()).toEqual(["long-reference-with-the-phrase", "on-topic"]);
  });

  it("a highly cited off-topic paper is canonical without a floor and gone with one", () => {
    const pool = [
      cand("adversarial-text-attacks", 0.45, { citations: 3, bm25: 9 }),
      cand("text-classifier-robustness", 0.3, { citations: 1, bm25: 6 }),
      cand("video-clip-retrieval", 0.02, { citations: 400, bm25: 1 }),
      cand("robot-navigation-graphs", 0, { citations: 90, bm25: 0 }),
    ];
    const off = rankPool(pool, { mode: "discovery", view: "canonical", k: 10 });
    expect(ids(off.items).slice(0, 2)).toEqual(["video-clip-retrieval", "robot-navigation-graphs"]);
    const on = rankPool(pool, { mode: "discovery", view: "canonical", k: 10, minSimilarity: 0.2 });
    expect(ids(on.items)).toEqual(["adversarial-text-attacks"]);
    expect([on.pool, on.relevant, on.minSimilarity]).toEqual([4, 2, 0.2]);
  });

  it("MMR's relevance is sim(p, q), the route's relevance: the most relevant paper first, not the best combined one", () => {
    // "fresh" wins the discovery mode's combined score (recency and novelty) but is barely on topic.
    const pool = [
      cand("graph-memory-agents", 0.9, { year: 2001, bm25: 2, poe: 0.9 }),
      cand("graph-memory-agents-survey", 0.85, { year: 2002, bm25: 2, poe: 0.85 }),
      cand("fresh-coral-chess", 0.25, { year: 2024, bm25: 9, poe: 0.3 }),
    ];
    const plain = rankPool(pool, { mode: "discovery", k: 3 });
    expect(plain.items[0]?.id).toBe("fresh-coral-chess");
    const m = rankPool(pool, { mode: "discovery", mmr: true, lambda: 0.9, k: 3 });
    expect(m.items[0]?.id).toBe("graph-memory-agents");
  });

  it("venue filter (ids or names, any case) and year range, an unknown year left out", () => {
    const pool = [
      cand("a", 0.5, { year: 2019, venues: ["venue:neurips", "NeurIPS"] }),
      cand("b", 0.5, { year: 2021, venues: ["venue:acl", "ACL"] }),
      cand("c", 0.5, { year: null, venues: ["venue:acl", "ACL"] }),
      cand("d", 0.5, { year: 2023, venues: [] }),
    ];
    const r = (o: Parameters<typeof rankPool>[1]) => ids(rankPool(pool, o).items).sort();
    expect(r({ mode: "stable", k: 4, venues: ["acl"] })).toEqual(["b", "c"]);
    expect(r({ mode: "stable", k: 4, venues: ["VENUE:NEURIPS"] })).toEqual(["a"]);
    expect(r({ mode: "stable", k: 4, yearFrom: 2020 })).toEqual(["b", "d"]);
    expect(r({ mode: "stable", k: 4, yearFrom: 2019, yearTo: 2021 })).toEqual(["a", "b"]);
    expect(r({ mode: "stable", k: 4, venues: ["acl"], yearTo: 2022 })).toEqual(["b"]);
  });
});

describe("collection statistics", () => {
  it("year, source name, title words and open access as documented", () => {
    expect(paperYear(["x", "year:1999"], Date.parse("2020-01-01"))).toBe(1999);
    expect(paperYear([], Date.parse("2020-07-01"))).toBe(2020);
    // Imported without a date: no year, not the import's; a year a merge brought is the year.
    expect(paperYear(["year:unknown"], Date.parse("2026-12-03"))).toBeNull();
    expect(paperYear(["year:unknown", "year:2021"], Date.parse("2026-12-03"))).toBe(2021);
    expect(sourceName("https://www.OpenAlex.org/W1")).toBe("openalex.org");
    expect(sourceName("doi:10.1/x")).toBe("doi");
    expect(sourceName("papers.jsonl#12")).toBe("papers.jsonl");
    expect(sourceName("  ")).toBe("(none)");
    expect(titleWords("The Graph, the GRAPH and 2024 of a RAG")).toEqual(["graph", "rag"]);
    expect(openAccessOf(false, ["open-access"], "https://arxiv.org/abs/1")).toBe(false);
    expect(openAccessOf(undefined, [], "https://arxiv.org/abs/1")).toBe(true);
    expect(openAccessOf(undefined, [], "doi:10.1/x")).toBeNull();
  });

  it("citation summary equals a direct computation", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 30 }), (cs) => {
        const st = collectionStats(
          cs.map((c, i) => ({
            chunk: `p${i}`,
            title: "t",
            boundaries: [],
            validFrom: 0,
            source: "",
            authors: [],
            venues: [],
            citations: c,
            citationsFrom: "cites" as const,
            openAccess: null,
          })),
        );
        const sorted = [...cs].sort((a, b) => a - b);
        const n = cs.length;
        expect(st.citations.total).toBe(cs.reduce((a, b) => a + b, 0));
        expect(st.citations.min).toBe(n ? sorted[0] : null);
        expect(st.citations.max).toBe(n ? sorted[n - 1] : null);
        const median =
          n === 0
            ? null
            : n % 2
              ? sorted[(n - 1) / 2]
              : ((sorted[n / 2 - 1] as number) + (sorted[n / 2] as number)) / 2;
        expect(st.citations.median).toBe(median);
        expect(st.insights.citation_leader?.citations ?? null).toBe(n ? sorted[n - 1] : null);
      }),
    );
  });
});
