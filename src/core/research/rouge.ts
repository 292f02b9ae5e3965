/**
 * ROUGE-1 (Lin, 2004) between two texts, as the rouge-score package computes it by default: text
 * lowercased, every run of characters other than a-z and 0-9 a separator, no stemming; overlap = the
 * sum over unigrams of min(count in candidate, count in reference); precision = overlap / candidate
 * tokens, recall = overlap / reference tokens, F1 their harmonic mean (0 when either is 0). Linear in
 * the texts. SGMC (seed 001, Eq. 10) stops revising a section draft when consecutive drafts are this
 * similar.
 */

export interface Rouge1 {
  precision: number;
  recall: number;
  f1: number;
}

export function rougeTokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function counts(tokens: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

/** ROUGE-1 of `candidate` against `reference`. */
export function rouge1(candidate: string, reference: string): Rouge1 {
  const c = rougeTokens(candidate);
  const r = rougeTokens(reference);
  if (c.length === 0 || r.length === 0) return { precision: 0, recall: 0, f1: 0 };
  const rc = counts(r);
  let overlap = 0;
  for (const [t, n] of counts(c)) overlap += Math.min(n, rc.get(t) ?? 0);
  const precision = overlap / c.length;
  const recall = overlap / r.length;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

export type RougeMeasure = keyof Rouge1;

/**
 * Eq. 10's stop rule over successive drafts M^(1..n): the first iteration t ≥ 2 whose draft is more
 * similar than ε to the one before (ψ = ROUGE-1 `measure` of draft t against draft t-1), else t_max
 * when there are that many drafts, else null (not converged yet). `scores[i]` is ψ between drafts
 * i+1 and i+2 (1-based iterations).
 */
export function convergence(
  drafts: readonly string[],
  epsilon: number,
  tMax = 4,
  measure: RougeMeasure = "f1",
): { scores: Rouge1[]; stop: number | null; reason: "similar" | "t_max" | null } {
  const scores: Rouge1[] = [];
  for (let t = 1; t < drafts.length; t++) scores.push(rouge1(drafts[t] as string, drafts[t - 1] as string));
  for (let t = 2; t <= Math.min(drafts.length, tMax); t++)
    if ((scores[t - 2] as Rouge1)[measure] > epsilon) return { scores, stop: t, reason: "similar" };
  if (drafts.length >= tMax) return { scores, stop: tMax, reason: "t_max" };
  return { scores, stop: null, reason: null };
}
