/**
 * Pre-extracted knowledge on an artifact: OpenIE-style triples `(subject, predicate, object)` with
 * optional argument types, as OpenIE tools (HippoRAG's extraction, Stanford OpenIE, ...) emit them.
 *
 * The arguments are entities of the artifact: `relationEntities` turns them into entity inputs that
 * ingest adds to the declared ones (same canonicalisation, same per-artifact cap). Links between
 * chunks that share relation arguments are derived by the ingest analyser, which treats the
 * arguments as mentions; nothing here creates edges. Pure; no I/O.
 */
import { canonicalEntityId, canonicalPaperId, normAlias, slug } from "./ids";
import type { EntityInput, EntityType } from "./types";

export interface RelationInput {
  subject: string;
  predicate: string;
  object: string;
  /** Entity type of the subject; default: the type of a declared entity of that name, else `concept`. */
  subject_type?: EntityType | undefined;
  object_type?: EntityType | undefined;
}

export const RELATION_LIMITS = {
  /** Relations per artifact (a HippoRAG passage yields ~5-20 triples). */
  maxRelationsPerArtifact: 500,
  /** Characters per subject, predicate or object (the entity name limit). */
  maxChars: 300,
} as const;

/** Type of a relation argument that has no type and matches no declared entity. */
export const DEFAULT_RELATION_ENTITY_TYPE: EntityType = "concept";

/** Aliases kept per entity (the ingest schema's limit). */
const MAX_ALIASES = 50;

/**
 * The entity for a surface form: a paper id when the text is a DOI / arXiv / OpenAlex id, else
 * `<type>:<slug>`. The id is explicit so a name with a colon ("Note: x") is not read as an id prefix.
 * Null when the name has no letters or digits.
 */
export function surfaceEntity(name: string, type: EntityType = DEFAULT_RELATION_ENTITY_TYPE): EntityInput | null {
  const surface = name.trim();
  const paper = canonicalPaperId(surface);
  if (paper) return { type: "paper", id: paper, name: surface };
  const s = slug(surface);
  return s ? { type, id: `${type}:${s}`, name: surface } : null;
}

/**
 * Subjects and objects as entity inputs, one per canonical id: the first surface form is the name,
 * the other surface forms (distinct after alias normalisation) are aliases, at most 50. An argument
 * whose normalised text equals a declared entity's name or alias becomes that entity (so
 * `{type: "method", name: "HippoRAG"}` and a relation about "HippoRAG" are one entity); an untyped
 * argument otherwise takes the type given to the same text elsewhere in the relations, else `concept`.
 */
export function relationEntities(relations: RelationInput[], declared: EntityInput[] = []): EntityInput[] {
  const declaredByNorm = new Map<string, { id: string; type: EntityType }>();
  for (const e of declared) {
    const id = canonicalEntityId(e.type, e.id ?? e.name);
    for (const n of [e.name, ...(e.aliases ?? [])]) {
      const k = normAlias(n);
      if (k && !declaredByNorm.has(k)) declaredByNorm.set(k, { id, type: e.type });
    }
  }
  const args: Array<{ surface: string; type: EntityType | undefined }> = [];
  for (const r of relations) {
    args.push({ surface: r.subject.trim(), type: r.subject_type }, { surface: r.object.trim(), type: r.object_type });
  }
  const typedByNorm = new Map<string, EntityType>();
  for (const a of args) {
    const k = normAlias(a.surface);
    if (k && a.type && !typedByNorm.has(k)) typedByNorm.set(k, a.type);
  }
  const out = new Map<string, { entity: EntityInput; norms: Set<string> }>();
  for (const a of args) {
    const k = normAlias(a.surface);
    if (!k) continue;
    const known = a.type ? undefined : declaredByNorm.get(k);
    const e = known
      ? { type: known.type, id: known.id, name: a.surface }
      : surfaceEntity(a.surface, a.type ?? typedByNorm.get(k) ?? DEFAULT_RELATION_ENTITY_TYPE);
    if (!e?.id) continue;
    const id = canonicalEntityId(e.type, e.id);
    const prev = out.get(id);
    if (!prev) {
      out.set(id, { entity: { ...e, id }, norms: new Set([k]) });
      continue;
    }
    if (prev.norms.has(k)) continue;
    prev.norms.add(k);
    const aliases = prev.entity.aliases ?? [];
    if (aliases.length < MAX_ALIASES) prev.entity.aliases = [...aliases, a.surface];
  }
  return [...out.values()].map((x) => x.entity);
}

/**
 * Relations trimmed, without exact duplicates, in their first-seen order: what is hashed and stored.
 * Types are kept only when given.
 */
export function normaliseRelations(relations: RelationInput[]): RelationInput[] {
  const seen = new Set<string>();
  const out: RelationInput[] = [];
  for (const r of relations) {
    const x: RelationInput = {
      subject: r.subject.trim(),
      predicate: r.predicate.trim(),
      object: r.object.trim(),
      ...(r.subject_type ? { subject_type: r.subject_type } : {}),
      ...(r.object_type ? { object_type: r.object_type } : {}),
    };
    const key = JSON.stringify([x.subject, x.predicate, x.object, x.subject_type ?? "", x.object_type ?? ""]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(x);
  }
  return out;
}
