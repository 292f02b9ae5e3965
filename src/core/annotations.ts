/**
 * Annotations: append-only events on a chunk (a status, a counter) read as of any time. `set`
 * replaces a key's value; `add` adds a number to it (a missing or non-numeric value counts as 0).
 * The value of a key at t folds the events with at <= t in (at, id) order, so a late-recorded event
 * with an earlier `at` changes what earlier reads would now answer, as valid time should.
 */
import type { AnnotationRecord } from "./ports";

export const ANNOTATION_OPS = ["set", "add"] as const;
export type AnnotationOp = (typeof ANNOTATION_OPS)[number];

export interface AnnotationEvent {
  id: number;
  chunkId: string;
  version: number | null;
  key: string;
  op: AnnotationOp;
  value: unknown;
  actor: string;
  reason: string;
  at: number;
}

export interface AnnotationValue {
  value: unknown;
  /** Valid time of the last event that changed it. */
  at: number;
  actor: string;
  reason: string;
  version: number | null;
  /** Events folded into it. */
  events: number;
}

/** The value of every key of one chunk at `asOf`. */
export function foldAnnotations(events: readonly AnnotationEvent[], asOf: number): Map<string, AnnotationValue> {
  const out = new Map<string, AnnotationValue>();
  const sorted = events.filter((e) => e.at <= asOf).sort((a, b) => a.at - b.at || a.id - b.id);
  for (const e of sorted) {
    const cur = out.get(e.key);
    const base = typeof cur?.value === "number" ? cur.value : 0;
    const value = e.op === "add" ? base + (typeof e.value === "number" ? e.value : 0) : e.value;
    out.set(e.key, {
      value,
      at: e.at,
      actor: e.actor,
      reason: e.reason,
      version: e.version,
      events: (cur?.events ?? 0) + 1,
    });
  }
  return out;
}

/** A stored annotation row as an event ("add" or "set"; any other stored op reads as "set"). */
export const annotationEvent = (
  r: Pick<AnnotationRecord, "id" | "chunkId" | "version" | "key" | "op" | "value" | "actor" | "reason" | "at">,
): AnnotationEvent => ({
  id: r.id,
  chunkId: r.chunkId,
  version: r.version,
  key: r.key,
  op: r.op === "add" ? "add" : "set",
  value: r.value,
  actor: r.actor,
  reason: r.reason,
  at: r.at,
});
