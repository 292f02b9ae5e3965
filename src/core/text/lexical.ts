/**
 * Lexical analysis for the BM25 expert. A version's content is reduced at ingest to a bag of
 * stemmed terms (the same terms() the embedder and distiller use), title terms counted twice
 * (BM25F with a title weight of 2, folded into one field), and carried by the head.upsert change as
 * "term:tf" pairs. The capital chunk keeps postings of these bags; content is never read to route.
 */
import { terms } from "./analyze";

/** Okapi BM25 parameters (k1 1.2, b 0.75: the usual defaults, the same as the eval's baseline). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** Title terms count this many times in the bag (a title names what the passage is about). */
export const TITLE_WEIGHT = 2;
/**
 * Distinct terms kept per version: the most frequent, ties by first occurrence. Passages and
 * conversation turns (< 200 distinct stems) are indexed whole; a long paper keeps its 200 most
 * frequent stems, which bounds postings at 200 x 5 bytes per version whatever the content size.
 */
export const MAX_TERMS_PER_VERSION = 200;
/**
 * Distinct query stems sent to the capital chunk (a pasted abstract has ~100-200). The chunk scores
 * the rarest first within a postings budget (KernelParams.maxLexicalPostings), so a long query costs
 * no more than a short one.
 */
export const MAX_QUERY_TERMS = 256;
/** tf is stored in one byte. */
const MAX_TF = 255;

export interface DocTerms {
  /** "term:tf term:tf ..." (terms contain no spaces or colons). */
  terms: string;
  /** Document length in terms (the whole bag, before the cut), for BM25 length normalisation. */
  len: number;
}

/** The bag of terms of a version: title x TITLE_WEIGHT + content; linear in the text length. */
export function docTerms(title: string, content: string, max = MAX_TERMS_PER_VERSION): DocTerms {
  const tf = new Map<string, number>();
  let len = 0;
  const add = (t: string, w: number) => {
    tf.set(t, (tf.get(t) ?? 0) + w);
    len += w;
  };
  for (const t of terms(title)) add(t, TITLE_WEIGHT);
  for (const t of terms(content)) add(t, 1);
  // Map iteration order is first occurrence; a stable sort by tf keeps that as the tie-break.
  let entries = [...tf.entries()];
  if (entries.length > max) entries = entries.sort((a, b) => b[1] - a[1]).slice(0, max);
  return { terms: entries.map(([t, n]) => `${t}:${Math.min(MAX_TF, n)}`).join(" "), len };
}

/**
 * One term's Okapi BM25 score in a document of `len` terms (`avgLen`: the pool's mean), the formula
 * the capital chunk scores postings with: idf · tf (k1 + 1) / (tf + k1 (1 − b + b · len / avgLen)).
 */
export function bm25Term(idf: number, tf: number, len: number, avgLen: number): number {
  if (tf <= 0) return 0;
  return (idf * (tf * (BM25_K1 + 1))) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * len) / (avgLen || 1)));
}

/** Parse the "term:tf" encoding back into pairs. */
export function parseDocTerms(encoded: string): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const pair of encoded.split(" ")) {
    const at = pair.lastIndexOf(":");
    if (at <= 0) continue;
    const n = Number(pair.slice(at + 1));
    if (Number.isFinite(n) && n > 0) out.push([pair.slice(0, at), Math.min(MAX_TF, Math.round(n))]);
  }
  return out;
}

/** Distinct query stems in order, at most MAX_QUERY_TERMS. */
export function queryTerms(query: string): string[] {
  return [...new Set(terms(query))].slice(0, MAX_QUERY_TERMS);
}

/** FNV-1a 32-bit: term keys in the capital chunk are hashed, so the vocabulary costs no strings. */
export function termHash(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) {
    h ^= term.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
