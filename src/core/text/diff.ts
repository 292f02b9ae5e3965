/**
 * Line diff between two versions of a chunk, with exact character offsets into both, for the diff
 * route. jsdiff's `diffLines` (Myers' O(ND) algorithm) does the work; `maxEditLength` bounds it, so
 * two unrelated large versions cost at most O(N · maxEditLength) and come back as a refusal instead
 * of a quadratic scan.
 */
import { createTwoFilesPatch, diffLines } from "diff";
import { fail, ok, type Result } from "../errors";

/** Most changed lines a diff computes (beyond: 413 naming the limit); two unrelated 1,010-line versions take ~0.1 s to refuse. */
export const DIFF_MAX_EDIT_LINES = 1000;

export interface DiffOp {
  op: "equal" | "insert" | "delete";
  /** [start, end) in the older version (empty for an insert, at the insertion point). */
  from: [number, number];
  /** [start, end) in the newer version (empty for a delete). */
  to: [number, number];
  lines: number;
  /** The inserted or deleted text; "" for equal spans (their offsets say where they are). */
  text: string;
}

export interface LineDiff {
  ops: DiffOp[];
  inserted_lines: number;
  deleted_lines: number;
  unified: string;
}

export function lineDiff(a: string, b: string, labels: [string, string], context = 3): Result<LineDiff> {
  const changes = diffLines(a, b, { maxEditLength: DIFF_MAX_EDIT_LINES });
  if (!changes)
    return fail(
      "too_large",
      `the versions differ in more than ${DIFF_MAX_EDIT_LINES} lines; a diff computes at most that many`,
      "to",
      "diff versions closer together, or read both with GET /chunks/{id}/content",
    );
  const ops: DiffOp[] = [];
  let i = 0;
  let j = 0;
  let inserted = 0;
  let deleted = 0;
  for (const c of changes) {
    const n = c.value.length;
    const lines = c.count ?? 0;
    if (c.added) {
      ops.push({ op: "insert", from: [i, i], to: [j, j + n], lines, text: c.value });
      j += n;
      inserted += lines;
    } else if (c.removed) {
      ops.push({ op: "delete", from: [i, i + n], to: [j, j], lines, text: c.value });
      i += n;
      deleted += lines;
    } else {
      ops.push({ op: "equal", from: [i, i + n], to: [j, j + n], lines, text: "" });
      i += n;
      j += n;
    }
  }
  const unified = createTwoFilesPatch(labels[0], labels[1], a, b, "", "", { context });
  return ok({ ops, inserted_lines: inserted, deleted_lines: deleted, unified });
}
