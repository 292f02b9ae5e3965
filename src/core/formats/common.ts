/**
 * Helpers every importer shares: the file formats (bibtex.ts, markdown.ts, fulltext.ts, xkg.ts) and the
 * scheduled sources (../sources/*.ts). One copy of: the ingest schema's limits, reading untyped JSON
 * without `any`, clipping text, fitting entities and artifacts to the schema, and assembling a plan.
 * Pure; no dependencies beyond src/core.
 */
import { fail, ok, type Result } from "../errors";
import { slug } from "../ids";
import { type ArtifactInput, deriveSynopsis, type EdgeInput, type EntityInput, INGEST_LIMITS } from "../ingest";
import { RELATION_LIMITS, type RelationInput } from "../relations";
import type { Deprecation, ImportPlan } from "./types";

// ---------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------

/**
 * The HTTP ingest schema's limits (src/contract/artifacts.ts): importers cap to them instead of failing, so
 * the core never produces what the API would reject.
 * - ArtifactSchema: `id` max 512; artifactFields: `title` max 1000, `synopsis` max 2000, `source` max
 *   2000, `boundaries` max 100 of max 200, `entities` max INGEST_LIMITS.maxEntitiesPerArtifact, `edges`
 *   max INGEST_LIMITS.maxEdgesPerArtifact;
 * - EntityInputSchema: `id` max 300, `name` max 300, `aliases` max 50 of max 300;
 * - EdgeInputSchema: `target` max 512, `context` max 1000;
 * - artifactFields `relations` max RELATION_LIMITS.maxRelationsPerArtifact; RelationInputSchema: `subject`,
 *   `predicate`, `object` max RELATION_LIMITS.maxChars;
 * - DeprecationItem / DeprecateBody: `reason` max 2000;
 * - content: INGEST_LIMITS.maxContentChars (checked by the core, src/core/ingest.ts).
 */
export const LIMITS = {
  artifactId: 512,
  title: 1000,
  synopsis: 2000,
  source: 2000,
  content: INGEST_LIMITS.maxContentChars,
  boundary: 200,
  boundaries: 100,
  entityId: 300,
  entityName: 300,
  aliasesPerEntity: 50,
  entities: INGEST_LIMITS.maxEntitiesPerArtifact,
  edgeTarget: 512,
  edgeContext: 1000,
  edges: INGEST_LIMITS.maxEdgesPerArtifact,
  relationPart: RELATION_LIMITS.maxChars,
  relations: RELATION_LIMITS.maxRelationsPerArtifact,
  reason: 2000,
} as const;

export type Skipped = ImportPlan["skipped"];

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

/** Cut to at most `max` UTF-16 units without leaving half of a surrogate pair at the end. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** Collapse whitespace runs (titles and names come with line breaks from BibTeX and JSON dumps). */
export function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** One line (oneLine), cut to at most `max` characters (clip: surrogate-safe). */
export function clipLine(s: string, max: number): string {
  return clip(oneLine(s), max);
}

/** Synopsis from a passage, by ingest's own rule (first 3 sentences, at most 120 tokens). */
export function synopsisOf(title: string, passage: string): string | undefined {
  const text = passage.trim();
  return text ? clip(deriveSynopsis(title, text), LIMITS.synopsis) : undefined;
}

/** A year (1000-2999) found at the start of a date string: "2024-05-01", "May 2024", "2024". */
export function yearOf(date: string | number | null | undefined): string | null {
  if (date === null || date === undefined) return null;
  const m = /\b([12]\d{3})\b/.exec(String(date));
  return m?.[1] ?? null;
}

/**
 * The event time of a publication (epoch ms, UTC): an ISO date, year-month or year (`2024-05-23`,
 * `2024-05`, `2024`), else the year found in the text (`May 2024` -> 2024-01-01); undefined when
 * there is none. Importers make it the version's valid_from; recorded_at stays the import time.
 */
