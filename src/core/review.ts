/**
 * Human verification (Paper Circle, seed 004 §G.4): operations on a node (chunk) or an edge
 * (from, type, to) and the status each leaves. A status is an append-only annotation event, so the
 * status and its history read as of any time:
 * - a node's events are key `review` on the chunk;
 * - an edge's are key `review:edge:<h>` on its source chunk `from`, h = FNV-1a 64-bit hex of
 *   `type \0 to` (keys stay 28 characters whatever the target id's length, inside the dump's
 *   200-character key limit); the value names the edge, and reads match it exactly, so a hash
 *   collision cannot mix two edges' histories;
 * - the value is `{status, op}` (and `edge: {type, to}` for an edge); actor, reason and valid time
 *   are the event's own fields.
 * Nothing reviewed is `auto-generated`. verify -> human-verified; edit, add_edge, remove_edge ->
 * human-edited; flag -> flagged.
 */

export const REVIEW_STATUSES = ["auto-generated", "human-verified", "human-edited", "flagged"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];
export const REVIEW_OPS = ["verify", "edit", "add_edge", "remove_edge", "flag"] as const;
export type ReviewOp = (typeof REVIEW_OPS)[number];

export const DEFAULT_STATUS: ReviewStatus = "auto-generated";
export const NODE_REVIEW_KEY = "review";

export const EDGE_REVIEW_PREFIX = "review:edge:";

/** FNV-1a, 64 bits, over the UTF-16 code units; 16 hex digits. */
function fnv1a64(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, "0");
}

export const edgeReviewKey = (type: string, to: string): string =>
  `${EDGE_REVIEW_PREFIX}${fnv1a64(`${type}\u0000${to}`)}`;

export function statusForOp(op: ReviewOp): ReviewStatus {
  return op === "verify" ? "human-verified" : op === "flag" ? "flagged" : "human-edited";
}

export interface ReviewValue {
  status: ReviewStatus;
  op: ReviewOp;
  edge?: { type: string; to: string };
}

/** The review event stored as an annotation value. */
export function reviewValue(op: ReviewOp, edge?: { type: string; to: string }): ReviewValue {
  return { status: statusForOp(op), op, ...(edge ? { edge: { type: edge.type, to: edge.to } } : {}) };
}

/**
 * A stored value read back as a review event; null for anything else (a caller's own `review` key).
 * With `edge`, only an event naming exactly that edge.
 */
export function readReviewValue(v: unknown, edge?: { type: string; to: string }): ReviewValue | null {
  if (typeof v !== "object" || v === null) return null;
  const { status, op, edge: e } = v as { status?: unknown; op?: unknown; edge?: unknown };
  if (!(REVIEW_STATUSES as readonly unknown[]).includes(status) || !(REVIEW_OPS as readonly unknown[]).includes(op))
    return null;
  const named =
    typeof e === "object" &&
    e !== null &&
    typeof (e as { type?: unknown }).type === "string" &&
    typeof (e as { to?: unknown }).to === "string"
      ? { type: (e as { type: string }).type, to: (e as { to: string }).to }
      : undefined;
  if (edge && (named?.type !== edge.type || named?.to !== edge.to)) return null;
  return { status: status as ReviewStatus, op: op as ReviewOp, ...(named ? { edge: named } : {}) };
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
  edge?: { type: string; to: string },
): { status: ReviewStatus; last: E | null } {
  let last: E | null = null;
  for (const e of [...events].sort((a, b) => a.at - b.at || a.id - b.id)) {
    if (e.at > asOf) break;
    if (readReviewValue(e.value, edge)) last = e;
  }
  const r = last ? readReviewValue(last.value, edge) : null;
  return { status: r?.status ?? DEFAULT_STATUS, last };
}
