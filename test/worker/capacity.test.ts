/**
 * The capital chunk's heap budget: an ingest that would take the object past params.heap_budget_bytes
 * is refused whole with a 413 naming the parameter, nothing is written, and the archive keeps
 * answering; a hard delete frees room again.
 */
import { describe, expect, it } from "vitest";
import { ADMIN, api } from "./helpers";

const notes = (from: number, n: number) =>
  Array.from({ length: n }, (_, k) => ({
    id: `note:${from + k}`,
    kind: "note",
    title: `Station ${from + k}`,
    content: `Station ${from + k} opened on the Kestrel line in ${1900 + ((from + k) % 100)} near Caldbeck ${k % 7}.`,
  }));

describe("capital chunk heap budget", () => {
  it("refuses the batch that would pass the budget, writes nothing of it, and keeps answering", async () => {
    const id = `cap-${Date.now().toString(36)}`;
    const made = await api("POST", "/v1/archives", { id, name: id, params: { heap_budget_bytes: 65_536 } });
    expect(made.status).toBe(201);
    const key = made.body.key.secret as string;
    let stored = 0;
    let refused: { status: number; body: { error: { field: string; message: string } } } | null = null;
    for (let b = 0; b < 20 && refused === null; b++) {
      const r = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: notes(b * 40, 40) }, key);
      if (r.status === 200) stored += 40;
      else refused = r;
    }
    expect(stored).toBeGreaterThan(0);
    expect(refused?.status).toBe(413);
    expect(refused?.body.error.field).toBe("params.heap_budget_bytes");
    expect(refused?.body.error.message).toContain("65536");
    const info = await api("GET", `/v1/archives/${id}`, undefined, key);
    expect(info.body.stats.storage.chunks).toBe(stored);
    expect(info.body.stats.capital.heads).toBe(stored);
    expect(info.body.stats.capital.bytes.total).toBeLessThanOrEqual(65_536);
    // Revisions of stored heads add no head and still go through.
    const rev = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      { artifacts: [{ ...notes(0, 1)[0], content: "Station 0 closed in 1968." }] },
      key,
    );
    expect(rev.status).toBe(200);
    const q = await api("POST", `/v1/archives/${id}/route`, { query: "When did Station 3 open?", limit: 3 }, key);
    expect(q.status).toBe(200);
    expect(q.body.selected[0].chunk).toBe("note:3");
    // Deleting heads frees room for new ones.
    for (let k = 0; k < 120; k++) await api("DELETE", `/v1/archives/${id}/chunks?chunk=note:${k}`, undefined, ADMIN);
    const again = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: notes(5000, 20) }, key);
    expect(again.status).toBe(200);
  });

  it("rejects a budget outside 64 KiB .. 96 MiB, naming the field", async () => {
    const id = `cap-bad-${Date.now().toString(36)}`;
    const r = await api("POST", "/v1/archives", { id, name: id, params: { heap_budget_bytes: 1000 } });
    expect(r.status).toBe(400);
    expect(r.body.error.field).toContain("heap_budget_bytes");
  });
});
