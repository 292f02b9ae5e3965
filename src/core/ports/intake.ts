/**
 * What intake keeps: webhook endpoints and their deliveries, the sources cron re-ingests, extraction
 * at ingest and the ingest log.
 * Records follow the storage conventions of ./storage.ts.
 */
import type { ExtensionPlan, ExtensionTarget, Extraction } from "../extraction";

/** A webhook endpoint's options; {} when its text is not JSON. */
export interface WebhookOptions {
  branches?: string[];
}

/** A webhook endpoint. */
export interface WebhookRecord {
  archiveId: string;
  name: string;
  kind: string;
  secret: string;
  options: WebhookOptions;
  createdAt: number;
}

/** A webhook delivery; `result` is the apply counts (null when none or when its text is not JSON). */
export interface DeliveryRecord {
  archiveId: string;
  webhook: string;
  deliveryId: string;
  kind: string;
  event: string;
  bodyKey: string;
  bodySha: string;
  status: string;
  attempts: number;
  result: object | null;
  error: string | null;
  receivedAt: number;
  updatedAt: number;
  /** The chunk ids a generic delivery carries; null or absent: none recorded. */
  chunkIds?: string[] | null;
}

/** A source's kind-specific state (github: path -> blob sha of what was ingested, and the commit). */
export interface SourceState {
  files?: Record<string, string>;
  commit?: string;
}

/**
 * A registered source; `state` reads as {files: {}} when its text is not JSON, `lastCounts` (the
 * counts of the last run) as null.
 */
export interface SourceRecord {
  archiveId: string;
  id: string;
  kind: string;
  location: string;
  query: string;
  intervalMinutes: number;
  paused: number;
  createdAt: number;
  nextRunAt: number;
  lastRunAt: number | null;
  lastChangeAt: number | null;
  lastStatus: string | null;
  lastError: string | null;
  failures: number;
  etag: string | null;
  lastModified: string | null;
  contentHash: string | null;
  state: SourceState;
  lastCounts: object | null;
}

/** An ingest-log entry; `counts` is the apply counts (null when its text is not JSON). */
export interface LogRecord {
  id: number;
  archiveId: string;
  origin: string;
  ref: string;
  status: string;
  counts: object | null;
  error: string | null;
  at: number;
  durationMs: number;
}

export interface PaperMatch {
  /** Existing paper chunk the match points at. */
  chunkId: string;
  /** The key that matched: an entity id or a normalised alias. */
  key: string;
}

type DeliveryPatch = Partial<Pick<DeliveryRecord, "updatedAt" | "status" | "attempts" | "result" | "error">>;

/** Webhook endpoints and their deliveries (the raw bodies are blobs). */
export interface WebhookStore {
  putWebhook(row: WebhookRecord): Promise<void>;
  getWebhook(archiveId: string, name: string): Promise<WebhookRecord | null>;
  listWebhooks(archiveId: string): Promise<Array<Omit<WebhookRecord, "secret">>>;
  /** The endpoint and every delivery row of it (their bodies are blobs the caller removes). */
  deleteWebhook(archiveId: string, name: string): Promise<boolean>;
  getDelivery(archiveId: string, webhook: string, deliveryId: string): Promise<DeliveryRecord | null>;
  /** The earliest delivery of this endpoint whose raw body had this SHA-256, or null. */
  deliveryByBody(archiveId: string, webhook: string, bodySha: string): Promise<DeliveryRecord | null>;
  insertDelivery(row: DeliveryRecord): Promise<boolean>;
  updateDelivery(archiveId: string, webhook: string, deliveryId: string, patch: DeliveryPatch): Promise<void>;
  deleteDelivery(archiveId: string, webhook: string, deliveryId: string): Promise<void>;
  listDeliveries(
    archiveId: string,
    webhook: string,
    status: string | undefined,
    limit: number,
  ): Promise<DeliveryRecord[]>;
  /** Deliveries of any archive left received or queued since before `before`, oldest first. */
  stuckDeliveries(before: number, limit: number): Promise<DeliveryRecord[]>;
}

/** Sources cron re-ingests, with their validators and status. */
export interface SourceStore {
  createSource(row: SourceRecord): Promise<boolean>;
  getSource(archiveId: string, id: string): Promise<SourceRecord | null>;
  listSources(archiveId: string): Promise<SourceRecord[]>;
  updateSource(archiveId: string, id: string, patch: Partial<Omit<SourceRecord, "archiveId" | "id">>): Promise<void>;
  deleteSource(archiveId: string, id: string): Promise<boolean>;
  dueSources(now: number, limit: number): Promise<SourceRecord[]>;
  claimSource(archiveId: string, id: string, seenNextRun: number, leaseUntil: number): Promise<boolean>;
}

/** A version extraction at ingest may extend (core/extract.ts), with what decides whether it may now. */
export interface ExtractionTargetRecord {
  target: ExtensionTarget;
  contentKey: string;
  /** SHA-256 of the content: with the model, the cache key. */
  contentHash: string;
  /**
   * `ready`: its chunk's live head, not extracted yet. Otherwise it takes no extraction: a later
   * version superseded it, its chunk is deprecated, or it was extracted already.
   */
  state: "ready" | "superseded" | "deprecated" | "extracted";
}

/** Extraction at ingest: the version an extraction extends, the write, and the cache by content. */
export interface ExtractionStore {
  /** The version (its declared entities with their names and aliases); null when it does not exist. */
  target(archiveId: string, chunkId: string, version: number): Promise<ExtractionTargetRecord | null>;
  /**
   * The plan's writes in one transaction (entity and alias rows, entity events, change-log entries,
   * the version's `extracted` column), made only if the version is still its chunk's live head and
   * not extracted yet: a forgotten, deprecated or superseded version is never written to. Whether
   * they were made.
   */
  extend(archiveId: string, plan: ExtensionPlan, now: number): Promise<boolean>;
  /** A model's earlier answer for this content (model names the model and the prompt's version). */
  cached(contentHash: string, model: string): Promise<Extraction | null>;
  cache(contentHash: string, model: string, value: Extraction, now: number): Promise<void>;
}

/** The ingest log (webhook deliveries, source runs, file imports). */
export interface IngestLogStore {
  appendLog(row: Omit<LogRecord, "id">): Promise<void>;
  listLog(archiveId: string, limit: number, before?: number): Promise<LogRecord[]>;
}
