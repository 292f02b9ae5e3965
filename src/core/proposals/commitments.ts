/**
 * ProjectGuard's commitment extraction (seed 002, B.1 "Semantic State Updates"): a helper reads the
 * recent turns of a coding session and proposes the design and decision records they commit to.
 * Conservative, as the seed asks: a record needs the turns' own words (quotes located verbatim in the
 * turn they cite), records are proposals (status `proposed`) that a user commits or rejects, and
 * nothing the turns only float is recorded. A decision may name the design it operationalises: one of
 * the archive's designs listed in the prompt, or a design of the same answer (by title).
 */
import { arrayOf, closedObject, quoteOf, text } from "../json-schema";
import type { JsonSchema } from "../ports";
import type { AnchoredSpan } from "../types";
import {
  type Checked,
  type Dropped,
  evidenceAnchors,
  fitDocs,
  listOf,
  type SourceDoc,
  sourceBlock,
  textField,
} from "./propose";

/** One turn the model reads: a session event or a turn record, under the chunk id it is (or becomes). */
export interface Turn extends SourceDoc {
  role: string;
  at: number;
}

/** A design of the archive a decision may be part of. */
export interface DesignRef {
  id: string;
  title: string;
}

/** A design or decision record the archive keeps, which an answer may revise (B.1: edits over growth). */
export interface RecordRef {
  id: string;
  kind: "design" | "decision";
  title: string;
  /** Its status annotation (committed, proposed, ...; "none" without one). */
  status: string;
  /** The start of its current content. */
  content: string;
}

export interface ProposedCommitment {
  kind: "design" | "decision";
  title: string;
  content: string;
  /** A listed design's id, or `title:<title>` of a design in the same answer; null for none. */
  design: string | null;
  /** The listed record it revises (its next version), or null for a new record. */
  revises: string | null;
  /** The turns it cites with verified quotes, in first-cited order. */
  sources: string[];
  anchors: AnchoredSpan[];
}

export const MAX_COMMITMENTS = 8;
const MAX_TITLE = 200;
const MAX_CONTENT = 4000;
/** Characters of turns one prompt shows (~6,000 tokens), and of one turn. */
export const MAX_TURN_CHARS = 24_000;
const MAX_ONE_TURN = 6_000;

export const COMMITMENTS_SCHEMA: JsonSchema = closedObject({
  records: arrayOf(
    closedObject({
      kind: {
        type: "string",
        enum: ["design", "decision"],
        description:
          "design: method structure, an architectural constraint or another long-lived commitment; decision: a specific implementation choice (interface, parameter, training or evaluation choice).",
      },
      title: text("The commitment's name, at most 12 words."),
      content: text("The commitment as the turns settle it, 1-3 self-contained sentences."),
      design: text(
        "For a decision: the id of a listed design, or the exact title of a design in this answer, it operationalises; empty otherwise.",
      ),
      revises: text(
        "The id of a listed record this one revises (the turns change or refine it), of the same kind; empty for a new commitment.",
      ),
      evidence: arrayOf(
        quoteOf(
          "turn",
          "The id of the turn, as given.",
          "Words copied character for character from that turn (at most 300 characters).",
        ),
        { minItems: 1, maxItems: 4 },
      ),
    }),
    { maxItems: MAX_COMMITMENTS, description: "The commitments the turns settle; empty when they settle none." },
  ),
});

export const COMMITMENTS_SYSTEM = [
  "You keep a coding project's semantic state: its design and decision records.",
  "From the turns of a session, propose the commitments the user settled or accepted (a request, an explicit choice, an agreed result);",
  "not every suggestion an assistant floated, not alternatives that were discussed and dropped, not routine edits.",
  "Every record cites the turns it comes from by their ids and quotes them verbatim.",
  "When the turns change or refine a record already kept, revise it (give its id in `revises`) instead of adding a second record beside it.",
  "Answer with one JSON object matching the schema and nothing else.",
].join(" ");

/** The prompt: the archive's designs (id and title), then each turn under its id. */
export function commitmentsPrompt(
  turns: readonly Turn[],
  designs: readonly DesignRef[],
  records: readonly RecordRef[] = [],
): string {
  const parts: string[] = [];
  if (records.length)
    parts.push(
      "Records already kept (revise one by giving its id in `revises`):",
      ...records.map((r) => `- ${r.id} (${r.kind}, ${r.status}): ${r.title}: ${r.content.replace(/\s+/gu, " ")}`),
      "",
    );
  if (designs.length)
    parts.push(
      "Designs already recorded (a decision may name one of these ids in `design`):",
      ...designs.map((d) => `- ${d.id}: ${d.title}`),
      "",
    );
  parts.push(`Turns of the session, oldest first (${turns.length}):`);
  for (const t of turns) parts.push(sourceBlock(`[turn ${t.id}] ${t.role}`, t.text));
  parts.push(
    "",
    `Propose at most ${MAX_COMMITMENTS} records. Quote the turn's own words: each quote must be found verbatim in the turn whose id it gives.`,
  );
  return parts.join("\n");
}

