/**
 * Ingest planning: a pure function from (batch, existing state) to the exact set of writes.
 * The storage adapter executes the plan in one atomic D1 batch, so a batch lands whole or not at all,
 * and re-running the same batch plans nothing (idempotent: equal artifact hash = no-op).
 */
import { extractSymbols, languageOf } from "./code/symbols";
import type { CodeSymbol } from "./code/table";
import { type Failure, fail, ok, type Result } from "./errors";
import { canonicalEntityId, canonicalPaperId, findIdentifiers, leadingName, normAlias } from "./ids";
import { cpuBudgetChars, withinCpuBudget } from "./limits";
import { noPause, type Pause } from "./pace";
import { normaliseRelations, type RelationInput, relationEntities } from "./relations";
import { type GroundedEntity, groundContent, titleConcept } from "./text/grounding";
import { docTerms } from "./text/lexical";
import { splitSentences } from "./text/sentences";
import { truncateToApproxTokens } from "./text/tokenizer";
import type { ChangeOp, ChunkKind, EdgeSpan, EdgeType, EntityInput, EntityType } from "./types";

export type { EntityInput };

export interface EdgeInput {
  type: EdgeType;
  target: string;
  weight?: number | undefined;
  valid_from?: number | undefined;
  valid_to?: number | null | undefined;
  /** Why the edge exists, in the source's words (e.g. the citing sentence); <= 1,000 chars. */
  context?: string | undefined;
}

export interface ArtifactInput {
  id: string;
  kind: ChunkKind;
  title: string;
  synopsis?: string | undefined;
  content: string;
  entities?: EntityInput[] | undefined;
  boundaries?: string[] | undefined;
  edges?: EdgeInput[] | undefined;
  /** Pre-extracted triples (OpenIE); their arguments become entities of the artifact (src/core/relations.ts). */
  relations?: RelationInput[] | undefined;
  /** epoch ms; defaults to the ingest time */
  valid_from?: number | undefined;
  source?: string | undefined;
  /**
   * Create only: when the id already holds a chunk (any version, deprecated or not) the artifact is
   * planned as unchanged, so a stand-in never overwrites a record. Imports set it on the works a
   * bibliography names; not part of the hash.
   */
  placeholder?: boolean | undefined;
}

/** What storage knows about an artifact id before the batch. */
export interface ExistingChunk {
  chunkId: string;
  latestVersion: number;
  artifactHash: string;
  validFrom: number;
  deprecatedAt: number | null;
  /** Open (valid_to NULL) edges declared by this chunk. */
  openEdges: Array<{ dst: string; type: EdgeType; weight: number; validFrom: number }>;
}

export interface ExistingState {
  chunks: Map<string, ExistingChunk>;
  /** Entity ids that already exist. */
  entities: Set<string>;
  /** "<entityId>\u0000<aliasNorm>" pairs with an open alias row. */
  aliases: Set<string>;
}

/**
 * The declarations of a code unit whose language the path in its id (before `#`) or its source
 * tells: `repo/src/index.ts#buildIndex`, `gh:owner/repo/pkg/mod.py`, `https://…/a.ts`.
 */
