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
 */
import { extractImports, extractSymbols, type Language, languageOf, scanSource } from "../code/symbols";
import { fail, ok, type Result } from "../errors";
import { isObject, LIMITS, parseJsonText, parseTime, rawStr } from "../formats/common";
import { paperIdentity } from "../formats/paper";
import type { Deprecation, ImportPlan } from "../formats/types";
import { findIdentifiers } from "../ids";
import type { ArtifactInput, EdgeInput, EntityInput } from "../ingest";
import { isReadme, type ReadmePaper, readmePaper } from "./readme";

// ---------------------------------------------------------------------------------------------
// Limits: the HTTP ingest schema's (LIMITS in ../formats/common.ts), the core must not produce what it rejects

/**
 * 512 KB per file. Source files above that are generated or bundled in practice (parsers, protobuf
 * stubs, vendored bundles); a hand-written outlier (TypeScript's checker.ts, ~3 MB) is the accepted
 * loss. The bound also keeps a 200-file batch (~100 MB at worst, typically a few MB) feasible in a
 * 128 MB Worker, and stays far below the 2 MiB per-artifact ingest limit.
 */
export const MAX_FILE_BYTES = 512 * 1024;

/** Paper citations read from one file's comments: more is a bibliography, not an implementation. */
const MAX_PAPER_EDGES = 20;

/** Exported names listed in a derived synopsis (the head stays small: ~40 names ≈ 120 tokens). */
const SYNOPSIS_NAMES = 40;

