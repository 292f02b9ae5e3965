/** Stored records as the use cases read them: annotation rows as events, capped chunk lists. */
import { type AnnotationEvent, annotationEvent } from "../../core/annotations";
import type { AnnotationRecord } from "../../core/ports";

/** Chunk events list at most this many chunks; `total` says how many changed. */
export const MAX_EVENT_CHUNKS = 1000;

export const toEvent: (r: AnnotationRecord) => AnnotationEvent = annotationEvent;

/** The chunk lists of a change, capped: {chunks: [{id, version}], total}. */
export function chunkList(items: Array<{ id: string; version: number }>) {
  return { chunks: items.slice(0, MAX_EVENT_CHUNKS), total: items.length };
}
