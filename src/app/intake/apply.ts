/**
 * Apply an ImportPlan (from a file import, a webhook delivery or a source run) to an archive:
 * cross-source deduplication of papers, edge targets resolved to the chunks that hold those works,
 * batches of at most 200 artifacts through the normal atomic ingest, then deprecations. Every step
 * is idempotent: applying the same plan twice creates nothing the second time.
 *
 * Deduplication (the same work from BibTeX, arXiv, OpenAlex, Crossref, a full-text JSON): two paper
 * records are the same work when they share a canonical identifier (DOI, arXiv id, OpenAlex id, in
 * any written form), else when their normalised titles are equal. The richer record (more content,
 * entities and edges) wins: it becomes the chunk's next version, or it is already the current one and
 * the other record adds its identifiers and title as aliases. Either way the paper keeps the winner's
 * text and every metadata line and field (authors, venue, year, BibTeX type, keywords: formats/paper
 * mergePaperFields) only the other record states; on a conflict the winner's stays. Each merge is
 * recorded in the surviving entity's history (op "deduplicated"), so `GET /history?entity=` shows
 * where each line and field came from.
 */

import { foldAnnotations } from "../../core/annotations";
import { REFERENCE_ONLY } from "../../core/formats/fulltext";
import {
  idsOfLines,
  mergePaperContent,
  mergePaperFields,
  type PaperFields,
  restatePaperContent,
  splitEntry,
} from "../../core/formats/paper";
import type { Deprecation, ImportPlan } from "../../core/formats/types";
import { aliasKeys, canonicalPaperId, findIdentifiers, normAlias } from "../../core/ids";
import { type ArtifactInput, artifactHashOf, type EntityInput, INGEST_LIMITS } from "../../core/ingest";
import { pacer } from "../../core/pace";
import type { VersionParts } from "../../core/ports";
import { ENTITY_TYPES } from "../../core/types";
import type { ApplyDeps, World } from "../deps";
import { toEvent } from "../lib/records";
import { type Recreate, type TombstoneGate, tombstoneGate } from "./tombstones";

export interface ApplyCounts {
  created: number;
  updated: number;
  unchanged: number;
  deprecated: number;
  /** Records merged into another work already in the archive (recorded in entity history). */
  merged: number;
  /** Records folded into a richer record of the same work within this plan (nothing stored by itself). */
  duplicates: number;
  skipped: number;
  failed: number;
  /** Annotation events written; present when the plan carries annotations. */
  annotated?: number;
}

export const zeroCounts = (): ApplyCounts => ({
  created: 0,
  updated: 0,
  unchanged: 0,
  deprecated: 0,
  merged: 0,
  duplicates: 0,
  skipped: 0,
  failed: 0,
});

export interface ApplyOutcome {
  counts: ApplyCounts;
  /** Per artifact (first 500): id as stored, status, version. */
  items: Array<{ id: string; status: string; version?: number }>;
  merges: Array<{ from: string; into: string; matched_by: string; kept: "incoming" | "existing" }>;
  failures: Array<{ id: string; message: string; field?: string }>;
  skipped: Array<{ ref: string; reason: string }>;
  /** Hard-deleted ids this write created again, as the request asked (recreate_deleted). */
  recreated?: string[];
}

export interface Origin {
  /** webhook | source | import */
  origin: string;
  /** delivery id, source id, or format */
  ref: string;
}

const MAX_ITEMS_REPORTED = 500;
/**
 * Records whose reads and writes (a few local D1/R2 calls each) run between two pauses: locally
 * those calls answer in-process, and a chain of them holds every other request (src/core/pace.ts).
 */
const RECORD_READS_PER_PAUSE = 20;
/** Characters scanned for identifiers between two pauses (~10 ms). */
const SCAN_CHARS_PER_PAUSE = 500_000;
/** Successor ids probed for a deprecated code file that comes back (`<id>~2` .. `<id>~11`). */
const MAX_SUCCESSORS = 10;

/** Paper-like ids: canonical identifiers and title ids minted by paperIdentity(). */
function paperId(id: string): string | null {
  if (id.startsWith("paper:")) return id;
  return canonicalPaperId(id);
}

/** The canonical identifiers a paper artifact carries: its id and its own entity's id-like aliases. */
function idsOf(a: ArtifactInput): string[] {
  const ids = new Set<string>();
  const own = paperId(a.id);
  if (own) ids.add(own);
  for (const e of a.entities ?? []) {
    if (e.type !== "paper" || (e.id !== a.id && (e.id ? paperId(e.id) : null) !== own)) continue;
    for (const x of e.aliases ?? []) {
      const c = canonicalPaperId(x);
      if (c) ids.add(c);
    }
  }
  return [...ids];
}

