import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { miniArtifacts, T } from "../fixtures/mini";
import { ADMIN, api, newArchive } from "./helpers";

async function seeded() {
  const a = await newArchive("q");
  const res = await api("POST", `/v1/archives/${a.id}/ingest`, { artifacts: miniArtifacts }, a.key);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return a;
}

type Card = {
  artifact_id: string;
  version: number;
  tokens: number;
  anchored_spans: Array<{ artifact_id: string; version: number; start: number; end: number; snippet: string }>;
};

describe("route", () => {
  it("returns head-only candidates with per-expert scores and a full trace", async () => {
    const { id, key } = await seeded();
    const r = await api(
      "POST",
      `/v1/archives/${id}/route`,
      { query: "How does HippoRAG use Personalized PageRank?", include_trace: true },
      key,
    );
    expect(r.status).toBe(200);
    const top = r.body.candidates[0];
    expect(["arxiv:2405.14831", "arxiv:2405.14831#method"]).toContain(top.chunk);
    // Every expert in [0, 1]; the top head matches the query's words and names HippoRAG, and the
    // graph moved mass to some candidate.
    for (const k of ["sem", "lex", "sym", "graph", "rec"]) {
      expect(top.experts[k]).toBeGreaterThanOrEqual(0);
      expect(top.experts[k]).toBeLessThanOrEqual(1);
    }
    expect(top.experts.lex).toBeGreaterThan(0);
    expect(top.experts.sym).toBeGreaterThan(0);
    expect(r.body.candidates.some((c: { experts: { graph: number } }) => c.experts.graph > 0)).toBe(true);
    const t = r.body.trace;
    expect(t.mentions.some((m: { entity: string }) => m.entity === "method:hipporag")).toBe(true);
    expect(t.seeds.length).toBeGreaterThan(0);
    expect(t.diffusion.mass.length).toBeGreaterThan(0);
    expect(Array.isArray(t.router_steps)).toBe(true);
    for (const phase of ["analyse", "embed", "semantic", "route", "total"])
      expect(typeof t.timings_ms[phase]).toBe("number");
  });

  it("limit bounds the candidates and the selection, and the trace comes only with include_trace", async () => {
    const { id, key } = await seeded();
    const query = "How does HippoRAG use Personalized PageRank?";
    const whole = await api("POST", `/v1/archives/${id}/route`, { query }, key);
    expect(whole.status).toBe(200);
    expect(whole.body.trace).toBeUndefined();
    expect(whole.body.candidates.length).toBeGreaterThan(3);
    const three = await api("POST", `/v1/archives/${id}/route`, { query, limit: 3 }, key);
    expect(three.body.candidates.length).toBe(3);
    expect(three.body.selected.length).toBeLessThanOrEqual(3);
    expect(three.body.trace).toBeUndefined();
    // The first three of the whole pool, in its order: limit cuts the answer, not the ranking.
    expect(three.body.candidates).toEqual(whole.body.candidates.slice(0, 3));
    const traced = await api("POST", `/v1/archives/${id}/route`, { query, limit: 3, include_trace: true }, key);
    expect(traced.body.candidates.length).toBe(3);
    expect(traced.body.trace.seeds.length).toBeGreaterThan(0);
    expect(JSON.stringify(three.body).length).toBeLessThan(JSON.stringify(traced.body).length / 2);
  });

  it("a chunk the question names by identifier is the first candidate, selection and card", async () => {
    const { id, key } = await seeded();
    for (const query of ["What does arXiv:2405.14831v1 propose?", "Which retriever does arxiv:2005.11401 use?"]) {
      const want = (query.match(/ar[xX]iv:(\d{4}\.\d{5})/)?.[1] ?? "") as string;
      const r = await api("POST", `/v1/archives/${id}/route`, { query, limit: 5 }, key);
      expect(r.body.candidates[0].chunk, query).toBe(`arxiv:${want}`);
      expect(r.body.selected[0].chunk, query).toBe(`arxiv:${want}`);
      const c = await api("POST", `/v1/archives/${id}/context`, { query, budget_tokens: 800 }, key);
      expect(c.body.cards[0].artifact_id, query).toBe(`arxiv:${want}`);
    }
  });

  it("diffusion reaches cited papers that share no words with the query", async () => {
    const { id, key } = await seeded();
    const r = await api("POST", `/v1/archives/${id}/route`, { query: "HippoRAG" }, key);
    const ids = (r.body.candidates as Array<{ chunk: string; mass: number }>)
      .filter((c) => c.mass > 0)
      .map((c) => c.chunk);
    expect(ids).toContain("arxiv:2004.04906");
  });

  it("resolves an arXiv id with a version suffix to the paper", async () => {
    const { id, key } = await seeded();
    const r = await api(
      "POST",
      `/v1/archives/${id}/route`,
      { query: "What does arXiv:2004.04906v3 train?", include_trace: true },
      key,
    );
    expect(r.body.trace.mentions.map((m: { entity: string }) => m.entity)).toContain("arxiv:2004.04906");
    expect(r.body.candidates[0].chunk).toBe("arxiv:2004.04906");
  });
});

