/**
 * The D1 adapters behind the storage ports (src/core/ports/storage.ts), one per aggregate, all over
 * one drizzle handle on one database. D1Store, WorldStore and ExportStore are the same stores
 * composed under their earlier names.
 */
import type { Stores } from "../../core/ports";
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
import { d1Db } from "./queries";
import { D1RetrievalRunStore } from "./retrieval-runs";
import { D1SessionLog } from "./sessions";
import { WorldStore, worldParts } from "./world-store";

export { D1ArchiveStore } from "./archives";
export { D1ChangeLog } from "./changelog";
export { D1ChunkStore } from "./chunks";
export { D1EmbeddingStore } from "./embedding";
export { D1EntityStore } from "./entities";
export { D1ExportReader } from "./export-reader";
export { ExportStore } from "./export-store";
export { D1ExtractionStore } from "./extractions";
export { D1ForgetStore } from "./forget";
export { D1IngestLogStore } from "./ingest-log";
export { D1SessionLog } from "./sessions";
export { D1SourceStore } from "./sources";
export { D1Store } from "./store";
export { D1WebhookStore } from "./webhooks";
export { D1WorldLookup } from "./world-lookup";
export { WorldStore } from "./world-store";

/** Every store; `world` also answers the webhook, source and log methods (the feeds' World). */
export function d1Stores(d1: D1Database): Stores & { world: WorldStore } {
  const db = d1Db(d1);
  const world = worldParts(db);
  return {
    archives: new D1ArchiveStore(db),
    chunks: new D1ChunkStore(db),
    entities: new D1EntityStore(db),
    sessions: new D1SessionLog(db),
    changes: new D1ChangeLog(db),
    webhooks: world.webhooks,
    sources: world.sources,
    log: world.log,
    world: new WorldStore(world),
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