function richness(a: { contentChars: number; entities: number; edges: number }): number {
  // Content dominates; each entity or edge is worth a sentence or two of text.
  return a.contentChars + 50 * a.entities + 20 * a.edges;
}

/**
 * The record a version came from: its source (`refs.bib#lewis2020`, an OpenAlex work URL, an arXiv
 * abs URL) without an arXiv version suffix, so v1 and v2 of one arXiv record are the same record.
 */
function recordOf(source: string | undefined): string {
  return (source ?? "").replace(/(\d{4}\.\d{4,5}|\/\d{7})v\d+$/, "$1");
}

/** Make `a` the record of chunk `into`: same content, its ids and title become aliases. */
function retarget(a: ArtifactInput, into: string, extraAliases: string[]): ArtifactInput {
  const aliases = new Set([...extraAliases, a.title]);
  const entities = (a.entities ?? []).filter((e) => !(e.type === "paper" && e.id === a.id));
  const self = (a.entities ?? []).find((e) => e.type === "paper" && e.id === a.id);
  for (const x of self?.aliases ?? []) aliases.add(x);
  if (a.id !== into) aliases.add(a.id);
  aliases.delete(into);
  return {
    ...a,
    id: into,
    // The surviving chunk's versions must stay ordered: the merged record starts now.
    valid_from: undefined,
    entities: [{ type: "paper", id: into, name: a.title, aliases: [...aliases].slice(0, 50) }, ...entities],
  };
}

export interface ApplyOptions {
  /** The request explicitly asks to create hard-deleted ids again (src/app/intake/tombstones.ts). */
  recreate?: Recreate | undefined;
}

export async function applyPlan(
  deps: ApplyDeps,
  archiveId: string,
  plan: ImportPlan,
  opts: ApplyOptions = {},
): Promise<ApplyOutcome> {
  const out: ApplyOutcome = {
    counts: zeroCounts(),
    items: [],
    merges: [],
    failures: [],
    skipped: [...plan.skipped],
  };
  const renamed = new Map<string, string>();
  const note = (id: string, status: string, version?: number) => {
    if (out.items.length < MAX_ITEMS_REPORTED)
      out.items.push(version === undefined ? { id, status } : { id, status, version });
  };

  // 1. In-plan duplicates (two records of one work in the same file or response): richest wins.
  let artifacts = dedupeWithinPlan(plan.artifacts, renamed, out);

  // 2. Against the archive.
  await deps.pause?.();
  artifacts = await dedupeAgainstArchive(deps, archiveId, artifacts, renamed, out, note);

  // 3. Edge targets: a cites edge to doi:X lands on the chunk that holds that work (arXiv id, title).
  await deps.pause?.();
  await resolveEdgeTargets(deps.world, archiveId, artifacts, renamed);
  await deps.pause?.();

  // 4. Deprecated chunks: a code file that comes back gets a successor id; other kinds stay retired.
  artifacts = await successorsForRevived(deps.world, archiveId, artifacts, renamed, out, deps.pause);

  // 4b. Hard-deleted ids stay deleted: no import, delivery, replay or source run brings one back,
  //     nor an edge to one, unless the request asks to re-create them (src/app/intake/tombstones.ts).
  const gate = await tombstoneGate(
    deps.world,
    archiveId,
    artifacts.map((a) => a.id),
    artifacts.flatMap((a) => (a.edges ?? []).map((e) => e.target)),
    opts.recreate,
  );
  artifacts = withoutTombstoned(gate, artifacts, out);

  // 5. Ingest in atomic batches.
  const created: string[] = [];
  for (let i = 0; i < artifacts.length; i += INGEST_LIMITS.maxArtifacts) {
    await deps.pause?.();
    await ingestBatch(deps, archiveId, artifacts.slice(i, i + INGEST_LIMITS.maxArtifacts), out, note, created);
  }
  const recreated = await gate.recordCreated(created, deps.now());
  if (recreated.length) out.recreated = recreated;

  // 6. One entity per work: an identifier that became an entity of its own (cited by DOI alone
  //    somewhere) while another paper entity carries it as an alias is merged into that entity.
  await deps.pause?.();
  await mergeSplitEntities(deps, archiveId, artifacts, out);

  // 7. Annotations of the chunks that landed, written only where the value changed.
  if (plan.annotations?.length) await applyAnnotations(deps, archiveId, plan, renamed, out);

  // 8. Lifecycle: deprecations after the artifacts, so a notice that supersedes a paper exists first.
  const pace = pacer(deps.pause, RECORD_READS_PER_PAUSE);
  for (const d of plan.deprecations) {
    await applyDeprecation(deps, archiveId, d, renamed, out);
    await pace();
  }
  out.counts.skipped = out.skipped.length;
  return out;
}

