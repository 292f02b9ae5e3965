/**
 * README -> paper association by a model (xKG, seed 003 App. C.2, "Prompt for Finding Associated
 * Paper from Code"), for the READMEs the rules of readme.ts leave without a claimed paper. The model
 * reads the repository's name and its README (cut to MAX_README_CHARS) and answers the full title of
 * the paper the repository is the official or direct implementation of, or null. Pure: the prompt,
 * the schema, the answer's check and the rule that stops invented titles.
 *
 * The rule: an answer is a candidate only when its title, normalised as aliases are (normAlias: case,
 * diacritics and punctuation folded), occurs word for word in the README text the model was shown.
 * A title the README does not write is the model's invention, whatever it knows; a paper the README
 * names only by an identifier is the rules' case (readme.ts). The application then accepts the title
 * only when it names a paper of the archive, matched as the rules' title edges are matched.
 */

import { normAlias } from "../ids";
import { closedObject } from "../json-schema";
import type { JsonSchema } from "../ports";

/** Characters of a README the model reads (~3,000 tokens): a README's claim is near its top. */
export const MAX_README_CHARS = 12_000;
const TITLE_MIN = 8;
const TITLE_MAX = 300;

export const README_PAPER_SCHEMA: JsonSchema = closedObject({
  paper_title: {
    type: ["string", "null"],
    description:
      "The full title of the paper this repository is the official or direct implementation of, as the README writes it; null when there is no clear evidence.",
  },
});

export const README_PAPER_SYSTEM =
  "You analyse GitHub repositories for an executable knowledge graph of research papers. Answer with one JSON object matching the schema and nothing else.";

/** App. C.2's prompt, with the README given (cut) and the answer as the schema's field. */
export function readmePaperPrompt(repo: string, readme: string): string {
  return [
    "# Task",
    `Analyze this GitHub repository ${repo}, and determine whether this repository is directly associated with a specific academic paper.`,
    "",
    "# Input",
    "The README file of the project:",
    "<<<",
    readme,
    ">>>",
    "",
    "# Output",
    "1. If you can find clear evidence that this repository is the official or direct code implementation of a specific academic paper, return the full title of the paper as a string (paper_title), copied from the README.",
    "2. If there is no sufficient evidence to identify a directly corresponding paper (e.g., only general descriptions, multiple papers, or no paper mentioned), return null.",
  ].join("\n");
}

/** The answer's title (one line, trimmed), null for "no paper", or why the answer is not of the schema. */
export function readmePaperAnswer(value: unknown): { title: string | null } | string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "the answer is not a JSON object";
  const raw = (value as Record<string, unknown>).paper_title;
  if (raw === null || raw === undefined) return { title: null };
  if (typeof raw !== "string") return "paper_title is not a string or null";
  const title = raw
    .replace(/[*_`"“”]+/g, " ")
    .replace(/\s+/g, " ")
    .replace(/[\s.,:;]+$/, "")
    .trim();
  if (!title || /^(?:none|null|n\/a)$/i.test(title)) return { title: null };
  return { title };
}

/** Why a title the model gave cannot stand for the README's paper, or null when it can (the header's rule). */
export function titleRefusal(title: string, readmeShown: string): string | null {
  if (title.length < TITLE_MIN || title.length > TITLE_MAX)
    return `the title has ${title.length} characters (a paper title has ${TITLE_MIN}-${TITLE_MAX})`;
  const key = normAlias(title);
  if (!key) return "the title has no letters or digits";
  if (!` ${normAlias(readmeShown)} `.includes(` ${key} `)) return "the README does not write this title";
  return null;
}
