/**
 * Retries get the first answer: repeats of one `event_id` (eight at once, or one after another) on
 * review edit / add_edge / remove_edge and annotations all answer the first success's status and
 * body, the effect happens once, the same id for another operation is a 409, a failed request
 * leaves the id free, and the stored answers go with a hard delete of their chunk.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type ApiResponse, api, newArchive } from "./helpers";

const base = (id: string) => `/v1/archives/${id}`;
const REPLAYED = "idempotent-replayed";

async function seed(id: string, key: string) {
  const res = await api(
    "POST",
    `${base(id)}/ingest`,
    {
      artifacts: [
        {
          id: "note:a",
          kind: "note",
          title: "Alpha",
          content: "Alpha cites beta.",
          edges: [{ type: "cites", target: "note:b" }],
          valid_from: "2024-01-01",
        },
        { id: "note:b", kind: "note", title: "Beta", content: "Beta stands alone.", valid_from: "2024-01-01" },
        { id: "note:c", kind: "note", title: "Gamma", content: "Gamma is the third.", valid_from: "2024-01-01" },
      ],
    },
    key,
  );
  expect(res.status).toBe(200);
}

/** Eight identical requests at once: every status and body equals the first's; one is not a replay. */
async function eightAtOnce(path: string, body: unknown, key: string): Promise<ApiResponse<Record<string, unknown>>> {
  const all = await Promise.all(Array.from({ length: 8 }, () => api("POST", path, body, key)));
  const fresh = all.filter((r) => r.headers.get(REPLAYED) !== "true");
  expect(fresh, JSON.stringify(all.map((r) => [r.status, r.body]))).toHaveLength(1);
  const first = fresh[0] as ApiResponse<Record<string, unknown>>;
  expect(first.status, JSON.stringify(first.body)).toBe(201);
  for (const r of all) expect([r.status, r.body]).toEqual([first.status, first.body]);
  return first;
}

const versionsOf = async (id: string, chunk: string, key: string) =>
  (await api("GET", `${base(id)}/history?chunk=${encodeURIComponent(chunk)}`, undefined, key)).body.versions
    .length as number;

const reviewEvents = async (id: string) =>
  (
    await env.DB.prepare("SELECT COUNT(*) AS n FROM annotations WHERE archive_id = ? AND key LIKE 'review%'")
      .bind(id)
      .first<{ n: number }>()
  )?.n;