/**
 * Set each planned annotation whose value differs from the key's current one (JSON text compared), so
 * re-importing the same file appends nothing. Valid time: the artifact's valid_from, else now. Chunks
 * that did not land (failed, skipped) get none.
 */
async function applyAnnotations(
  deps: ApplyDeps,
  archiveId: string,
  plan: ImportPlan,
  renamed: Map<string, string>,
  out: ApplyOutcome,
) {
  // Skipped artifacts need no exclusion here: an annotation lands only on a chunk that exists (`landed`),
  // which a hard-deleted id skipped by the tombstone check does not.
  const failed = new Set(out.failures.map((f) => f.id));
  const validFrom = new Map(plan.artifacts.map((a) => [a.id, a.valid_from]));
  // Values compare as their JSON text (what the store writes).
  const wanted = new Map<
    string,
    { chunk: string; key: string; value: unknown; text: string; at: number | undefined }
  >();
  for (const a of plan.annotations ?? []) {
    if (failed.has(a.chunk) || !validFrom.has(a.chunk)) continue;
    const chunk = renamed.get(a.chunk) ?? a.chunk;
    wanted.set(`${chunk}\u0000${a.key}`, {
      chunk,
      key: a.key,
      value: a.value,
      text: JSON.stringify(a.value),
      at: validFrom.get(a.chunk),
    });
  }
  out.counts.annotated = 0;
  if (wanted.size === 0) return;
  const now = deps.now();
  const ids = [...new Set([...wanted.values()].map((w) => w.chunk))];
  const landed = await deps.world.chunksByIds(archiveId, ids);
  const current = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 200) {
    await deps.pause?.();
    const rows = await deps.annotations.annotationsOf(
      archiveId,
      ids.slice(i, i + 200),
      undefined,
      Number.MAX_SAFE_INTEGER,
    );
    for (const [chunk, events] of groupBy(rows, (r) => r.chunkId))
      for (const [key, v] of foldAnnotations(events.map(toEvent), Number.MAX_SAFE_INTEGER))
        current.set(`${chunk}\u0000${key}`, JSON.stringify(v.value));
  }
  const rows = [...wanted]
    .filter(([k, w]) => landed.has(w.chunk) && current.get(k) !== w.text)
    .map(([, w]) => ({
      archiveId,
      chunkId: w.chunk,
      version: null,
      key: w.key,
      op: "set",
      value: w.value,
      actor: "import",
      reason: "imported",
      at: w.at ?? now,
      recordedAt: now,
      eventId: null,
    }));
  // One multi-row write for the whole plan (an xKG file has one annotation per chunk).
  if (rows.length > 0) out.counts.annotated = await deps.annotations.appendAnnotations(rows);
}

function groupBy<T>(rows: T[], key: (r: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const g = out.get(k);
    if (g) g.push(r);
    else out.set(k, [r]);
  }
  return out;
}

function dedupeWithinPlan(artifacts: ArtifactInput[], renamed: Map<string, string>, out: ApplyOutcome) {
  const groupOf = new Map<string, number>();
  const groups: ArtifactInput[][] = [];
  for (const a of artifacts) {
    if (a.kind !== "paper") {
      groups.push([a]);
      continue;
    }
    const keys = [...idsOf(a).map((x) => `id\u0000${x}`), `title\u0000${normAlias(a.title)}`];
    const g = keys.map((k) => groupOf.get(k)).find((x) => x !== undefined);
    const idx = g ?? groups.push([]) - 1;
    (groups[idx] as ArtifactInput[]).push(a);
    for (const k of keys) if (!groupOf.has(k)) groupOf.set(k, idx);
  }
  const kept: ArtifactInput[] = [];
  for (const g of groups) {
    if (g.length === 1) {
      kept.push(g[0] as ArtifactInput);
      continue;
    }
    // A record always wins over a bibliography stand-in for the same work, then the richer one.
    const rank = (a: ArtifactInput) => (a.placeholder ? 0 : 1e12) + artifactRichness(a);
    const winner = g.reduce((best, a) => (rank(a) > rank(best) ? a : best));
    const losers = g.filter((a) => a !== winner);
    const extra = losers.flatMap((l) => [l.id, l.title, ...idsOf(l)]);
    // The winner takes the metadata lines and fields it lacks from each record of the work (not
    // from a stand-in, whose text is another paper's reference line), in the plan's order.
    let folded = winner;
    for (const l of losers)
      if (!l.placeholder)
        folded = withFields(
          folded,
          mergePaperContent(folded.content, l.content),
          mergePaperFields(fieldsOf(folded), fieldsOf(l)),
        );
    kept.push(retargetKeepTime(folded, extra));
    for (const l of losers) {
      renamed.set(l.id, winner.id);
      out.merges.push({ from: l.id, into: winner.id, matched_by: "same import", kept: "incoming" });
      out.counts.duplicates++;
    }
  }
  return kept;
}

