/**
 * What may become a claim or a sketch sentence, and where a claim may be cut. Two linear scans:
 *
 *  - nonProseRanges: lines that are not statements, of two sorts. "structure" is never quoted nor
 *    anchored: YAML (`---`) or TOML (`+++`) front matter at the start, Markdown headings (`# ...`
 *    and setext titles), horizontal rules, list items (or lines) that are only links, a paper's
 *    metadata lines ("Authors: ...", "DOI: ...", the title above them) and label ("Abstract: "), and
 *    the BibTeX entry a paper's content ends with (after "BibTeX:"). "data" is not quoted but may
 *    be anchored when a card has room: fenced code blocks, table rows, and bibliography entries
 *    (`[12] A. Author, ... 2020.`, `Author, A. (2020). Title. Venue.`, and everything under a
 *    "References" / "Bibliography" heading up to the next heading).
 *  - clauseCuts: for one sentence, the offsets where a prefix ends on a clause boundary (`,` `;` `:`
 *    followed by a space, a spaced dash ` — ` ` – ` ` -- `, or an inner sentence end), outside
 *    parentheses, brackets, braces and double quotes, with the number of words before each.
 *
 * Every regex here is anchored or a single character class over one line's first LINE_CHECK_CHARS
 * characters, with no nested quantifiers, so the scans stay linear in the content's length.
 */
import { ENTRY_MARK, META_LABELS } from "../formats/paper";
import { isAbbreviation } from "../text/sentences";

export interface Range {
  start: number;
  end: number;
}

/** A non-prose range: "structure" is never quoted nor anchored, "data" may be anchored. */
export interface NonProse extends Range {
  kind: "structure" | "data";
}

/**
 * A paper's metadata line as the importers write it ("Authors: A, B"; BibTeX adds "Type: @article;
 * citation key: x"): a known label, a colon and a space.
 */
const RE_META = new RegExp(`^(?:${[...META_LABELS, "Type"].join("|")}): `);
/** A label before a paper's prose ("Abstract: We ..."): the label is structure, the rest prose. */
const RE_PROSE_LABEL = /^(?:Abstract|Note|Summary|TL;DR): /;

/** Only this much of a line is examined by the line patterns (reference entries are far shorter). */
const LINE_CHECK_CHARS = 600;
/** Front matter must close within this many characters of the start. */
const FRONT_MATTER_CHARS = 20_000;

