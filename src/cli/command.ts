/** The shape of a CLI command, the options every command takes, and per-command help. */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { PaperGuruClient } from "../client";
import { resolveSettings, type Settings } from "./config";
import { didYouMean, EXIT, type Io, line, UsageError, wrap } from "./io";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** The flag may be given several times (string options: `list()` returns every value). */
  multiple?: boolean;
  /** Shown in help, e.g. "<n>". */
  arg?: string;
  description: string;
}

/** An option that takes a value (`--name <arg>` in help). */
export const valueOption = (
  arg: string,
  description: string,
  more: Pick<OptionSpec, "short" | "multiple"> = {},
): OptionSpec => ({ type: "string", ...more, arg, description });
/** An option without a value: true when given. */
export const flagOption = (description: string): OptionSpec => ({ type: "boolean", description });

export type Values = Record<string, string | boolean | string[] | undefined>;

export interface Run {
  io: Io;
  values: Values;
  positionals: string[];
  settings: Settings;
  json: boolean;
  /** Positional argument `i` as a string: a usage error naming the argument (from `args`) when it was not given. */
  arg(i: number): string;
  out(s?: string): void;
  err(s?: string): void;
  /** A client with the archive key (usage error if none is configured). */
  client(signal?: AbortSignal): PaperGuruClient;
  /** A client with the admin key. */
  admin(): PaperGuruClient;
  /** The archive (usage error if none is configured). */
  archive(): string;
  str(name: string): string | undefined;
  /** Every value of a string option: repeated flags and comma-separated lists, trimmed, empty ones dropped. */
  list(name: string): string[] | undefined;
  int(name: string, min: number, max: number): number | undefined;
  /** A number option within [min, max] (usage error naming the flag otherwise). */
  num(name: string, min: number, max: number): number | undefined;
}

export interface Command {
  /** "import", "archives create", ... */
  name: string;
  /** After the name, e.g. `<id> [--name <name>] [--save]`. */
  args: string;
  summary: string;
  details?: string;
  options?: Record<string, OptionSpec>;
  /**
   * Positional arguments: at least min, at most max. Without it, `positionalRange(args)` counts them
   * from the usage; a command gives it only to bound a `<x>...` that the usage leaves open.
   */
  positionals?: [number, number];
  /** Rewrites argv before parsing (e.g. an optional flag value: `--mmr 0.6`). */
  rewrite?(argv: string[]): string[];
  /** The exit code; nothing for EXIT.ok. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a run that returns nothing resolves to void, which means EXIT.ok.
  run(r: Run): Promise<number | void>;
}

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  url: { type: "string", arg: "<url>", description: "server (PAPERGURU_URL; default http://127.0.0.1:8787)" },
  key: { type: "string", arg: "<key>", description: "archive key (PAPERGURU_KEY)" },
  "admin-key": { type: "string", arg: "<key>", description: "admin key (PAPERGURU_ADMIN_KEY)" },
  archive: { type: "string", short: "a", arg: "<id>", description: "archive id (PAPERGURU_ARCHIVE)" },
  json: { type: "boolean", description: "print the server's JSON" },
  help: { type: "boolean", short: "h", description: "this help" },
};

/** Option lines: the flag, then its description wrapped at 100 columns under itself (never cut). */
const optionLines = (opts: Record<string, OptionSpec>) =>
  Object.entries(opts).map(([name, o]) => {
    const flag = `  ${o.short ? `-${o.short}, ` : "    "}--${name}${o.arg ? ` ${o.arg}` : ""}`;
    const indent = " ".repeat(33);
    if (flag.length > 32) return `${flag}\n${wrap(o.description, indent)}`;
    return `${flag.padEnd(33)}${wrap(o.description, indent).trimStart()}`;
  });

/** The names of the positional arguments in a usage string: `<x>` outside [optional] groups, and [<y>] ones. */
export function positionalNames(args: string): string[] {
  const required = args.replace(/(^|\s)\[[^\]]*\]/g, " ").match(/<[^>]+>(\.\.\.)?/g) ?? [];
  return required.map((n) => n.replace(/\.\.\.$/, ""));
}

/**
 * How many positional arguments a usage string takes, [min, max]: each `<x>` that does not follow a
 * `--flag`, an optional one as the first word of a `[...]` group, no upper bound after `<x>...`; for
 * alternatives (` | ` between words outside brackets) the least min and the greatest max of them.
 */
export function positionalRange(args: string): [number, number] {
  // A `<...>` is one word however it is spelled inside (`<file.json | ->`, `<id[@version]>`).
  const words = args.match(/"?<[^>]*>"?(\.\.\.)?|\[|\]|[^\s[\]<]+/g) ?? [];
  const ranges: Array<[number, number]> = [];
  let [min, max] = [0, 0];
  let depth = 0;
  let previous = "";
  for (const w of words) {
    const opensGroup = previous === "[" && depth === 1;
    const positional = /^"?</.test(w) && !previous.startsWith("--");
    if (w === "[") depth++;
    else if (w === "]") depth--;
    else if (depth === 0 && w === "|") {
      ranges.push([min, max]);
      [min, max] = [0, 0];
    } else if (depth === 0 && positional)
      [min, max] = [min + 1, w.endsWith("...") ? Number.POSITIVE_INFINITY : max + 1];
    else if (opensGroup && positional) max++;
    previous = w;
  }
  ranges.push([min, max]);
  return [Math.min(...ranges.map((x) => x[0])), Math.max(...ranges.map((x) => x[1]))];
}

