/**
 * The lossless re-import of the JSON dump (import?format=archive), replayed through the normal write
 * paths (ingest, entity operations, deprecate) so every invariant holds and a second import of the
 * same dump changes nothing. It takes one dump per request, so it is bounded by the /v1 body limit
 * (32 MiB).
 */
import { ok, type Result } from "../../core/errors";
import { parseDump, planReplay, type ReplayItem, type ReplayPlan, type ReplayStep } from "../../core/export/replay";
import type { ArchiveDump } from "../../core/export/types";
import { canonicalEntityId, normAlias } from "../../core/ids";
import { artifactHashOf } from "../../core/ingest";
import { pacer } from "../../core/pace";
import type { IntakeDeps } from "../deps";
import type { ApplyOutcome } from "./outcome";
import { type Recreate, type TombstoneGate, tombstoneGate } from "./tombstones";

export interface ReplayReport {
  source_archive: string;
  exported_at: string;
  versions: { created: number; present: number };
  entity_ops: { applied: number; present: number };
  deprecations: { applied: number; present: number };
  annotations: { applied: number; present: number };
  /** Extractions at ingest the dump's versions carried (applied to them, not made again by a model). */
  extractions: { applied: number; present: number };
  /** Versions whose rebuilt artifact does not hash like the dump's (empty when lossless). */
  hash_mismatches: ReplayPlan["mismatches"];
  warnings: string[];
}

/** Replay steps (a few local D1 calls each) and annotation appends between two pauses (src/core/pace.ts). */
const STEPS_PER_PAUSE = 20;

type Outcome = ApplyOutcome & { replay: ReplayReport };

/** What the tombstone rule leaves the later steps to skip (honourTombstones). */
interface Tombstoned {
  gate: TombstoneGate;
  skippedChunks: Set<string>;
  skippedEntities: Set<string>;
  /** Items whose version a delete rewrote (without the deleted ids): the hash of that rewrite. */
  rewritten: Map<ReplayItem, string>;
}

/** What the replay steps share: the target archive, the outcome so far, the chunks that failed, the tombstones, the ids created. */
interface Replay {
  deps: IntakeDeps;
  archiveId: string;
  outcome: Outcome;
  failed: Set<string>;
  failure: (id: string, message: string, field?: string) => void;
  gone: Tombstoned;
  created: string[];
}

/**
 * Replay a dump into `archiveId`. Idempotent and resumable: versions the archive already holds (same
 * number, same artifact hash), entity operations whose effect is already stored, and chunks already
 * deprecated are skipped; a stored version with another hash is a failure for that chunk (nothing of it
 * is overwritten).
 */
export async function importArchive(
  deps: IntakeDeps,
  archiveId: string,
  text: string,
  recreate?: Recreate,
): Promise<Result<Outcome>> {
  const parsed = parseDump(text);
  if (!parsed.ok) return parsed;
  const dump: ArchiveDump = parsed.value;
  await deps.pause?.();
  const plan = await planReplay(dump, deps.pause);
  const outcome = emptyOutcome(dump, plan);
  const target = await deps.archives.getArchive(archiveId);
  if (target && JSON.stringify(target.params) !== JSON.stringify(dump.archive.params))
    outcome.replay.warnings.push(
      `kernel params differ from the source archive's (${JSON.stringify(dump.archive.params)}): routing may differ; create the archive with the same params`,
    );
  const failed = new Set<string>();
  const failure = (id: string, message: string, field?: string) => {
    outcome.counts.failed++;
    if (outcome.failures.length < 500) outcome.failures.push({ id, message, ...(field ? { field } : {}) });
  };
  // A version that does not rebuild to its recorded hash is a failure: its chunk is not imported
  // (a later version could not follow it), so a damaged dump never lands as different data.
  for (const m of plan.mismatches) {
    if (failed.has(m.chunk)) continue;
    failed.add(m.chunk);
    failure(
      m.chunk,
      `version ${m.version} of ${m.chunk} does not match its artifact_hash (expected ${m.expected.slice(0, 12)}…, got ${String(m.got).slice(0, 12)}…); the chunk was not imported`,
      "chunks",
    );
  }
  // Hard-deleted ids stay deleted unless the request re-creates them (src/app/intake/tombstones.ts).
  await deps.pause?.();
  const gone = await honourTombstones(deps, archiveId, dump, plan, outcome, recreate);
  const r: Replay = { deps, archiveId, outcome, failed, failure, gone, created: [] };
  const pace = pacer(deps.pause, STEPS_PER_PAUSE);
  for (const step of plan.steps) {
    await pace();
    if (step.step === "ingest") await replayIngest(r, step.items);
    else if (step.step === "deprecate") await replayDeprecate(r, step);
    else await replayEntityOp(r, step);
  }
  await replayAnnotations(r, dump, pace);
  const recreated = await gone.gate.recordCreated(r.created, deps.apply.now());
  if (recreated.length) outcome.recreated = recreated;
  return ok(outcome);
}

