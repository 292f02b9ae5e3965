/**
 * The capital chunk's tables port: one contract for every implementation (in memory; SQLite, the
 * engine of a Durable Object's storage, here compiled to WebAssembly: scripts/lib/sqlite.ts), and the
 * store built over SQLite with checkpoints and rebuilds answering exactly like the in-memory one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nodeSql } from "../../scripts/lib/sqlite";
import { CapitalStore, route } from "../../src/core/capital";
import { PostingBuffer } from "../../src/core/capital/posting-buffer";
import { BLOCK, SqlTables } from "../../src/core/capital/sql-tables";
import { type CapitalTables, MemoryTables } from "../../src/core/capital/tables";
import type { ChangeOp } from "../../src/core/types";
import { prose, proseOps, queryInput } from "../fixtures/prose";

interface Impl {
  name: string;
  /** A fresh empty implementation, and a way to checkpoint and reopen it (SQLite) or keep it (memory). */
  make(): { tables: CapitalTables; reopen(): CapitalTables };
}

const IMPLS: Impl[] = [
  {
    name: "memory",
    make() {
      const tables = new MemoryTables();
      return { tables, reopen: () => tables };
    },
  },
  {
    name: "sqlite",
    make() {
      const sql = nodeSql();
      const tables = new SqlTables(sql);
      return {
        tables,
        reopen() {
          tables.checkpoint(1, new Uint8Array(0));
          return new SqlTables(sql);
        },
      };
    },
  },
];

const all = (t: CapitalTables, lists: "entityPosts" | "termPosts", key: number, cap = Number.POSITIVE_INFINITY) => {
  const out: Array<[number, number]> = [];
  t[lists].each(key, cap, (v, x) => {
    out.push([v, x]);
    return true;
  });
  return out;
};

for (const impl of IMPLS) {
  describe(`tables contract: ${impl.name}`, () => {
    it("lists: newest first, counts, caps and early stop, across a checkpoint", () => {
      const { tables, reopen } = impl.make();
      for (let k = 0; k < 10; k++) tables.termPosts.push(7, k, k % 3);
      tables.entityPosts.push(3, 42, 0);
      const t = reopen();
      for (let k = 10; k < 15; k++) t.termPosts.push(7, k, k % 3);
      expect(t.termPosts.count(7)).toBe(15);
      expect(all(t, "termPosts", 7).map(([v]) => v)).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      expect(all(t, "termPosts", 7, 7).map(([v, x]) => [v, x])).toEqual(
        [14, 13, 12, 11, 10, 9, 8].map((v) => [v, v % 3]),
      );
      let seen = 0;
      expect(t.termPosts.each(7, 100, () => ++seen < 4)).toBe(4);
      expect(all(t, "entityPosts", 3)).toEqual([[42, 0]]);
      expect(t.termPosts.count(99)).toBe(0);
      expect(all(t, "termPosts", 99)).toEqual([]);
    });

    it("post and posted: a node is posted under an entity once asked, in the buffer and across a checkpoint", () => {
      const { tables, reopen } = impl.make();
      const [a, b, c] = ["concept:a", "concept:b", "boundary:split:s1"].map((id) => tables.entityAdd(id)) as [
        number,
        number,
        number,
      ];
      for (let node = 0; node < 50; node++) {
        tables.post(c, node);
        if (node % 2 === 0) tables.post(a, node);
      }
      expect(tables.posted(a, 4)).toBe(true);
      expect(tables.posted(a, 5)).toBe(false);
      const t = reopen();
      t.post(b, 7);
      for (const [e, node, want] of [
        [a, 48, true],
        [a, 49, false],
        [b, 7, true],
        [b, 8, false],
        [c, 0, true],
        [c, 50, false],
      ] as const)
        expect(t.posted(e, node), `${e} ${node}`).toBe(want);
      expect(all(t, "entityPosts", a).length).toBe(25);
      expect(all(t, "entityPosts", b)).toEqual([[7, 0]]);
    });

    it("a list longer than a stored block keeps every value in order", () => {
      const { tables, reopen } = impl.make();
      const n = BLOCK + BLOCK / 2;
      for (let k = 0; k < n; k++) tables.termPosts.push(1, k, k & 255);
      const t = reopen();
      for (let k = n; k < n + 10; k++) t.termPosts.push(1, k, k & 255);
      if (t instanceof SqlTables) t.checkpoint(2, new Uint8Array(0));
      const vals = all(t, "termPosts", 1);
      expect(vals.length).toBe(n + 10);
      expect(vals.every(([v, x], i) => v === n + 9 - i && x === (v & 255))).toBe(true);
    });

    it("entities, names, aliases, owners and timelines", () => {
      const { tables, reopen } = impl.make();
      const a = tables.entityAdd("method:hipporag");
      const b = tables.entityAdd("concept:ardmore");
      tables.setEntityInfo(a, "HippoRAG", "method");
      tables.setAliases("hipporag", [{ e: a, from: 0, to: Number.POSITIVE_INFINITY }]);
      tables.addOwner(b, 5);
      expect(tables.timelineInsert("s", 100, 1)).toEqual({ prev: -1, next: -1 });
      expect(tables.timelineInsert("s", 300, 3)).toEqual({ prev: 1, next: -1 });
      const t = reopen();
      expect(t.entityCount()).toBe(2);
      expect(t.entityIndex("concept:ardmore")).toBe(b);
      expect(t.entityIndex("nothing")).toBeUndefined();
      expect([t.entityId(a), t.entityName(a), t.entityType(a)]).toEqual(["method:hipporag", "HippoRAG", "method"]);
      expect([t.entityName(b), t.entityType(b)]).toEqual(["concept:ardmore", "concept"]);
      expect(t.aliases("hipporag")).toEqual([{ e: a, from: 0, to: Number.POSITIVE_INFINITY }]);
      expect(t.aliases("nope")).toBeUndefined();
      t.addOwner(b, 9);
      expect(t.owners(b)).toEqual([5, 9]);
      expect(t.owners(a)).toEqual([]);
      // A back-dated entry lands between its neighbours; a tie goes after the earlier arrival.
      expect(t.timelineInsert("s", 200, 2)).toEqual({ prev: 1, next: 3 });
      expect(t.timelineInsert("s", 200, 4)).toEqual({ prev: 2, next: 3 });
      expect(t.timelineInsert("other", 200, 5)).toEqual({ prev: -1, next: -1 });
      const c = t.entityAdd("concept:new");
      expect(c).toBe(2);
      expect(t.entityId(c)).toBe("concept:new");
    });
  });
}

