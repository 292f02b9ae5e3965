/**
 * The D1 adapters behind the storage ports (src/core/ports/storage.ts), one per aggregate, all over
 * one drizzle handle on one database.
 */
import type { IngestLogStore, SourceStore, Stores, WebhookStore, WorldLookup } from "../../core/ports";
import { D1AnnotationStore } from "./annotations";
import { D1ArchiveStore } from "./archives";
import { D1ChangeLog } from "./changelog";
import { D1ChunkStore } from "./chunks";
import { D1DiscoveryStore } from "./discovery";
import { D1EmbeddingStore } from "./embedding";
import { D1EntityStore } from "./entities";
import { D1EventStore } from "./events";
import { D1ExportReader } from "./export-reader";
import { D1ExtractionStore } from "./extractions";
import { D1ForgetStore } from "./forget";
import { D1IngestLogStore } from "./ingest-log";
import { d1Db } from "./queries";
import { D1RetrievalRunStore } from "./retrieval-runs";
import { D1SessionLog } from "./sessions";
import { D1SourceStore } from "./sources";
import { D1WebhookStore } from "./webhooks";
import { D1WorldLookup } from "./world-lookup";

export { D1ArchiveStore } from "./archives";
export { D1ChangeLog } from "./changelog";
export { D1ChunkStore } from "./chunks";
export { D1EmbeddingStore } from "./embedding";
export { D1EntityStore } from "./entities";
export { D1ExportReader } from "./export-reader";
export { D1ExtractionStore } from "./extractions";
export { D1ForgetStore } from "./forget";
export { D1IngestLogStore } from "./ingest-log";
export { D1SessionLog } from "./sessions";
export { D1SourceStore } from "./sources";
export { D1WebhookStore } from "./webhooks";
export { D1WorldLookup } from "./world-lookup";

/** The webhook, source, ingest-log and feed-lookup ports as one object (what the feed pipelines take). */
export type WorldSide = WebhookStore & SourceStore & IngestLogStore & WorldLookup;

/**
 * One object holding every method of the four adapters, each bound to the adapter that defines it
 * (their method names are disjoint: a name already taken by an earlier adapter is not replaced).
 */
export function joined<A extends object, B extends object, C extends object, D extends object>(
  ...parts: [A, B, C, D]
): A & B & C & D {
  const out: Record<string, unknown> = {};
  for (const part of parts) {
    const own = part as Record<string, unknown>;
    for (let p = Object.getPrototypeOf(part); p && p !== Object.prototype; p = Object.getPrototypeOf(p))
      for (const name of Object.getOwnPropertyNames(p)) {
        const f = own[name];
        if (name !== "constructor" && typeof f === "function" && !(name in out)) out[name] = f.bind(part);
      }
  }
  return out as A & B & C & D;
}

/** Every store; `world` also answers the webhook, source and log methods, from the same adapters. */
export function d1Stores(d1: D1Database): Stores & { world: WorldSide } {
  const db = d1Db(d1);
  const webhooks = new D1WebhookStore(db);
  const sources = new D1SourceStore(db);
  const log = new D1IngestLogStore(db);
  return {
    archives: new D1ArchiveStore(db),
    chunks: new D1ChunkStore(db),
    entities: new D1EntityStore(db),
    sessions: new D1SessionLog(db),
    changes: new D1ChangeLog(db),
    webhooks,
    sources,
    log,
    world: joined(webhooks, sources, log, new D1WorldLookup(db)),
    exports: new D1ExportReader(db),
    forget: new D1ForgetStore(db),
    events: new D1EventStore(db),
    annotations: new D1AnnotationStore(db),
    retrievalRuns: new D1RetrievalRunStore(db),
    discovery: new D1DiscoveryStore(db),
    embedding: new D1EmbeddingStore(db),
    extractions: new D1ExtractionStore(db),
  };
}
