/**
 * The structure a PDF's sections carry beyond their text (Paper Circle, seed 004 §3.4), pure:
 * - section numbers: "2.5 Scoring" is numbered 2.5 and is `part-of` the nearest earlier section
 *   numbered 2 (sectionNumber, parentNumber);
 * - display equations: a line ending in an equation number "(n)" whose text before it has a
 *   relation or operator sign (= < > + ≤ ≥ ≈ ∑ ∫ …), at most 200 characters, not ending in a period
 *   (displayEquation);
 * - the References section: split into entries at "[n]" markers (two or more), else at "n." markers
 *   numbered 1, 2, 3… in order, else at paragraph breaks (splitReferences); each entry parsed by
 *   parseReference (identifiers, a guessed title);
 * - passages: a section's paragraphs grouped up to PASSAGE_CHARS (1,500) characters, as the
 *   SemanticChunker groups them; a paragraph longer than that is cut at sentence ends, and a sentence
 *   longer than that at a space (passages). Each passage is the exact text [start, end) of the
 *   section's content, so its page marks follow from the section's.
 */
import { type ParsedReference, parseReference } from "./references";

/** A page mark as pdf.ts writes them: the page whose text starts at `offset` of the content. */
export interface PageMark {
  page: number;
  offset: number;
}

export const PASSAGE_CHARS = 1500;
/** Reference entries read from one References section. */
export const MAX_PDF_REFERENCES = 500;

const SECTION_NUMBER = /^(\d{1,3}(?:\.\d{1,3}){0,3})\.?\s+\S/;

/** "2.5" of "2.5 Scoring", "3" of "3. Results"; null for unnumbered headings. */
export function sectionNumber(heading: string): string | null {
  return SECTION_NUMBER.exec(heading)?.[1] ?? null;
}

/** "2" of "2.5", "2.5" of "2.5.1"; null for a top-level number. */
export function parentNumber(n: string): string | null {
  const i = n.lastIndexOf(".");
  return i > 0 ? n.slice(0, i) : null;
}

const EQUATION = /^(.{3,200}?)\s*\((\d{1,3}[a-z]?)\)$/;
const MATH = /[=<>+≤≥≈≠∝∑∏∫√±×·∂∇∈→←↦]|\\[a-z]+/;

/** A display equation line: its text without the number, and the number; null for anything else. */
export function displayEquation(line: string): { text: string; label: string } | null {
  const m = EQUATION.exec(line.trim());
  if (!m?.[1] || !m[2]) return null;
  const body = m[1].trim();
  if (!MATH.test(body) || /\.$/.test(body)) return null;
  // Prose with a parenthesised number ("as in Smith et al. (2020)") has many long words.
  const words = body.split(/\s+/).filter((w) => /^[A-Za-z]{4,}$/.test(w)).length;
  if (words > 6) return null;
  return { text: body, label: m[2] };
}

export const REFERENCES_HEADING = /^(\d{1,2}\.?\s+)?(references|bibliography|works cited)$/i;

/** The entries of a References section's text (see the module comment), at most MAX_PDF_REFERENCES. */
export function splitReferences(text: string): string[] {
  const bracket = [...text.matchAll(/(?:^|\s)\[(\d{1,3})\]\s/g)];
  let entries: string[];
  if (bracket.length >= 2) entries = cutAt(text, bracket);
  else {
    // "1. A. Author …", "2. …": markers counted 1, 2, 3 in order.
    const numbered: RegExpMatchArray[] = [];
    for (const m of text.matchAll(/(?:^|\s)(\d{1,3})\.\s+(?=\p{Lu})/gu))
      if (Number(m[1]) === numbered.length + 1) numbered.push(m);
    entries = numbered.length >= 2 ? cutAt(text, numbered) : text.split(/\n\s*\n/);
  }
  return entries
    .map((e) => e.replace(/\s+/g, " ").trim())
    .filter((e) => e.length >= 10)
    .slice(0, MAX_PDF_REFERENCES);
}

