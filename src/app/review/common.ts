/**
 * What the review use cases share: review events read from the annotation store.
 */
import type { AnnotationRecord } from "../../core/ports";
import { NODE_REVIEW_KEY, type ReviewStatus, readReviewValue, reviewStatusAt } from "../../core/review";
import type { AppDeps } from "../deps";

/** The review status of each chunk at `asOf` (key `review`); chunks never reviewed are absent. */
export async function nodeStatuses(
  d: Pick<AppDeps, "stores">,
  archive: string,
  chunkIds: string[],
  asOf: number,
): Promise<Map<string, ReviewStatus>> {
  const rows = await d.stores.annotations.annotationsOf(archive, chunkIds, NODE_REVIEW_KEY, asOf);
  const by = new Map<string, AnnotationRecord[]>();
  for (const r of rows) by.set(r.chunkId, [...(by.get(r.chunkId) ?? []), r]);
  const out = new Map<string, ReviewStatus>();
  for (const [chunk, events] of by) {
    const { status, last } = reviewStatusAt(events, asOf);
    if (last) out.set(chunk, status);
  }
  return out;
}

/** The review events of a node, or of one edge of it (matched on the edge the value names). */
export async function eventsOf(
  d: Pick<AppDeps, "stores">,
  archive: string,
  chunk: string,
  key: string,
  asOf: number,
  edge?: { type: string; to: string },
) {
  return (await d.stores.annotations.annotationsOf(archive, [chunk], key, asOf)).filter(
    (r) => readReviewValue(r.value, edge) !== null,
  );
}
