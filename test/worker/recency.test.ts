import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

/** 6 made-up topics x 5 notes: each note names its topic and one neighbour, and cites the topic's first note. */
const TOPICS: Array<{ slug: string; topic: string; words: string[] }> = [
  { slug: "river", topic: "Osk River", words: ["ferry", "delta", "salmon", "bridge", "flood"] },
  { slug: "bakery", topic: "Amsel Bakery", words: ["sourdough", "oven", "rye", "starter", "croissant"] },
  { slug: "chess", topic: "Verrin Gambit", words: ["pawn", "bishop", "endgame", "castling", "tempo"] },
  { slug: "volcano", topic: "Mount Halden", words: ["lava", "crater", "ash", "magma", "eruption"] },
  { slug: "jazz", topic: "Quill Quartet", words: ["saxophone", "swing", "bebop", "drummer", "ballad"] },
  { slug: "telescope", topic: "Sorrel Observatory", words: ["mirror", "nebula", "dome", "spectrograph", "comet"] },
];

const ARTIFACTS = TOPICS.flatMap((t) =>
  t.words.map((w, i) => ({
    id: `note:${t.slug}-${w}`,
    kind: "note" as const,
    title: `${t.topic}: the ${w}`,
    content: `The ${w} of the ${t.topic} is described here. It relates to the ${t.words[(i + 1) % 5]} as well. Notes on the ${w} were written in spring.`,
    entities: [
      { type: "concept" as const, name: t.topic },
      { type: "concept" as const, name: w },
    ],
    ...(i > 0 ? { edges: [{ type: "cites" as const, target: `note:${t.slug}-${t.words[0]}` }] } : {}),
  })),
);

const Q = "What is known about the Osk River ferry and the delta?";
const UNRELATED = TOPICS.slice(1).flatMap((t) =>
  t.words.flatMap((w) => [`Tell me about the ${w} of the ${t.topic}.`, `${t.topic} ${w} notes`]),
);

interface Cand {
  chunk: string;
  version: number;
  score: number;
}

async function seeded() {
  const a = await newArchive("rec");
  const res = await api("POST", `/v1/archives/${a.id}/ingest`, { artifacts: ARTIFACTS }, a.key);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return a;
}

const route = (id: string, key: string, body: Record<string, unknown>) =>
  // The recency seeds are read from the trace.
  api("POST", `/v1/archives/${id}/route`, { include_trace: true, ...body }, key).then((r) => {
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return r.body as {
      selected: Ranking["selected"];
      candidates: Cand[];
      trace: { seeds: Array<{ chunk: string; reasons: string[] }> };
    };
  });

const recentSeeds = (r: { trace: { seeds: Array<{ chunk: string; reasons: string[] }> } }) =>
  r.trace.seeds.filter((s) => s.reasons.includes("recent")).map((s) => s.chunk);

/** Scores may move by the recency decay of the seconds between two calls (30-day half-life): ~1e-6 relative. */
function expectClose(a: number, b: number) {
  expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-5 * Math.max(Math.abs(a), Math.abs(b)));
}

type Ranking = {
  selected: Array<{ chunk: string; version: number; score: number; depth?: number; via?: string | null }>;
  candidates: Cand[];
};

function expectSameRanking(a: Ranking, b: Ranking) {
  const key = (s: Ranking["selected"][number]) => [s.chunk, s.version, s.depth, s.via];
  expect(b.selected.map(key)).toEqual(a.selected.map(key));
  for (const [i, s] of a.selected.entries()) expectClose(s.score, b.selected[i]?.score ?? Number.NaN);
  expect(b.candidates.map((c) => [c.chunk, c.version])).toEqual(a.candidates.map((c) => [c.chunk, c.version]));
  for (const [i, c] of a.candidates.entries()) expectClose(c.score, b.candidates[i]?.score ?? Number.NaN);
}

