/**
 * Feedback (Self-Loop Memory): chunks with the boundary `feedback`, counters as the annotations
 * `revisions` and `uses` (add events), selected by Eq. 12 (src/core/research/feedback.ts). A record a
 * model proposed (POST /feedback/propose: it carries a `proposal` annotation) is a candidate only once
 * a user verified or edited it (POST /review) by `as_of`; until then it is counted as pending.
 * With an `event_id`, the selection is a use of the selected record (usage(r) of Eq. 12 counts
 * selections): a `uses` add event of 1 at the selection's time, stored under that event id, and
 * every repeat of the id gets the first answer (src/app/lib/once.ts) and counts nothing.
 */

import * as S from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import type { AnnotationRecord } from "../../core/ports";
import { selectFeedback } from "../../core/research/feedback";
import { NODE_REVIEW_KEY, reviewStatusAt } from "../../core/review";
import { actorOf } from "../auth";
import type { AppDeps } from "../deps";
import { missingArchive } from "../lib/archives";
import { type Once, onceByEventId } from "../lib/once";
import { PROPOSAL_KEY } from "../lib/proposals";
import { toEvent } from "../lib/records";
import { type In, iso, timeOf } from "../lib/wire";
import { FEEDBACK } from "./common";

type Selected = In<typeof S.FeedbackSelectResult>;

/** Feedback records one selection reads. */
const MAX_FEEDBACK = 5000;

