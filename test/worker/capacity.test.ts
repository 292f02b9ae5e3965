/**
 * The capital chunk's heap budget per shard: an ingest that would take the newest shard past
 * params.heap_budget_bytes opens a new shard instead, so a tiny budget spreads an archive over many
 * Durable Objects, and the archive answers exactly as one object holding everything. Only a batch
 * too large for an empty shard is refused (413 naming the parameter).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { wire } from "../../src/wiring";
import { ADMIN, api } from "./helpers";

const notes = (from: number, n: number) =>
  Array.from({ length: n }, (_, k) => ({
    id: `note:${from + k}`,
    kind: "note",
    title: `Station ${from + k}`,
    content: `Station ${from + k} opened on the ${["Kestrel", "Osprey", "Merlin"][(from + k) % 3]} line in ${1900 + ((from + k) % 100)} near Caldbeck ${(from + k) % 7}, next to Station ${Math.max(0, from + k - 3)}.`,
  }));

const QUERIES = [
  "When did Station 3 open?",
  "stations near Caldbeck 4 on the Osprey line",
  "Station 120 next to Station 117",
  "Kestrel line 1950",
  "Which station opened in 1907 near Caldbeck 2?",
];

async function archive(id: string, params: Record<string, unknown> = {}) {
  const made = await api("POST", "/v1/archives", { id, name: id, params });
  expect(made.status).toBe(201);
  return made.body.key.secret as string;
}

async function ingest(id: string, key: string, from: number, n: number) {
  const r = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: notes(from, n) }, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

async function answers(id: string, key: string, queries = QUERIES, scored = false) {
  const out: string[][] = [];
  for (const query of queries) {
    const r = await api("POST", `/v1/archives/${id}/route`, { query, limit: 10, include_trace: scored }, key);
    expect(r.status).toBe(200);
    const picked = r.body.selected as Array<{ chunk: string }>;
    // `scored`: the seeds with their weights (BM25 among them) and every candidate's scores too.
    out.push(
      scored ? [JSON.stringify([r.body.selected, r.body.trace.seeds, r.body.candidates])] : picked.map((s) => s.chunk),
    );
  }
  return out;
}

async function capital(id: string, key: string) {
  const info = await api("GET", `/v1/archives/${id}`, undefined, key);
  return info.body.stats.capital as {
    heads: number;
    bytes: { total: number };
    shards?: Array<{ heads: number; bytes: number }>;
  };
}

describe("capital chunk shards", () => {
  // 1,000 notes into 4+ shards that each apply every change (docs/sharding.md), and 1,000 into one
  // object: 7-15 s on an idle 2-core machine and more beside other work, so the limit is sized by
  // that work rather than the default 30 s.
  it("a tiny budget opens new shards instead of refusing, and the archive answers as one object", async () => {
    const id = `shard-${Date.now().toString(36)}`;
    const one = `${id}-one`;
    const key = await archive(id, { heap_budget_bytes: 65_536 });
    const oneKey = await archive(one);
    for (let b = 0; b < 25; b++) {
      await ingest(id, key, b * 40, 40);
      await ingest(one, oneKey, b * 40, 40);
    }
    const cap = await capital(id, key);
    expect(cap.heads).toBe(1000);
    expect(cap.shards?.length).toBeGreaterThanOrEqual(4);
    expect(cap.shards?.reduce((a, s) => a + s.heads, 0)).toBe(1000);
    for (const s of cap.shards ?? []) expect(s.bytes).toBeLessThanOrEqual(65_536);
    expect((await capital(one, oneKey)).shards).toBeUndefined();
    expect(await answers(id, key)).toEqual(await answers(one, oneKey));
    const traced = await api(
      "POST",
      `/v1/archives/${id}/route`,
      { query: QUERIES[0], limit: 10, include_trace: true },
      key,
    );
    expect(traced.body.trace.shards.count).toBe(cap.shards?.length);
    // The directory answered in rounds: counts, then lexical scores beside resolution, then the seeds.
    expect(traced.body.trace.shards.rounds).toBeGreaterThanOrEqual(3);

    // Revisions of heads early shards hold (the names shard, and closed shard 1, which reads other
    // shards' changes light and its own whole), and a hard delete, keep the two in step.
    const onShard1 = (cap.shards?.[0]?.heads ?? 0) + 1;
    for (const [a, k] of [
      [id, key],
      [one, oneKey],
    ] as const) {
      const rev = await api(
        "POST",
        `/v1/archives/${a}/ingest`,
        {
          artifacts: [
            { ...notes(3, 1)[0], content: "Station 3 closed in 1968 on the Merlin line." },
            { ...notes(onShard1, 1)[0], content: `Station ${onShard1} was rebuilt in quartzite by the Tamsin guild.` },
          ],
        },
        k,
      );
      expect(rev.status).toBe(200);
    }
    // Scores too: the revision's words replaced the first version's on shard 1 as in one object.
    const revised = ["quartzite Tamsin guild", `Station ${onShard1} opened on the line near Caldbeck`];
    expect(await answers(id, key, revised, true)).toEqual(await answers(one, oneKey, revised, true));
    for (const a of [id, one])
      expect((await api("DELETE", `/v1/archives/${a}/chunks?chunk=note:5`, undefined, ADMIN)).status).toBe(200);
    expect(await answers(id, key)).toEqual(await answers(one, oneKey));
    expect(await answers(id, key, revised, true)).toEqual(await answers(one, oneKey, revised, true));
    const after = await api("POST", `/v1/archives/${id}/route`, { query: "When did Station 3 close?", limit: 3 }, key);
    expect(after.body.selected[0].chunk).toBe("note:3");
    const rebuilt = await api("POST", `/v1/archives/${id}/route`, { query: "quartzite Tamsin guild", limit: 3 }, key);
    expect(rebuilt.body.selected[0].chunk).toBe(`note:${onShard1}`);

    // Deleting the archive wipes every shard's object, though its shard rows go first.
    const shards = (await capital(id, key)).shards?.length ?? 0;
    expect((await api("DELETE", `/v1/archives/${id}`, undefined, ADMIN)).status).toBe(200);
    // Shard `shards` is the next one, which warmed before it would have opened.
    for (let k = 0; k <= shards; k++) {
      const stub = env.CAPITAL.get(env.CAPITAL.idFromName(k === 0 ? id : `${id}\u0000${k}`));
      const left = await runInDurableObject(stub, (_o, state: DurableObjectState) => state.storage.sql.databaseSize);
      expect(left, `shard ${k}`).toBeLessThan(8192);
    }
  }, 240_000);

  it("the next shard warms before it opens, so the write that opens it replays only what came after", async () => {
    const id = `warm-${Date.now().toString(36)}`;
    const one = `${id}-one`;
    const key = await archive(id, { heap_budget_bytes: 65_536 });
    const oneKey = await archive(one);
    const stubOf = (k: number) => env.CAPITAL.get(env.CAPITAL.idFromName(k === 0 ? id : `${id}\u0000${k}`));
    const keyOf = (k: number) => (k === 0 ? id : `${id}\u0000${k}`);
    let warmedAt: { shard: number; seq: number } | null = null;
    for (let b = 0; b < 12 && !warmedAt; b++) {
      await ingest(id, key, b * 40, 40);
      await ingest(one, oneKey, b * 40, 40);
      const n = (await capital(id, key)).shards?.length ?? 1;
      // A shard that has not opened answers only once it warmed (a cold one refuses to build).
      const standby = await stubOf(n)
        .stats(keyOf(n))
        .catch(() => null);
      if (standby) {
        expect(standby.heads).toBe(0);
        warmedAt = { shard: n, seq: standby.seq };
      }
    }
    expect(warmedAt, "the next shard warmed before it opened").not.toBeNull();
    const { shard, seq } = warmedAt as { shard: number; seq: number };
    expect(seq).toBeGreaterThan(0);
    for (let b = 12; ((await capital(id, key)).shards?.length ?? 1) === shard; b++) {
      expect(b).toBeLessThan(40);
      await ingest(id, key, b * 40, 40);
      await ingest(one, oneKey, b * 40, 40);
    }
    const opened = await stubOf(shard).stats(keyOf(shard));
    const row = await env.DB.prepare("SELECT first_seq AS f FROM capital_shards WHERE archive_id = ? AND shard = ?")
      .bind(id, shard)
      .first<{ f: number }>();
    // The store serving the new shard is the one built while warming, before its row existed.
    expect(opened.lastRebuild?.seq).toBeLessThan(row?.f as number);
    expect(opened.heads).toBeGreaterThan(0);
    const cap = await capital(id, key);
    expect(cap.shards?.reduce((a, s) => a + s.heads, 0)).toBe(cap.heads);
    expect(await answers(id, key)).toEqual(await answers(one, oneKey));
  }, 120_000);

  it("a shard opened by a request that then died, and objects restarted mid-replay, lose and duplicate nothing", async () => {
    const id = `split-${Date.now().toString(36)}`;
    const one = `${id}-one`;
    const key = await archive(id, { heap_budget_bytes: 65_536 });
    const oneKey = await archive(one);
    for (let b = 0; b < 4; b++) {
      await ingest(id, key, b * 40, 40);
      await ingest(one, oneKey, b * 40, 40);
    }
    const before = (await capital(id, key)).shards?.length ?? 1;
    // The request that opens a shard dies right after writing the row: nothing else was written.
    await env.DB.prepare(
      "INSERT INTO capital_shards(archive_id, shard, first_seq, opened_at) SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, 0 FROM change_log",
    )
      .bind(id, before)
      .run();
    // Every object restarts (as after a crash), and one restarts again while replaying a batch.
    const stubs = Array.from({ length: before + 1 }, (_, k) =>
      env.CAPITAL.get(env.CAPITAL.idFromName(k === 0 ? id : `${id}\u0000${k}`)),
    );
    for (const s of stubs) await s.evict();
    for (let b = 4; b < 8; b++) {
      const write = ingest(id, key, b * 40, 40);
      if (b === 5) await (stubs[before] as (typeof stubs)[number]).evict();
      await write;
      await ingest(one, oneKey, b * 40, 40);
    }
    const cap = await capital(id, key);
    expect(cap.heads).toBe(320);
    expect(cap.shards?.reduce((a, s) => a + s.heads, 0)).toBe(320);
    expect(cap.shards?.length).toBeGreaterThan(before);
    expect(await answers(id, key)).toEqual(await answers(one, oneKey));
  });

  it("another isolate that knew fewer shards sees the new ones before it answers or writes", async () => {
    const id = `stale-${Date.now().toString(36)}`;
    const one = `${id}-one`;
    const key = await archive(id, { heap_budget_bytes: 65_536 });
    const oneKey = await archive(one);
    await ingest(id, key, 0, 40);
    await ingest(one, oneKey, 0, 40);
    // A second isolate's use cases (its own shard counts), first used while the archive has one shard.
    const other = wire(env);
    const q = { query: "stations near Caldbeck 4 on the Osprey line", limit: 10 };
    const early = await other.query.route(id, q);
    expect(early.trace.shards).toBeUndefined();
    // The first isolate grows the archive over several shards.
    for (let b = 1; b < 12; b++) {
      await ingest(id, key, b * 40, 40);
      await ingest(one, oneKey, b * 40, 40);
    }
    expect((await capital(id, key)).shards?.length).toBeGreaterThanOrEqual(3);
    // The second isolate reads, then writes through its stale count, then reads again.
    const read = await other.query.route(id, q);
    expect(read.trace.shards?.count).toBe((await capital(id, key)).shards?.length);
    const written = await other.memory.ingest(
      id,
      notes(480, 40).map((n) => ({ ...n, kind: "note" as const })),
    );
    expect(written.ok).toBe(true);
    await ingest(one, oneKey, 480, 40);
    expect((await capital(id, key)).heads).toBe(520);
    expect(await answers(id, key)).toEqual(await answers(one, oneKey));
    const direct = await other.query.route(id, { query: "When did Station 500 open?", limit: 3 });
    expect(direct.selected[0]?.chunk).toBe("note:500");
  });

  it("an isolate that kept a shard count for a deleted archive answers for the one made again under its id", async () => {
    const id = `again-${Date.now().toString(36)}`;
    const key = await archive(id, { heap_budget_bytes: 65_536 });
    for (let b = 0; b < 8; b++) await ingest(id, key, b * 40, 40);
    const other = wire(env);
    const q = { query: "When did Station 3 open?", limit: 3 };
    const many = (await other.query.route(id, q)).trace.shards?.count ?? 1;
    expect(many).toBeGreaterThanOrEqual(3);
    expect((await api("DELETE", `/v1/archives/${id}`, undefined, ADMIN)).status).toBe(200);
    const again = await archive(id);
    const r = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      { artifacts: [{ id: "note:new", kind: "note", title: "Station 3", content: "Station 3 opened in 1999." }] },
      again,
    );
    expect(r.status).toBe(200);
    const after = await other.query.route(id, q);
    expect(after.trace.shards).toBeUndefined();
    expect(after.selected.map((x: { chunk: string }) => x.chunk)).toEqual(["note:new"]);
    // The shard objects of the deleted archive stay empty.
    for (let k = 1; k < many; k++) {
      const stub = env.CAPITAL.get(env.CAPITAL.idFromName(`${id}\u0000${k}`));
      const left = await runInDurableObject(stub, (_o, state: DurableObjectState) => state.storage.sql.databaseSize);
      expect(left, `shard ${k}`).toBeLessThan(8192);
    }
  });

  it("refuses only a batch too large for an empty shard, naming the parameter", async () => {
    const id = `cap-${Date.now().toString(36)}`;
    const key = await archive(id, { heap_budget_bytes: 65_536 });
    await ingest(id, key, 0, 10);
    const r = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: notes(100, 200) }, key);
    expect(r.status).toBe(413);
    expect(r.body.error.field).toBe("params.heap_budget_bytes");
    expect(r.body.error.message).toContain("65536");
    expect((await capital(id, key)).heads).toBe(10);
  });

  it("rejects a budget outside 64 KiB .. 96 MiB, naming the field", async () => {
    const id = `cap-bad-${Date.now().toString(36)}`;
    const r = await api("POST", "/v1/archives", { id, name: id, params: { heap_budget_bytes: 1000 } });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toContain("heap_budget_bytes");
  });
});
