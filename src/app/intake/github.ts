/**
 * GitHub I/O around the pure core in src/core/sources/github.ts: fetch the files a push changed (at
 * the pushed commit) or a repository path's tree, and turn them into code_unit artifacts and
 * deprecations. Requests are bounded per delivery/run (MAX_FILES) because a Worker invocation
 * has a subrequest budget (1,000 on paid plans) and GitHub allows 60 unauthenticated requests/hour.
 */
import type { ImportPlan } from "../../core/formats/types";
import { OutboundRefused, urlRefusal } from "../../core/net";
import {
  commitRequest,
  isIndexable,
  parseCommit,
  parseTree,
  rawFileRequest,
  removedDeprecations,
  treeRequest,
} from "../../core/sources/github";
import { codeArtifacts } from "../../core/sources/github-code";
import { fileChunkId } from "../../core/sources/github-common";
import type { PushChanges } from "../../core/sources/github-push";
import { ARXIV_HTTP_HOSTS } from "../../core/sources/types";
import type { IntakeDeps } from "../deps";

/** Files fetched per push delivery or per source run; the rest is reported and picked up next run. */
export const MAX_FILES = 100;
/**
 * Without a token GitHub allows 60 requests/hour: a run makes 2 (commit, tree) + one per file, so it
 * fetches at most 50 files and the quota's reset time (x-ratelimit-reset) schedules the rest.
 */
export const MAX_FILES_UNAUTHENTICATED = 50;

function fileBudget(deps: Pick<IntakeDeps, "githubToken">): number {
  return deps.githubToken ? MAX_FILES : MAX_FILES_UNAUTHENTICATED;
}
/** A fetch that takes longer than this is a failure (retried later), not a stuck invocation. */
const FETCH_TIMEOUT_MS = 20_000;
/** One repository file at most (the ingest caps content at 2 MiB of text). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url.slice(0, 100);
  }
}

/**
 * Why a request never got a response, in words a user can act on. workerd reports DNS failures,
 * refused connections and TLS errors alike as "internal error; reference = <id>", so that message
 * is replaced by the three causes it stands for; other messages are kept (first 300 characters).
 */
export function connectionCause(e: unknown): string {
  const name = e instanceof Error ? e.name : "";
  const message = e instanceof Error ? e.message : String(e);
  if (name === "TimeoutError" || /timed? ?out/i.test(message)) return `no response within ${FETCH_TIMEOUT_MS / 1000} s`;
  if (/internal error; reference/i.test(message) || message === "")
    return "the connection failed (unknown host, connection refused or TLS error); check the URL and that the host is reachable from this server";
  return message.slice(0, 300);
}

/** Redirects followed per fetch; each hop is checked like the first URL. */
const MAX_REDIRECTS = 5;

/**
 * Fetch a request the importers built, only from public hosts (core/net.ts; OUTBOUND_ALLOW_HOSTS
 * for local development): redirects are followed by hand so every hop is checked, and a refused
 * hop is an HttpError before anything is sent to it.
 */
export async function fetchSpec(
  deps: Pick<IntakeDeps, "http" | "allowHosts">,
  spec: { url: string; headers: Record<string, string> },
): Promise<Response> {
  let url = spec.url;
  for (let hop = 0; ; hop++) {
    const refused = urlRefusal(url, { allowHosts: deps.allowHosts, allowHttpHosts: ARXIV_HTTP_HOSTS });
    if (refused) {
      let host = url.slice(0, 100);
      try {
        host = new URL(url).host;
      } catch {
        // not a URL: the refusal says so
      }
      throw new HttpError(400, `refused to fetch ${hop ? "the redirect target" : "the URL"} on ${host}: it ${refused}`);
    }
    let res: Response;
    try {
      res = await deps.http(
        new Request(url, { headers: spec.headers, redirect: "manual", signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) }),
      );
    } catch (e) {
      if (e instanceof OutboundRefused) throw new HttpError(400, `refused to fetch ${hostOf(url)}: ${e.message}`);
      throw new HttpError(502, `could not reach ${hostOf(url)}: ${connectionCause(e)}`);
    }
    const location = res.status >= 300 && res.status < 400 ? res.headers.get("location") : null;
    if (!location) return res;
    if (hop >= MAX_REDIRECTS) throw new HttpError(508, `more than ${MAX_REDIRECTS} redirects`);
    await res.body?.cancel();
    url = new URL(location, url).toString();
  }
}