describe("recency is scoped to the caller's session", () => {
  it("without a session, a ranking does not depend on other callers' earlier queries", async () => {
    expect(ARTIFACTS.length).toBe(30);
    expect(UNRELATED.length).toBe(50);
    const { id, key } = await seeded();
    const first = await route(id, key, { query: Q });
    expect(first.selected.length).toBeGreaterThan(0);
    expect(recentSeeds(first)).toEqual([]);
    for (const q of UNRELATED) await route(id, key, { query: q });
    const again = await route(id, key, { query: Q });
    expect(recentSeeds(again)).toEqual([]);
    expectSameRanking(first, again);
  });

  it("with session_id, that session's accesses seed recency and other sessions' do not", async () => {
    const { id, key } = await seeded();
    const baseline = await route(id, key, { query: Q });

    // Session s2 reads about volcanoes (route, context and expand), session s1 about jazz; each
    // route selects 3 chunks, so the two sessions touch different chunks.
    const volcano = await route(id, key, { query: "Mount Halden lava and magma", limit: 3, session_id: "s2" });
    const ctx = await api(
      "POST",
      `/v1/archives/${id}/context`,
      { query: "Mount Halden crater", budget_tokens: 1500, max_cards: 1, session_id: "s2", include_trace: true },
      key,
    );
    expect(ctx.status).toBe(200);
    const exp = await api(
      "POST",
      `/v1/archives/${id}/expand`,
      { chunks: [{ id: "note:volcano-ash" }], session_id: "s2" },
      key,
    );
    expect(exp.status).toBe(200);
    expect(exp.body.cards.map((c: { artifact_id: string }) => c.artifact_id)).toEqual(["note:volcano-ash"]);
    const s2Accessed = new Set([
      ...volcano.selected.map((s) => s.chunk),
      ...(ctx.body.trace.selected as Array<{ chunk: string }>).map((s) => s.chunk),
      "note:volcano-ash",
    ]);
    const jazz = await route(id, key, { query: "Quill Quartet saxophone and bebop", limit: 3, session_id: "s1" });
    const s1Accessed = new Set(jazz.selected.map((s) => s.chunk));
    expect([...s1Accessed].some((c) => c.startsWith("note:jazz-"))).toBe(true);
    const onlyS2 = [...s2Accessed].filter((c) => !s1Accessed.has(c));
    const onlyS1 = [...s1Accessed].filter((c) => !s2Accessed.has(c));
    expect(onlyS2.length).toBeGreaterThan(0);
    expect(onlyS1.length).toBeGreaterThan(0);

    // s1's recency seeds are exactly the chunks s1 accessed, none of s2's.
    const s1 = await route(id, key, { query: Q, limit: 3, session_id: "s1" });
    expect(recentSeeds(s1).sort()).toEqual([...s1Accessed].sort());
    expect(recentSeeds(s1).filter((c) => onlyS2.includes(c))).toEqual([]);

    // A fresh session has no recency seeds: it ranks exactly as a call without a session.
    const fresh = await route(id, key, { query: Q, session_id: "s3" });
    expect(recentSeeds(fresh)).toEqual([]);
    expectSameRanking(baseline, fresh);

    // s2 sees its own accesses, including the expansion of note:volcano-ash, and none of s1's.
    const s2 = await route(id, key, { query: Q, session_id: "s2" });
    expect(recentSeeds(s2).sort()).toEqual([...s2Accessed].sort());
    expect(recentSeeds(s2).filter((c) => onlyS1.includes(c))).toEqual([]);
  });

  it("the MCP route and expand tools take session_id and log under it", async () => {
    const { id, key } = await seeded();
    const transport = new StreamableHTTPClientTransport(new URL("http://paperguru.test/mcp"), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: (url, init) => WORKER.fetch(url, init),
    });
    const client = new Client({ name: "paperguru-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      await client.listTools();
      const r = await client.callTool({
        name: "route",
        arguments: { archive: id, query: "Sorrel Observatory comet", limit: 2, session_id: "m1" },
      });
      expect(r.isError).not.toBe(true);
      const picked = (r.structuredContent as { selected: Array<{ chunk: string }> }).selected.map((s) => s.chunk);
      const e = await client.callTool({
        name: "expand",
        arguments: { archive: id, chunks: [{ id: "note:bakery-rye" }], session_id: "m1" },
      });
      expect(e.isError).not.toBe(true);
      const after = await route(id, key, { query: Q, limit: 1, session_id: "m1" });
      expect(recentSeeds(after).sort()).toEqual([...new Set([...picked, "note:bakery-rye"])].sort());
    } finally {
      await client.close();
    }
  });

  it("rejects a bad session_id with a 400 naming the field", async () => {
    const { id, key } = await seeded();
    const r = await api("POST", `/v1/archives/${id}/route`, { query: Q, session_id: "" }, key);
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe("session_id");
    const e = await api(
      "POST",
      `/v1/archives/${id}/expand`,
      { chunks: [{ id: "note:river-ferry" }], session_id: 7 },
      key,
    );
    expect(e.status).toBe(400);
    expect(e.body.error.field).toBe("session_id");
  });
});