/** Like retarget to its own id, but a record that stays itself keeps its own valid_from. */
function retargetKeepTime(a: ArtifactInput, extraAliases: string[]): ArtifactInput {
  return { ...retarget(a, a.id, extraAliases), valid_from: a.valid_from };
}

async function dedupeAgainstArchive(
  deps: ApplyDeps,
  archiveId: string,
  artifacts: ArtifactInput[],
  renamed: Map<string, string>,
  out: ApplyOutcome,
  note: (id: string, status: string, version?: number) => void,
): Promise<ArtifactInput[]> {
  const papers = artifacts.filter((a) => a.kind === "paper");
  if (papers.length === 0) return artifacts;
  const allIds = [...new Set(papers.flatMap((a) => [a.id, ...idsOf(a)]))];
  const existing = await deps.world.chunksByIds(archiveId, allIds);
  const norms = [...new Set(papers.flatMap((a) => [...idsOf(a), a.title].flatMap(aliasKeys)))].filter(Boolean);
  // Keyed by the folded key: rows stored before diacritic folding hold the unfolded one.
  const byAlias = new Map<string, string>();
  for (const m of await deps.world.papersByAliases(archiveId, norms))
    if (!byAlias.has(normAlias(m.key))) byAlias.set(normAlias(m.key), m.chunkId);

  const result: ArtifactInput[] = [];
  const pace = pacer(deps.pause, RECORD_READS_PER_PAUSE);
  for (const a of artifacts) {
    if (a.kind !== "paper") {
      result.push(a);
      continue;
    }
    await pace();
    const ids = idsOf(a);
    let into: string | null = null;
    let matched_by = "";
    if (existing.get(a.id)?.kind === "paper") {
      into = a.id;
      matched_by = "id";
    }
    for (const x of ids) {
      if (into) break;
      const hit = existing.get(x)?.kind === "paper" ? x : byAlias.get(normAlias(x));
      if (hit) {
        into = hit;
        matched_by = x.split(":")[0] ?? "id";
      }
    }
    if (!into) {
      const hit = byAlias.get(normAlias(a.title));
      if (hit) {
        into = hit;
        matched_by = "title";
      }
    }
    if (!into) {
      result.push(a);
      continue;
    }
    if (a.placeholder) {
      // A stand-in for a work the archive already holds changes nothing and is no record of this
      // file, so it is not counted (no read of its head either).
      if (into !== a.id) renamed.set(a.id, into);
      continue;
    }
    const head = await deps.world.latestHead(archiveId, into);
    if (!head) {
      result.push(a);
      continue;
    }
    const aliases = [a.id, ...ids, a.title].filter((x) => x !== into);
    const candidate = into === a.id ? a : retarget(a, into, aliases);
    // A record that already contributed a version of this work updates it like any record: changed,
    // it is a new version; unchanged, a no-op (even when another record's version is newer). Only a
    // record meeting the work for the first time merges by richness.
    const record = recordOf(a.source);
    const own = (await deps.world.versionsOf(archiveId, into)).filter((v) => recordOf(v.source) === record).at(-1);
    // Field by field: the richer record's text and title, plus every metadata line (authors, venue,
    // date, identifiers, the BibTeX entry as written) and every field of PAPER_FIELDS (its author
    // and venue entities, its year, BibTeX type and keyword boundaries) that only the other record
    // has. A record's own later version always takes its own text and fields.
    const headContent = (await deps.kernel.contentOf(head.contentKey)) ?? "";
    const headFields = storedFields(head.parts);
    // A bibliography stand-in is replaced whole by the work's first record (its text is another
    // paper's reference line, not metadata of this one).
    const standIn = head.parts.boundaries.includes(REFERENCE_ONLY);
    const incomingWins =
      !own && (standIn || artifactRichness(candidate) > textRichness(headContent, head.entities, head.edges));
    if (own || incomingWins) {
      const fromStandIn = standIn && !own;
      const merged = fromStandIn
        ? { content: candidate.content, added: [] }
        : mergePaperContent(candidate.content, headContent);
      const fields = fromStandIn
        ? { entities: [], boundaries: [...(candidate.boundaries ?? [])], added: [] }
        : mergePaperFields(fieldsOf(candidate), headFields);
      const mergedArtifact = withFields(candidate, merged, fields);
      if (own) {
        // Unchanged: the record merged with what it stored last time (the text and fields other
        // records added to that version) gives that version again.
        const ownContent = (await deps.kernel.contentOf(own.contentKey)) ?? "";
        const again = withFields(
          candidate,
          restatePaperContent(candidate.content, ownContent),
          mergePaperFields(fieldsOf(candidate), storedFields(own)),
        );
        if (
          own.artifactHash === (await artifactHashOf(again)) ||
          own.artifactHash === (await artifactHashOf(candidate))
        ) {
          note(into, "unchanged", own.version);
          out.counts.unchanged++;
        } else result.push(mergedArtifact);
        if (into !== a.id) renamed.set(a.id, into);
        continue;
      }
      result.push(mergedArtifact);
      await recordMerge(
        deps,
        archiveId,
        out,
        { from: a.id, into, matched_by, kept: "incoming", source: a.source ?? "" },
        {
          text: a.source ?? "",
          ...Object.fromEntries([...merged.added, ...fields.added].map((f) => [f, head.source])),
        },
      );
      if (into !== a.id) renamed.set(a.id, into);
      continue;
    }
    // The existing record keeps its text, title, entities, boundaries and edges; the incoming one
    // adds the metadata lines and fields it lacked as a new version of the existing record (same
    // source, so re-imports of either record find nothing new).
    const merged = mergePaperContent(headContent, candidate.content);
    const fields = mergePaperFields(headFields, fieldsOf(candidate));
    const added = [...merged.added, ...fields.added];
    if (added.length > 0) result.push(keepHead(into, head, merged, candidate, fields));
    const aliasesAdded = await addAliases(deps, archiveId, into, aliases);
    if (added.length === 0) {
      note(into, "unchanged");
      out.counts.unchanged++;
    }
    if (into !== a.id) renamed.set(a.id, into);
    if (added.length === 0 && aliasesAdded === 0) continue;
    await recordMerge(
      deps,
      archiveId,
      out,
      { from: a.id, into, matched_by, kept: "existing", source: a.source ?? "" },
      {
        text: head.source,
        ...Object.fromEntries(added.map((f) => [f, a.source ?? ""])),
      },
    );
  }
  return result;
}

