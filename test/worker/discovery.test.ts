/**
 * Paper Circle's ranking modes, sorts, MMR and views on route and context (over the candidate pool),
 * and GET …/stats exact against a small fixture, as of a time, within a subtree, truncated.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const base = (id: string) => `/v1/archives/${id}`;

// 30 papers about graph retrieval, 1995-2024: 8 near-duplicates (p00-p07) and 22 on distinct topics.
const TOPICS = [
  "protein folding energy landscapes",
  "music genre tagging from audio",
  "traffic flow forecasting sensors",
  "legal contract clause extraction",
  "satellite crop yield estimation",
  "chess endgame tablebase compression",
  "wildfire smoke plume tracking",
  "compiler register allocation heuristics",
  "sign language gesture recognition",
  "ancient manuscript handwriting dating",
  "battery degradation lifetime prediction",
  "coral reef bleaching surveys",
  "earthquake aftershock sequence modelling",
  "recipe ingredient substitution",
  "spacecraft attitude control loops",
  "bird migration radar echoes",
  "medical billing fraud detection",
  "glacier retreat photogrammetry",
  "poetry meter scansion",
  "railway timetable rescheduling",
  "semiconductor wafer defect maps",
  "urban noise complaint mining",
];
const pid = (i: number) => `p${String(i).padStart(2, "0")}`;
const PAPERS = Array.from({ length: 30 }, (_, i) => {
  const dup = i < 8;
  const topic = dup ? "personalized pagerank seeds over entity graphs" : (TOPICS[i - 8] as string);
  const cites = i >= 1 && i <= 5 ? ["p10"] : i === 6 || i === 7 ? ["p11"] : [];
  return {
    id: pid(i),
    kind: "paper",
    title: `Graph retrieval with ${topic}${dup ? ` variant ${i}` : ""}`,
    content: `We study graph retrieval with ${topic}. ${dup ? "Seeds from entity mentions drive the walk." : `The ${topic} setting is new.`}`,
    valid_from: `${1995 + i}-06-01`,
    boundaries: [`year:${1995 + i}`],
    edges: cites.map((target) => ({ type: "cites", target })),
    ...(i === 12 ? { entities: [{ type: "venue", id: "venue:journal-of-canon", name: "Journal of Canon" }] } : {}),
  };
});

interface Item {
  chunk: string;
  rank: number;
  combined_rank: number;
  mmr_rank: number | null;
  year: number | null;
  similarity: number;
  recency: number;
  novelty: number;
  bm25: number;
  citations: number | null;
  citations_from: string | null;
  combined: number;
}

const nonIncreasing = (xs: number[]) => xs.every((x, i) => i === 0 || x <= (xs[i - 1] as number) + 1e-9);

describe("ranking modes, MMR and views over the candidate pool", () => {
  it("orders the pool as the mode, sort, MMR or view says, with per-item scores", async () => {
    const { id, key } = await newArchive("rank");
    expect((await api("POST", `${base(id)}/ingest`, { artifacts: PAPERS }, key)).status).toBe(200);
    const ann = await api("POST", `${base(id)}/chunks/p20/annotations`, { key: "citations", value: 120 }, key);
    expect(ann.status, JSON.stringify(ann.body)).toBe(201);
    const route = async (ranking?: Record<string, unknown>, limit = 30, query = "graph retrieval") => {
      const r = await api("POST", `${base(id)}/route`, { query, limit, ...(ranking ? { ranking } : {}) }, key);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body as {
        selected: Array<{ chunk: string }>;
        candidates: unknown[];
        ranking?: { items: Item[] } & Record<string, unknown>;
      };
    };

    const plain = await route();
    expect(plain.ranking).toBeUndefined();
    // mode poe alone adds the scores and leaves the order as it was.
    const poe = await route({ mode: "poe" });
    expect(poe.selected.map((s) => s.chunk)).toEqual(plain.selected.map((s) => s.chunk));
    expect(poe.ranking?.pool).toBe(30);
    expect(poe.ranking?.weights).toBeNull();

    // Eq. 3 with discovery's weights, item by item.
    const disc = await route({ mode: "discovery" });
    expect(disc.ranking?.weights).toEqual({ similarity: 0.3, recency: 0.1, novelty: 0.4, bm25: 0.2 });
    for (const x of disc.ranking?.items ?? [])
      expect(x.combined).toBeCloseTo(0.3 * x.similarity + 0.1 * x.recency + 0.4 * x.novelty + 0.2 * x.bm25, 3);
    expect(nonIncreasing((disc.ranking?.items ?? []).map((x) => x.combined))).toBe(true);
    expect(disc.selected.map((s) => s.chunk)).toEqual(disc.ranking?.items.map((x) => x.chunk));
    // Recency (Eq. 2) over the pool's years 1995-2024.
    const p29 = disc.ranking?.items.find((x) => x.chunk === "p29");
    const p00 = disc.ranking?.items.find((x) => x.chunk === "p00");
    expect([p29?.year, p29?.recency, p00?.year, p00?.recency]).toEqual([2024, 1, 1995, 0]);

    // A weight override: recency alone orders by year, newest first.
    const newest = await route({ mode: "stable", weights: { similarity: 0, recency: 1, novelty: 0, bm25: 0 } });
    expect(newest.selected.slice(0, 5).map((s) => s.chunk)).toEqual(["p29", "p28", "p27", "p26", "p25"]);

    // Sorts by one score.
    for (const key of ["recency", "novelty", "similarity", "bm25"] as const) {
      const r = await route({ mode: "balanced", sort: key });
      expect(nonIncreasing((r.ranking?.items ?? []).map((x) => x[key])), key).toBe(true);
    }
    // Citations: the annotation at as_of, else the in-archive cites in-degree.
    const byCites = (await route({ sort: "citations" })).ranking?.items ?? [];
    expect(byCites.slice(0, 3).map((x) => [x.chunk, x.citations, x.citations_from])).toEqual([
      ["p20", 120, "annotation"],
      ["p10", 5, "cites"],
      ["p11", 2, "cites"],
    ]);

    // MMR (Eq. 4) lowers the intra-list similarity of the top 10; its picks are ranked 1..k.
    // The query favours the 8 near-duplicates, so the plain top 10 repeats them.
    const dupQuery = "graph retrieval with personalized pagerank seeds over entity graphs";
    const noMmr = await route({ mode: "stable" }, 10, dupQuery);
    const withMmr = await route({ mode: "stable", mmr: true, lambda: 0.3 }, 10, dupQuery);
    expect(withMmr.ranking?.lambda).toBe(0.3);
    expect(withMmr.ranking?.items.map((x) => x.mmr_rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(withMmr.ranking?.intra_list_similarity as number).toBeLessThan(
      noMmr.ranking?.intra_list_similarity as number,
    );
    const dups = (r: typeof noMmr) => r.selected.filter((s) => Number(s.chunk.slice(1)) < 8).length;
    expect(dups(withMmr)).toBeLessThan(dups(noMmr));
    expect((await route({ mode: "discovery", mmr: true }, 10)).ranking?.lambda).toBe(0.5);

    // Views: hidden gems are below rank 20 by novelty; canonical by citations, thresholds as given.
    const gems = (await route({ mode: "balanced", view: "hidden_gems" })).ranking?.items ?? [];
    expect(gems).toHaveLength(10);
    expect(gems.every((x) => x.combined_rank > 20)).toBe(true);
    expect(nonIncreasing(gems.map((x) => x.novelty))).toBe(true);
    const canon = await route({ view: "canonical", canonical: { min_citations: 100, top_share: 0 } });
    expect(canon.ranking?.items.map((x) => x.chunk)).toEqual(["p20"]);
    const canon2 = await route({
      view: "canonical",
      canonical: { min_citations: 3, top_share: 0, venues: ["journal of canon"] },
    });
    expect(canon2.ranking?.items.map((x) => x.chunk)).toEqual(["p20", "p10", "p12"]);
    // Default: ≥ 50 citations or the pool's top 10% (3 of 30) by citations.
    expect((await route({ view: "canonical" })).ranking?.items.map((x) => x.chunk)).toEqual(["p20", "p10", "p11"]);

    // As of 2010 only p00-p15 exist; p20's annotation (set now) is not yet there.
    const old = await api(
      "POST",
      `${base(id)}/route`,
      { query: "graph retrieval", as_of: "2010-12-31", ranking: { sort: "citations" } },
      key,
    );
    expect(old.status).toBe(200);
    expect(old.body.ranking.pool).toBe(16);
    expect(old.body.ranking.items.find((x: Item) => x.chunk === "p20")).toBeUndefined();

    // Context expands in the ranking's order.
    const ctx = await api(
      "POST",
      `${base(id)}/context`,
      {
        query: "graph retrieval",
        budget_tokens: 3000,
        max_cards: 5,
        ranking: { mode: "stable", weights: { similarity: 0, recency: 1, novelty: 0, bm25: 0 } },
      },
      key,
    );
    expect(ctx.status, JSON.stringify(ctx.body)).toBe(200);
    expect(ctx.body.cards.map((c: { artifact_id: string }) => c.artifact_id)).toEqual([
      "p29",
      "p28",
      "p27",
      "p26",
      "p25",
    ]);
    expect(ctx.body.ranking.items[0].chunk).toBe("p29");
    // The context export renders the same ranked cards.
    const exp = await api(
      "POST",
      `${base(id)}/export/context`,
      {
        query: "graph retrieval",
        budget_tokens: 3000,
        max_cards: 5,
        format: "csv",
        ranking: { mode: "stable", weights: { similarity: 0, recency: 1, novelty: 0, bm25: 0 } },
      },
      key,
    );
    expect(exp.status).toBe(200);
    const order = ["p29", "p28", "p27", "p26", "p25"].map((p) => String(exp.body).indexOf(p));
    expect(order.every((x, i) => x >= 0 && (i === 0 || x > (order[i - 1] as number)))).toBe(true);
  });

  it("relevance before diversity: a similarity floor, venues and a year range narrow the pool first", async () => {
    const { id, key } = await newArchive("rankfloor");
    expect((await api("POST", `${base(id)}/ingest`, { artifacts: PAPERS }, key)).status).toBe(200);
    // p20 is the most cited paper and off the query's topic.
    expect(
      (await api("POST", `${base(id)}/chunks/p20/annotations`, { key: "citations", value: 120 }, key)).status,
    ).toBe(201);
    const query = "personalized pagerank seeds over entity graphs";
    const route = async (ranking: Record<string, unknown>) => {
      const r = await api("POST", `${base(id)}/route`, { query, limit: 30, ranking }, key);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body as {
        selected: Array<{ chunk: string }>;
        ranking: { items: Item[]; pool: number; relevant: number; min_similarity: number };
      };
    };
    const off = await route({ mode: "discovery", view: "canonical", min_similarity: 0 });
    expect(off.ranking.items[0]?.chunk).toBe("p20");
    expect(off.ranking.relevant).toBe(off.ranking.pool);
    const p20 = off.ranking.items[0] as Item;
    // The default floor (0.2) applies to a view; a floor above p20's similarity drops it.
    const on = await route({ mode: "discovery", view: "canonical" });
    expect(on.ranking.min_similarity).toBe(0.2);
    const floor = Math.min(0.9, p20.similarity + 0.05);
    const high = await route({ mode: "discovery", view: "canonical", min_similarity: floor });
    expect(high.ranking.items.find((x) => x.chunk === "p20")).toBeUndefined();
    expect(high.ranking.items.every((x) => x.similarity >= floor)).toBe(true);
    expect(high.ranking.relevant).toBeLessThan(high.ranking.pool);
    // mode poe alone keeps the route's order and applies no floor.
    expect((await route({ mode: "poe" })).ranking.min_similarity).toBe(0);

    // Context with a view returns fewer cards rather than off-topic ones.
    const ctx = await api(
      "POST",
      `${base(id)}/context`,
      { query, budget_tokens: 4000, max_cards: 10, ranking: { mode: "discovery", mmr: true, min_similarity: 0.4 } },
      key,
    );
    expect(ctx.status, JSON.stringify(ctx.body)).toBe(200);
    const relevant = ctx.body.ranking.relevant as number;
    expect(relevant).toBeGreaterThan(0);
    expect(relevant).toBeLessThan(10);
    expect(ctx.body.cards.length).toBeLessThanOrEqual(relevant);
    const sims = new Map((ctx.body.ranking.items as Item[]).map((x) => [x.chunk, x.similarity]));
    for (const c of ctx.body.cards as Array<{ artifact_id: string }>)
      expect(sims.get(c.artifact_id) ?? 0).toBeGreaterThanOrEqual(0.4);

    // Years and venues.
    const years = await route({ mode: "stable", year_from: 2005, year_to: 2007, min_similarity: 0 });
    expect(years.ranking.items.map((x) => x.chunk).sort()).toEqual(["p10", "p11", "p12"]);
    expect(years.selected.map((x) => x.chunk).sort()).toEqual(["p10", "p11", "p12"]);
    const venue = await route({ mode: "poe", venues: ["journal of canon"], min_similarity: 0 });
    expect(venue.selected.map((x) => x.chunk)).toEqual(["p12"]);
    const bad = await api("POST", `${base(id)}/route`, { query, ranking: { year_from: 2010, year_to: 2001 } }, key);
    expect([bad.status, bad.body.error.field]).toEqual([400, "ranking.year_to"]);
  });

  it("GET …/ranking/modes and …/ranking/modes/{mode} give the weights without a query", async () => {
    const { id, key } = await newArchive("modes");
    const all = await api("GET", `${base(id)}/ranking/modes`, undefined, key);
    expect(all.status).toBe(200);
    expect(all.body.modes.map((m: { mode: string }) => m.mode)).toEqual(["poe", "stable", "discovery", "balanced"]);
    expect(all.body.defaults).toMatchObject({ mode: "poe", min_similarity: 0.2, pool: 256, hidden_gem_rank: 20 });
    const one = await api("GET", `${base(id)}/ranking/modes/discovery`, undefined, key);
    expect(one.body).toMatchObject({
      mode: "discovery",
      weights: { similarity: 0.3, recency: 0.1, novelty: 0.4, bm25: 0.2 },
      lambda: 0.5,
    });
    expect((await api("GET", `${base(id)}/ranking/modes/poe`, undefined, key)).body.weights).toBeNull();
    const bad = await api("GET", `${base(id)}/ranking/modes/fast`, undefined, key);
    expect([bad.status, bad.body.error.field]).toEqual([400, "mode"]);
    const other = await newArchive("modes2");
    expect((await api("GET", `${base(id)}/ranking/modes`, undefined, other.key)).status).toBe(403);
  });

  it("refuses contradictory ranking inputs with a 400 naming the field", async () => {
    const { id, key } = await newArchive("rankbad");
    const bad = async (ranking: Record<string, unknown>, field: string) => {
      const r = await api("POST", `${base(id)}/route`, { query: "x", ranking }, key);
      expect(r.status).toBe(400);
      expect(r.body.error.field).toContain(field);
    };
    await bad({ weights: { recency: 1 } }, "weights");
    await bad({ mode: "stable", lambda: 0.5 }, "lambda");
    await bad({ mode: "stable", mmr: true, sort: "recency" }, "sort");
    await bad({ view: "hidden_gems", mmr: true }, "view");
    await bad({ mode: "fast" }, "mode");
    await bad({ mode: "stable", weights: { recency: -1 } }, "weights");
  });
});

const S = (id: string, title: string, valid_from: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: "paper",
  title,
  content: `${title}. A short abstract.`,
  valid_from,
  ...extra,
});
const person = (name: string) => ({ type: "person", id: `person:${name.toLowerCase()}`, name });
const venue = (name: string) => ({ type: "venue", id: `venue:${name.toLowerCase()}`, name });

const STATS_FIXTURE = [
  { id: "col:1", kind: "note", title: "Reading list", content: "A collection.", valid_from: "2019-01-01" },
  S("s1", "Graph Retrieval Networks", "2020-02-01", {
    boundaries: ["year:2020"],
    source: "https://arxiv.org/abs/2001.00001",
    entities: [person("Alice"), person("Bob"), venue("NeurIPS")],
    edges: [{ type: "part-of", target: "col:1" }],
  }),
  S("s2", "Graph Memory for Agents", "2020-05-01", {
    boundaries: ["year:2020"],
    source: "https://www.openalex.org/W2",
    entities: [person("Alice"), venue("NeurIPS")],
    edges: [
      { type: "cites", target: "s1" },
      { type: "part-of", target: "col:1" },
    ],
  }),
  S("s3", "Agents Remember", "2022-03-01", {
    source: "doi:10.1/xyz",
    entities: [person("Carol"), venue("ICML")],
    edges: [
      { type: "cites", target: "s1" },
      { type: "cites", target: "s2" },
    ],
  }),
  S("s4", "Retrieval Graph Agents Memory", "2021-01-01", {
    boundaries: ["year:2021", "open-access"],
    source: "https://arxiv.org/abs/2101.00004",
  }),
  { id: "sec:1", kind: "section", title: "Graph graph graph", content: "Not a paper.", valid_from: "2020-01-01" },
];

describe("GET …/stats", () => {
  it("is exact against the fixture, as of a time, within a subtree, truncated", async () => {
    const { id, key } = await newArchive("stats");
    const ing = await api("POST", `${base(id)}/ingest`, { artifacts: STATS_FIXTURE }, key);
    expect(ing.status, JSON.stringify(ing.body)).toBe(200);
    const annotate = async (chunk: string, body: Record<string, unknown>) =>
      expect((await api("POST", `${base(id)}/chunks/${chunk}/annotations`, body, key)).status).toBe(201);
    await annotate("s4", { key: "citations", value: 10, at: "2023-01-01" });
    await annotate("s3", { key: "open_access", value: false });

    const all = await api("GET", `${base(id)}/stats`, undefined, key);
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    const b = all.body;
    expect([b.papers, b.truncated]).toEqual([4, false]);
    expect(b.years).toEqual([
      { year: 2020, count: 2 },
      { year: 2021, count: 1 },
      { year: 2022, count: 1 },
    ]);
    expect(b.sources).toEqual([
      { source: "arxiv.org", count: 2 },
      { source: "doi", count: 1 },
      { source: "openalex.org", count: 1 },
    ]);
    expect(b.top_authors).toEqual([
      { entity: "person:alice", name: "Alice", count: 2 },
      { entity: "person:bob", name: "Bob", count: 1 },
      { entity: "person:carol", name: "Carol", count: 1 },
    ]);
    expect(b.top_venues).toEqual([
      { entity: "venue:neurips", name: "NeurIPS", count: 2 },
      { entity: "venue:icml", name: "ICML", count: 1 },
    ]);
    expect(b.title_keywords).toEqual([
      { term: "agents", count: 3 },
      { term: "graph", count: 3 },
      { term: "memory", count: 2 },
      { term: "retrieval", count: 2 },
      { term: "networks", count: 1 },
      { term: "remember", count: 1 },
    ]);
    expect(b.citations).toEqual({
      total: 13,
      mean: 3.25,
      median: 1.5,
      min: 0,
      max: 10,
      from_annotation: 1,
      from_cites: 3,
    });
    expect(b.insights).toMatchObject({
      peak_year: { year: 2020, count: 2 },
      primary_source: { source: "arxiv.org", count: 2, share: 0.5 },
      prolific_authors: [{ entity: "person:alice", name: "Alice", count: 2 }],
      citation_leader: { chunk: "s4", title: "Retrieval Graph Agents Memory", citations: 10 },
      hot_topics: ["agents", "graph", "memory", "retrieval", "networks"],
      open_access: { known: 3, open: 2, share: 0.6667 },
    });

    // As of mid-2021: s3 does not exist yet (nor its cites), s4's annotation is not yet set.
    const then = (await api("GET", `${base(id)}/stats?as_of=2021-06-01`, undefined, key)).body;
    expect(then.papers).toBe(3);
    expect(then.citations).toMatchObject({ total: 1, max: 1, from_annotation: 0, from_cites: 3 });
    expect(then.insights.citation_leader).toMatchObject({ chunk: "s1", citations: 1 });

    const within = (await api("GET", `${base(id)}/stats?within=col:1`, undefined, key)).body;
    expect([within.papers, within.top_authors[0]]).toEqual([2, { entity: "person:alice", name: "Alice", count: 2 }]);
    const sections = (await api("GET", `${base(id)}/stats?kinds=section,note`, undefined, key)).body;
    expect(sections.papers).toBe(2);
    const tagged = (await api("GET", `${base(id)}/stats?boundaries_any=year:2020,year:2021`, undefined, key)).body;
    expect(tagged.papers).toBe(3);
    const cut = (await api("GET", `${base(id)}/stats?limit=2`, undefined, key)).body;
    expect([cut.papers, cut.truncated]).toEqual([2, true]);

    // Works known only from a bibliography are left out unless asked for.
    const stub = {
      id: "doi:10.1/cited",
      kind: "paper",
      title: "A cited work",
      content: "A. Author. A cited work. 1999.",
      boundaries: ["reference-only"],
      valid_from: "1970-01-01",
    };
    expect((await api("POST", `${base(id)}/ingest`, { artifacts: [stub] }, key)).status).toBe(200);
    expect((await api("GET", `${base(id)}/stats`, undefined, key)).body.papers).toBe(4);
    expect((await api("GET", `${base(id)}/stats?references=include`, undefined, key)).body.papers).toBe(5);
    const only = (await api("GET", `${base(id)}/stats?references=only`, undefined, key)).body;
    expect([only.papers, only.years]).toEqual([1, []]);
    const cut2 = (await api("GET", `${base(id)}/stats?limit=4`, undefined, key)).body;
    expect([cut2.papers, cut2.truncated]).toEqual([4, false]);
    expect((await api("GET", `${base(id)}/stats?references=some`, undefined, key)).body.error.field).toBe("references");

    // Venues (ids or names) and a year range.
    expect((await api("GET", `${base(id)}/stats?venues=neurips`, undefined, key)).body.papers).toBe(2);
    expect((await api("GET", `${base(id)}/stats?venues=venue:icml,NeurIPS`, undefined, key)).body.papers).toBe(3);
    const recent = (await api("GET", `${base(id)}/stats?year_from=2021`, undefined, key)).body;
    expect(recent.years).toEqual([
      { year: 2021, count: 1 },
      { year: 2022, count: 1 },
    ]);
    expect((await api("GET", `${base(id)}/stats?year_to=2020&venues=neurips`, undefined, key)).body.papers).toBe(2);
    const swapped = await api("GET", `${base(id)}/stats?year_from=2022&year_to=2020`, undefined, key);
    expect([swapped.status, swapped.body.error.field]).toEqual([400, "year_to"]);

    const badKind = await api("GET", `${base(id)}/stats?kinds=paper,book`, undefined, key);
    expect([badKind.status, badKind.body.error.field]).toEqual([400, "kinds"]);
    const other = await newArchive("stats2");
    expect((await api("GET", `${base(id)}/stats`, undefined, other.key)).status).toBe(403);
  });
});
