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

/** Edit distance (insert, delete, substitute, swap adjacent), for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const prev = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  return (d[a.length] as number[])[b.length] as number;
}

/** The closest candidates within a third of the word's length (at least 1, at most 3 edits). */
export function suggest(word: string, candidates: readonly string[]): string[] {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  const scored = candidates
    .map((c) => ({ c, d: Math.min(editDistance(word, c), c.startsWith(word) && word.length >= 3 ? 1 : 99) }))
    .filter((x) => x.d <= limit)
    .sort((x, y) => x.d - y.d || x.c.localeCompare(y.c));
  return scored.slice(0, 3).map((x) => x.c);
}

/** " (did you mean a or b?)" or "". */
export function didYouMean(word: string, candidates: readonly string[], quote = (s: string) => s): string {
  const s = suggest(word, candidates);
  return s.length ? `; did you mean ${s.map(quote).join(" or ")}?` : "";
}
