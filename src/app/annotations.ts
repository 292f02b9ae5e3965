/** Annotation use cases: append a status or counter event to a chunk; read values as of a time. */
import * as S from "../contract";
import { type AnnotationValue, foldAnnotations } from "../core/annotations";
import { fail, ok, type Result } from "../core/errors";
import type { AnnotationRecord } from "../core/ports";
import { actorOf } from "./auth";
import type { AppDeps } from "./deps";
import { type Once, onceByEventId } from "./lib/once";
import { toEvent } from "./lib/records";
import { type In, iso, timeOf } from "./lib/wire";

const eventView = (r: AnnotationRecord) => ({
  id: r.id,
  key: r.key,
  op: (r.op === "add" ? "add" : "set") as "set" | "add",
  value: r.value,
  version: r.version,
  actor: r.actor,
  reason: r.reason,
  at: iso(r.at),
  recorded_at: iso(r.recordedAt),
});

export const valueView = (v: AnnotationValue) => ({
  value: v.value,
  at: iso(v.at),
  actor: v.actor,
  reason: v.reason,
  version: v.version,
  events: v.events,
});

export function annotationUseCases(d: AppDeps) {
  const store = d.stores.annotations;
  /** One event, appended now: the answer and the annotation it names. */
  async function appendNow(
    archive: string,
    chunk: string,
    b: In<typeof S.AnnotateBody>,
    authorization: string | undefined,
  ): Promise<Result<{ value: In<typeof S.Annotated>; annotationId: number }>> {
    const head = await d.stores.chunks.chunkRow(archive, chunk);
    if (!head) return fail("not_found", `chunk ${chunk} is not in archive ${archive}`, "id");
    if (b.version !== undefined && b.version > head.latestVersion)
      return fail("not_found", `chunk ${chunk} has no version ${b.version} (latest ${head.latestVersion})`, "version");
    const now = d.clock.now();
    const res = await store.appendAnnotation({
      archiveId: archive,
      chunkId: chunk,
      version: b.version ?? null,
      key: b.key,
      op: b.add !== undefined ? "add" : "set",
      value: b.add !== undefined ? b.add : b.value,
      actor: await actorOf(d, authorization),
      reason: b.reason ?? "",
      at: b.at === undefined ? now : Date.parse(b.at),
      recordedAt: now,
      eventId: b.event_id ?? null,
    });
    if (res.duplicate && (res.row.chunkId !== chunk || res.row.key !== b.key))
      return fail(
        "conflict",
        `event_id ${b.event_id} was already used for another operation (annotation ${res.row.key} of ${res.row.chunkId})`,
        "event_id",
        "use a new event_id for a new operation",
      );
    const all = await store.annotationsOf(archive, [chunk], b.key, Number.MAX_SAFE_INTEGER);
    const current = foldAnnotations(all.map(toEvent), Math.max(now, res.row.at)).get(b.key);
    if (!current) return fail("unavailable", "the annotation was stored but could not be read back");
    return ok({
      value: { event: eventView(res.row), duplicate: res.duplicate, current: valueView(current) },
      annotationId: res.row.id,
    });
  }

  /**
   * POST …/annotations with whether the answer is a stored one: with an `event_id`, every repeat,
   * concurrent or later, gets the first answer (src/app/lib/once.ts).
   */
  async function annotateOnce(
    archive: string,
    chunk: string,
    b: In<typeof S.AnnotateBody>,
    authorization: string | undefined,
  ): Promise<Result<Once<In<typeof S.Annotated>>>> {
    if ((b.value === undefined) === (b.add === undefined))
      return fail("validation", "give exactly one of value (set) or add (a number to add)", "value");
    if (b.event_id === undefined) {
      const res = await appendNow(archive, chunk, b, authorization);
      return res.ok ? ok({ value: res.value.value, replayed: false }) : res;
    }
    return onceByEventId(
      { annotations: store, clock: d.clock },
      {
        archive,
        eventId: b.event_id,
        label: b.event_id,
        request: `annotation ${b.key} of ${chunk}`,
        schema: S.Annotated,
        run: () => appendNow(archive, chunk, b, authorization),
      },
    );
  }

  return {
    annotateOnce,
    async annotate(
      archive: string,
      chunk: string,
      b: In<typeof S.AnnotateBody>,
      authorization: string | undefined,
    ): Promise<Result<In<typeof S.Annotated>>> {
      const res = await annotateOnce(archive, chunk, b, authorization);
      return res.ok ? ok(res.value.value) : res;
    },

    async read(
      archive: string,
      chunk: string,
      q: In<typeof S.AnnotationsQuery>,
    ): Promise<Result<In<typeof S.Annotations>>> {
      if (!(await d.stores.chunks.chunkRow(archive, chunk)))
        return fail("not_found", `chunk ${chunk} is not in archive ${archive}`, "id");
      const asOf = timeOf(d, q.as_of);
      const rows = await store.annotationsOf(archive, [chunk], q.key, asOf);
      const values: Record<string, ReturnType<typeof valueView>> = {};
      for (const [k, v] of foldAnnotations(rows.map(toEvent), asOf)) values[k] = valueView(v);
      return ok({ chunk, as_of: iso(asOf), values, events: rows.map(eventView) });
    },
  };
}
