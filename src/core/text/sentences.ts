/**
 * Sentence segmentation with exact offsets: for every span, text.slice(start, end) === span.text.
 * Anchors in evidence cards are built from these spans, so exactness is the contract.
 */
export interface Span {
  start: number;
  end: number;
  text: string;
}

/** Spans longer than this are split further so an anchor stays a short, checkable excerpt. */
export const MAX_SPAN_CHARS = 400;

const ABBREV = new Set([
  "e.g",
  "i.e",
  "al",
  "fig",
  "figs",
  "eq",
  "eqs",
  "vs",
  "dr",
  "mr",
  "mrs",
  "ms",
  "no",
  "nos",
  "etc",
  "cf",
  "sec",
  "secs",
  "tab",
  "ref",
  "refs",
  "approx",
  "resp",
  "st",
  "jr",
  "sr",
  "prof",
  "inc",
  "ltd",
  "vol",
  "pp",
  "ch",
  "appx",
]);

function isBoundaryAfter(text: string, i: number): boolean {
  // text[i] is one of . ! ? ; decide whether a sentence ends here.
  const ch = text[i];
  if (ch === ".") {
    // Decimal numbers and versions: "3.5", "v1.2".
    if (/\d/.test(text[i - 1] ?? "") && /\d/.test(text[i + 1] ?? "")) return false;
    // Abbreviations: the word before the period.
    let j = i - 1;
    while (j >= 0 && /[\p{L}.]/u.test(text[j] ?? "")) j--;
    const word = text.slice(j + 1, i).toLowerCase();
    if (ABBREV.has(word)) return false;
    // Single capital initials ("J. Smith").
    if (/^\p{Lu}$/u.test(text.slice(j + 1, i))) return false;
  }
  // Swallow closing quotes/brackets after the terminator.
  let k = i + 1;
  while (k < text.length && /["'\u201d\u2019)\]]/.test(text[k] ?? "")) k++;
  if (k >= text.length) return true;
  if (!/\s/.test(text[k] ?? "")) return false;
  while (k < text.length && /\s/.test(text[k] ?? "")) k++;
  if (k >= text.length) return true;
  return /[\p{Lu}\p{N}"'\u201c\u2018([]/u.test(text[k] ?? "") || /[^\p{L}]/u.test(text[k] ?? "");
}

function pushTrimmed(out: Span[], text: string, start: number, end: number) {
  let s = start;
  let e = end;
  while (s < e && /\s/.test(text[s] ?? "")) s++;
  while (e > s && /\s/.test(text[e - 1] ?? "")) e--;
  if (e <= s) return;
  if (e - s <= MAX_SPAN_CHARS) {
    out.push({ start: s, end: e, text: text.slice(s, e) });
    return;
  }
  // Split long spans at "; ", then ", ", then whitespace, else hard cut.
  let cut = -1;
  const window = text.slice(s, s + MAX_SPAN_CHARS);
  for (const sep of ["; ", ", ", " "]) {
    const at = window.lastIndexOf(sep);
    if (at > MAX_SPAN_CHARS / 4) {
      cut = s + at + sep.length - (sep === " " ? 1 : 0);
      break;
    }
  }
  if (cut <= s) cut = s + MAX_SPAN_CHARS;
  // Never split a surrogate pair.
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut++;
  pushTrimmed(out, text, s, cut);
  pushTrimmed(out, text, cut, e);
}

export function splitSentences(text: string): Span[] {
  const out: Span[] = [];
  let start = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const ch = text[i];
    if (ch === "\n") {
      // Blank line, or a newline that starts a list item / heading: hard boundary.
      let k = i + 1;
      while (k < n && (text[k] === " " || text[k] === "\t")) k++;
      const next = text[k] ?? "";
      const rest = text.slice(k, k + 4);
      if (next === "\n" || next === "#" || /^([-*+•]\s|\d{1,3}[.)]\s)/.test(rest)) {
        pushTrimmed(out, text, start, i);
        start = i + 1;
      }
      continue;
    }
    if ((ch === "." || ch === "!" || ch === "?") && isBoundaryAfter(text, i)) {
      let k = i + 1;
      while (k < n && /["'\u201d\u2019)\]]/.test(text[k] ?? "")) k++;
      pushTrimmed(out, text, start, k);
      start = k;
      i = k - 1;
    }
  }
  pushTrimmed(out, text, start, n);
  return out;
}

/** Word spans (maximal runs of non-whitespace) with exact offsets inside [start, end). */
export function splitWords(text: string, start: number, end: number): Span[] {
  const out: Span[] = [];
  const re = /\S+/g;
  const slice = text.slice(start, end);
  for (const m of slice.matchAll(re)) {
    const s = start + (m.index ?? 0);
    out.push({ start: s, end: s + m[0].length, text: m[0] });
  }
  return out;
}
