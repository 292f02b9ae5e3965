/**
 * Extraction at ingest (docs/models.md, "Extraction at ingest"): a language model reads one version's
 * content and answers its entities and (subject, predicate, object) relations, as HippoRAG's OpenIE
 * does. The answer goes through the OpenIE import's caps (capExtraction, shared with
 * formats/openie.ts) and ingest's normalisation (normaliseRelations, relationEntities, entityRowsOf,
 * planEntityRows), so a model's triples and the same triples in an OpenIE file give the same
 * entities and relations. The result extends the version it was read from (a `head.extend` change,
 * the version row's `extracted` column): it never makes a new version. Pure; the model is a port.
 */

import type { ExtensionPlan, ExtensionTarget, Extraction, StoredExtraction } from "./extraction";
import { canonicalEntityId, normAlias } from "./ids";
import {
  type EntityInput,
  type EntityRow,
  type ExistingState,
  entityRowsOf,
  INGEST_LIMITS,
  planEntityRows,
} from "./ingest";
import { arrayOf, closedObject, text } from "./json-schema";
import type { ChatMessage, ChatModel, JsonSchema, ModelFailureCode, ModelUsage } from "./ports/models";
import { normaliseRelations, RELATION_LIMITS, type RelationInput, relationEntities, surfaceEntity } from "./relations";
import { ENTITY_TYPES, type EntityType } from "./types";

/** Aliases kept per entity (the ingest schema's limit). */
const MAX_ALIASES = 50;
/** Characters of a name, an alias or a triple part (the entity name limit). */
const MAX_CHARS = RELATION_LIMITS.maxChars;
/** Document characters sent to the model (~6,000 tokens); the rest of a longer version is not read. */
export const MAX_EXTRACT_DOCUMENT_CHARS = 24_000;
/** Output tokens the model may spend on one answer. */
export const EXTRACT_OUTPUT_TOKENS = 4096;
/**
 * Part of the cache key: a change of the prompt, the schema or the document cut makes new entries
 * (old ones are not read again).
 */
