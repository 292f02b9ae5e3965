/**
 * OpenIE results as HippoRAG (v1 and v2) write them (`openie_results_ner_*.json`) -> note chunks with
 * entities and relations.
 *
 * Accepted input: `{"docs": [...], ...}` (the other top-level keys, e.g. `avg_ent_chars`, are ignored),
 * a bare array of docs, or JSONL with one doc (or one `{"docs": [...]}` object) per line. A doc:
 *
 * {
 *   "idx": 0,                                   // v1: the passage's position; v2: "chunk-<md5 of the passage>"
 *   "passage": "Tom Sawyer\nTom Sawyer is a boy who lives in St. Petersburg, Missouri.",
 *   "title": "Tom Sawyer",                      // optional
 *   "extracted_entities": ["Tom Sawyer", "St. Petersburg, Missouri"],
 *   "extracted_triples": [["Tom Sawyer", "lives in", "St. Petersburg, Missouri"]]
 * }
 *
 * Mapping:
 * - each doc -> a `note` chunk; content = the passage exactly as given;
 * - id: `openie:<idx>` when the doc has an idx (a string or a number), else `openie:<slug of the
 *   title>`. The idx is what HippoRAG keys its outputs by: stable for the same corpus (v1) or the same
 *   passage text (v2), so re-importing the same file is a no-op;
 * - title: the doc's `title`, else the passage's first line when the passage has more than one line
 *   (HippoRAG passages are `Title\nText`), else the passage's first 12 words;
 * - `extracted_entities` -> `concept` entities (a DOI / arXiv / OpenAlex id -> that paper);
 * - `extracted_triples` -> `relations` (their subjects and objects become entities as well). A triple
 *   that is not exactly three non-empty strings is reported in `skipped` (`<ref>.extracted_triples[j]`)
 *   and the doc is imported without it; so are entities and triples beyond the 200 distinct entities
 *   an artifact may carry.
 */
import { fail, ok, type Result } from "../errors";
import { capExtraction } from "../extract";
import { slug } from "../ids";
import type { EntityInput } from "../ingest";
import { runSync, type Sliced, slicer } from "../pace";
import { RELATION_LIMITS, type RelationInput, surfaceEntity } from "../relations";
import {
  clip,
  clipLine,
  isObject,
  type JsonObject,
  LIMITS,
  type PlanBuilder,
  rawStr,
  scalar,
  startJsonPlan,
  str,
} from "./common";
import type { ImportPlan } from "./types";

export interface OpenIeOptions {
  /** File name or URL, recorded as `<source>#docs[i]`. */
  source?: string;
}

/** Words of the passage used as the title when it has a single line and the doc no title. */
const TITLE_WORDS = 12;

export const OPENIE_ID_PREFIX = "openie:";

/** The title rule above; exported for the tests. */
export function openIeTitle(doc: { title?: string | undefined; passage: string }): string {
  if (doc.title?.trim()) return clipLine(doc.title, LIMITS.title);
  const lines = doc.passage
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length > 1) return clipLine(lines[0] as string, LIMITS.title);
  return clipLine(doc.passage.trim().split(/\s+/).slice(0, TITLE_WORDS).join(" "), LIMITS.title);
}

