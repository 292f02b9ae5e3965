/**
 * Where a card may quote from when the stored content is a data format rather than text: a raw
 * BibTeX entry (`@article{key, title = {...}, ...}`) or JSON (one document, or JSON Lines such as a
 * research hub's anchors). The answer is the exact spans of the prose values inside the stored
 * bytes, so anchors built from them re-slice the stored version (POST /verify accepts them):
 *
 *  - BibTeX: the values of `abstract`, `note` and `annote`, without their braces or quotes, are
 *    prose; `title` is too when there is none of them, else it is anchored but not quoted (it is the
 *    card's title already). Without any of these, the first field value is anchored.
 *  - JSON: every string value (not a key) holding at least two words, without its quotes; without
 *    any, the first string value is anchored. The raw span is what the anchor quotes, escapes
 *    included; a value with escapes is quoted as written.
 *
 * Anything else answers null: the content is text, and prose.ts says what in it is prose. Both scans
 * are one pass over at most `limit` characters, with no regex over the whole content, so they are
 * linear in its length.
 */
import type { Range } from "./prose";

/** A value's exact span; `prose` false: it may be anchored, never quoted as the claim or sketch. */
export interface Region extends Range {
  prose: boolean;
}

/** BibTeX fields whose values are prose (the title is handled apart). */
const BIB_PROSE_FIELDS: ReadonlySet<string> = new Set(["abstract", "note", "annote"]);
const RE_BIB_START = /^\s*@[A-Za-z]{2,40}\s*[{(]/;
const RE_LETTER = /\p{L}/u;
const RE_TWO_WORDS = /\S\s+\S/;

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** The prose value ranges of a raw BibTeX entry (or several), or null when it is not one. */
export function bibtexRegions(text: string, limit = text.length): Region[] | null {
  if (!RE_BIB_START.test(text.slice(0, 64))) return null;
  const n = Math.min(limit, text.length);
  const found: Array<Region & { field: string }> = [];
  const out = found;
  let i = text.indexOf("@");
  while (i >= 0 && i < n) {
    // The entry's opener and its citation key, up to the first comma.
    const open = text.slice(i, Math.min(n, i + 64)).search(/[{(]/);
    if (open < 0) break;
    const type = text
      .slice(i + 1, i + open)
      .trim()
      .toLowerCase();
    let p = i + open + 1;
    const closer = text[i + open] === "(" ? ")" : "}";
    if (type === "string" || type === "preamble" || type === "comment") {
      i = skipBalanced(text, i + open, n);
      i = i < 0 ? -1 : text.indexOf("@", i);
      continue;
    }
    const comma = text.indexOf(",", p);
    if (comma < 0 || comma >= n) break;
    // A key runs to the first comma; one that holds an opener is not an entry (and is not rescanned).
    if (/[{}()=]/.test(text.slice(p, comma))) break;
    p = comma + 1;
    // Fields: name = value (# value)*, separated by commas, until the entry's closer.
    while (p < n) {
      while (p < n && (isSpace(text.charCodeAt(p)) || text[p] === ",")) p++;
      if (p >= n || text[p] === closer) break;
      const eq = text.indexOf("=", p);
      if (eq < 0 || eq >= n) return out;
      const name = text.slice(p, eq).trim().toLowerCase();
      let v = eq + 1;
      while (v < n && isSpace(text.charCodeAt(v))) v++;
      const c = text[v];
      let end: number;
      if (c === "{") {
        end = skipBalanced(text, v, n);
        // Unclosed up to the limit: nothing after it is read (no rescan, so the scan stays linear).
        if (end < 0) return bibtexChoice(found);
        pushTrimmed(found, text, v + 1, end - 1, name);
      } else if (c === '"') {
        end = quotedEnd(text, v, n);
        if (end < 0) return bibtexChoice(found);
        pushTrimmed(found, text, v + 1, end - 1, name);
      } else {
        // A number or a macro name (and its concatenations): up to the next comma or the closer.
        end = v;
        while (end < n && text[end] !== "," && text[end] !== closer) end++;
      }
      p = end;
      // Concatenations ("a" # b) are read past as a whole; only a first braced or quoted part counts.
      while (p < n && text[p] !== "," && text[p] !== closer) {
        if (text[p] === "{") p = skipBalanced(text, p, n);
        else if (text[p] === '"') p = quotedEnd(text, p, n);
        else p++;
        if (p < 0) return bibtexChoice(found);
      }
    }
    i = p < n ? text.indexOf("@", p) : -1;
  }
  return bibtexChoice(found);
}

/** Which values of an entry are quoted and which only anchored (see the header). */
function bibtexChoice(found: Array<Region & { field: string }>): Region[] {
  const hasProse = found.some((r) => BIB_PROSE_FIELDS.has(r.field));
  const out: Region[] = [];
  for (const r of found) {
    if (BIB_PROSE_FIELDS.has(r.field)) out.push({ start: r.start, end: r.end, prose: true });
    else if (r.field === "title") out.push({ start: r.start, end: r.end, prose: !hasProse });
  }
  if (out.length === 0 && found[0]) out.push({ start: found[0].start, end: found[0].end, prose: false });
  return out;
}

/** The offset just past the brace (or parenthesis) group opening at `at`, or -1 when unclosed before n. */
function skipBalanced(text: string, at: number, n: number): number {
  const open = text[at];
  const close = open === "(" ? ")" : "}";
  let depth = 0;
  for (let k = at; k < n; k++) {
    const ch = text[k];
    if (ch === "\\") {
      k++;
      continue;
    }
    if (ch === open) depth++;
    else if (ch === close) {
      depth--;
      if (depth === 0) return k + 1;
    }
  }
  return -1;
}

/** The offset just past a BibTeX "..." value opening at `at` (braces inside it nest), or -1. */
function quotedEnd(text: string, at: number, n: number): number {
  let depth = 0;
  for (let k = at + 1; k < n; k++) {
    const ch = text[k];
    if (ch === "\\") {
      k++;
      continue;
    }
    if (ch === "{") depth++;
    else if (ch === "}") depth--;
    else if (ch === '"' && depth <= 0) return k + 1;
  }
  return -1;
}

function pushTrimmed(out: Array<Region & { field: string }>, text: string, start: number, end: number, field: string) {
  let s = start;
  let e = end;
  while (s < e && isSpace(text.charCodeAt(s))) s++;
  while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
  if (e > s && RE_LETTER.test(text.slice(s, Math.min(e, s + 200)))) out.push({ start: s, end: e, field, prose: false });
}

/**
 * Whether `text` is JSON or JSON Lines: one JSON.parse of the whole, else of each non-blank line
 * (both linear). Only content that starts with `{` or `[` is tried.
 */
function isJson(text: string, limit: number): boolean {
  const t = text.trimStart();
  if (t[0] !== "{" && t[0] !== "[") return false;
  const scan = text.length > limit ? text.slice(0, limit) : text;
  try {
    JSON.parse(scan);
    return true;
  } catch {
    // JSON Lines: every complete line parses (a last line cut at `limit` is not checked).
  }
  const lines = scan.split("\n");
  if (lines.length < 2) return false;
  const last = text.length > limit ? lines.length - 1 : lines.length;
  let any = false;
  for (let k = 0; k < last; k++) {
    const line = (lines[k] as string).trim();
    if (line === "") continue;
    try {
      JSON.parse(line);
      any = true;
    } catch {
      return false;
    }
  }
  return any;
}

/** The prose string values of JSON (or JSON Lines) content, or null when it is not JSON. */
export function jsonRegions(text: string, limit = text.length): Region[] | null {
  if (!isJson(text, limit)) return null;
  const n = Math.min(limit, text.length);
  const out: Region[] = [];
  let first: Region | null = null;
  let k = 0;
  while (k < n) {
    if (text[k] !== '"') {
      k++;
      continue;
    }
    const start = k + 1;
    let e = start;
    while (e < n && text[e] !== '"') e += text[e] === "\\" ? 2 : 1;
    if (e >= n) break;
    // A key is followed by a colon; a value by a comma, a closer or a line end.
    let after = e + 1;
    while (after < n && isSpace(text.charCodeAt(after)) && text[after] !== "\n") after++;
    const isKey = text[after] === ":";
    if (!isKey && e > start) {
      const value = text.slice(start, e);
      if (RE_TWO_WORDS.test(value) && RE_LETTER.test(value)) out.push({ start, end: e, prose: true });
      else if (first === null) first = { start, end: e, prose: false };
    }
    k = e + 1;
  }
  if (out.length === 0 && first) out.push(first);
  return out;
}

/** The prose regions of a data-format content (raw BibTeX, JSON), or null when the content is text. */
export function fieldRegions(text: string, limit = text.length): Region[] | null {
  return bibtexRegions(text, limit) ?? jsonRegions(text, limit);
}
