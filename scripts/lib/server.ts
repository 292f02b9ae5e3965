/**
 * Start a throwaway local PaperGuru (scripts/start.mjs with a fresh temporary state directory) for
 * benchmarks and evaluations, or use PAPERGURU_URL when it is set.
 *
 * With `snapshot: true` the Worker runs from a copy of src/, migrations/ and the config taken at
 * start, so edits to the working tree during a run (wrangler dev rebuilds on every change and
 * restarts the Worker mid-request) neither break nor mix into the measurement; `source` records
 * which code was measured (commit plus a hash of the uncommitted changes under src/ and migrations/).
 */
import { type ChildProcess, execSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { applyLocalMigrations, migrationsHash } from "./migrations.mjs";

/** The repository root (scripts/lib/../..), so the server starts from any working directory. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Which code a run measured: the commit, and the uncommitted changes to the Worker's sources. */
export interface SourceState {
  commit: string;
  /** Files under src/ or migrations/ that differ from the commit (modified, added or untracked). */
  dirty: string[];
  /** sha256 (first 12 hex) of those files' contents; null when the tree is clean. */
  dirtyHash: string | null;
}

export interface Server {
  url: string;
  adminKey: string;
  /** Set when the server was started from a snapshot of the working tree. */
  source?: SourceState;
  stop(): void;
  /** SIGKILL the server's whole process group, as a crash would (nothing is flushed or cleaned). */
  kill(): void;
  /**
   * CPU time (user + system, ms) the server's live processes have used so far (its process group,
   * read from /proc; null for a server this harness did not start, or without /proc). A difference
   * across a phase is the work the server did in it, steadier than wall time on a shared machine.
   */
  cpuMs(): number | null;
}

/** User + system CPU ms of the live processes in process group `pgid` (Linux /proc), or null. */
export function groupCpuMs(pgid: number): number | null {
  if (!existsSync("/proc/self/stat")) return null;
  let ticks = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the command name (which may hold spaces) in parentheses: state is field 3.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(f[2]) !== pgid) continue;
    ticks += Number(f[11]) + Number(f[12]);
  }
  // USER_HZ: 100 on every Linux this runs on (sysconf(_SC_CLK_TCK)).
  return ticks * 10;
}

/** The admin key: PAPERGURU_ADMIN_KEY, else the local one in .dev.vars, else .dev.vars.example's. */
export function adminKey(local = false): string {
  if (process.env.PAPERGURU_ADMIN_KEY && !local) return process.env.PAPERGURU_ADMIN_KEY;
  for (const file of [".dev.vars", ".dev.vars.example"]) {
    const path = join(ROOT, file);
    if (!existsSync(path)) continue;
    const m = /^ADMIN_KEY=(.*)$/m.exec(readFileSync(path, "utf8"));
    if (m?.[1]) return m[1].trim();
  }
  return "pg_admin_local_dev_key";
}

export interface StartOptions {
  /** Always start a throwaway local server, even when PAPERGURU_URL is set (tests). */
  fresh?: boolean;
  /**
   * Run the Worker from a copy of the working tree taken now (evaluations and benchmarks), or from
   * a commit's tree (`{ ref: "abc1234" }`, through git archive) to measure that commit.
   */
  snapshot?: boolean | { ref: string };
  /** Non-public hosts the server's sources may fetch (OUTBOUND_ALLOW_HOSTS; tests of local feeds). */
  allowHosts?: string;
  /**
   * Keep the local state (D1, R2, Durable Objects) in this directory and leave it on stop, so a
   * server started again on it finds everything (crash tests). Default: a throwaway directory.
   */
  state?: string;
  /** With `state`: the port to listen on (a restarted server keeps its URL). */
  port?: number;
  /** Open the Worker's isolate to a DevTools client on this port (CPU profiles). */
  inspectorPort?: number;
  /** Worker settings passed through `npm start` (DISTILLER, LLM_BASE_URL, ...: scripts/start.mjs PASSED_VARS). */
  vars?: Record<string, string>;
}