/** An artifact's fields as mergePaperFields takes them. */
function fieldsOf(a: ArtifactInput): PaperFields {
  return { entities: a.entities ?? [], boundaries: a.boundaries ?? [] };
}

/** A stored version's fields: its entity ids as entities (each exists already, under its name). */
function storedFields(parts: VersionParts): PaperFields {
  return { entities: parts.entities.map((id) => entityOfId(id)), boundaries: parts.boundaries };
}

/**
 * `a` with merged content and what the merges gave it: the entities and boundaries of a field merge,
 * and the identifiers of the `DOI:` / `arXiv:` lines the content merge added (or `ids`) as aliases
 * of its own paper entity, so they name this work and no entity of their own.
 */
function withFields(
  a: ArtifactInput,
  merged: { content: string; added: readonly string[] },
  fields: { entities: EntityInput[]; boundaries: string[] },
  ids: readonly string[] = idsOfLines(merged.content, merged.added),
): ArtifactInput {
  const aliases = ids.filter((x) => x !== a.id);
  let entities = [...(a.entities ?? []), ...fields.entities];
  if (aliases.length > 0) {
    const self = entities.find((e) => e.type === "paper" && e.id === a.id);
    entities = self
      ? entities.map((e) => (e === self ? { ...e, aliases: [...(e.aliases ?? []), ...aliases] } : e))
      : [{ type: "paper", id: a.id, name: a.title, aliases }, ...entities];
  }
  return {
    ...a,
    content: merged.content,
    ...(entities.length ? { entities } : {}),
    ...(fields.boundaries.length ? { boundaries: fields.boundaries } : {}),
  };
}

