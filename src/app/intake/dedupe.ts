/**
 * Cross-source deduplication of an import plan's papers (the rule is stated in apply.ts): within
 * the plan, then against the works the archive holds, each merge recorded in entity history.
 */

import { REFERENCE_ONLY } from "../../core/formats/fulltext";
import {
  idsOfLines,
  mergePaperContent,
  mergePaperFields,
  type PaperFields,
  restatePaperContent,
  splitEntry,
} from "../../core/formats/paper";
import { aliasKeys, canonicalPaperId, normAlias } from "../../core/ids";
import { type ArtifactInput, artifactHashOf, type EntityInput } from "../../core/ingest";
import { pacer } from "../../core/pace";
import type { VersionParts } from "../../core/ports";
import { ENTITY_TYPES } from "../../core/types";
import type { ApplyDeps, World } from "../deps";
import { type ApplyOutcome, RECORD_READS_PER_PAUSE } from "./outcome";

/** Paper-like ids: canonical identifiers and title ids minted by paperIdentity(). */
export function paperId(id: string): string | null {
  if (id.startsWith("paper:")) return id;
  return canonicalPaperId(id);
}

/** The canonical identifiers a paper artifact carries: its id and its own entity's id-like aliases. */
export function idsOf(a: ArtifactInput): string[] {
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

export function dedupeWithinPlan(artifacts: ArtifactInput[], renamed: Map<string, string>, out: ApplyOutcome) {
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

export async function dedupeAgainstArchive(
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
