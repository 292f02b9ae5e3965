/**
 * Storage ports, one per aggregate: what the application layer asks of the source of truth (D1 in
 * production, src/adapters/d1). Records are plain types with the stored field names; JSON columns
 * are typed values: the adapter parses them where it reads them (text that is not JSON reads as the
 * documented fallback of the field) and stringifies what it is given, so the stored text is
 * JSON.stringify of the value. Callers neither parse nor stringify. The ports live one group a file
 * beside this one (chunks, intake, world, logs, forget, embedding, events, discovery); `Stores`
 * gathers them.
 */
import type { ArchiveStore, ChunkStore, EntityStore } from "./chunks";
import type { DiscoveryStore, RetrievalRunStore } from "./discovery";
import type { EmbeddingStore } from "./embedding";
import type { AnnotationStore, EventStore } from "./events";
import type { ForgetStore } from "./forget";
import type { ExtractionStore, IngestLogStore, SourceStore, WebhookStore } from "./intake";
import type { ChangeLog, SessionLog } from "./logs";
import type { ExportReader, WorldLookup } from "./world";

/** Every store, as the composition root builds them. */
export interface Stores {
  archives: ArchiveStore;
  chunks: ChunkStore;
  entities: EntityStore;
  sessions: SessionLog;
  changes: ChangeLog;
  webhooks: WebhookStore;
  sources: SourceStore;
  log: IngestLogStore;
  world: WorldLookup;
  exports: ExportReader;
  forget: ForgetStore;
  events: EventStore;
  annotations: AnnotationStore;
  retrievalRuns: RetrievalRunStore;
  discovery: DiscoveryStore;
  embedding: EmbeddingStore;
  extractions: ExtractionStore;
}

/**
 * Parse JSON text PaperGuru wrote (a JSON column, at the D1 adapter; a line of a stored blob);
 * `fallback` when the text is null or not JSON.
 */
export function readJsonColumn<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