describe("as_of (version-aware routing and expansion)", () => {
  it("never shows a version before it was valid, nor after it was superseded or deprecated", async () => {
    const { id, key } = await seeded();
    const rev = {
      ...miniArtifacts[0],
      content: "RAG revised: the revision reports FEVER fact verification results.",
      valid_from: T.y2021,
    };
    await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [rev] }, key);
    await api(
      "POST",
      `/v1/archives/${id}/deprecate`,
      { id: "arxiv:2405.14831#method", by: "arxiv:2405.14831", at: T.y2025 },
      key,
    );

    const at = async (as_of: string) =>
      (await api("POST", `/v1/archives/${id}/route`, { query: "RAG retrieval HippoRAG method PageRank", as_of }, key))
        .body as {
        candidates: Array<{ chunk: string; version: number }>;
      };
    const early = await at("2020-06-01T00:00:00Z");
    expect(early.candidates.find((c) => c.chunk === "arxiv:2005.11401")?.version).toBe(1);
    expect(early.candidates.some((c) => c.chunk.startsWith("arxiv:2405.14831"))).toBe(false);
    const mid = await at("2024-06-01T00:00:00Z");
    expect(mid.candidates.find((c) => c.chunk === "arxiv:2005.11401")?.version).toBe(2);
    expect(mid.candidates.some((c) => c.chunk === "arxiv:2405.14831#method")).toBe(true);
    const late = await at("2025-06-01T00:00:00Z");
    expect(late.candidates.some((c) => c.chunk === "arxiv:2405.14831#method")).toBe(false);
    const before = await at("2019-01-01T00:00:00Z");
    expect(before.candidates).toEqual([]);

    // Expansion opens the content valid at as_of: the old text before the revision, the new after.
    const ctxOld = await api(
      "POST",
      `/v1/archives/${id}/context`,
      { query: "RAG", as_of: "2020-06-01T00:00:00Z", budget_tokens: 2000 },
      key,
    );
    const ragOld = (ctxOld.body.cards as Card[]).find((c) => c.artifact_id === "arxiv:2005.11401");
    expect(ragOld?.version).toBe(1);
    const ctxNew = await api("POST", `/v1/archives/${id}/context`, { query: "RAG FEVER", budget_tokens: 2000 }, key);
    const ragNew = (ctxNew.body.cards as Card[]).find((c) => c.artifact_id === "arxiv:2005.11401");
    expect(ragNew?.version).toBe(2);
  });
});