export const EXTRACTION_VERSION = "x1";

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
function clipLine(s: string, max: number): string {
  const t = oneLine(s);
  if (t.length <= max) return t;
  const code = t.charCodeAt(max - 1);
  return t.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

function isType(v: unknown): v is EntityType {
  return typeof v === "string" && (ENTITY_TYPES as readonly string[]).includes(v);
}

function entityKey(e: EntityInput): string {
  return canonicalEntityId(e.type, e.id ?? e.name);
}

// ------------------------------------------------------------------ caps (shared with the OpenIE import)

export interface CappedExtraction extends Extraction {
  /** Distinct entities left out: the artifact already carried the limit. */
  droppedEntities: number;
  /** Triples left out: their new arguments would pass the entity limit, or the relation limit was reached. */
  droppedTriples: number;
}

/**
 * The limits an artifact's extracted knowledge takes, in order: entities one per canonical id, at
 * most INGEST_LIMITS.maxEntitiesPerArtifact distinct ids counting `present.ids` (what the version
 * already carries); then the triples, each kept only if the entities its arguments add still fit and
 * fewer than RELATION_LIMITS.maxRelationsPerArtifact relations (counting `present.relations`) are kept.
 * The OpenIE import and extraction at ingest both cut here, so the same input keeps the same part.
 */
export function capExtraction(
  entities: EntityInput[],
  triples: RelationInput[],
  present: { ids?: Iterable<string> | undefined; relations?: number | undefined } = {},
): CappedExtraction {
  const ids = new Set(present.ids ?? []);
  const maxEntities = INGEST_LIMITS.maxEntitiesPerArtifact;
  const out: CappedExtraction = { entities: [], relations: [], droppedEntities: 0, droppedTriples: 0 };
  const kept = new Set<string>();
  for (const e of entities) {
    const k = entityKey(e);
    if (kept.has(k)) continue;
    if (ids.has(k)) {
      // One the artifact carries already: kept (its names may be new), not counted again.
      kept.add(k);
      out.entities.push(e);
      continue;
    }
    if (ids.size >= maxEntities) {
      out.droppedEntities++;
      continue;
    }
    ids.add(k);
    kept.add(k);
    out.entities.push(e);
  }
  const maxRelations = RELATION_LIMITS.maxRelationsPerArtifact - (present.relations ?? 0);
  for (const t of triples) {
    const args = [surfaceEntity(t.subject, t.subject_type), surfaceEntity(t.object, t.object_type)].flatMap((e) =>
      e ? [entityKey(e)] : [],
    );
    const fresh = new Set(args.filter((k) => !ids.has(k)));
    if (ids.size + fresh.size > maxEntities || out.relations.length >= maxRelations) {
      out.droppedTriples++;
      continue;
    }
    for (const k of fresh) ids.add(k);
    out.relations.push(t);
  }
  return out;
}

// ------------------------------------------------------------------ the model's answer

const NULLABLE_TYPE = { type: ["string", "null"], enum: [...ENTITY_TYPES, null] };

/**
 * The answer's schema. Every property is required (strict structured output allows no optional
 * ones): `aliases` may be empty, the argument types null.
 */
export const EXTRACTION_SCHEMA: JsonSchema = closedObject({
  entities: arrayOf(
    closedObject({
      name: text("The name as the document writes it."),
      type: { type: "string", enum: [...ENTITY_TYPES] },
      aliases: {
        type: "array",
        items: { type: "string" },
        description: "Other names the document uses for it (abbreviations, spellings); may be empty.",
      },
    }),
    { description: "The named things the document talks about, each once." },
  ),
  relations: arrayOf(
    closedObject({
      subject: text("An entity name, as the document writes it."),
      predicate: text("A short verb phrase."),
      object: text("An entity name, as the document writes it."),
      subject_type: NULLABLE_TYPE,
      object_type: NULLABLE_TYPE,
    }),
    { description: "Facts the document states, as (subject, predicate, object) triples." },
  ),
});

const SYSTEM = [
  "You extract a knowledge graph from one document, as open information extraction does.",
  "List the named entities the document talks about (methods, datasets, metrics, code symbols, people, venues, papers, other concepts) and the facts it states about them as (subject, predicate, object) triples.",
  "Write names exactly as the document writes them; subjects and objects are entity names, predicates short verb phrases.",
  "Use only the document; leave out what it does not state. Usually 5 to 40 triples.",
  "Answer with one JSON object matching the schema and nothing else.",
].join(" ");

/** The prompt of one extraction: the document only (so a result depends on the content alone). */
export function extractionMessages(content: string, maxChars = MAX_EXTRACT_DOCUMENT_CHARS): ChatMessage[] {
  const doc = content.length > maxChars ? `${content.slice(0, maxChars)}\n[… document cut here]` : content;
  return [
    { role: "system", content: SYSTEM },
    {
      role: "user",
      content: [
        "Document:",
        "<<<",
        doc,
        ">>>",
        `Entity types: ${ENTITY_TYPES.join(", ")}.`,
        "Give the subject and object types when you know them, else null.",
      ].join("\n"),
    },
  ];
}

/**
 * The model's answer as an extraction, its items checked one by one: an entity without a usable
 * name, a triple without three non-empty strings is left out and counted in `skipped`; an unknown
 * type reads as `concept` (entities) or none (arguments). A string: why the answer is unusable as a
 * whole (not an object, no entity or relation list): what a retry is told.
 */
export function readExtraction(value: unknown): { extraction: Extraction; skipped: number } | string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "the answer is not a JSON object";
  const o = value as Record<string, unknown>;
  if (!Array.isArray(o.entities)) return "entities is missing or not an array";
  if (!Array.isArray(o.relations)) return "relations is missing or not an array";
  let skipped = 0;
  const entities: EntityInput[] = [];
  for (const x of o.entities) {
    const r = x !== null && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
    const name = r && typeof r.name === "string" ? clipLine(r.name, MAX_CHARS) : "";
    const e = name ? surfaceEntity(name, isType(r?.type) ? r.type : "concept") : null;
    if (!e) {
      skipped++;
      continue;
    }
    const norms = new Set([normAlias(e.name)]);
    const aliases: string[] = [];
    for (const a of Array.isArray(r?.aliases) ? r.aliases : []) {
      const alias = typeof a === "string" ? clipLine(a, MAX_CHARS) : "";
      const k = normAlias(alias);
      if (!k || norms.has(k) || aliases.length >= MAX_ALIASES) continue;
      norms.add(k);
      aliases.push(alias);
    }
    entities.push(aliases.length ? { ...e, aliases } : e);
  }
  const relations: RelationInput[] = [];
  for (const x of o.relations) {
    const r = x !== null && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
    const part = (k: string) => (r && typeof r[k] === "string" ? clipLine(r[k] as string, MAX_CHARS) : "");
    const [subject, predicate, object] = [part("subject"), part("predicate"), part("object")];
    if (!subject || !predicate || !object) {
      skipped++;
      continue;
    }
    relations.push({
      subject,
      predicate,
      object,
      ...(isType(r?.subject_type) ? { subject_type: r.subject_type } : {}),
      ...(isType(r?.object_type) ? { object_type: r.object_type } : {}),
    });
  }
  const capped = capExtraction(entities, relations);
  return {
    extraction: { entities: capped.entities, relations: normaliseRelations(capped.relations) },
    skipped: skipped + capped.droppedEntities + capped.droppedTriples,
  };
}