export function codeSymbols(id: string, source: string | undefined, content: string): CodeSymbol[] {
  const paths = [id.split("#")[0] ?? id, (source ?? "").split(/[#?]/)[0] ?? ""];
  const path = paths.find((p) => languageOf(p) !== null);
  if (!path) return [];
  // The first declarations, up to MAX_SYMBOL_BYTES of stored JSON: a generated file of 16,000
  // exports (817 KB) would otherwise need 1.5 MB in one row, past what a D1 value may hold.
  const out: CodeSymbol[] = [];
  let bytes = 2;
  for (const sym of extractSymbols(path, content)) {
    bytes += JSON.stringify(sym).length + 1;
    if (bytes > MAX_SYMBOL_BYTES) break;
    out.push(sym);
  }
  return out;
}

/** Stored JSON of one code unit's declarations (~2,500 signatures); the content is stored whole. */
export const MAX_SYMBOL_BYTES = 256 * 1024;
/**
 * Stored metadata of one version (title, synopsis, mentions, symbols, entities, boundaries, edges,
 * relations) at most: one D1 row, whose values may hold ~1 MB each.
 */
export const MAX_VERSION_META_BYTES = 900 * 1024;

export interface VersionRow {
  chunkId: string;
  version: number;
  kind: ChunkKind;
  title: string;
  synopsis: string;
  artifactHash: string;
  contentHash: string;
  contentKey: string;
  content: string;
  contentChars: number;
  entities: string[];
  /** Names the analyser grounded in this version's content: entity and exact [start, end) spans. */
  mentions: Array<{ entity: string; spans: Array<[number, number]> }>;
  /** A code unit's top-level declarations with exact signature offsets (empty for other kinds). */
  symbols: CodeSymbol[];
  boundaries: string[];
  edges: EdgeInput[];
  /** Normalised relations of this version (absent when it has none). */
  relations?: RelationInput[] | undefined;
  validFrom: number;
  recordedAt: number;
  source: string;
  /** Previous version to close at validFrom (0 = none). */
  closesVersion: number;
}

export interface EdgeRow extends EdgeSpan {
  version: number;
  context?: string | undefined;
}

export interface EntityRow {
  entityId: string;
  type: EntityType;
  name: string;
}

export interface AliasRow {
  entityId: string;
  alias: string;
  aliasNorm: string;
  validFrom: number;
}

export interface IngestPlan {
  results: Array<{ id: string; status: "created" | "updated" | "unchanged"; version: number }>;
  versions: VersionRow[];
  edgeInserts: EdgeRow[];
  edgeCloses: Array<{ src: string; dst: string; type: EdgeType; at: number }>;
  entityInserts: EntityRow[];
  aliasInserts: AliasRow[];
  ops: ChangeOp[];
}

export const INGEST_LIMITS = {
  /** Artifacts per batch: 200 keeps one D1 batch well under its statement and time limits. */
  maxArtifacts: 200,
  /** 2 MiB of content per artifact (R2 has no practical limit; this bounds Worker memory per batch). */
  maxContentChars: 2 * 1024 * 1024,
  maxEntitiesPerArtifact: 200,
  maxEdgesPerArtifact: 500,
} as const;

/** Synopsis derived when absent: the first three sentences, at most 120 tokens (heads must stay small). */
export function deriveSynopsis(title: string, content: string): string {
  const sentences = splitSentences(content.slice(0, 4000)).slice(0, 3);
  const text = sentences.map((s) => s.text).join(" ") || title;
  return truncateToApproxTokens(text, 120);
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Every blob of an archive lives under this prefix (contents, snapshots, webhook bodies). */
export function archivePrefix(archiveId: string): string {
  return `archives/${archiveId}/`;
}

/** The capital chunk's snapshots of an archive live under this prefix. */
export function snapshotPrefix(archiveId: string): string {
  return `${archivePrefix(archiveId)}capital/`;
}

export function contentKey(archiveId: string, contentHash: string): string {
  // Content-addressed and immutable: a retry rewrites the same bytes to the same key.
  return `archives/${archiveId}/content/${contentHash}`;
}

function normBoundary(tag: string): string {
  return tag.trim().toLowerCase().replace(/\s+/g, "-");
}

export interface NormalisedArtifact {
  input: ArtifactInput;
  synopsis: string;
  entityRows: Array<EntityRow & { aliases: string[] }>;
  /** Declared and identifier entities: part of the artifact's identity (its hash). */
  entityIds: string[];
  boundaries: string[];
  edges: Array<Required<Pick<EdgeInput, "type" | "target" | "weight">> & EdgeInput>;
  /** normaliseRelations of the input's relations; absent when it has none. */
  relations?: RelationInput[] | undefined;
}

/**
 * Entity rows of declared entities (and relation arguments as relationEntities gives them), one per
 * canonical id in first-seen order: the first name is the row's name; every name, alias and the
 * words of an explicit non-paper id are aliases (repeated ones are dropped where they are written).
 */
export function entityRowsOf(entities: EntityInput[]): Map<string, EntityRow & { aliases: string[] }> {
  const entityRows = new Map<string, EntityRow & { aliases: string[] }>();
  for (const e of entities) {
    const id = canonicalEntityId(e.type, e.id ?? e.name);
    const prev = entityRows.get(id);
    const aliases = [e.name, ...(e.aliases ?? [])];
    if (e.id && !canonicalPaperId(e.id)) aliases.push(e.id.replace(/^[a-z_]+:/i, ""));
    // A paper's leading name ("HippoRAG: Neurobiologically ...") names it too.
    const lead = e.type === "paper" ? leadingName(e.name) : null;
    if (lead) aliases.push(lead);
    if (prev) prev.aliases.push(...aliases);
    else entityRows.set(id, { entityId: id, type: e.type, name: e.name, aliases });
  }
  return entityRows;
}

function normalise(a: ArtifactInput, index: number): Result<NormalisedArtifact> {
  const field = (f: string) => `artifacts.${index}.${f}`;
  if (a.content.length > INGEST_LIMITS.maxContentChars)
    return fail(
      "too_large",
      `content of ${a.id} has ${a.content.length} characters; the limit is ${INGEST_LIMITS.maxContentChars}`,
      field("content"),
      "split the artifact into sections (kind 'section' with a part-of edge to the paper)",
    );
  const relations = a.relations?.length ? normaliseRelations(a.relations) : undefined;
  const fromRelations = relations ? relationEntities(relations, a.entities) : [];
  const entityRows = entityRowsOf([...(a.entities ?? []), ...fromRelations]);
  if (relations && entityRows.size > INGEST_LIMITS.maxEntitiesPerArtifact)
    return fail(
      "validation",
      `${a.id} declares ${entityRows.size} distinct entities with its relations' subjects and objects; the limit is ${INGEST_LIMITS.maxEntitiesPerArtifact}`,
      field("relations"),
      "send fewer relations or entities per artifact, or split the artifact",
    );
  // A paper artifact is its own entity, so "arXiv:2405.14831v2" in a query finds it.
  const selfId = canonicalPaperId(a.id);
  if (selfId && !entityRows.has(selfId)) {
    const lead = leadingName(a.title);
    entityRows.set(selfId, {
      entityId: selfId,
      type: "paper",
      name: a.title,
      aliases: [a.title, ...(lead ? [lead] : [])],
    });
  }
  // Identifiers written in the text ground the chunk to those papers (deterministic analyser).
  // An id that is another form of a declared paper (its DOI, when the entity is keyed by arXiv id)
  // grounds to that entity, not to a second one for the same work.
  const declaredForms = new Set<string>();
  for (const e of entityRows.values())
    for (const x of e.aliases) {
      const c = canonicalPaperId(x);
      if (c) declaredForms.add(c);
    }
  // A synopsis equal to the derived one (a dump replays it explicitly) is content cut at ~120 tokens,
  // possibly inside an identifier: only a synopsis of the caller's own words is scanned.
  const derived = deriveSynopsis(a.title, a.content);
  const given = a.synopsis?.trim() && a.synopsis.trim() !== derived ? a.synopsis : "";
  for (const { id, text } of findIdentifiers(`${a.title}\n${given}\n${a.content.slice(0, 200_000)}`)) {
    if (!entityRows.has(id) && !declaredForms.has(id))
      entityRows.set(id, { entityId: id, type: "paper", name: text, aliases: [] });
  }
  const edges: NormalisedArtifact["edges"] = [];
  const seenEdge = new Set<string>();
  for (const [j, e] of (a.edges ?? []).entries()) {
    if (e.target === a.id)
      return fail(
        "validation",
        `edge ${j} of ${a.id} points at itself`,
        `${field("edges")}.${j}.target`,
        "remove the self-edge",
      );
    const key = `${e.type}\u0000${e.target}`;
    if (seenEdge.has(key)) continue;
    seenEdge.add(key);
    edges.push({ ...e, weight: e.weight ?? 1 });
  }
  return ok({
    input: a,
    synopsis: a.synopsis?.trim() || derived,
    entityRows: [...entityRows.values()],
    entityIds: [...entityRows.keys()].sort(),
    boundaries: [...new Set((a.boundaries ?? []).map(normBoundary).filter(Boolean))].sort(),
    edges: edges.sort((x, y) => (x.type + x.target < y.type + y.target ? -1 : 1)),
    ...(relations ? { relations } : {}),
  });
}

/**
 * What the ingest analyser derives from a version's title and content: the names it grounds (with
 * spans) and the concepts the chunk itself is named by. Not part of the artifact hash (re-ingesting
 * the same artifact is a no-op even if the analyser improves), so it runs only for versions that
 * are actually written.
 */
function analyse(n: NormalisedArtifact): { grounded: GroundedEntity[]; owns: string[] } {
  const a = n.input;
  const owns: string[] = [];
  const self = canonicalPaperId(a.id);
  if (self) owns.push(self);
  const titled = titleConcept(a.title);
  if (titled && !owns.includes(titled)) owns.push(titled);
  const declared = new Set(n.entityIds);
  const grounded = groundContent(a.content, a.title).filter((g) => !declared.has(g.id));
  return { grounded, owns };
}

/** Hash of everything that defines a version; valid_from and source are metadata, not identity. */
async function artifactHash(n: NormalisedArtifact): Promise<string> {
  return hashParts({
    kind: n.input.kind,
    title: n.input.title,
    synopsis: n.synopsis,
    content: n.input.content,
    entityIds: n.entityIds,
    boundaries: n.boundaries,
    edges: n.edges,
    relations: n.relations,
  });
}

/** What an artifact's hash covers, as a stored version keeps it (its edges and relations parsed). */
export interface HashedParts {
  kind: string;
  title: string;
  synopsis: string;
  content: string;
  entityIds: string[];
  boundaries: string[];
  edges: NormalisedArtifact["edges"];
  relations?: RelationInput[] | undefined;
}

/**
 * The artifact hash of a version from its stored parts: a hard delete that drops an id from
 * another version's entities or edges stores the hash of what remains, so exports stay verifiable.
 */
export function hashParts(p: HashedParts): Promise<string> {
  return sha256Hex(
    JSON.stringify([
      p.kind,
      p.title,
      p.synopsis,
      p.content,
      p.entityIds,
      p.boundaries,
      // Context joins the hash only when present, so hashes of edges without one stay as they were.
      p.edges.map((e) => [
        e.type,
        e.target,
        e.weight,
        e.valid_from ?? null,
        e.valid_to ?? null,
        ...(e.context ? [e.context] : []),
      ]),
      // Relations join the hash only when present, so artifacts without them hash as before.
      ...(p.relations ? [p.relations] : []),
    ]),
  );
}

/** The hash an artifact would be stored under (null when it is invalid); equal hash = no new version. */
export async function artifactHashOf(a: ArtifactInput): Promise<string | null> {
  const n = normalise(a, 0);
  return n.ok ? artifactHash(n.value) : null;
}

export interface PreparedBatch {
  items: NormalisedArtifact[];
  chunkIds: string[];
  /** Canonical entity ids the batch declares (storage loads which of them already exist). */
  entityIds: string[];
}

/** Validate and normalise a batch (no I/O). Fails on the first invalid artifact, naming its field. */
/** Offset of the first unpaired UTF-16 surrogate, or -1 (one pass). */
export function loneSurrogateAt(s: string | undefined): number {
  if (s === undefined) return -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return i;
  }
  return -1;
}

export function prepareBatch(batch: ArtifactInput[]): Result<PreparedBatch> {
  if (batch.length > INGEST_LIMITS.maxArtifacts)
    return fail(
      "too_large",
      `batch has ${batch.length} artifacts; the limit is ${INGEST_LIMITS.maxArtifacts}`,
      "artifacts",
      `send at most ${INGEST_LIMITS.maxArtifacts} artifacts per request`,
    );
  let chars = 0;
  for (const a of batch) chars += a.content.length + a.title.length + (a.synopsis?.length ?? 0);
  const budget = withinCpuBudget(
    [["analyse", chars]],
    `this batch holds ${chars.toLocaleString("en-US")} characters to analyse and`,
    "artifacts",
    `send at most ${cpuBudgetChars("analyse").toLocaleString("en-US")} characters of content per request (split the batch)`,
  );
  if (!budget.ok) return budget;
  const seenIds = new Map<string, number>();
  const items: NormalisedArtifact[] = [];
  const entityIds = new Set<string>();
  for (const [i, a] of batch.entries()) {
    const prev = seenIds.get(a.id);
    if (prev !== undefined)
      return fail(
        "validation",
        `artifact id ${a.id} appears twice in the batch (indexes ${prev} and ${i})`,
        `artifacts.${i}.id`,
        "send one artifact per id per batch; send revisions in a later batch",
      );
    seenIds.set(a.id, i);
    for (const field of ["id", "title", "content", "synopsis"] as const) {
      const bad = loneSurrogateAt(a[field]);
      if (bad >= 0)
        return fail(
          "validation",
          `${field} holds a lone UTF-16 surrogate at offset ${bad}; it cannot be stored exactly (UTF-8 would turn it into U+FFFD and the content hash would no longer match)`,
          `artifacts.${i}.${field}`,
          "send well-formed text: pair the surrogate or remove it",
        );
    }
    const n = normalise(a, i);
    if (!n.ok) return n;
    items.push(n.value);
    for (const e of n.value.entityIds) entityIds.add(e);
  }
  return ok({ items, chunkIds: [...seenIds.keys()], entityIds: [...entityIds] });
}

/**
 * The writes that make these entity rows exist from `validFrom`: an entity row and `entity.upsert`
 * for each entity neither stored nor planned yet, an alias row and `alias.add` for each (entity,
 * alias key) pair not open yet. `planned` collects what this plan adds (shared across its artifacts).
 */
export function planEntityRows(
  rows: Iterable<EntityRow & { aliases: string[] }>,
  validFrom: number,
  existing: Pick<ExistingState, "entities" | "aliases">,
  planned: { entities: Set<string>; aliases: Set<string> },
  plan: Pick<IngestPlan, "entityInserts" | "aliasInserts" | "ops">,
): void {
  for (const e of rows) {
    if (!existing.entities.has(e.entityId) && !planned.entities.has(e.entityId)) {
      planned.entities.add(e.entityId);
      plan.entityInserts.push({ entityId: e.entityId, type: e.type, name: e.name });
      plan.ops.push({ op: "entity.upsert", id: e.entityId, type: e.type, name: e.name, at: validFrom });
    }
    for (const alias of e.aliases) {
      const aliasNorm = normAlias(alias);
      if (!aliasNorm) continue;
      const key = `${e.entityId}\u0000${aliasNorm}`;
      if (existing.aliases.has(key) || planned.aliases.has(key)) continue;
      planned.aliases.add(key);
      plan.aliasInserts.push({ entityId: e.entityId, alias, aliasNorm, validFrom });
      plan.ops.push({ op: "alias.add", entity: e.entityId, alias, validFrom, validTo: null });
    }
  }
}

/**
 * Characters analysed between pauses (names and grounding, then lexical terms: each counts an
 * artifact's content, at least 2,048 characters): 16 passages of 1-2 KB (~3 ms at ~0.2 ms of
 * analysis each), or one step of one large artifact (a 2 MiB artifact pauses between its names
 * and its terms).
 */
const PLAN_CHARS = 65_536;
const PLAN_MIN_CHARS = 2048;

/**
 * Plan a prepared batch against what storage holds. `sketchOf` turns a head text into the base64
 * SimHash sketch carried by head.upsert. Planning writes nothing; it fails on the first conflict.
 */
export async function planIngest(
  archiveId: string,
  prepared: PreparedBatch,
  existing: ExistingState,
  now: number,
  sketchOf: (text: string) => Promise<string>,
  pause: Pause = noPause,
): Promise<Result<IngestPlan>> {
  const plan: IngestPlan = {
    results: [],
    versions: [],
    edgeInserts: [],
    edgeCloses: [],
    entityInserts: [],
    aliasInserts: [],
    ops: [],
  };
  const newEntities = new Set<string>();
  const newAliases = new Set<string>();
  let chars = 0;
  /** Count a step of analysis over `n` characters; pause once PLAN_CHARS are done since the last. */
  const paced = async (n: number) => {
    chars += Math.max(PLAN_MIN_CHARS, n);
    if (chars < PLAN_CHARS) return;
    chars = 0;
    await pause();
  };
  for (const [i, norm] of prepared.items.entries()) {
    const a = norm.input;
    const hash = await artifactHash(norm);
    const prev = existing.chunks.get(a.id);
    if (prev && (prev.artifactHash === hash || a.placeholder)) {
      plan.results.push({ id: a.id, status: "unchanged", version: prev.latestVersion });
      continue;
    }
    const validFrom = a.valid_from ?? now;
    if (prev) {
      if (prev.deprecatedAt !== null)
        return fail(
          "conflict",
          `${a.id} was deprecated at ${new Date(prev.deprecatedAt).toISOString()}; deprecated chunks take no new versions`,
          `artifacts.${i}.id`,
          "ingest the successor under a new id",
        );
      if (validFrom <= prev.validFrom)
        return fail(
          "conflict",
          `valid_from of the new version of ${a.id} (${new Date(validFrom).toISOString()}) must be after the current version's (${new Date(prev.validFrom).toISOString()})`,
          `artifacts.${i}.valid_from`,
          "omit valid_from (defaults to now) or give a later time; versions never overlap",
        );
    }
    const version = (prev?.latestVersion ?? 0) + 1;
    const contentHash = await sha256Hex(a.content);
    await paced(a.content.length);
    const { grounded, owns } = analyse(norm);
    await paced(a.content.length);
    const terms = docTerms(a.title, a.content);
    plan.versions.push({
      chunkId: a.id,
      version,
      kind: a.kind,
      title: a.title,
      synopsis: norm.synopsis,
      artifactHash: hash,
      contentHash,
      contentKey: contentKey(archiveId, contentHash),
      content: a.content,
      contentChars: a.content.length,
      entities: norm.entityIds,
      mentions: grounded.map((g) => ({ entity: g.id, spans: g.spans })),
      symbols: a.kind === "code_unit" ? codeSymbols(a.id, a.source, a.content) : [],
      boundaries: norm.boundaries,
      edges: norm.edges,
      ...(norm.relations ? { relations: norm.relations } : {}),
      validFrom,
      recordedAt: now,
      source: a.source ?? "",
      closesVersion: prev?.latestVersion ?? 0,
    });
    const meta = plan.versions[plan.versions.length - 1] as VersionRow;
    const parts: Array<[string, number]> = [
      ["content", JSON.stringify([meta.mentions, meta.symbols]).length + meta.synopsis.length],
      ["edges", JSON.stringify(meta.edges).length],
      ["relations", JSON.stringify(meta.relations ?? null).length],
      ["entities", JSON.stringify(meta.entities).length],
      ["boundaries", JSON.stringify(meta.boundaries).length],
      ["title", meta.title.length],
    ];
    const metaBytes = parts.reduce((n, [, b]) => n + b, 0);
    if (metaBytes > MAX_VERSION_META_BYTES) {
      const [largest] = parts.sort((x, y) => y[1] - x[1])[0] as [string, number];
      return fail(
        "too_large",
        `${a.id} would store ${metaBytes.toLocaleString("en-US")} bytes of metadata with its version (most of it from its ${largest}); one version holds at most ${MAX_VERSION_META_BYTES.toLocaleString("en-US")}`,
        `artifacts.${i}.${largest}`,
        largest === "content"
          ? "split the content into several artifacts (sections with a part-of edge to the whole)"
          : `send fewer or shorter ${largest}, or split the artifact`,
      );
    }
    plan.results.push({ id: a.id, status: prev ? "updated" : "created", version });

    planEntityRows(norm.entityRows, validFrom, existing, { entities: newEntities, aliases: newAliases }, plan);

    plan.ops.push({
      op: "head.upsert",
      chunk: a.id,
      kind: a.kind,
      version,
      validFrom,
      recordedAt: now,
      entities: [...new Set([...norm.entityIds, ...owns, ...grounded.map((g) => g.id)])],
      boundaries: norm.boundaries,
      sketch: await sketchOf(`${a.title}. ${norm.synopsis}`),
      ...terms,
      ...(owns.length ? { owns } : {}),
    });

    // Temporal edges: keep unchanged open edges, close dropped/changed ones at this version's start.
    const closeEdge = (dst: string, type: EdgeType) => {
      plan.edgeCloses.push({ src: a.id, dst, type, at: validFrom });
      plan.ops.push({ op: "edge.close", src: a.id, dst, type, at: validFrom });
    };
    const open = new Map((prev?.openEdges ?? []).map((e) => [`${e.type}\u0000${e.dst}`, e]));
    for (const e of norm.edges) {
      const key = `${e.type}\u0000${e.target}`;
      const cur = open.get(key);
      const from = e.valid_from ?? validFrom;
      const to = e.valid_to ?? null;
      if (cur && cur.weight === e.weight && to === null) {
        open.delete(key);
        continue;
      }
      if (cur) {
        open.delete(key);
        closeEdge(e.target, e.type);
      }
      const edge: EdgeSpan = { src: a.id, dst: e.target, type: e.type, weight: e.weight, validFrom: from, validTo: to };
      plan.edgeInserts.push({ ...edge, version, ...(e.context ? { context: e.context } : {}) });
      plan.ops.push({ op: "edge.upsert", ...edge });
    }
    for (const e of open.values()) {
      closeEdge(e.dst, e.type);
    }
  }
  return ok(plan);
}

export type { Failure };