export interface GithubRequest {
  url: string;
  headers: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const REPO_RE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;
const SHA_RE = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;
const ZERO_SHA = /^0+$/;

/** Each path segment percent-encoded, the slashes kept. */
function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

function repoUrl(repo: string): string {
  const [owner = "", name = ""] = repo.split("/");
  return `https://api.github.com/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}

function apiHeaders(accept: string, token?: string): Record<string, string> {
  return {
    Accept: accept,
    "User-Agent": "paperguru",
    "X-GitHub-Api-Version": "2022-11-28",
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
  };
}

/** FNV-1a 32-bit, two seeds: a 16-hex tail hash for ids that must be shortened (sync, deterministic). */
function hash64(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x811c9dc5 ^ 0x9e3779b1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/** Keep `max` characters: the head of the string plus a hash of the whole, so distinct inputs stay distinct. */
function shorten(s: string, max: number): string {
  if (s.length <= max) return s;
  return `${s.slice(0, max - 18)}~${hash64(s)}`;
}

/** Epoch ms of an ISO 8601 time or of epoch seconds/ms (pushed_at is epoch seconds), else null. */
function gitTime(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v < 1e11 ? v * 1000 : v;
  return parseTime(v) ?? null;
}

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
export function parseRepoLocation(location: string): Result<{ repo: string; path: string; ref: string | null }> {
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

/** `gh:owner/repo/path`, at most 512 characters (the head kept, a hash of the whole as the tail). */
export function fileChunkId(repo: string, path: string): string {
  return shorten(`gh:${repo}/${path.replace(/^\/+/, "")}`, LIMITS.artifactId);
}

export function removedDeprecations(repo: string, paths: string[], commit: string, at: number): Deprecation[] {
  const reason = `deleted in ${commit.slice(0, 7)}`;
  return [...new Set(paths)]
    .filter((p) => isIndexable(p))
    .sort()
    .map((p) => ({ id: fileChunkId(repo, p), at, by: null, reason }));
}

// ---------------------------------------------------------------------------------------------
// Files -> code_unit artifacts

export interface CodeFile {
  path: string;
  /** The file's text at `commit`. */
  content: string;
  commit: string;
  /** epoch ms of the commit. */
  at: number;
}

const JS_EXTS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".d.ts"];
/** TS ESM imports name the emitted file (`./x.js` for x.ts). */
const EMITTED: Record<string, string[]> = {
  ".js": [".ts", ".tsx"],
  ".jsx": [".tsx"],
  ".mjs": [".mts"],
  ".cjs": [".cts"],
};

function dirname(p: string): string {
  const i = p.lastIndexOf("/");
  return i < 0 ? "" : p.slice(0, i);
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

/** Join and normalise; null when `..` climbs above the repository root. */
function joinPath(dir: string, rel: string): string | null {
  const out = dir ? dir.split("/") : [];
  for (const seg of rel.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (!out.length) return null;
      out.pop();
    } else out.push(seg);
  }
  return out.join("/");
}

const TEST_DIRS = new Set(["test", "tests", "__tests__", "spec", "specs"]);

export function isTestPath(path: string): boolean {
  const base = basename(path);
  if (/\.(?:test|spec)\.[cm]?[jt]sx?$/.test(base)) return true;
  if (/^test_.*\.pyi?$/.test(base) || /_test\.pyi?$/.test(base) || base === "conftest.py") return true;
  return dirname(path)
    .split("/")
    .some((s) => TEST_DIRS.has(s));
}

/** The module name a test mirrors: foo.test.ts -> foo, test_foo.py / foo_test.py -> foo, tests/foo.ts -> foo. */
function testStem(path: string): string | null {
  const base = basename(path);
  const js = /^(.+?)\.(?:test|spec)\.[cm]?[jt]sx?$/.exec(base);
  if (js?.[1]) return js[1];
  const py = /^test_(.+)\.pyi?$/.exec(base) ?? /^(.+)_test\.pyi?$/.exec(base);
  if (py?.[1]) return py[1];
  const plain = /^(.+?)\.[^.]+$/.exec(base)?.[1];
  return plain && plain !== "conftest" && plain !== "index" && plain !== "__init__" ? plain : null;
}

function stemOf(path: string): string {
  const base = basename(path).replace(/\.d\.ts$/, "");
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}

const family = (l: Language | null): string => (l === "python" ? "py" : l ? "js" : "");

/** Resolution of import specifiers and test mirrors against the set of known repository paths. */
class PathIndex {
  private stems: Map<string, string[]> | null = null;
  private pySuffixes: Map<string, string[]> | null = null;
  constructor(readonly known: Set<string>) {}

  resolve(from: string, spec: string): string | null {
    const lang = languageOf(from);
    if (lang === "python") return this.resolvePy(from, spec);
    if (!spec.startsWith(".")) return null;
    const base = joinPath(dirname(from), spec);
    if (base === null) return null;
    const cands: string[] = [base];
    for (const [ext, repl] of Object.entries(EMITTED))
      if (base.endsWith(ext)) for (const r of repl) cands.push(base.slice(0, -ext.length) + r);
    for (const ext of JS_EXTS) cands.push(base + ext);
    for (const ext of JS_EXTS) cands.push(`${base}/index${ext}`);
    return cands.find((c) => c !== from && this.known.has(c) && languageOf(c) !== null) ?? null;
  }

  private resolvePy(from: string, spec: string): string | null {
    const dots = /^\.*/.exec(spec)?.[0].length ?? 0;
    const mod = spec.slice(dots);
    const attempt = (m: string): string | null => {
      const rel = m ? m.split(".").join("/") : "";
      if (dots > 0) {
        let dir: string | null = dirname(from);
        for (let k = 1; k < dots && dir !== null; k++) dir = dir ? dirname(dir) : null;
        if (dir === null) return null;
        const base = rel ? (dir ? `${dir}/${rel}` : rel) : dir;
        return this.firstPy(rel ? [`${base}.py`, `${base}.pyi`, `${base}/__init__.py`] : [`${base}/__init__.py`], from);
      }
      if (!rel) return null;
      const cands = [`${rel}.py`, `${rel}/__init__.py`, `${rel}.pyi`];
      // from the root, then the importer's directory (scripts run from there), then a unique suffix (src/ layouts)
      const local = dirname(from);
      const direct = this.firstPy([...cands, ...(local ? cands.map((c) => `${local}/${c}`) : [])], from);
      if (direct) return direct;
      for (const c of cands) {
        const hits =
          this.suffixIndex()
            .get(c)
            ?.filter((p) => p !== from) ?? [];
        if (hits.length === 1) return hits[0] ?? null;
      }
      return null;
    };
    const hit = attempt(mod);
    if (hit || !mod) return hit;
    // `import a.b.c` of a name inside a.b, or `from . import name` of a function: the parent module
    const parent = mod.includes(".") ? mod.slice(0, mod.lastIndexOf(".")) : dots > 0 ? "" : null;
    return parent === null ? null : attempt(parent);
  }

  private firstPy(cands: string[], from: string): string | null {
    return cands.find((c) => c !== from && this.known.has(c)) ?? null;
  }

  private suffixIndex(): Map<string, string[]> {
    if (this.pySuffixes) return this.pySuffixes;
    const idx = new Map<string, string[]>();
    for (const p of [...this.known].sort()) {
      if (languageOf(p) !== "python") continue;
      const segs = p.split("/");
      for (let k = 1; k < segs.length; k++) {
        const key = segs.slice(k).join("/");
        const list = idx.get(key);
        if (list) list.push(p);
        else idx.set(key, [p]);
      }
    }
    this.pySuffixes = idx;
    return idx;
  }

  /** The non-test module a test file mirrors by name: same directory first, else the best unique match. */
  mirror(testPath: string): string | null {
    const stem = testStem(testPath);
    if (!stem) return null;
    if (!this.stems) {
      this.stems = new Map();
      for (const p of [...this.known].sort()) {
        if (!languageOf(p) || isTestPath(p)) continue;
        const s = stemOf(p);
        const list = this.stems.get(s);
        if (list) list.push(p);
        else this.stems.set(s, [p]);
      }
    }
    const fam = family(languageOf(testPath));
    const cands = (this.stems.get(stem) ?? []).filter((p) => family(languageOf(p)) === fam && p !== testPath);
    if (cands.length <= 1) return cands[0] ?? null;
    // score = shared trailing directory segments (tests/pkg/test_a.py <-> src/pkg/a.py share "pkg")
    const tdir = dirname(testPath)
      .split("/")
      .filter((s) => !TEST_DIRS.has(s));
    const score = (p: string) => {
      if (dirname(p) === dirname(testPath)) return 1000;
      const d = dirname(p).split("/");
      let k = 0;
      while (k < d.length && k < tdir.length && d[d.length - 1 - k] === tdir[tdir.length - 1 - k]) k++;
      return k;
    };
    const ranked = cands.map((p) => ({ p, s: score(p) })).sort((a, b) => b.s - a.s);
    const [first, second] = ranked;
    return first && (!second || first.s > second.s) ? first.p : null;
  }
}

const LICENSE_RE = /copyright|licen[cs]e|spdx|all rights reserved/i;
const DIRECTIVE_RE =
  /^\s*(?:@ts-|eslint|biome-ignore|prettier-ignore|#region|jshint|global\s|type:\s*ignore|noqa|pylint|-\*-)/i;

function cleanComment(raw: string): string {
  return raw
    .replace(/^\/\*+!?|\*+\/$/g, "")
    .split("\n")
    .map((l) => l.replace(/^\s*(?:\/\/+|\*+|#+)\s?/, ""))
    .filter((l) => !/^\s*@\w+/.test(l)) // JSDoc block tags (@module, @packageDocumentation, @param)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The file's own description: the Python module docstring, else the leading comment (licenses and
 * tool directives skipped), else the comment directly above the first exported declaration (files
 * that start with imports and document their main export).
 */
function leadingDoc(path: string, content: string, firstExport: number | null): string {
  const scan = scanSource(path, content);
  if (!scan) return "";
  const py = languageOf(path) === "python";
  const firstCode = scan.code.search(/\S/);
  if (py) {
    const doc = scan.strings.find((s) => s.start >= 0 && /^\s*[rRuU]?$/.test(scan.code.slice(0, s.start)));
    if (doc && (firstCode < 0 || firstCode >= doc.start - 1)) {
      const q = doc.triple ? 3 : 1;
      const text = content
        .slice(doc.start + q, Math.max(doc.start + q, doc.end - q))
        .replace(/\s+/g, " ")
        .trim();
      if (text) return text;
    }
  }
  // comments before the first code token, grouped into blocks; the first block that is neither a license nor a directive
  const parts: string[] = [];
  for (const [s, e] of scan.comments) {
    if (firstCode >= 0 && s > firstCode) break;
    const raw = content.slice(s, e);
    if (raw.startsWith("#!")) continue;
    const text = cleanComment(raw);
    if (!text || LICENSE_RE.test(text) || DIRECTIVE_RE.test(text)) {
      if (parts.length) break;
      continue;
    }
    parts.push(text);
  }
  if (parts.length || firstExport === null) return parts.join(" ").trim();
  const above: string[] = [];
  let end = firstExport;
  for (let k = scan.comments.length - 1; k >= 0; k--) {
    const [s, e] = scan.comments[k] ?? [0, 0];
    if (e > end) continue;
    if (content.slice(e, end).trim()) break; // code between the comment and the declaration
    above.unshift(cleanComment(content.slice(s, e)));
    end = s;
  }
  const text = above.join(" ").trim();
  return LICENSE_RE.test(text) || DIRECTIVE_RE.test(text) ? "" : text;
}

/** Cut at a word boundary at most `max` characters long. */
function cutWords(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const sp = cut.lastIndexOf(" ");
  return `${sp > max / 2 ? cut.slice(0, sp) : cut}…`;
}

function synopsisOf(path: string, doc: string, exported: string[], defined: string[]): string {
  const list = (names: string[]) =>
    names.length > SYNOPSIS_NAMES
      ? `${names.slice(0, SYNOPSIS_NAMES).join(", ")} and ${names.length - SYNOPSIS_NAMES} more`
      : names.join(", ");
  const names = exported.length ? `exports ${list(exported)}` : defined.length ? `defines ${list(defined)}` : "";
  if (!doc) return cutWords(names ? `Module ${path} ${names}.` : `Module ${path}.`, LIMITS.synopsis);
  const tail = names ? ` ${names[0]?.toUpperCase()}${names.slice(1)}.` : "";
  const room = LIMITS.synopsis - tail.length;
  return cutWords(`${cutWords(doc, Math.max(200, Math.min(1200, room)))}${tail}`, LIMITS.synopsis);
}

/** Names in `class X … implements A, B<T>, ns.C {` clauses (TypeScript). */
function implementedNames(code: string): string[] {
  const out = new Set<string>();
  for (const m of code.matchAll(/\bclass\s+[A-Za-z_$][\w$]*[^{;]*?\bimplements\s+([^{;]+)\{/g)) {
    let depth = 0;
    let cur = "";
    const parts: string[] = [];
    for (const ch of m[1] ?? "") {
      if (ch === "<") depth++;
      else if (ch === ">") depth--;
      else if (ch === "," && depth === 0) {
        parts.push(cur);
        cur = "";
      } else if (depth === 0) cur += ch;
    }
    parts.push(cur);
    for (const p of parts) {
      const name = p.trim().split(".").pop()?.trim();
      if (name && /^[A-Za-z_$][\w$]*$/.test(name)) out.add(name);
    }
  }
  return [...out];
}

/** Text of comments (and Python docstrings / triple-quoted strings) where a file cites what it implements. */
function citationText(path: string, content: string): string {
  const scan = scanSource(path, content);
  if (!scan) return "";
  const parts = scan.comments.map(([s, e]) => content.slice(s, e));
  for (const s of scan.strings) if (s.triple) parts.push(content.slice(s.start, s.end));
  return parts.join("\n").slice(0, 200_000);
}

interface Analysed {
  file: CodeFile;
  lang: Language;
  id: string;
  symbols: ReturnType<typeof extractSymbols>;
}

/**
 * One `code_unit` artifact per file (see the module comment). Edges, where derivable:
 * - `depends-on`: relative TS/JS imports and Python imports resolved to a known path
 *   (files ∪ knownPaths): `./x` -> x.ts/.tsx/.js/…, `./x.js` -> x.ts, `./dir` -> dir/index.ts;
 *   Python `.mod` / `pkg.mod` -> mod.py or mod/__init__.py (root, importer's directory, unique suffix);
 * - `tests`: from a test file to each non-test module it imports (weight 0.5) and to the module its
 *   name mirrors (foo.test.ts -> foo.ts, tests/test_foo.py -> foo.py; weight 1);
 * - `implements`: to a paper (arXiv id / DOI cited in a comment or docstring; the paper's chunk id as
 *   paperIdentity gives it) and from `class X implements Y` to the file in this batch exporting Y.
 * Edges depend on which paths are known: pass the full tree listing as knownPaths so that an
 * unchanged file re-pushed later plans the same edges (and stays a no-op).
 */
export function codeArtifacts(
  repo: string,
  files: CodeFile[],
  opts: { knownPaths?: Iterable<string> } = {},
): ImportPlan {
  const plan: ImportPlan = { artifacts: [], deprecations: [], skipped: [] };
  // one record per path: the latest commit wins (prepareBatch rejects a repeated id)
  const byPath = new Map<string, CodeFile>();
  for (const f of files) {
    const path = f.path.replace(/^\/+/, "");
    const prev = byPath.get(path);
    if (prev) {
      plan.skipped.push({ ref: path, reason: "the same path was given twice; the later commit is kept" });
      if (prev.at > f.at) continue;
    }
    byPath.set(path, { ...f, path });
  }
  const known = new Set<string>([...(opts.knownPaths ?? []), ...byPath.keys()]);
  const index = new PathIndex(known);

  const analysed: Analysed[] = [];
  const readmes: Array<{ artifact: ArtifactInput; paper: ReadmePaper | null; seen: string[] }> = [];
  for (const path of [...byPath.keys()].sort()) {
    const file = byPath.get(path);
    if (!file) continue;
    if (isReadme(path) && !whyNotIndexable(path, file.content.length) && file.content.trim()) {
      readmes.push(readmeArtifact(repo, file));
      continue;
    }
    const lang = languageOf(path);
    const why = whyNotIndexable(path, file.content.length);
    if (!lang || why) {
      plan.skipped.push({ ref: path, reason: why ?? "unsupported language" });
      continue;
    }
    if (file.content.includes("\u0000")) {
      plan.skipped.push({ ref: path, reason: "binary content (NUL bytes)" });
      continue;
    }
    if (!file.content.trim()) {
      plan.skipped.push({ ref: path, reason: "empty file" });
      continue;
    }
    analysed.push({ file, lang, id: fileChunkId(repo, path), symbols: extractSymbols(path, file.content) });
  }

  // who exports which interface/class/type, for `implements` edges
  const exporters = new Map<string, string[]>();
  for (const a of analysed)
    for (const s of a.symbols)
      if (s.exported && (s.kind === "interface" || s.kind === "class" || s.kind === "type")) {
        const list = exporters.get(s.name);
        if (list) list.push(a.file.path);
        else exporters.set(s.name, [a.file.path]);
      }

  for (const a of analysed) {
    const { file, lang, id } = a;
    const path = file.path;
    const isTest = isTestPath(path);
    const edges = new Map<string, EdgeInput>();
    const addEdge = (type: EdgeInput["type"], targetPath: string | null, weight: number) => {
      if (!targetPath) return;
      const target = fileChunkId(repo, targetPath);
      if (target === id) return;
      const key = `${type}\u0000${target}`;
      const prev = edges.get(key);
      if (!prev || (prev.weight ?? 1) < weight) edges.set(key, { type, target, weight });
    };
    const imported: string[] = [];
    for (const spec of extractImports(path, file.content)) {
      const target = index.resolve(path, spec);
      if (target && !imported.includes(target)) imported.push(target);
    }
    const mirrored = isTest ? index.mirror(path) : null;
    for (const t of imported) {
      if (isTest && !isTestPath(t)) addEdge("tests", t, t === mirrored ? 1 : 0.5);
      else addEdge("depends-on", t, 1);
    }
    if (mirrored) addEdge("tests", mirrored, 1);

    // implements: papers cited in comments/docstrings
    let papers = 0;
    for (const { id: pid } of findIdentifiers(citationText(path, file.content))) {
      const paper = paperIdentity([pid], "");
      if (!paper || papers >= MAX_PAPER_EDGES) continue;
      const key = `implements\u0000${paper.id}`;
      if (!edges.has(key) && paper.id !== id) {
        edges.set(key, { type: "implements", target: paper.id, weight: 1 });
        papers++;
      }
    }
    // implements: TS `class X implements Y` -> the file exporting Y (an imported one first, else a unique one)
    if (lang === "typescript") {
      const code = scanSource(path, file.content)?.code ?? "";
      for (const name of implementedNames(code)) {
        const owners = (exporters.get(name) ?? []).filter((p) => p !== path);
        const owner = owners.find((p) => imported.includes(p)) ?? (owners.length === 1 ? owners[0] : undefined);
        if (owner) addEdge("implements", owner, 1);
      }
    }

    // entities: exported symbols first, then the file's other declarations (not plain values), capped
    const exported = a.symbols.filter((s) => s.exported);
    const internal = a.symbols.filter((s) => !s.exported && s.kind !== "const");
    const ordered = [...exported, ...internal];
    if (ordered.length > LIMITS.entities)
      plan.skipped.push({
        ref: id,
        reason: `kept ${LIMITS.entities} of ${ordered.length} symbols as entities (the ingest limit)`,
      });
    const entities: EntityInput[] = ordered.slice(0, LIMITS.entities).map((s) => {
      const bare = s.name.slice(s.name.lastIndexOf(".") + 1);
      const aliases = [
        ...(bare !== s.name && bare !== "default" ? [bare] : []),
        shorten(`${path}#${s.name}`, LIMITS.entityName),
      ];
      return {
        type: "symbol",
        id: shorten(`symbol:${repo}/${path}#${s.name}`, LIMITS.entityId),
        name: shorten(s.name, LIMITS.entityName),
        aliases,
      };
    });

    const edgeList = [...edges.values()].sort((x, y) =>
      x.type + x.target < y.type + y.target ? -1 : x.type + x.target > y.type + y.target ? 1 : 0,
    );
    if (edgeList.length > LIMITS.edges)
      plan.skipped.push({ ref: id, reason: `kept ${LIMITS.edges} of ${edgeList.length} edges (the ingest limit)` });

    const artifact: ArtifactInput = {
      id,
      kind: "code_unit",
      title: shorten(path, LIMITS.title),
      synopsis: synopsisOf(
        path,
        leadingDoc(path, file.content, exported[0]?.start ?? null),
        exported.map((s) => s.name).filter((n) => !n.includes(".")),
        internal.map((s) => s.name),
      ),
      content: file.content,
      entities,
      boundaries: [`lang:${lang}`, `repo:${repo}`, ...(isTest ? ["role:test"] : [])],
      edges: edgeList.slice(0, LIMITS.edges),
      valid_from: file.at,
      source: shorten(`https://github.com/${repo}/blob/${file.commit}/${encodePath(path)}`, LIMITS.source),
    };
    plan.artifacts.push(artifact);
  }
  for (const r of readmes) {
    plan.artifacts.push(r.artifact);
    if (!r.paper && r.seen.length > 1)
      plan.skipped.push({
        ref: r.artifact.id,
        reason: `names ${r.seen.length} papers (${r.seen.slice(0, 5).join(", ")}) and says of none that it is this repository's paper: no implements edge`,
      });
  }
  return plan;
}

