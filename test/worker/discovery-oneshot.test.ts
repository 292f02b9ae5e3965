/**
 * Paper Circle's one-shot discovery (C.2), query spec (§3.2), ranked-pool statistics and
 * leaderboard (E.3) and reranker (D.4) through REST and MCP, in workerd with local D1 / R2. Every
 * engine is mocked with the source fixtures (HippoRAG is in all five answers, under an arXiv id, an
 * arXiv DOI, another DOI and a bare title); the reranker with test/fixtures/mock-rerank.ts.
 */
import { env } from "cloudflare:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app";
import { type Env, wire } from "../../src/wiring";
import { mockRerankHandler, mockRerankScore } from "../fixtures/mock-rerank";
import arxivFeed from "../fixtures/sources/arxiv-feed.xml?raw";
import crossrefWorks from "../fixtures/sources/crossref-works.json?raw";
import dblpSearch from "../fixtures/sources/dblp-search.json?raw";
import openalexWorks from "../fixtures/sources/openalex-works.json?raw";
import s2Search from "../fixtures/sources/semanticscholar-search.json?raw";
import { calls, mockFetch } from "./fetch-guard";
import { ADMIN, api, newArchive } from "./helpers";
import { connect, ok as mcpOk } from "./mcp-client";

const body =
  (text: string, type = "application/json") =>
  () =>
    new Response(text, { headers: { "content-type": type } });
const ENGINES = {
  "https://export.arxiv.org/api/query": body(arxivFeed, "application/atom+xml"),
  "https://api.openalex.org/works": body(openalexWorks),
  "https://api.crossref.org/works": body(crossrefWorks),
  "https://api.semanticscholar.org/graph/v1/paper/search": body(s2Search),
  "https://dblp.org/search/publ/api": body(dblpSearch),
};
const HIPPO = "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models";

describe("query spec (§3.2)", () => {
  it("reads required, negative, years, keywords, related terms and titles by rules", async () => {
    const { id, key } = await newArchive("qs");
    const res = await api(
      "POST",
      `/v1/archives/${id}/query-spec`,
      { query: 'recent papers on "graph retrieval" for LLM agents -survey since 2023' },
      key,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      required: ["graph retrieval"],
      negative: ["survey"],
      keywords: ["llm", "agents"],
      year_from: 2023,
      year_to: null,
      built_by: "rules",
      search: '"graph retrieval" llm agents',
    });
    expect(res.body.related).toContain("large language model");
    expect(res.body.related).toContain("agent");
    expect(res.body.titles[0]).toBe("Graph Retrieval Llm Agents");
  });

  it("refuses model: true without a model (409) and bad input (400 naming the field)", async () => {
    const { id, key } = await newArchive("qs");
    const a = await api("POST", `/v1/archives/${id}/query-spec`, { query: "memory", model: true }, key);
    expect(a.status).toBe(409);
    expect(a.body.error.field).toBe("model");
    const b = await api("POST", `/v1/archives/${id}/query-spec`, { query: "" }, key);
    expect(b.status).toBe(400);
    expect(JSON.stringify(b.body)).toContain("query");
  });
});

