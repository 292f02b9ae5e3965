/**
 * Term analysis shared by the hashed embedder, the extractive distiller and the mention analyser.
 * Everything here is deterministic and table-free so the same text yields the same terms in every
 * isolate and in Node (embeddings stored months ago must still match today's queries).
 */

/**
 * English stopwords: the 179-word NLTK list, without the apostrophe forms (terms() splits on
 * apostrophes, so "don't" arrives as "don" + "t" and only the fragments can ever match), plus
 * "also", "via", "use/used/uses/using", the modal verbs and a few prepositions ("within", "among"),
 * which carry no topic in paper prose ("we use X").
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers " +
    "herself it its itself they them their theirs themselves what which who whom this that these those am is are " +
    "was were be been being have has had having do does did doing a an the and but if or because as until while " +
    "of at by for with about against between into through during before after above below to from up down in out " +
    "on off over under again further then once here there when where why how all any both each few more most other " +
    "some such no nor not only own same so than too very s t can will just don should now d ll m o re ve y ain " +
    "aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn " +
    "also via use used uses using would could might may shall must within without among upon"
  ).split(" "),
);

function isVowel(c: string | undefined, prev: string | undefined): boolean {
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return true;
  // Porter's rule: y is a vowel after a consonant ("system" has a vowel, "yes" starts with a consonant).
  return c === "y" && prev !== undefined && !isVowel(prev, undefined);
}

/** Consonant-vowel-consonant ("bas", "tun", "fix"), Porter's *o condition. */
function isCvc(s: string): boolean {
  const n = s.length;
  return n >= 3 && !isVowel(s[n - 3], s[n - 4]) && isVowel(s[n - 2], s[n - 3]) && !isVowel(s[n - 1], s[n - 2]);
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (isVowel(w[i], w[i - 1])) return true;
  return false;
}

/** Derivational endings (Porter step 2/3-style), longest first; `min` = shortest stem left behind. */
const DERIVATIONAL: ReadonlyArray<readonly [suffix: string, replacement: string, min: number]> = [
  ["ational", "ate", 3],
  ["ization", "ize", 3],
  ["isation", "ize", 3],
  ["fulness", "ful", 3],
  ["iveness", "ive", 3],
  ["ousness", "ous", 3],
  ["ability", "", 4],
  ["ibility", "", 4],
  ["ically", "ic", 3],
  ["tional", "tion", 3],
  ["ation", "ate", 3],
  ["ement", "", 4],
  ["ingly", "", 4],
  ["ality", "al", 3],
  ["ivity", "ive", 3],
  ["ment", "", 4],
  ["able", "", 4],
  ["ible", "", 4],
  ["ness", "", 3],
  ["edly", "", 4],
  ["ally", "al", 3],
  // Plain -ly only off long stems: "quickly" -> "quick", but "family" / "apply" keep theirs.
  ["ly", "", 5],
];

const STEM_CACHE = new Map<string, string>();
const STEM_CACHE_MAX = 20_000;

/**
 * A light suffix-stripping stemmer (Porter steps 1a/1b/1c plus common derivational endings). It only
 * has to send the inflections of one word to one key, not produce linguistic roots:
 * retrieval / retrieve / retrieved / retrieving -> "retriev", compute / computation / computing ->
 * "comput", graphs -> "graph", queries / query / queried -> "queri". Words containing anything but
 * a-z (digits, non-Latin scripts, accents) are returned unchanged, as are words of <= 3 letters.
 */
export function stem(word: string): string {
  const hit = STEM_CACHE.get(word);
  if (hit !== undefined) return hit;
  const out = stemUncached(word);
  // Bounded memo: prose is Zipfian, so a few thousand entries catch most words; clearing when
  // full keeps memory flat in a long-lived isolate (the result never depends on the cache).
  if (STEM_CACHE.size >= STEM_CACHE_MAX) STEM_CACHE.clear();
  STEM_CACHE.set(word, out);
  return out;
}

