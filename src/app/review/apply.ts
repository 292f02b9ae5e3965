/**
 * POST /review: one verification operation. Statuses are append-only annotation events; edits and
 * edge changes are new versions through the kernel's ingest, so an edge removed at t is closed at t
 * and every read as of an earlier time still sees it.
 */
import * as S from "../../contract";
import { toMs } from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import { deriveSynopsis, type EdgeInput, type EntityInput } from "../../core/ingest";
import { edgeReviewKey, NODE_REVIEW_KEY, readReviewValue, reviewStatusAt, reviewValue } from "../../core/review";
import { DECLARABLE_EDGE_TYPES, type EdgeType } from "../../core/types";
import { actorOf } from "../auth";
import type { AppDeps } from "../deps";
import { type Once, onceByEventId } from "../lib/once";
import { type In, iso } from "../lib/wire";
import { eventsOf } from "./common";

const declarable = (t: string): t is EdgeType => (DECLARABLE_EDGE_TYPES as readonly string[]).includes(t);

/** Fields a review changes on the current version of a chunk (nextArtifact). */
type ReviewFields = { title: string; synopsis?: string; content: string; edges: EdgeInput[] };

/** The current version of a chunk as an ingest artifact, with the fields a review changes applied. */
export async function nextArtifact(
  d: AppDeps,
  archive: string,
  chunk: string,
  at: number,
  change: (a: ReviewFields) => Result<void>,
) {
  const h = await d.stores.chunks.chunkHistory(archive, chunk);
  const v = h?.versions[h.versions.length - 1];
  if (!h || !v) return fail("not_found", `chunk ${chunk} is not in archive ${archive}`, "chunk");
  if (h.chunk.deprecatedAt !== null)
    return fail("conflict", `chunk ${chunk} is deprecated; it takes no new versions`, "chunk");
  if (at <= v.validFrom)
    return fail(
      "conflict",
      `at must be after the current version's valid_from (${iso(v.validFrom)})`,
      "at",
      "omit at (now) or give a later time; versions never overlap",
    );
  const content = await d.kernel.contentOf(v.contentKey);
  if (content === null) return fail("unavailable", `the content of ${chunk} v${v.version} could not be read`);
  const entityIds = v.entities;
  const ents = await d.stores.exports.entitiesByIds(archive, entityIds);
  const entities: EntityInput[] = ents.map((e) => ({
    type: e.type as EntityInput["type"],
    id: e.entityId,
    name: e.name,
  }));
  // A synopsis the ingest derived is derived again from the new text; a written one is kept.
  const derived = v.synopsis === deriveSynopsis(v.title, content);
  const fields: ReviewFields = {
    title: v.title,
    ...(derived ? {} : { synopsis: v.synopsis }),
    content,
    edges: v.edges,
  };
  const changed = change(fields);
  if (!changed.ok) return changed;
  const relations = v.relations;
  return ok({
    id: chunk,
    kind: v.kind as "paper",
    title: fields.title,
    ...(fields.synopsis !== undefined ? { synopsis: fields.synopsis } : {}),
    content: fields.content,
    entities,
    boundaries: v.boundaries,
    edges: fields.edges,
    ...(relations?.length ? { relations } : {}),
    valid_from: at,
    source: v.source,
  });
}

type Body = In<typeof S.ReviewBody>;

/** Why a review body's fields do not fit its operation; null when they do. */
function bodyError(b: Body) {
  const nodeOps = b.op === "edit";
  const edgeOps = b.op === "add_edge" || b.op === "remove_edge";
  if (nodeOps && (b.chunk === undefined || b.edge !== undefined))
    return fail("validation", "edit takes `chunk` (and no `edge`)", "chunk", "name the chunk to edit");
  if (edgeOps && (b.edge === undefined || b.chunk !== undefined))
    return fail("validation", `${b.op} takes \`edge\` (and no \`chunk\`)`, "edge", "give edge: {from, type, to}");
  if (!nodeOps && !edgeOps && (b.chunk === undefined) === (b.edge === undefined))
    return fail("validation", `${b.op} takes exactly one of chunk or edge`, "chunk");
  if (b.op === "flag" && !b.reason?.trim())
    return fail("validation", "flag needs a reason", "reason", "say what is wrong, e.g. 'wrong definition'");
  if (b.op === "edit" && !b.changes?.title && !b.changes?.synopsis && !b.changes?.content)
    return fail("validation", "edit needs changes (title, synopsis or content)", "changes");
  if (b.op !== "edit" && b.changes !== undefined) return fail("validation", "changes only go with op edit", "changes");
  if (b.edge?.weight !== undefined && b.op !== "add_edge")
    return fail("validation", "weight only goes with op add_edge", "edge.weight");
  return null;
}

