/**
 * Spec components of ProjectGuard's records (seed 002 A.2): a design or decision record carries its
 * intended functionality (description), its exact formula, expected inputs and outputs and its
 * module-level connections, as the annotation `spec` (an object) on the record's current version.
 * Annotations fold as of a time, so a spec revised later is read as it was at `as_of`; the brief and
 * the render show the spec valid at their `as_of` with each record.
 */

import type * as S from "../../contract";
import { SpecView } from "../../contract";
import { foldAnnotations } from "../../core/annotations";
import { fail, ok, type Result } from "../../core/errors";
import { actorOf } from "../auth";
import type { AppDeps } from "../deps";
import { archiveAt } from "../lib/archives";
import { toEvent } from "../lib/records";
import { type In, iso } from "../lib/wire";

export type Spec = In<typeof SpecView>;

/** The annotation key a record's spec is stored under. */
export const SPEC_KEY = "spec";
const RECORD_KINDS = new Set(["design", "decision"]);

/** The spec of each of these chunks at t (chunks without one, or with a malformed one, are absent). */
export async function specsAt(
  d: AppDeps,
  archive: string,
  ids: readonly string[],
  t: number,
): Promise<Map<string, Spec>> {
  const out = new Map<string, Spec>();
  if (!ids.length) return out;
  const events = await d.stores.annotations.annotationsOf(archive, [...ids], SPEC_KEY, t);
  const by = new Map<string, typeof events>();
  for (const e of events) {
    const list = by.get(e.chunkId);
    if (list) list.push(e);
    else by.set(e.chunkId, [e]);
  }
  for (const [id, list] of by) {
    const v = foldAnnotations(list.map(toEvent), t).get(SPEC_KEY)?.value;
    const parsed = SpecView.safeParse(v);
    if (parsed.success) out.set(id, parsed.data);
  }
  return out;
}

export function specUseCases(d: AppDeps) {
  return {
    /** POST …/projectguard/spec: set a record's spec (a new annotation event; the last one at t wins). */
    async setSpec(
      archive: string,
      b: In<typeof S.SpecBody>,
      authorization: string | undefined,
    ): Promise<Result<In<typeof S.SpecResult>>> {
      const pre = await archiveAt(d, archive, b.at);
      if (!pre.ok) return pre;
      const { t: at } = pre.value;
      const head = (await d.stores.chunks.visibleAt(archive, [b.record], at)).get(b.record);
      if (!head)
        return fail(
          "not_found",
          `no version of ${b.record} is valid at ${iso(at)}`,
          "record",
          "ingest the record first, or set `at` within its validity",
        );
      if (!RECORD_KINDS.has(head.kind))
        return fail(
          "validation",
          `${b.record} is a ${head.kind}; a spec belongs to a design or decision record`,
          "record",
          "name a design or decision",
        );
      const spec: Spec = {
        description: b.description,
        formula: b.formula,
        inputs: b.inputs,
        outputs: b.outputs,
        connections: b.connections,
      };
      await d.stores.annotations.appendAnnotation({
        archiveId: archive,
        chunkId: b.record,
        version: head.version,
        key: SPEC_KEY,
        op: "set",
        value: spec,
        actor: await actorOf(d, authorization),
        reason: b.reason ?? "",
        at,
        recordedAt: d.clock.now(),
        eventId: null,
      });
      return ok({ record: b.record, version: head.version, at: iso(at), spec });
    },
  };
}