function stemUncached(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c < 97 || c > 122) return w;
  }

  // Step 1a: plurals.
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = w.length > 4 ? `${w.slice(0, -3)}i` : w.slice(0, -1);
  else if (w.endsWith("ss") || w.endsWith("us") || w.endsWith("is")) {
    // "loss", "corpus", "analysis" are singular.
  } else if (w.endsWith("s") && w.length > 3) w = w.slice(0, -1);

  // Step 1b: -eed / -ed / -ing when the remaining stem has a vowel.
  if (w.endsWith("eed")) {
    if (w.length > 4) w = w.slice(0, -1);
  } else {
    for (const suf of ["ing", "ed"]) {
      const cut = w.length - suf.length;
      if (!w.endsWith(suf) || cut < 3 || !hasVowel(w, cut)) continue;
      const s = w.slice(0, cut);
      if (s.endsWith("at") || s.endsWith("bl") || s.endsWith("iz")) w = `${s}e`;
      else if (cut >= 4) {
        const a = s[s.length - 1];
        // Undouble: "embedded" -> "embedd" -> "embed" (but "installed" keeps its "ll").
        w = a === s[s.length - 2] && a !== "l" && a !== "s" && a !== "z" && !isVowel(a, undefined) ? s.slice(0, -1) : s;
      } else if (isCvc(s)) {
        // Porter's *o rule on 3-letter stems: "based" -> "base", "tuned" -> "tune", "fixed" -> "fix".
        w = s.endsWith("w") || s.endsWith("x") || s.endsWith("y") ? s : `${s}e`;
      }
      // Otherwise (3-letter stem, not consonant-vowel-consonant) the word is kept: "embed" is not "emb"+"ed".
      break;
    }
  }

  // Derivational endings.
  for (const [suf, rep, min] of DERIVATIONAL) {
    if (w.endsWith(suf) && w.length - suf.length >= min) {
      w = w.slice(0, -suf.length) + rep;
      break;
    }
  }
  // -ion after s/t (Porter step 4): "diffusion" -> "diffus", "prediction" -> "predict".
  if ((w.endsWith("sion") || w.endsWith("tion")) && w.length - 3 >= 4) w = w.slice(0, -3);
  // Agent / comparative -er off long stems: "retriever" -> "retriev", "encoder" -> "encod"; "paper",
  // "layer", "number" (stem < 5 letters) keep it.
  if (w.endsWith("er") && w.length - 2 >= 5) w = w.slice(0, -2);
  // -ate off stems of >= 4 letters joins verb and noun: "computation" -> "computate" -> "comput",
  // "validate" -> "valid"; "create" / "update" (stem < 4) keep it.
  if (w.endsWith("ate") && w.length - 3 >= 4) w = w.slice(0, -3);
  // -al off stems of >= 4 letters: "retrieval" -> "retriev", "original" -> "origin".
  if (w.endsWith("al") && w.length - 2 >= 4) w = w.slice(0, -2);
  // A final -e goes, so "retrieve" meets "retrieval" and "retrieved" at "retriev".
  if (w.endsWith("e") && w.length > 4) w = w.slice(0, -1);
  // Step 1c: y -> i after a consonant ("query" and "queries" meet at "queri").
  if (w.endsWith("y") && w.length > 3 && !isVowel(w[w.length - 2], w[w.length - 3])) w = `${w.slice(0, -1)}i`;
  return w;
}

const SPLIT = /[^\p{L}\p{N}]+/u;
const HAS_DIGIT = /\p{N}/u;

/** NFKC, lowercase, split on non letters/digits, drop stopwords and 1-char non-digit tokens, stem. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.normalize("NFKC").toLowerCase().split(SPLIT)) {
    if (!raw || STOPWORDS.has(raw)) continue;
    // A lone letter carries nothing; a lone digit can ("top 5", "v 2").
    if (raw.length === 1 && !HAS_DIGIT.test(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

/** Unigrams as in terms(), plus bigrams of adjacent kept terms joined by a space. */
export function termsWithBigrams(text: string): { unigrams: string[]; bigrams: string[] } {
  const unigrams = terms(text);
  const bigrams: string[] = [];
  for (let i = 1; i < unigrams.length; i++) bigrams.push(`${unigrams[i - 1]} ${unigrams[i]}`);
  return { unigrams, bigrams };
}
