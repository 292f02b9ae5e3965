/**
 * Deterministic mention analysis for queries (routing step 1): identifier regexes (DOI, arXiv,
 * OpenAlex) give canonical ids directly; everything else becomes normalised candidate strings
 * that the capital chunk looks up in its alias table (an exact hash lookup per candidate).
 */
import { findIdentifiers, normAlias } from "../ids";
import { STOPWORDS } from "./analyze";

/**
 * At most 256 candidates per query: each costs one alias-table lookup in the capital chunk, so
 * routing cost stays bounded whatever the query length (1..6-grams over a 40-word query are already
 * 225 strings). When a query has more, the longest n-grams are dropped first, never single words or
 * capitalised names, because a long query is still about its names.
 */
export const MAX_CANDIDATES = 256;
/** Longest word n-gram tried: entity names longer than 6 words ("From RAG to Memory: ...") are rare. */
export const MAX_NGRAM = 6;

// A raw-query word: a maximal run of letters, digits, and inner hyphens/dots/apostrophes.
const RAW_WORD = /[\p{L}\p{N}]+(?:[-'.\u2019][\p{L}\p{N}]+)*/gu;
const HAS_UPPER = /\p{Lu}/u;
const VERSION_LIKE = /^v?\d+(?:\.\d+)*$/i;
const TRAILING_VERSION = /^(\p{L}[\p{L}\p{N}]*?\p{L})(v\d+)$/u;
const LETTERS_DIGITS = /^(\p{L}{2,})(\d+)$/u;
const RUN_BREAK = /[.,;:!?()[\]{}"]/;
const SEGMENT_BREAK = /\|/;

function isStop(w: string): boolean {
  return STOPWORDS.has(w);
}

/**
 * Lowercase function words that title case keeps inside a name ("Bag of Words", "From RAG to
 * Memory", "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks").
 */
const TITLE_JOINERS: ReadonlySet<string> = new Set([
  "of",
  "for",
  "and",
  "to",
  "in",
  "on",
  "the",
  "a",
  "an",
  "with",
  "from",
  "by",
  "at",
  "vs",
]);

/**
 * Capitalised phrases from the raw query: runs of Capitalised / ALLCAPS / CamelCase words, which
 * may continue with a version or number ("HippoRAG 2", "ColBERT v2") and be joined by one title-case
 * function word or a dash ("Bag of Words", "Retrieval - Augmented"). Returned normalised.
 */
function capitalisedPhrases(query: string): string[] {
  const out: string[] = [];
  let run: string[] = [];
  let pendingJoin: string | null = null;
  let lastEnd = -1;
  const flush = () => {
    if (run.length > 0) out.push(normAlias(run.join(" ")));
    run = [];
    pendingJoin = null;
  };
  for (const m of query.matchAll(RAW_WORD)) {
    const w = m[0];
    const at = m.index ?? 0;
    const gap = lastEnd >= 0 ? query.slice(lastEnd, at) : "";
    lastEnd = at + w.length;
    // A sentence break, a comma or a bracket between two words ends any run.
    if (RUN_BREAK.test(gap)) flush();
    if (HAS_UPPER.test(w)) {
      if (pendingJoin !== null) run.push(pendingJoin);
      pendingJoin = null;
      run.push(w);
    } else if (run.length > 0 && pendingJoin === null && TITLE_JOINERS.has(w)) {
      pendingJoin = w;
    } else if (run.length > 0 && pendingJoin === null && VERSION_LIKE.test(w)) {
      run.push(w);
    } else {
      flush();
    }
  }
  flush();
  return out;
}

/** Joined and split spellings: "colbert v2" <-> "colbertv2", "gpt 4" <-> "gpt4", "hippo rag" -> "hipporag". */
function variants(gram: string[]): string[] {
  const out: string[] = [];
  // Joined spellings only for names without function words ("howdoes" names nothing).
  if (gram.length >= 2 && gram.length <= 3 && !gram.some(isStop)) out.push(gram.join(""));
  if (gram.length === 1) {
    const w = gram[0] as string;
    const v = TRAILING_VERSION.exec(w);
    if (v?.[1] && v[2]) out.push(`${v[1]} ${v[2]}`);
    else {
      const d = LETTERS_DIGITS.exec(w);
      if (d?.[1] && d[2]) out.push(`${d[1]} ${d[2]}`);
    }
  }
  return out;
}

export function extractMentions(query: string): {
  identifiers: Array<{ text: string; id: string }>;
  candidates: string[];
} {
  const identifiers = findIdentifiers(query);
  // Identifiers resolve exactly on their own; their digits and slashes would only add junk n-grams
  // ("2405 14831v2"), so they are cut out of the text (as a break, so no n-gram spans the gap).
  let text = query;
  for (const { text: t } of identifiers) text = text.split(t).join(" | ");
  // Insertion order is priority order: when the cap is hit, what was added last is what is lost.
  const out = new Set<string>();
  const add = (s: string) => {
    if (out.size < MAX_CANDIDATES && s && !isStop(s)) out.add(s);
  };

  // 1. Capitalised phrases, plus the phrase without leading/trailing stopwords ("What HippoRAG").
  for (const p of capitalisedPhrases(text)) {
    const words = p.split(" ");
    let a = 0;
    let b = words.length;
    while (a < b && isStop(words[a] as string)) a++;
    while (b > a && isStop(words[b - 1] as string)) b--;
    if (b > a) {
      add(words.slice(a, b).join(" "));
      for (const v of variants(words.slice(a, b))) add(v);
    }
    if (b - a !== words.length) add(p);
  }

  // 2. Word n-grams, short ones first (so the cap drops long n-grams, never words); the spelling
  //    variants of 1- to 3-grams come right after the bigrams. An n-gram made only of stopwords
  //    names nothing; stopwords inside a name are fine ("from rag to memory"). The segments
  //    between identifiers (or a literal "|") are n-grammed separately.
  const segments = text
    .split(SEGMENT_BREAK)
    .map((seg) => normAlias(seg).split(" ").filter(Boolean))
    .filter((ws) => ws.length > 0);
  const grams = (n: number): string[][] => {
    const out: string[][] = [];
    for (const words of segments) {
      for (let i = 0; i + n <= words.length; i++) {
        const gram = words.slice(i, i + n);
        if (!gram.every(isStop)) out.push(gram);
      }
    }
    return out;
  };
  const [g1, g2, g3] = [grams(1), grams(2), grams(3)];
  for (const g of [...g1, ...g2]) add(g.join(" "));
  for (const g of [...g1, ...g2]) for (const v of variants(g)) add(v);
  for (const g of g3) add(g.join(" "));
  for (const g of g3) for (const v of variants(g)) add(v);
  for (let n = 4; n <= MAX_NGRAM && out.size < MAX_CANDIDATES; n++) for (const g of grams(n)) add(g.join(" "));

  // Longest first: the router resolves a longer alias before its parts.
  const candidates = [...out].sort((x, y) => y.length - x.length || (x < y ? -1 : x > y ? 1 : 0));
  return { identifiers, candidates };
}
