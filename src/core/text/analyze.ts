/** Term analysis shared by the embedder, the distiller and the mention analyser. */

export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are aren't as at be because been before being below between both but by " +
    "can can't cannot could couldn't did didn't do does doesn't doing don't down during each few for from further had hadn't has " +
    "hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in " +
    "into is isn't it it's its itself let's me more most mustn't my myself no nor not of off on once only or other ought our ours " +
    "ourselves out over own same shan't she she'd she'll she's should shouldn't so some such than that that's the their theirs them " +
    "themselves then there there's these they they'd they'll they're they've this those through to too under until up very was " +
    "wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while who who's whom why why's with " +
    "won't would wouldn't you you'd you'll you're you've your yours yourself yourselves also via using use used uses its"
  ).split(" "),
);

const VOWEL = /[aeiouy]/;

/**
 * A light suffix-stripping stemmer (Porter step 1 plus common derivational suffixes). Deterministic;
 * it only has to map inflections of one word to one key, not produce linguistic roots.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  // Step 1a: plurals.
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("ss")) {
    // keep
  } else if (w.endsWith("s") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);
  // Derivational endings, longest first.
  const rules: Array<[string, string]> = [
    ["ational", "ate"],
    ["ization", "ize"],
    ["isation", "ize"],
    ["fulness", "ful"],
    ["iveness", "ive"],
    ["ousness", "ous"],
    ["ation", "ate"],
    ["ement", ""],
    ["ment", ""],
    ["ness", ""],
    ["ically", "ic"],
    ["ingly", ""],
    ["edly", ""],
    ["ally", "al"],
    ["ly", ""],
  ];
  for (const [suf, rep] of rules) {
    if (w.endsWith(suf) && w.length - suf.length >= 3) {
      w = w.slice(0, -suf.length) + rep;
      break;
    }
  }
  // Step 1b: -ed / -ing when a vowel remains in the stem.
  for (const suf of ["ing", "ed"]) {
    if (w.endsWith(suf) && VOWEL.test(w.slice(0, -suf.length)) && w.length - suf.length >= 3) {
      w = w.slice(0, -suf.length);
      if (/(at|bl|iz)$/.test(w)) w += "e";
      else if (/([^aeiouylsz])\1$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  // Normalise a final -e / -al so retrieve / retrieval / retrieved meet at "retriev".
  if (w.endsWith("al") && w.length > 5) w = w.slice(0, -2);
  if (w.endsWith("e") && w.length > 4) w = w.slice(0, -1);
  // Step 1c: y -> i after a consonant.
  if (w.endsWith("y") && w.length > 3 && !VOWEL.test(w[w.length - 2] ?? "")) w = `${w.slice(0, -1)}i`;
  return w;
}

const SPLIT = /[^\p{L}\p{N}]+/u;

/** NFKC, lowercase, split on non letters/digits, drop stopwords and 1-char non-digit tokens, stem. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.normalize("NFKC").toLowerCase().split(SPLIT)) {
    if (!raw || STOPWORDS.has(raw)) continue;
    if (raw.length === 1 && !/\d/.test(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

export function termsWithBigrams(text: string): { unigrams: string[]; bigrams: string[] } {
  const unigrams = terms(text);
  const bigrams: string[] = [];
  for (let i = 1; i < unigrams.length; i++) bigrams.push(`${unigrams[i - 1]} ${unigrams[i]}`);
  return { unigrams, bigrams };
}