export type ExtractOutcome =
  | { ok: true; extraction: Extraction; skipped: number; usage: ModelUsage; attempts: number }
  | { ok: false; code: ModelFailureCode; message: string; usage: ModelUsage; attempts: number };

/**
 * Ask the model once for the content's entities and relations; an answer that is not usable (not
 * JSON for the schema, or no entity and relation lists) gets one retry naming what was wrong, as the
 * model distiller does. A failed call (rate limit, outage, refused request, budget) is returned as
 * it is: the adapter has already retried what is worth retrying.
 */
export async function extractWithModel(model: ChatModel, content: string): Promise<ExtractOutcome> {
  const messages = extractionMessages(content);
  const usage: ModelUsage = { inputTokens: 0, outputTokens: 0, requests: 0, ms: 0 };
  let last = "";
  for (let attempt = 1; attempt <= 2; attempt++) {
    const out = await model.structured({
      name: "knowledge_graph",
      description: "The document's entities and (subject, predicate, object) relations.",
      schema: EXTRACTION_SCHEMA,
      messages,
      maxOutputTokens: EXTRACT_OUTPUT_TOKENS,
    });
    usage.inputTokens += out.usage.inputTokens;
    usage.outputTokens += out.usage.outputTokens;
    usage.requests += out.usage.requests;
    usage.ms += out.usage.ms;
    if (!out.ok) {
      if (out.error.code !== "malformed")
        return { ok: false, code: out.error.code, message: out.error.message, usage, attempts: attempt };
      last = out.error.message;
      messages.push({
        role: "user",
        content: `Your answer was not usable: ${last}. Answer again with one JSON object matching the schema.`,
      });
      continue;
    }
    const read = readExtraction(out.value);
    if (typeof read !== "string") return { ok: true, ...read, usage, attempts: attempt };
    last = read;
    messages.push(
      { role: "assistant", content: JSON.stringify(out.value).slice(0, 4000) },
      { role: "user", content: `That answer cannot be used: ${read}. Answer again.` },
    );
  }
  return { ok: false, code: "malformed", message: `two unusable answers; the last: ${last}`, usage, attempts: 2 };
}

// ------------------------------------------------------------------ extending a version

export interface ResolvedExtension {
  /** Entity rows to make exist (the extraction's entities and its relations' arguments). */
  rows: Array<EntityRow & { aliases: string[] }>;
  /** What the version stores (without model and time). */
  extraction: Extraction;
  ids: string[];
  added: string[];
  droppedEntities: number;
  droppedTriples: number;
}

/**
 * An extraction normalised against its version, as ingest normalises declared entities and relations:
 * the OpenIE caps counting what the version carries, triples it declares itself left out,
 * normaliseRelations, relationEntities (arguments naming a declared entity or one of the extraction's
 * entities become that entity), entityRowsOf. Resolving a stored extraction again gives it back.
 */
export function resolveExtension(target: ExtensionTarget, given: Extraction): ResolvedExtension {
  const { x, dropped } = fitBytes(given);
  const declaredRel = new Set(normaliseRelations(target.relations).map((r) => JSON.stringify(r)));
  const own = normaliseRelations(x.relations).filter((r) => !declaredRel.has(JSON.stringify(r)));
  const capped = capExtraction(x.entities, own, { ids: target.entities, relations: target.relations.length });
  const relations = normaliseRelations(capped.relations);
  const fromRelations = relations.length ? relationEntities(relations, [...target.declared, ...capped.entities]) : [];
  const rows = [...entityRowsOf([...capped.entities, ...fromRelations]).values()];
  const entities: EntityInput[] = rows.map((r) => {
    const norms = new Set([normAlias(r.name)]);
    const aliases: string[] = [];
    for (const a of r.aliases) {
      const k = normAlias(a);
      if (!k || norms.has(k) || aliases.length >= MAX_ALIASES) continue;
      norms.add(k);
      aliases.push(a);
    }
    return { type: r.type, id: r.entityId, name: r.name, ...(aliases.length ? { aliases } : {}) };
  });
  const ids = rows.map((r) => r.entityId);
  const posted = new Set(target.posted);
  return {
    rows,
    extraction: { entities, relations },
    ids,
    added: ids.filter((id) => !posted.has(id)),
    droppedEntities: capped.droppedEntities,
    droppedTriples: capped.droppedTriples + dropped,
  };
}

