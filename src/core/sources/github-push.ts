/**
 * GitHub push webhooks: the payload (ref, before, after, created, deleted, forced,
 * repository.full_name / default_branch / pushed_at, head_commit, commits[] with added / removed /
 * modified; at most 2048 commits are listed) read into the paths a push changed. Pure: no I/O.
 */
import { fail, ok, type Result } from "../errors";
import { isObject, rawStr } from "../formats/common";
import { gitTime, REPO_RE, SHA_RE, ZERO_SHA } from "./github-common";

// ---------------------------------------------------------------------------------------------
// Push webhooks

export interface PushChanges {
  /** `owner/repo`. */
  repo: string;
  /** Full ref: `refs/heads/main`, `refs/tags/v1.0`. */
  ref: string;
  /** Branch name for `refs/heads/…`, else "" (tags and other refs). */
  branch: string;
  /** Commit the ref points to after the push (all zeros when the ref was deleted). */
  after: string;
  /** epoch ms of the head commit (0 when a deleted ref's payload carries no time at all). */
  at: number;
  /** Paths whose net effect over the pushed commits is "exists with new content", sorted. */
  changed: string[];
  /** Paths whose net effect is "gone", sorted. */
  removed: string[];
  /** A branch push to the repository's default branch (what the caller ingests by default). */
  isDefaultBranch: boolean;
  deletedRef: boolean;
  before: string;
  isTag: boolean;
  createdRef: boolean;
  forced: boolean;
  /**
   * Why the commit lists cannot be trusted to describe the net change (re-list the tree instead),
   * or null: a forced push drops commits whose removals are never listed; GitHub lists at most
   * 2048 commits per push.
   */
  fullSync: string | null;
}

/** GitHub lists at most this many commits in one push payload. */
const MAX_PUSH_COMMITS = 2048;

/**
 * Net file changes of a GitHub `push` webhook payload. Commits are applied in order, so a file
 * added then removed is removed (a deprecation of a chunk that may not exist: reported, harmless),
 * and removed then re-added is changed. A rename arrives as remove + add.
 */
export function parsePushEvent(payload: unknown): Result<PushChanges> {
  const bad = (field: string, what: string, hint = "send the body of a GitHub `push` event (X-GitHub-Event: push)") =>
    fail("validation", `push payload: ${field} ${what}`, field, hint);
  if (!isObject(payload)) return bad("(body)", "is not a JSON object");
  const ref = rawStr(payload.ref);
  if (!ref?.startsWith("refs/")) return bad("ref", "must be a full git ref such as refs/heads/main");
  const repository = payload.repository;
  if (!isObject(repository)) return bad("repository", "is missing");
  const repo = rawStr(repository.full_name);
  if (!repo || !REPO_RE.test(repo)) return bad("repository.full_name", "must be owner/repo");
  // `master_branch` is the field's name in payloads from before 2014 (still replayed by old fixtures)
  const defaultBranch = rawStr(repository.default_branch) ?? rawStr(repository.master_branch);
  if (!defaultBranch) return bad("repository.default_branch", "is missing");
  const after = rawStr(payload.after);
  if (!after || !SHA_RE.test(after)) return bad("after", "must be a commit SHA (40 or 64 hex digits)");
  const before = rawStr(payload.before) ?? "";
  const deletedRef = payload.deleted === true || ZERO_SHA.test(after);

  const commitsRaw = payload.commits ?? [];
  if (!Array.isArray(commitsRaw)) return bad("commits", "must be an array");
  const state = new Map<string, "changed" | "removed">();
  let lastCommitTime: number | null = null;
  for (const [i, c] of commitsRaw.entries()) {
    if (!isObject(c)) return bad(`commits.${i}`, "must be an object");
    if (!rawStr(c.id)) return bad(`commits.${i}.id`, "must be a commit SHA");
    const lists: Array<["added" | "modified" | "removed", "changed" | "removed"]> = [
      ["added", "changed"],
      ["modified", "changed"],
      ["removed", "removed"],
    ];
    for (const [key, effect] of lists) {
      const list = c[key] ?? [];
      if (!Array.isArray(list)) return bad(`commits.${i}.${key}`, "must be an array of paths");
      for (const [j, p] of list.entries()) {
        if (typeof p !== "string" || !p) return bad(`commits.${i}.${key}.${j}`, "must be a non-empty path");
        state.set(p, effect);
      }
    }
    const t = gitTime(c.timestamp);
    if (c.timestamp !== undefined && t === null) return bad(`commits.${i}.timestamp`, "must be an ISO 8601 time");
    if (t !== null) lastCommitTime = t;
  }

  let at: number | null = null;
  const head = payload.head_commit;
  if (isObject(head)) {
    at = gitTime(head.timestamp);
    if (at === null) return bad("head_commit.timestamp", "must be an ISO 8601 time");
  }
  at ??= lastCommitTime ?? gitTime(repository.pushed_at);
  if (at === null) {
    if (!deletedRef && state.size > 0) return bad("head_commit.timestamp", "is missing (no commit carries a time)");
    at = 0;
  }

  const changed: string[] = [];
  const removed: string[] = [];
  for (const [p, s] of state) (s === "changed" ? changed : removed).push(p);
  changed.sort();
  removed.sort();
  const isBranch = ref.startsWith("refs/heads/");
  const branch = isBranch ? ref.slice("refs/heads/".length) : "";
  const forced = payload.forced === true;
  return ok({
    repo,
    ref,
    branch,
    after,
    at,
    changed: deletedRef ? [] : changed,
    removed: deletedRef ? [] : removed,
    isDefaultBranch: isBranch && branch === defaultBranch,
    deletedRef,
    before,
    isTag: ref.startsWith("refs/tags/"),
    createdRef: payload.created === true,
    forced,
    fullSync:
      forced && !deletedRef
        ? "forced push: commits that were dropped are not listed, so their changes are unknown"
        : commitsRaw.length >= MAX_PUSH_COMMITS
          ? `GitHub lists at most ${MAX_PUSH_COMMITS} commits per push payload`
          : null,
  });
}
