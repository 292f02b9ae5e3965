/**
 * Ports: the narrow interfaces the core needs from the outside world. Each has a local
 * implementation (src/adapters/local, runs in Node and workerd) and a production one
 * (src/adapters/r2, vectorize, workers-ai, d1). One contract suite per port runs against all.
 */
import type { TokenizerName } from "../text/tokenizer";
import type { AccessChannel, ChunkKind, EvidenceCard, RouteInput, RouteResult } from "../types";

/**
 * Objects by key (R2 in production): what the content store (src/core/packs.ts) is built on. Text is
 * stored as UTF-8; ranges and tags address those bytes.
 */
export interface ObjectStore {
  /** Idempotent: writing the same key twice with the same bytes is a no-op. */
  put(key: string, text: string): Promise<void>;
  get(key: string): Promise<string | null>;
  /** Bytes [offset, offset + length) of an object, decoded as UTF-8; null when the object is missing. */
  getRange(key: string, offset: number, length: number): Promise<string | null>;
  /** The object with a tag that changes on every write (R2's etag), for `replaceIf`. */
  getTagged(key: string): Promise<{ text: string; tag: string } | null>;
  /** Overwrite the object only if it still carries `tag`; false when another write came between. */
  replaceIf(key: string, text: string, tag: string): Promise<boolean>;
  has(key: string): Promise<boolean>;
  /** Remove these keys (missing ones are ignored). */
  delete(keys: string[]): Promise<void>;
  /** Remove every key starting with `prefix`; returns how many were removed. */
  deletePrefix(prefix: string): Promise<number>;
}

/**
 * Chunk contents and other blobs. Contents are written a batch at a time into one pack object
 * (`putPack`); each content's key names its byte range in the pack. `get` and `delete` take both
 * pack member keys and plain keys; deleting a member overwrites its bytes in the pack.
 */
export interface BlobStore {
  /** Idempotent: writing the same key twice with the same bytes is a no-op. */
  put(key: string, text: string): Promise<void>;
  /**
   * Store these contents (by SHA-256 hex of the text) as one object under `prefix`; returns each
   * content's key. Idempotent: the same contents give the same pack and keys.
   */
  putPack(prefix: string, contents: ReadonlyMap<string, string>): Promise<Map<string, string>>;
  get(key: string): Promise<string | null>;
  has(key: string): Promise<boolean>;
  /** Remove these keys (missing ones are ignored); a pack member's bytes are overwritten in its pack. */
  delete(keys: string[]): Promise<void>;
  /** Remove every key starting with `prefix`; returns how many were removed. */
  deletePrefix(prefix: string): Promise<number>;
}

export interface VectorRecord {
  id: string;
  values: Float32Array;
}

export interface VectorMatch {
  id: string;
  score: number;
}

/** The dimension a namespace of a vector index takes, and what fixes it. */
export interface VectorIndexShape {
  /** The dimension its vectors must have; null when nothing fixes it yet (an empty local namespace, no index). */
  dims: number | null;
  /**
   * True when the dimension is the whole index's, set when it was created (Vectorize: `wrangler
   * vectorize create --dimensions`); false when it is the namespace's, taken from the vectors it holds.
   */
  fixed: boolean;
  /** The index as an operator knows it, for error messages ("the Vectorize index bound as VECTORS"). */
  label: string;
}

/** Head-embedding index (Vectorize in production). One namespace per archive. */
export interface VectorIndex {
  upsert(namespace: string, records: VectorRecord[]): Promise<void>;
  /** Top-k by cosine similarity, best first. k <= 100 (Vectorize limit). */
  query(namespace: string, vector: Float32Array, topK: number): Promise<VectorMatch[]>;
  deleteByIds(namespace: string, ids: string[]): Promise<void>;
  /** The dimension this namespace's vectors must have (checked against the embedder's before writing). */
  shape(namespace: string): Promise<VectorIndexShape>;
  /**
   * Remove every vector of the namespace, so that it takes vectors of another dimension (a re-embed
   * into a model of another dimension). Only for an index whose dimension is not fixed; one whose
   * dimension is fixed throws.
   */
  reset(namespace: string): Promise<void>;
}

