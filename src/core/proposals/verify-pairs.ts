/**
 * xKG's final LLM-based Verifier (seed 003 §2.4: "all retrieved candidates are processed by a final
 * LLM-based Verifier ... filtering, reranking, and refining"): the model reads the query and the
 * candidate (technique, code) pairs, each under an id it did not choose (`p1`, `p2`, ...), and
 * answers one verdict per pair, keep or drop with a reason, the kept pairs in the order it would use
 * them. Pure: the prompt, the schema and the check; the call goes through the model port
 * (propose.ts), the reading and reordering are src/app/code-pairs-verify.ts.
 *
 * The check accepts only the candidates' ids (an id the model invents is ignored and reported) and
 * one verdict per pair (a second is ignored); an answer that judges no candidate is asked once more.
 */
import { arrayOf, closedObject, text } from "../json-schema";
import type { JsonSchema } from "../ports";
import { type Checked, cutText, type Dropped, listOf, sourceBlock, textField } from "./propose";

/** Pairs one verification reads (the first in the router's order); the others are not verified. */
export const MAX_VERIFY_PAIRS = 24;
/** Characters of a technique's text and of a code span the prompt shows (24 pairs: ~60,000 in all). */
export const MAX_VERIFY_TECHNIQUE_CHARS = 800;
export const MAX_VERIFY_CODE_CHARS = 1600;
const MAX_REASON = 500;

export interface PairCandidate {
  /** The id the prompt gives the pair (`p<n>`, 1-based in the router's order). */
  id: string;
  technique: { id: string; title: string; text: string };
  code: { id: string; title: string; text: string } | null;
}

export interface PairVerdict {
  /** The candidate's id. */
  pair: string;
  keep: boolean;
  reason: string;
}

export const VERIFY_SCHEMA: JsonSchema = closedObject({
  pairs: arrayOf(
    closedObject({
      pair: text("The candidate's id, as given (p1, p2, ...)."),
      keep: {
        type: "boolean",
        description: "true: relevant to the query and usable as implementation guidance; false: noise.",
      },
      reason: text("One sentence: why it is kept or dropped."),
    }),
    {
      maxItems: MAX_VERIFY_PAIRS,
      description: "One verdict per candidate pair: the kept pairs first, most useful first, then the dropped ones.",
    },
  ),
});

export const VERIFY_SYSTEM = [
  "You are the verifier of an executable knowledge graph's retrieval for reproducing research code.",
  "Candidates are (technique, code) pairs retrieved for a query. Keep a pair only when the technique is relevant to the query",
  "and its code (when given) implements that technique; drop noise. Give every candidate one verdict with a reason,",
  "the kept pairs first in the order an engineer should read them. Use only the candidate ids given.",
  "Answer with one JSON object matching the schema and nothing else.",
].join(" ");

/** The candidates' texts cut to the prompt's bounds. */
export function fitCandidates(candidates: readonly PairCandidate[]): PairCandidate[] {
  return candidates.slice(0, MAX_VERIFY_PAIRS).map((c) => ({
    ...c,
    technique: { ...c.technique, text: cutText(c.technique.text, MAX_VERIFY_TECHNIQUE_CHARS) },
    code: c.code ? { ...c.code, text: cutText(c.code.text, MAX_VERIFY_CODE_CHARS) } : null,
  }));
}

export function verifyPrompt(query: string, candidates: readonly PairCandidate[]): string {
  const parts = [`Query: ${query}`, "", `Candidate pairs (${candidates.length}):`];
  for (const c of candidates) {
    parts.push("", `## ${c.id}`, sourceBlock(`[technique ${c.technique.id}] ${c.technique.title}`, c.technique.text));
    parts.push(c.code ? sourceBlock(`[code ${c.code.id}] ${c.code.title}`, c.code.text) : "[code] none stored");
  }
  parts.push("", `Give one verdict for each of the ${candidates.length} pairs, by its id.`);
  return parts.join("\n");
}

/**
 * The verdicts of an answer, in its order, for candidate ids only and one per pair; entries naming
 * another id, repeating a pair or without a boolean `keep` are dropped (reported). An answer with no
 * entry is unusable (asked once more).
 */
export function checkVerdicts(value: unknown, candidates: readonly PairCandidate[]): Checked<PairVerdict> | string {
  const list = listOf(value, "pairs");
  if (typeof list === "string") return list;
  if (list.length === 0 && candidates.length > 0) return `the answer judges none of the ${candidates.length} pairs`;
  const ids = new Set(candidates.map((c) => c.id));
  const items: PairVerdict[] = [];
  const dropped: Dropped[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of list.entries()) {
    const pair = textField(raw, "pair").slice(0, 64);
    const keep = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>).keep : undefined;
    const drop = (reason: string) => dropped.push({ index, title: pair, what: "item", reason });
    if (!ids.has(pair)) drop(`${JSON.stringify(pair)} is not a candidate pair id`);
    else if (seen.has(pair)) drop(`a second verdict on ${pair} (the first is kept)`);
    else if (typeof keep !== "boolean") drop(`keep of ${pair} is not true or false`);
    else {
      seen.add(pair);
      items.push({ pair, keep, reason: textField(raw, "reason").slice(0, MAX_REASON) });
    }
  }
  return { items, dropped };
}
