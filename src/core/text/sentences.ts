/**
 * Sentence segmentation with exact offsets: for every span, text.slice(start, end) === span.text.
 * Evidence-card anchors are built from these spans and verified by re-slicing the stored content,
 * so exactness is the contract; linguistic perfection is not (a missed split only makes an anchor
 * longer, and long spans are split again below).
 */
export interface Span {
  start: number;
  end: number;
  text: string;
}

/**
 * Spans longer than this are split further: an anchor must stay a short, checkable excerpt, and a
 * 400-character span is ~100 tokens, so two anchors plus a claim still fit a 300-token card.
 */
export const MAX_SPAN_CHARS = 400;

/** Words (lowercased, without their final period) after which a period does not end a sentence. */
const ABBREV: ReadonlySet<string> = new Set([
  "e.g",
  "i.e",
  "al",
  "etc",
  "cf",
  "fig",
  "figs",
  "eq",
  "eqs",
  "sec",
  "secs",
  "tab",
  "ref",
  "refs",
  "vs",
  "dr",
  "mr",
  "mrs",
  "ms",
  "prof",
  "st",
  "jr",
  "sr",
  "no",
  "nos",
  "vol",
  "p",
  "pp",
  "ch",
  "approx",
  "resp",
  "inc",
  "ltd",
  "appx",
  // Titles, ranks and places that precede a name: "Mt. Everest", "Gen. Grant", "Rev. Smith".
  "mt",
  "mts",
  "ft",
  "lt",
  "capt",
  "sgt",
  "gov",
  "rev",
  "fr",
  "hon",
  "pres",
  "supt",
  // Organisations and scholarly apparatus: "Acme Co. Ltd", "Dept. of Physics", "ed. by", "ca. 1300".
  "co",
  "corp",
  "dept",
  "univ",
  "assn",
  "bros",
  "ed",
  "eds",
  "trans",
  "ca",
  "viz",
  "ibid",
  "cit",
  "seq",
  "suppl",
  "chap",
  "thm",
  "lem",
  "alg",
  // Months written short ("Jan. 5"); "Mar." and "May" are left out, they end sentences as words.
  "jan",
  "feb",
  "apr",
  "jun",
  "jul",
  "aug",
  "sep",
  "sept",
  "oct",
  "nov",
  "dec",
]);

