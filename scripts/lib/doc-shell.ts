/**
 * The shell examples of README.md, docs/*.md and the /docs page (src/http/docs.ts) as data, and a
 * small interpreter that runs them the way a reader pastes them into bash. Used by
 * test/worker/doc-shell.test.ts (every page's commands against the Worker).
 *
 * A page's shell blocks are its ```bash / sh / shell / console / zsh fences, and untagged fences
 * whose first line is a command (the /docs page tags none). A command is one line of a block
 * (`\` continues it; a quoted string may span lines); `# →` after it, on its own line or at its
 * end, is text its answer must contain (compact JSON when the answer is JSON); other comments are
 * prose.
 *
 * The interpreter knows a subset of bash and of a few programs, enough for the pages and strict
 * about the rest: words with '…', "…", $VAR, ${VAR} and $(…); `|`, `&&` and `;`; `export` and
 * NAME=value; an unset variable is an error (as with `set -u`). Programs: curl (-s, -X, -H, -d,
 * --data-binary [@file], -o file; curl's default content type for a body and Accept: *\/*; every URL
 * must start with $U; an answer other than 2xx is an error), and inside $(…) node -pe
 * 'JSON.parse(require("fs").readFileSync(0)).a.b', jq -r .a.b, date +%s, printf, openssl dgst
 * -sha256 -hmac, sed 's/…/…/', grep and cut. Anything else is an error naming it. Files (@file, -o)
 * live in a map the caller fills.
 */

export const SHELL_TAGS = new Set(["bash", "sh", "shell", "console", "zsh"]);

/** An untagged fence whose first line is one of these is a shell block too. */
const COMMAND_LINE = /^\s*(?:(?:export\s+)?[A-Z_][A-Z0-9_]*=|(?:curl|npx|npm|node|paperguru|claude|wrangler|cd)\s)/;

export interface ShellBlock {
  /** The `## ` or `### ` heading the block is under ("" before the first). */
  section: string;
  /** 1-based line of the block's first line in the page. */
  line: number;
  text: string;
}

