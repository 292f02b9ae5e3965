/**
 * The D1 adapters behind the storage ports: D1Store (archives and keys, chunks and versions,
 * entities, sessions and access, the change log), WorldStore (webhooks, sources, the ingest log, the
 * feed lookups) and ExportStore (paged export reads), all over one database.
 */
import { drizzle } from "drizzle-orm/d1";
import type { Stores } from "../../core/ports";
import { ExportStore } from "./export-store";
import * as schema from "./schema";
import { D1Store } from "./store";
import { WorldStore } from "./world-store";

/** Every store over one D1 binding, sharing one drizzle instance (built once per isolate). */
export function d1Stores(d1: D1Database): Stores {
  const db = drizzle(d1, { schema });
  const core = new D1Store(db);
  const world = new WorldStore(db);
  return {
    archives: core,
    chunks: core,
    entities: core,
    sessions: core,
    changes: core,
    webhooks: world,
    sources: world,
    log: world,
    world,
    exports: new ExportStore(db),
  };
}