describe("sqlite tables: whether a node is posted under an entity", () => {
  /** Stored bytes one `posted` question reads, with `nodes` posted under one entity (a boundary). */
  function bytesAsked(nodes: number): number {
    const sql = nodeSql();
    let bytes = 0;
    const counting = {
      ...sql,
      all: (q: string, ...p: Parameters<typeof sql.all>[1][]) => {
        const rows = sql.all(q, ...p);
        for (const r of rows) for (const v of Object.values(r)) if (v instanceof Uint8Array) bytes += v.byteLength;
        return rows;
      },
    };
    const t = new SqlTables(counting);
    const boundary = t.entityAdd("boundary:source:arxiv");
    const other = t.entityAdd("concept:rare");
    for (let node = 0; node < nodes; node++) {
      t.post(boundary, node);
      if (node % 1000 === 0) {
        t.post(other, node);
        t.checkpoint(node + 1, new Uint8Array(0));
      }
    }
    t.checkpoint(nodes + 1, new Uint8Array(0));
    while (t.merge(100_000));
    bytes = 0;
    // A revision of an early node asks about both of its entities and a new one.
    for (const e of [boundary, other]) expect(t.posted(e, 1000)).toBe(true);
    expect(t.posted(other, 1001)).toBe(false);
    return bytes;
  }

  it("reads the node's own entities, not every node of the entity: bytes read do not grow with the list", () => {
    const small = bytesAsked(2_000);
    const large = bytesAsked(40_000);
    // A scan of the boundary's list reads 4 bytes per posting: 160,000 bytes at 40,000 nodes.
    expect(large).toBeLessThan(3 * small + 20_000);
    expect(large).toBeLessThan(40_000);
  });
});

