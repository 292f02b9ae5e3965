/**
 * GitHub code as memory: the structural state of a repository (files, public symbols, signatures,
 * imports) as `code_unit` chunks, refreshed from `push` webhooks and from a scheduled
 * `owner/repo[/path][@ref]` source (ProjectGuard's "structural state refreshed from
 * pushes"). Pure: no I/O. The caller
 *   1. parses a push (parsePushEvent) or lists a tree (commitRequest + parseCommit, treeRequest +
 *      parseTree),
 *   2. keeps the paths isIndexable accepts, fetches each with rawFileRequest (the body is the file),
 *   3. turns them into artifacts with codeArtifacts and removed paths into removedDeprecations.
 *
 * One chunk per file (id `gh:owner/repo/path`), its content the exact file text so card anchors are
 * exact offsets into the file at that commit; a new commit that changes the file is a new version
 * (valid_from = commit time), an unchanged file re-ingests as a no-op (same artifact hash).
 *
 * API shapes (GitHub REST, version 2022-11-28): push webhook payload (ref, before, after, created,
 * deleted, forced, repository.full_name / default_branch / pushed_at, head_commit, commits[] with
 * added / removed / modified; at most 2048 commits are listed), "Get repository content" with
 * `Accept: application/vnd.github.raw+json` (raw bytes, files up to 100 MB), "Get a tree" with
 * `recursive=1` (tree[] of {path, mode, type, sha, size}, `truncated` past 100,000 entries / 7 MB)
 * and "Get a commit" (sha, commit.committer.date, commit.tree.sha).
 *
 * The files: github-common.ts (limits, request shapes, chunk ids), github-push.ts (push payloads),
 * this file (REST requests, tree and commit parsing, locations, what gets indexed, the source table's
 * entry) and github-code.ts (files -> artifacts).
 */

import { languageOf } from "../code/symbols";
import { fail, ok, type Result } from "../errors";
import { isObject, parseJsonText, rawStr } from "../formats/common";
import type { Deprecation } from "../formats/types";
import {
  apiHeaders,
  encodePath,
  fileChunkId,
  type GithubRequest,
  gitTime,
  MAX_FILE_BYTES,
  repoUrl,
  SHA_RE,
} from "./github-common";
import { isReadme } from "./readme";
import type { RepoLocation, SourceDefinition } from "./types";

// ---------------------------------------------------------------------------------------------
// REST request builders and response parsers

/** The file at a commit, raw (`Accept: application/vnd.github.raw+json`: the body is the file itself). */
export function rawFileRequest(repo: string, path: string, sha: string, token?: string): GithubRequest {
  return {
    url: `${repoUrl(repo)}/contents/${encodePath(path.replace(/^\/+/, ""))}?ref=${encodeURIComponent(sha)}`,
    headers: apiHeaders("application/vnd.github.raw+json", token),
  };
}

/**
 * The whole tree of a commit, tree or ref (`GET /repos/{owner}/{repo}/git/trees/{ref}?recursive=1`).
 * Segments of a branch name with slashes are encoded one by one (`feature/x` stays a path).
 */
export function treeRequest(repo: string, ref: string, token?: string): GithubRequest {
  return {
    url: `${repoUrl(repo)}/git/trees/${encodePath(ref)}?recursive=1`,
    headers: apiHeaders("application/vnd.github+json", token),
  };
}

/** The commit a ref points to (`GET /repos/{owner}/{repo}/commits/{ref}`): its SHA and time for a scheduled sync. */
export function commitRequest(repo: string, ref: string, token?: string): GithubRequest {
  return {
    url: `${repoUrl(repo)}/commits/${encodePath(ref)}`,
    headers: apiHeaders("application/vnd.github+json", token),
  };
}