/** A stored entity id as an entity: its type from its prefix (a paper identifier is a paper). */
function entityOfId(id: string): EntityInput {
  const prefix = id.split(":")[0] ?? "";
  const type = (ENTITY_TYPES as readonly string[]).includes(prefix)
    ? (prefix as EntityInput["type"])
    : canonicalPaperId(id)
      ? "paper"
      : "concept";
  return { type, id, name: id };
}

/** Richness of a record's own text: the BibTeX entry it carries repeats its fields, so it is left out. */
function textRichness(content: string, entities: number, edges: number): number {
  return richness({ contentChars: splitEntry(content).body.length, entities, edges });
}

const artifactRichness = (a: ArtifactInput) => textRichness(a.content, a.entities?.length ?? 0, a.edges?.length ?? 0);

/**
 * The existing head as an artifact again, with merged content, the incoming record's aliases and
 * what the merges gave it (withFields).
 */
function keepHead(
  into: string,
  head: NonNullable<Awaited<ReturnType<World["latestHead"]>>>,
  merged: { content: string; added: readonly string[] },
  incoming: ArtifactInput,
  fields: { entities: EntityInput[]; boundaries: string[] },
): ArtifactInput {
  const own = incoming.entities?.find((e) => e.id === into || e.type === "paper");
  const entities: EntityInput[] = head.parts.entities.map((id) =>
    id === into && own ? { ...own, id } : entityOfId(id),
  );
  const relations = head.parts.relations;
  const kept: ArtifactInput = {
    id: into,
    kind: "paper",
    title: head.title,
    synopsis: head.synopsis,
    content: merged.content,
    entities,
    boundaries: head.parts.boundaries,
    edges: head.parts.edges,
    ...(relations?.length ? { relations } : {}),
    source: head.source,
  };
  // The work's own identifiers in its `DOI:` / `arXiv:` lines stay aliases of the paper (as the
  // record that wrote or merged them declared), unless the head holds one as an entity of its own.
  const ids = idsOfLines(merged.content, ["DOI", "arXiv"]).filter((x) => !head.parts.entities.includes(x));
  return withFields(kept, merged, fields, ids);
}

async function recordMerge(
  deps: ApplyDeps,
  archiveId: string,
  out: ApplyOutcome,
  m: { from: string; into: string; matched_by: string; kept: "incoming" | "existing"; source: string },
  fields: Record<string, string>,
): Promise<void> {
  out.merges.push({ from: m.from, into: m.into, matched_by: m.matched_by, kept: m.kept });
  out.counts.merged++;
  // Where each field of the merged record came from (the record's source).
  await deps.world.recordEntityEvent(
    archiveId,
    m.into,
    "deduplicated",
    { from: m.from, matched_by: m.matched_by, kept: m.kept, source: m.source, fields },
    deps.now(),
  );
}

/** Adds the aliases the entity does not have yet; returns how many. */
async function addAliases(deps: ApplyDeps, archiveId: string, entity: string, aliases: string[]): Promise<number> {
  const have = await deps.world.aliasNormsOf(archiveId, entity);
  let added = 0;
  for (const alias of new Set(aliases)) {
    const n = normAlias(alias);
    if (!n || have.has(n) || alias.length > 300) continue;
    have.add(n);
    const res = await deps.kernel.entityOp(archiveId, { op: "alias", entity, alias });
    if (res.ok) added++;
  }
  return added;
}