describe("context", () => {
  it("fits cards plus the short-term window in the budget, and every anchor verifies", async () => {
    const { id, key } = await seeded();
    await api(
      "POST",
      `/v1/archives/${id}/sessions/s1/events`,
      { events: [{ role: "user", text: "We are reproducing HippoRAG's retrieval step." }] },
      key,
    );
    for (const budget of [120, 300, 900, 3000]) {
      const r = await api(
        "POST",
        `/v1/archives/${id}/context`,
        { query: "How does HippoRAG rank passages with PageRank?", budget_tokens: budget, session_id: "s1" },
        key,
      );
      expect(r.status).toBe(200);
      const cards = r.body.cards as Card[];
      const used = cards.reduce((s, c) => s + c.tokens, 0) + r.body.budget.short_term;
      expect(used).toBeLessThanOrEqual(budget);
      expect(r.body.budget.tokenizer).toBeTruthy();
      if (budget >= 900) {
        expect(cards.length).toBeGreaterThan(0);
        expect(r.body.short_term.length).toBe(1);
      }
      for (const c of cards) {
        expect(c.anchored_spans.length).toBeGreaterThanOrEqual(2);
        expect(c.anchored_spans.length).toBeLessThanOrEqual(5);
      }
      const anchors = cards.flatMap((c) => c.anchored_spans);
      if (anchors.length) {
        const v = await api("POST", `/v1/archives/${id}/verify`, { anchors }, key);
        expect(v.body.all_verified).toBe(true);
      }
    }
  });

  it("verify rejects a tampered snippet and an unknown version", async () => {
    const { id, key } = await seeded();
    const r = await api(
      "POST",
      `/v1/archives/${id}/context`,
      { query: "DPR in-batch negatives", budget_tokens: 1500 },
      key,
    );
    const a = (r.body.cards as Card[])[0]?.anchored_spans[0];
    expect(a).toBeDefined();
    const v = await api(
      "POST",
      `/v1/archives/${id}/verify`,
      { anchors: [a, { ...a, snippet: `${a?.snippet}!` }, { ...a, version: 99 }, { ...a, end: 10_000_000 }] },
      key,
    );
    expect(v.body.results.map((x: { reason: string }) => x.reason)).toEqual([
      "ok",
      "snippet_mismatch",
      "version_not_found",
      "span_out_of_range",
    ]);
    expect(v.body.all_verified).toBe(false);
  });

  it("expand returns cards for given chunks and exact versions", async () => {
    const { id, key } = await seeded();
    const r = await api(
      "POST",
      `/v1/archives/${id}/expand`,
      { query: "dense", chunks: [{ id: "arxiv:2004.04906", version: 1 }, { id: "nope" }], budget_tokens: 800 },
      key,
    );
    expect(r.status).toBe(200);
    expect(r.body.cards[0].artifact_id).toBe("arxiv:2004.04906");
    expect(r.body.skipped).toEqual([{ chunk: "nope", reason: "not_visible" }]);
  });
});

describe("entities", () => {
  it("a renamed entity resolves under its old and new names; merges redirect after their time", async () => {
    const { id, key } = await seeded();
    const ren = await api(
      "POST",
      `/v1/archives/${id}/entities/rename`,
      { entity: "method:dpr", new_name: "DensePR", at: T.y2024 },
      key,
    );
    expect(ren.status).toBe(200);
    const q = (m: string, as_of?: string) =>
      api(
        "GET",
        `/v1/archives/${id}/resolve?mention=${encodeURIComponent(m)}${as_of ? `&as_of=${as_of}` : ""}`,
        undefined,
        key,
      );
    expect((await q("DPR")).body.resolved.entity).toBe("method:dpr");
    expect((await q("DensePR")).body.resolved.entity).toBe("method:dpr");
    expect((await q("DPR", "2021-01-01T00:00:00Z")).body.resolved.entity).toBe("method:dpr");
    // The old name still routes to the chunks of the renamed entity.
    const r = await api("POST", `/v1/archives/${id}/route`, { query: "DPR" }, key);
    expect(r.body.candidates[0].chunk).toBe("arxiv:2004.04906");

    const merge = await api(
      "POST",
      `/v1/archives/${id}/entities/merge`,
      { entity: "method:rag", into: "method:dpr", at: T.y2025 },
      key,
    );
    expect(merge.status).toBe(200);
    expect((await q("RAG", "2024-01-01T00:00:00Z")).body.resolved.entity).toBe("method:rag");
    expect((await q("RAG", "2025-06-01T00:00:00Z")).body.resolved.entity).toBe("method:dpr");
    const hist = await api("GET", `/v1/archives/${id}/history?entity=method:dpr`, undefined, key);
    expect((hist.body.events as Array<{ op: string }>).map((e) => e.op)).toEqual(
      expect.arrayContaining(["created", "rename", "absorbed"]),
    );
    const bad = await api(
      "POST",
      `/v1/archives/${id}/entities/merge`,
      { entity: "method:rag", into: "method:nope" },
      key,
    );
    expect(bad.status).toBe(409);
  });
});