/**
 * A response body as text, at most `max` bytes however it is sent (Content-Length or chunked): the
 * stream is read and cancelled at the cap, never buffered whole.
 */
export async function readCapped(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > max) {
    await res.body?.cancel();
    throw new HttpError(413, `response of ${declared} bytes is over ${max}`);
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new HttpError(413, `response is over ${max} bytes`);
    }
    parts.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** Seconds to wait before asking again: Retry-After, or GitHub's exhausted-quota reset time. */
export function retryAfter(res: Response, nowMs = Date.now()): number | null {
  const h = res.headers.get("retry-after");
  if (h) {
    const s = Number(h);
    if (Number.isFinite(s)) return s;
    const t = Date.parse(h);
    if (Number.isFinite(t)) return Math.max(0, (t - nowMs) / 1000);
  }
  // GitHub answers 403/429 with x-ratelimit-remaining: 0 and the epoch second the quota resets.
  const reset = Number(res.headers.get("x-ratelimit-reset"));
  if (res.headers.get("x-ratelimit-remaining") === "0" && Number.isFinite(reset) && reset > 0)
    return Math.max(0, reset - nowMs / 1000);
  return null;
}

/**
 * The failure of an upstream response: its status only. The body is not read into the message: it
 * is stored as the source's last_error, readable with a read-only key, and may hold anything.
 */
export async function httpFailure(res: Response, what: string): Promise<HttpError> {
  await res.body?.cancel().catch(() => undefined);
  return new HttpError(res.status, `${what}: HTTP ${res.status} ${res.statusText}`.trim(), retryAfter(res));
}

/** Fetch file contents at a commit; 404s (deleted or renamed since) are reported, not fatal. */
async function fetchFiles(
  deps: IntakeDeps,
  repo: string,
  sha: string,
  at: number,
  paths: string[],
  plan: ImportPlan,
): Promise<Array<{ path: string; content: string; commit: string; at: number }>> {
  const files: Array<{ path: string; content: string; commit: string; at: number }> = [];
  const budget = fileBudget(deps);
  for (const path of paths.slice(0, budget)) {
    const res = await fetchSpec(deps, rawFileRequest(repo, path, sha, deps.githubToken ?? undefined));
    if (res.status === 404) {
      plan.skipped.push({ ref: path, reason: `not found at ${sha.slice(0, 7)}` });
      continue;
    }
    if (!res.ok) throw await httpFailure(res, `GitHub contents ${repo}/${path}`);
    files.push({ path, content: await readCapped(res, MAX_FILE_BYTES), commit: sha, at });
  }
  for (const path of paths.slice(budget))
    plan.skipped.push({
      ref: path,
      reason: `over ${budget} files in one delivery${deps.githubToken ? "" : " (no GITHUB_TOKEN)"}; a repository source syncs the rest`,
    });
  return files;
}

/** Chunk ids of this repository's files already in the archive, as paths (for tests/depends-on edges). */
async function knownPaths(deps: IntakeDeps, archiveId: string, repo: string): Promise<string[]> {
  const prefix = fileChunkId(repo, "");
  const ids = await deps.world.chunkIdsWithPrefix(archiveId, prefix, 5000);
  return ids.map((id) => id.slice(prefix.length));
}