/** `{sha, at, tree}` of a "Get a commit" response; `at` is the committer date (when it landed). */
export function parseCommit(json: string): Result<{ sha: string; at: number; tree: string }> {
  const parsed = parseJsonText(json, "commit", "(body)");
  if (!parsed.ok) return parsed;
  const v = parsed.value;
  if (!isObject(v) || !rawStr(v.sha) || !SHA_RE.test(String(v.sha)))
    return fail(
      "validation",
      "commit response: sha is missing",
      "sha",
      "pass the body of GET /repos/{owner}/{repo}/commits/{ref}",
    );
  const commit = isObject(v.commit) ? v.commit : {};
  const committer = isObject(commit.committer) ? commit.committer : {};
  const author = isObject(commit.author) ? commit.author : {};
  const at = gitTime(committer.date) ?? gitTime(author.date);
  if (at === null)
    return fail("validation", "commit response: commit.committer.date is missing", "commit.committer.date");
  const tree = isObject(commit.tree) ? rawStr(commit.tree.sha) : null;
  return ok({ sha: String(v.sha), at, tree: tree ?? String(v.sha) });
}

export interface TreeListing {
  sha: string;
  /** GitHub cut the listing (100,000 entries / 7 MB): list sub-trees one by one to see the rest. */
  truncated: boolean;
  /** Indexable blobs under the prefix, sorted by path. */
  files: Array<{ path: string; sha: string; size: number }>;
}

function normPrefix(prefix: string): string {
  return prefix.replace(/^\/+|\/+$/g, "");
}

/**
 * Blobs of a recursive tree listing that lie under `pathPrefix` ("" = all) and that isIndexable
 * accepts. Symlinks (mode 120000: the blob is the target path) and submodules (type commit) are skipped.
 */
export function parseTree(json: string, pathPrefix: string): Result<TreeListing> {
  const parsed = parseJsonText(json, "tree", "(body)");
  if (!parsed.ok) return parsed;
  const v = parsed.value;
  const hint = "pass the body of GET /repos/{owner}/{repo}/git/trees/{ref}?recursive=1";
  if (!isObject(v)) return fail("validation", "tree response is not a JSON object", "(body)", hint);
  const sha = rawStr(v.sha);
  if (!sha) return fail("validation", "tree response: sha is missing", "sha", hint);
  if (!Array.isArray(v.tree)) return fail("validation", "tree response: tree must be an array", "tree", hint);
  const prefix = normPrefix(pathPrefix);
  const files: TreeListing["files"] = [];
  for (const [i, e] of v.tree.entries()) {
    if (!isObject(e)) return fail("validation", `tree response: tree.${i} is not an object`, `tree.${i}`, hint);
    const path = rawStr(e.path);
    if (!path) return fail("validation", `tree response: tree.${i}.path is missing`, `tree.${i}.path`, hint);
    if (e.type !== "blob" || e.mode === "120000") continue;
    if (prefix && path !== prefix && !path.startsWith(`${prefix}/`)) continue;
    const size = typeof e.size === "number" ? e.size : 0;
    if (!isIndexable(path, size)) continue;
    files.push({ path, sha: rawStr(e.sha) ?? "", size });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return ok({ sha, truncated: v.truncated === true, files });
}

const OWNER_RE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const NAME_RE = /^[A-Za-z0-9._-]{1,100}$/;
// git check-ref-format, narrowed to what is safe in a URL path: no "..", "@{", control chars, ~^:?*[\ or spaces
const REF_RE = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)[A-Za-z0-9._/+-]{1,255}(?<![./])$/;

/**
 * `owner/repo[/path][@ref]`, also `https://github.com/owner/repo[/tree/<ref>/<path>]` (the first
 * segment after /tree/ or /blob/ is taken as the ref: a branch name with slashes needs the @ form).
 */
