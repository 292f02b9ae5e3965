/**
 * Start a throwaway local PaperGuru (scripts/start.mjs with a fresh temporary state directory) for
 * benchmarks and evaluations, or use PAPERGURU_URL when it is set.
 */
import { type ChildProcess, execSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (scripts/lib/../..), so the server starts from any working directory. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface Server {
  url: string;
  adminKey: string;
  stop(): void;
}

/** The admin key: PAPERGURU_ADMIN_KEY, else the local default in .dev.vars. */
export function adminKey(local = false): string {
  if (process.env.PAPERGURU_ADMIN_KEY && !local) return process.env.PAPERGURU_ADMIN_KEY;
  try {
    const m = /^ADMIN_KEY=(.*)$/m.exec(readFileSync(join(ROOT, ".dev.vars"), "utf8"));
    if (m?.[1]) return m[1].trim();
  } catch {
    // fall through
  }
  return "pg_admin_local_dev_key";
}

export interface StartOptions {
  /** Always start a throwaway local server, even when PAPERGURU_URL is set (tests). */
  fresh?: boolean;
}

export async function startServer(opts: StartOptions = {}): Promise<Server> {
  if (process.env.PAPERGURU_URL && !opts.fresh)
    return { url: process.env.PAPERGURU_URL, adminKey: adminKey(), stop() {} };
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const dir = mkdtempSync(join(tmpdir(), "paperguru-"));
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, "scripts", "start.mjs")], {
    cwd: ROOT,
    env: { ...process.env, PORT: port, PERSIST_TO: dir, QUIET: "1" },
    stdio: "ignore",
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", stop);
  for (let i = 0; i < 120; i++) {
    await new Promise((r) => setTimeout(r, 500));
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return { url, adminKey: adminKey(opts.fresh), stop };
    } catch {
      // not up yet
    }
  }
  stop();
  throw new Error("local PaperGuru did not start within 60 s");
}

/** Short git commit of the checkout, for benchmark records ("unknown" outside a git checkout). */
export function gitCommit(): string {
  try {
    return execSync("git rev-parse --short HEAD", { stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    return "unknown";
  }
}
