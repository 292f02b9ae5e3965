/**
 * Paper identity shared by every importer, so the same work reaches the same chunk from BibTeX, arXiv,
 * OpenAlex, Crossref or a full-text JSON: the chunk id (and its own entity id) is the arXiv id when
 * there is one, else the DOI, else the OpenAlex id, else `paper:<slug of the title>`; every other
 * identifier becomes an alias of that entity, so any form resolves to it, and so does the title and
 * the system's name a title leads with ("HippoRAG: Neurobiologically Inspired ..." -> "HippoRAG").
 */

import { canonicalEntityId, canonicalPaperId, leadingName, slug } from "../ids";
import type { EntityInput } from "../types";
import { UNDATED } from "../types";

/** arXiv-minted DOIs (10.48550/arXiv.2405.14831) are the arXiv id in another form. */
const ARXIV_DOI = /^doi:10\.48550\/arxiv\.(.+)$/i;

function rank(id: string): number {
  return id.startsWith("arxiv:") ? 0 : id.startsWith("doi:") ? 1 : id.startsWith("openalex:") ? 2 : 3;
}

export interface PaperIdentity {
  /** Chunk id and entity id of the paper. */
  id: string;
  /** All canonical identifiers (id first). */
  ids: string[];
  /** The paper's own entity: id, name = title, aliases = the other ids and the title. */
  entity: EntityInput;
}

/**
 * Canonical identity from identifiers written in any form ("arXiv:2405.14831v2", "10.1145/x",
 * "https://openalex.org/W1") and a title. Returns null when there is neither an id nor a title.
 */
export function paperIdentity(rawIds: Array<string | null | undefined>, title: string): PaperIdentity | null {
  const ids = new Set<string>();
  for (const raw of rawIds) {
    if (!raw) continue;
    const c = canonicalPaperId(raw);
    if (!c) continue;
    const arxivDoi = ARXIV_DOI.exec(c);
    if (arxivDoi?.[1]) {
      const a = canonicalPaperId(`arXiv:${arxivDoi[1]}`);
      if (a) ids.add(a);
    }
    ids.add(c);
  }
  const cleanTitle = title.replace(/\s+/g, " ").trim();
  const sorted = [...ids].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  const titleSlug = slug(cleanTitle);
  const id = sorted[0] ?? (titleSlug ? `paper:${titleSlug.slice(0, 200)}` : null);
  if (!id) return null;
  const all = sorted.length ? sorted : [id];
  const lead = leadingName(cleanTitle);
  return {
    id,
    ids: all,
    entity: {
      type: "paper",
      id,
      name: cleanTitle || id,
      aliases: [...all.slice(1), ...(cleanTitle ? [cleanTitle] : []), ...(lead ? [lead] : [])],
    },
  };
}

/** Metadata lines the importers write into a paper's content ("Authors: ..."), in this order. */
export const META_LABELS = [
  "Authors",
  "Editors",
  "In",
  "Publisher",
  "Date",
  "DOI",
  "arXiv",
  "URL",
  "Keywords",
] as const;

/**
 * A paper imported from BibTeX ends its content with the entry as written, after this line
 * (formats/bibtex writes it, the BibTeX export gives it back, merges keep it last).
 */
export const ENTRY_MARK = "\nBibTeX:\n";

/** A paper's content split into its text and the BibTeX entry block (from ENTRY_MARK on, or ""). */
export function splitEntry(content: string): { body: string; entry: string } {
  const at = content.lastIndexOf(ENTRY_MARK);
  return at < 0 ? { body: content, entry: "" } : { body: content.slice(0, at), entry: content.slice(at) };
}

function metaLine(content: string, label: string): string | null {
  return new RegExp(`^${label}:[ \\t]*\\S.*$`, "m").exec(content)?.[0] ?? null;
}

/**
 * Two records of one work merged field by field: the winner's text, plus each metadata line
 * (authors, venue, date, identifiers, ...) the winner lacks and the other has, plus the other's
 * BibTeX entry when the winner has none (kept last, where the BibTeX export looks for it).
 * Deterministic and idempotent: merging the result with either record again adds nothing.
 */
export function mergePaperContent(winner: string, other: string): { content: string; added: string[] } {
  const w = splitEntry(winner);
  const o = splitEntry(other);
  const body = w.body;
  const otherBody = o.body;
  const entry = w.entry || o.entry;
  const added: string[] = [];
  const lines: string[] = [];
  for (const label of META_LABELS) {
    if (metaLine(body, label)) continue;
    const l = metaLine(otherBody, label);
    if (l) {
      lines.push(l);
      added.push(label);
    }
  }
  if (!w.entry && entry) added.push("BibTeX");
  return { content: `${body}${lines.length ? `\n${lines.join("\n")}` : ""}${entry}`, added };
}