export function shellBlocks(md: string): ShellBlock[] {
  const out: ShellBlock[] = [];
  const lines = md.split("\n");
  let section = "";
  let open: { tag: string; indent: number; line: number; lines: string[] } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    if (open) {
      if (/^\s*```\s*$/.test(raw)) {
        const first = open.lines.find((l) => l.trim()) ?? "";
        if (SHELL_TAGS.has(open.tag) || (open.tag === "" && COMMAND_LINE.test(first)))
          out.push({ section, line: open.line, text: open.lines.join("\n") });
        open = null;
      } else open.lines.push(raw.slice(Math.min(open.indent, raw.length - raw.trimStart().length)));
      continue;
    }
    const fence = /^(\s*)```(\S*)\s*$/.exec(raw);
    if (fence) open = { tag: fence[2] as string, indent: (fence[1] as string).length, line: i + 2, lines: [] };
    else if (/^#{2,3} /.test(raw)) section = raw.replace(/^#+ /, "").trim();
  }
  return out;
}

// ------------------------------------------------------------------ words and commands

export type Part = { lit: string } | { var: string } | { sub: Token[] };
export interface Word {
  parts: Part[];
}
export type Op = "|" | "&&" | ";";
export type Token = Word | { op: Op };

export interface Command {
  /** 1-based line of the page the command starts on. */
  line: number;
  /** The command as written, continuations and all, without its comment. */
  text: string;
  tokens: Token[];
  /** Its `# →` lines. */
  expect: string[];
}

const isOp = (t: Token): t is { op: Op } => "op" in t;

interface Lexed {
  tokens: Token[];
  /** Index after the command (at its newline or past the closing parenthesis). */
  end: number;
  /** Where the command's text ends (its comment or its end). */
  textEnd: number;
  comment: string | null;
}

/** One command from `at`: to an unquoted newline, or (nested, inside $(…)) to its `)`. */
function lex(src: string, at: number, nested: boolean): Lexed {
  const tokens: Token[] = [];
  let parts: Part[] = [];
  let inWord = false;
  let i = at;
  const lit = (s: string) => {
    const last = parts[parts.length - 1];
    if (last && "lit" in last) last.lit += s;
    else parts.push({ lit: s });
    inWord = true;
  };
  const flush = () => {
    if (inWord) tokens.push({ parts });
    parts = [];
    inWord = false;
  };
  /** src[j] is `$`: a variable or a command substitution; returns the index after it. */
  const dollar = (j: number): number => {
    const next = src[j + 1] ?? "";
    if (next === "(") {
      if (src[j + 2] === "(") throw new Error("$((…)) arithmetic: not a shell feature this harness runs");
      const inner = lex(src, j + 2, true);
      parts.push({ sub: inner.tokens });
      inWord = true;
      return inner.end;
    }
    if (next === "{") {
      const close = src.indexOf("}", j + 2);
      const name = src.slice(j + 2, close);
      if (close < 0 || !/^[A-Za-z_]\w*$/.test(name))
        throw new Error(`\${…} this harness does not run: ${src.slice(j, j + 20)}`);
      parts.push({ var: name });
      inWord = true;
      return close + 1;
    }
    const m = /^[A-Za-z_]\w*/.exec(src.slice(j + 1));
    if (!m) {
      lit("$");
      return j + 1;
    }
    parts.push({ var: m[0] });
    inWord = true;
    return j + 1 + m[0].length;
  };
  while (i < src.length) {
    const c = src[i] as string;
    if (c === "\\" && src[i + 1] === "\n") {
      flush();
      i += 2;
    } else if (c === "\n") {
      if (!nested) break;
      flush();
      tokens.push({ op: ";" });
      i++;
    } else if (c === ")" && nested) {
      flush();
      return { tokens, end: i + 1, textEnd: i, comment: null };
    } else if (c === " " || c === "\t") {
      flush();
      i++;
    } else if (c === "#" && !inWord) {
      if (nested) throw new Error("a comment inside $(…)");
      flush();
      const eol = src.indexOf("\n", i);
      const end = eol < 0 ? src.length : eol;
      return { tokens, end, textEnd: i, comment: src.slice(i + 1, end).trim() };
    } else if (c === "'") {
      const close = src.indexOf("'", i + 1);
      if (close < 0) throw new Error(`unclosed ' in: ${src.slice(i, i + 80)}`);
      lit(src.slice(i + 1, close));
      i = close + 1;
    } else if (c === '"') {
      lit("");
      i++;
      for (;;) {
        const d = src[i];
        if (d === undefined) throw new Error(`unclosed " in: ${src.slice(at, at + 80)}`);
        if (d === '"') break;
        if (d === "\\" && '$`"\\\n'.includes(src[i + 1] ?? "")) {
          if (src[i + 1] !== "\n") lit(src[i + 1] as string);
          i += 2;
        } else if (d === "$") i = dollar(i);
        else if (d === "`") throw new Error("`…` command substitution: write $(…)");
        else {
          lit(d);
          i++;
        }
      }
      i++;
    } else if (c === "$") i = dollar(i);
    else if (c === "\\") {
      lit(src[i + 1] ?? "");
      i += 2;
    } else if (c === "|" || c === ";" || c === "&") {
      flush();
      if (c === "|" && src[i + 1] === "|") throw new Error("|| is not a shell feature this harness runs");
      if (c === "&" && src[i + 1] !== "&") throw new Error("& (background) is not a shell feature this harness runs");
      tokens.push({ op: c === "&" ? "&&" : c });
      i += c === "&" ? 2 : 1;
    } else if ("<>()`".includes(c)) {
      throw new Error(`${c} is not a shell feature this harness runs: ${src.slice(at, at + 80)}`);
    } else {
      lit(c);
      i++;
    }
  }
  if (nested) throw new Error(`unclosed $( in: ${src.slice(at, at + 80)}`);
  flush();
  return { tokens, end: i, textEnd: i, comment: null };
}

/** A block's commands in order, each with its `# →` expectations. */
export function commands(block: ShellBlock): Command[] {
  const src = block.text;
  const out: Command[] = [];
  let i = 0;
  while (i < src.length) {
    const r = lex(src, i, false);
    const text = src.slice(i, r.textEnd);
    const lead = text.length - text.trimStart().length;
    const line = block.line + (src.slice(0, i + lead).match(/\n/g) ?? []).length;
    if (r.tokens.length) out.push({ line, text: text.trim(), tokens: r.tokens, expect: [] });
    if (r.comment?.startsWith("→")) {
      const last = out[out.length - 1];
      if (!last) throw new Error(`line ${line}: a # → line before any command`);
      last.expect.push(r.comment.slice(1).trim());
    }
    i = r.end + 1;
  }
  return out;
}

/** `a | b`, `a && b`, `a; b`: the token runs between the given operators. */
function split(tokens: Token[], ops: Op[]): Word[][] {
  const out: Word[][] = [[]];
  for (const t of tokens) {
    if (isOp(t) && ops.includes(t.op)) out.push([]);
    else if (isOp(t)) throw new Error(`unexpected ${t.op}`);
    else out[out.length - 1]?.push(t);
  }
  return out.filter((s) => s.length);
}

/** Simple commands of a token list: split at every operator. */
function simpleCommands(tokens: Token[]): Word[][] {
  const out: Word[][] = [[]];
  for (const t of tokens) {
    if (isOp(t)) out.push([]);
    else out[out.length - 1]?.push(t);
  }
  return out.filter((s) => s.length);
}

/** A word without quotes or expansions, or null. */
function literal(w: Word | undefined): string | null {
  if (!w) return null;
  return w.parts.every((p) => "lit" in p) ? w.parts.map((p) => ("lit" in p ? p.lit : "")).join("") : null;
}

const ASSIGNMENT = /^([A-Za-z_]\w*)=/;
function assignmentName(w: Word): string | null {
  const first = w.parts[0];
  return first && "lit" in first ? (ASSIGNMENT.exec(first.lit)?.[1] ?? null) : null;
}

/** The words after `export` and leading NAME=value words. */
function program(words: Word[]): { assigns: Word[]; rest: Word[] } {
  let k = literal(words[0]) === "export" ? 1 : 0;
  const assigns: Word[] = [];
  while (k < words.length && assignmentName(words[k] as Word)) assigns.push(words[k++] as Word);
  return { assigns, rest: words.slice(k) };
}

/** `paperguru …` or `npx paperguru …` (after NAME=value words), every part of the command: the CLI's. */
export function isCli(cmd: Command): boolean {
  return simpleCommands(cmd.tokens).every((words) => {
    const { rest } = program(words);
    const head = literal(rest[0]) === "npx" ? rest[1] : rest[0];
    return literal(head) === "paperguru";
  });
}

/** Whether a command runs curl (at the top or in a $(…)). */
export function sends(cmd: Command): boolean {
  const walk = (tokens: Token[]): boolean =>
    simpleCommands(tokens).some(
      (words) =>
        literal(program(words).rest[0]) === "curl" || words.some((w) => w.parts.some((p) => "sub" in p && walk(p.sub))),
    );
  return walk(cmd.tokens);
}

// ------------------------------------------------------------------ what a command runs

/** Programs a pipeline may run; a top-level pipeline starts with curl (or is NAME=value words). */
const PIPED = new Set(["curl", "node", "jq", "date", "printf", "openssl", "sed", "grep", "cut"]);
const CURL_FLAGS = new Set(["-s", "--silent"]);
const CURL_OPTIONS = new Set([
  "-X",
  "--request",
  "-H",
  "--header",
  "-d",
  "--data",
  "--data-raw",
  "--data-binary",
  "-o",
  "--output",
]);

/** Why this harness cannot run a command (empty when it can): unknown programs, curl options, hard-coded hosts. */
export function problems(cmd: Command): string[] {
  const out: string[] = [];
  const walk = (tokens: Token[], top: boolean) => {
    for (const seq of sequences(tokens))
      split(seq, ["|"]).forEach((words, k) => {
        for (const w of words) for (const p of w.parts) if ("sub" in p) walk(p.sub, false);
        const { rest, assigns } = program(words);
        if (!rest.length) return;
        const name = literal(rest[0]) ?? "(an expansion)";
        if (assigns.length) out.push(`NAME=value before ${name}: only the CLI's commands take them here`);
        if (top && k === 0 ? name !== "curl" : !PIPED.has(name))
          out.push(`a command this harness does not run: ${name}`);
        if (name === "curl") out.push(...curlProblems(rest.slice(1)));
      });
  };
  walk(cmd.tokens, true);
  return out;
}

function curlProblems(args: Word[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as Word;
    const opt = literal(a);
    if (opt !== null && CURL_FLAGS.has(opt)) continue;
    if (opt !== null && CURL_OPTIONS.has(opt)) {
      i++;
      continue;
    }
    if (opt?.startsWith("-")) out.push(`a curl option this harness does not know: ${opt}`);
    else {
      const first = a.parts.find((p) => !("lit" in p) || p.lit !== "");
      if (!first || !("var" in first) || first.var !== "U")
        out.push("a curl URL that does not start with $U (the server's URL: `export U=…`, as npm start prints it)");
    }
  }
  return out;
}

// ------------------------------------------------------------------ running

export interface ShellRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Sent {
  command: Command;
  request: ShellRequest;
  status: number;
  text: string;
}

export interface Shell {
  vars: Record<string, string>;
  files: Map<string, string | Uint8Array>;
  send(req: ShellRequest): Promise<Response>;
  /** The value an assignment stores (e.g. the documented local URL read as the test server's). */
  assign?(name: string, value: string): string;
  /** Every request sent, in order. */
  sent: Sent[];
}

/** Runs one command; an unknown program, a non-2xx answer or a missing `# →` text throws. */
export async function run(cmd: Command, sh: Shell): Promise<void> {
  const found = problems(cmd);
  if (found.length) throw new Error(`line ${cmd.line}: ${found.join("; ")}\n  ${cmd.text}`);
  const before = sh.sent.length;
  await exec(cmd.tokens, "", sh, cmd);
  if (!cmd.expect.length) return;
  const last = sh.sent.length > before ? sh.sent[sh.sent.length - 1] : undefined;
  if (!last) throw new Error(`line ${cmd.line}: # → after a command that sends no request`);
  for (const e of cmd.expect)
    if (!shown(last.text).includes(e))
      throw new Error(`line ${cmd.line}: the answer has no ${e}\n  ${cmd.text}\n  answer: ${last.text.slice(0, 600)}`);
}

/** The text `# →` lines are matched against: compact JSON, or the text itself. */
export function shown(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

async function exec(tokens: Token[], stdin: string, sh: Shell, cmd: Command): Promise<string> {
  let out = "";
  for (const seq of sequences(tokens)) {
    let input = stdin;
    for (const words of split(seq, ["|"])) input = await simple(words, input, sh, cmd);
    out += input;
  }
  return out;
}

/** The pipelines of a token list, in order (`;` and `&&`: an error stops the run anyway). */
function sequences(tokens: Token[]): Token[][] {
  const out: Token[][] = [[]];
  for (const t of tokens) {
    if (isOp(t) && t.op !== "|") out.push([]);
    else out[out.length - 1]?.push(t);
  }
  return out.filter((s) => s.length);
}

async function expand(w: Word, sh: Shell, cmd: Command): Promise<string> {
  let s = "";
  for (const p of w.parts) {
    if ("lit" in p) s += p.lit;
    else if ("var" in p) {
      const v = sh.vars[p.var];
      if (v === undefined) throw new Error(`line ${cmd.line}: $${p.var} is not set\n  ${cmd.text}`);
      s += v;
    } else s += (await exec(p.sub, "", sh, cmd)).replace(/\n+$/, "");
  }
  return s;
}

async function simple(words: Word[], stdin: string, sh: Shell, cmd: Command): Promise<string> {
  const { assigns, rest } = program(words);
  if (!rest.length) {
    for (const a of assigns) {
      const name = assignmentName(a) as string;
      const [first, ...more] = a.parts;
      const head = { lit: (first as { lit: string }).lit.slice(name.length + 1) };
      const value = await expand({ parts: [head, ...more] }, sh, cmd);
      sh.vars[name] = sh.assign ? sh.assign(name, value) : value;
    }
    return "";
  }
  const argv: string[] = [];
  for (const w of rest) argv.push(await expand(w, sh, cmd));
  const [name, ...args] = argv;
  switch (name) {
    case "curl":
      return curl(args, sh, cmd);
    case "node":
      return node(args, stdin);
    case "jq":
      return jq(args, stdin);
    case "date":
      if (args.join(" ") !== "+%s") throw new Error(`date ${args.join(" ")}: only date +%s here`);
      return `${Math.floor(Date.now() / 1000)}\n`;
    case "printf":
      return printf(args);
    case "openssl":
      return openssl(args, stdin);
    case "sed":
      return sed(args, stdin);
    case "grep":
      return grep(args, stdin, sh);
    case "cut":
      return cut(args, stdin);
    default:
      throw new Error(`line ${cmd.line}: a command this harness does not run: ${name}`);
  }
}

async function curl(args: string[], sh: Shell, cmd: Command): Promise<string> {
  const req: ShellRequest = { method: "", url: "", headers: {} };
  let output: string | null = null;
  const value = (i: number) => {
    const v = args[i];
    if (v === undefined) throw new Error(`line ${cmd.line}: ${args[i - 1]} without a value`);
    return v;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (CURL_FLAGS.has(a)) continue;
    if (a === "-X" || a === "--request") req.method = value(++i);
    else if (a === "-H" || a === "--header") {
      const h = value(++i);
      const at = h.indexOf(":");
      req.headers[h.slice(0, at).trim().toLowerCase()] = h.slice(at + 1).trim();
    } else if (a === "-d" || a === "--data" || a === "--data-raw") {
      const d = value(++i);
      if (a === "-d" && d.startsWith("@"))
        throw new Error(`line ${cmd.line}: -d @file strips newlines: write --data-binary @file`);
      req.body = d;
    } else if (a === "--data-binary") {
      const d = value(++i);
      if (d.startsWith("@")) {
        const file = sh.files.get(d.slice(1));
        if (file === undefined)
          throw new Error(`line ${cmd.line}: no file ${d.slice(1)} (the test writes the files the pages use)`);
        req.body = file;
      } else req.body = d;
    } else if (a === "-o" || a === "--output") output = value(++i);
    else req.url = a;
  }
  // curl's defaults: a body is a POST of application/x-www-form-urlencoded; Accept: */*.
  if (!req.method) req.method = req.body === undefined ? "GET" : "POST";
  if (req.body !== undefined && !req.headers["content-type"])
    req.headers["content-type"] = "application/x-www-form-urlencoded";
  if (!req.headers.accept) req.headers.accept = "*/*";
  const res = await sh.send(req);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  sh.sent.push({ command: cmd, request: req, status: res.status, text });
  if (res.status < 200 || res.status >= 300)
    throw new Error(
      `line ${cmd.line}: ${res.status} from ${req.method} ${req.url}\n  ${cmd.text}\n  answer: ${text.slice(0, 600)}`,
    );
  if (output !== null) {
    sh.files.set(output, bytes);
    return "";
  }
  return text;
}

/** `a.b.c` of a JSON value. */
function path(value: unknown, keys: string[], what: string): unknown {
  let v = value;
  for (const k of keys) {
    if (v === null || typeof v !== "object" || !(k in v))
      throw new Error(`${what}: no .${keys.join(".")} in the input`);
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

function printed(v: unknown): string {
  return `${typeof v === "string" ? v : JSON.stringify(v)}\n`;
}

function node(args: string[], stdin: string): string {
  const m = /^JSON\.parse\(require\("fs"\)\.readFileSync\(0\)\)((?:\.\w+)+)$/.exec(args[1] ?? "");
  if (args[0] !== "-pe" || !m)
    throw new Error(`node ${args.join(" ")}: only node -pe 'JSON.parse(require("fs").readFileSync(0)).a.b' here`);
  return printed(path(JSON.parse(stdin), (m[1] as string).slice(1).split("."), "node -pe"));
}

function jq(args: string[], stdin: string): string {
  const m = /^((?:\.\w+)+)$/.exec(args[1] ?? "");
  if (args[0] !== "-r" || !m) throw new Error(`jq ${args.join(" ")}: only jq -r .a.b here`);
  return printed(path(JSON.parse(stdin), (m[1] as string).slice(1).split("."), "jq"));
}

function printf(args: string[]): string {
  const [format = "", ...values] = args;
  let k = 0;
  return format
    .replace(/%([s%])/g, (_, c: string) => (c === "%" ? "%" : (values[k++] ?? "")))
    .replace(/\\n/g, "\n")
    .replace(/\\t/g, "\t");
}

async function openssl(args: string[], stdin: string): Promise<string> {
  if (args.length !== 4 || args[0] !== "dgst" || args[1] !== "-sha256" || args[2] !== "-hmac")
    throw new Error(`openssl ${args.join(" ")}: only openssl dgst -sha256 -hmac KEY here`);
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", enc.encode(args[3]), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(stdin)));
  return `SHA2-256(stdin)= ${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}\n`;
}

function lines(text: string): string[] {
  const all = text.split("\n");
  if (all[all.length - 1] === "") all.pop();
  return all;
}

function sed(args: string[], stdin: string): string {
  const script = args[0] ?? "";
  const d = script[1] ?? "/";
  const [, re, repl, flags] = script.split(d);
  if (args.length !== 1 || script[0] !== "s" || re === undefined || repl === undefined || flags === undefined)
    throw new Error(`sed ${args.join(" ")}: only sed 's/regex/replacement/[g]' on stdin here`);
  const pattern = new RegExp(re, flags.includes("g") ? "g" : "");
  const replacement = repl
    .replace(/\$/g, "$$$$")
    .replace(/&/g, "$$&")
    .replace(/\\(\d)/g, "$$$1");
  return lines(stdin)
    .map((l) => `${l.replace(pattern, replacement)}\n`)
    .join("");
}

function grep(args: string[], stdin: string, sh: Shell): string {
  const [pattern, file] = args;
  if (pattern === undefined || pattern.startsWith("-") || args.length > 2)
    throw new Error(`grep ${args.join(" ")}: only grep PATTERN [FILE] here`);
  let text = stdin;
  if (file !== undefined) {
    const f = sh.files.get(file);
    if (f === undefined) throw new Error(`grep: no file ${file} (the test writes the files the pages use)`);
    text = typeof f === "string" ? f : new TextDecoder().decode(f);
  }
  const re = new RegExp(pattern);
  const hits = lines(text).filter((l) => re.test(l));
  if (!hits.length) throw new Error(`grep ${pattern}: no line matches (exit 1)`);
  return hits.map((l) => `${l}\n`).join("");
}

function cut(args: string[], stdin: string): string {
  let delim = "\t";
  let fields = "";
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "-d") delim = args[++i] ?? "";
    else if (a.startsWith("-d")) delim = a.slice(2);
    else if (a === "-f") fields = args[++i] ?? "";
    else if (a.startsWith("-f")) fields = a.slice(2);
    else throw new Error(`cut ${args.join(" ")}: only cut -dX -fN[-[M]] on stdin here`);
  }
  const m = /^(\d+)(-(\d*))?$/.exec(fields);
  if (delim.length !== 1 || !m) throw new Error(`cut ${args.join(" ")}: only cut -dX -fN[-[M]] on stdin here`);
  const from = Number(m[1]) - 1;
  const to = m[2] ? (m[3] ? Number(m[3]) : Number.POSITIVE_INFINITY) : from + 1;
  return lines(stdin)
    .map((l) => {
      const f = l.split(delim);
      return `${f.length > 1 ? f.slice(from, to).join(delim) : l}\n`;
    })
    .join("");
}
