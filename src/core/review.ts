/**
 * Human verification (Paper Circle, seed 004 §G.4): operations on a node (chunk) or an edge
 * (from, type, to) and the status each leaves. A status is an append-only annotation event, so the
 * status and its history read as of any time:
 * - a node's events are key `review` on the chunk;
 * - an edge's are key `review:edge:<type>:<to>` on its source chunk `from`;
 * - the value is `{status, op}`; actor, reason and valid time are the event's own fields.
 * Nothing reviewed is `auto-generated`. verify -> human-verified; edit, add_edge, remove_edge ->
 * human-edited; flag -> flagged.
 */

export const REVIEW_STATUSES = ["auto-generated", "human-verified", "human-edited", "flagged"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];
export const REVIEW_OPS = ["verify", "edit", "add_edge", "remove_edge", "flag"] as const;
export type ReviewOp = (typeof REVIEW_OPS)[number];

export const DEFAULT_STATUS: ReviewStatus = "auto-generated";
export const NODE_REVIEW_KEY = "review";
const EDGE_PREFIX = "review:edge:";

export const edgeReviewKey = (type: string, to: string): string => `${EDGE_PREFIX}${type}:${to}`;

/** (type, to) of an edge key, or null for other keys. Edge types contain no ':'. */
export function parseEdgeReviewKey(key: string): { type: string; to: string } | null {
  if (!key.startsWith(EDGE_PREFIX)) return null;
  const rest = key.slice(EDGE_PREFIX.length);
  const i = rest.indexOf(":");
  return i > 0 && i < rest.length - 1 ? { type: rest.slice(0, i), to: rest.slice(i + 1) } : null;
}

export function statusForOp(op: ReviewOp): ReviewStatus {
  return op === "verify" ? "human-verified" : op === "flag" ? "flagged" : "human-edited";
}

/** The review event stored as an annotation value. */
export function reviewValue(op: ReviewOp): { status: ReviewStatus; op: ReviewOp } {
  return { status: statusForOp(op), op };
}

/** A stored value read back as a review event; null for anything else (a caller's own `review` key). */
export function readReviewValue(v: unknown): { status: ReviewStatus; op: ReviewOp } | null {
  if (typeof v !== "object" || v === null) return null;
  const { status, op } = v as { status?: unknown; op?: unknown };
  if (!(REVIEW_STATUSES as readonly unknown[]).includes(status) || !(REVIEW_OPS as readonly unknown[]).includes(op))
    return null;
  return { status: status as ReviewStatus, op: op as ReviewOp };
}

export interface ReviewEventLike {
  id: number;
  value: unknown;
  at: number;
}

/** The status after the events with at <= asOf, in (at, id) order; the default when none. */
export function reviewStatusAt<E extends ReviewEventLike>(
  events: readonly E[],
  asOf: number,
): { status: ReviewStatus; last: E | null } {
  let last: E | null = null;
  for (const e of [...events].sort((a, b) => a.at - b.at || a.id - b.id)) {
    if (e.at > asOf) break;
    if (readReviewValue(e.value)) last = e;
  }
  const r = last ? readReviewValue(last.value) : null;
  return { status: r?.status ?? DEFAULT_STATUS, last };
}
