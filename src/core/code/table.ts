/**
 * What a symbol of a source file is (CodeSymbol), the table the extractors of code/symbols.ts fill,
 * and the helpers they share over blanked code (line table, headers, brackets, entries).
 */
import type { Scan } from "./scan";

export type SymbolKind = "function" | "class" | "interface" | "type" | "const" | "enum" | "method";

export interface CodeSymbol {
  /** `buildIndex`, or `Class.method` for methods. */
  name: string;
  kind: SymbolKind;
  /** The declaration header with comments removed and whitespace collapsed (<= 300 chars). */
  signature: string;
  /** 1-based line of the declaration. */
  line: number;
  exported: boolean;
  /** [start, end) of the declaration's signature line in `content` (exact offsets). */
  start: number;
  end: number;
}

/** A signature longer than this is cut: heads and entity names must stay small. */
const MAX_SIGNATURE = 300;

export interface Lines {
  starts: number[];
  /** Bracket depth ({[( together) at each line start. */
  depth: number[];
  /** Python: the line continues the previous logical line (backslash). */
  cont: boolean[];
  /** Set by the Python extractor: the line starts inside a multi-line string. */
  inString?: Uint8Array;
}

export function lineTable(code: string): Lines {
  const starts = [0];
  const depth = [0];
  const cont = [false];
  let d = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c === 123 || c === 40 || c === 91) d++;
    else if (c === 125 || c === 41 || c === 93) d = Math.max(0, d - 1);
    else if (c === 10) {
      let k = i - 1;
      if (code.charCodeAt(k) === 13) k--;
      starts.push(i + 1);
      depth.push(d);
      cont.push(code.charCodeAt(k) === 92);
    }
  }
  return { starts, depth, cont };
}

export function lineEnd(code: string, start: number): number {
  let e = code.indexOf("\n", start);
  if (e < 0) e = code.length;
  return e;
}

/** Offsets of the trimmed text of the line holding `from`, starting at `from`. */
function trimmedLine(content: string, from: number): [number, number] {
  let e = lineEnd(content, from);
  while (e > from && /\s/.test(content[e - 1] ?? "")) e--;
  return [from, e];
}

/** Original text with comments removed (`mask` = 1 inside a comment), whitespace collapsed, cut at MAX_SIGNATURE. */
function signatureText(content: string, mask: Uint8Array, start: number, end: number): string {
  let s = "";
  for (let i = start; i < end && s.length < MAX_SIGNATURE * 2; i++) s += mask[i] ? " " : (content[i] ?? "");
  s = s
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\s*[,;{]$/, "");
  return s.length > MAX_SIGNATURE ? `${s.slice(0, MAX_SIGNATURE - 1)}…` : s;
}

function commentMask(n: number, comments: Scan["comments"]): Uint8Array {
  const mask = new Uint8Array(n);
  for (const [s, e] of comments) mask.fill(1, s, e);
  return mask;
}

/** Lines whose start lies inside a multi-line string (docstring bodies, closing delimiters). */
export function linesInString(lines: Lines, strings: Scan["strings"]): Uint8Array {
  const flags = new Uint8Array(lines.starts.length);
  let li = 0;
  for (const str of strings) {
    while (li < lines.starts.length && (lines.starts[li] ?? 0) <= str.start) li++;
    for (let k = li; k < lines.starts.length && (lines.starts[k] ?? 0) < str.end; k++) flags[k] = 1;
  }
  return flags;
}

/**
 * End of a declaration header: the body's `{` (TS/JS) or `:` (Python) at bracket depth 0, or a `;`.
 * `{` after `:`, `|`, `&`, `<`, `,` or `=` opens a type literal (`function f(): { a: 1 } {`), not
 * the body. One-line kinds (constants, type aliases) end at the first newline outside brackets; a
 * TS/JS header also ends at a newline after `)`, `;` or a word (`function f()` then `{` on the next
 * line, or an arrow function without braces).
 */
export function headerEnd(code: string, start: number, py: boolean, oneLine: boolean): number {
  let paren = 0;
  let brace = 0;
  let angle = 0; // TS generics at paren depth 0: `class A<T extends { id: string }> {`
  let arrow = false;
  let prev = "";
  const limit = Math.min(code.length, start + 2000);
  for (let i = start; i < limit; i++) {
    const ch = code[i] ?? "";
    if (ch === "\n" && paren === 0) {
      if (oneLine) return i;
      if (py || (brace === 0 && angle === 0 && (prev === ")" || prev === ";" || /[\w$]/.test(prev)))) return i;
    }
    if (ch === "(" || ch === "[") paren++;
    else if (ch === ")" || ch === "]") paren = Math.max(0, paren - 1);
    else if (paren === 0) {
      if (py) {
        if (ch === ":" && !oneLine) return i + 1;
      } else if (ch === "<" && !arrow) angle++;
      else if (ch === ">") {
        if (prev === "=") {
          arrow = true; // `=>`: a body follows, where `<` is a comparison
          angle = 0;
        } else angle = Math.max(0, angle - 1);
      } else if (ch === "{") {
        if (brace > 0 || angle > 0 || (prev !== "" && ":|&<,=".includes(prev))) brace++;
        else return i;
      } else if (ch === "}") brace = Math.max(0, brace - 1);
      else if (ch === ";" && brace === 0) return i;
    }
    if (ch !== " " && ch !== "\n" && ch !== "\r" && ch !== "\t") prev = ch;
  }
  return lineEnd(code, start);
}

