/**
 * Grounding at ingest (every textual mention resolves to a canonical entity, for plain text too): a
 * deterministic analyser finds the names a version's content mentions (runs of capitalised words,
 * with title-case joiners: "Shirley Temple", "University of Chicago", "Kiss and Tell" is two
 * names) and maps each to a canonical `concept:`
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
/** Longest name kept, in characters. */
const MAX_NAME_CHARS = 120;
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
  // Words as parallel number arrays (no object per word: a 2 MiB text has ~400k words).
  const ws: number[] = [];
  const we: number[] = [];
  const cap: boolean[] = [];
  const initial: boolean[] = [];
  const midCaps = new Set<string>();
  for (const m of text.matchAll(WORD)) {
    const start = m.index ?? 0;
    let len = m[0].length;
    if (len > 2 && POSSESSIVE.test(m[0].slice(-2))) len -= 2;
    const w = m[0].slice(0, len);
    const c = len <= MAX_NAME_CHARS && UPPER_START.test(w) && HAS_LETTER.test(w);
    const ini = sentenceStart(text, start);
    if (c && !ini) midCaps.add(w.toLowerCase());
    ws.push(start);
    we.push(start + len);
    cap.push(c);
    initial.push(ini);
  }
  const word = (k: number) => text.slice(ws[k] as number, we[k] as number);
  const gapOf = (k: number) => text.slice(we[k] as number, ws[k + 1] as number);
  const out: NameMention[] = [];
  const emit = (from: number, to: number) => {
    let a = from;
    if (a >= ws.length) return;
    const lw0 = word(a).toLowerCase();
    // A sentence opener is not part of the name: "The ...", "However ...", and "Members of Congress"
    // (an initial word never capitalised mid-sentence, followed by a joiner other than "and").
    if (initial[a] && (STOPWORDS.has(lw0) || NOT_NAMES.has(lw0))) a++;
    else if (initial[a] && !midCaps.has(lw0) && a < to && !cap[a + 1] && word(a + 1) !== "and") a++;
    // Joiners never start or end a name; nor do calendar words ("University of Chicago in May").
    while (a <= to && !cap[a]) a++;
    let b = to;
    while (b >= a && (!cap[b] || NOT_NAMES.has(word(b).toLowerCase()))) b--;
    if (b < a || b - a + 1 > MAX_RUN_WORDS) return;
    // No name is longer than this; longer runs are tokens glued by punctuation ("A.B.C.…").
    if ((we[b] as number) - (ws[a] as number) > MAX_NAME_CHARS) return;
    if (a === b) {
      const lw = word(a).toLowerCase();
      if (STOPWORDS.has(lw) || NOT_NAMES.has(lw) || lw.length < 2) return;
      // A sentence-initial word is a name when it is capitalised mid-sentence elsewhere, or when it
      // labels what follows ("Caroline: I went ..."), as speaker turns and transcripts do.
      if (initial[a] && !midCaps.has(lw) && text[we[a] as number] !== ":") return;
    }
    const surface = text.slice(ws[a] as number, we[b] as number);
    const norm = normAlias(surface);
    if (norm) out.push({ text: surface, norm, start: ws[a] as number, end: we[b] as number });
  };
  let i = 0;
  while (i < ws.length) {
    if (!cap[i]) {
      i++;
      continue;
    }
    // Extend the run: capitalised words, or 1-2 joiners followed by a capitalised word, no break.
    let j = i;
    while (j + 1 < ws.length) {
      const gap = gapOf(j);
      if (gap.length > 3 || /[^\s'\u2019-]/u.test(gap)) break;
      if (cap[j + 1] && !initial[j + 1]) {
        j++;
        continue;
      }
      let k = j + 1;
      let joins = 0;
      while (k < ws.length && joins < 2 && JOINERS.has(word(k))) {
        if (/[^\s]/u.test(gapOf(k - 1))) break;
        k++;
        joins++;
      }
      if (joins > 0 && k < ws.length && cap[k] && !initial[k] && /^\s+$/u.test(gapOf(k - 1))) {
        j = k;
        continue;
      }
      break;
    }
    const first = i;
    i = j + 1;
    // The whole run ("Kiss and Tell"), and when "and" joins it, each side ("Scott Derrickson",
    // "Ed Wood"): which one names something is decided by the archive, not here.
    emit(first, j);
    let segStart = first;
    let split = false;
    for (let k = first; k <= j; k++) {
      if (word(k) === "and") {
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
 * (Relation arguments are declared entities already, so they need no grounding here.)
 */
export function groundContent(content: string, title = ""): GroundedEntity[] {
  const byId = new Map<string, GroundedEntity>();
  // Names in the title ("Caroline, 8 May 2023" names Caroline) belong to the chunk too; a title is
  // short and cased on purpose, so its first word counts like any other. They carry no content span.
  for (const m of findNames(`, ${title}`)) {
    const id = conceptId(m.text);
    if (id && !byId.has(id) && byId.size < MAX_GROUNDED_PER_VERSION) byId.set(id, { id, name: m.text, spans: [] });
  }
  for (const m of findNames(content)) {
    const id = conceptId(m.text);
    if (!id) continue;
    const cur = byId.get(id);
    if (cur) {
      if (cur.spans.length < MAX_SPANS_PER_NAME) cur.spans.push([m.start, m.end]);
    } else if (byId.size < MAX_GROUNDED_PER_VERSION) byId.set(id, { id, name: m.text, spans: [[m.start, m.end]] });
  }
  return [...byId.values()];
}
