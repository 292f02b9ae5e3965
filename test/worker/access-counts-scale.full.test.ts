/**
 * GET /access-counts and the short-term window over 100,000 access rows (200 sessions x 5,000
 * chunks, inserted straight into D1): exact counts and pages, and the times printed (not part of
 * `npm test`: `PAPERGURU_TEST=full npx vitest run --project workers test/worker/access-counts-scale.full.test.ts`).
 */
import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const N = 100_000;
const CHANNELS = ["routing", "routing", "routing", "expansion", "verification"];

it("counts 100,000 access rows exactly, per session and per chunk, one page at a time", async () => {
  const { id, key } = await newArchive("accscale");
  const db = (env as unknown as { DB: D1Database }).DB;
  const stmts: D1PreparedStatement[] = [];
  for (let i = 0; i < N; i += 20) {
    const args: unknown[] = [];
    for (let j = i; j < i + 20; j++)
      args.push(id, `note:c${j % 5000}`, CHANNELS[j % 5], 1_700_000_000_000 + j, `s${j % 200}`);
    stmts.push(
      db
        .prepare(
          `INSERT INTO access_events(archive_id, chunk_id, channel, at, session_id) VALUES ${Array(20).fill("(?,?,?,?,?)").join(",")}`,
        )
        .bind(...args),
    );
  }
  for (let i = 0; i < stmts.length; i += 500) await db.batch(stmts.slice(i, i + 500));
  const timed = async (q: string) => {
    const t = performance.now();
    const r = await api("GET", `/v1/archives/${id}/access-counts${q}`, undefined, key);
    console.log(
      `access-counts${q || " (by session)"}: ${(performance.now() - t).toFixed(1)} ms, ${JSON.stringify(r.body).length} bytes`,
    );
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    return r.body;
  };
  const bySession = await timed("");
  expect(bySession.groups).toBe(200);
  expect(bySession.totals).toEqual({ routing: 60_000, expansion: 20_000, verification: 20_000, total: N });
  expect(bySession.rows.length).toBe(50);
  expect(bySession.rows[0]).toMatchObject({ key: "s0", total: 500 });
  const byChunk = await timed("?by=chunk");
  expect(byChunk.groups).toBe(5000);
  const last = await timed("?by=chunk&limit=500&cursor=4500");
  expect(last.rows.length).toBe(500);
  expect(last.next_cursor).toBeNull();
  const one = await timed("?by=chunk&session_id=s7");
  // s7 holds rows j = 7 mod 200: 500 rows over the 25 chunks j mod 5000, each 20 times, all routing (7 mod 5 = 2).
  expect(one.groups).toBe(25);
  expect(one.totals).toEqual({ routing: 500, expansion: 0, verification: 0, total: 500 });
  const sessionRow = await timed("?session_id=s7");
  expect(sessionRow.rows).toEqual([expect.objectContaining({ key: "s7", total: 500 })]);
}, 300_000);