/** Index of the bracket matching the opener at `open` in blanked code (or -1). */
export function matchBracket(code: string, open: number): number {
  const o = code[open];
  const close = o === "{" ? "}" : o === "(" ? ")" : o === "[" ? "]" : "";
  if (!close) return -1;
  let d = 0;
  for (let i = open; i < code.length; i++) {
    const ch = code[i];
    if (ch === o) d++;
    else if (ch === close) {
      d--;
      if (d === 0) return i;
    }
  }
  return -1;
}

/** Split `a, b: c, d() {}` at depth-0 commas; returns [start, end) of each non-empty entry. */
export function splitEntries(code: string, from: number, to: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let d = 0;
  let s = from;
  for (let i = from; i <= to; i++) {
    const ch = i === to ? "," : (code[i] ?? "");
    if (ch === "{" || ch === "(" || ch === "[") d++;
    else if (ch === "}" || ch === ")" || ch === "]") d--;
    else if (ch === "," && d === 0) {
      let a = s;
      let e = i;
      while (a < e && /\s/.test(code[a] ?? "")) a++;
      while (e > a && /\s/.test(code[e - 1] ?? "")) e--;
      if (e > a) out.push([a, e]);
      s = i + 1;
    }
  }
  return out;
}

export class SymbolTable {
  private readonly byName = new Map<string, CodeSymbol>();
  private readonly mask: Uint8Array;
  constructor(
    private readonly content: string,
    private readonly code: string,
    private readonly lines: Lines,
    private readonly py: boolean,
    comments: Scan["comments"],
  ) {
    this.mask = commentMask(content.length, comments);
  }

  lineOf(offset: number): number {
    return lineIndex(this.lines, offset) + 1;
  }

  get(name: string): CodeSymbol | undefined {
    return this.byName.get(name);
  }

  /**
   * First declaration of a name wins (overloads, declaration merging), except that a function or
   * class replaces a plain value of the same name (`Enum = None` placeholders before `class Enum`);
   * `exported` is OR-ed.
   */
  add(name: string, kind: SymbolKind, start: number, exported: boolean, oneLine: boolean): CodeSymbol {
    const prev = this.byName.get(name);
    if (prev && !(prev.kind === "const" && kind !== "const")) {
      prev.exported ||= exported;
      return prev;
    }
    if (prev) exported ||= prev.exported;
    const [s, lineE] = trimmedLine(this.content, start);
    // the name is normally on the first line; if a header breaks before it, extend to its line
    const bare = name.slice(name.lastIndexOf(".") + 1);
    let e = lineE;
    if (bare && bare !== "default" && !this.content.slice(s, e).includes(bare)) {
      const at = this.content.slice(e, e + 400).indexOf(bare);
      if (at >= 0) e = trimmedLine(this.content, e + at)[1];
    }
    const hEnd = headerEnd(this.code, start, this.py, oneLine);
    const sym: CodeSymbol = {
      name,
      kind,
      signature: signatureText(this.content, this.mask, start, Math.max(hEnd, start)),
      line: this.lineOf(start),
      exported,
      start: s,
      end: e,
    };
    this.byName.set(name, sym);
    return sym;
  }

  /** `export { local as name }`: a symbol at the export site carrying the local declaration's signature. */
  alias(name: string, local: CodeSymbol, at: number): void {
    if (this.byName.has(name)) return;
    const [s, e] = trimmedLine(this.content, at);
    this.byName.set(name, {
      ...local,
      name,
      signature: `${local.signature} (exported as ${name})`.slice(0, MAX_SIGNATURE),
      line: this.lineOf(at),
      exported: true,
      start: s,
      end: e,
    });
  }

  all(): CodeSymbol[] {
    return [...this.byName.values()].sort((a, b) => a.start - b.start || (a.name < b.name ? -1 : 1));
  }
}

/** Index of the line holding offset `pos` (binary search over line starts). */
export function lineIndex(lines: Lines, pos: number): number {
  let lo = 0;
  let hi = lines.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((lines.starts[mid] ?? 0) <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