export function commandHelp(c: Command): string {
  const out = [`usage: paperguru ${c.name}${c.args ? ` ${c.args}` : ""}`, "", c.summary];
  if (c.details) out.push("", c.details);
  if (c.options && Object.keys(c.options).length) out.push("", "options:", ...optionLines(c.options));
  out.push("", "common options:", ...optionLines(GLOBAL_OPTIONS));
  out.push(
    "",
    "Settings: flags, then the environment, then the config file ($PAPERGURU_CONFIG or ~/.config/paperguru/config.json).",
    "Exit codes: 0 ok, 1 the operation failed, 2 usage error.",
  );
  return out.join("\n");
}

export async function runCommand(c: Command, argv: string[], io: Io): Promise<number> {
  const specs = { ...GLOBAL_OPTIONS, ...c.options };
  const options: NonNullable<ParseArgsConfig["options"]> = {};
  for (const [name, o] of Object.entries(specs))
    options[name] = {
      type: o.type,
      ...(o.short ? { short: o.short } : {}),
      ...(o.multiple ? { multiple: true } : {}),
    };
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: c.rewrite ? c.rewrite(argv) : argv,
      options,
      allowPositionals: true,
      strict: true,
    }) as typeof parsed;
  } catch (e) {
    const message = (e as Error).message.replace(/\. To specify a positional.*$/s, "");
    // node:util names the flag as in "Unknown option '--budjet'": suggest the closest known one.
    const unknown = /Unknown option '-{1,2}([^']+)'/.exec(message)?.[1];
    const hint = unknown ? didYouMean(unknown, Object.keys(specs), (n) => `--${n}`) : "";
    throw new UsageError(`${message}${hint}`, c.name);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    line(io.stdout, commandHelp(c));
    return 0;
  }
  const [min, max] = c.positionals ?? positionalRange(c.args);
  if (positionals.length < min) {
    const names = positionalNames(c.args).slice(positionals.length, min);
    throw new UsageError(
      `missing ${names.length > 1 ? "arguments" : "argument"} ${names.length ? names.join(" ") : `(${min - positionals.length})`}`,
      c.name,
    );
  }
  if (positionals.length > max)
    throw new UsageError(
      `unexpected argument${positionals.length - max > 1 ? "s" : ""}: ${positionals.slice(max).join(" ")}`,
      c.name,
    );
  const str = (name: string) => {
    const v = values[name];
    if (Array.isArray(v)) return v[v.length - 1];
    return typeof v === "string" ? v : undefined;
  };
  const settings = resolveSettings(io.env, {
    url: str("url"),
    key: str("key"),
    archive: str("archive"),
    "admin-key": str("admin-key"),
  });
  const url = settings.url.value as string;
  const run: Run = {
    io,
    values,
    positionals,
    settings,
    json: values.json === true,
    arg(i) {
      const v = positionals[i];
      if (v === undefined)
        throw new UsageError(`missing argument ${positionalNames(c.args)[i] ?? `(${i + 1})`}`, c.name);
      return v;
    },
    out: (s = "") => line(io.stdout, s),
    err: (s = "") => line(io.stderr, s),
    client(signal) {
      // The admin key reaches every archive: it serves when no archive key is configured.
      const key = settings.key.value ?? settings.adminKey.value;
      if (!key)
        throw new UsageError(
          "no key: pass --key (or --admin-key), set PAPERGURU_KEY, or `paperguru config set key <secret>` (`paperguru archives create <id> --save` stores one)",
        );
      return new PaperGuruClient(url, key, { signal });
    },
    admin() {
      const key = settings.adminKey.value;
      if (!key)
        throw new UsageError(
          "this needs the admin key: pass --admin-key, set PAPERGURU_ADMIN_KEY, or `paperguru config set admin-key <key>` (the local `npm start` uses ADMIN_KEY from .dev.vars)",
        );
      return new PaperGuruClient(url, key);
    },
    archive() {
      const a = settings.archive.value;
      if (!a)
        throw new UsageError(
          "no archive: pass --archive <id>, set PAPERGURU_ARCHIVE, or `paperguru config set archive <id>`",
        );
      return a;
    },
    str,
    list(name) {
      const v = values[name];
      const raw = Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
      if (!raw.length) return undefined;
      return raw.flatMap((x) => x.split(",").map((y) => y.trim())).filter(Boolean);
    },
    num(name, lo, hi) {
      const v = str(name);
      if (v === undefined) return undefined;
      const n = Number(v);
      if (v.trim() === "" || !Number.isFinite(n) || n < lo || n > hi)
        throw new UsageError(`--${name} must be a number from ${lo} to ${hi}, got ${v}`, c.name);
      return n;
    },
    int(name, lo, hi) {
      const v = str(name);
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < lo || n > hi)
        throw new UsageError(`--${name} must be an integer from ${lo} to ${hi}, got ${v}`, c.name);
      return n;
    },
  };
  return (await c.run(run)) ?? EXIT.ok;
}