/**
 * A README as a note of the repository (boundaries `repo:<repo>`, `role:readme`) that `implements`
 * the paper it names as the repository's own (readmePaper): by its identifiers, else by its title
 * (`paper:<title slug>`); the applier lands either on the archive's chunk of that work when one
 * carries the identifier or the title as an alias (resolveEdgeTargets in src/app/intake/apply.ts).
 */
function readmeArtifact(
  repo: string,
  file: CodeFile,
): { artifact: ArtifactInput; paper: ReadmePaper | null; seen: string[] } {
  const { paper, seen } = readmePaper(file.content);
  const target = paper ? paperIdentity(paper.ids, paper.title ?? "") : null;
  const heading = /^#\s+(.+)$/m.exec(file.content)?.[1]?.trim();
  const artifact: ArtifactInput = {
    id: fileChunkId(repo, file.path),
    kind: "note",
    title: shorten(heading ? `${repo}: ${heading}` : `${repo} ${file.path}`, LIMITS.title),
    content: file.content,
    boundaries: [`repo:${repo}`, "role:readme"],
    edges: target ? [{ type: "implements", target: target.id, weight: 1 }] : [],
    valid_from: file.at,
    source: shorten(`https://github.com/${repo}/blob/${file.commit}/${encodePath(file.path)}`, LIMITS.source),
  };
  return { artifact, paper, seen };
}
