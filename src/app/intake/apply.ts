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
import type { Deprecation, ImportPlan } from "../../core/formats/types";
import { aliasKeys, canonicalPaperId, findIdentifiers, normAlias } from "../../core/ids";
import { type ArtifactInput, INGEST_LIMITS } from "../../core/ingest";
import { pacer } from "../../core/pace";
import type { ApplyDeps, World } from "../deps";
import { toEvent } from "../lib/records";
import { dedupeAgainstArchive, dedupeWithinPlan, idsOf, paperId } from "./dedupe";
import { type ApplyOutcome, RECORD_READS_PER_PAUSE, zeroCounts } from "./outcome";
import { type Recreate, type TombstoneGate, tombstoneGate } from "./tombstones";

const MAX_ITEMS_REPORTED = 500;
/** Characters scanned for identifiers between two pauses (~10 ms). */
const SCAN_CHARS_PER_PAUSE = 500_000;
/** Successor ids probed for a deprecated code file that comes back (`<id>~2` .. `<id>~11`). */
const MAX_SUCCESSORS = 10;

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
