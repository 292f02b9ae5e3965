/**
 * Synchronous SQLite in Node behind the capital chunk's SyncSql port: the same engine a Durable
 * Object's `ctx.storage.sql` runs, here SQLite compiled to WebAssembly (node-sqlite3-wasm, a dev
 * dependency only, never in the Worker bundle), so `npm install` needs no C compiler. Its pages live
 * in WebAssembly memory, which Node counts under `external`, not in `heapUsed` or `arrayBuffers`
 * (scripts/lib/heap.ts): in-process benchmarks and tests measure the heap the object would hold.
 * Files work too (the package's VFS calls node:fs, fsync included), in any journal mode but WAL,
 * which needs `PRAGMA locking_mode=EXCLUSIVE` before the first read (no shared memory).
 */
import { createRequire } from "node:module";
import type { QueryResult, Statement } from "node-sqlite3-wasm";
import type { SqlRow, SqlValue, SyncSql } from "../../src/core/capital/sql-tables";

/** The package is CommonJS with its exports assigned at run time: required, not imported by name. */
export const { Database } = createRequire(import.meta.url)("node-sqlite3-wasm") as typeof import("node-sqlite3-wasm");

/** A row with integers as numbers: SQLite integers past 2^53 arrive as bigint, and become the nearest number. */
function row(r: QueryResult): SqlRow {
  const o = r as Record<string, SqlValue | bigint>;
  for (const k in o) {
    const v = o[k];
    if (typeof v === "bigint") o[k] = Number(v);
  }
  return o as SqlRow;
}

export function nodeSql(path = ":memory:"): SyncSql & { close(): void; bytes(): number } {
  const db = new Database(path);
  const cache = new Map<string, Statement>();
  /** Run f on the cached statement of q; one that failed leaves the cache (it would refuse its next binding). */
  const use = <T>(q: string, f: (st: Statement) => T): T => {
    let st = cache.get(q);
    if (!st) {
      st = db.prepare(q);
      cache.set(q, st);
    }
    try {
      return f(st);
    } catch (e) {
      cache.delete(q);
      try {
        st.finalize();
      } catch {
        // finalize repeats the error of the failed step, thrown below.
      }
      throw e;
    }
  };
  let depth = 0;
  // A statement that returns no rows (a write) runs to its end and answers [].
  const all = (q: string, ...p: SqlValue[]): SqlRow[] => use(q, (st) => st.all(p).map(row));
  return {
    all,
    run(q, ...p) {
      use(q, (st) => st.run(p));
    },
    // A savepoint per call: the outermost one is the transaction, inner ones nest in it.
    atomic(fn) {
      const name = `atomic${depth++}`;
      db.exec(`SAVEPOINT ${name}`);
      try {
        const r = fn();
        db.exec(`RELEASE ${name}`);
        return r;
      } catch (e) {
        // Some errors roll the whole transaction back themselves, savepoints included.
        if (db.inTransaction) db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
        throw e;
      } finally {
        depth--;
      }
    },
    close() {
      // Statements hold WebAssembly memory until finalized; the database closes only after them.
      for (const st of cache.values()) st.finalize();
      cache.clear();
      db.close();
    },
    bytes: () => Number(all("PRAGMA page_count")[0]?.page_count) * Number(all("PRAGMA page_size")[0]?.page_size),
  };
}
