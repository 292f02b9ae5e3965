/**
 * SGMC's Self-Loop Memory, the worker's side (seed 001, Eq. 14): Y^(x) = A_W(C, R^(x-1)). A model
 * rewrites one draft section version following the review's feedback items and the context C (the
 * request), keeping to the evidence the draft rests on. The answer is the whole revised section.
 */
import { closedObject, text } from "../json-schema";
import type { JsonSchema } from "../ports";
import { type EvidenceSnippet, evidenceLines, type ProposedFeedback } from "./critique";
import { type Checked, cutText, type SourceDoc, sourceBlock } from "./propose";

/** Characters of a refined section (the draft route's limit). */
export const MAX_REFINED_CHARS = 400_000;

export const REFINE_SCHEMA: JsonSchema = closedObject({
  text: text("The whole revised section, every feedback item applied."),
});

export const REFINE_SYSTEM = [
  "You revise one section of a literature review as its writer.",
  "Apply every feedback item, keep each claim to what the evidence supports, and keep the rest of the section.",
  "Answer with one JSON object matching the schema and nothing else.",
].join(" ");

export function refinePrompt(
  request: string,
  title: string,
  draft: SourceDoc,
  feedback: readonly ProposedFeedback[],
  evidence: readonly EvidenceSnippet[],
): string {
  const parts = [
    `Request: ${request}`,
    "",
    sourceBlock(`Draft of "${title}" (${draft.id}, version ${draft.version})`, draft.text),
    "",
    "Feedback to apply:",
    ...feedback.map(
      (f, i) =>
        `${i + 1}. [${f.category}] ${f.title}: ${f.text} (about: ${f.anchors.map((a) => JSON.stringify(a.snippet)).join(", ")})`,
    ),
  ];
  parts.push(...evidenceLines(evidence));
  parts.push("", "Return the whole revised section as `text`.");
  return parts.join("\n");
}

/** The revised text, or why the answer cannot be used. */
export function checkRefine(value: unknown): Checked<string> | string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "the answer is not a JSON object";
  const text = (value as { text?: unknown }).text;
  if (typeof text !== "string" || text.trim().length === 0) return "text is missing or empty";
  return { items: [cutText(text.trim(), MAX_REFINED_CHARS)], dropped: [] };
}
