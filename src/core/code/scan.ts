/**
 * Scanners of code/symbols.ts: blank comments, strings, template literals and regex literals
 * (every character but newlines becomes a space), so offsets and line numbers are unchanged.
 */

export interface Scan {
  /** `content` with comment, string, template and regex bodies replaced by spaces (newlines kept). */
  code: string;
  /** [start, end) of every comment, delimiters included. */
  comments: Array<[number, number]>;
  /** [start, end) of every string / template literal, delimiters included; `triple` for Python """…""". */
  strings: Array<{ start: number; end: number; triple: boolean }>;
}

class Blanker {
  readonly out: Uint16Array;
  constructor(readonly src: string) {
    this.out = new Uint16Array(src.length);
    for (let i = 0; i < src.length; i++) this.out[i] = src.charCodeAt(i);
  }
  blank(from: number, to: number): void {
    const end = Math.min(to, this.src.length);
    for (let i = Math.max(0, from); i < end; i++) {
      const c = this.out[i];
      if (c !== 10 && c !== 13) this.out[i] = 32;
    }
  }
  text(): string {
    let s = "";
    // fromCharCode over 8k-unit slices: one call per slice stays far below engine argument limits.
    for (let i = 0; i < this.out.length; i += 8192) s += String.fromCharCode(...this.out.subarray(i, i + 8192));
    return s;
  }
}

const isIdentCode = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c > 127;

/** Keywords after which a `/` starts a regex literal rather than a division. */
const REGEX_AFTER_WORD = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

/**
 * JavaScript / TypeScript. Template literals are blanked whole, `${…}` expressions included (no
 * top-level declaration lives there), with an explicit stack so nesting depth never recurses.
 */
export function scanJs(src: string): Scan {
  const b = new Blanker(src);
  const n = src.length;
  const comments: Scan["comments"] = [];
  const strings: Scan["strings"] = [];
  // Each frame: a template (depth -1) or a `${` expression with its open-brace count.
  const stack: number[] = [];
  let tplStart = -1;
  let lastSig = ""; // "a" = identifier/number, else the last significant punctuation
  let lastWord = "";
  let i = 0;
  if (src.startsWith("#!")) {
    const eol = src.indexOf("\n");
    i = eol < 0 ? n : eol;
    comments.push([0, i]);
    b.blank(0, i);
  }
  while (i < n) {
    const c = src.charCodeAt(i);
    const top = stack.length ? (stack[stack.length - 1] ?? 0) : null;
    if (top === -1) {
      // inside a template literal
      if (c === 92) i += 2;
      else if (c === 96) {
        stack.pop();
        i++;
        if (stack.length === 0) {
          b.blank(tplStart + 1, i - 1);
          strings.push({ start: tplStart, end: i, triple: false });
          lastSig = "`";
          lastWord = "";
        }
      } else if (c === 36 && src.charCodeAt(i + 1) === 123) {
        stack.push(0);
        i += 2;
      } else i++;
      continue;
    }
    const nested = stack.length > 0;
    if (c === 47 && src.charCodeAt(i + 1) === 47) {
      let eol = src.indexOf("\n", i);
      if (eol < 0) eol = n;
      if (!nested) {
        comments.push([i, eol]);
        b.blank(i, eol);
      }
      i = eol;
      continue;
    }
    if (c === 47 && src.charCodeAt(i + 1) === 42) {
      let end = src.indexOf("*/", i + 2);
      end = end < 0 ? n : end + 2;
      if (!nested) {
        comments.push([i, end]);
        b.blank(i, end);
      }
      i = end;
      continue;
    }
    if (c === 39 || c === 34) {
      let j = i + 1;
      let closed = false;
      while (j < n) {
        const d = src.charCodeAt(j);
        if (d === 92) j += 2;
        else if (d === c) {
          closed = true;
          j++;
          break;
        } else if (d === 10) break;
        else j++;
      }
      j = Math.min(j, n);
      if (!nested) {
        b.blank(i + 1, closed ? j - 1 : j);
        strings.push({ start: i, end: j, triple: false });
      }
      i = j;
      lastSig = '"';
      lastWord = "";
      continue;
    }
    if (c === 96) {
      if (!nested) tplStart = i;
      stack.push(-1);
      i++;
      continue;
    }
    if (c === 47 && regexAllowed(lastSig, lastWord)) {
      let j = i + 1;
      let inClass = false;
      while (j < n) {
        const d = src.charCodeAt(j);
        if (d === 92) {
          j += 2;
          continue;
        }
        if (d === 10) break;
        if (inClass) {
          if (d === 93) inClass = false;
        } else if (d === 91) inClass = true;
        else if (d === 47) {
          j++;
          break;
        }
        j++;
      }
      j = Math.min(j, n);
      if (!nested) b.blank(i + 1, src.charCodeAt(j - 1) === 47 && j - 1 > i ? j - 1 : j);
      while (j < n && isIdentCode(src.charCodeAt(j))) j++;
      i = j;
      lastSig = ")";
      lastWord = "";
      continue;
    }
    if (nested) {
      if (c === 123) stack[stack.length - 1] = (top ?? 0) + 1;
      else if (c === 125) {
        if (top === 0) stack.pop();
        else stack[stack.length - 1] = (top ?? 1) - 1;
      }
    }
    if (isIdentCode(c)) {
      let j = i + 1;
      while (j < n && isIdentCode(src.charCodeAt(j))) j++;
      lastWord = src.slice(i, j);
      lastSig = "a";
      i = j;
      continue;
    }
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) {
      lastSig = src[i] ?? "";
      lastWord = "";
    }
    i++;
  }
  if (stack.length > 0 && tplStart >= 0) {
    // unterminated template: everything after the backtick is literal text
    b.blank(tplStart + 1, n);
    strings.push({ start: tplStart, end: n, triple: false });
  }
  return { code: b.text(), comments, strings };
}

function regexAllowed(lastSig: string, lastWord: string): boolean {
  if (lastSig === "") return true;
  if (lastSig === "a") return REGEX_AFTER_WORD.has(lastWord);
  return lastSig !== ")" && lastSig !== "]" && lastSig !== '"' && lastSig !== "`";
}

/** Python: `#` comments, '…', "…", '''…''', """…""" (prefixes r/b/f/u are identifier chars before the quote). */
export function scanPython(src: string): Scan {
  const b = new Blanker(src);
  const n = src.length;
  const comments: Scan["comments"] = [];
  const strings: Scan["strings"] = [];
  let i = 0;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 35) {
      let eol = src.indexOf("\n", i);
      if (eol < 0) eol = n;
      comments.push([i, eol]);
      b.blank(i, eol);
      i = eol;
      continue;
    }
    if (c === 39 || c === 34) {
      const triple = src.charCodeAt(i + 1) === c && src.charCodeAt(i + 2) === c;
      const q = triple ? 3 : 1;
      let j = i + q;
      let closed = false;
      while (j < n) {
        const d = src.charCodeAt(j);
        if (d === 92) j += 2;
        else if (d === c && (!triple || (src.charCodeAt(j + 1) === c && src.charCodeAt(j + 2) === c))) {
          j += q;
          closed = true;
          break;
        } else if (d === 10 && !triple) break;
        else j++;
      }
      j = Math.min(j, n);
      b.blank(i + q, closed ? j - q : j);
      strings.push({ start: i, end: j, triple });
      i = j;
      continue;
    }
    i++;
  }
  return { code: b.text(), comments, strings };
}