const RE_WS = /^\s$/u;
// What may open the next sentence: a capital (cased scripts), an uncased letter (CJK, Arabic,
// Hebrew: they have no capitals to look for), a digit, an opening quote or bracket.
const RE_SENTENCE_START = /^[\p{Lu}\p{Lt}\p{Lo}\p{N}"'\u201c\u2018\u00ab([{]/u;
const RE_LETTER_OR_DOT = /^[\p{L}.]$/u;
const RE_UPPER = /^\p{Lu}$/u;
// After optional indentation: a markdown heading ("# ", "## ") or list item ("- ", "* ", "+ ", "• ", "1. ", "2) ").
const RE_BLOCK_START = /^[ \t]*(?:#{1,6}(?:[ \t]|$)|[-*+\u2022][ \t]|\d{1,3}[.)][ \t])/;
const RE_HEADING = /^[ \t]*#{1,6}(?:[ \t]|$)/;

function isWs(c: number): boolean {
  if (c === 32 || (c >= 9 && c <= 13)) return true;
  return c > 127 && RE_WS.test(String.fromCharCode(c));
}

/** Closing quotes and brackets that stay with the sentence they end: `He said "no."` */
function isCloser(c: number): boolean {
  return c === 34 || c === 39 || c === 41 || c === 93 || c === 125 || c === 0x201d || c === 0x2019 || c === 0xbb;
}

function charAt(text: string, i: number): string {
  const cp = text.codePointAt(i);
  return cp === undefined ? "" : String.fromCodePoint(cp);
}

/**
 * Dotted initialisms, the word before the final period: "U.S", "O.F.M", "D.C", "p.m", "Ph.D", "e.g".
 * Every part between periods has one or two letters and there are at least two parts. "in the U.S.
 * The" is then not split either: a missed split only makes an anchor longer, a wrong one cuts a
 * sentence (and a name) in half.
 */
function isInitialism(word: string): boolean {
  const parts = word.split(".");
  return parts.length >= 2 && parts.every((p) => p.length >= 1 && p.length <= 2);
}

/** Whether the period at `i` belongs to an abbreviation ("e.g.", "et al.", "Fig.", "U.S.") or an initial ("J."). */
export function isAbbreviation(text: string, i: number): boolean {
  let j = i - 1;
  // Scan back over the word (letters and inner periods, so "e.g" and "i.e" are one word). 12 chars
  // is longer than any entry, which bounds the scan on pathological input.
  while (j >= 0 && i - j <= 12 && RE_LETTER_OR_DOT.test(text[j] ?? "")) j--;
  // A word that goes on past the scan window is not an abbreviation.
  if (j >= 0 && i - j > 12) return false;
  const word = text.slice(j + 1, i);
  if (ABBREV.has(word.toLowerCase())) return true;
  if (isInitialism(word)) return true;
  return word.length === 1 && RE_UPPER.test(word);
}

/**
 * If a sentence ends with the terminator run starting at `i` (one of . ! ?), return the offset just
 * past it (terminators and closing quotes included); otherwise -1.
 */
function sentenceEnd(text: string, i: number): number {
  const n = text.length;
  let j = i + 1;
  while (j < n && (text[j] === "." || text[j] === "!" || text[j] === "?")) j++;
  const single = j === i + 1 && text[i] === ".";
  while (j < n && isCloser(text.charCodeAt(j))) j++;
  if (j >= n) return j;
  // "3.5", "v1.2", "arxiv.org", "e.g.," : no whitespace after the terminator, no boundary.
  if (!isWs(text.charCodeAt(j))) return -1;
  let k = j;
  while (k < n && isWs(text.charCodeAt(k))) k++;
  if (k >= n) return j;
  if (!RE_SENTENCE_START.test(charAt(text, k))) return -1;
  if (single && isAbbreviation(text, i)) return -1;
  return j;
}

/** Push text[start, end) trimmed, split into pieces of at most MAX_SPAN_CHARS. */
function pushSpan(out: Span[], text: string, start: number, end: number): void {
  let s = start;
  let e = end;
  while (s < e && isWs(text.charCodeAt(s))) s++;
  while (e > s && isWs(text.charCodeAt(e - 1))) e--;
  while (e - s > MAX_SPAN_CHARS) {
    // Prefer a clause boundary, then a word boundary, each at least a quarter into the window so no
    // piece is a sliver; else a hard cut that never separates a surrogate pair.
    const window = text.slice(s, s + MAX_SPAN_CHARS);
    const minAt = MAX_SPAN_CHARS / 4;
    let cut = -1;
    for (const sep of ["; ", ", "]) {
      const at = window.lastIndexOf(sep);
      if (at >= minAt) {
        cut = s + at + 1;
        break;
      }
    }
    if (cut < 0) {
      for (let k = window.length - 1; k >= minAt; k--) {
        if (isWs(window.charCodeAt(k))) {
          cut = s + k;
          break;
        }
      }
    }
    if (cut < 0) {
      cut = s + MAX_SPAN_CHARS;
      const hi = text.charCodeAt(cut - 1);
      if (hi >= 0xd800 && hi <= 0xdbff) cut--;
    }
    let pe = cut;
    while (pe > s && isWs(text.charCodeAt(pe - 1))) pe--;
    out.push({ start: s, end: pe, text: text.slice(s, pe) });
    s = cut;
    while (s < e && isWs(text.charCodeAt(s))) s++;
  }
  if (e > s) out.push({ start: s, end: e, text: text.slice(s, e) });
}

/**
 * Split `text` into sentences. Boundaries: . ! ? followed by whitespace and something that can open
 * a sentence (not after abbreviations or initials); CJK full stops; blank lines; a newline that
 * starts a markdown list item or heading, or ends a heading line.
 */
export function splitSentences(text: string): Span[] {
  const out: Span[] = [];
  const n = text.length;
  let start = 0;
  let lineStart = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      const endsHeading = RE_HEADING.test(text.slice(lineStart, Math.min(i, lineStart + 8)));
      lineStart = i + 1;
      let k = i + 1;
      while (k < n && (text[k] === " " || text[k] === "\t" || text[k] === "\r")) k++;
      if (k >= n) continue;
      if (endsHeading || text[k] === "\n" || RE_BLOCK_START.test(text.slice(i + 1, i + 16))) {
        pushSpan(out, text, start, i);
        start = i + 1;
      }
      continue;
    }
    if (c === 46 || c === 33 || c === 63) {
      const end = sentenceEnd(text, i);
      if (end >= 0) {
        pushSpan(out, text, start, end);
        start = end;
        i = end - 1;
      }
      continue;
    }
    // CJK full stop / exclamation / question marks end a sentence with no space after them.
    if (c === 0x3002 || c === 0xff01 || c === 0xff1f) {
      let end = i + 1;
      while (end < n && (isCloser(text.charCodeAt(end)) || text[end] === "\u300d" || text[end] === "\u300f")) end++;
      pushSpan(out, text, start, end);
      start = end;
      i = end - 1;
    }
  }
  pushSpan(out, text, start, n);
  return out;
}

/** Word spans (maximal runs of non-whitespace) with exact offsets inside [start, end). */
export function splitWords(text: string, start: number, end: number): Span[] {
  const out: Span[] = [];
  const e = Math.min(end, text.length);
  let i = Math.max(0, start);
  while (i < e) {
    while (i < e && isWs(text.charCodeAt(i))) i++;
    if (i >= e) break;
    const s = i;
    while (i < e && !isWs(text.charCodeAt(i))) i++;
    out.push({ start: s, end: i, text: text.slice(s, i) });
  }
  return out;
}