/** The outcome before any step: all counts zero, the plan's hash mismatches. */
function emptyOutcome(dump: ArchiveDump, plan: ReplayPlan): Outcome {
  return {
    counts: { created: 0, updated: 0, unchanged: 0, deprecated: 0, merged: 0, duplicates: 0, skipped: 0, failed: 0 },
    items: [],
    merges: [],
    failures: [],
    skipped: [],
    replay: {
      source_archive: dump.archive.id,
      exported_at: new Date(dump.exported_at).toISOString(),
      versions: { created: 0, present: 0 },
      entity_ops: { applied: 0, present: 0 },
      deprecations: { applied: 0, present: 0 },
      annotations: { applied: 0, present: 0 },
      extractions: { applied: 0, present: 0 },
      hash_mismatches: plan.mismatches,
      warnings: [],
    },
  };
}

/** The items of an ingest step the archive does not hold yet; the held ones counted, the conflicting ones failed. */
async function versionsToIngest(r: Replay, stepItems: readonly ReplayItem[]): Promise<ReplayItem[]> {
  const { deps, archiveId, outcome, failed, failure, gone } = r;
  const st = deps.exports;
  const states = new Map(
    (
      await st.chunksByIds(
        archiveId,
        stepItems.map((i) => i.chunk),
      )
    ).map((c) => [c.chunkId, c]),
  );
  const present = await st.exactVersions(
    archiveId,
    stepItems.filter((i) => (states.get(i.chunk)?.latestVersion ?? 0) >= i.version),
  );
  const presentHash = new Map(present.map((v) => [`${v.chunkId}\u0000${v.version}`, v.artifactHash]));
  const todo = [];
  for (const i of stepItems) {
    if (failed.has(i.chunk)) continue;
    const latest = states.get(i.chunk)?.latestVersion ?? 0;
    if (latest >= i.version) {
      const stored = presentHash.get(`${i.chunk}\u0000${i.version}`);
      if (stored === i.artifactHash || (stored !== undefined && stored === gone.rewritten.get(i))) {
        outcome.counts.unchanged++;
        outcome.replay.versions.present++;
      } else {
        failed.add(i.chunk);
        failure(i.chunk, `version ${i.version} of ${i.chunk} is stored with other contents; not overwritten`);
      }
    } else if (latest !== i.version - 1) {
      failed.add(i.chunk);
      failure(i.chunk, `${i.chunk} has ${latest} versions here; the dump's version ${i.version} cannot follow`);
    } else todo.push(i);
  }
  return todo;
}

/** An ingest step: the versions not held yet ingested, then the extractions they carry. */
async function replayIngest(r: Replay, stepItems: readonly ReplayItem[]): Promise<void> {
  const { deps, archiveId, outcome, failed, failure, created } = r;
  const kernel = deps.apply.kernel;
  const todo = await versionsToIngest(r, stepItems);
  if (!todo.length) return;
  // A version the dump carries an extraction for takes that one (below), not a model's.
  const res = await kernel.ingest(
    archiveId,
    todo.map((i) => i.artifact),
    { noExtract: new Set(todo.filter((i) => i.extracted).map((i) => i.chunk)) },
  );
  if (!res.ok) {
    for (const i of todo) {
      failed.add(i.chunk);
      failure(i.chunk, res.error.message, res.error.field);
    }
    return;
  }
  for (const x of res.value.results) {
    if (x.status === "created") created.push(x.id);
    if (x.status === "created") outcome.counts.created++;
    else if (x.status === "updated") outcome.counts.updated++;
    else outcome.counts.unchanged++;
    if (x.status !== "unchanged") outcome.replay.versions.created++;
    else outcome.replay.versions.present++;
    if (outcome.items.length < 500) outcome.items.push({ id: x.id, status: x.status, version: x.version });
  }
  // Extractions extend the versions just replayed, while each is its chunk's head (as they did).
  for (const i of todo) {
    if (!i.extracted) continue;
    const x = await kernel.extend(
      archiveId,
      { chunk: i.chunk, version: i.version },
      { entities: i.extracted.entities, relations: i.extracted.relations },
      i.extracted.model,
    );
    if (x.status === "extended") outcome.replay.extractions.applied++;
    else if (x.status === "extracted") outcome.replay.extractions.present++;
    else failure(i.chunk, `the extraction of version ${i.version} of ${i.chunk} was not applied: ${x.status}`);
  }
}