/**
 * The answer rebuilt from an event_id's annotation when the event is stored but its answer is not (an
 * event from before answers were kept, or a request that died between the two): the stored event
 * when it names the same operation on the same target (`duplicate: true`), a conflict when it names
 * another; null when no event has the id.
 */
async function replay(
  d: AppDeps,
  archive: string,
  b: Body,
  chunk: string,
  key: string,
  edgeRef: { type: string; to: string } | undefined,
  eventId: string,
): Promise<Result<In<typeof S.ReviewResult>> | null> {
  const prior = await d.stores.annotations.annotationByEventId(archive, eventId);
  if (!prior) return null;
  const v = readReviewValue(prior.value, edgeRef);
  if (!v || v.op !== b.op || prior.chunkId !== chunk || prior.key !== key)
    return fail(
      "conflict",
      `event_id ${b.event_id} was already used for another operation (${v?.op ?? prior.key} on ${prior.chunkId})`,
      "event_id",
      "use a new event_id for a new operation",
    );
  const earlier = (await eventsOf(d, archive, chunk, key, prior.at, edgeRef)).filter((r) => r.id !== prior.id);
  return ok({
    op: b.op,
    target: b.edge ? { edge: { from: b.edge.from, type: b.edge.type, to: b.edge.to } } : { chunk },
    status: v.status,
    previous_status: reviewStatusAt(earlier, prior.at, edgeRef).status,
    at: iso(prior.at),
    actor: prior.actor,
    reason: prior.reason,
    version: prior.version,
    event: prior.id,
    duplicate: true,
  });
}

/** An edit's changes, or an add_edge's or remove_edge's edge, applied to the current version's fields. */
function applyChange(b: Body, a: ReviewFields): Result<void> {
  const e = b.edge;
  if (b.op === "edit" && b.changes) {
    if (b.changes.title !== undefined) a.title = b.changes.title;
    if (b.changes.content !== undefined) a.content = b.changes.content;
    if (b.changes.synopsis !== undefined) a.synopsis = b.changes.synopsis;
    return ok(undefined);
  }
  if (!e) return ok(undefined);
  const i = a.edges.findIndex((x) => x.type === e.type && x.target === e.to);
  if (b.op === "add_edge") {
    if (i >= 0)
      return fail(
        "conflict",
        `${e.from} already declares a ${e.type} edge to ${e.to}`,
        "edge",
        "verify it, or remove it first",
      );
    if (e.to === e.from) return fail("validation", "an edge cannot point at its own source", "edge.to");
    a.edges.push({
      type: e.type as EdgeType,
      target: e.to,
      ...(e.weight !== undefined ? { weight: e.weight } : {}),
    });
  } else {
    if (i < 0)
      return fail(
        "not_found",
        `the current version of ${e.from} declares no ${e.type} edge to ${e.to}`,
        "edge",
        "only edges the chunk declares can be removed; lifecycle and derived edges can be flagged",
      );
    a.edges.splice(i, 1);
  }
  return ok(undefined);
}

/** The new version an edit, add_edge or remove_edge writes at `at`; its number. */
async function writeVersion(d: AppDeps, archive: string, chunk: string, at: number, b: Body): Promise<Result<number>> {
  const e = b.edge;
  if (e && !declarable(e.type))
    return fail(
      "validation",
      `${e.type} edges are derived by the analyser; they cannot be added or removed`,
      "edge.type",
      "flag the edge instead",
    );
  const art = await nextArtifact(d, archive, chunk, at, (a) => applyChange(b, a));
  if (!art.ok) return art;
  const res = await d.kernel.ingest(archive, [art.value]);
  if (!res.ok) return res;
  const r = res.value.results[0];
  if (!r || r.status === "unchanged")
    return fail("conflict", "the edit changes nothing", "changes", "send fields that differ from the current version");
  return ok(r.version);
}