describe("capital chunk durability", () => {
  it("rebuilds after eviction from snapshot + change-log replay with identical routing", async () => {
    const { id, key } = await seeded();
    const snap = await api("POST", `/v1/archives/${id}/admin/snapshot`, undefined, ADMIN);
    expect(snap.status).toBe(200);
    // Changes after the snapshot must come from the change-log tail.
    await api(
      "POST",
      `/v1/archives/${id}/deprecate`,
      { id: "arxiv:2405.14831#method", by: "arxiv:2405.14831", at: T.y2025 },
      key,
    );
    const query = { query: "HippoRAG PageRank over dense retrieval", as_of: "2025-06-01T00:00:00Z" };
    const before = await api("POST", `/v1/archives/${id}/route`, query, key);
    await api("POST", `/v1/archives/${id}/admin/evict`, undefined, ADMIN);
    const stats = await api("GET", `/v1/archives/${id}`, undefined, key);
    const rebuild = stats.body.stats.capital.last_rebuild;
    expect(rebuild.from_snapshot_seq).toBe(snap.body.seq);
    expect(rebuild.replayed).toBeGreaterThan(0);
    expect(stats.body.stats.capital.bytes_per_head).toBeGreaterThan(0);
    const after = await api("POST", `/v1/archives/${id}/route`, query, key);
    // Recency depends on the wall clock between the two calls; everything else must be identical.
    type C = { chunk: string; version: number; mass: number; experts: Record<string, number> };
    const strip = (b: { candidates: C[]; selected: Array<{ chunk: string; version: number }> }) =>
      JSON.stringify([
        b.candidates.map((c) => [c.chunk, c.version, c.mass, c.experts.sem, c.experts.sym, c.experts.graph]),
        b.selected.map((x) => [x.chunk, x.version]),
      ]);
    expect(strip(after.body)).toBe(strip(before.body));
  });
});

describe("access events", () => {
  it("records routing, expansion and verification channels", async () => {
    const { id, key } = await seeded();
    const r = await api("POST", `/v1/archives/${id}/context`, { query: "DPR encoders", budget_tokens: 1000 }, key);
    await api("POST", `/v1/archives/${id}/verify`, { anchors: (r.body.cards as Card[])[0]?.anchored_spans }, key);
    const rows = await env.DB.prepare(
      "SELECT channel, COUNT(*) AS n FROM access_events WHERE archive_id = ? GROUP BY channel ORDER BY channel",
    )
      .bind(id)
      .all<{ channel: string; n: number }>();
    expect(rows.results.map((x) => x.channel)).toEqual(["expansion", "routing", "verification"]);
  });
});

describe("read your writes by bookmark", () => {
  it("an ingest answers with a bookmark; a read with it as `after` reflects the write, also after an eviction", async () => {
    const { id, key } = await seeded();
    const w = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      {
        artifacts: [
          {
            id: "note:bookmark",
            kind: "note",
            title: "Quokka census",
            content: "The quokka census of Rottnest counted 12,000.",
          },
        ],
      },
      key,
    );
    expect(w.status).toBe(200);
    expect(w.body.bookmark).toMatch(/^[0-9]+$/);
    // The object forgets its heap: the read with the bookmark waits for the rebuild to reach it.
    await env.CAPITAL.get(env.CAPITAL.idFromName(id)).evict();
    const r = await api("POST", `/v1/archives/${id}/route`, { query: "quokka census", after: w.body.bookmark }, key);
    expect(r.status).toBe(200);
    expect(r.body.freshness.reached).toBe(true);
    expect(Number(r.body.freshness.applied)).toBeGreaterThanOrEqual(Number(w.body.bookmark));
    expect(r.body.freshness.after).toBe(w.body.bookmark);
    expect(r.headers.get("PaperGuru-Applied")).toBe(r.body.freshness.applied);
    expect(r.body.selected[0].chunk).toBe("note:bookmark");
    // An unchanged batch still answers with a bookmark, at least as far as the write's.
    const again = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      {
        artifacts: [
          {
            id: "note:bookmark",
            kind: "note",
            title: "Quokka census",
            content: "The quokka census of Rottnest counted 12,000.",
          },
        ],
      },
      key,
    );
    expect(Number(again.body.bookmark)).toBeGreaterThanOrEqual(Number(w.body.bookmark));
    const c = await api(
      "POST",
      `/v1/archives/${id}/context`,
      { query: "quokka census", after: again.body.bookmark },
      key,
    );
    expect(c.body.freshness).toMatchObject({ reached: true, after: again.body.bookmark });
  });

  it("a bookmark the archive never reaches is waited for a bounded time and said so", async () => {
    const { id, key } = await seeded();
    const r = await api("POST", `/v1/archives/${id}/route`, { query: "PageRank", after: "999999999999" }, key);
    expect(r.status).toBe(200);
    expect(r.body.freshness.reached).toBe(false);
    expect(r.body.freshness.waited_ms).toBeGreaterThanOrEqual(1000);
    expect(r.body.candidates.length).toBeGreaterThan(0);
    const bad = await api("POST", `/v1/archives/${id}/route`, { query: "PageRank", after: "latest" }, key);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("after");
  });
});