describe("ranking stats and leaderboard (E.3)", () => {
  it("averages the ranked pool's scores and lists the leaderboard with component scores; negative terms leave", async () => {
    const { id, key } = await newArchive("rs");
    const papers = [
      ["paper:a", "Graph memory for retrieval agents", "year:2021"],
      ["paper:b", "Retrieval with graph memory: a survey", "year:2023"],
      ["paper:c", "Memory graphs for agent retrieval at scale", "year:2024"],
      ["paper:d", "Cooking pasta at home", "year:2020"],
    ];
    const ing = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      {
        artifacts: papers.map(([pid, title, year]) => ({
          id: pid,
          kind: "paper",
          title,
          content: `${title}. We study graph memory and retrieval for agents.`,
          boundaries: [year],
        })),
      },
      key,
    );
    expect(ing.status, JSON.stringify(ing.body)).toBeLessThan(300);
    const all = await api(
      "POST",
      `/v1/archives/${id}/ranking/stats`,
      { query: "graph memory retrieval", top: 50 },
      key,
    );
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    const lb = all.body.leaderboard as Array<Record<string, number>>;
    expect(all.body.score_stats.ranked).toBe(lb.length);
    expect(lb.length).toBeGreaterThanOrEqual(3);
    for (const k of ["similarity", "recency", "novelty", "bm25", "combined"] as const) {
      const mean = lb.reduce((s, e) => s + (e[k] as number), 0) / lb.length;
      expect(all.body.score_stats.mean[k]).toBeCloseTo(mean, 3);
    }
    for (let i = 1; i < lb.length; i++) expect(lb[i - 1]?.combined).toBeGreaterThanOrEqual(lb[i]?.combined as number);
    expect(lb.map((e) => String(e.title))).toContain("Graph memory for retrieval agents");
    expect(all.body.mode).toBe("stable");

    const neg = await api(
      "POST",
      `/v1/archives/${id}/ranking/stats`,
      { query: "graph memory retrieval -survey", top: 50 },
      key,
    );
    expect(neg.status).toBe(200);
    expect(neg.body.spec.negative).toEqual(["survey"]);
    const titles = (neg.body.leaderboard as Array<{ title: string }>).map((e) => e.title);
    expect(titles).not.toContain("Retrieval with graph memory: a survey");
    expect(neg.body.score_stats.ranked).toBe(titles.length);

    const top1 = await api(
      "POST",
      `/v1/archives/${id}/ranking/stats`,
      { query: "graph memory retrieval", top: 1, ranking: { mode: "discovery" } },
      key,
    );
    expect(top1.body.leaderboard).toHaveLength(1);
    expect(top1.body.mode).toBe("discovery");
    // The statistics are over the whole ranked pool, not the leaderboard.
    expect(top1.body.score_stats.ranked).toBe(all.body.score_stats.ranked);

    // The route's ranking result carries the same statistics.
    const route = await api(
      "POST",
      `/v1/archives/${id}/route`,
      { query: "graph memory retrieval", ranking: { mode: "stable" } },
      key,
    );
    expect(route.body.ranking.score_stats.ranked).toBe(route.body.ranking.relevant);

    const bad = await api("POST", `/v1/archives/${id}/ranking/stats`, { query: "x", top: 0 }, key);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("top");
  });
});