export function parseRepoLocation(location: string): Result<RepoLocation> {
  const hint = "write owner/repo, owner/repo/sub/dir or owner/repo/sub/dir@branch";
  let s = location.trim().replace(/^(?:https?:\/\/)?(?:www\.)?github\.com\//i, "");
  let ref: string | null = null;
  const at = s.lastIndexOf("@");
  if (at >= 0) {
    ref = s.slice(at + 1);
    s = s.slice(0, at);
    if (!REF_RE.test(ref)) return fail("validation", `"${ref}" is not a usable git ref`, "location", hint);
  }
  const parts = s.split("/").filter((p) => p !== "");
  const [owner = "", rawName = ""] = parts;
  const name = rawName.replace(/\.git$/, "");
  if (!OWNER_RE.test(owner) || !NAME_RE.test(name) || name === "." || name === "..")
    return fail("validation", `"${location}" does not start with a GitHub owner/repo`, "location", hint);
  let rest = parts.slice(2);
  if ((rest[0] === "tree" || rest[0] === "blob") && rest.length >= 2 && ref === null) {
    ref = rest[1] ?? null;
    rest = rest.slice(2);
  }
  if (rest.some((p) => p === "." || p === ".."))
    return fail("validation", `path of "${location}" contains . or .. segments`, "location", hint);
  return ok({ repo: `${owner}/${name}`, path: rest.join("/"), ref });
}

// ---------------------------------------------------------------------------------------------
// What gets indexed

/**
 * Directories that hold dependencies, build output or caches: their files are not the project's
 * own structure, and one `node_modules` outweighs the project by orders of magnitude.
 */
const SKIP_DIRS = new Set([
  "node_modules",
  "bower_components",
  "jspm_packages",
  "vendor",
  "third_party",
  "dist",
  "build",
  "out",
  "coverage",
  ".next",
  ".nuxt",
  ".output",
  ".svelte-kit",
  ".wrangler",
  ".git",
  "__pycache__",
  ".venv",
  "venv",
  "site-packages",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
]);

/** Lockfiles and generated single files (Yarn PnP maps are multi-MB generated JavaScript). */
const SKIP_FILES = new Set([
  "package-lock.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
  "poetry.lock",
  "Pipfile.lock",
  "uv.lock",
  ".pnp.cjs",
  ".pnp.js",
  ".pnp.loader.mjs",
]);

/** Minified, bundled or code-generated by their name (protobuf/gRPC stubs, *.generated.ts). */
const GENERATED_RE =
  /(?:[.-]min\.[cm]?js|\.bundle\.[cm]?js|\.chunk\.js|\.generated\.[a-z]+|\.gen\.[a-z]+|_pb2(?:_grpc)?\.pyi?|_pb\.[jt]s)$/i;

/** Why a path is not indexed, or null when it is. */
export function whyNotIndexable(path: string, size?: number): string | null {
  if (!languageOf(path) && !isReadme(path)) return "not TypeScript, JavaScript or Python, nor a README";
  const segments = path.split("/");
  const base = segments[segments.length - 1] ?? "";
  const dir = segments.slice(0, -1).find((s) => SKIP_DIRS.has(s));
  if (dir) return `under ${dir}/ (dependencies or build output)`;
  if (SKIP_FILES.has(base)) return "lockfile or generated loader";
  if (GENERATED_RE.test(base)) return "minified, bundled or generated";
  if (size !== undefined && size > MAX_FILE_BYTES)
    return `larger than ${MAX_FILE_BYTES / 1024} KB (generated in practice)`;
  return null;
}

/**
 * Whether a path is worth a code_unit chunk: a supported language (TS/JS/Python), not under a
 * dependency or build directory (node_modules, dist, build, vendor, …), not a lockfile, minified
 * or generated file, and at most 512 KB (see MAX_FILE_BYTES for why).
 */
export function isIndexable(path: string, size?: number): boolean {
  return whyNotIndexable(path, size) === null;
}

export function removedDeprecations(repo: string, paths: string[], commit: string, at: number): Deprecation[] {
  const reason = `deleted in ${commit.slice(0, 7)}`;
  return [...new Set(paths)]
    .filter((p) => isIndexable(p))
    .sort()
    .map((p) => ({ id: fileChunkId(repo, p), at, by: null, reason }));
}

// ---------------------------------------------------------------------------------------------
// The source table's entry

const GITHUB_LOCATION_RE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}(?:\/[^@\s]+)?(?:@[^\s@]+)?$/;

/** The github source: `owner/repo[/path][@ref]`, walked by the application's repository walker. */
export const githubSource: SourceDefinition = {
  rateLimit: {
    minIntervalMs: 60_000,
    note: "GitHub REST: 60 requests/hour unauthenticated, 5,000/hour with a token (720 ms)",
  },
  check: ({ location }) =>
    !GITHUB_LOCATION_RE.test(location) || /(^|\/)\.\.?(\/|@|$)/.test(location)
      ? {
          field: "location",
          message: `github location ${JSON.stringify(location)} is not owner/repo[/path][@ref]`,
          hint: "e.g. `octocat/hello-world`, `octocat/hello-world/docs@main` (no `..` segments)",
        }
      : null,
  fetch: { via: "repository", parseLocation: parseRepoLocation },
};
