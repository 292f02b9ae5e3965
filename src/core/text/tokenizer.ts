/**
 * Token counting for budgets. PaperGuru counts with its own deterministic, dependency-free counter,
 * "pg-approx-cl100k-v1": cl100k-style pre-tokenisation, then a letter run of length L costs
 * max(1, ceil(L / 4)) tokens. cl100k averages ~4 characters per token on English and encodes common
 * words as one token, so this over-counts long words: budgets computed with it hold for cl100k too
 * (the safe side), at the cost of a few percent of unused budget.
 */
export const TOKENIZER_NAME = "pg-approx-cl100k-v1";

// Contractions | letters (with an optional leading space) | digit groups of <= 3 | punctuation runs | whitespace.
const PIECE = /'(?:s|t|re|ve|m|ll|d)\b| ?\p{L}+| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+/gu;

function pieceCost(p: string): number {
  const c0 = p.charCodeAt(0);
  const body = c0 === 32 && p.length > 1 ? p.slice(1) : p;
  const c = body.charCodeAt(0);
  if (/\s/.test(body[0] ?? "")) {
    // A single space attaches to the next word (free); newlines and longer runs cost one token.
    return body.includes("\n") || body.length > 1 ? 1 : 0;
  }
  if (/\p{L}/u.test(body[0] ?? "")) {
    // Non-Latin scripts (CJK etc.) are ~1 token per character in cl100k.
    if (c > 0x2e7f) return body.length;
    return Math.max(1, Math.ceil(body.length / 4));
  }
  if (/\p{N}/u.test(body[0] ?? "")) return 1;
  // ASCII punctuation merges in pairs in cl100k (`":`, `",`, `."`, `}]`): half a token per char,
  // rounded up. Non-ASCII symbols (emoji, arrows) cost one token per UTF-16 unit.
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < body.length; i++) {
    if (body.charCodeAt(i) < 0x80) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 2) + other;
}

export function countTokens(text: string): number {
  let n = 0;
  for (const m of text.matchAll(PIECE)) n += pieceCost(m[0]);
  return n;
}

/** The longest prefix (cut at a piece boundary, trimmed) whose countTokens is <= maxTokens. */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return "";
  let n = 0;
  let end = 0;
  for (const m of text.matchAll(PIECE)) {
    const c = pieceCost(m[0]);
    if (n + c > maxTokens) break;
    n += c;
    end = (m.index ?? 0) + m[0].length;
  }
  return text.slice(0, end).trimEnd();
}
