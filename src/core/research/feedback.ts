/**
 * SGMC's Self-Loop Memory selector (seed 001, Eq. 12): among the feedback records with the fewest
 * revisions (R_min = {r : revision(r) = min revision}), the most used one. The seed leaves the tie
 * between equally used records open; PaperGuru takes the oldest (`tie: "oldest"`, by creation time,
 * then id), so that a record keeps being chosen until its counters change, or the newest.
 * Counters are annotations (`revisions`, `uses`) read as of a time by the caller.
 */

export interface FeedbackCounters {
  id: string;
  revisions: number;
  uses: number;
  /** Creation time (epoch ms); ties broken by it, then by id. */
  createdAt: number;
}

export type FeedbackTie = "oldest" | "newest";

export function selectFeedback<T extends FeedbackCounters>(
  records: readonly T[],
  tie: FeedbackTie = "oldest",
): T | null {
  let best: T | null = null;
  for (const r of records) {
    if (!best) {
      best = r;
      continue;
    }
    if (r.revisions !== best.revisions) {
      if (r.revisions < best.revisions) best = r;
      continue;
    }
    if (r.uses !== best.uses) {
      if (r.uses > best.uses) best = r;
      continue;
    }
    const older = r.createdAt < best.createdAt || (r.createdAt === best.createdAt && r.id < best.id);
    if (tie === "oldest" ? older : !older) best = r;
  }
  return best;
}
