/**
 * The capital chunk's Durable Object applies the change log one replay at a time, and a read that
 * arrives while a batch is being applied answers from the state as it stands instead of waiting:
 * every change is applied exactly once, and the read is not held behind the batch.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChangeOp } from "../../src/core/types";
import { api, newArchive } from "./helpers";

const after0 = (seq: number) => seq + 1200;
// "stat" is what the analyser makes of note:0's "Station"; the batch below stores the raw term
// "station", so a read matches whichever part of the archive it sees.
const input = (limit: number, term = "station") => ({
  mentions: [],
  identifiers: [],
  boundaries: [],
  semantic: [],
  querySketch: new Uint8Array(32),
  terms: term === "station" ? ["stat", term] : [term],
  asOf: Date.UTC(2030, 0, 1),
  now: Date.UTC(2030, 0, 1),
  limit,
});

describe("capital chunk replay", () => {
  it("applies each change once with reads and syncs interleaved, and reads do not wait for a batch", async () => {
    const a = await newArchive("replay");
    const first = await api(
      "POST",
      `/v1/archives/${a.id}/ingest`,
      { artifacts: [{ id: "note:0", kind: "note", title: "Station 0", content: "Station 0 opened." }] },
      a.key,
    );
    expect(first.status).toBe(200);
    const stub = env.CAPITAL.get(env.CAPITAL.idFromName(a.id));
    const before = await stub.stats(a.id);
    // 1,200 changes committed to the log at once (600 heads, 600 edges), as a large import does.
    const ops: ChangeOp[] = [];
    for (let i = 1; i <= 600; i++) {
      ops.push({
        op: "head.upsert",
        chunk: `note:${i}`,
        kind: "note",
        version: 1,
        validFrom: Date.UTC(2025, 0, 1) + i,
        recordedAt: Date.UTC(2025, 0, 1) + i,
        entities: [],
        boundaries: [],
        sketch: "",
        terms: `station:1 n${i}:1`,
        len: 2,
      });
      ops.push({
        op: "edge.upsert",
        src: `note:${i}`,
        dst: `note:${i - 1}`,
        type: "cites",
        weight: 1,
        validFrom: 0,
        validTo: null,
      });
    }
    for (let i = 0; i < ops.length; i += 50)
      await env.DB.batch(
        ops
          .slice(i, i + 50)
          .map((op) =>
            env.DB.prepare("INSERT INTO change_log (archive_id, op, at) VALUES (?, ?, ?)").bind(
              a.id,
              JSON.stringify(op),
              0,
            ),
          ),
      );
    let synced = false;
    const syncing = stub.sync(a.id).then((r) => {
      synced = true;
      return r;
    });
    // Reads sent while the batch is applied: neither waits for the whole batch nor applies it again.
    const reads = await Promise.all([stub.route(a.id, input(5)), stub.route(a.id, input(5))]);
    const readBeforeSync = !synced;
    const done = await syncing;
    expect(done.seq).toBeGreaterThanOrEqual(after0(before.seq));
    expect(reads[0]?.selected.length).toBeGreaterThan(0);
    const after = await stub.stats(a.id);
    expect(after.heads).toBe(before.heads + 600);
    expect(after.edges).toBe(before.edges + 600);
    expect(readBeforeSync).toBe(true);
    // The state the reads saw was consistent (whole changes), and a read after the sync sees all.
    const last = await stub.route(a.id, input(3, "n600"));
    expect(last?.selected[0]?.chunk).toBe("note:600");
  });
});
