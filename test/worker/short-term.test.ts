/**
 * The short-term window of /context: the session's recent events and the chunks it recently opened
 * (expanded or verified; routing does not open a chunk), newest first within the short-term share of
 * the budget, what did not fit counted, as of the query time.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

const NOTES = [
  ["note:ferry", "Osk River ferry", "The Osk River ferry crosses the delta twice a day in summer."],
  ["note:oven", "Amsel Bakery oven", "The Amsel Bakery bakes rye bread in a wood-fired oven."],
  ["note:gambit", "Verrin Gambit", "The Verrin Gambit sacrifices a pawn for tempo in the opening."],
  ["note:crater", "Mount Halden crater", "The crater of Mount Halden holds a lake of rain water."],
  ["note:comet", "Sorrel Observatory comet", "The Sorrel Observatory found a comet with its new mirror."],
] as const;

interface WindowChunk {
  chunk: string;
  version: number;
  kind: string;
  title: string;
  synopsis: string;
  at: string;
  tokens: number;
}

describe("the short-term window holds recently opened chunks", () => {
  it("expanded and verified chunks of the session, not routed ones, within the short-term share", async () => {
    const { id, key } = await newArchive("stw");
    const a = (path: string, body: unknown) => api("POST", `/v1/archives/${id}${path}`, body, key);
    const artifacts = NOTES.map(([cid, title, content]) => ({ id: cid, kind: "note", title, content }));
    expect((await a("/ingest", { artifacts })).status).toBe(200);
    expect(
      (await a("/sessions/s1/events", { events: [{ role: "user", text: "Plan a trip.", at: "2020-01-01T00:00:00Z" }] }))
        .status,
    ).toBe(200);
    const before = new Date().toISOString();
    // Opened by s1: the ferry (expanded), the oven (verified). Routed only: the gambit. Another session: the comet.
    expect((await a("/expand", { chunks: [{ id: "note:ferry" }], session_id: "s1" })).status).toBe(200);
    const oven = await a("/expand", { chunks: [{ id: "note:oven" }] });
    const anchor = oven.body.cards[0].anchored_spans[0];
    const verified = await a("/verify", { anchors: [anchor], session_id: "s1" });
    expect(verified.body.all_verified).toBe(true);
    const routed = await a("/route", { query: "Verrin Gambit pawn tempo", limit: 1, session_id: "s1" });
    expect(routed.body.selected[0].chunk).toBe("note:gambit");
    expect((await a("/expand", { chunks: [{ id: "note:comet" }], session_id: "s2" })).status).toBe(200);

    const ctx = await a("/context", {
      query: "Mount Halden crater lake",
      budget_tokens: 2000,
      max_cards: 1,
      session_id: "s1",
    });
    expect(ctx.status, JSON.stringify(ctx.body)).toBe(200);
    const win = ctx.body.short_term_chunks as WindowChunk[];
    expect(win.map((c) => c.chunk).sort()).toEqual(["note:ferry", "note:oven"]);
    // Chronological, like the events.
    expect(win.map((c) => c.at)).toEqual([...win.map((c) => c.at)].sort());
    expect(win.find((c) => c.chunk === "note:ferry")).toMatchObject({
      version: 1,
      kind: "note",
      title: "Osk River ferry",
    });
    for (const c of win) expect(c.at >= before).toBe(true);
    expect(ctx.body.short_term.map((e: { text: string }) => e.text)).toEqual(["Plan a trip."]);
    expect(ctx.body.short_term_dropped).toEqual({ events: 0, chunks: 0 });
    // The window's tokens are the events' and the chunks' and count against the budget.
    const windowTokens =
      ctx.body.short_term.reduce((s: number, e: { tokens: number }) => s + e.tokens, 0) +
      win.reduce((s, c) => s + c.tokens, 0);
    expect(ctx.body.budget.short_term).toBe(windowTokens);
    expect(ctx.body.budget.short_term + ctx.body.budget.cards + ctx.body.budget.remaining).toBe(2000);
    expect(ctx.body.cards.map((c: { artifact_id: string }) => c.artifact_id)).toEqual(["note:crater"]);

    // The next context sees the card that one returned (not the ones distilled but cut by max_cards), newest last.
    const next = await a("/context", { query: "Osk River ferry", budget_tokens: 2000, session_id: "s1" });
    const win2 = (next.body.short_term_chunks as WindowChunk[]).map((c) => c.chunk);
    expect(win2.slice(0, 2).sort()).toEqual(["note:ferry", "note:oven"]);
    expect(win2[2]).toBe("note:crater");
    expect(win2.length).toBe(3);
    expect(win2).not.toContain("note:comet");
    expect(win2).not.toContain("note:gambit");

    // The MCP context tool shows the window too.
    const transport = new StreamableHTTPClientTransport(new URL("http://paperguru.test/mcp"), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
      fetch: (url, init) => WORKER.fetch(url, init),
    });
    const client = new Client({ name: "paperguru-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const m = await client.callTool({
        name: "context",
        arguments: { archive: id, query: "Osk River ferry", budget_tokens: 1500, session_id: "s1" },
      });
      expect(m.isError).not.toBe(true);
      const out = m.structuredContent as { short_term_chunks?: Array<{ chunk: string }>; budget: { total: number } };
      // Newest last: the cards the REST call above returned (it opened them after reading its window).
      const shown = (next.body.cards as Array<{ artifact_id: string }>).map((c) => c.artifact_id);
      const mcpWindow = (out.short_term_chunks ?? []).map((c) => c.chunk);
      expect(shown.length).toBeGreaterThan(0);
      expect(mcpWindow.slice(-shown.length).sort()).toEqual([...shown].sort());
      expect(new Set(mcpWindow).size).toBe(mcpWindow.length);

      // MCP `read` with the session opens the chunk for it; the `access_counts` op of `research` counts it.
      const before = await client.callTool({
        name: "research",
        arguments: { archive: id, op: "access_counts", args: { by: "chunk", session_id: "s-read" } },
      });
      expect(before.isError).not.toBe(true);
      expect((before.structuredContent as { groups: number }).groups).toBe(0);
      const read = await client.callTool({
        name: "read",
        arguments: { archive: id, chunk: "note:gambit", session_id: "s-read", max_chars: 20 },
      });
      expect(read.isError).not.toBe(true);
      const after = await client.callTool({
        name: "research",
        arguments: { archive: id, op: "access_counts", args: { by: "chunk", session_id: "s-read" } },
      });
      const rows = (after.structuredContent as { rows: Array<{ key: string | null; total: number }> }).rows;
      expect(rows.map((r) => r.key)).toEqual(["note:gambit"]);
    } finally {
      await client.close();
    }

    // A small share: the newest stretch that fits is kept, the rest counted as dropped.
    const small = await a("/context", {
      query: "Osk River ferry",
      budget_tokens: 600,
      short_term_share: 0.04,
      session_id: "s1",
    });
    expect(small.status, JSON.stringify(small.body)).toBe(200);
    expect(small.body.budget.short_term).toBeLessThanOrEqual(Math.floor(600 * 0.04));
    const kept = (small.body.short_term_chunks as WindowChunk[]).length;
    expect(kept).toBeLessThan(win2.length);
    expect(small.body.short_term_dropped.chunks).toBeGreaterThanOrEqual(win2.length - kept);
    // The event is older than every opening: it goes once a newer chunk does not fit.
    expect(small.body.short_term).toEqual([]);
    expect(small.body.short_term_dropped.events).toBe(1);

    // As of before the openings: only the event.
    const past = await a("/context", {
      query: "Osk River ferry",
      budget_tokens: 2000,
      session_id: "s1",
      as_of: "2021-01-01T00:00:00Z",
    });
    expect(past.status, JSON.stringify(past.body)).toBe(200);
    expect(past.body.short_term_chunks).toEqual([]);
    expect(past.body.short_term.length).toBe(1);
    // Without a session: no window at all.
    const none = await a("/context", { query: "Osk River ferry", budget_tokens: 2000 });
    expect(none.body.short_term_chunks).toEqual([]);
    expect(none.body.short_term_dropped).toEqual({ events: 0, chunks: 0 });
    expect(none.body.budget.short_term).toBe(0);
  });

  it("an exact content read with session_id opens the chunk in that session; without one nothing is logged", async () => {
    const { id, key } = await newArchive("stwread");
    const a = (path: string, body: unknown) => api("POST", `/v1/archives/${id}${path}`, body, key);
    const artifacts = NOTES.map(([cid, title, content]) => ({ id: cid, kind: "note", title, content }));
    expect((await a("/ingest", { artifacts })).status).toBe(200);
    const read = (q: string) => api("GET", `/v1/archives/${id}/chunks/note%3Acomet/content${q}`, undefined, key);
    expect((await read("?start=4&end=10")).status).toBe(200);
    const counts = () => api("GET", `/v1/archives/${id}/access-counts`, undefined, key);
    expect((await counts()).body.totals.total).toBe(0);
    const r = await read("?session_id=reader");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.text).toBe(NOTES[4][2]);
    expect((await counts()).body.rows).toEqual([
      expect.objectContaining({ key: "reader", expansion: 1, routing: 0, verification: 0, total: 1 }),
    ]);
    const ctx = await a("/context", { query: "Osk River ferry", budget_tokens: 1000, session_id: "reader" });
    expect((ctx.body.short_term_chunks as WindowChunk[]).map((c) => c.chunk)).toEqual(["note:comet"]);
    expect((await read("?session_id=")).status).toBe(400);
  });

  it("reads at most 16 opened chunks, newest first", async () => {
    const { id, key } = await newArchive("stw16");
    const a = (path: string, body: unknown) => api("POST", `/v1/archives/${id}${path}`, body, key);
    const artifacts = Array.from({ length: 20 }, (_, i) => ({
      id: `note:n${String(i).padStart(2, "0")}`,
      kind: "note",
      title: `Note ${i}`,
      content: `Observation number ${i} about the lighthouse keeper's log.`,
    }));
    expect((await a("/ingest", { artifacts })).status).toBe(200);
    // One expand of 20 chunks: all opened at the same instant; ties go by chunk id.
    const exp = await a("/expand", {
      chunks: artifacts.map((x) => ({ id: x.id })),
      budget_tokens: 20_000,
      session_id: "s",
    });
    expect(exp.body.cards.length).toBe(20);
    const ctx = await a("/context", { query: "an unrelated question", budget_tokens: 20_000, session_id: "s" });
    const win = (ctx.body.short_term_chunks as WindowChunk[]).map((c) => c.chunk);
    expect(win.length).toBe(16);
    expect(ctx.body.short_term_dropped.chunks).toBe(0);
    // The 16 kept are the first 16 by id (ties at one instant), listed oldest first = reversed.
    expect([...win].reverse()).toEqual(artifacts.slice(0, 16).map((x) => x.id));
  });
});
