/**
 * Grounding at ingest (DESIGN promise 2 for plain text): a deterministic analyser finds the names a
 * version's content mentions (runs of capitalised words, with title-case joiners: "Shirley Temple",
 * "University of Chicago", "Kiss and Tell" is two names) and maps each to a canonical `concept:`
 * entity whose id is the slug of the name. A chunk's title is the name of the chunk itself: the
 * chunk owns the concept of its title (without a trailing parenthetical, so "Doctor Strange (2016
 * film)" owns `concept:doctor-strange`). Because ids are slugs, a passage naming a title links to
 * the titled chunk whichever of the two was stored first, with no lookup at ingest.
 *
 * One pass over the words (a linear-time word regex), plus one over the runs: linear in the text.
 */
import { normAlias, slug } from "../ids";
import { STOPWORDS } from "./analyze";

/** Distinct names grounded per version (first occurrences win): bounds postings per head. */
export const MAX_GROUNDED_PER_VERSION = 48;
/** Spans kept per grounded name (the first occurrences), as provenance of the grounding. */
export const MAX_SPANS_PER_NAME = 3;
/** A title of more than this many words is a sentence, not a name, and owns no concept. */
export const MAX_TITLE_WORDS = 12;
/** Longest name run kept (longer runs are headline-cased text, not names). */
const MAX_RUN_WORDS = 8;