function cutAt(text: string, marks: RegExpMatchArray[]): string[] {
  const out: string[] = [];
  for (const [i, m] of marks.entries()) {
    const start = (m.index ?? 0) + m[0].length;
    const end = marks[i + 1]?.index ?? text.length;
    out.push(text.slice(start, end));
  }
  return out;
}

export interface PdfReference extends ParsedReference {
  /** 1-based position in the References section. */
  n: number;
}

export function parseReferences(text: string): PdfReference[] {
  return splitReferences(text).map((raw, i) => ({ ...parseReference(raw), n: i + 1 }));
}

export interface Passage {
  start: number;
  end: number;
  text: string;
  /** The page marks of the passage's own text (offsets from its start). */
  marks: PageMark[];
}

/** Sentence ends: a period, ? or ! followed by a space and a capital or a digit. */
function sentenceCuts(s: string, from: number, to: number): number[] {
  const cuts: number[] = [];
  const re = /[.?!]\s+(?=[\p{Lu}\d])/gu;
  re.lastIndex = from;
  for (let m = re.exec(s); m && m.index < to; m = re.exec(s)) cuts.push(m.index + 1);
  return cuts;
}

/**
 * The passages of a section's content, up to `max` characters each, covering every paragraph;
 * none when the content fits in one.
 */
export function passages(content: string, marks: readonly PageMark[], max = PASSAGE_CHARS): Passage[] {
  if (content.length <= max) return [];
  // Pieces: paragraphs, and within a long one its sentences (a long sentence cut at spaces).
  const pieces: Array<[number, number]> = [];
  const paraRe = /\n\s*\n/g;
  let at = 0;
  const addParagraph = (s: number, e: number) => {
    if (e - s <= max) {
      pieces.push([s, e]);
      return;
    }
    let cur = s;
    for (const c of [...sentenceCuts(content, s, e), e]) {
      while (c - cur > max) {
        const sp = content.lastIndexOf(" ", cur + max);
        const cut = sp > cur ? sp : cur + max;
        pieces.push([cur, cut]);
        cur = cut;
      }
      if (c > cur) {
        pieces.push([cur, c]);
        cur = c;
      }
    }
  };
  for (let m = paraRe.exec(content); m; m = paraRe.exec(content)) {
    addParagraph(at, m.index);
    at = m.index + m[0].length;
  }
  addParagraph(at, content.length);
  // Greedy grouping: pieces join while the passage (trimmed) stays within max.
  const out: Passage[] = [];
  let s = -1;
  let e = -1;
  const flush = () => {
    if (s < 0) return;
    let a = s;
    let b = e;
    while (a < b && /\s/.test(content[a] as string)) a++;
    while (b > a && /\s/.test(content[b - 1] as string)) b--;
    if (b > a) out.push({ start: a, end: b, text: content.slice(a, b), marks: marksWithin(marks, a, b) });
    s = -1;
  };
  for (const [ps, pe] of pieces) {
    if (s >= 0 && pe - s > max) flush();
    if (s < 0) s = ps;
    e = pe;
  }
  flush();
  return out;
}

/** Page marks of content[start, end), relative to start: the page at start, then every later mark inside. */
export function marksWithin(marks: readonly PageMark[], start: number, end: number): PageMark[] {
  // The page of the character at start (marks are sorted by offset), as pdf.ts pageAt reads it.
  let first: number | null = null;
  for (const m of marks) {
    if (m.offset > start) break;
    first = m.page;
  }
  first ??= marks[0]?.page ?? null;
  const out: PageMark[] = first === null ? [] : [{ page: first, offset: 0 }];
  for (const m of marks)
    if (m.offset > start && m.offset < end && out[out.length - 1]?.page !== m.page)
      out.push({ page: m.page, offset: m.offset - start });
  return out;
}