/** A deprecate step, skipped when the chunk is hard-deleted or already deprecated. */
async function replayDeprecate(r: Replay, step: Extract<ReplayStep, { step: "deprecate" }>): Promise<void> {
  const { deps, archiveId, outcome, failure, gone } = r;
  if (gone.skippedChunks.has(step.chunk)) return;
  const c = (await deps.exports.chunksByIds(archiveId, [step.chunk]))[0];
  if (c?.deprecatedAt !== null && c?.deprecatedAt !== undefined) {
    outcome.counts.skipped++;
    outcome.replay.deprecations.present++;
    return;
  }
  const res = await deps.apply.kernel.deprecate(archiveId, step.chunk, step.by, step.at, step.reason);
  if (!res.ok) failure(step.chunk, res.error.message, res.error.field);
  else {
    outcome.counts.deprecated++;
    outcome.replay.deprecations.applied++;
  }
}

/** An alias, rename or merge step, skipped when its effect is already stored. */
async function replayEntityOp(
  r: Replay,
  step: Exclude<ReplayStep, { step: "ingest" } | { step: "deprecate" }>,
): Promise<void> {
  const { deps, archiveId, outcome, failure, gone } = r;
  const st = deps.exports;
  const ent = await st.entityRow(archiveId, step.entity);
  // An entity only skipped (hard-deleted) chunks declared was forgotten with them: it stays so.
  if (!ent && gone.skippedEntities.has(step.entity)) return;
  let done = false;
  if (ent && step.step === "merge") done = ent.mergedInto !== null;
  else if (ent && step.step === "alias")
    done =
      (await st.aliasRowExists(archiveId, step.entity, normAlias(step.alias), step.at)) ||
      // An ingest's alias on an entity merged since: the merged entity takes no operations.
      ent.mergedInto !== null;
  else if (ent && step.step === "rename")
    done = await st.aliasRowExists(archiveId, step.entity, normAlias(step.newName), step.at);
  if (done) {
    outcome.counts.skipped++;
    outcome.replay.entity_ops.present++;
    return;
  }
  const res = await deps.apply.kernel.entityOp(
    archiveId,
    step.step === "alias"
      ? { op: "alias", entity: step.entity, alias: step.alias, at: step.at }
      : step.step === "rename"
        ? { op: "rename", entity: step.entity, newName: step.newName, at: step.at }
        : { op: "merge", entity: step.entity, into: step.into, at: step.at },
  );
  if (!res.ok) failure(step.entity, `${step.step}: ${res.error.message}`, res.error.field);
  else {
    outcome.replay.entity_ops.applied++;
    if (step.step === "merge") {
      outcome.counts.merged++;
      outcome.merges.push({ from: step.entity, into: step.into, matched_by: "archive-dump", kept: "existing" });
    }
  }
}

/** Annotation events after the chunks they annotate; an event id makes each append idempotent. */
async function replayAnnotations(r: Replay, dump: ArchiveDump, pace: () => Promise<void>): Promise<void> {
  const { deps, archiveId, outcome, failed, gone } = r;
  for (const c of dump.chunks) {
    if (failed.has(c.id) || gone.skippedChunks.has(c.id) || !c.annotations?.length) continue;
    for (const a of c.annotations) {
      await pace();
      const res = await deps.apply.annotations.appendAnnotation({
        archiveId,
        chunkId: c.id,
        version: a.version,
        key: a.key,
        op: a.op,
        value: a.value ?? null,
        actor: a.actor,
        reason: a.reason,
        at: a.at,
        recordedAt: a.recorded_at,
        eventId: a.event_id ?? `dump:${a.seq}`,
      });
      if (res.duplicate) outcome.replay.annotations.present++;
      else outcome.replay.annotations.applied++;
    }
  }
}

/**
 * The tombstone rule applied to a replay plan, in place: the ingest items of a deleted chunk are
 * dropped (the chunk listed in `skipped`), and the other chunks' versions lose their edges to deleted
 * ids and those ids as entities, as the delete rewrote the stored versions (re-hashed the same way, so
 * a version the delete rewrote counts as present). Returns what the later steps skip: the deleted
 * chunks' deprecations and annotations, and operations on entities only those chunks declared.
 */