describe("one-shot discovery (C.2)", () => {
  it("asks five engines in parallel, merges by DOI, arXiv id and title, marks stored papers, ranks", async () => {
    const { id, key } = await newArchive("disc");
    await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      { artifacts: [{ id: "arxiv:2405.14831", kind: "paper", title: HIPPO, content: "HippoRAG, stored before." }] },
      key,
    );
    mockFetch(ENGINES);
    const res = await api(
      "POST",
      `/v1/archives/${id}/discover`,
      { query: "long-term memory for language models", per_engine: 10 },
      key,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const b = res.body;
    expect(b.stored).toBe(false);
    expect(b.engines.map((e: { engine: string; status: string }) => `${e.engine}:${e.status}`)).toEqual([
      "arxiv:ok",
      "openalex:ok",
      "crossref:ok",
      "semanticscholar:ok",
      "dblp:ok",
    ]);
    // Only the default public API hosts were asked, one request each.
    expect(new Set(calls.map((c) => new URL(c.url).host))).toEqual(
      new Set(["export.arxiv.org", "api.openalex.org", "api.crossref.org", "api.semanticscholar.org", "dblp.org"]),
    );
    expect(calls).toHaveLength(5);
    const hippo = b.items.filter((x: { title: string }) => x.title === HIPPO);
    expect(hippo).toHaveLength(1);
    expect([...hippo[0].engines].sort()).toEqual(["arxiv", "crossref", "dblp", "openalex", "semanticscholar"]);
    expect(hippo[0].in_archive).toEqual({ chunk: "arxiv:2405.14831", by: "id" });
    expect(b.dedup.in_archive).toBe(1);
    // HippoRAG's 5 copies: merged by arXiv id (OpenAlex's arXiv DOI, S2's id), by title (Crossref's other DOI, dblp).
    expect(b.dedup.merged_by_doi + b.dedup.merged_by_arxiv + b.dedup.merged_by_title).toBe(
      b.dedup.fetched - b.dedup.unique,
    );
    expect(b.dedup.merged_by_title).toBeGreaterThanOrEqual(1);
    expect(b.dedup.merged_by_arxiv).toBeGreaterThanOrEqual(2);
    // The state of OA is in OpenAlex and S2 under one DOI.
    const oa = b.items.find((x: { doi: string | null }) => x.doi === "10.7717/peerj.4375");
    expect([...oa.engines].sort()).toEqual(["openalex", "semanticscholar"]);
    expect(b.dedup.merged_by_doi).toBeGreaterThanOrEqual(1);
    const byEngine = Object.fromEntries(
      b.source_stats.map((s: { engine: string; records: number }) => [s.engine, s.records]),
    );
    expect(byEngine.semanticscholar).toBe(3);
    expect(Object.keys(byEngine).sort()).toEqual(["arxiv", "crossref", "dblp", "openalex", "semanticscholar"]);
    // Ranked: combined scores descend; the spec is returned.
    const comb = b.items.map((x: { combined: number }) => x.combined);
    expect([...comb].sort((x: number, y: number) => y - x)).toEqual(comb);
    expect(b.spec.keywords).toEqual(["long-term", "memory", "language", "models"]);
    expect(b.ranking.score_stats.ranked).toBe(
      b.dedup.unique - b.dedup.excluded.negative - b.dedup.excluded.required - b.dedup.excluded.years,
    );
    // Nothing was stored.
    const after = await api("GET", `/v1/archives/${id}/chunks/${encodeURIComponent(b.items[0].id)}`, undefined, key);
    if (b.items[0].in_archive === null) expect(after.status).toBe(404);
  });

  it("reports a failing and a late engine per engine, and filters negative terms and years", async () => {
    const { id, key } = await newArchive("disc");
    mockFetch({
      "https://api.openalex.org/works": body(openalexWorks),
      "https://api.crossref.org/works": body(crossrefWorks),
      "https://dblp.org/search/publ/api": () => new Response("busy", { status: 503 }),
      "https://api.semanticscholar.org/graph/v1/paper/search": () =>
        new Promise((resolve) => setTimeout(() => resolve(new Response(s2Search)), 5000)),
    });
    const res = await api(
      "POST",
      `/v1/archives/${id}/discover`,
      {
        query: "memory -episodic since 2019",
        engines: ["openalex", "crossref", "dblp", "semanticscholar"],
        timeout_ms: 2000,
      },
      key,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const st = Object.fromEntries(
      res.body.engines.map((e: { engine: string; status: string }) => [e.engine, e.status]),
    );
    expect(st).toEqual({ openalex: "ok", crossref: "ok", dblp: "error", semanticscholar: "timeout" });
    expect(res.body.engines.find((e: { engine: string }) => e.engine === "dblp").error).toContain("503");
    const titles = res.body.items.map((x: { title: string }) => x.title);
    expect(titles.some((t: string) => /episodic/i.test(t))).toBe(false);
    expect(res.body.dedup.excluded.negative).toBeGreaterThanOrEqual(1);
    for (const x of res.body.items) expect(x.year === null || x.year >= 2019).toBe(true);
    expect(res.body.items.every((x: { year: number | null }) => x.year !== null)).toBe(true);
  });

  it("refuses bad input with a 400 naming the field, and rerank without a reranker with a 409", async () => {
    const { id, key } = await newArchive("disc");
    const a = await api("POST", `/v1/archives/${id}/discover`, { query: "x", engines: ["google"] }, key);
    expect(a.status).toBe(400);
    expect(JSON.stringify(a.body)).toContain("engines");
    const c = await api("POST", `/v1/archives/${id}/discover`, { query: "x", per_engine: 500 }, key);
    expect(c.status).toBe(400);
    const r = await api("POST", `/v1/archives/${id}/discover`, { query: "memory", rerank: true }, key);
    expect(r.status).toBe(409);
    expect(r.body.error.field).toBe("rerank");
    expect(calls).toHaveLength(0);
  });

  it("is reachable through MCP's research tool", async () => {
    const { id, key } = await newArchive("disc");
    mockFetch(ENGINES);
    const open: Client[] = [];
    const client = await connect(key, open);
    const sc = await mcpOk(client, "research", {
      archive: id,
      op: "discover",
      args: { query: "memory for language models", engines: ["openalex", "crossref"] },
    });
    expect(sc.engines.map((e: { status: string }) => e.status)).toEqual(["ok", "ok"]);
    expect(sc.items.length).toBeGreaterThan(0);
    const spec = await mcpOk(client, "research", {
      archive: id,
      op: "query_spec",
      args: { query: "graph memory -survey" },
    });
    expect(spec.negative).toEqual(["survey"]);
    const stats = await mcpOk(client, "research", { archive: id, op: "ranking_stats", args: { query: "memory" } });
    expect(stats.score_stats.ranked).toBe(0);
    for (const c of open) await c.close();
  });
});

describe("reranker through the port (D.4)", () => {
  const reranked = wire({
    ...env,
    RERANKER: "tei",
    RERANK_BASE_URL: "https://rerank.example/v1",
  } as unknown as Env);
  const app = createApp(() => reranked);

  it("reorders the merged pool by the rerank endpoint's scores", async () => {
    const { id, key } = await newArchive("rr");
    const seen: unknown[] = [];
    mockFetch({
      ...ENGINES,
      "https://rerank.example/v1/rerank": async (req) => {
        seen.push(await req.clone().json());
        return mockRerankHandler(req);
      },
    });
    const q = "retracted memory consolidation";
    const res = await app.request(`http://paperguru.test/v1/archives/${id}/discover`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: q, engines: ["crossref", "openalex"], rerank: true }),
    });
    const b = (await res.json()) as {
      ranking: { reranker: string | null };
      items: Array<{ title: string; rerank_score: number | null; combined_rank: number }>;
    };
    expect(res.status, JSON.stringify(b)).toBe(200);
    expect(b.ranking.reranker).toBe("tei:tei");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ query: q });
    const scores = b.items.map((x) => x.rerank_score as number);
    expect(scores.every((s) => typeof s === "number")).toBe(true);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
    // Ties keep the combined order.
    const ranks = b.items.map((x) => x.combined_rank);
    for (let i = 1; i < scores.length; i++)
      if (scores[i] === scores[i - 1]) expect(ranks[i]).toBeGreaterThan(ranks[i - 1] as number);
    expect(scores[0]).toBeGreaterThan(scores[scores.length - 1] as number);
    // The scores are the mock's for the texts sent (title + abstract).
    const sent = (seen[0] as { texts: string[] }).texts;
    expect(Math.max(...sent.map((t) => mockRerankScore(q, t)))).toBeCloseTo(scores[0] as number, 3);
    // Without rerank: the combined order, no rerank scores, no rerank request.
    seen.length = 0;
    const plain = await app.request(`http://paperguru.test/v1/archives/${id}/discover`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
      body: JSON.stringify({ query: q, engines: ["crossref"] }),
    });
    const p = (await plain.json()) as { items: Array<{ rerank_score: number | null }> };
    expect(p.items.every((x) => x.rerank_score === null)).toBe(true);
    expect(seen).toHaveLength(0);
  });
});