/** The state of src/ and migrations/ relative to HEAD. */
export function sourceState(): SourceState {
  const commit = gitCommit();
  let dirty: string[] = [];
  try {
    const out = execSync("git status --porcelain --untracked-files=all -- src migrations", {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "ignore"],
    }).toString();
    dirty = out
      .split("\n")
      .filter(Boolean)
      .map((l) => l.slice(3).trim())
      .sort();
  } catch {
    // not a git checkout
  }
  if (dirty.length === 0) return { commit, dirty, dirtyHash: null };
  const h = createHash("sha256");
  for (const f of dirty) {
    h.update(f);
    const p = join(ROOT, f);
    if (existsSync(p)) h.update(readFileSync(p));
  }
  return { commit, dirty, dirtyHash: h.digest("hex").slice(0, 12) };
}

const TREE = [
  "src",
  "migrations",
  "wrangler.toml",
  "package.json",
  "tsconfig.json",
  "scripts/start.mjs",
  "scripts/lib/front.mjs",
  "scripts/lib/inspector-sink.mjs",
  "scripts/lib/migrations.mjs",
  // wrangler's [build] command: the explorer page's assets and the reference pages.
  "scripts/build-explorer.mjs",
  "scripts/build-docs.mjs",
  "docs",
  "README.md",
  ".dev.vars.example",
];

/** Copy what the Worker needs into `dir` (node_modules is linked, not copied). */
function snapshotTree(dir: string, ref: string | null): void {
  if (ref) {
    // An older commit may lack a later file of the tree (git archive refuses a missing path).
    const has = (p: string) => {
      try {
        execSync(`git cat-file -e ${ref}:${p}`, { cwd: ROOT, stdio: "ignore" });
        return true;
      } catch {
        return false;
      }
    };
    const paths = TREE.filter(has);
    execSync(`git archive --format=tar ${ref} ${paths.join(" ")} | tar -x -C ${JSON.stringify(dir)}`, { cwd: ROOT });
  } else
    for (const p of TREE) {
      mkdirSync(dirname(join(dir, p)), { recursive: true });
      cpSync(join(ROOT, p), join(dir, p), { recursive: true });
    }
  if (existsSync(join(ROOT, ".dev.vars"))) cpSync(join(ROOT, ".dev.vars"), join(dir, ".dev.vars"));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
}

/** A free TCP port on the loopback interface. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A local state directory with `cwd`'s migrations applied and marked (scripts/lib/migrations.mjs),
 * made once per migrations hash under the system's temporary directory; each throwaway server
 * starts on a copy, so `npm start` finds nothing to apply. Made in a directory of its own, then
 * renamed into place: a server starting meanwhile in another process sees it whole or not at all.
 */
function migratedState(cwd: string): string {
  const template = join(tmpdir(), `paperguru-migrated-${migrationsHash(cwd).slice(0, 16)}`);
  if (existsSync(template)) return template;
  const making = mkdtempSync(join(tmpdir(), "paperguru-migrating-"));
  const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", CI: "1" };
  const status = applyLocalMigrations({ root: cwd, state: making, env, quiet: true });
  if (status !== 0) {
    rmSync(making, { recursive: true, force: true });
    throw new Error(`applying the local D1 migrations failed (wrangler exit ${status})`);
  }
  try {
    renameSync(making, template);
  } catch {
    rmSync(making, { recursive: true, force: true }); // another process made it first
  }
  return template;
}

/** How long startServer waits for the local server's /healthz. */
const START_TIMEOUT_MS = 240_000;

