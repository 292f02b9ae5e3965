/**
 * What a CLI command may touch: its output streams, environment, working directory, stdin and the
 * Ctrl-C hook. `main(argv, io)` takes a partial Io so tests run commands in-process.
 */
import { PaperGuruError } from "../client";

export type OutStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface Io {
  stdout: OutStream;
  stderr: OutStream;
  env: Record<string, string | undefined>;
  cwd: string;
  readStdin(): Promise<string>;
  /** Call `handler` on Ctrl-C (SIGINT) until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(typeof c === "string" ? Buffer.from(c) : (c as Buffer));
      return Buffer.concat(chunks).toString("utf8");
    },
    onInterrupt(handler) {
      process.on("SIGINT", handler);
      return () => process.off("SIGINT", handler);
    },
  };
}

/** Bad invocation (exit code 2): an unknown flag, a missing argument, no key configured. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose usage to print after the message. */
    readonly command?: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

export function line(stream: OutStream, s = ""): void {
  stream.write(`${s}\n`);
}

/** The server's error: message, then field and hint on their own lines. */
export function printError(io: Io, e: unknown): void {
  if (e instanceof PaperGuruError) {
    const status = e.status ? ` (HTTP ${e.status})` : "";
    line(io.stderr, `error: ${e.type}${status}: ${e.serverMessage}`);
    if (e.field) line(io.stderr, `  field: ${e.field}`);
    if (e.hint) line(io.stderr, `  hint: ${e.hint}`);
  } else if (e instanceof Error && e.name === "AbortError") {
    line(io.stderr, "error: aborted");
  } else {
    line(io.stderr, `error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** A secret shortened for display: its prefix and four characters. */
export function mask(secret: string | undefined): string {
  if (!secret) return "(unset)";
  const m = /^([a-z]+_)?(.*)$/i.exec(secret);
  const prefix = m?.[1] ?? "";
  return `${prefix}${(m?.[2] ?? "").slice(0, 4)}…`;
}

/** Word-wrap `s` to `width` columns, every line indented. */
export function wrap(s: string, indent: string, width = 100): string {
  const out: string[] = [];
  let cur = "";
  for (const w of s.split(/\s+/).filter(Boolean)) {
    if (cur && indent.length + cur.length + 1 + w.length > width) {
      out.push(indent + cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) out.push(indent + cur);
  return out.join("\n");
}

/** Left-aligned columns. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) for (const [i, c] of r.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ")).join("\n");
}
