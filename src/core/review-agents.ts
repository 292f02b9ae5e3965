/**
 * Review agents (Paper Circle, seed 004 C33): reviewer reports for one paper from the configured
 * language model. The model reads the paper's chunk and its sections (exact versions) and writes up
 * to `reviewers` reports, each a summary, a score from 1 to 10, a confidence from 1 to 5 and claims
 * (strengths, weaknesses, questions), every claim citing one of the given chunk ids and quoting its
 * words. A claim is kept only when its quote is verbatim in the text of the id it cites (located and
 * re-sliced as an anchor of that exact version: src/core/proposals/propose.ts anchorQuote); other
 * claims are dropped and counted, and a report left without a claim is dropped. Pure: the prompt, the
 * schema and the check; the caller asks the model and writes.
 */
import { arrayOf, closedObject, text } from "./json-schema";
import type { JsonSchema } from "./ports";
import {
  anchorQuote,
  type Checked,
  type Dropped,
  listOf,
  objectsField,
  type SourceDoc,
  textField,
} from "./proposals/propose";
import type { AnchoredSpan } from "./types";

export const MAX_REVIEWERS = 3;
export const MAX_CLAIMS = 8;
export const CLAIM_KINDS = ["strength", "weakness", "question"] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];
/** Characters of one source and of all sources one prompt shows (~10,000 tokens). */
export const MAX_SOURCE_CHARS = 12_000;
export const MAX_PROMPT_SOURCE_CHARS = 40_000;

export interface ReviewClaim {
  kind: ClaimKind;
  text: string;
  anchor: AnchoredSpan;
}

export interface ReviewReport {
  reviewer: string;
  summary: string;
  score: number;
  confidence: number;
  claims: ReviewClaim[];
}

export function reviewSchema(ids: readonly string[], reviewers: number): JsonSchema {
  return closedObject({
    reports: arrayOf(
      closedObject({
        reviewer: text("The reviewer's angle, e.g. methods, experiments, clarity."),
        summary: text("What the paper claims and how well it supports it, 2-4 sentences."),
        score: { type: "number", minimum: 1, maximum: 10, description: "Overall score, 1 (reject) to 10 (award)." },
        confidence: { type: "integer", minimum: 1, maximum: 5 },
        claims: arrayOf(
          closedObject({
            kind: { type: "string", enum: [...CLAIM_KINDS] },
            text: text("The strength, weakness or question, one or two sentences."),
            source: { type: "string", enum: [...ids], description: "The id of the text the quote is from." },
            quote: text("Words of that text the claim is about, copied character for character (at most 300)."),
          }),
          { minItems: 1, maxItems: MAX_CLAIMS },
        ),
      }),
      { minItems: 1, maxItems: reviewers },
    ),
  });
}

export const REVIEW_SYSTEM = [
  "You are a panel of peer reviewers of one research paper. Each reviewer takes one angle",
  "(methods, experiments, clarity, novelty) and writes a report: a summary, a score from 1 to 10, a confidence",
  "from 1 to 5, and claims, each citing the id of the text it is about and quoting that text verbatim.",
  "Answer with one JSON object matching the schema and nothing else.",
].join(" ");

/** The system message: the role, the number of reviewers and the caller's focus. */
export function reviewSystem(reviewers: number, focus: string | undefined): string {
  return `${REVIEW_SYSTEM} Write ${reviewers} report${reviewers === 1 ? "" : "s"}.${focus ? ` Focus: ${focus}` : ""}`;
}

/** The user message: the sources, each under its id and version (quotes must come from them). */
export function reviewPrompt(docs: readonly SourceDoc[]): string {
  return docs.map((d) => `Source ${d.id} (version ${d.version}):\n<<<\n${d.text}\n>>>`).join("\n\n");
}

const clampInt = (x: unknown, lo: number, hi: number): number | null =>
  typeof x === "number" && Number.isFinite(x) ? Math.min(hi, Math.max(lo, Math.round(x))) : null;

/** The verified reports of an answer (see the module comment), or why the answer cannot be used. */
export function checkReviews(
  value: unknown,
  docs: readonly SourceDoc[],
  reviewers: number,
): Checked<ReviewReport> | string {
  const list = listOf(value, "reports");
  if (typeof list === "string") return list;
  const byId = new Map(docs.map((d) => [d.id, d]));
  const items: ReviewReport[] = [];
  const dropped: Dropped[] = [];
  for (const [index, raw] of list.slice(0, reviewers).entries()) {
    const reviewer = textField(raw, "reviewer").slice(0, 200) || `reviewer ${index + 1}`;
    const summary = textField(raw, "summary", false).slice(0, 4000);
    const r = raw as Record<string, unknown> | null;
    const scoreRaw = r && typeof r === "object" ? r.score : undefined;
    const score =
      typeof scoreRaw === "number" && Number.isFinite(scoreRaw) ? Math.min(10, Math.max(1, scoreRaw)) : null;
    const confidence = clampInt(r && typeof r === "object" ? r.confidence : undefined, 1, 5);
    const drop = (reason: string) => dropped.push({ index, title: reviewer, what: "item", reason });
    if (!summary || score === null || confidence === null) {
      drop("summary, score and confidence are required");
      continue;
    }
    const claims: ReviewClaim[] = [];
    for (const [i, c] of objectsField(raw, "claims").slice(0, MAX_CLAIMS).entries()) {
      const kind = textField(c, "kind") as ClaimKind;
      const text = textField(c, "text", false).slice(0, 2000);
      const source = textField(c, "source");
      const quote = textField(c, "quote", false);
      const bad = (reason: string) =>
        dropped.push({ index, title: reviewer, what: "evidence", reason: `claim ${i}: ${reason}` });
      if (!CLAIM_KINDS.includes(kind)) {
        bad(`kind must be one of ${CLAIM_KINDS.join(", ")}`);
        continue;
      }
      if (!text) {
        bad("the claim's text is empty");
        continue;
      }
      const doc = byId.get(source);
      if (!doc) {
        bad(`source ${JSON.stringify(source.slice(0, 80))} is not one of the ids given`);
        continue;
      }
      const at = anchorQuote(doc, quote);
      if (typeof at === "string") {
        bad(at);
        continue;
      }
      claims.push({ kind, text, anchor: at });
    }
    if (!claims.length) {
      drop("no claim quotes the paper verbatim");
      continue;
    }
    items.push({ reviewer, summary, score: Math.round(score * 10) / 10, confidence, claims });
  }
  return { items, dropped };
}