const RE_HEADING = /^#{1,6}(?:[ \t]|$)/;
const RE_RULE = /^(?:[-*_=][ \t]*){3,}$/;
const RE_SETEXT = /^(?:=+|-+)[ \t]*$/;
const RE_FENCE = /^(?:```|~~~)/;
const RE_BULLET = /^(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+/;
/** A Markdown link, an autolink or a bare URL (each a flat run: linear). */
const RE_LINKS = /!?\[[^\]\n]*\]\([^)\n]*\)|<[a-z][a-z0-9+.-]*:[^>\s]*>|\b(?:https?|ftp):\/\/\S+/gi;
const RE_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const RE_REF_SECTION =
  /^(?:#{1,6}[ \t]*)?(?:[0-9IVX]{1,4}\.?[ \t]+)?(?:references|bibliography|works cited|literature cited|reference list)[ \t]*:?[ \t]*$/i;
const RE_SECTION_AFTER_REFS =
  /^(?:#{1,6}[ \t]|(?:[A-Z]\.?|[0-9]{1,2}\.?)?[ \t]*(?:appendix|appendices|supplementary)\b)/i;
/** "[12] ", "12. ", "(12) " at the start of a line. */
const RE_NUMBERED_REF = /^(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}\.)[ \t]+\S/;
/** "Lewis, P., " / "Lewis, P. S. and" / "van der Berg, J.": surname, comma, initials. */
const RE_APA_REF = /^(?:[a-z]{1,4}[ \t]){0,2}[A-Z][\p{L}'\u2019-]{0,40},[ \t](?:[A-Z]\.[ \t-]?){1,4}/u;
const RE_YEAR = /(?:^|[^\d])(?:1[89]|20)\d{2}[a-z]?(?:[^\d]|$)/;
/** An initial ("A. Vaswani"), "et al." or a venue word: what a reference entry has and prose rarely does. */
const RE_BIBLIO_CUE =
  /\b[A-Z]\.[ \t]|\bet al\.|\b(?:In Proc|Proceedings|Conference|Journal|Transactions|arXiv|doi|pp\.|vol\.|Press|Workshop)\b/;
/** A table separator row: pipes, colons, dashes, spaces; at least one pipe and three dashes. */
const RE_TABLE_SEP = /^\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$/;

function linkOnly(body: string): boolean {
  RE_LINKS.lastIndex = 0;
  if (!RE_LINKS.test(body)) return false;
  RE_LINKS.lastIndex = 0;
  return !RE_LETTER_OR_DIGIT.test(body.replace(RE_LINKS, ""));
}

function isReferenceEntry(line: string): boolean {
  if (!RE_YEAR.test(line)) return false;
  if (RE_NUMBERED_REF.test(line)) return RE_BIBLIO_CUE.test(line);
  return RE_APA_REF.test(line);
}

/**
 * Non-prose ranges of text[0, limit), sorted and disjoint: whole lines, except a prose label, which
 * covers the label alone.
 */
export function nonProseRanges(text: string, limit = text.length): NonProse[] {
  const entryAt = text.lastIndexOf(ENTRY_MARK);
  const n = Math.min(limit, text.length);
  const out: NonProse[] = [];
  const push = (start: number, end: number, kind: NonProse["kind"] = "structure") => {
    const last = out[out.length - 1];
    // Adjacent lines of one sort (only a line break between) make one range.
    if (last && last.kind === kind && start <= last.end + 1) last.end = Math.max(last.end, end);
    else if (last && start < last.end) {
      // A line already covered in part (a header row marked after its label): keep the ranges disjoint.
      if (end > last.end) out.push({ start: last.end, end, kind });
    } else out.push({ start, end, kind });
  };
  let i = 0;
  // Front matter: a "---" (YAML) or "+++" (TOML) line first, closed by the same fence (or "..." for YAML).
  {
    let s = 0;
    if (text.charCodeAt(0) === 0xfeff) s = 1;
    const fence = text.slice(s, s + 3);
    if ((fence === "---" || fence === "+++") && /^[ \t]*\r?\n/.test(text.slice(s + 3, s + 8))) {
      let p = text.indexOf("\n", s) + 1;
      while (p > 0 && p < Math.min(n, FRONT_MATTER_CHARS)) {
        const e = text.indexOf("\n", p);
        const lineEnd = e < 0 ? n : e;
        const line = text.slice(p, Math.min(lineEnd, p + 8)).trimEnd();
        if (line === fence || (fence === "---" && line === "...")) {
          push(0, lineEnd);
          i = lineEnd;
          break;
        }
        if (e < 0) break;
        p = e + 1;
      }
    }
  }
  let inFence = false;
  let inRefs = false;
  let inTable = false;
  let refEntry = false; // inside a multi-line reference entry (until a blank line)
  let prevStart = -1;
  let prevEnd = -1;
  let prevBlank = true;
  let prevProse = false;
  // The first block (up to the first blank line): a paper's title and metadata lines, when it has any.
  let firstBlock = true;
  let firstLine: Range | null = null;
  while (i < n) {
    if (entryAt >= 0 && i >= entryAt) {
      // The BibTeX entry a paper's content ends with, as written.
      push(entryAt, n);
      break;
    }
    let e = text.indexOf("\n", i);
    if (e < 0 || e > n) e = n;
    const start = i;
    const raw = text.slice(i, Math.min(e, i + LINE_CHECK_CHARS));
    const line = raw.trim();
    i = e + 1;
    if (line === "") {
      if (!prevBlank) firstBlock = false;
      prevBlank = true;
      prevProse = false;
      refEntry = false;
      inTable = false;
      if (inFence) push(start, e, "data");
      continue;
    }
    if (firstBlock && !inFence && RE_META.test(raw)) {
      // A metadata line: it and the title line right above it (the block's first line) are structure.
      if (firstLine && firstLine.start === prevStart) push(firstLine.start, firstLine.end);
      firstLine = null;
      push(start, e);
      prevStart = start;
      prevEnd = e;
      prevBlank = false;
      prevProse = false;
      continue;
    }
    if (firstBlock && firstLine === null && prevBlank) firstLine = { start, end: e };
    const label = RE_PROSE_LABEL.exec(raw);
    if (label && !inFence) push(start, start + label[0].length);
    let np = false;
    let kind: NonProse["kind"] = "structure";
    if (inFence) {
      np = true;
      kind = "data";
      if (RE_FENCE.test(line)) inFence = false;
    } else if (RE_FENCE.test(line)) {
      np = true;
      kind = "data";
      inFence = true;
    } else if (RE_HEADING.test(line)) {
      np = true;
      inRefs = RE_REF_SECTION.test(line);
      refEntry = false;
    } else if (RE_SETEXT.test(line) && !prevBlank && prevProse) {
      // "Title\n=====": the previous line was a heading.
      np = true;
      push(prevStart, prevEnd);
    } else if (RE_RULE.test(line)) {
      np = true;
    } else if (RE_REF_SECTION.test(line)) {
      np = true;
      inRefs = true;
    } else if (inRefs && RE_SECTION_AFTER_REFS.test(line)) {
      inRefs = false;
    } else if (inRefs) {
      np = true;
      kind = "data";
    } else if (RE_TABLE_SEP.test(line) && line.includes("|")) {
      // The header row above belongs to the table too.
      np = true;
      kind = "data";
      inTable = true;
      if (!prevBlank) push(prevStart, prevEnd, "data");
    } else if (line.charCodeAt(0) === 124 /* | */ && line.indexOf("|", 1) > 0) {
      np = true;
      kind = "data";
    } else if (inTable && line.includes("|")) {
      np = true;
      kind = "data";
    } else if (isReferenceEntry(line)) {
      np = true;
      kind = "data";
      refEntry = true;
    } else if (refEntry) {
      // Continuation of a wrapped reference entry.
      np = true;
      kind = "data";
    } else {
      const bullet = RE_BULLET.exec(line);
      if (linkOnly(bullet ? line.slice(bullet[0].length) : line)) np = true;
    }
    if (np) push(start, e, kind);
    prevStart = start;
    prevEnd = e;
    prevBlank = false;
    prevProse = !np;
  }
  return out;
}

export interface ClauseCut {
  /** The prefix text.slice(0, end) ends on a clause boundary (end excludes the punctuation). */
  end: number;
  /** Words in that prefix. */
  words: number;
  /** The prefix ends a sentence (its last character is . ! or ?). */
  sentence: boolean;
}

export interface ClauseScan {
  cuts: ClauseCut[];
  words: number;
  /** No parenthesis, bracket, brace or double quote is left open at the end. */
  balanced: boolean;
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0;
}

function isWordChar(c: number): boolean {
  // ASCII letters and digits, and every non-ASCII character except spaces and the dashes and quotes
  // handled below (a word of CJK or accented letters counts).
  return (
    (c >= 48 && c <= 57) ||
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    (c >= 0xc0 && c !== 0x2013 && c !== 0x2014 && c !== 0x201c && c !== 0x201d && c !== 0xab && c !== 0xbb)
  );
}

/**
 * Clause boundaries of a one-line sentence `s` (whitespace already collapsed). Openers ( [ { and
 * double quotes (" “ « ») must close before a boundary counts; an unmatched closer is ignored (list
 * markers like "a)" have none).
 */
export function clauseCuts(s: string): ClauseScan {
  const cuts: ClauseCut[] = [];
  const n = s.length;
  let depth = 0;
  let straight = false; // inside "..."
  let curly = 0; // inside “...” or «...»
  let words = 0;
  let inWord = false;
  let wordHasChar = false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      if (inWord && wordHasChar) words++;
      inWord = false;
      wordHasChar = false;
    } else {
      inWord = true;
      if (isWordChar(c)) wordHasChar = true;
    }
    if (c === 40 || c === 91 || c === 123) depth++;
    else if ((c === 41 || c === 93 || c === 125) && depth > 0) depth--;
    else if (c === 34) straight = !straight;
    else if (c === 0x201c || c === 0xab) curly++;
    else if ((c === 0x201d || c === 0xbb) && curly > 0) curly--;
    if (depth > 0 || straight || curly > 0) continue;
    const next = i + 1 < n ? s.charCodeAt(i + 1) : 32;
    const wordsHere = words + (inWord && wordHasChar ? 1 : 0);
    if ((c === 44 || c === 59 || c === 58) && isSpace(next)) {
      // Not right after an abbreviation ("i.e.,", "et al.,"): the clause goes on.
      if (s.charCodeAt(i - 1) !== 46) cuts.push({ end: i, words: wordsHere, sentence: false });
    } else if ((c === 46 || c === 33 || c === 63) && isSpace(next) && i + 1 < n) {
      // An inner sentence end the segmenter kept (it also ends a clause). Abbreviations look the same
      // ("e.g. the"), so only before a capital or a digit.
      const after = s.charCodeAt(i + 2);
      const capitalOrDigit = (after >= 65 && after <= 90) || (after >= 48 && after <= 57);
      if (capitalOrDigit && !(c === 46 && isAbbreviation(s, i))) {
        cuts.push({ end: i + 1, words: wordsHere, sentence: true });
      }
    } else if (
      isSpace(c) &&
      (next === 0x2014 || next === 0x2013 || (next === 45 && s.charCodeAt(i + 2) === 45)) &&
      i > 0 &&
      !isSpace(s.charCodeAt(i - 1))
    ) {
      const dashEnd = next === 45 ? i + 3 : i + 2;
      if (dashEnd < n && isSpace(s.charCodeAt(dashEnd))) cuts.push({ end: i, words: wordsHere, sentence: false });
    }
  }
  if (inWord && wordHasChar) words++;
  return { cuts, words, balanced: depth === 0 && !straight && curly === 0 };
}

/** Words in `s` (whitespace-separated runs with at least one letter or digit). */
export function countWords(s: string): number {
  let words = 0;
  let inWord = false;
  let has = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      if (inWord && has) words++;
      inWord = false;
      has = false;
    } else {
      inWord = true;
      if (isWordChar(c)) has = true;
    }
  }
  return inWord && has ? words + 1 : words;
}
