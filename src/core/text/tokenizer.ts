/**
 * Token counting for budgets: exact counts with OpenAI's cl100k_base (the default) or o200k_base,
 * chosen per request, through gpt-tokenizer's byte-pair encoders (the same ranks and
 * pre-tokenisation regexes as tiktoken).
 *
 * Default cl100k_base: it is the encoding of GPT-4 / GPT-3.5 and of most OpenAI-compatible models
 * and token-counting tools, and on English o200k_base counts are within a few per cent of it: on
 * the 994 HotpotQA passages o200k_base counts 1.8% fewer tokens in total (per passage, 6% fewer to
 * 1% more from the 5th to the 95th percentile), on cards' prompt JSON 0.4% fewer. A request can
 * choose either; the budget then holds exactly in that encoding.
 *
 * Loading. cl100k_base's ranks (~1 MB of the bundle, ~10 MB of heap) are imported statically, but
 * the encoder (a 100k-entry map, ~75 ms to build) is built on the first count. o200k_base's ranks
 * (~2.7 MB minified, ~18 MB of heap once built, ~250 ms to build) are loaded by a dynamic import on
 * the first request that asks for them: `await loadTokenizer("o200k_base")` before counting with
 * it synchronously (the query pipeline and the distiller do this); countTokens throws otherwise.
 *
 * Cost. Byte-pair merging is quadratic in the length of one pre-tokenised piece (a run of letters,
 * of punctuation or of whitespace): 16,000 CJK characters without punctuation take ~1.7 s. Pieces
 * longer than LONG_PIECE characters (never in ordinary prose) are therefore encoded in slices of
 * LONG_PIECE characters, so counting stays linear; such a piece's count can differ from the true
 * one by about a token per slice. Everything else is exact.
 *
 * Special-token strings in the text (`<|endoftext|>`) are counted as ordinary text, as a model
 * reading the card as a prompt sees them.
 *
 * The old approximate counter, "pg-approx-cl100k-v1", stays below (countApproxTokens,
 * truncateToApproxTokens): stored synopses were derived with it and are part of each version's
 * artifact hash, so ingest keeps using it to stay idempotent.
 */

import cl100kRanks from "gpt-tokenizer/bpeRanks/cl100k_base";
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { GptEncoding } from "gpt-tokenizer/GptEncoding";

export const TOKENIZERS = ["cl100k_base", "o200k_base"] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];
export const DEFAULT_TOKENIZER: TokenizerName = "cl100k_base";
/** The encoding budgets use when a request names none. */
export const TOKENIZER_NAME: TokenizerName = DEFAULT_TOKENIZER;

/** Longest pre-tokenised piece encoded whole (~0.4 ms for 256 CJK characters; see the header). */
export const LONG_PIECE = 256;
/** Merge-cache entries per encoder (gpt-tokenizer's default is 100,000, ~10 MB per isolate). */
const MERGE_CACHE = 20_000;

/** Special-token strings are plain text (no "disallowed special token" errors). */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

interface Encoder {
  api: GptEncoding;
  /** The encoding's pre-tokenisation regex (global, sticky use through lastIndex). */
  split: RegExp;
}

type Ranks = (string | number[])[];

const encoders = new Map<TokenizerName, Encoder>();
const loading = new Map<TokenizerName, Promise<void>>();

function build(name: TokenizerName, ranks: Ranks): Encoder {
  const api = GptEncoding.getEncodingApi(name, () => ranks);
  api.setMergeCacheSize(MERGE_CACHE);
  const re = name === "cl100k_base" ? CL100K_TOKEN_SPLIT_REGEX : O200K_TOKEN_SPLIT_REGEX;
  return { api, split: new RegExp(re.source, "gu") };
}

export function isTokenizerName(s: unknown): s is TokenizerName {
  return s === "cl100k_base" || s === "o200k_base";
}

/** Whether countTokens(_, name) can run now (cl100k_base always can). */
export function tokenizerLoaded(name: TokenizerName): boolean {
  return name === "cl100k_base" || encoders.has(name);
}