describe("sqlite tables written before nodes kept their entities", () => {
  it("answer posted by scanning the entity's list until a rebuild empties them, then key both ways", () => {
    const sql = nodeSql();
    const old = new SqlTables(sql);
    const e = old.entityAdd("concept:a");
    for (let node = 0; node < 30; node++) old.post(e, node);
    old.checkpoint(1, new Uint8Array(0));
    // As such tables were stored: postings without the node keying or the meta saying it is complete.
    sql.run("DELETE FROM pg_seg WHERE space = 2");
    sql.run("DELETE FROM pg_segs WHERE space = 2");
    sql.run("DELETE FROM pg_meta WHERE k = 'fwd'");
    const t = new SqlTables(sql);
    expect(t.posted(e, 12)).toBe(true);
    expect(t.posted(e, 30)).toBe(false);
    t.post(e, 30);
    t.checkpoint(2, new Uint8Array(0));
    const again = new SqlTables(sql);
    expect(again.posted(e, 30)).toBe(true);
    expect(again.posted(e, 3)).toBe(true);
    expect(again.nodeEntities.count(3)).toBe(0);
    again.clear();
    const f = again.entityAdd("concept:a");
    again.post(f, 3);
    again.checkpoint(3, new Uint8Array(0));
    const rebuilt = new SqlTables(sql);
    expect(rebuilt.nodeEntities.count(3)).toBe(1);
    expect(rebuilt.posted(f, 3)).toBe(true);
    expect(rebuilt.posted(f, 4)).toBe(false);
  });
});

/** Route answers (ids, scores to 12 digits) of a set of queries. */
function answers(s: CapitalStore, queries: string[]) {
  return queries.map((q) =>
    route(s, queryInput(q)).selected.map((x) => `${x.chunk}:${x.version}:${x.score.toPrecision(12)}`),
  );
}

describe("a store over SQLite answers like one in memory", () => {
  it("with checkpoints at arbitrary points, read-ahead, and a rebuild from the last one (property)", async () => {
    const passages = prose(300, 5);
    const base = await proseOps(passages);
    // Revisions, deprecations and aliases among the heads, so every op kind crosses checkpoints.
    const extra: ChangeOp[] = [
      { op: "entity.upsert", id: "place:ardmore", type: "concept", name: "Ardmore", at: 0 },
      { op: "alias.add", entity: "place:ardmore", alias: passages[3]?.title ?? "x", validFrom: 0, validTo: null },
      { op: "head.deprecate", chunk: passages[7]?.id ?? "", at: Date.UTC(2026, 0, 1), by: passages[8]?.id ?? null },
      ...(
        await proseOps(
          passages.slice(0, 20).map((p) => ({ ...p, content: `${p.content} Revised with Ardmore.` })),
          Date.UTC(2026, 5, 1),
        )
      ).map((op) => (op.op === "head.upsert" ? { ...op, version: 2 } : op)),
    ];
    const ops = [...base, ...extra];
    const queries = passages.slice(0, 12).map((p) => `Who described ${p.title} and when was it founded?`);
    const reference = new CapitalStore();
    for (const op of ops) reference.apply(op);
    const expected = answers(reference, queries);
    expect(expected.flat().length).toBeGreaterThan(60);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: ops.length - 1 }), { maxLength: 4 }),
        fc.integer({ min: 0, max: ops.length }),
        // Read ahead (as the object does per slice of changes) every `slice` changes, or never.
        fc.constantFrom(0, 1, 7, 32),
        async (checkpoints, crashAt, slice) => {
          const sql = nodeSql();
          let store = new CapitalStore(undefined, new SqlTables(sql));
          const marks = new Set(checkpoints);
          for (let k = 0; k < ops.length; k++) {
            if (slice > 0 && k % slice === 0) store.prefetch(ops.slice(k, k + slice));
            store.apply(ops[k] as ChangeOp);
            store.seq = k + 1;
            if (marks.has(k + 1)) (store.tables as SqlTables).checkpoint(store.seq, store.serialize());
            if (k + 1 === crashAt) {
              // Eviction: the heap and the write buffer are lost; the checkpoint and the log remain.
              const tables = new SqlTables(sql);
              const snap = tables.heapSnapshot();
              store = snap ? CapitalStore.deserialize(snap, tables) : new CapitalStore(undefined, tables);
              if (!snap) tables.clear();
              for (let j = store.seq; j < k + 1; j++) {
                store.apply(ops[j] as ChangeOp);
                store.seq = j + 1;
              }
            }
          }
          expect(answers(store, queries)).toEqual(expected);
          sql.close();
        },
      ),
      { numRuns: 12 },
    );
  });
});