export async function githubPushPlan(deps: IntakeDeps, archiveId: string, push: PushChanges): Promise<ImportPlan> {
  const known = await knownPaths(deps, archiveId, push.repo);
  if (push.fullSync) {
    // A forced push (or one over GitHub's 2,048-commit listing) hides what changed: re-list the tree.
    const r = await treeSync(deps, push.repo, "", { sha: push.after, at: push.at }, {}, known);
    r.plan.skipped.push({ ref: push.ref, reason: `full tree sync: ${push.fullSync}` });
    return r.plan;
  }
  const plan: ImportPlan = { artifacts: [], deprecations: [], skipped: [] };
  const changed = push.changed.filter((p) => {
    if (isIndexable(p)) return true;
    plan.skipped.push({ ref: p, reason: "not an indexable source file" });
    return false;
  });
  const files = await fetchFiles(deps, push.repo, push.after, push.at, changed, plan);
  const code = codeArtifacts(push.repo, files, { knownPaths: [...known, ...changed] });
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
 * Sync the files under `prefix` at one commit: fetch files whose blob sha differs from `previous`
 * (at most MAX_FILES; `remaining` says how many are left for the next run) and deprecate files of
 * `previous` or `known` that are gone from the tree.
 */
async function treeSync(
  deps: IntakeDeps,
  repo: string,
  prefix: string,
  commit: { sha: string; at: number },
  previous: Record<string, string>,
  known: string[],
): Promise<{ plan: ImportPlan; files: Record<string, string>; remaining: number }> {
  const plan: ImportPlan = { artifacts: [], deprecations: [], skipped: [] };
  const treeRes = await fetchSpec(deps, treeRequest(repo, commit.sha, deps.githubToken ?? undefined));
  if (!treeRes.ok) throw await httpFailure(treeRes, `GitHub tree ${repo}@${commit.sha}`);
  const tree = parseTree(await treeRes.text(), prefix);
  if (!tree.ok) throw new HttpError(502, tree.error.message);
  if (tree.value.truncated)
    plan.skipped.push({
      ref: prefix || "/",
      reason: "GitHub truncated the tree (over 100,000 entries); narrow the path",
    });
  const current = new Map(tree.value.files.map((f) => [f.path, f.sha]));
  const changed = tree.value.files.filter((f) => previous[f.path] !== f.sha).map((f) => f.path);
  const underPrefix = (p: string) => !prefix || p === prefix || p.startsWith(`${prefix.replace(/\/+$/, "")}/`);
  const gone = new Set([...Object.keys(previous), ...known.filter(underPrefix)].filter((p) => !current.has(p)));
  const take = changed.slice(0, fileBudget(deps));
  const fetched = await fetchFiles(deps, repo, commit.sha, commit.at, take, plan);
  const code = codeArtifacts(repo, fetched, { knownPaths: current.keys() });
  plan.artifacts.push(...code.artifacts);
  plan.skipped.push(...code.skipped);
  plan.deprecations.push(...removedDeprecations(repo, [...gone], commit.sha, commit.at));
  const files: Record<string, string> = {};
  for (const [p, sha] of Object.entries(previous)) if (current.has(p)) files[p] = sha;
  for (const f of fetched) files[f.path] = current.get(f.path) ?? "";
  return { plan, files, remaining: changed.length - take.length };
}

/**
 * One run of a `github` source: resolve the ref to a commit (an unchanged commit fetches nothing
 * more), then sync the tree under the path. Returns the plan and the state to store once applied.
 */
export async function githubRepoPlan(
  deps: IntakeDeps,
  loc: { repo: string; path: string; ref: string | null },
  state: RepoSyncState,
): Promise<{ plan: ImportPlan; state: RepoSyncState; remaining: number; notModified: boolean }> {
  const ref = loc.ref ?? "HEAD";
  const commitRes = await fetchSpec(deps, commitRequest(loc.repo, ref, deps.githubToken ?? undefined));
  if (!commitRes.ok) throw await httpFailure(commitRes, `GitHub commit ${loc.repo}@${ref}`);
  const commit = parseCommit(await commitRes.text());
  if (!commit.ok) throw new HttpError(502, `GitHub commit ${loc.repo}@${ref}: ${commit.error.message}`);
  const { sha, at } = commit.value;
  if (sha === state.commit && Object.keys(state.files).length > 0)
    return { plan: { artifacts: [], deprecations: [], skipped: [] }, state, remaining: 0, notModified: true };
  const r = await treeSync(deps, loc.repo, loc.path, { sha, at }, state.files, []);
  // The commit is recorded only when every changed file was taken, so the next run continues.
  return {
    plan: r.plan,
    state: { files: r.files, ...(r.remaining === 0 ? { commit: sha } : {}) },
    remaining: r.remaining,
    notModified: false,
  };
}