/** Makes `name` available to the synchronous functions below; idempotent, shared by concurrent callers. */
export function loadTokenizer(name: TokenizerName = DEFAULT_TOKENIZER): Promise<void> {
  if (tokenizerLoaded(name)) return Promise.resolve();
  let p = loading.get(name);
  if (!p) {
    p = import("gpt-tokenizer/bpeRanks/o200k_base").then(
      (m) => {
        if (!encoders.has(name)) encoders.set(name, build(name, m.default));
      },
      (err: unknown) => {
        loading.delete(name);
        throw err;
      },
    );
    loading.set(name, p);
  }
  return p;
}

function encoder(name: TokenizerName): Encoder {
  let e = encoders.get(name);
  if (e) return e;
  if (name !== "cl100k_base") {
    throw new Error(`tokenizer ${name} is not loaded: await loadTokenizer("${name}") before counting with it`);
  }
  e = build(name, cl100kRanks);
  encoders.set(name, e);
  return e;
}

/** Whether `text` has a run of one character class longer than LONG_PIECE (a possible long piece). */
function hasLongRun(text: string): boolean {
  const n = text.length;
  if (n <= LONG_PIECE) return false;
  let run = 0;
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    // 0: whitespace, 1: ASCII punctuation, 2: ASCII letter or any non-ASCII unit (letters, marks,
    // CJK punctuation: conservatively one class), 3: ASCII digit (pieces of at most 3).
    const k =
      c === 32 || (c >= 9 && c <= 13)
        ? 0
        : c >= 128 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
          ? 2
          : c >= 48 && c <= 57
            ? 3
            : 1;
    run = k === prev ? run + 1 : 1;
    prev = k;
    if (run > LONG_PIECE && k !== 3) return true;
  }
  return false;
}

/** The end of the slice of `text` starting at `s`: LONG_PIECE characters, never splitting a surrogate pair. */
function sliceEnd(text: string, s: number, end: number): number {
  let e = Math.min(end, s + LONG_PIECE);
  const hi = text.charCodeAt(e - 1);
  if (e < end && hi >= 0xd800 && hi <= 0xdbff) e--;
  return e;
}

/**
 * Calls visit(start, end, tokens) for each pre-tokenised piece of `text` (pieces longer than
 * LONG_PIECE: for each of their slices, with sliced = true), in order, until it returns false. The
 * tokens sum to countTokens(text).
 */
function forEachPiece(
  e: Encoder,
  text: string,
  visit: (start: number, end: number, tokens: number, sliced: boolean) => boolean,
): void {
  const piece = (start: number, end: number): boolean => {
    const sliced = end - start > LONG_PIECE;
    for (let s = start; s < end; ) {
      const t = sliceEnd(text, s, end);
      if (!visit(s, t, e.api.countTokens(text.slice(s, t), AS_TEXT), sliced)) return false;
      s = t;
    }
    return true;
  };
  const re = e.split;
  re.lastIndex = 0;
  let pos = 0;
  for (;;) {
    const m = re.exec(text);
    if (!m) break;
    const start = m.index;
    const end = start + m[0].length;
    // The regexes match every character (their last alternatives are \s and \s+), so there are no
    // gaps; an empty match would loop forever, so step over it.
    if (end === start) {
      re.lastIndex = start + 1;
      continue;
    }
    if (start > pos && !piece(pos, start)) return;
    if (!piece(start, end)) return;
    pos = end;
  }
  if (pos < text.length) piece(pos, text.length);
}

/**
 * Counts of texts of up to COUNT_CACHE_TEXT characters, per tokenizer: cards are made again and
 * again from the same sentences (every query that reaches a chunk quotes it), a REST answer counts
 * each card's JSON when the kernel packs it and again when it fits the answer, and a count is a
 * pure function of its text. At most COUNT_CACHE_CHARS characters in all (~4 MB), emptied when full.
 */
const COUNT_CACHE_TEXT = 16_384;
const COUNT_CACHE_CHARS = 2_000_000;
const counted = new Map<TokenizerName, { map: Map<string, number>; chars: number }>();

/** Exact token count of `text` under `tokenizer` (default cl100k_base). */
export function countTokens(text: string, tokenizer: TokenizerName = DEFAULT_TOKENIZER): number {
  if (text.length === 0) return 0;
  if (text.length > COUNT_CACHE_TEXT) return countUncached(text, tokenizer);
  let cache = counted.get(tokenizer);
  if (!cache) {
    cache = { map: new Map(), chars: 0 };
    counted.set(tokenizer, cache);
  }
  const hit = cache.map.get(text);
  if (hit !== undefined) return hit;
  const n = countUncached(text, tokenizer);
  if (cache.chars + text.length > COUNT_CACHE_CHARS) {
    cache.map.clear();
    cache.chars = 0;
  }
  cache.map.set(text, n);
  cache.chars += text.length;
  return n;
}