describe("a checkpoint is all or nothing", () => {
  it("a crash part-way through a checkpoint leaves the previous one, and a rebuild from it answers as before", async () => {
    const passages = prose(200, 9);
    const ops = await proseOps(passages);
    const queries = passages.slice(0, 8).map((p) => `Who described ${p.title}?`);
    const reference = new CapitalStore();
    for (const op of ops) reference.apply(op);
    const expected = answers(reference, queries);
    // The engine under the tables, failing its Nth write from now on (a crash inside the transaction).
    const engine = () => {
      const real = nodeSql();
      const e = {
        failAfter: Number.POSITIVE_INFINITY,
        writes: 0,
        sql: {
          ...real,
          run(q: string, ...p: Parameters<typeof real.run>[1][]) {
            if (--e.failAfter < 0) throw new Error("crash");
            e.writes++;
            real.run(q, ...p);
          },
        },
      };
      return e;
    };
    const half = Math.floor(ops.length / 2);
    /** Apply every op with a checkpoint half-way, then checkpoint again failing after `failAt` writes. */
    const run = (failAt: number) => {
      const e = engine();
      const store = new CapitalStore(undefined, new SqlTables(e.sql));
      for (let k = 0; k < ops.length; k++) {
        store.apply(ops[k] as ChangeOp);
        store.seq = k + 1;
        if (k + 1 === half) (store.tables as SqlTables).checkpoint(store.seq, store.serialize());
      }
      e.writes = 0;
      e.failAfter = failAt;
      let threw = false;
      try {
        (store.tables as SqlTables).checkpoint(store.seq, store.serialize());
      } catch {
        threw = true;
      }
      return { e, threw };
    };
    // How many writes the second checkpoint makes, then a crash half-way through them.
    const whole = run(Number.POSITIVE_INFINITY);
    expect(whole.threw).toBe(false);
    expect(whole.e.writes).toBeGreaterThan(10);
    const { e, threw } = run(Math.floor(whole.e.writes / 2));
    expect(threw).toBe(true);
    const sql = e.sql;
    let store: CapitalStore;
    e.failAfter = Number.POSITIVE_INFINITY;
    const tables = new SqlTables(sql);
    expect(tables.checkpointSeq()).toBe(half);
    store = CapitalStore.deserialize(tables.heapSnapshot() as Uint8Array, tables);
    for (let j = store.seq; j < ops.length; j++) {
      store.apply(ops[j] as ChangeOp);
      store.seq = j + 1;
    }
    expect(answers(store, queries)).toEqual(expected);
  });
});

