/**
 * GET /access-counts: the access log's counts per channel, per session and per chunk, narrowed by
 * session, chunk and time, paginated, checked against the calls the test makes.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const NOTES = ["ferry", "oven", "gambit", "crater"].map((w) => ({
  id: `note:${w}`,
  kind: "note",
  title: `The ${w}`,
  content: `A note about the ${w} and nothing else. The ${w} is described in this note.`,
}));

interface Row {
  key: string | null;
  routing: number;
  expansion: number;
  verification: number;
  total: number;
  last: string;
}

describe("GET /access-counts", () => {
  it("counts routing, expansion and verification per session and per chunk", async () => {
    const { id, key } = await newArchive("acc");
    const post = (path: string, body: unknown) => api("POST", `/v1/archives/${id}${path}`, body, key);
    const get = (q: string) => api("GET", `/v1/archives/${id}/access-counts${q}`, undefined, key);
    expect((await post("/ingest", { artifacts: NOTES })).status).toBe(200);
    const empty = await get("");
    expect(empty.status, JSON.stringify(empty.body)).toBe(200);
    expect(empty.body).toEqual({
      by: "session",
      totals: { routing: 0, expansion: 0, verification: 0, total: 0 },
      groups: 0,
      rows: [],
      next_cursor: null,
    });

    const start = new Date().toISOString();
    // s1: one route selecting 2, one expand of 2, one verify of 1 anchor. s2: one expand of 1.
    // Without a session: one expand of 3.
    const routed = await post("/route", { query: "the ferry and the oven", limit: 2, session_id: "s1" });
    expect(routed.body.selected.length).toBe(2);
    const exp = await post("/expand", { chunks: [{ id: "note:ferry" }, { id: "note:oven" }], session_id: "s1" });
    expect(exp.body.cards.length).toBe(2);
    const v = await post("/verify", { anchors: [exp.body.cards[0].anchored_spans[0]], session_id: "s1" });
    expect(v.body.all_verified).toBe(true);
    await post("/expand", { chunks: [{ id: "note:gambit" }], session_id: "s2" });
    await post("/expand", { chunks: NOTES.slice(1).map((n) => ({ id: n.id })) });

    const bySession = await get("");
    expect(bySession.status).toBe(200);
    const rows = bySession.body.rows as Row[];
    const strip = ({ last: _l, ...r }: Row) => r;
    expect(rows.map(strip)).toEqual([
      { key: "s1", routing: 2, expansion: 2, verification: 1, total: 5 },
      { key: null, routing: 0, expansion: 3, verification: 0, total: 3 },
      { key: "s2", routing: 0, expansion: 1, verification: 0, total: 1 },
    ]);
    expect(bySession.body.totals).toEqual({ routing: 2, expansion: 6, verification: 1, total: 9 });
    expect(bySession.body.groups).toBe(3);
    for (const r of rows) expect(r.last >= start).toBe(true);

    // Per chunk, within one session: what s1 opened and how.
    const s1 = await get("?by=chunk&session_id=s1");
    const s1Rows = new Map((s1.body.rows as Row[]).map((r) => [r.key, strip(r)]));
    const verifiedChunk = exp.body.cards[0].anchored_spans[0].artifact_id as string;
    const ferry = s1Rows.get("note:ferry");
    expect(ferry?.expansion).toBe(1);
    expect(ferry?.verification).toBe(verifiedChunk === "note:ferry" ? 1 : 0);
    expect([...s1Rows.values()].reduce((s, r) => s + r.total, 0)).toBe(5);
    // Per chunk over every session: the oven was expanded by s1 and without a session.
    const oven = await get("?by=chunk&chunk=note:oven");
    expect((oven.body.rows as Row[]).map((r) => [r.key, r.expansion])).toEqual([["note:oven", 2]]);

    // Pages: one row at a time, in the same order, the cursor ends with null.
    const seen: Array<string | null> = [];
    let cursor: string | null = "";
    for (let i = 0; i < 5 && cursor !== null; i++) {
      const page: { body: { rows: Row[]; next_cursor: string | null } } = await get(
        `?limit=1${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...page.body.rows.map((r) => r.key));
      cursor = page.body.next_cursor;
    }
    expect(seen).toEqual(["s1", null, "s2"]);
    expect(cursor).toBeNull();

    // Time: nothing before the calls, everything up to now.
    const before = await get(`?until=${encodeURIComponent("2020-01-01T00:00:00Z")}`);
    expect(before.body.totals.total).toBe(0);
    const since = await get(`?since=${encodeURIComponent(start)}`);
    expect(since.body.totals.total).toBe(9);

    // Bad input: 400 naming the field.
    for (const [q, field] of [
      ["?by=user", "by"],
      ["?limit=0", "limit"],
      ["?limit=501", "limit"],
      ["?cursor=abc", "cursor"],
      ["?since=yesterday", "since"],
      ["?session_id=", "session_id"],
      [`?since=2025-01-02&until=2025-01-01`, "since"],
      ["?cursor=100001", "cursor"],
    ] as const) {
      const r = await get(q);
      expect(r.status, q).toBe(400);
      expect(JSON.stringify(r.body), q).toContain(field);
    }
    // Another archive's key cannot read these counts.
    const other = await newArchive("acc2");
    expect((await api("GET", `/v1/archives/${id}/access-counts`, undefined, other.key)).status).toBe(403);
  });
});