function countUncached(text: string, tokenizer: TokenizerName): number {
  const e = encoder(tokenizer);
  if (!hasLongRun(text)) return e.api.countTokens(text, AS_TEXT);
  let n = 0;
  forEachPiece(e, text, (_s, _e, t) => {
    n += t;
    return true;
  });
  return n;
}

/**
 * The longest prefix of `text` that ends on a pre-tokenised piece boundary (so a word is never cut
 * inside), with trailing whitespace trimmed, whose exact count is <= maxTokens. Inside a piece
 * longer than LONG_PIECE (CJK text without punctuation, a long run of symbols) the cut may fall
 * on any code point.
 */
export function truncateToTokens(
  text: string,
  maxTokens: number,
  tokenizer: TokenizerName = DEFAULT_TOKENIZER,
): string {
  if (maxTokens <= 0 || text.length === 0) return "";
  const e = encoder(tokenizer);
  if (countTokens(text, tokenizer) <= maxTokens) return text.trimEnd();
  // Piece ends within the cap.
  const ends: number[] = [];
  let used = 0;
  forEachPiece(e, text, (start, end, t, sliced) => {
    if (used + t <= maxTokens) {
      used += t;
      ends.push(end);
      return true;
    }
    if (sliced) {
      // Binary search the longest code-point prefix of this slice that fits what is left.
      const room = maxTokens - used;
      let lo = start;
      let hi = end - 1;
      while (lo < hi) {
        let mid = Math.ceil((lo + hi) / 2);
        const c = text.charCodeAt(mid - 1);
        if (c >= 0xd800 && c <= 0xdbff) mid--;
        if (mid <= lo) break;
        if (e.api.countTokens(text.slice(start, mid), AS_TEXT) <= room) lo = mid;
        else hi = mid - 1;
      }
      if (lo > start) ends.push(lo);
    }
    return false;
  });
  // Trimming whitespace only shortens the last piece, but re-tokenising a prefix is not guaranteed
  // to give the same pieces, so recount and step back a piece if needed.
  for (let k = ends.length - 1; k >= 0; k--) {
    const out = text.slice(0, ends[k]).trimEnd();
    if (countTokens(out, tokenizer) <= maxTokens) return out;
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
/**
 * "pg-approx-cl100k-v1": PaperGuru's earlier deterministic, dependency-free counter, kept because
 * ingest derives synopses with it (truncateToApproxTokens) and a synopsis is part of a version's
 * artifact hash. It is not used for budgets any more.
 *
 * The contract is one-sided: on ordinary English and code it must never count FEWER tokens than
 * OpenAI's cl100k_base, so a card that fits our count fits the real one. Over-counting only wastes
 * a little budget. Measured against cl100k_base on this repository's sources, README and sample
 * archive (~8,000 files and single lines): 1.6x in total, never below 1.0 on a whole document;
 * the one single line under (by 1 token) is a quoted identifier in code, ` | "sketches"`.
 *
 * Pre-tokenisation mirrors cl100k's regex (contractions, letter runs with one optional leading
 * space, digit groups of at most 3, punctuation runs with one optional leading space, whitespace),
 * implemented as a char-code scanner: no regex is built or run per call except for non-ASCII
 * characters, because this counter runs on every card and every candidate trim of a card.
 *
 * Costs per piece:
 *  - letters: max(1, ceil(L / 4)) per run. cl100k averages ~4 characters per token on English and
 *    encodes common words as 1 token, so this over-counts long words (the safe side). Mixed-case
 *    runs are costed per case hump ("HippoRAG" = Hippo + RAG) because cl100k splits them there
 *    ("H|ippo|R|AG" = 4 tokens; a flat ceil(8/4) = 2 would under-count), a run of several humps
 *    costs 1 more ("humpLen" is "h|ump|Len"), and an ALLCAPS hump costs ceil((L + 1) / 2) ("NQ" is
 *    2 tokens, "GPT" is "G|PT" inside "MemGPT").
 *  - non-ASCII letters: 1 each for 2-byte UTF-8 letters (accents, Greek, Cyrillic, Arabic: cl100k
 *    has ~1 token each, "na|ï|ve"), 1.5 each for 3-byte letters (CJK, kana, Hangul: common ones are
 *    1 token, rarer ones 2), 4 for astral letters (UTF-8 bytes, the BPE ceiling), plus 1 per run for
 *    the run's boundary merges ("ααβγ δεζ" is 8 tokens for 7 letters).
 *  - digits: 1 per group of up to 3 (cl100k's \p{N}{1,3}).
 *  - ASCII punctuation runs: their length. Byte-level BPE never emits more tokens than bytes, so this
 *    is a true upper bound. Counting pairs instead (cl100k merges `":"`, `","`) under-counts ~half
 *    of arbitrary punctuation runs (`_+)>` is 3 tokens), so we pay for JSON's quotes instead.
 *  - non-ASCII symbols: 1 for 2-byte ones and for General Punctuation (dashes, curly quotes,
 *    ellipsis: single tokens in cl100k), 2 for other 3-byte ones ("∑" is 2 tokens), 4 for astral
 *    ones (emoji are 3-4 bytes' worth: "🧠" = 3 tokens).
 *  - whitespace: a single space directly before a letter or a punctuation character is free
 *    (cl100k attaches it to the next piece, " word"). Otherwise a run costs 1 per group of line
 *    breaks plus 1 per 32 characters of each run of one other whitespace character (cl100k has
 *    tokens for long indentation runs, but splits "\n\t\t" into "\n" + "\t\t" and " \t \t" into
 *    " \t " + "\t"), plus 1 when it ends in a space before a number (cl100k never
 *    attaches a space to digits: "   400" is "  " + " " + "400") or in a tab before a word
 *    ("\ttabs" is "\tt" + "abs").
 */

// Character classes for the scanner.
const C_WS = 0;
const C_NL = 1;
const C_LOWER = 2;
const C_UPPER = 3;
const C_DIGIT = 4;
const C_PUNCT = 5;
const C_LETTER_X = 6; // non-ASCII letter
const C_DIGIT_X = 7; // non-ASCII digit
const C_SYMBOL_X = 8; // non-ASCII non-letter, non-digit, non-space

const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  let k = C_PUNCT;
  if (c === 10 || c === 13) k = C_NL;
  else if (c === 32 || c === 9 || c === 11 || c === 12) k = C_WS;
  else if (c >= 97 && c <= 122) k = C_LOWER;
  else if (c >= 65 && c <= 90) k = C_UPPER;
  else if (c >= 48 && c <= 57) k = C_DIGIT;
  ASCII_CLASS[c] = k;
}

// Compiled once at module load; only consulted for non-ASCII code points.
const RE_LETTER = /^\p{L}$/u;
const RE_DIGIT = /^\p{N}$/u;
const RE_SPACE = /^\s$/u;

function classifySlow(cp: number): number {
  const ch = String.fromCodePoint(cp);
  if (RE_SPACE.test(ch)) return C_WS;
  if (RE_LETTER.test(ch)) return C_LETTER_X;
  if (RE_DIGIT.test(ch)) return C_DIGIT_X;
  return C_SYMBOL_X;
}

// Classes of BMP code points, filled lazily (0 = not yet classified, else class + 1): 64 KB once
// per isolate, and CJK text counts ~10x faster than running three Unicode regexes per character.
const BMP_CLASS = new Uint8Array(0x10000);

function classOf(cp: number): number {
  if (cp < 128) return ASCII_CLASS[cp] as number;
  if (cp > 0xffff) return classifySlow(cp);
  let k = BMP_CLASS[cp] as number;
  if (k === 0) {
    k = classifySlow(cp) + 1;
    BMP_CLASS[cp] = k;
  }
  return k - 1;
}

function codePointAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
  }
  return c;
}

