/**
 * Bibliography entries (one reference string, as found in a Markdown "References" section, a unarXive
 * `bib_entry_raw` or an xKG `paper_references` list) -> identifiers and a best-guess title. Shared by
 * markdown.ts, fulltext.ts and xkg.ts.
 */
import { findIdentifiers } from "../ids";
import { clip, LIMITS, oneLine } from "./common";

export interface ParsedReference {
  /** Canonical paper ids found in the entry (DOI, arXiv, OpenAlex), in order of appearance. */
  ids: string[];
  /** Best guess at the cited work's title, or null. */
  title: string | null;
  /** The entry with markup removed, one line. */
  text: string;
}

/** Markdown/LaTeX/list noise around a reference: list markers, [12], 12., emphasis, links, ``quotes'', ~. */
function cleanReference(raw: string): string {
  return oneLine(
    raw
      .replace(/^\s*(?:[-*+]|\d+[.)]|\[\d+\])\s+/, "")
      .replace(/!?\[([^\]]{0,500})\]\(([^)\s]{0,500})\)/g, "$1 $2")
      .replace(/``|''/g, '"')
      .replace(/(\*\*|__|\*|`)/g, "")
      .replace(/(^|\s)_([^_]{1,500})_(?=\s|[.,;:]|$)/g, "$1$2")
      .replace(/~/g, " "),
  );
}

// Initials ("J", "S.-S", "Q.H") and abbreviations after which a period does not end a segment.
const INITIAL = /^(?:\p{Lu}[.-]*){1,4}$/u;
const ABBREV = /^(?:al|et|eds?|vol|no|pp|proc|conf|jr|sr|st|dr|inc|univ|dept|int|intl|trans|rev|phys|lett)$/i;
/** "Lubliner, J. Plasticity Theory." puts initials after the surname, so an initial can end the authors. */
const SURNAME_FIRST = /^\p{Lu}[\p{L}'’-]+(?:\s\p{L}[\p{L}'’-]+)?,\s+\p{Lu}\./u;
/** What may follow an initial inside an author list: another initial, "and", "&", "et al", "(2020)". */
const AUTHOR_CONTINUES = /^\s(?:\p{Lu}[.-]|and\b|&|et\b|\()/u;

/** Split a reference into period-terminated segments, not splitting after initials or abbreviations. */
function segments(s: string): string[] {
  const out: string[] = [];
  const surnameFirst = SURNAME_FIRST.test(s);
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== "." && c !== "?" && c !== "!") continue;
    const next = s[i + 1];
    if (next !== undefined && next !== " ") continue;
    if (c === ".") {
      // The word before the period, scanned back to a space (linear; a regex over s.slice(start, i)
      // re-read every initial of "A. A. A. …" at each period).
      let w = i;
      while (w > start && !/\s/.test(s[w - 1] as string)) w--;
      const word = s.slice(w, i);
      if (INITIAL.test(word)) {
        if (!surnameFirst || AUTHOR_CONTINUES.test(s.slice(i + 1, i + 6))) continue;
      } else if (ABBREV.test(word)) continue;
    }
    // Keep ? and ! with the title they end ("Can agents reproduce papers?"); drop the period.
    const seg = s.slice(start, c === "." ? i : i + 1).trim();
    if (seg) out.push(seg);
    start = i + 1;
  }
  const rest = s.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

const MAX_TITLE_SCAN = 600;
/** Physics-style author lists are matched in the first characters only (they open the entry). */
const AUTHORS_SCAN = 400;

const YEAR_SEG = /^\(?[12]\d{3}[a-z]?\)?[.,:]?$/;
const ENDS_WITH_YEAR = /\(([12]\d{3})[a-z]?\)$/;

/** The segment as a title (trimmed), or null when it reads like a venue, a locator or too little. */
export function plausibleTitle(s: string | undefined): string | null {
  if (!s) return null;
  // A title is short; longer segments are not titles, and are never scanned by the regexes below.
  if (s.length > MAX_TITLE_SCAN) return null;
  const t = s.replace(/^[\s,;:]+|[\s,;:]+$/g, "");
  // At least two words and 10 characters; venue/locator segments are not titles.
  if (t.length < 10 || !/\p{L}{3,}.*\s.*\p{L}{3,}/u.test(t)) return null;
  if (/^(in\s|arxiv|doi|https?:|available|retrieved|proceedings|preprint|pages?\s|pp\s)/i.test(t)) return null;
  // Locators, not titles: "vol. 62", "19 (2021)", "1(8):9", "PhD thesis", "in preparation", "Journal 120, 8186".
  if (
    /\b(vol|no|pp|pages)\b\.?\s*\d|\d\s*\(\d{4}\)|\d\(\d+\)|:\d|\bthesis\b|in preparation|\bblog\b|\bMR \d/i.test(t) ||
    /\s\d+,\s*\S*\d$/.test(t)
  )
    return null;
  return t;
}

// Physics/maths comma style: "A. B. Author, C. Author, and D. Author, Title, Venue 12, 345 (2019)."
const AUTHOR = String.raw`(?:\p{Lu}[.\-]+\s?)+(?:\p{Ll}+\s)?\p{Lu}[\p{L}'’-]+(?:\s\p{Lu}[\p{L}'’-]+)?`;
const COMMA_AUTHORS = new RegExp(String.raw`^(?:${AUTHOR}(?:,\s(?:and\s)?|\sand\s))*${AUTHOR}(?:\set al\.)?,\s`, "u");
const COMMA_TITLE_END = /,\s(?:in\s)|\s\(\d{4}[a-z]?\)|,\s(?=[^,]*\s\d+,\s\d)/;

/** Commas, "and", "&", "et al", or at most 6 words: how an author list reads. */
export function looksLikeAuthors(s: string): boolean {
  return /,|\band\b|&|et al/.test(s) || s.split(" ").length <= 6;
}

/**
 * Parse one bibliography entry. Identifiers come from findIdentifiers (DOI, arXiv, OpenAlex, in any
 * written form). The title is guessed, in this order:
 * 1. a quoted title: `A. Author, "Title of the work," Venue, 2020` (IEEE style, straight or curly quotes);
 * 2. author-year styles: the segment after the year, `Authors. 2020. Title. Venue.` (ACL) or
 *    `Authors (2020). Title. Venue.` (APA);
 * 3. `Authors. Title. Venue, 2020.` (most others): the second period-separated segment when the first
 *    looks like an author list (commas, "and", "et al.", or at most 6 words);
 * 4. physics/maths comma style `A. B. Author and C. Author, Title, Venue 12, 345 (2019).`: the text
 *    after an initials-first author list, up to ", in", " (2019)" or ", Venue 12, 345";
 * where segments split at a period + space that does not follow an initial ("Q. H. Nguyen") or a
 * common abbreviation ("et al.", "Proc."), and a title must have at least two words and 10 characters
 * and must not start like a venue or locator ("In ", "arXiv", "doi", "pp"). Otherwise null.
 */
export function parseReference(raw: string): ParsedReference {
  const text = cleanReference(raw);
  const ids = findIdentifiers(text).map((x) => x.id);
  const quoted = /["“”]([^"“”]{8,600}?)[,.]?["“”]/.exec(text)?.[1];
  let title = plausibleTitle(quoted);
  if (!title) {
    const segs = segments(text);
    const yearAt = segs.findIndex((x) => YEAR_SEG.test(x));
    if (yearAt >= 1 && yearAt <= 2) title = plausibleTitle(segs[yearAt + 1]);
    else if (segs[0] && ENDS_WITH_YEAR.test(segs[0])) title = plausibleTitle(segs[1]);
    else if (segs[0] && segs.length >= 2 && looksLikeAuthors(segs[0])) title = plausibleTitle(segs[1]);
  }
  if (!title) {
    const authors = COMMA_AUTHORS.exec(text.slice(0, AUTHORS_SCAN));
    if (authors) title = plausibleTitle(text.slice(authors[0].length).split(COMMA_TITLE_END)[0]?.replace(/\.$/, ""));
  }
  return { ids, title: title ? clip(title, LIMITS.title) : null, text };
}