/**
 * Stored JSON of one extraction at most (its version row holds it; D1 values hold ~1 MB). A model's
 * answer is far smaller (its output tokens are capped); an extraction from a dump may not be.
 */
export const MAX_EXTRACTION_BYTES = 256 * 1024;

/** The extraction within MAX_EXTRACTION_BYTES: relations cut from the end, then aliases dropped. */
function fitBytes(x: Extraction): { x: Extraction; dropped: number } {
  const size = (e: Extraction) => JSON.stringify(e).length;
  if (size(x) <= MAX_EXTRACTION_BYTES) return { x, dropped: 0 };
  let relations = x.relations;
  let entities = x.entities;
  while (relations.length > 0 && size({ entities, relations }) > MAX_EXTRACTION_BYTES)
    relations = relations.slice(0, Math.floor(relations.length * 0.8));
  if (size({ entities, relations }) > MAX_EXTRACTION_BYTES) entities = entities.map(({ aliases: _a, ...e }) => e);
  while (entities.length > 0 && size({ entities, relations }) > MAX_EXTRACTION_BYTES)
    entities = entities.slice(0, Math.floor(entities.length * 0.8));
  return { x: { entities, relations }, dropped: x.relations.length - relations.length };
}

/** Plan an extension against the entities and aliases storage holds (ExistingState without chunks). */
export function planExtension(
  target: ExtensionTarget,
  r: ResolvedExtension,
  model: string,
  existing: Pick<ExistingState, "entities" | "aliases">,
  now: number,
): ExtensionPlan {
  const plan: ExtensionPlan = {
    chunk: target.chunk,
    version: target.version,
    stored: { model, at: now, ...r.extraction, ids: r.ids, added: r.added },
    entityInserts: [],
    aliasInserts: [],
    ops: [],
  };
  planEntityRows(r.rows, target.validFrom, existing, { entities: new Set(), aliases: new Set() }, plan);
  if (r.added.length)
    plan.ops.push({
      op: "head.extend",
      chunk: target.chunk,
      version: target.version,
      entities: r.added,
      at: target.validFrom,
    });
  return plan;
}

/**
 * A stored extraction without these entity ids (a forgotten entity, or one a forgotten chunk alone
 * named): its entities go, and so do the relations with one of them as subject or object.
 */
export function withoutEntities(x: StoredExtraction, gone: ReadonlySet<string>): StoredExtraction {
  const keep = x.entities.filter((e) => !gone.has(entityKey(e)));
  const byNorm = new Map<string, string>();
  for (const e of x.entities) for (const n of [e.name, ...(e.aliases ?? [])]) byNorm.set(normAlias(n), entityKey(e));
  const idOf = (text: string, type: EntityType | undefined) => {
    const known = type ? undefined : byNorm.get(normAlias(text));
    if (known) return known;
    const e = surfaceEntity(text, type);
    return e ? entityKey(e) : "";
  };
  return {
    ...x,
    entities: keep,
    relations: x.relations.filter(
      (r) => !gone.has(idOf(r.subject, r.subject_type)) && !gone.has(idOf(r.object, r.object_type)),
    ),
    ids: x.ids.filter((id) => !gone.has(id)),
    added: x.added.filter((id) => !gone.has(id)),
  };
}

/** How many of the extraction's entities the content names (any of their names, as words). */
export function groundedCount(content: string, x: Extraction): number {
  const text = ` ${normAlias(content.slice(0, MAX_EXTRACT_DOCUMENT_CHARS))} `;
  return x.entities.filter((e) =>
    [e.name, ...(e.aliases ?? [])].some((n) => {
      const k = normAlias(n);
      return k !== "" && text.includes(` ${k} `);
    }),
  ).length;
}
