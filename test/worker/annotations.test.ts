/** Annotations over REST: statuses and counters on chunks, read as of any time, idempotent retries. */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";

const base = (id: string) => `/v1/archives/${id}`;

describe("annotations", () => {
  it("appends statuses and counters, reads them as of a time, and a retried event counts once", async () => {
    const { id, key } = await newArchive("ann");
    await api(
      "POST",
      `${base(id)}/ingest`,
      {
        artifacts: [
          {
            id: "decision:cache",
            kind: "decision",
            title: "Cache",
            content: "We cache heads.",
            valid_from: "2024-01-01",
          },
        ],
      },
      key,
    );
    const path = `${base(id)}/chunks/decision%3Acache/annotations`;
    const a1 = await api("POST", path, { key: "status", value: "proposed", at: "2024-01-02" }, key);
    expect(a1.status).toBe(201);
    expect(a1.body.event).toMatchObject({
      key: "status",
      op: "set",
      value: "proposed",
      at: "2024-01-02T00:00:00.000Z",
    });
    expect(a1.body.event.actor).toMatch(/^key:/);
    await api("POST", path, { key: "status", value: "committed", at: "2024-02-01", reason: "approved" }, key);
    const inc = { key: "uses", add: 1, at: "2024-02-05", event_id: "turn-17" };
    const u1 = await api("POST", path, inc, key);
    const u2 = await api("POST", path, inc, key);
    expect(u1.body.duplicate).toBe(false);
    // The retry is the first answer again, byte for byte, marked by a header.
    expect([u2.status, u2.body]).toEqual([201, u1.body]);
    expect(u1.headers.get("idempotent-replayed")).toBeNull();
    expect(u2.headers.get("idempotent-replayed")).toBe("true");
    expect(u2.body.current.value).toBe(1);
    await api("POST", path, { key: "uses", add: 2, at: "2024-03-01" }, key);

    const jan = await api("GET", `${path}?as_of=2024-01-15`, undefined, key);
    expect(jan.body.values).toEqual({
      status: {
        value: "proposed",
        at: "2024-01-02T00:00:00.000Z",
        actor: expect.stringMatching(/^key:/),
        reason: "",
        version: null,
        events: 1,
      },
    });
    const now = await api("GET", path, undefined, key);
    expect(now.body.values.status.value).toBe("committed");
    expect(now.body.values.status.reason).toBe("approved");
    expect(now.body.values.uses).toMatchObject({ value: 3, events: 2 });
    expect(now.body.events).toHaveLength(4);
    expect((await api("GET", `${path}?key=uses&as_of=2024-02-10`, undefined, key)).body.values).toEqual({
      uses: expect.objectContaining({ value: 1 }),
    });
  });

  it("refuses bad input, unknown chunks and versions, and other archives' keys; a hard delete removes them", async () => {
    const { id, key } = await newArchive("ann2");
    const other = await newArchive("ann3");
    await api(
      "POST",
      `${base(id)}/ingest`,
      { artifacts: [{ id: "note:a", kind: "note", title: "A", content: "A." }] },
      key,
    );
    const path = `${base(id)}/chunks/note%3Aa/annotations`;
    const both = await api("POST", path, { key: "k", value: 1, add: 1 }, key);
    expect(both.status).toBe(400);
    expect(both.body.error.field).toBe("value");
    expect((await api("POST", path, { key: "Bad Key", value: 1 }, key)).body.error.message).toContain(
      "annotation keys are",
    );
    expect((await api("POST", path, { key: "k", value: { nested: true } }, key)).status).toBe(400);
    expect((await api("POST", path, { key: "k", value: 1, version: 2 }, key)).status).toBe(404);
    expect((await api("POST", `${base(id)}/chunks/note%3Anope/annotations`, { key: "k", value: 1 }, key)).status).toBe(
      404,
    );
    expect((await api("POST", path, { key: "k", value: 1 }, other.key)).status).toBe(403);
    expect((await api("GET", path, undefined, other.key)).status).toBe(403);
    await api("POST", path, { key: "status", value: "rejected", event_id: "e1" }, key);
    const reused = await api("POST", path, { key: "other", value: 1, event_id: "e1" }, key);
    expect(reused.status).toBe(409);
    expect((await api("DELETE", `${base(id)}/chunks?chunk=note%3Aa`, undefined, key)).status).toBe(200);
    await api(
      "POST",
      `${base(id)}/ingest`,
      { artifacts: [{ id: "note:a", kind: "note", title: "A", content: "A again." }] },
      key,
    );
    expect((await api("GET", path, undefined, key)).body.values).toEqual({});
  });
});
