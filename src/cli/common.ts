/** Helpers the command groups share: output (JSON, tables, text, --out), flags and their values, file and stdin input. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, type OptionSpec, type Run, valueOption } from "./command";
import { didYouMean, table, UsageError } from "./io";

export const printJson = (r: Run, v: unknown) => r.out(JSON.stringify(v, null, 2));
/** With --json: prints the server's JSON and returns true (the command has nothing more to print). */
export function printedJson(r: Run, v: unknown): boolean {
  if (!r.json) return false;
  printJson(r, v);
  return true;
}
/** A command that lists what `fetch` answers: the rows `rows` makes of it as a table under `head`. */
export interface ListCommand<T> extends Omit<Command, "run"> {
  fetch(r: Run): Promise<T>;
  head: string[];
  rows(res: T): string[][];
  /** Printed instead of a table without rows. */
  empty: string;
}
/** The command of `spec`: the server's JSON with --json; else the table, or `empty` when there are no rows. */
export function listCommand<T>(spec: ListCommand<T>): Command {
  const { fetch, head, rows, empty, ...command } = spec;
  return {
    ...command,
    async run(r) {
      const res = await fetch(r);
      if (printedJson(r, res)) return;
      const body = rows(res);
      r.out(body.length ? table([head, ...body]) : empty);
    },
  };
}
export const short = (s: string, n: number) => {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};
export const asOf: Record<string, OptionSpec> = {
  "as-of": valueOption("<time>", "ISO date or date-time (default: now)"),
};
/** `true` when the boolean option was given, else undefined (the server's default holds). */
export const flagOn = (r: Run, name: string): true | undefined => (r.values[name] === true ? true : undefined);
/** --limit of a page of 1 to 500 rows; `pageLimit` reads it (50 when not given). */
export const pageLimitOption: OptionSpec = valueOption("<n>", "page size (1-500, default 50)");
export const pageLimit = (r: Run) => r.int("limit", 1, 500) ?? 50;
/** --limit of an audit or log listing, 1 to 500 entries (the server's default is 100). */
export const entriesLimitOption: OptionSpec = valueOption("<n>", "entries (1-500, default 100)");
/** The line after a page that has a next one. */
export function printNextCursor(r: Run, cursor: string | null | undefined): void {
  if (cursor) r.out(`more: --cursor ${cursor}`);
}
/** A usage error `--a, --b and --c go with --<flag>` when `on` is false and one of the value options is given. */
export function onlyWith(r: Run, flag: string, on: boolean, names: string[]): void {
  if (on || !names.some((n) => r.str(n))) return;
  const flags = names.map((n) => `--${n}`);
  throw new UsageError(`${flags.slice(0, -1).join(", ")} and ${flags[flags.length - 1]} go with --${flag}`);
}
/** What a model role proposed and the checks dropped, a line each. */
export function printDropped(r: Run, dropped: Array<{ index: number; title: string; reason: string }>): void {
  for (const x of dropped) r.out(`  dropped ${x.index} "${short(x.title, 40)}": ${x.reason}`);
}
/** --out of `writeOut`. */
export const outOption: OptionSpec = valueOption("<file>", "write to a file (default: stdout)", { short: "o" });
export const budget = (def: number): Record<string, OptionSpec> => ({
  budget: valueOption("<tokens>", `token budget (default ${def})`),
});
export const list = (xs: readonly string[], max = 10) =>
  xs.length ? `${xs.slice(0, max).join(", ")}${xs.length > max ? `, … ${xs.length - max} more` : ""}` : "-";

type OneOfHow = { suggest?: boolean; command?: string };
/**
 * `value` when it is one of `allowed`, else a usage error naming the flag and the allowed values (with
 * "did you mean" unless `suggest` is false; `command` is the command whose usage follows).
 */
export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[], how?: OneOfHow): T;
export function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
  how?: OneOfHow,
): T | undefined;
export function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
  how: OneOfHow = {},
): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const hint = how.suggest === false ? "" : didYouMean(value, allowed, (s) => `"${s}"`);
  throw new UsageError(`--${flag}: unknown value "${value}"${hint}; use one of ${allowed.join(", ")}`, how.command);
}

/** Text from a file (relative to the working directory) or stdin (-). */
export async function readText(r: Run, src: string): Promise<string> {
  return src === "-" ? r.io.readStdin() : readFileSync(resolve(r.io.cwd, src), "utf8");
}

/** `text` parsed as JSON, as a usage error "<name> is not JSON" otherwise. */
export function parseJson(text: string, name: string, command?: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${name} is not JSON`, command);
  }
}

/**
 * JSON from a file or stdin (-), as a usage error when it is missing or not JSON (stdin is named
 * `stdinName`; `command` is the command whose usage follows the error).
 */
export async function readJson(r: Run, src: string, stdinName = "stdin", command?: string): Promise<unknown> {
  if (src !== "-" && !existsSync(resolve(r.io.cwd, src))) throw new UsageError(`no such file: ${src}`, command);
  return parseJson(await readText(r, src), src === "-" ? stdinName : src, command);
}

/** Text on stdout, with a final newline unless it is empty or has one. */
export function writeText(r: Run, text: string): void {
  r.io.stdout.write(text.endsWith("\n") || !text ? text : `${text}\n`);
}

/** `text` to the --out file (stderr says how many bytes of `what` went there), or to stdout. */
export function writeOut(r: Run, text: string, what: string): void {
  const out = r.str("out");
  if (out) {
    writeFileSync(resolve(r.io.cwd, out), text);
    r.err(`wrote ${Buffer.byteLength(text)} bytes of ${what} to ${out}`);
  } else writeText(r, text);
}
