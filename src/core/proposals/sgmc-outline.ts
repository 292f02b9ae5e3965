/**
 * SGMC's A_O through a model (seed 001, Eq. 2): sub-outlines {O_j} = A_O({L_i}) proposed from the
 * references' titles and abstracts. Each direction names the references it came from by their ids;
 * the check keeps only ids among the inputs (others are dropped and reported) and drops a direction
 * left with none, as the other model roles' checks do for their sources.
 */
import { arrayOf, closedObject, text } from "../json-schema";
import type { JsonSchema } from "../ports";
import { type Checked, cutText, type Dropped, listOf, textField } from "./propose";

export interface OutlineReference {
  id: string;
  title: string;
  abstract: string;
}

export interface ProposedDirection {
  title: string;
  synopsis: string;
  references: string[];
}

const MAX_TITLE = 200;
const MAX_SYNOPSIS = 1000;
/** Characters of one reference's abstract, and of all, a prompt shows. */
const MAX_ABSTRACT_CHARS = 1_200;
const MAX_ALL_CHARS = 60_000;

export const outlineSchema = (maxDirections: number): JsonSchema =>
  closedObject({
    directions: arrayOf(
      closedObject({
        title: text("The sub-direction as a section heading, at most 10 words."),
        synopsis: text("What the section covers, 1-2 sentences."),
        references: arrayOf(text("An id of a reference above this direction comes from."), { minItems: 1 }),
      }),
      { maxItems: maxDirections },
    ),
  });

export const OUTLINE_SYSTEM = [
  "You outline one section of a literature review from the references retrieved for it.",
  "Propose the sub-directions the references cover, each as a section heading with the references it comes from, by their ids.",
  "Answer with one JSON object matching the schema and nothing else.",
].join(" ");

export function outlinePrompt(
  title: string,
  synopsis: string,
  refs: readonly OutlineReference[],
  maxDirections: number,
): string {
  const parts = [`Section: ${title}`];
  if (synopsis) parts.push(`About: ${synopsis}`);
  parts.push("", "References (id, title, abstract):");
  let used = 0;
  for (const r of refs) {
    const abs = cutText(r.abstract, MAX_ABSTRACT_CHARS);
    if (used + abs.length > MAX_ALL_CHARS) break;
    used += abs.length;
    parts.push(`- [${r.id}] ${r.title}${abs ? `: ${abs}` : ""}`);
  }
  parts.push("", `Give at most ${maxDirections} directions; cite only the ids above.`);
  return parts.join("\n");
}

export function checkOutline(value: unknown, inputs: ReadonlySet<string>): Checked<ProposedDirection> | string {
  const list = listOf(value, "directions");
  if (typeof list === "string") return list;
  const items: ProposedDirection[] = [];
  const dropped: Dropped[] = [];
  for (const [index, raw] of list.entries()) {
    const title = textField(raw, "title").slice(0, MAX_TITLE);
    const synopsis = textField(raw, "synopsis").slice(0, MAX_SYNOPSIS);
    if (!title) {
      dropped.push({ index, title, what: "item", reason: "title must not be empty" });
      continue;
    }
    if (items.some((x) => x.title.toLowerCase() === title.toLowerCase())) {
      dropped.push({ index, title, what: "item", reason: "a second direction with the same title" });
      continue;
    }
    const ids =
      raw !== null && typeof raw === "object" && Array.isArray((raw as { references?: unknown }).references)
        ? ((raw as { references: unknown[] }).references.filter((x) => typeof x === "string") as string[])
        : [];
    const kept: string[] = [];
    for (const id of ids) {
      if (!inputs.has(id)) dropped.push({ index, title, what: "link", reason: `${id} is not among the references` });
      else if (!kept.includes(id)) kept.push(id);
    }
    if (!kept.length) {
      dropped.push({ index, title, what: "item", reason: "cites none of the references given" });
      continue;
    }
    items.push({ title, synopsis, references: kept });
  }
  return { items, dropped };
}