function numberOf(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** Eq. 12 at t, reading only. */
async function pick(
  d: AppDeps,
  archive: string,
  b: In<typeof S.FeedbackSelectBody>,
  t: number,
): Promise<Result<Selected>> {
  const chunks = d.stores.chunks;
  const rows: Awaited<ReturnType<typeof chunks.listChunks>> = [];
  let after: string | null = null;
  for (;;) {
    const page = await chunks.listChunks(archive, { asOf: t, boundary: FEEDBACK }, after, 501);
    rows.push(...page.slice(0, 500));
    if (rows.length > MAX_FEEDBACK)
      return fail(
        "too_large",
        `more than ${MAX_FEEDBACK} feedback records at that time`,
        "scope",
        "narrow them with a scope boundary",
      );
    if (page.length <= 500) break;
    after = (page[499] as { chunkId: string }).chunkId;
  }
  const scoped = b.scope ? rows.filter((r) => r.boundaries.includes(b.scope as string)) : rows;
  const events: AnnotationRecord[] = scoped.length
    ? await d.stores.annotations.annotationsOf(
        archive,
        scoped.map((r) => r.chunkId),
        undefined,
        t,
      )
    : [];
  // Model proposals wait for a user: verified or edited by t, else pending (flagged: rejected).
  const proposed = new Set(events.filter((e) => e.key === PROPOSAL_KEY).map((e) => e.chunkId));
  const accepted = (chunk: string) => {
    const status = reviewStatusAt(
      events.filter((e) => e.chunkId === chunk && e.key === NODE_REVIEW_KEY),
      t,
    ).status;
    return status === "human-verified" || status === "human-edited";
  };
  const records = scoped.filter((r) => !proposed.has(r.chunkId) || accepted(r.chunkId));
  const pending = scoped.filter(
    (r) =>
      proposed.has(r.chunkId) &&
      reviewStatusAt(
        events.filter((e) => e.chunkId === r.chunkId && e.key === NODE_REVIEW_KEY),
        t,
      ).status === "auto-generated",
  ).length;
  const counters = new Map<string, { revisions: number; uses: number }>();
  const sorted = events.map(toEvent).sort((a, b2) => a.at - b2.at || a.id - b2.id);
  for (const e of sorted) {
    if (e.key !== "revisions" && e.key !== "uses") continue;
    const c = counters.get(e.chunkId) ?? { revisions: 0, uses: 0 };
    const v = numberOf(e.value);
    c[e.key] = e.op === "add" ? c[e.key] + v : v;
    counters.set(e.chunkId, c);
  }
  const candidates = records.map((r) => ({
    id: r.chunkId,
    version: r.version,
    title: r.title,
    synopsis: r.synopsis,
    revisions: counters.get(r.chunkId)?.revisions ?? 0,
    uses: counters.get(r.chunkId)?.uses ?? 0,
    createdAt: r.firstValidFrom,
  }));
  const chosen = selectFeedback(candidates, b.tie);
  const view = (c: (typeof candidates)[number]) => ({
    id: c.id,
    version: c.version,
    title: c.title,
    synopsis: c.synopsis,
    revisions: c.revisions,
    uses: c.uses,
    created_at: iso(c.createdAt),
  });
  const rMin = chosen ? chosen.revisions : null;
  const rMinSet = candidates
    .filter((c) => c.revisions === rMin)
    .sort((a, b2) => b2.uses - a.uses || a.createdAt - b2.createdAt || (a.id < b2.id ? -1 : 1));
  return ok({
    as_of: iso(t),
    tie: b.tie,
    records: candidates.length,
    pending_proposals: pending,
    r_min: rMin,
    r_min_size: rMinSet.length,
    selected: chosen ? view(chosen) : null,
    candidates: rMinSet.slice(0, 20).map(view),
    used: null,
  });
}

/** The selection at t and the use of the selected record, appended under eventId; its answer and that event. */
async function recordUse(
  d: AppDeps,
  archive: string,
  b: In<typeof S.FeedbackSelectBody>,
  t: number,
  eventId: string,
  authorization: string | undefined,
): Promise<Result<{ value: Selected; annotationId: number }>> {
  const absent = await missingArchive(d.stores.archives, archive);
  if (absent) return absent;
  const r = await pick(d, archive, b, t);
  if (!r.ok) return r;
  const sel = r.value.selected;
  if (!sel)
    return fail(
      "conflict",
      "no feedback record to select at that time: there is no use to record",
      "event_id",
      "select without event_id, or write feedback records first",
    );
  const now = d.clock.now();
  const res = await d.stores.annotations.appendAnnotation({
    archiveId: archive,
    chunkId: sel.id,
    version: null,
    key: "uses",
    op: "add",
    value: 1,
    actor: await actorOf(d, authorization),
    reason: "selected by POST /feedback/select (Eq. 12)",
    at: t,
    recordedAt: now,
    eventId,
  });
  if (res.duplicate && (res.row.chunkId !== sel.id || res.row.key !== "uses"))
    return fail(
      "conflict",
      `event_id ${eventId} was already used for another operation (annotation ${res.row.key} of ${res.row.chunkId})`,
      "event_id",
      "use a new event_id for a new operation",
    );
  return ok({
    value: {
      ...r.value,
      used: { id: sel.id, event_id: eventId, at: iso(t), uses: res.duplicate ? sel.uses : sel.uses + 1 },
    },
    annotationId: res.row.id,
  });
}

/** The selection, and with an event id the use of the selected record, appended once. */
async function selectOnce(
  d: AppDeps,
  archive: string,
  b: In<typeof S.FeedbackSelectBody>,
  authorization: string | undefined,
): Promise<Result<Once<Selected>>> {
  const t = timeOf(d, b.as_of);
  const eventId = b.event_id;
  if (eventId === undefined) {
    const r = await pick(d, archive, b, t);
    return r.ok ? ok({ value: r.value, replayed: false }) : r;
  }
  return onceByEventId(
    { annotations: d.stores.annotations, clock: d.clock },
    {
      archive,
      eventId,
      label: eventId,
      request: `feedback use selected in scope ${b.scope ?? "(all)"}`,
      schema: S.FeedbackSelectResult,
      run: () => recordUse(d, archive, b, t, eventId, authorization),
    },
  );
}

export function feedbackUseCases(d: AppDeps) {
  return {
    selectOnce: (archive: string, b: In<typeof S.FeedbackSelectBody>, authorization: string | undefined) =>
      selectOnce(d, archive, b, authorization),
    async selectFeedback(
      archive: string,
      b: In<typeof S.FeedbackSelectBody>,
      authorization?: string,
    ): Promise<Result<Selected>> {
      const r = await selectOnce(d, archive, b, authorization);
      return r.ok ? ok(r.value.value) : r;
    },
  };
}