function isLetterClass(k: number): boolean {
  return k === C_LOWER || k === C_UPPER || k === C_LETTER_X;
}

/** Cost of one ASCII case hump of `len` letters; ALLCAPS humps split finer in cl100k. */
function humpCost(len: number, allCaps: boolean): number {
  if (len <= 0) return 0;
  // ALLCAPS: "NQ" and "DPR" are 2 tokens, "PAPERGURU" 5.
  return allCaps && len > 1 ? Math.ceil((len + 1) / 2) : Math.max(1, Math.ceil(len / 4));
}

/**
 * Cost of the letter run text[start, end). ASCII letters are grouped into case humps:
 * "HippoRAG" -> "Hippo" + "RAG", "ColBERT" -> "Col" + "BERT", "XMLParser" -> "XML" + "Parser".
 */
function letterRunCost(text: string, start: number, end: number): number {
  let cost = 0;
  let humpLen = 0;
  let humpUpper = 0; // uppercase letters in the current hump
  let x2 = 0; // 2-byte UTF-8 letters
  let x3 = 0; // 3-byte UTF-8 letters
  let x4 = 0; // astral letters
  let prevUpper = false;
  let humps = 0;
  for (let i = start; i < end; ) {
    const cp = codePointAt(text, i);
    const w = cp > 0xffff ? 2 : 1;
    if (cp < 128) {
      const upper = cp >= 65 && cp <= 90;
      if (upper && humpLen > 0 && !prevUpper) {
        // lower -> Upper: a new hump starts here.
        cost += humpCost(humpLen, humpUpper === humpLen);
        humps++;
        humpLen = 0;
        humpUpper = 0;
      } else if (!upper && prevUpper && humpUpper >= 2 && humpUpper === humpLen) {
        // "XMLParser": the last capital of an ALLCAPS run starts the next hump.
        cost += humpCost(humpLen - 1, true);
        humps++;
        humpLen = 1;
        humpUpper = 1;
      }
      humpLen++;
      if (upper) humpUpper++;
      prevUpper = upper;
    } else {
      cost += humpCost(humpLen, humpLen > 0 && humpUpper === humpLen);
      humpLen = 0;
      humpUpper = 0;
      prevUpper = false;
      if (cp <= 0x7ff) x2++;
      else if (cp <= 0xffff) x3++;
      else x4++;
    }
    i += w;
  }
  cost += humpCost(humpLen, humpLen > 0 && humpUpper === humpLen);
  // Identifiers with several humps split less predictably ("humpLen" = "h|ump|Len", "inNl" = 3).
  if (humps > 0) cost += 1;
  if (x2 + x3 + x4 > 0) cost += x2 + Math.ceil(x3 * 1.5) + x4 * 4 + 1;
  return cost;
}