/**
 * A record's text against its stored version, to tell whether the record changed: the stored text
 * itself when it is the record's text followed by metadata lines of labels the record lacks (lines
 * other records' merges appended, in the order they came) and the record's BibTeX entry, or the
 * other's when the record has none; else mergePaperContent(record, stored), whose text then
 * differs from the stored one. `added` names the labels of the lines taken from the stored text.
 */
export function restatePaperContent(record: string, stored: string): { content: string; added: string[] } {
  const r = splitEntry(record);
  const s = splitEntry(stored);
  const rest = s.body.startsWith(r.body) ? s.body.slice(r.body.length) : null;
  if (rest !== null && (r.entry === s.entry || r.entry === "")) {
    const lines = rest === "" ? [] : rest.startsWith("\n") ? rest.slice(1).split("\n") : null;
    const labels = lines?.map((l) => META_LABELS.find((m) => l.startsWith(`${m}:`) && metaLine(l, m) === l));
    if (labels?.every((m) => m !== undefined && !metaLine(r.body, m)) && new Set(labels).size === labels.length)
      return { content: stored, added: [...(labels as string[]), ...(r.entry === "" && s.entry ? ["BibTeX"] : [])] };
  }
  return mergePaperContent(record, stored);
}

/**
 * The canonical identifiers the `DOI:` and `arXiv:` lines among `labels` state in a paper's content
 * (the lines a merge added name the same work in another form).
 */
export function idsOfLines(content: string, labels: readonly string[]): string[] {
  const { body } = splitEntry(content);
  const ids: string[] = [];
  for (const [label, prefix] of [
    ["DOI", ""],
    ["arXiv", "arXiv:"],
  ] as const) {
    if (!labels.includes(label)) continue;
    const value = metaLine(body, label)
      ?.slice(label.length + 1)
      .trim();
    const id = value ? canonicalPaperId(`${prefix}${value}`) : null;
    if (id) ids.push(id);
  }
  return ids;
}

/** A paper record's metadata beyond its text: its declared entities and its boundaries. */
export interface PaperFields {
  entities: readonly EntityInput[];
  boundaries: readonly string[];
}

/**
 * The fields a merge carries from one record of a work to another, named by their prefix: authors
 * (`person:` entities), venue (`venue:` entities), year (a `year:<yyyy>` boundary), BibTeX type
 * (`bibtex:<type>`) and keywords (`keyword:<k>` boundaries).
 */
export const PAPER_FIELDS = ["person:", "venue:", "year:", "bibtex:", "keyword:"] as const;
export type PaperField = (typeof PAPER_FIELDS)[number];

const ENTITY_FIELDS: readonly PaperField[] = ["person:", "venue:"];

function boundaryField(b: string): PaperField | null {
  const t = b.trim().toLowerCase();
  if (/^year:\d{4}$/.test(t)) return "year:";
  if (t.startsWith("bibtex:")) return "bibtex:";
  if (t.startsWith("keyword:")) return "keyword:";
  return null;
}

function entityField(e: EntityInput): PaperField | null {
  const id = canonicalEntityId(e.type, e.id ?? e.name);
  return ENTITY_FIELDS.find((f) => id.startsWith(f)) ?? null;
}

/**
 * Two records of one work merged field by field (beside mergePaperContent for their text): every
 * field of PAPER_FIELDS the winner states stays as it is, and each one it does not state takes the
 * other record's value whole (all its authors, its venue, its year, ...). A year taken this way
 * replaces the winner's UNDATED. Returns the other's entities to add to the winner's, the winner's
 * boundaries after the merge, and the fields taken. Deterministic and idempotent: merging the result
 * with either record again takes nothing.
 */
export function mergePaperFields(
  winner: PaperFields,
  other: PaperFields,
): { entities: EntityInput[]; boundaries: string[]; added: PaperField[] } {
  const stated = new Set<PaperField>();
  for (const e of winner.entities) {
    const f = entityField(e);
    if (f) stated.add(f);
  }
  for (const b of winner.boundaries) {
    const f = boundaryField(b);
    if (f) stated.add(f);
  }
  const added = new Set<PaperField>();
  const entities: EntityInput[] = [];
  for (const e of other.entities) {
    const f = entityField(e);
    if (!f || stated.has(f)) continue;
    entities.push(e);
    added.add(f);
  }
  const taken: string[] = [];
  for (const b of other.boundaries) {
    const f = boundaryField(b);
    if (!f || stated.has(f)) continue;
    taken.push(b);
    added.add(f);
  }
  const kept = added.has("year:")
    ? winner.boundaries.filter((b) => b.trim().toLowerCase() !== UNDATED)
    : [...winner.boundaries];
  return { entities, boundaries: [...kept, ...taken], added: PAPER_FIELDS.filter((f) => added.has(f)) };
}