async function honourTombstones(
  deps: IntakeDeps,
  archiveId: string,
  dump: ArchiveDump,
  plan: ReplayPlan,
  outcome: ApplyOutcome,
  recreate: Recreate | undefined,
): Promise<Tombstoned> {
  const targets = new Set<string>();
  for (const c of dump.chunks) for (const v of c.versions) for (const e of v.edges) targets.add(e.target);
  const gate = await tombstoneGate(
    deps.world,
    archiveId,
    dump.chunks.map((c) => c.id),
    targets,
    recreate,
  );
  const skippedChunks = new Set(dump.chunks.filter((c) => gate.skips(c.id)).map((c) => c.id));
  const skippedEntities = new Set<string>();
  const rewritten = new Map<ReplayItem, string>();
  if (gate.gone.size === 0) return { gate, skippedChunks, skippedEntities, rewritten };
  for (const id of skippedChunks) {
    outcome.skipped.push(gate.skipped(id));
    outcome.counts.skipped++;
  }
  const declaredBy = new Map<string, Set<string>>();
  for (const c of dump.chunks)
    for (const v of c.versions)
      for (const e of [
        ...v.entities,
        ...(v.extracted?.entities ?? []).map((x) => canonicalEntityId(x.type, x.id ?? x.name)),
      ])
        declaredBy.set(e, (declaredBy.get(e) ?? new Set()).add(c.id));
  for (const [e, by] of declaredBy) if ([...by].every((c) => skippedChunks.has(c))) skippedEntities.add(e);

  const landing = new Set(dump.chunks.map((c) => c.id).filter((id) => !skippedChunks.has(id)));
  const without = (a: ReplayItem["artifact"], drops: (id: string) => boolean) => ({
    ...a,
    ...(a.edges ? { edges: a.edges.filter((e) => !drops(e.target)) } : {}),
    ...(a.entities ? { entities: a.entities.filter((e) => !drops(entityIdOf(e))) } : {}),
  });
  const names = (a: ReplayItem["artifact"], drops: (id: string) => boolean) =>
    (a.edges ?? []).some((e) => drops(e.target)) || (a.entities ?? []).some((e) => drops(entityIdOf(e)));
  const deleted = (id: string) => gate.gone.has(id);
  const dropped = (id: string) => gate.dropsEdge(id, landing);
  for (const step of plan.steps) {
    if (step.step !== "ingest") continue;
    const items: ReplayItem[] = [];
    for (const i of step.items) {
      if (skippedChunks.has(i.chunk)) continue;
      if (!names(i.artifact, deleted)) {
        items.push(i);
        continue;
      }
      // What is written: without the ids that stay deleted.
      let item = i;
      if (names(i.artifact, dropped)) {
        const artifact = without(i.artifact, dropped);
        item = { ...i, artifact, artifactHash: (await artifactHashOf(artifact)) ?? i.artifactHash };
      }
      // What the delete left stored: without every deleted id (also those this request re-creates).
      const hash = await artifactHashOf(without(i.artifact, deleted));
      if (hash) rewritten.set(item, hash);
      items.push(item);
    }
    step.items = items;
  }
  plan.steps = plan.steps.filter((s) => s.step !== "ingest" || s.items.length > 0);
  return { gate, skippedChunks, skippedEntities, rewritten };
}

function entityIdOf(e: { type: string; id?: string | undefined; name: string }): string {
  return canonicalEntityId(e.type, e.id ?? e.name);
}

/** importFile's path for format=archive: replay, then record the run in the ingest log. */
export async function importArchiveFile(
  deps: IntakeDeps,
  archiveId: string,
  text: string,
  name: string,
  recreate?: Recreate,
): Promise<Result<ApplyOutcome & { replay: ReplayReport }>> {
  const started = Date.now();
  const res = await importArchive(deps, archiveId, text, recreate);
  if (!res.ok) return res;
  await deps.world.appendLog({
    archiveId,
    origin: "import",
    ref: `archive:${name}`.slice(0, 300),
    status: res.value.counts.failed > 0 || res.value.replay.hash_mismatches.length > 0 ? "partial" : "ok",
    counts: res.value.counts,
    error: res.value.failures[0]?.message ?? null,
    at: deps.apply.now(),
    durationMs: Date.now() - started,
  });
  await deps.events.emit(archiveId, "import.completed", {
    name: name.slice(0, 300),
    format: "archive",
    counts: res.value.counts,
    error: res.value.failures[0]?.message ?? null,
  });
  return res;
}