describe("event_id: retries get the first answer", () => {
  it("review edit, add_edge and remove_edge: eight concurrent and later repeats answer the first success once", async () => {
    const { id, key } = await newArchive("once");
    await seed(id, key);
    const path = `${base(id)}/review`;

    const edit = {
      op: "edit",
      chunk: "note:a",
      changes: { content: "Alpha cites beta, edited." },
      at: "2024-02-01",
      event_id: "e-edit",
    };
    const edited = await eightAtOnce(path, edit, key);
    expect(edited.body).toMatchObject({ op: "edit", version: 2, duplicate: false, status: "human-edited" });
    expect(await versionsOf(id, "note:a", key)).toBe(2);

    const edge = { from: "note:a", type: "cites", to: "note:c" };
    const add = { op: "add_edge", edge, at: "2024-03-01", event_id: "e-add" };
    const added = await eightAtOnce(path, add, key);
    expect(added.body).toMatchObject({ op: "add_edge", version: 3 });
    expect(await versionsOf(id, "note:a", key)).toBe(3);

    const remove = { op: "remove_edge", edge, at: "2024-04-01", event_id: "e-remove" };
    const removed = await eightAtOnce(path, remove, key);
    expect(removed.body).toMatchObject({ op: "remove_edge", version: 4 });
    expect(await versionsOf(id, "note:a", key)).toBe(4);
    expect(await reviewEvents(id)).toBe(3);

    // Later repeats: the same status and body, marked as replays; nothing written.
    for (const [body, first] of [
      [edit, edited],
      [add, added],
      [remove, removed],
    ] as const) {
      const again = await api("POST", path, body, key);
      expect([again.status, again.body]).toEqual([201, first.body]);
      expect(again.headers.get(REPLAYED)).toBe("true");
    }
    expect(await versionsOf(id, "note:a", key)).toBe(4);
    expect(await reviewEvents(id)).toBe(3);

    // The same id for another operation or target: the 409 it always was, alone or eight at once.
    const other = await api("POST", path, { ...add, op: "remove_edge" }, key);
    expect(other.status).toBe(409);
    expect(other.body.error.field).toBe("event_id");
    const others = await Promise.all(
      Array.from({ length: 8 }, () =>
        api("POST", path, { op: "flag", chunk: "note:b", reason: "?", event_id: "e-edit" }, key),
      ),
    );
    for (const r of others) expect([r.status, r.body.error.field]).toEqual([409, "event_id"]);
    expect(await reviewEvents(id)).toBe(3);
  });

  it("a new id with another operation racing the first: one wins, the others are the 409 of another use", async () => {
    const { id, key } = await newArchive("once-race");
    await seed(id, key);
    const path = `${base(id)}/review`;
    const verify = { op: "verify", chunk: "note:b", event_id: "e-mixed" };
    const flag = { op: "flag", chunk: "note:b", reason: "unsure", event_id: "e-mixed" };
    const all = await Promise.all(Array.from({ length: 8 }, (_, i) => api("POST", path, i % 2 ? flag : verify, key)));
    const won = all.filter((r) => r.status === 201);
    const lost = all.filter((r) => r.status !== 201);
    // Every request of the winning operation gets its answer; every one of the other is a 409.
    expect(won).toHaveLength(4);
    for (const r of won) expect(r.body).toEqual(won[0]?.body);
    expect(new Set(won.map((r) => r.body.op)).size).toBe(1);
    for (const r of lost) expect([r.status, r.body.error.field]).toEqual([409, "event_id"]);
    expect(await reviewEvents(id)).toBe(1);
  });

  it("annotations: eight concurrent and later repeats count once and answer the first success", async () => {
    const { id, key } = await newArchive("once-ann");
    await seed(id, key);
    const path = `${base(id)}/chunks/note%3Ab/annotations`;
    const inc = { key: "uses", add: 1, event_id: "turn-1" };
    const first = await eightAtOnce(path, inc, key);
    expect(first.body).toMatchObject({ duplicate: false, current: { value: 1, events: 1 } });
    const again = await api("POST", path, inc, key);
    expect([again.status, again.body]).toEqual([201, first.body]);
    expect(again.headers.get(REPLAYED)).toBe("true");
    // Another count moves the value on; a repeat of the first still answers what it answered.
    await api("POST", path, { key: "uses", add: 1, event_id: "turn-2" }, key);
    expect((await api("POST", path, inc, key)).body).toEqual(first.body);
    const read = await api("GET", path, undefined, key);
    expect(read.body.values.uses).toMatchObject({ value: 2, events: 2 });
    // The same id for another key is a 409.
    const other = await api("POST", path, { key: "other", value: 1, event_id: "turn-1" }, key);
    expect([other.status, other.body.error.field]).toEqual([409, "event_id"]);
  });

  it("a failed request stores nothing: the id stays free, and the next try's success is the answer", async () => {
    const { id, key } = await newArchive("once-fail");
    await seed(id, key);
    const path = `${base(id)}/review`;
    const edge = { from: "note:b", type: "cites", to: "note:c" };
    const remove = { op: "remove_edge", edge, event_id: "e-later" };
    const failed = await Promise.all(Array.from({ length: 4 }, () => api("POST", path, remove, key)));
    for (const r of failed) expect(r.status).toBe(404);
    expect(
      (await api("POST", path, { op: "add_edge", edge, at: "2024-02-01", event_id: "e-add-first" }, key)).status,
    ).toBe(201);
    const now = await api("POST", path, { ...remove, at: "2024-03-01" }, key);
    expect(now.status, JSON.stringify(now.body)).toBe(201);
    expect(now.headers.get(REPLAYED)).toBeNull();
    const again = await api("POST", path, { ...remove, at: "2024-03-01" }, key);
    expect([again.status, again.body]).toEqual([201, now.body]);
  });

  it("an event stored without its answer is rebuilt once, then answered the same; a dead claim is taken over", async () => {
    const { id, key } = await newArchive("once-legacy");
    await seed(id, key);
    const path = `${base(id)}/chunks/note%3Aa/annotations`;
    const first = await api("POST", path, { key: "status", value: "proposed", event_id: "old" }, key);
    expect(first.status).toBe(201);
    // As before this table existed: the event is there, its answer is not.
    await env.DB.prepare("DELETE FROM event_outcomes WHERE archive_id = ?").bind(id).run();
    const rebuilt = await api("POST", path, { key: "status", value: "proposed", event_id: "old" }, key);
    expect(rebuilt.status).toBe(201);
    expect(rebuilt.body).toMatchObject({ duplicate: true, event: { id: first.body.event.id } });
    const later = await api("POST", path, { key: "status", value: "proposed", event_id: "old" }, key);
    expect([later.status, later.body]).toEqual([201, rebuilt.body]);

    // A claim left by a request that died a while ago: the next request takes it over and runs.
    await env.DB.prepare(
      "INSERT INTO event_outcomes (archive_id, event_id, request, claim, claimed_at) VALUES (?, 'review:dead', 'review verify of note:b', 'gone', 0)",
    )
      .bind(id)
      .run();
    const taken = await api("POST", `${base(id)}/review`, { op: "verify", chunk: "note:b", event_id: "dead" }, key);
    expect(taken.status, JSON.stringify(taken.body)).toBe(201);
    expect(taken.body.duplicate).toBe(false);
  });

  it("a hard delete of the chunk deletes its stored answers; the id then runs again", async () => {
    const { id, key } = await newArchive("once-forget");
    await seed(id, key);
    const ann = `${base(id)}/chunks/note%3Ac/annotations`;
    expect((await api("POST", ann, { key: "uses", add: 1, event_id: "c-1", reason: "zqxsecret" }, key)).status).toBe(
      201,
    );
    expect(
      (await api("POST", `${base(id)}/review`, { op: "verify", chunk: "note:c", event_id: "c-2" }, key)).status,
    ).toBe(201);
    const count = async () =>
      (
        await env.DB.prepare("SELECT COUNT(*) AS n FROM event_outcomes WHERE archive_id = ?")
          .bind(id)
          .first<{ n: number }>()
      )?.n;
    expect(await count()).toBe(2);
    expect((await api("DELETE", `${base(id)}/chunks?chunk=note%3Ac`, undefined, key)).status).toBe(200);
    expect(await count()).toBe(0);
    expect((await api("POST", ann, { key: "uses", add: 1, event_id: "c-1" }, key)).status).toBe(404);
  });
});