/** One operation, applied now; its answer. */
async function applyOp(
  d: AppDeps,
  archive: string,
  b: In<typeof S.ReviewBody>,
  authorization: string | undefined,
): Promise<Result<In<typeof S.ReviewResult>>> {
  const chunks = d.stores.chunks;
  const edgeOps = b.op === "add_edge" || b.op === "remove_edge";
  const now = d.clock.now();
  const at = toMs(b.at) ?? now;
  const actor = await actorOf(d, authorization);
  const chunk = b.chunk ?? b.edge?.from ?? "";
  const key = b.edge ? edgeReviewKey(b.edge.type, b.edge.to) : NODE_REVIEW_KEY;
  const head = await chunks.chunkRow(archive, chunk);
  if (!head) return fail("not_found", `chunk ${chunk} is not in archive ${archive}`, b.edge ? "edge.from" : "chunk");
  const edgeRef = b.edge ? { type: b.edge.type, to: b.edge.to } : undefined;
  const eventId = b.event_id === undefined ? null : `review:${b.event_id}`;
  if (eventId !== null) {
    const replayed = await replay(d, archive, b, chunk, key, edgeRef, eventId);
    if (replayed) return replayed;
  }
  const before = reviewStatusAt(await eventsOf(d, archive, chunk, key, at, edgeRef), at, edgeRef).status;

  let version: number | null = null;
  if (b.edge && (b.op === "verify" || b.op === "flag")) {
    const e = b.edge;
    const open = await chunks.edgesAt(archive, [e.from], e.type, "out", at);
    if (!open.some((x) => x.to === e.to))
      return fail(
        "not_found",
        `no ${e.type} edge from ${e.from} to ${e.to} is valid at ${iso(at)}`,
        "edge",
        "check GET /chunks/{id} for the chunk's edges over time",
      );
  }
  if (b.op === "edit" || edgeOps) {
    const written = await writeVersion(d, archive, chunk, at, b);
    if (!written.ok) return written;
    version = written.value;
  } else if (!b.edge) {
    version = head.latestVersion;
  }
  const stored = await d.stores.annotations.appendAnnotation({
    archiveId: archive,
    chunkId: chunk,
    version,
    key,
    op: "set",
    value: reviewValue(b.op, edgeRef),
    actor,
    reason: b.reason ?? "",
    at,
    recordedAt: now,
    eventId,
  });
  return ok({
    op: b.op,
    target: b.edge ? { edge: { from: b.edge.from, type: b.edge.type, to: b.edge.to } } : { chunk },
    status: reviewValue(b.op).status,
    previous_status: before,
    at: iso(at),
    actor,
    reason: b.reason ?? "",
    version: b.edge && !edgeOps ? null : version,
    event: stored.row.id,
    duplicate: false,
  });
}

/** One operation, applied now; its answer and the annotation event it wrote. */
async function applyNow(
  d: AppDeps,
  archive: string,
  b: In<typeof S.ReviewBody>,
  authorization: string | undefined,
): Promise<Result<{ value: In<typeof S.ReviewResult>; annotationId: number }>> {
  const answer = await applyOp(d, archive, b, authorization);
  return answer.ok ? ok({ value: answer.value, annotationId: answer.value.event }) : answer;
}

export function reviewApplyUseCases(d: AppDeps) {
  /**
   * POST /review with whether the answer is a stored one: with an `event_id`, every repeat of the
   * operation, concurrent or later, gets the first answer (src/app/lib/once.ts).
   */
  async function applyOnce(
    archive: string,
    b: In<typeof S.ReviewBody>,
    authorization: string | undefined,
  ): Promise<Result<Once<In<typeof S.ReviewResult>>>> {
    const bad = bodyError(b);
    if (bad) return bad;
    if (b.event_id === undefined) {
      const res = await applyOp(d, archive, b, authorization);
      return res.ok ? ok({ value: res.value, replayed: false }) : res;
    }
    const target = b.edge ? `${b.edge.from} -${b.edge.type}-> ${b.edge.to}` : (b.chunk ?? "");
    return onceByEventId(
      { annotations: d.stores.annotations, clock: d.clock },
      {
        archive,
        eventId: `review:${b.event_id}`,
        label: b.event_id,
        request: `review ${b.op} of ${target}`,
        schema: S.ReviewResult,
        run: () => applyNow(d, archive, b, authorization),
      },
    );
  }

  return {
    applyOnce,
    /** POST /review: one verification operation. */
    async apply(
      archive: string,
      b: In<typeof S.ReviewBody>,
      authorization: string | undefined,
    ): Promise<Result<In<typeof S.ReviewResult>>> {
      const res = await applyOnce(archive, b, authorization);
      return res.ok ? ok(res.value.value) : res;
    },
  };
}
