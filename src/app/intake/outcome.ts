/** What applying an import plan reports: counts, per-item statuses, merges, failures, skips. */
import { zeroImportCounts } from "../../core/imports";

export interface ApplyCounts {
  created: number;
  updated: number;
  unchanged: number;
  deprecated: number;
  /** Records merged into another work already in the archive (recorded in entity history). */
  merged: number;
  /** Records folded into a richer record of the same work within this plan (nothing stored by itself). */
  duplicates: number;
  skipped: number;
  failed: number;
  /** Annotation events written; present when the plan carries annotations. */
  annotated?: number;
}

export const zeroCounts: () => ApplyCounts = zeroImportCounts;

export interface ApplyOutcome {
  counts: ApplyCounts;
  /** Per artifact (first 500): id as stored, status, version. */
  items: Array<{ id: string; status: string; version?: number }>;
  merges: Array<{ from: string; into: string; matched_by: string; kept: "incoming" | "existing" }>;
  failures: Array<{ id: string; message: string; field?: string }>;
  skipped: Array<{ ref: string; reason: string }>;
  /** Hard-deleted ids this write created again, as the request asked (recreate_deleted). */
  recreated?: string[];
}

export interface Origin {
  /** webhook | source | import */
  origin: string;
  /** delivery id, source id, or format */
  ref: string;
}

/**
 * Records whose reads and writes (a few local D1/R2 calls each) run between two pauses: locally
 * those calls answer in-process, and a chain of them holds every other request (src/core/pace.ts).
 */
export const RECORD_READS_PER_PAUSE = 20;