describe("the packed posting buffer", () => {
  it("reads like a map of arrays: counts, newest first with caps and early stop, keys ascending, lists oldest first (property)", () => {
    const push = fc.record({
      key: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 2 ** 32 - 1 })),
      value: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      extra: fc.integer({ min: 0, max: 255 }),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(push, { maxLength: 400 }), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        (rounds, withExtra) => {
          const buf = new PostingBuffer(withExtra);
          for (const round of rounds) {
            buf.clear();
            const model = new Map<number, Array<[number, number]>>();
            for (const p of round) {
              buf.push(p.key, p.value, p.extra);
              const l = model.get(p.key) ?? [];
              l.push([p.value, withExtra ? p.extra : 0]);
              model.set(p.key, l);
            }
            expect(buf.values).toBe(round.length);
            expect(buf.lists).toBe(model.size);
            expect(Array.from(buf.keys())).toEqual([...model.keys()].sort((a, b) => a - b));
            for (const [key, l] of model) {
              expect(buf.count(key)).toBe(l.length);
              const got = buf.list(key);
              expect(Array.from(got.vals)).toEqual(l.map((x) => x[0]));
              if (withExtra) expect(Array.from(got.extra)).toEqual(l.map((x) => x[1]));
              const newest: Array<[number, number]> = [];
              const cap = 1 + (key % 5);
              const seen = buf.each(key, cap, (v, x) => {
                newest.push([v, x]);
                return true;
              });
              expect(newest).toEqual(l.slice().reverse().slice(0, cap));
              expect(seen).toBe(Math.min(cap, l.length));
              const stopped: number[] = [];
              buf.each(key, 99, (v) => {
                stopped.push(v);
                return false;
              });
              expect(stopped).toEqual([l[l.length - 1]?.[0]]);
            }
            expect(buf.count(2 ** 32 - 7)).toBe(model.get(2 ** 32 - 7)?.length ?? 0);
            expect(buf.bytes()).toBeGreaterThanOrEqual(round.length * (withExtra ? 9 : 8));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("holds a batch of real-sized lists in a quarter of the bytes of a map of arrays", () => {
    // 1,300 lists of about one posting each (a dozen passages' distinct terms), as a small shard buffers.
    const buf = new PostingBuffer(true);
    for (let k = 0; k < 1400; k++) buf.push((k * 2654435761) >>> 0 || 1, k, k & 255);
    const mapOfArrays = buf.lists * (40 + 96) + buf.values * 16;
    expect(buf.bytes()).toBeLessThan(mapOfArrays / 3);
  });
});

describe("posting segments", () => {
  /** Every value of list `key`, newest first. */
  const listOf = (t: SqlTables | MemoryTables, key: number) => all(t, "termPosts", key);

  it("flushes, sliced merges, crashes mid-merge and reopens read like one list in memory (property)", () => {
    const step = fc.oneof(
      // Append n values (n up to past a dedicated page) to one of a few keys, spread over the hash range.
      fc.record({
        kind: fc.constant("push" as const),
        key: fc.constantFrom(1, 7, 4_000_000_000, 2 ** 31, 99),
        n: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 800, max: 9000 })),
      }),
      fc.record({ kind: fc.constant("checkpoint" as const) }),
      fc.record({ kind: fc.constant("merge" as const), budget: fc.integer({ min: 1, max: 5000 }) }),
      fc.record({ kind: fc.constant("reopen" as const) }),
      fc.record({ kind: fc.constant("seal" as const) }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 60 }), (steps) => {
        const sql = nodeSql();
        let t = new SqlTables(sql);
        const ref = new MemoryTables();
        let next = 0;
        let seq = 0;
        for (const s of steps) {
          if (s.kind === "push") {
            for (let k = 0; k < s.n; k++) {
              const v = next++;
              t.termPosts.push(s.key, v, v & 255);
              ref.termPosts.push(s.key, v, v & 255);
            }
          } else if (s.kind === "checkpoint") t.checkpoint(++seq, new Uint8Array(0));
          else if (s.kind === "merge") t.merge(s.budget);
          else if (s.kind === "seal") t.sealTerms();
          else {
            // What was not checkpointed is lost on reopen, in the reference too: checkpoint first.
            t.checkpoint(++seq, new Uint8Array(0));
            t = new SqlTables(sql);
          }
        }
        for (const key of [1, 7, 4_000_000_000, 2 ** 31, 99, 5]) {
          expect(t.termPosts.count(key)).toBe(ref.termPosts.count(key));
          expect(listOf(t, key)).toEqual(listOf(ref, key));
        }
        // Merging to the end leaves fewer than FANOUT segments per level and the same lists.
        t.checkpoint(++seq, new Uint8Array(0));
        while (t.merge(1000));
        const levels = new Map<number, number>();
        for (const s of t.termPosts.segments()) levels.set(s.level, (levels.get(s.level) ?? 0) + 1);
        for (const n of levels.values()) expect(n).toBeLessThan(8);
        for (const key of [1, 7, 4_000_000_000, 2 ** 31, 99])
          expect(listOf(new SqlTables(sql), key)).toEqual(listOf(ref, key));
      }),
      { numRuns: 40 },
    );
  });

  it("eight segments merge into one in slices; a reopen mid-merge drops the partial output", () => {
    const sql = nodeSql();
    let t = new SqlTables(sql);
    const ref = new MemoryTables();
    let v = 0;
    for (let c = 1; c <= 8; c++) {
      for (let key = 0; key < 400; key++) {
        // Key 5 holds 9,000 a flush: each flush is past a small segment's size, so none is absorbed.
        for (let k = 0; k < 1 + (key % 3) + (key === 5 ? 9000 : 0); k++) {
          t.termPosts.push(key * 104729, v, v & 255);
          ref.termPosts.push(key * 104729, v, v & 255);
          v++;
        }
      }
      t.checkpoint(c, new Uint8Array(0));
    }
    expect(t.termPosts.segments().length).toBe(8);
    expect(t.merge(500)).toBe(true);
    // A crash: the tables open again with the merge half done.
    t = new SqlTables(sql);
    expect(t.termPosts.segments().length).toBe(8);
    expect(sql.all("SELECT COUNT(*) AS n FROM pg_segs WHERE live = 0")[0]?.n).toBe(0);
    let slices = 0;
    while (t.merge(500)) slices++;
    expect(slices).toBeGreaterThan(3);
    expect(t.termPosts.segments().map((s) => s.level)).toEqual([1]);
    for (const key of [0, 5, 77, 399].map((k) => k * 104729)) expect(listOf(t, key)).toEqual(listOf(ref, key));
  });

  it("sealed (a closed shard), the term postings merge down to one segment, and revisions to at most two", () => {
    const sql = nodeSql();
    const t = new SqlTables(sql);
    const ref = new MemoryTables();
    let v = 0;
    const flush = (keys: number, each: number, seq: number) => {
      for (let key = 0; key < keys; key++)
        for (let k = 0; k < each + (key === 5 ? 9000 : 0); k++) {
          t.termPosts.push(key * 104729, v, v & 255);
          ref.termPosts.push(key * 104729, v, v & 255);
          v++;
        }
      t.checkpoint(seq, new Uint8Array(0));
    };
    for (let c = 1; c <= 5; c++) flush(400, 2, c);
    // Five segments of one level: below the tiered merge's eight, so nothing is due yet.
    expect(t.termPosts.segments().length).toBe(5);
    expect(t.mergeDue()).toBe(false);
    t.sealTerms();
    while (t.merge(700));
    expect(t.termPosts.segments().length).toBe(1);
    // Revisions: small flushes newer than the big segment merge among themselves.
    for (let c = 6; c <= 9; c++) {
      flush(30, 1, c);
      while (t.merge(700));
      expect(t.termPosts.segments().length).toBeLessThanOrEqual(2);
    }
    for (const key of [0, 5, 7, 29, 399].map((k) => k * 104729)) expect(listOf(t, key)).toEqual(listOf(ref, key));
  });

  it("a small newest segment takes the next flush in: frequent small checkpoints leave one segment", () => {
    const sql = nodeSql();
    const t = new SqlTables(sql);
    const ref = new MemoryTables();
    for (let c = 1; c <= 30; c++) {
      for (let key = 0; key < 20; key++) {
        t.termPosts.push(key * 31, c * 100 + key, key);
        ref.termPosts.push(key * 31, c * 100 + key, key);
      }
      t.checkpoint(c, new Uint8Array(0));
    }
    expect(t.termPosts.segments().length).toBe(1);
    expect(sql.all("SELECT COUNT(*) AS n FROM pg_segs")[0]?.n).toBe(1);
    for (const key of [0, 31, 19 * 31]) expect(listOf(new SqlTables(sql), key)).toEqual(listOf(ref, key));
  });

  it("a checkpoint writes a row per page, not per list", () => {
    const writes: string[] = [];
    const real = nodeSql();
    const sql = {
      ...real,
      run(q: string, ...p: Parameters<typeof real.run>[1][]) {
        writes.push(q);
        real.run(q, ...p);
      },
    };
    const t = new SqlTables(sql);
    // 10,000 lists of 2 postings: 100 KB of postings.
    for (let key = 0; key < 10_000; key++) {
      t.termPosts.push(key * 7919, key, 1);
      t.termPosts.push(key * 7919, key + 1, 2);
    }
    writes.length = 0;
    t.checkpoint(1, new Uint8Array(0));
    const pages = writes.filter((q) => q.startsWith("INSERT INTO pg_seg(")).length;
    expect(pages).toBeGreaterThan(10);
    expect(pages).toBeLessThan(60);
    expect(writes.length).toBeLessThan(100);
  });

  it("the distinct-term estimate is within 5%", () => {
    const t = new SqlTables(nodeSql());
    for (let k = 0; k < 50_000; k++) t.termPosts.push((k * 2654435761) >>> 0, k, 1);
    t.checkpoint(1, new Uint8Array(0));
    expect(Math.abs(t.termCount() - 50_000) / 50_000).toBeLessThan(0.05);
  });

  it("tables of the layout before segments are not read: the checkpoint is refused and cleared", () => {
    const sql = nodeSql();
    const t = new SqlTables(sql);
    t.checkpoint(5, new Uint8Array([1, 2, 3]));
    sql.run("INSERT INTO pg_list(space, key, blk, n, vals, extra) VALUES (1, 1, 0, 1, X'01000000', X'01')");
    const old = new SqlTables(sql);
    expect(old.checkpointSeq()).toBe(0);
    old.clear();
    expect(new SqlTables(sql).legacy).toBe(false);
  });
});