function addDoc(b: PlanBuilder, doc: JsonObject, ref: string, src: string): void {
  const passage = rawStr(doc.passage);
  if (passage === undefined || !passage.trim()) {
    b.skip(`${src}#${ref}`, "doc has no passage (a non-empty string)");
    return;
  }
  const title = openIeTitle({ title: str(doc.title), passage });
  const idx = doc.idx === undefined || doc.idx === null ? "" : scalar(doc.idx).trim();
  const key = idx || slug(title).slice(0, 200);
  if (!key) {
    b.skip(`${src}#${ref}`, "doc has no idx and its title has no letters or digits to derive an id from");
    return;
  }
  const id = `${OPENIE_ID_PREFIX}${key}`;
  const surfaced: EntityInput[] = [];
  const raw = doc.extracted_entities;
  if (raw !== undefined && raw !== null && !Array.isArray(raw))
    b.skip(`${src}#${ref}.extracted_entities`, "extracted_entities is not an array of strings");
  for (const [j, v] of (Array.isArray(raw) ? raw : []).entries()) {
    const e = typeof v === "string" ? surfaceEntity(clipLine(v, LIMITS.entityName)) : null;
    if (!e) {
      b.skip(`${src}#${ref}.extracted_entities[${j}]`, "entity is not a string with letters or digits");
      continue;
    }
    surfaced.push(e);
  }
  const valid: RelationInput[] = [];
  const triples = doc.extracted_triples;
  if (triples !== undefined && triples !== null && !Array.isArray(triples))
    b.skip(`${src}#${ref}.extracted_triples`, "extracted_triples is not an array of [subject, predicate, object]");
  for (const [j, t] of (Array.isArray(triples) ? triples : []).entries()) {
    const parts = Array.isArray(t)
      ? t.map((x) => (typeof x === "string" ? clipLine(x, RELATION_LIMITS.maxChars) : ""))
      : [];
    if (parts.length !== 3 || parts.some((p) => !p)) {
      b.skip(
        `${src}#${ref}.extracted_triples[${j}]`,
        `a triple is exactly 3 non-empty strings [subject, predicate, object]; got ${clip(JSON.stringify(t) ?? String(t), 200)}`,
      );
      continue;
    }
    const [subject, predicate, object] = parts as [string, string, string];
    valid.push({ subject, predicate, object });
  }
  // The caps extraction at ingest applies too (core/extract.ts), so both keep the same part.
  const { entities, relations, droppedEntities, droppedTriples } = capExtraction(surfaced, valid);
  if (droppedEntities)
    b.skip(
      `${src}#${ref}.extracted_entities`,
      `${droppedEntities} entities dropped: an artifact carries at most ${LIMITS.entities} distinct entities`,
    );
  if (droppedTriples)
    b.skip(
      `${src}#${ref}.extracted_triples`,
      `${droppedTriples} triples dropped: an artifact carries at most ${LIMITS.entities} distinct entities and ${RELATION_LIMITS.maxRelationsPerArtifact} relations`,
    );
  b.add(
    {
      id,
      kind: "note",
      title,
      content: passage,
      ...(entities.length ? { entities } : {}),
      ...(relations.length ? { relations } : {}),
      source: clip(`${src}#${ref}`, LIMITS.source),
    },
    ref,
    `same id ${id} as an earlier doc (same idx or title); kept the first`,
  );
}

/** Parse HippoRAG-style OpenIE results into an import plan (see the mapping above). */
export function parseOpenIe(text: string, opts: OpenIeOptions = {}): Result<ImportPlan> {
  return runSync(parseOpenIeSliced(text, opts));
}

/** Docs made into records between two yields. */
const DOC_SLICE = 50;

/** parseOpenIe, yielding between slices of docs. */
export function* parseOpenIeSliced(text: string, opts: OpenIeOptions = {}): Sliced<Result<ImportPlan>> {
  const src = opts.source ?? "openie";
  const start = startJsonPlan(text, src);
  if (!start.ok) return start;
  const { b, records } = start.value;
  const docs: Array<{ ref: string; value: JsonObject }> = [];
  for (const r of records) {
    if (isObject(r.value) && Array.isArray(r.value.docs)) {
      const prefix = r.ref === "record" ? "" : `${r.ref}.`;
      for (const [i, d] of r.value.docs.entries())
        if (isObject(d)) docs.push({ ref: `${prefix}docs[${i}]`, value: d });
        else b.skip(`${src}#${prefix}docs[${i}]`, "doc is not an object");
    } else if (isObject(r.value)) docs.push({ ref: r.ref === "record" ? "doc" : r.ref, value: r.value });
    else b.skip(`${src}#${r.ref}`, "doc is not an object");
  }
  if (!docs.some((d) => d.value.passage !== undefined))
    return fail(
      "validation",
      "no OpenIE doc found: expected {docs: [{idx, passage, extracted_entities, extracted_triples}]} or an array of such docs",
      docs.length ? `${docs[0]?.ref}.passage` : "body",
      'send HippoRAG\'s openie_results_*.json: {"docs": [{"idx": 0, "passage": "Title\\nText", "extracted_entities": [...], "extracted_triples": [[s, p, o], ...]}]}',
    );
  yield;
  const slice = slicer(DOC_SLICE);
  for (const d of docs) {
    yield* slice();
    addDoc(b, d.value, d.ref, src);
  }
  return ok(b.plan);
}