export async function startServer(opts: StartOptions = {}): Promise<Server> {
  if (process.env.PAPERGURU_URL && !opts.fresh)
    return { url: process.env.PAPERGURU_URL, adminKey: adminKey(), stop() {}, kill() {}, cpuMs: () => null };
  // A port the system says is free now (a random pick could be another server's).
  const port = String(opts.port ?? (await freePort()));
  const dir = mkdtempSync(join(tmpdir(), "paperguru-"));
  const state = opts.state ?? join(dir, "state");
  let cwd = ROOT;
  let source: SourceState | undefined;
  if (opts.snapshot) {
    const ref = typeof opts.snapshot === "object" ? opts.snapshot.ref : null;
    if (ref && !/^[0-9A-Za-z._/-]+$/.test(ref)) throw new Error(`not a git ref: ${ref}`);
    source = ref ? { commit: gitCommit(ref), dirty: [], dirtyHash: null } : sourceState();
    cwd = join(dir, "code");
    mkdirSync(cwd);
    snapshotTree(cwd, ref);
  }
  if (!opts.state) cpSync(migratedState(cwd), state, { recursive: true });
  // PAPERGURU_SERVER_LOG=<file> keeps wrangler's and the Worker's output (to diagnose a crash).
  const logFile = process.env.PAPERGURU_SERVER_LOG;
  const logFd = logFile ? openSync(logFile, "a") : null;
  const child: ChildProcess = spawn(process.execPath, [join(cwd, "scripts", "start.mjs")], {
    cwd,
    env: {
      ...process.env,
      PORT: port,
      PERSIST_TO: state,
      ...(logFd === null ? { QUIET: "1" } : {}),
      ...(opts.allowHosts ? { OUTBOUND_ALLOW_HOSTS: opts.allowHosts } : {}),
      ...(opts.inspectorPort ? { INSPECTOR_PORT: String(opts.inspectorPort) } : {}),
      ...(opts.vars ?? {}),
    },
    stdio: logFd === null ? "ignore" : ["ignore", logFd, logFd],
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const kill = () => {
    if (stopped) return;
    stopped = true;
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", stop);
  // A first start in a fresh clone (bundling, the explorer build, migrations) next to other work on
  // 2 cores has taken over 60 s; 4 minutes only bounds a start that hangs.
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    try {
      const res = await fetch(`${url}/healthz`);
      const cpuMs = () => (child.pid ? groupCpuMs(child.pid) : null);
      if (res.ok) return { url, adminKey: adminKey(opts.fresh), ...(source ? { source } : {}), stop, kill, cpuMs };
    } catch {
      // not up yet
    }
  }
  stop();
  throw new Error(`local PaperGuru did not start within ${START_TIMEOUT_MS / 1000} s`);
}

/** Short git commit of the checkout (or of `ref`), for benchmark records ("unknown" outside a git checkout). */
export function gitCommit(ref = "HEAD"): string {
  try {
    return execSync(`git rev-parse --short ${ref}`, { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    return "unknown";
  }
}

/**
 * fetch for harness clients: every request on a connection of its own. After multi-megabyte
 * bodies the local runtime (wrangler dev) has left a kept-alive socket that hung the next request
 * on it for 300 s (undici's headers timeout), so the harness never reuses one (a localhost connect
 * costs well under a millisecond). A request right after a 7-8.5 MB import can still wait 300 s
 * on a fresh connection (the eval's round-trip timings show it; cause not found).
 */
export const harnessFetch: typeof fetch = async (input, init) => {
  const send = () =>
    fetch(input, {
      ...init,
      headers: { ...(init?.headers as Record<string, string> | undefined), connection: "close" },
    });
  let res = await send();
  // The local runtime sometimes restarts its Worker right after a multi-megabyte import and answers
  // the next request 503 "Your worker restarted mid-request. Please try sending the request again."
  // The harness does as it says, up to 3 times, and counts it (results: runtimeRestarts), so a run
  // completes and says how often it happened. Bodies are strings here, so a resend is exact.
  for (let i = 0; i < 3 && res.status === 503; i++) {
    const text = await res.clone().text();
    if (!text.includes("restarted mid-request")) break;
    runtimeRestarts.count++;
    await new Promise((r) => setTimeout(r, 2000));
    res = await send();
  }
  return res;
};

/** How many requests the harness re-sent after the local runtime restarted mid-request. */
export const runtimeRestarts = { count: 0 };
