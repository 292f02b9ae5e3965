/**
 * SGMC's Self-Loop Memory (seed 001 §3.3): the manager agent reviews a worker's output and gives
 * feedback; PaperGuru keeps feedback as records that Eq. 12 later selects. Here a model critiques one
 * draft section version against a reviewer's request and proposes feedback records: each a checklist
 * item (the title), what is wrong and how to fix it, a category, and the draft's own words it is
 * about (quoted verbatim, kept as exact anchors of that draft version). The drafting prompts stay the
 * agent's: this role only proposes feedback, which a user accepts before Eq. 12 may pick it.
 */
import { arrayOf, closedObject, text } from "../json-schema";
import type { JsonSchema } from "../ports";
import type { AnchoredSpan } from "../types";
import {
  anchorQuote,
  type Checked,
  cutText,
  type Dropped,
  listOf,
  type SourceDoc,
  sameSpan,
  sourceBlock,
  textField,
} from "./propose";

export const CRITIQUE_CATEGORIES = ["citation", "accuracy", "coverage", "structure", "clarity"] as const;
export type CritiqueCategory = (typeof CRITIQUE_CATEGORIES)[number];

export interface ProposedFeedback {
  title: string;
  text: string;
  category: CritiqueCategory;
  anchors: AnchoredSpan[];
}

/** One source the draft's evidence quotes: shown to the model so it can check the draft's citations. */
export interface EvidenceSnippet {
  artifactId: string;
  snippet: string;
}

export const MAX_FEEDBACK = 6;
const MAX_TITLE = 200;
const MAX_TEXT = 2000;
/** Characters of the draft (~6,000 tokens) and of the evidence snippets one prompt shows. */
export const MAX_DRAFT_CHARS = 24_000;
const MAX_EVIDENCE_CHARS = 8_000;

/**
 * The prompt lines showing the evidence a draft rests on: a blank line, a heading and one line per
 * snippet while they fit in MAX_EVIDENCE_CHARS (none without evidence). The critique and the refine
 * prompts show it so.
 */
export function evidenceLines(evidence: readonly EvidenceSnippet[]): string[] {
  if (!evidence.length) return [];
  const lines = ["", "Evidence the draft rests on (the cited sources' exact words):"];
  let used = 0;
  for (const e of evidence) {
    if (used + e.snippet.length > MAX_EVIDENCE_CHARS) break;
    lines.push(`- [${e.artifactId}] ${JSON.stringify(e.snippet)}`);
    used += e.snippet.length;
  }
  return lines;
}

export const CRITIQUE_SCHEMA: JsonSchema = closedObject({
  feedback: arrayOf(
    closedObject({
      title: text("A checklist item a writer can apply to any section, imperative, at most 15 words."),
      text: text("What is wrong in this draft and how to fix it, 1-3 sentences."),
      category: { type: "string", enum: [...CRITIQUE_CATEGORIES] },
      quotes: arrayOf(
        text("Words of the draft the problem is in, copied character for character (at most 300 characters)."),
        { minItems: 1, maxItems: 3 },
      ),
    }),
    { maxItems: MAX_FEEDBACK, description: "The problems the request asks about; empty when the draft has none." },
  ),
});

export const CRITIQUE_SYSTEM = [
  "You review one section of a literature review as its manager agent and give feedback the writer will reuse.",
  "Report only real problems the request asks about (unsupported or misquoted citations, inaccuracies, gaps, structure, clarity),",
  "each with the draft's own words it is about, quoted verbatim.",
  "Answer with one JSON object matching the schema and nothing else.",
].join(" ");

/** r* of Eq. 12: the feedback record the critique refers to (Eq. 13), its title and text. */
export interface Checklist {
  id: string;
  title: string;
  text: string;
}

/** Characters of r*'s text a prompt shows. */
const MAX_CHECKLIST_CHARS = 4_000;

export function critiquePrompt(
  request: string,
  title: string,
  draft: SourceDoc,
  evidence: readonly EvidenceSnippet[],
  checklist: Checklist | null = null,
): string {
  const parts = [`Request: ${request}`, ""];
  if (checklist)
    parts.push(
      `Checklist from past feedback (${checklist.id}: the record that needed the fewest revisions and was used most). Check the draft against it first:`,
      `- ${checklist.title}`,
      cutText(checklist.text, MAX_CHECKLIST_CHARS),
      "",
    );
  parts.push(sourceBlock(`Draft of "${title}" (${draft.id}, version ${draft.version})`, draft.text));
  parts.push(...evidenceLines(evidence));
  parts.push("", `Give at most ${MAX_FEEDBACK} items. Every quote must be found verbatim in the draft.`);
  return parts.join("\n");
}

/** The draft as the prompt shows it: a prefix, so anchors keep their offsets. */
export const fitDraft = (draft: SourceDoc): SourceDoc => ({ ...draft, text: cutText(draft.text, MAX_DRAFT_CHARS) });

export function checkCritique(value: unknown, draft: SourceDoc): Checked<ProposedFeedback> | string {
  const list = listOf(value, "feedback");
  if (typeof list === "string") return list;
  const items: ProposedFeedback[] = [];
  const dropped: Dropped[] = [];
  for (const [index, raw] of list.slice(0, MAX_FEEDBACK).entries()) {
    const title = textField(raw, "title").slice(0, MAX_TITLE);
    const text = textField(raw, "text", false).slice(0, MAX_TEXT);
    const category = textField(raw, "category") as CritiqueCategory;
    const drop = (reason: string) => dropped.push({ index, title, what: "item", reason });
    if (!CRITIQUE_CATEGORIES.includes(category)) {
      drop(`category must be one of ${CRITIQUE_CATEGORIES.join(", ")}`);
      continue;
    }
    if (!title || !text) {
      drop("title and text must not be empty");
      continue;
    }
    if (items.some((x) => x.title.toLowerCase() === title.toLowerCase())) {
      drop("a second item with the same title");
      continue;
    }
    const quotes =
      raw !== null && typeof raw === "object" && Array.isArray((raw as { quotes?: unknown }).quotes)
        ? ((raw as { quotes: unknown[] }).quotes.filter((q) => typeof q === "string") as string[])
        : [];
    const anchors: AnchoredSpan[] = [];
    for (const [i, q] of quotes.slice(0, 3).entries()) {
      const at = anchorQuote(draft, q);
      if (typeof at === "string") dropped.push({ index, title, what: "evidence", reason: `quote ${i}: ${at}` });
      else if (!anchors.some((a) => sameSpan(a, at))) anchors.push(at);
    }
    if (anchors.length === 0) {
      drop("no quote is verbatim in the draft");
      continue;
    }
    items.push({ title, text, category, anchors: anchors.sort((a, b) => a.start - b.start) });
  }
  return { items, dropped };
}
