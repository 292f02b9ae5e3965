/** Helpers the system command groups share: JSON output, short text, common flags and JSON input. */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { OptionSpec, Run } from "./command";
import { didYouMean, table, UsageError } from "./io";

export const printJson = (r: Run, v: unknown) => r.out(JSON.stringify(v, null, 2));
/** With --json: prints the server's JSON and returns true (the command has nothing more to print). */
export function printedJson(r: Run, v: unknown): boolean {
  if (!r.json) return false;
  printJson(r, v);
  return true;
}
/** The server's JSON with --json; else `rows` as a table under `head`, or `empty` when there are none. */
export function printRows(r: Run, res: unknown, head: string[], rows: string[][], empty: string): void {
  if (r.json) printJson(r, res);
  else r.out(rows.length ? table([head, ...rows]) : empty);
}
export const short = (s: string, n: number) => {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};
export const asOf: Record<string, OptionSpec> = {
  "as-of": { type: "string", arg: "<time>", description: "ISO date or date-time (default: now)" },
};
export const budget = (def: number): Record<string, OptionSpec> => ({
  budget: { type: "string", arg: "<tokens>", description: `token budget (default ${def})` },
});
export const list = (xs: readonly string[], max = 10) =>
  xs.length ? `${xs.slice(0, max).join(", ")}${xs.length > max ? `, … ${xs.length - max} more` : ""}` : "-";

export function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(
    `--${flag}: unknown value "${value}"${didYouMean(value, allowed, (s) => `"${s}"`)}; use one of ${allowed.join(", ")}`,
  );
}

/** JSON from a file or stdin (-), as a usage error when it is missing or not JSON (stdin is named `stdinName`). */
export async function readJson(r: Run, src: string, stdinName = "stdin"): Promise<unknown> {
  let text: string;
  if (src === "-") text = await r.io.readStdin();
  else {
    const path = resolve(r.io.cwd, src);
    if (!existsSync(path)) throw new UsageError(`no such file: ${src}`);
    text = readFileSync(path, "utf8");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${src === "-" ? stdinName : src} is not JSON`);
  }
}
