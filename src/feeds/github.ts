/**
 * GitHub I/O around the pure core in src/core/sources/github.ts: fetch the files a push changed (at
 * the pushed commit) or a repository path's tree, and turn them into code_unit artifacts and
 * deprecations. Requests are bounded per delivery/run (MAX_FILES) because a Worker invocation
 * has a subrequest budget (1,000 on paid plans) and GitHub allows 60 unauthenticated requests/hour.
 */
import type { ImportPlan } from "../core/formats/types";
import {
  codeArtifacts,
  fileChunkId,
  isIndexable,
  type PushChanges,
  parseTree,
  rawFileRequest,
  removedDeprecations,
  treeRequest,
} from "../core/sources/github";
import type { FeedDeps } from "./deps";

/** Files fetched per push delivery or per source run; the rest is reported and picked up next run. */
export const MAX_FILES = 100;
/** A fetch that takes longer than this is a failure (retried later), not a stuck invocation. */
const FETCH_TIMEOUT_MS = 20_000;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
  }
}

export async function fetchSpec(
  deps: Pick<FeedDeps, "http">,
  spec: { url: string; headers: Record<string, string> },
): Promise<Response> {
  return deps.http(new Request(spec.url, { headers: spec.headers, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) }));
}

function retryAfter(res: Response): number | null {
  const h = res.headers.get("retry-after");
  if (!h) return null;
  const s = Number(h);
  if (Number.isFinite(s)) return s;
  const t = Date.parse(h);
  return Number.isFinite(t) ? Math.max(0, (t - Date.now()) / 1000) : null;
}

export async function httpFailure(res: Response, what: string): Promise<HttpError> {
  const text = (await res.text().catch(() => "")).slice(0, 300);
  return new HttpError(res.status, `${what}: HTTP ${res.status} ${text}`.trim(), retryAfter(res));
}

/** Fetch file contents at a commit; 404s (deleted or renamed since) are reported, not fatal. */
async function fetchFiles(
  deps: FeedDeps,
  repo: string,
  sha: string,
  at: number,
  paths: string[],
  plan: ImportPlan,
): Promise<Array<{ path: string; content: string; commit: string; at: number }>> {
  const files: Array<{ path: string; content: string; commit: string; at: number }> = [];
  for (const path of paths.slice(0, MAX_FILES)) {
    const res = await fetchSpec(deps, rawFileRequest(repo, path, sha, deps.githubToken ?? undefined));
    if (res.status === 404) {
      plan.skipped.push({ ref: path, reason: `not found at ${sha.slice(0, 7)}` });
      continue;
    }
    if (!res.ok) throw await httpFailure(res, `GitHub contents ${repo}/${path}`);
    files.push({ path, content: await res.text(), commit: sha, at });
  }
  for (const path of paths.slice(MAX_FILES))
    plan.skipped.push({
      ref: path,
      reason: `over ${MAX_FILES} files in one delivery; a repository source syncs the rest`,
    });
  return files;
}

/** Chunk ids of this repository's files already in the archive, as paths (for tests/depends-on edges). */
async function knownPaths(deps: FeedDeps, archiveId: string, repo: string): Promise<string[]> {
  const prefix = fileChunkId(repo, "");
  const ids = await deps.world.chunkIdsWithPrefix(archiveId, prefix, 5000);
  return ids.map((id) => id.slice(prefix.length));
}

export async function githubPushPlan(deps: FeedDeps, archiveId: string, push: PushChanges): Promise<ImportPlan> {
  const plan: ImportPlan = { artifacts: [], deprecations: [], skipped: [] };
  const changed = push.changed.filter((p) => {
    if (isIndexable(p)) return true;
    plan.skipped.push({ ref: p, reason: "not an indexable source file" });
    return false;
  });
  const files = await fetchFiles(deps, push.repo, push.after, push.at, changed, plan);
  const code = codeArtifacts(push.repo, files, { knownPaths: await knownPaths(deps, archiveId, push.repo) });
  plan.artifacts.push(...code.artifacts);
  plan.skipped.push(...code.skipped);
  plan.deprecations.push(
    ...removedDeprecations(
      push.repo,
      push.removed.filter((p) => isIndexable(p)),
      push.after,
      push.at,
    ),
  );
  return plan;
}

export interface RepoSyncState {
  /** path -> blob sha of the version ingested */
  files: Record<string, string>;
  commit?: string;
}

/**
 * One run of a `github` source: resolve the ref to a commit, read the tree under the path, fetch
 * files whose blob sha changed (at most MAX_FILES per run), deprecate files that disappeared.
 * Returns the plan and the state to store once the plan is applied.
 */
export async function githubRepoPlan(
  deps: FeedDeps,
  loc: { repo: string; path: string; ref: string | null },
  state: RepoSyncState,
): Promise<{ plan: ImportPlan; state: RepoSyncState; remaining: number; notModified: boolean }> {
  const token = deps.githubToken ?? undefined;
  const ref = loc.ref ?? "HEAD";
  const commitRes = await fetchSpec(deps, {
    url: `https://api.github.com/repos/${loc.repo}/commits/${encodeURIComponent(ref)}`,
    headers: {
      Accept: "application/vnd.github+json",
      "User-Agent": "paperguru",
      "X-GitHub-Api-Version": "2022-11-28",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
  });
  if (!commitRes.ok) throw await httpFailure(commitRes, `GitHub commit ${loc.repo}@${ref}`);
  const commit = (await commitRes.json()) as { sha?: string; commit?: { committer?: { date?: string } } };
  if (!commit.sha) throw new HttpError(502, `GitHub commit ${loc.repo}@${ref}: no sha in response`);
  const plan: ImportPlan = { artifacts: [], deprecations: [], skipped: [] };
  if (commit.sha === state.commit && Object.keys(state.files).length > 0)
    return { plan, state, remaining: 0, notModified: true };
  const at = Date.parse(commit.commit?.committer?.date ?? "") || deps.apply.now();
  const treeRes = await fetchSpec(deps, treeRequest(loc.repo, commit.sha, token));
  if (!treeRes.ok) throw await httpFailure(treeRes, `GitHub tree ${loc.repo}@${commit.sha}`);
  const tree = parseTree(await treeRes.text(), loc.path);
  if (!tree.ok) throw new HttpError(502, tree.error.message);
  if (tree.value.truncated)
    plan.skipped.push({
      ref: loc.path || "/",
      reason: "GitHub truncated the tree (over 100,000 entries); narrow the path",
    });
  const current = new Map(tree.value.files.map((f) => [f.path, f.sha]));
  const changed = tree.value.files.filter((f) => state.files[f.path] !== f.sha).map((f) => f.path);
  const removed = Object.keys(state.files).filter((p) => !current.has(p));
  const take = changed.slice(0, MAX_FILES);
  const files = await fetchFiles(deps, loc.repo, commit.sha, at, take, plan);
  const code = codeArtifacts(loc.repo, files, { knownPaths: current.keys() });
  plan.artifacts.push(...code.artifacts);
  plan.skipped.push(...code.skipped);
  plan.deprecations.push(...removedDeprecations(loc.repo, removed, commit.sha, at));
  const next: Record<string, string> = {};
  for (const [p, sha] of Object.entries(state.files)) if (current.has(p)) next[p] = sha;
  for (const f of files) next[f.path] = current.get(f.path) ?? "";
  const remaining = changed.length - take.length;
  // The commit is recorded only when every changed file was taken, so the next run continues.
  return {
    plan,
    state: { files: next, ...(remaining === 0 ? { commit: commit.sha } : {}) },
    remaining,
    notModified: false,
  };
}
