/**
 * Outbound events (subscribers and deliveries), annotation events with their outcomes, and where the
 * application announces changes.
 * Records follow the storage conventions of ./storage.ts.
 */
import type { EventType } from "../types";

/** An outbound event subscriber; `events`: the types it takes ([] = every type, also when not a JSON array). */
export interface SubscriptionRecord {
  archiveId: string;
  name: string;
  url: string;
  secret: string;
  events: string[];
  createdAt: number;
}

/**
 * One event for one subscriber: its body and delivery state. The body sent is JSON.stringify of
 * `payload`, which is the stored text ({} when that text is not JSON).
 */
export interface EventDeliveryRecord {
  archiveId: string;
  id: string;
  subscription: string;
  type: string;
  payload: Record<string, unknown>;
  /** pending | retrying | delivered | dead */
  status: string;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

export type EventDeliveryPatch = Partial<
  Pick<EventDeliveryRecord, "status" | "attempts" | "responseStatus" | "error" | "updatedAt">
>;

export interface EventStore {
  putSubscription(row: SubscriptionRecord): Promise<void>;
  getSubscription(archiveId: string, name: string): Promise<SubscriptionRecord | null>;
  listSubscriptions(archiveId: string): Promise<SubscriptionRecord[]>;
  /** Deletes the subscriber and every event queued or kept for it. */
  deleteSubscription(archiveId: string, name: string): Promise<boolean>;
  insertEvents(rows: EventDeliveryRecord[]): Promise<void>;
  getEvent(archiveId: string, id: string): Promise<EventDeliveryRecord | null>;
  updateEvent(archiveId: string, id: string, patch: EventDeliveryPatch): Promise<void>;
  /** Newest first, ids strictly below `before`; `limit + 1` rows tell whether more follow. */
  listEvents(
    archiveId: string,
    subscription: string,
    status: string | undefined,
    before: string | null,
    limit: number,
  ): Promise<EventDeliveryRecord[]>;
}

/** A stored annotation event; `value` is any JSON value (null also when its text is not JSON). */
export interface AnnotationRecord {
  id: number;
  archiveId: string;
  chunkId: string;
  version: number | null;
  key: string;
  op: string;
  value: unknown;
  actor: string;
  reason: string;
  at: number;
  recordedAt: number;
  eventId: string | null;
}

/** The stored outcome of an event id: in flight (`body` null) or its first answer (JSON text). */
export interface EventOutcomeRecord {
  /** The operation and target the id was first used for. */
  request: string;
  claim: string;
  claimedAt: number;
  body: string | null;
}

export interface AnnotationStore {
  /** Appends one event; with an eventId already stored, returns that event and appends nothing. */
  appendAnnotation(row: Omit<AnnotationRecord, "id">): Promise<{ row: AnnotationRecord; duplicate: boolean }>;
  /**
   * Appends events without an eventId (an import's), in order, in multi-row statements (a handful of
   * round trips for thousands of rows, not one each); returns how many were appended.
   */
  appendAnnotations(rows: Array<Omit<AnnotationRecord, "id"> & { eventId: null }>): Promise<number>;
  /** The event stored under this eventId, or null. */
  annotationByEventId(archiveId: string, eventId: string): Promise<AnnotationRecord | null>;
  /**
   * Claims an event id for one request under the random token `claim` (one atomic insert): null
   * when this call claimed it, else the outcome already there (in flight or answered).
   */
  claimEvent(
    archiveId: string,
    eventId: string,
    request: string,
    claim: string,
    now: number,
  ): Promise<EventOutcomeRecord | null>;
  /** Takes over a claim still held by the token `stale` (its request died): true when this call took it. */
  takeOverEvent(archiveId: string, eventId: string, stale: string, claim: string, now: number): Promise<boolean>;
  /**
   * Stores the answer of the claim `claim`, tied to the annotation its effect wrote (deleted with
   * it). When that annotation is gone, or the claim was taken over, nothing is stored (and a claim
   * still held is dropped): false.
   */
  answerEvent(archiveId: string, eventId: string, claim: string, annotationId: number, body: string): Promise<boolean>;
  /** Drops the claim `claim` while unanswered: the request failed and the id stays free. */
  releaseEvent(archiveId: string, eventId: string, claim: string): Promise<void>;
  /** The events of these chunks (optionally one key), at <= asOf, in (at, id) order. */
  annotationsOf(
    archiveId: string,
    chunkIds: string[],
    key: string | undefined,
    asOf: number,
  ): Promise<AnnotationRecord[]>;
}

/** Where the application announces changes (outbound events); never fails the change it reports. */
export interface EventSink {
  emit(archiveId: string, type: EventType, data: Record<string, unknown>): Promise<void>;
}