export interface Embedder {
  /** Stable model identifier, stored with vectors so a model change is detectable. */
  readonly model: string;
  readonly dims: number;
  /** L2-normalised vectors, one per text. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface DistillInput {
  query: string;
  artifactId: string;
  version: number;
  kind: ChunkKind;
  title: string;
  content: string;
  /** Facts the card's assumptions should carry (validity range, boundaries). */
  context: { validFrom: number; validTo: number | null; boundaries: string[]; deprecatedBy: string | null };
  /** Hard token cap for the serialised card. */
  budgetTokens: number;
  /** Encoding the budget is counted in (default cl100k_base). */
  tokenizer?: TokenizerName | undefined;
  /** What the request's cards may spend on a model and have spent (model distillers only). */
  meter?: ModelMeter | undefined;
}

/** One request's model spending, shared by its cards (reported in the trace). */
export interface ModelMeter {
  /** Input + output tokens the request may spend; a card past it is extractive. */
  limit: number;
  spent: number;
  /** Card attempts sent to the model (a retry counts again). */
  calls: number;
  /** HTTP requests, the adapter's retries included. */
  requests: number;
  /** Second attempts after an unusable card. */
  retries: number;
  inputTokens: number;
  outputTokens: number;
  /** Cards the fallback (extractive) distiller made, and why. */
  fallbacks: number;
  reasons: Record<string, number>;
  cacheHits: number;
}

export interface Distiller {
  readonly name: string;
  /** Cards one request may distill at once (default 1: one after another, each with the budget left). */
  readonly concurrency?: number;
  /** Returns null when not even a minimal card (2 anchors, 1 for a one-sentence content) fits the budget. */
  distill(input: DistillInput): Promise<EvidenceCard | null>;
}

export interface Clock {
  now(): number;
}

/**
 * One archive's capital chunk, whole or over its shards (Durable Objects in production, one per
 * shard; an in-process store in Node).
 */
export interface CapitalRouter {
  route(input: RouteInput): Promise<RouteResult>;
}

/** A chunk version as stored (D1 row shape the query pipeline needs). */
export interface StoredVersion {
  chunkId: string;
  version: number;
  kind: ChunkKind;
  title: string;
  synopsis: string;
  contentKey: string;
  contentChars: number;
  boundaries: string[];
  validFrom: number;
  validTo: number | null;
  deprecatedBy: string | null;
}

export interface VersionReader {
  /** The version of each chunk visible at time t (chunks with none are omitted). */
  visibleAt(archiveId: string, chunkIds: string[], t: number): Promise<Map<string, StoredVersion>>;
  /** An exact version (for anchors). */
  exact(archiveId: string, chunkId: string, version: number): Promise<StoredVersion | null>;
}

export interface SessionEvent {
  role: string;
  text: string;
  tokens: number;
  at: number;
}

export interface SessionStore {
  /** Most recent first, at most `limit`, only events at or before `asOf`. */
  recent(archiveId: string, sessionId: string, asOf: number, limit: number): Promise<SessionEvent[]>;
}

export interface AccessLog {
  /** Logs accesses; `sessionId` tags them with the caller's session (absent: no session). */
  record(
    archiveId: string,
    events: Array<{ chunk: string; channel: AccessChannel; at: number }>,
    sessionId?: string | undefined,
  ): Promise<void>;
  /**
   * The distinct chunks one session accessed at or before `asOf` (any channel), each with its last
   * access time, most recent first (ties by chunk id), at most `limit` (default 64): the recency seeds.
   */
  recentForSession(
    archiveId: string,
    sessionId: string,
    asOf: number,
    limit?: number,
  ): Promise<Array<{ chunk: string; at: number }>>;
  /**
   * The distinct chunks one session opened (expansion or verification, not routing) at or before
   * `asOf`, each with its last opening, most recent first (ties by chunk id), at most `limit`: the
   * short-term window's recently opened chunks. Absent: the window holds session events only.
   */
  openedBySession?(
    archiveId: string,
    sessionId: string,
    asOf: number,
    limit: number,
  ): Promise<Array<{ chunk: string; at: number }>>;
}

/** Outbound HTTP (global fetch in production; tests install a mock that fails on unmocked URLs). */
export type HttpFetch = (request: Request) => Promise<Response>;

/** DNS answers for a host name: its IPv4 and IPv6 addresses (empty: the name does not resolve). */
export interface Resolver {
  /** Throws when the resolver cannot answer (then nothing is fetched). */
  addresses(host: string): Promise<string[]>;
}