async function resolveEdgeTargets(
  world: World,
  archiveId: string,
  artifacts: ArtifactInput[],
  renamed: Map<string, string>,
) {
  const inPlan = new Set(artifacts.map((a) => a.id));
  // Works in this plan under another id form (openalex:W1 for the chunk doi:10.x) or title id.
  const resolved = new Map<string, string>();
  for (const a of artifacts) {
    if (a.kind !== "paper") continue;
    for (const x of idsOf(a)) if (x !== a.id && !inPlan.has(x)) resolved.set(x, a.id);
    const t = `paper:${normAlias(a.title).replace(/ /g, "-")}`;
    if (t !== a.id && !inPlan.has(t)) resolved.set(t, a.id);
  }
  const targets = new Set<string>();
  for (const a of artifacts)
    for (const e of a.edges ?? [])
      if (!inPlan.has(e.target) && !resolved.has(e.target) && paperId(e.target)) targets.add(e.target);
  if (targets.size > 0) {
    const existing = await world.chunksByIds(archiveId, [...targets]);
    const open = [...targets].filter((t) => !existing.has(t) && !renamed.has(t));
    const bare = (t: string) => (t.startsWith("paper:") ? t.slice("paper:".length) : t);
    const keyOf = (t: string) => normAlias(bare(t));
    const byAlias = new Map<string, string>();
    for (const m of await world.papersByAliases(archiveId, [...new Set(open.flatMap((t) => aliasKeys(bare(t))))]))
      if (!byAlias.has(normAlias(m.key))) byAlias.set(normAlias(m.key), m.chunkId);
    for (const t of open) {
      const hit = byAlias.get(keyOf(t));
      if (hit) resolved.set(t, hit);
    }
  }
  for (const a of artifacts) {
    if (!a.edges) continue;
    const seen = new Set<string>();
    a.edges = a.edges
      .map((e) => ({ ...e, target: renamed.get(e.target) ?? resolved.get(e.target) ?? e.target }))
      .filter((e) => {
        const k = `${e.type}\u0000${e.target}`;
        if (e.target === a.id || seen.has(k)) return false;
        seen.add(k);
        return true;
      });
  }
}

/**
 * The artifacts without the hard-deleted ids the gate skips (each listed with the reason), and
 * without edges to deleted ids this write does not create again.
 */
function withoutTombstoned(gate: TombstoneGate, artifacts: ArtifactInput[], out: ApplyOutcome): ArtifactInput[] {
  if (gate.gone.size === 0) return artifacts;
  const kept: ArtifactInput[] = [];
  for (const a of artifacts) {
    if (gate.skips(a.id)) out.skipped.push(gate.skipped(a.id));
    else kept.push(a);
  }
  const landing = new Set(kept.map((a) => a.id));
  return kept.map((a) =>
    a.edges?.some((e) => gate.dropsEdge(e.target, landing))
      ? { ...a, edges: a.edges.filter((e) => !gate.dropsEdge(e.target, landing)) }
      : a,
  );
}

async function successorsForRevived(
  world: World,
  archiveId: string,
  artifacts: ArtifactInput[],
  renamed: Map<string, string>,
  out: ApplyOutcome,
  pause: ApplyDeps["pause"],
): Promise<ArtifactInput[]> {
  const pace = pacer(pause, RECORD_READS_PER_PAUSE);
  const existing = await world.chunksByIds(
    archiveId,
    artifacts.map((a) => a.id),
  );
  const result: ArtifactInput[] = [];
  for (const a of artifacts) {
    if (existing.get(a.id)?.deprecatedAt == null) {
      result.push(a);
      continue;
    }
    if (a.kind !== "code_unit") {
      out.skipped.push({ ref: a.id, reason: "deprecated in this archive; deprecated records are not revived" });
      continue;
    }
    await pace();
    const live = await liveSuccessor(world, archiveId, a.id);
    if (!live) {
      out.failures.push({ id: a.id, message: `more than ${MAX_SUCCESSORS} successors of ${a.id} were deprecated` });
      out.counts.failed++;
      continue;
    }
    renamed.set(a.id, live);
    result.push({ ...a, id: live });
  }
  return result;
}

/** The first successor id of a deprecated chunk that is live or free. */
async function liveSuccessor(world: World, archiveId: string, id: string): Promise<string | null> {
  const ids = Array.from({ length: MAX_SUCCESSORS }, (_, i) => `${id}~${i + 2}`);
  const rows = await world.chunksByIds(archiveId, ids);
  return ids.find((x) => rows.get(x)?.deprecatedAt == null) ?? null;
}