function symbolCost(cp: number): number {
  if (cp <= 0x7ff) return 1;
  if (cp <= 0xffff) return cp >= 0x2010 && cp <= 0x2027 ? 1 : 2;
  return 4;
}

/**
 * Scan `text`, summing piece costs. Stops before the first piece that would take the total above
 * `maxTokens` and returns the end offset of the last piece that fit (end === text.length when all fit).
 */
function scan(text: string, maxTokens: number): { count: number; end: number } {
  const n = text.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    const cp = codePointAt(text, i);
    const k = classOf(cp);
    let j = i;
    let cost = 0;
    if (k === C_WS || k === C_NL) {
      // Whitespace run (including newlines).
      let nlGroups = 0;
      // Non-newline whitespace costs per homogeneous segment: cl100k merges runs of one character
      // ("        " is one token) but not mixtures (" \t \t \t \t" is 4 tokens).
      let other = 0;
      let segLen = 0;
      let segChar = -1;
      let inNl = false;
      while (j < n) {
        const c = codePointAt(text, j);
        const kk = classOf(c);
        if (kk === C_NL) {
          if (!inNl) nlGroups++;
          inNl = true;
          other += Math.ceil(segLen / 32);
          segLen = 0;
          segChar = -1;
        } else if (kk === C_WS && c > 127) {
          // NBSP, thin and ideographic spaces, line separators: their UTF-8 bytes barely merge
          // ("\u2009" is 2 tokens), so 1 per 2-byte and 2 per 3-byte character.
          other += Math.ceil(segLen / 32) + (c <= 0x7ff ? 1 : 2);
          segLen = 0;
          segChar = -1;
          inNl = false;
        } else if (kk === C_WS) {
          if (c !== segChar) {
            other += Math.ceil(segLen / 32);
            segLen = 0;
            segChar = c;
          }
          segLen++;
          inNl = false;
        } else break;
        j += c > 0xffff ? 2 : 1;
      }
      other += Math.ceil(segLen / 32);
      const len = j - i;
      if (len === 1 && cp === 32 && j < n) {
        const next = classOf(codePointAt(text, j));
        // " word" and " (" attach to the next piece in cl100k; " 123" does not. (A lone tab is not
        // free: "\tword" is "\tw" + "ord", one more token than "word".)
        cost = isLetterClass(next) || next === C_PUNCT ? 0 : 1;
      } else {
        cost = nlGroups + other;
        // "   400": cl100k splits the last space off before a number (" " + "400").
        // "\t\ttabs": a tab glued to a word splits it ("\tt" + "abs"), one more token.
        if (!inNl && j < n && len > 1) {
          const next = classOf(codePointAt(text, j));
          if (next === C_DIGIT || next === C_DIGIT_X || (text.charCodeAt(j - 1) !== 32 && isLetterClass(next))) {
            cost += 1;
          }
        }
      }
    } else if (k === C_PUNCT) {
      // Contractions right after a word ("don't", "it's") are single tokens in cl100k; after a space
      // the apostrophe is its own piece (" '" + "s").
      if (cp === 39 && i > 0 && i + 1 < n && isLetterClass(classOf(codePointAt(text, i - 1)))) {
        const a = text.charCodeAt(i + 1) | 0x20;
        const b = i + 2 < n ? text.charCodeAt(i + 2) | 0x20 : 0;
        let len = 0;
        // 's 't 'm 'd are 2 characters; 're 've 'll are 3.
        if (a === 115 || a === 116 || a === 109 || a === 100) len = 2;
        else if ((a === 114 && b === 101) || (a === 118 && b === 101) || (a === 108 && b === 108)) len = 3;
        if (len > 0) {
          j = i + len;
          cost = 1;
        }
      }
      if (j === i) {
        while (j < n && text.charCodeAt(j) < 128 && ASCII_CLASS[text.charCodeAt(j)] === C_PUNCT) j++;
        cost = j - i;
      }
    } else if (k === C_DIGIT) {
      // \p{N}{1,3}: one token per group of up to three ASCII digits.
      while (j < n && j - i < 3 && ASCII_CLASS[text.charCodeAt(j)] === C_DIGIT) j++;
      cost = 1;
    } else if (k === C_DIGIT_X) {
      // Rare (Arabic-Indic, full-width digits): their UTF-8 bytes, the BPE ceiling, capped at 3 per digit.
      j = i + (cp > 0xffff ? 2 : 1);
      cost = cp <= 0x7ff ? 2 : cp <= 0xffff ? 3 : 4;
    } else if (k === C_SYMBOL_X) {
      j = i + (cp > 0xffff ? 2 : 1);
      cost = symbolCost(cp);
    } else {
      // Letter run (ASCII and non-ASCII letters together, like cl100k's \p{L}+).
      while (j < n) {
        const c = codePointAt(text, j);
        const kk = c < 128 ? (ASCII_CLASS[c] as number) : classOf(c);
        if (!isLetterClass(kk)) break;
        j += c > 0xffff ? 2 : 1;
      }
      cost = letterRunCost(text, i, j);
    }
    if (count + cost > maxTokens) return { count, end: i };
    count += cost;
    i = j;
  }
  return { count, end: n };
}

/** The approximate counter's stable name (synopses were cut with it). */
export const APPROX_TOKENIZER_NAME = "pg-approx-cl100k-v1";

/** pg-approx-cl100k-v1's count: never fewer than cl100k_base on English and code, ~1.6x on the whole. */
export function countApproxTokens(text: string): number {
  return scan(text, Number.POSITIVE_INFINITY).count;
}

/**
 * The longest prefix of `text`, cut at a piece boundary and with trailing whitespace trimmed, whose
 * countApproxTokens is <= maxTokens (the behaviour of the pre-exact truncateToTokens, unchanged).
 * Pieces never depend on what follows them except a single space's cost (free before a word), and
 * trailing whitespace is trimmed, so the prefix recounts to at most the scanned total.
 */
export function truncateToApproxTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return "";
  const { end } = scan(text, maxTokens);
  return text.slice(0, end).trimEnd();
}
