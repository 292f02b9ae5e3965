/**
 * A hard delete interrupted at every step of its cascade. The application is wired with its forget
 * store, blob store and vector index wrapped so that the k-th call after arming throws (a crash of
 * the process at that point: nothing after it runs). For every k until the delete runs through: the
 * chunk is wholly present (the crash came before D1 committed) or its purge is pending; then a second
 * delete (even k) or a new isolate's resume (odd k) finishes it, and the chunk is wholly gone: no D1
 * row, no blob holding its text, no vector, no quoting copy, no pending record; the second delete
 * answers what the first would have.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { UseCases } from "../../src/app";
import { type Env, type WiredPorts, wire } from "../../src/wiring";
import { ADMIN, api, newArchive } from "./helpers";

const SECRET = "qorvaxtelumbric";

class Crash extends Error {}

/** Wraps an object so that, once armed, its k-th method call (counted across every wrapped object) throws. */
class Faults {
  left = -1;
  calls: string[] = [];
  wrap<T extends object>(name: string, o: T): T {
    return new Proxy(o, {
      get: (target, prop, receiver) => {
        const v = Reflect.get(target, prop, receiver);
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          if (this.left >= 0) {
            if (this.left === 0) {
              this.left = -1;
              throw new Crash(`crash before ${name}.${String(prop)}`);
            }
            this.left--;
            this.calls.push(`${name}.${String(prop)}`);
          }
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }
  arm(k: number) {
    this.left = k;
    this.calls = [];
  }
}

function faultyApp(faults: Faults): UseCases {
  return wire(env as unknown as Env, (p: WiredPorts) => ({
    forget: faults.wrap("forget", p.forget),
    blobs: faults.wrap("blobs", p.blobs),
    vectors: faults.wrap("vectors", p.vectors),
  }));
}

async function seed(id: string, key: string) {
  const ing = (artifacts: unknown[]) => api("POST", `/v1/archives/${id}/ingest`, { artifacts }, key);
  const base = { id: "note:x", kind: "note", title: "Velum notes", valid_from: "2024-01-01" };
  expect((await ing([{ ...base, content: "Velum memory graphs keep typed edges." }])).status).toBe(200);
  expect(
    (
      await ing([
        { ...base, content: `Velum memory graphs keep typed edges, tuned by ${SECRET}.`, valid_from: "2024-06-01" },
      ])
    ).status,
  ).toBe(200);
  const more = await ing([
    {
      id: "note:citer",
      kind: "note",
      title: "Related work",
      content: "Graph memories compared on long dialogues.",
      edges: [{ type: "cites", target: "note:x" }],
    },
    {
      id: "note:x#hub",
      kind: "note",
      title: "A hub quoting the note",
      content: `Quoted: ${SECRET} tuned the graphs.`,
      boundaries: ["sgmc:hub"],
      edges: [{ type: "cites", target: "note:x" }],
    },
  ]);
  expect(more.status, JSON.stringify(more.body)).toBe(200);
  const note = await api(
    "POST",
    `/v1/archives/${id}/chunks/note%3Ax/annotations`,
    { key: "status", value: "kept" },
    key,
  );
  expect(note.status, JSON.stringify(note.body)).toBeLessThan(300);
}

/** Whether the chunk exists in D1, its text in any blob, its vector in the index, or a pending purge. */
async function traces(archive: string, key: string) {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM chunks WHERE archive_id = ? AND chunk_id IN (?, ?)")
    .bind(archive, "note:x", "note:x#hub")
    .first<{ n: number }>();
  const pending = await env.DB.prepare("SELECT COUNT(*) AS n FROM pending_purges WHERE archive_id = ?")
    .bind(archive)
    .first<{ n: number }>();
  let text = 0;
  const list = await env.CONTENT.list({ prefix: `archives/${archive}/` });
  for (const o of list.objects) {
    const obj = await env.CONTENT.get(o.key);
    const bytes = new TextDecoder("latin1").decode(await (obj as R2ObjectBody).arrayBuffer());
    if (bytes.includes(SECRET)) text++;
  }
  const q = { query: `Velum memory graphs ${SECRET}`, include_trace: true };
  const route = await api("POST", `/v1/archives/${archive}/route`, q, key);
  const semantic = JSON.stringify(route.body.trace ?? "");
  const candidates = JSON.stringify(route.body.candidates ?? []);
  return {
    rows: row?.n ?? 0,
    pending: pending?.n ?? 0,
    blobsWithText: text,
    vector: semantic.includes('"note:x"'),
    candidate: candidates.includes('"note:x"'),
  };
}

describe("a hard delete interrupted at every step", () => {
  it("is wholly present, or pending and finished by a second delete or a resume", async () => {
    const faults = new Faults();
    const app = faultyApp(faults);
    const clean = wire(env as unknown as Env);
    const seen = new Set<string>();
    let k = 0;
    for (; k < 60; k++) {
      const { id, key } = await newArchive(`crash${k}`);
      await seed(id, key);
      const before = await traces(id, key);
      expect(before.rows).toBe(2);
      expect(before.blobsWithText).toBeGreaterThan(0);
      expect(before.vector && before.candidate).toBe(true);
      faults.arm(k);
      let crashed = false;
      let point = "";
      try {
        const r = await app.forget.chunk(id, "note:x", `Bearer ${ADMIN}`);
        expect(r.ok).toBe(true);
      } catch (err) {
        if (!(err instanceof Crash)) throw err;
        crashed = true;
        point = err.message;
      }
      faults.arm(-1);
      const after = await traces(id, key);
      if (crashed) {
        seen.add(point);
        // Wholly present, or committed with its purge pending: never a half without a record.
        if (after.rows === 2) expect(after.pending).toBe(0);
        else expect(after.pending).toBeGreaterThan(0);
        if (k % 2 === 0) {
          const again = await api("DELETE", `/v1/archives/${id}/chunks/note%3Ax`, undefined, key);
          expect(again.status, JSON.stringify(again.body)).toBe(200);
          expect(again.body.deleted).toMatchObject({ target: "chunk", id: "note:x", versions: 2, vectors: 1 });
        } else if (after.rows === 2) {
          // Nothing committed: the delete is simply made again.
          expect((await clean.forget.chunk(id, "note:x", `Bearer ${ADMIN}`)).ok).toBe(true);
        } else {
          expect(await clean.forget.resume()).toMatchObject({ failed: 0 });
        }
      }
      const gone = await traces(id, key);
      expect(gone, `k=${k}`).toEqual({ rows: 0, pending: 0, blobsWithText: 0, vector: false, candidate: false });
      expect((await api("DELETE", `/v1/archives/${id}/chunks/note%3Ax`, undefined, key)).status).toBe(404);
      if (!crashed) break;
    }
    // The delete ran through at some k, after crashing at every call before it.
    expect(k).toBeLessThan(60);
    expect(k).toBeGreaterThan(8);
    // Crashes landed before calls of several distinct methods across the three ports.
    expect(seen.size, [...seen].join("\n")).toBeGreaterThan(5);
  }, 300_000);
});