async function ingestBatch(
  deps: ApplyDeps,
  archiveId: string,
  batch: ArtifactInput[],
  out: ApplyOutcome,
  note: (id: string, status: string, version?: number) => void,
  created: string[],
) {
  let items = [...batch];
  // Each failed attempt removes or fixes one artifact, so this ends after at most batch + 1 rounds.
  for (let round = 0; round <= batch.length && items.length > 0; round++) {
    const res = await deps.kernel.ingest(archiveId, items);
    if (res.ok) {
      for (const r of res.value.results) {
        out.counts[r.status]++;
        note(r.id, r.status, r.version);
        if (r.status === "created") created.push(r.id);
      }
      return;
    }
    const f = res.error;
    const idx = Number(/^artifacts\.(\d+)/.exec(f.field ?? "")?.[1] ?? Number.NaN);
    const bad = Number.isInteger(idx) ? items[idx] : undefined;
    if (!bad) {
      for (const a of items)
        out.failures.push({ id: a.id, message: f.message, ...(f.field ? { field: f.field } : {}) });
      out.counts.failed += items.length;
      return;
    }
    if (f.kind === "conflict" && f.field?.endsWith(".valid_from") && bad.valid_from !== undefined) {
      // The source's date is not after the stored version's (re-dated or clock skew): record it now.
      items[idx] = { ...bad, valid_from: undefined };
      continue;
    }
    out.failures.push({ id: bad.id, message: f.message, ...(f.field ? { field: f.field } : {}) });
    out.counts.failed++;
    items = items.filter((_, j) => j !== idx);
  }
}

async function mergeSplitEntities(deps: ApplyDeps, archiveId: string, artifacts: ArtifactInput[], out: ApplyOutcome) {
  const forms = new Set<string>();
  const scan = pacer(deps.pause, SCAN_CHARS_PER_PAUSE);
  for (const a of artifacts) {
    await scan(Math.min(a.content.length, 200_000) + a.title.length);
    for (const e of a.entities ?? [])
      if (e.type === "paper")
        for (const x of [e.id ?? "", ...(e.aliases ?? [])]) {
          const c = canonicalPaperId(x);
          if (c) forms.add(c);
        }
    for (const { id } of findIdentifiers(`${a.title}\n${a.content.slice(0, 200_000)}`)) forms.add(id);
  }
  if (forms.size === 0) return;
  const standalone = await deps.world.liveEntities(archiveId, [...forms]);
  if (standalone.size === 0) return;
  const byNorm = new Map([...standalone].map((x) => [normAlias(x), x]));
  const holders = await deps.world.paperEntitiesByAliases(archiveId, [...byNorm.keys()]);
  holders.sort((x, y) => (x.chunkId < y.chunkId ? -1 : x.chunkId > y.chunkId ? 1 : 0));
  // An id that is a chunk of its own is a record: chunk-level deduplication decides about it, not this.
  const records = await deps.world.chunksByIds(archiveId, [...standalone]);
  const pace = pacer(deps.pause, RECORD_READS_PER_PAUSE);
  for (const h of holders) {
    const from = byNorm.get(h.key);
    if (!from || from === h.chunkId || records.has(from) || !standalone.has(from)) continue;
    await pace();
    const res = await deps.kernel.entityOp(archiveId, { op: "merge", entity: from, into: h.chunkId });
    if (!res.ok) continue;
    standalone.delete(from);
    out.merges.push({ from, into: h.chunkId, matched_by: "identifier", kept: "existing" });
    out.counts.merged++;
  }
}

async function applyDeprecation(
  deps: ApplyDeps,
  archiveId: string,
  d: Deprecation,
  renamed: Map<string, string>,
  out: ApplyOutcome,
) {
  let id = renamed.get(d.id) ?? d.id;
  const rows = await deps.world.chunksByIds(archiveId, [id]);
  const row = rows.get(id);
  if (!row) {
    out.skipped.push({ ref: d.id, reason: `not in this archive (${d.reason})` });
    return;
  }
  if (row.deprecatedAt !== null) {
    if (row.kind !== "code_unit") return;
    // A deleted code file may have come back under a successor id: retire the live one.
    const live = await liveSuccessor(deps.world, archiveId, id);
    const liveRow = live ? (await deps.world.chunksByIds(archiveId, [live])).get(live) : undefined;
    if (!live || !liveRow || liveRow.deprecatedAt !== null) return;
    id = live;
  }
  const by = d.by ? (renamed.get(d.by) ?? d.by) : null;
  const byExists = by ? (await deps.world.chunksByIds(archiveId, [by])).has(by) : false;
  let res = await deps.kernel.deprecate(archiveId, id, byExists ? by : null, d.at, d.reason);
  if (!res.ok && res.error.field === "at" && d.at !== undefined) {
    // The reported time precedes the version we hold (we saw it late): the deprecation starts now.
    res = await deps.kernel.deprecate(archiveId, id, byExists ? by : null, undefined, d.reason);
  }
  if (res.ok) out.counts.deprecated++;
  else {
    out.failures.push({ id, message: res.error.message, ...(res.error.field ? { field: res.error.field } : {}) });
    out.counts.failed++;
  }
}
