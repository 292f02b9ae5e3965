/**
 * xKG's technique extraction (seed 003 §2.2, Step 1, with Step 2's code links): a model reads a
 * paper's sections and the code units linked to it and proposes the paper's techniques (Methodology
 * or Technique, the extraction prompt's implementable categories; Findings and Resources are left
 * out), each with a definition, the sections it rests on (quoted verbatim) and the code units that
 * implement it (a line of that code quoted verbatim, e.g. the definition's signature). A technique
 * may be a component of one listed before it (the paper's structural edges, as `part-of`).
 */
import { arrayOf, closedObject, quoteOf, text } from "../json-schema";
import type { JsonSchema } from "../ports";
import type { AnchoredSpan } from "../types";
import {
  anchorQuote,
  type Checked,
  type Dropped,
  evidenceAnchors,
  fitDocs,
  listOf,
  objectsField,
  type SourceDoc,
  sourceBlock,
  textField,
} from "./propose";

export interface TitledDoc extends SourceDoc {
  title: string;
}

export interface ProposedTechnique {
  name: string;
  type: "Methodology" | "Technique";
  description: string;
  /** The name of the technique of the same answer it is a component of; null for none. */
  parent: string | null;
  sources: string[];
  anchors: AnchoredSpan[];
  /** Code units that implement it, each with the verified span the model named. */
  code: Array<{ id: string; anchor: AnchoredSpan }>;
}

export const MAX_TECHNIQUES = 12;
const MAX_NAME = 300;
const MAX_DESCRIPTION = 8000;
/** Characters of sections one prompt shows (~7,500 tokens), of one section, of code, of one unit. */
export const MAX_SECTION_CHARS = 30_000;
const MAX_ONE_SECTION = 8_000;
export const MAX_CODE_CHARS = 16_000;
const MAX_ONE_UNIT = 3_000;

export const TECHNIQUES_SCHEMA: JsonSchema = closedObject({
  techniques: arrayOf(
    closedObject({
      name: text("A concise, standard academic name of the technique."),
      type: {
        type: "string",
        enum: ["Methodology", "Technique"],
        description:
          "Methodology: the paper's end-to-end procedure; Technique: a self-contained, implementable component.",
      },
      description: text("What it is, its inputs, core logic and outputs, from the paper only."),
      parent: text("The exact name of a technique listed before this one that it is a component of; empty otherwise."),
      evidence: arrayOf(
        quoteOf(
          "section",
          "The id of the section, as given.",
          "Words copied character for character from that section (at most 300 characters).",
        ),
        { minItems: 1, maxItems: 4 },
      ),
      code: arrayOf(
        quoteOf(
          "unit",
          "The id of the code unit, as given.",
          "A line of that code copied character for character (e.g. the function's signature).",
        ),
        { maxItems: 3, description: "Code units given below that implement it; empty when none does." },
      ),
    }),
    { maxItems: MAX_TECHNIQUES, description: "The paper's implementable techniques; empty when it has none." },
  ),
});

export const TECHNIQUES_SYSTEM = [
  "You build an executable knowledge graph of a research paper.",
  "Identify the paper's core implementable techniques: its end-to-end methodology and the self-contained components it is built from;",
  "not findings, theory or datasets. Define each strictly from the paper, citing the sections you used by id and quoting them verbatim,",
  "and link the code units given that implement it, quoting a line of each.",
  "Answer with one JSON object matching the schema and nothing else.",
].join(" ");

/** The sections and code the prompt shows, each cut to a prefix (anchors keep their offsets). */
export function fitSources<T extends TitledDoc>(
  sections: readonly T[],
  code: readonly T[],
): { sections: T[]; code: T[] } {
  return {
    sections: fitDocs(sections, MAX_ONE_SECTION, MAX_SECTION_CHARS),
    code: fitDocs(code, MAX_ONE_UNIT, MAX_CODE_CHARS),
  };
}

export function techniquesPrompt(
  paperTitle: string,
  sections: readonly TitledDoc[],
  code: readonly TitledDoc[],
): string {
  const parts = [`Paper: ${paperTitle}`, "", `Sections (${sections.length}):`];
  for (const s of sections) parts.push(sourceBlock(`[section ${s.id}] ${s.title}`, s.text));
  parts.push("", code.length ? `Code units (${code.length}):` : "Code units: none given (leave `code` empty).");
  for (const c of code) parts.push(sourceBlock(`[unit ${c.id}] ${c.title}`, c.text));
  parts.push(
    "",
    `Propose at most ${MAX_TECHNIQUES} techniques, components after the technique they belong to. Each quote must be found verbatim in the section or code unit whose id it gives.`,
  );
  return parts.join("\n");
}

export function checkTechniques(
  value: unknown,
  sections: readonly TitledDoc[],
  code: readonly TitledDoc[],
): Checked<ProposedTechnique> | string {
  const list = listOf(value, "techniques");
  if (typeof list === "string") return list;
  const sectionById = new Map(sections.map((s) => [s.id, s]));
  const codeById = new Map(code.map((c) => [c.id, c]));
  const items: ProposedTechnique[] = [];
  const dropped: Dropped[] = [];
  for (const [index, raw] of list.slice(0, MAX_TECHNIQUES).entries()) {
    const name = textField(raw, "name").slice(0, MAX_NAME);
    const type = textField(raw, "type");
    const description = textField(raw, "description", false).slice(0, MAX_DESCRIPTION);
    const drop = (reason: string) => dropped.push({ index, title: name, what: "item", reason });
    if (type !== "Methodology" && type !== "Technique") {
      drop(`type must be Methodology or Technique, not ${JSON.stringify(type)}`);
      continue;
    }
    if (!name || !description) {
      drop("name and description must not be empty");
      continue;
    }
    if (items.some((x) => x.name.toLowerCase() === name.toLowerCase())) {
      drop("a second technique of the same name");
      continue;
    }
    const anchors = evidenceAnchors(raw, "section", sectionById, "section", { index, title: name, dropped });
    if (anchors.length === 0) {
      drop("no quote is verbatim in a section it was given");
      continue;
    }
    const links: ProposedTechnique["code"] = [];
    for (const [i, c] of objectsField(raw, "code").entries()) {
      const id = typeof c.unit === "string" ? c.unit.trim() : "";
      const doc = codeById.get(id);
      const at = doc
        ? anchorQuote(doc, typeof c.quote === "string" ? c.quote : "")
        : `names ${JSON.stringify(id.slice(0, 80))}, a code unit it was not given`;
      if (typeof at === "string") dropped.push({ index, title: name, what: "link", reason: `code ${i}: ${at}` });
      else if (!links.some((l) => l.id === id)) links.push({ id, anchor: at });
    }
    const parentName = textField(raw, "parent");
    let parent: string | null = null;
    if (parentName) {
      const p = items.find((x) => x.name.toLowerCase() === parentName.toLowerCase());
      if (p) parent = p.name;
      else
        dropped.push({
          index,
          title: name,
          what: "link",
          reason: `parent ${JSON.stringify(parentName.slice(0, 80))} is not a technique listed before it`,
        });
    }
    items.push({
      name,
      type,
      description,
      parent,
      sources: [...new Set(anchors.map((a) => a.artifact_id))],
      anchors,
      code: links,
    });
  }
  return { items, dropped };
}
