/** Synchronous SQLite as the capital chunk's tables use it. */
export type SqlValue = string | number | null | Uint8Array;
export type SqlRow = Record<string, SqlValue>;

/** Synchronous SQLite: a Durable Object's storage, or SQLite in WebAssembly in Node (scripts/lib/sqlite.ts). */
export interface SyncSql {
  all(query: string, ...params: SqlValue[]): SqlRow[];
  run(query: string, ...params: SqlValue[]): void;
  /** Run fn as one transaction. */
  atomic<T>(fn: () => T): T;
}