export function publicationTime(date: string | null | undefined): number | undefined {
  if (!date) return undefined;
  const iso = /^\s*(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?\s*$/.exec(date);
  const y = Number(iso?.[1] ?? yearOf(date) ?? Number.NaN);
  if (!Number.isInteger(y) || y < 1000 || y > 2999) return undefined;
  const m = iso?.[2] ? Math.min(12, Math.max(1, Number(iso[2]))) : 1;
  const d = iso?.[3] ? Math.min(31, Math.max(1, Number(iso[3]))) : 1;
  return Date.UTC(y, m - 1, d);
}

/** Epoch ms of a date string; undefined when it is not a string or does not parse. */
export function parseTime(s: unknown): number | undefined {
  if (typeof s !== "string" || !s) return undefined;
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : undefined;
}

// ---------------------------------------------------------------------------------------------
// Reading untyped JSON without `any`
// ---------------------------------------------------------------------------------------------

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };
export interface JsonRecord {
  /** Where the record is: "record" (a single object), "[2]" (array element), "line 3" (JSONL). */
  ref: string;
  value: Json;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A string with content, trimmed; undefined for anything else (blank strings included). */
export function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

/** A string exactly as given (paths, refs and offsets-bearing text must not be trimmed), else undefined. */
export function rawStr(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** A string as given or a number in decimal (dumps write years and ids either way); "" otherwise. */
export function scalar(v: unknown): string {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : "";
}

export function arr(v: Json | undefined): Json[];
export function arr(v: unknown): unknown[];
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/**
 * One JSON response body. Fails (validation, on `field`) when it is empty or not JSON; `source` names it
 * in the message ("OpenAlex" -> "OpenAlex response is not JSON: ...").
 */
export function parseJsonText(text: string, source: string, field = "body"): Result<Json> {
  if (typeof text !== "string" || !text.trim())
    return fail("validation", `${source} response is empty`, field, `expected the ${source} JSON response body`);
  try {
    return ok(JSON.parse(text) as Json);
  } catch (e) {
    return fail(
      "validation",
      `${source} response is not JSON: ${e instanceof Error ? e.message : String(e)}`,
      field,
      `pass the raw ${source} response body (HTTP 200, application/json)`,
    );
  }
}

/** "Unexpected token } in JSON at position 17" -> "line 2, column 5". */
function positionOf(text: string, message: string): string {
  const m = /position (\d+)/.exec(message);
  if (!m?.[1]) return "";
  const pos = Number(m[1]);
  const before = text.slice(0, pos);
  const line = before.split("\n").length;
  return ` (line ${line}, column ${pos - before.lastIndexOf("\n")})`;
}

/**
 * A JSON object, a JSON array or JSONL. Returns the records with a ref each ("line 3", "[2]"), lines
 * that are not JSON as `bad`, or a failure when the text is not JSON in any of the three forms.
 */
export function readJsonRecords(
  text: string,
): Result<{ records: JsonRecord[]; bad: Array<{ ref: string; reason: string }> }> {
  const t = text.trim();
  if (!t) return fail("validation", "the input is empty", "text", "send a JSON object, a JSON array or JSON Lines");
  let whole: Json | undefined;
  let wholeError = "";
  try {
    whole = JSON.parse(t) as Json;
  } catch (e) {
    wholeError = e instanceof Error ? e.message : String(e);
  }
  if (whole !== undefined) {
    if (Array.isArray(whole)) return ok({ records: whole.map((value, i) => ({ ref: `[${i}]`, value })), bad: [] });
    return ok({ records: [{ ref: "record", value: whole }], bad: [] });
  }
  const records: JsonRecord[] = [];
  const bad: Array<{ ref: string; reason: string }> = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    try {
      records.push({ ref: `line ${i + 1}`, value: JSON.parse(line) as Json });
    } catch (e) {
      bad.push({ ref: `line ${i + 1}`, reason: `not JSON: ${e instanceof Error ? e.message : String(e)}` });
    }
  }
  // Only a JSONL file when at least one line parses and the text had more than one line.
  if (records.length === 0 || !t.includes("\n"))
    return fail(
      "validation",
      `the input is not JSON: ${wholeError}${positionOf(t, wholeError)}`,
      "text",
      "send a JSON object, a JSON array of objects, or JSON Lines (one object per line)",
    );
  return ok({ records, bad });
}

/**
 * readJsonRecords, with a PlanBuilder that already lists the lines that are not JSON as skipped
 * (`<src>#line N`): how the JSON importers (fulltext.ts, xkg.ts) start.
 */
export function startJsonPlan(text: string, src: string): Result<{ b: PlanBuilder; records: JsonRecord[] }> {
  const read = readJsonRecords(text);
  if (!read.ok) return read;
  const b = new PlanBuilder();
  for (const x of read.value.bad) b.skip(`${src}#${x.ref}`, x.reason);
  return ok({ b, records: read.value.records });
}

// ---------------------------------------------------------------------------------------------
// Fitting output to the ingest schema
// ---------------------------------------------------------------------------------------------

/**
 * An entity cut to the schema limits: name one line of <= 300 (the id when the name is empty), <= 50
 * distinct aliases of <= 300 other than the name. Null when the id is empty or longer than 300 (the
 * entity would fail the batch) or there is no name at all.
 */
export function fitEntity(e: EntityInput): EntityInput | null {
  if (e.id !== undefined && (e.id.length === 0 || e.id.length > LIMITS.entityId)) return null;
  const name = clipLine(e.name, LIMITS.entityName) || e.id;
  if (!name) return null;
  const aliases = [
    ...new Set((e.aliases ?? []).map((a) => clipLine(a, LIMITS.entityName)).filter((a) => a && a !== name)),
  ].slice(0, LIMITS.aliasesPerEntity);
  return { type: e.type, ...(e.id !== undefined ? { id: e.id } : {}), name, ...(aliases.length ? { aliases } : {}) };
}

/**
 * Whether fitEntity(e) is not null, without fitting: its id is absent or 1-300 characters, and its
 * name has a non-space character (oneLine leaves it non-empty, and clipping keeps at least 299
 * characters) or it has an id to stand in for the name.
 */
function entityFits(e: EntityInput): boolean {
  if (e.id !== undefined && (e.id.length === 0 || e.id.length > LIMITS.entityId)) return false;
  return /\S/.test(e.name) || !!e.id;
}

/** A person entity: `person:<slug of the name>`, the ORCID (bare 0000-0000-0000-0000 form) as an alias. */
export function personEntity(name: string, orcid?: string | null): EntityInput | null {
  const n = clipLine(name, LIMITS.entityName);
  const s = slug(n);
  if (!s) return null;
  const o = orcid ? /(\d{4}-\d{4}-\d{4}-\d{3}[\dX])/i.exec(orcid)?.[1]?.toUpperCase() : undefined;
  return { type: "person", id: `person:${s.slice(0, 250)}`, name: n, ...(o ? { aliases: [o] } : {}) };
}

/**
 * Fit an artifact to the ingest schema (lengths, counts, no empty content, no self-edges, no duplicate
 * edges). Returns null (and records why) only when the id itself is unusable; everything else is
 * clipped or capped and the loss is reported in `skipped`, never silently.
 */
export function fitArtifact(a: ArtifactInput, skipped: Skipped): ArtifactInput | null {
  if (!a.id || a.id.length > LIMITS.artifactId) {
    skipped.push({
      ref: clip(a.id, 200),
      reason: `artifact id is empty or longer than ${LIMITS.artifactId} characters`,
    });
    return null;
  }
  const title = clipLine(a.title, LIMITS.title) || a.id;
  let content = a.content.trim() ? a.content : title;
  if (content.length > LIMITS.content) {
    skipped.push({
      ref: a.id,
      reason: `content truncated from ${content.length} to ${LIMITS.content} characters (the ingest limit)`,
    });
    content = clip(content, LIMITS.content);
  }
  // The first LIMITS.entities usable entities are kept; the rest are only counted (a paper citing
  // 100,000 works carries 100,000 entities, and fitting each held a request for most of a second).
  const entities: EntityInput[] = [];
  let usable = 0;
  for (const e of a.entities ?? []) {
    if (entities.length < LIMITS.entities || typeof e.name !== "string") {
      const f = fitEntity(e);
      if (f) {
        usable++;
        if (entities.length < LIMITS.entities) entities.push(f);
      }
    } else if (entityFits(e)) usable++;
  }
  if (usable > LIMITS.entities)
    skipped.push({ ref: a.id, reason: `kept ${LIMITS.entities} of ${usable} entities (the ingest limit)` });
  const edges: EdgeInput[] = [];
  const seen = new Set<string>();
  for (const e of a.edges ?? []) {
    const key = `${e.type}\u0000${e.target}`;
    // A self-edge fails the whole batch in prepareBatch (a paper listing itself in its references).
    if (!e.target || e.target === a.id || e.target.length > LIMITS.edgeTarget || seen.has(key)) continue;
    seen.add(key);
    edges.push(
      e.context && e.context.length > LIMITS.edgeContext ? { ...e, context: clip(e.context, LIMITS.edgeContext) } : e,
    );
  }
  if (edges.length > LIMITS.edges)
    skipped.push({ ref: a.id, reason: `kept ${LIMITS.edges} of ${edges.length} edges (the ingest limit)` });
  const relations: RelationInput[] = [];
  for (const r of a.relations ?? []) {
    const x = {
      ...r,
      subject: clipLine(r.subject, LIMITS.relationPart),
      predicate: clipLine(r.predicate, LIMITS.relationPart),
      object: clipLine(r.object, LIMITS.relationPart),
    };
    if (x.subject && x.predicate && x.object) relations.push(x);
  }
  if (relations.length > LIMITS.relations)
    skipped.push({ ref: a.id, reason: `kept ${LIMITS.relations} of ${relations.length} relations (the ingest limit)` });
  const boundaries = [...new Set((a.boundaries ?? []).map((b) => clipLine(b, LIMITS.boundary)).filter(Boolean))].slice(
    0,
    LIMITS.boundaries,
  );
  const synopsis = a.synopsis === undefined ? undefined : clip(a.synopsis.trim(), LIMITS.synopsis);
  return {
    id: a.id,
    kind: a.kind,
    title,
    ...(synopsis ? { synopsis } : {}),
    content,
    ...(entities.length ? { entities } : {}),
    ...(boundaries.length ? { boundaries } : {}),
    ...(edges.length ? { edges: edges.slice(0, LIMITS.edges) } : {}),
    ...(relations.length ? { relations: relations.slice(0, LIMITS.relations) } : {}),
    ...(a.valid_from !== undefined && Number.isFinite(a.valid_from) ? { valid_from: a.valid_from } : {}),
    ...(a.source ? { source: clip(a.source, LIMITS.source) } : {}),
    ...(a.placeholder ? { placeholder: true } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Assembling a plan
// ---------------------------------------------------------------------------------------------

/**
 * Adds fitted artifacts to a plan, keeping ids unique (prepareBatch rejects a batch that repeats an
 * id): a second record for the same chunk id is skipped with the reason.
 */
export class PlanBuilder {
  readonly plan: ImportPlan;
  private readonly ids = new Map<string, string>();

  /** `skipped`: what the caller already skipped (copied, listed first). */
  constructor(skipped: Skipped = []) {
    this.plan = { artifacts: [], deprecations: [], skipped: [...skipped] };
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Fit and add; false when the id was already added (`duplicate` is then the reason) or is unusable. */
  add(a: ArtifactInput, ref: string, duplicate?: string): boolean {
    const prev = this.ids.get(a.id);
    if (prev !== undefined) {
      this.plan.skipped.push({
        ref,
        reason: duplicate ?? `same chunk id ${a.id} as ${prev} (the same work twice); kept the first`,
      });
      return false;
    }
    const fitted = fitArtifact(a, this.plan.skipped);
    if (!fitted) return false;
    this.ids.set(a.id, ref);
    this.plan.artifacts.push(fitted);
    return true;
  }

  skip(ref: string, reason: string): void {
    this.plan.skipped.push({ ref: clip(ref, 300), reason });
  }
}

/**
 * Final shaping of a response-sized plan (the scheduled sources): fit every artifact (see fitArtifact),
 * keep one artifact per id (first wins; later ones are reported in `skipped`), keep one deprecation per
 * id (the earliest dated; ties keep the first), and drop artifacts whose id the same response deprecates:
 * a deprecated chunk accepts no new version (ingest answers 409 and fails the whole batch), so re-emitting
 * a retracted/withdrawn record on every scheduled run would break re-ingestion.
 */
export function finishPlan(artifacts: ArtifactInput[], deprecations: Deprecation[], skipped: Skipped): ImportPlan {
  const byId = new Map<string, Deprecation>();
  for (const d of deprecations) {
    const prev = byId.get(d.id);
    if (prev && (d.at === undefined || (prev.at !== undefined && prev.at <= d.at))) continue;
    byId.set(d.id, {
      id: d.id,
      ...(d.at !== undefined ? { at: d.at } : {}),
      ...(d.by && d.by !== d.id ? { by: d.by } : {}),
      reason: clipLine(d.reason, LIMITS.reason),
    });
  }
  const b = new PlanBuilder(skipped);
  for (const a of artifacts) {
    if (byId.has(a.id))
      b.plan.skipped.push({ ref: a.id, reason: "deprecated by the same response; recorded as a deprecation only" });
    else b.add(a, a.id, "duplicate record for the same paper in this response (first one kept)");
  }
  b.plan.deprecations.push(...byId.values());
  return b.plan;
}
