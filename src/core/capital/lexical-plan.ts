/** The postings a query's lexical expert reads, as the store and a sharded archive's directory plan them. */

/**
 * Which postings a query's lexical expert reads: terms rarest first (they carry the most IDF), at
 * most `maxPostings` per term, until `budget` postings are read; IDF = ln(1 + (N - df + 0.5) /
 * (df + 0.5)) with N the open documents. `counts` are (term hash, postings) across the archive.
 */
export function lexicalPlan(
  counts: Array<[number, number]>,
  n: number,
  maxPostings: number,
  budget: number,
): Array<{ term: number; cap: number; idf: number; count: number }> {
  const known = counts.filter(([, c]) => c > 0).sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  const out: Array<{ term: number; cap: number; idf: number; count: number }> = [];
  let spent = 0;
  for (const [term, count] of known) {
    if (spent >= budget) break;
    const cap = Math.min(maxPostings, budget - spent);
    spent += Math.min(cap, count);
    const df = Math.min(n, count);
    out.push({ term, cap, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)), count });
  }
  return out;
}
