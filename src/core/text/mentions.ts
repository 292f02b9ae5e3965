/**
 * Deterministic mention analysis for queries (DESIGN step 1): identifier regexes (DOI, arXiv,
 * OpenAlex), word n-grams to look up in the alias table, and capitalised phrases.
 */
import { findIdentifiers, normAlias } from "../ids";
import { STOPWORDS } from "./analyze";

/**
 * Candidates are capped at 256 so resolution costs at most 256 hash lookups per query: bounded
 * routing cost, whatever the query length (a 6-gram window over a 40-word query is ~220 n-grams).
 */
export const MAX_CANDIDATES = 256;
const MAX_N = 6;

export function extractMentions(query: string): {
  identifiers: Array<{ text: string; id: string }>;
  candidates: string[];
} {
  const identifiers = findIdentifiers(query);
  const out = new Set<string>();
  // Capitalised phrases from the raw query first ("Personalized PageRank", "HippoRAG 2").
  const cap =
    /\b(?:\p{Lu}[\p{L}\p{N}]*(?:-[\p{L}\p{N}]+)*)(?:\s+(?:of|for|and|the|to|-)?\s*(?:\p{Lu}[\p{L}\p{N}]*|\d+))*/gu;
  for (const m of query.matchAll(cap)) {
    const norm = normAlias(m[0]);
    if (norm && !STOPWORDS.has(norm)) out.add(norm);
  }
  // Then n-grams, short ones first so a long query drops its long n-grams, never its words.
  const words = normAlias(query).split(" ").filter(Boolean);
  for (let n = 1; n <= MAX_N && out.size < MAX_CANDIDATES; n++) {
    for (let i = 0; i + n <= words.length && out.size < MAX_CANDIDATES; i++) {
      const gram = words.slice(i, i + n);
      if (gram.every((w) => STOPWORDS.has(w))) continue;
      // Stopwords may sit inside a name ("from rag to memory"), not alone at both ends of a 2-gram.
      if (n === 2 && (STOPWORDS.has(gram[0] as string) || STOPWORDS.has(gram[1] as string))) continue;
      out.add(gram.join(" "));
      // Joined variant: "colbert v2" also tries "colbertv2".
      if (n === 2) out.add(gram.join(""));
    }
  }
  // Longest first: a longer alias match wins over its parts.
  const list = [...out].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
  return { identifiers, candidates: list.slice(0, MAX_CANDIDATES) };
}