const WORD = /[\p{L}\p{N}]+(?:['\u2019.-][\p{L}\p{N}]+)*/gu;
const UPPER_START = /^\p{Lu}/u;
const HAS_LETTER = /\p{L}/u;
const POSSESSIVE = /['\u2019]s$/iu;
/** Lowercase words that may sit inside a name when a capitalised word follows. */
const JOINERS: ReadonlySet<string> = new Set([
  "of",
  "the",
  "and",
  "de",
  "del",
  "della",
  "di",
  "da",
  "von",
  "van",
  "der",
  "la",
  "le",
  "du",
  "y",
  "for",
  "upon",
]);
/** Capitalised words that are not names on their own (calendar words, honorifics, sentence openers). */
const NOT_NAMES: ReadonlySet<string> = new Set(
  (
    "january february march april may june july august september october november december " +
    "monday tuesday wednesday thursday friday saturday sunday mr mrs ms dr prof sir st yes no ok okay oh hey hi " +
    "hello thanks thank however although though after before during while since when despite following according " +
    "also yet still even just well today yesterday tomorrow there here this that these those it its"
  ).split(" "),
);

export interface NameMention {
  /** The surface form as written (possessive 's removed). */
  text: string;
  /** normAlias of the surface form. */
  norm: string;
  start: number;
  end: number;
}

export interface GroundedEntity {
  id: string;
  name: string;
  spans: Array<[number, number]>;
}

/** `concept:<slug>` for a name, or null when nothing of it survives normalisation. */
export function conceptId(name: string): string | null {
  const s = slug(name);
  return s ? `concept:${s}` : null;
}

/** The title without a trailing parenthetical disambiguator: "Doctor Strange (2016 film)" -> "Doctor Strange". */
export function titleName(title: string): string {
  const t = title.trim();
  if (t.endsWith(")")) {
    const open = t.lastIndexOf("(");
    if (open > 0) return t.slice(0, open).trim();
  }
  return t;
}

/** The concept a chunk's title names (null for titles that are sentences or empty). */
export function titleConcept(title: string): string | null {
  const name = titleName(title);
  const words = normAlias(name).split(" ").filter(Boolean);
  if (words.length === 0 || words.length > MAX_TITLE_WORDS) return null;
  if (words.length === 1 && (STOPWORDS.has(words[0] as string) || !HAS_LETTER.test(words[0] as string))) return null;
  return conceptId(name);
}

function sentenceStart(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0 && i >= at - 8; i--) {
    const c = text[i] as string;
    if (c === " " || c === "\t" || c === '"' || c === "'" || c === "(" || c === "\u201c") continue;
    return c === "." || c === "!" || c === "?" || c === "\n" || c === ":";
  }
  return true;
}

/**
 * Names in a text: maximal runs of capitalised words (at most one or two joiners between them),
 * broken by punctuation. The first word of a sentence is dropped when it is a function word or an
 * opener ("The", "However"); a single-word name at a sentence start is kept only if the same word
 * is also capitalised mid-sentence somewhere in the text (so "Born in ..." grounds nothing).
 */
export function findNames(text: string): NameMention[] {
  type Word = { w: string; start: number; end: number; cap: boolean; initial: boolean; idx: number };
  const words: Word[] = [];
  const midCaps = new Set<string>();
  for (const m of text.matchAll(WORD)) {
    const start = m.index ?? 0;
    let w = m[0];
    if (POSSESSIVE.test(w)) w = w.slice(0, -2);
    const cap = UPPER_START.test(w) && HAS_LETTER.test(w);
    const initial = sentenceStart(text, start);
    if (cap && !initial) midCaps.add(w.toLowerCase());
    words.push({ w, start, end: start + w.length, cap, initial, idx: words.length });
  }
  const out: NameMention[] = [];
  const emit = (from: number, to: number) => {
    let a = from;
    const first = words[a];
    if (!first) return;
    const lw0 = first.w.toLowerCase();
    // A sentence opener is not part of the name: "The ...", "However ...", and "Members of Congress"
    // (an initial word never capitalised mid-sentence, followed by a joiner other than "and").
    if (first.initial && (STOPWORDS.has(lw0) || NOT_NAMES.has(lw0))) a++;
    else if (first.initial && !midCaps.has(lw0) && a < to && !(words[a + 1] as Word).cap && (words[a + 1] as Word).w !== "and")
      a++;
    // Joiners never start or end a name; nor do calendar words ("University of Chicago in May").
    while (a <= to && !(words[a] as Word).cap) a++;
    let b = to;
    while (b >= a && (!(words[b] as Word).cap || NOT_NAMES.has((words[b] as Word).w.toLowerCase()))) b--;
    if (b < a || b - a + 1 > MAX_RUN_WORDS) return;
    const wa = words[a] as Word;
    const wb = words[b] as Word;
    if (a === b) {
      const lw = wa.w.toLowerCase();
      if (STOPWORDS.has(lw) || NOT_NAMES.has(lw) || wa.w.length < 2) return;
      if (wa.initial && !midCaps.has(lw)) return;
    }
    const surface = text.slice(wa.start, wb.end);
    const norm = normAlias(surface);
    if (norm) out.push({ text: surface, norm, start: wa.start, end: wb.end });
  };
  let i = 0;
  while (i < words.length) {
    const first = words[i] as Word;
    if (!first.cap) {
      i++;
      continue;
    }
    // Extend the run: capitalised words, or 1-2 joiners followed by a capitalised word, no break.
    let j = i;
    while (j + 1 < words.length) {
      const gap = text.slice((words[j] as Word).end, (words[j + 1] as Word).start);
      if (gap.length > 3 || /[^\s'\u2019-]/u.test(gap)) break;
      const next = words[j + 1] as Word;
      if (next.cap && !next.initial) {
        j++;
        continue;
      }
      let k = j + 1;
      let joins = 0;
      while (k < words.length && joins < 2 && JOINERS.has((words[k] as Word).w)) {
        const g = text.slice((words[k - 1] as Word).end, (words[k] as Word).start);
        if (/[^\s]/u.test(g)) break;
        k++;
        joins++;
      }
      const after = words[k];
      if (joins > 0 && after?.cap && !after.initial && /^\s+$/u.test(text.slice((words[k - 1] as Word).end, after.start))) {
        j = k;
        continue;
      }
      break;
    }
    i = j + 1;
    // The whole run ("Kiss and Tell"), and when "and" joins it, each side ("Scott Derrickson",
    // "Ed Wood"): which one names something is decided by the archive, not here.
    emit(first.idx, j);
    let segStart = first.idx;
    let split = false;
    for (let k = first.idx; k <= j; k++) {
      if ((words[k] as Word).w === "and") {
        emit(segStart, k - 1);
        segStart = k + 1;
        split = true;
      }
    }
    if (split) emit(segStart, j);
  }
  return out;
}

/**
 * The concepts a version's content grounds to, first occurrence first, at most
 * MAX_GROUNDED_PER_VERSION, each with up to MAX_SPANS_PER_NAME exact spans of the content.
 * Extra names (e.g. relation arguments an OpenIE tool extracted) are grounded too, without spans
 * unless they occur verbatim.
 */
export function groundContent(content: string, extraNames: string[] = []): GroundedEntity[] {
  const byId = new Map<string, GroundedEntity>();
  for (const m of findNames(content)) {
    const id = conceptId(m.text);
    if (!id) continue;
    const cur = byId.get(id);
    if (cur) {
      if (cur.spans.length < MAX_SPANS_PER_NAME) cur.spans.push([m.start, m.end]);
    } else if (byId.size < MAX_GROUNDED_PER_VERSION) byId.set(id, { id, name: m.text, spans: [[m.start, m.end]] });
  }
  for (const name of extraNames) {
    const id = conceptId(name);
    if (!id || byId.has(id) || byId.size >= MAX_GROUNDED_PER_VERSION) continue;
    const at = content.indexOf(name);
    byId.set(id, { id, name, spans: at >= 0 ? [[at, at + name.length]] : [] });
  }
  return [...byId.values()];
}
