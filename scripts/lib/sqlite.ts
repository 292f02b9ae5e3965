/**
 * Synchronous SQLite in Node (better-sqlite3) behind the capital chunk's SyncSql port: the same
 * engine a Durable Object's `ctx.storage.sql` runs, outside the JS heap, so in-process benchmarks
 * and tests measure the heap the object would hold. better-sqlite3 12 is the line that builds and
 * runs on Node 20 here (13 needs Node 22); it is a dev dependency only, never in the Worker bundle.
 */
import Database from "better-sqlite3";
import type { SqlRow, SqlValue, SyncSql } from "../../src/core/capital/sql-tables";

export function nodeSql(path = ":memory:"): SyncSql & { close(): void; bytes(): number } {
  const db = new Database(path);
  const cache = new Map<string, Database.Statement>();
  const prep = (q: string) => {
    let st = cache.get(q);
    if (!st) {
      st = db.prepare(q);
      cache.set(q, st);
    }
    return st;
  };
  const bind = (p: SqlValue[]) =>
    p.map((v) => (v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v));
  return {
    all(q, ...p) {
      const st = prep(q);
      if (!st.reader) {
        st.run(...bind(p));
        return [];
      }
      return st.all(...bind(p)) as SqlRow[];
    },
    run(q, ...p) {
      prep(q).run(...bind(p));
    },
    atomic: (fn) => db.transaction(fn)(),
    close: () => db.close(),
    bytes: () => Number(db.pragma("page_count", { simple: true })) * Number(db.pragma("page_size", { simple: true })),
  };
}