/**
 * The turns the prompt shows: the most recent first kept whole up to MAX_ONE_TURN characters, until
 * MAX_TURN_CHARS; returned oldest first. A turn cut keeps a prefix, so anchors keep their offsets.
 */
export function fitTurns<T extends Turn>(turns: readonly T[], maxChars = MAX_TURN_CHARS): T[] {
  return fitDocs(
    [...turns].sort((a, b) => b.at - a.at),
    MAX_ONE_TURN,
    maxChars,
  ).reverse();
}

/** The verified records of an answer; every item is checked against the turns the model was given. */
export function checkCommitments(
  value: unknown,
  turns: readonly Turn[],
  designs: readonly DesignRef[],
  records: readonly RecordRef[] = [],
): Checked<ProposedCommitment> | string {
  const recordById = new Map(records.map((r) => [r.id, r]));
  const recordByTitle = new Map(records.map((r) => [`${r.kind}\u0000${r.title.toLowerCase()}`, r.id]));
  const revised = new Set<string>();
  const list = listOf(value, "records");
  if (typeof list === "string") return list;
  const byId = new Map(turns.map((t) => [t.id, t]));
  const designIds = new Set(designs.map((d) => d.id));
  const items: ProposedCommitment[] = [];
  const dropped: Dropped[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of list.slice(0, MAX_COMMITMENTS).entries()) {
    const kind = textField(raw, "kind");
    const title = textField(raw, "title").slice(0, MAX_TITLE);
    const content = textField(raw, "content", false).slice(0, MAX_CONTENT);
    const drop = (reason: string) => dropped.push({ index, title, what: "item", reason });
    if (kind !== "design" && kind !== "decision") {
      drop(`kind must be design or decision, not ${JSON.stringify(kind)}`);
      continue;
    }
    if (!title || !content) {
      drop("title and content must not be empty");
      continue;
    }
    const key = `${kind}\u0000${title.toLowerCase()}`;
    if (seen.has(key)) {
      drop(`a second ${kind} titled the same`);
      continue;
    }
    const anchors = evidenceAnchors(raw, "turn", byId, "turn", { index, title, dropped });
    if (anchors.length === 0) {
      drop("no quote is verbatim in a turn it was given");
      continue;
    }
    // A revision names a listed record of its kind; a new record titled as a kept one revises it.
    const asked = textField(raw, "revises");
    let revises: string | null = null;
    if (asked) {
      const r = recordById.get(asked);
      if (r && r.kind === kind) revises = asked;
      else
        dropped.push({
          index,
          title,
          what: "link",
          reason: r
            ? `revises ${JSON.stringify(asked.slice(0, 80))}, a ${r.kind}, not a ${kind}`
            : `revises ${JSON.stringify(asked.slice(0, 80))}, a record it was not given`,
        });
    }
    revises ??= recordByTitle.get(key) ?? null;
    if (revises !== null && revised.has(revises)) {
      drop(`a second revision of ${revises}`);
      continue;
    }
    if (revises !== null) revised.add(revises);
    seen.add(key);
    const named = kind === "decision" ? textField(raw, "design") : "";
    let design: string | null = null;
    if (named && designIds.has(named)) design = named;
    else if (named) design = `title:${named}`;
    items.push({
      kind,
      title,
      content,
      design,
      revises,
      sources: [...new Set(anchors.map((a) => a.artifact_id))],
      anchors,
    });
  }
  // A decision naming a design by title needs that design in the answer; otherwise the link goes.
  const designTitles = new Set(items.filter((x) => x.kind === "design").map((x) => x.title.toLowerCase()));
  for (const [i, x] of items.entries()) {
    if (!x.design?.startsWith("title:")) continue;
    const t = x.design.slice(6);
    if (designTitles.has(t.toLowerCase())) continue;
    dropped.push({
      index: list.findIndex((r) => textField(r, "title").slice(0, MAX_TITLE) === x.title),
      title: x.title,
      what: "link",
      reason: `design ${JSON.stringify(t.slice(0, 80))} is neither a listed design id nor a design of this answer`,
    });
    (items[i] as ProposedCommitment).design = null;
  }
  return { items, dropped };
}
