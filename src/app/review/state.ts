/** GET /review: a node's or an edge's review status as of a time, with its history. */
import type * as S from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import type { AnnotationRecord } from "../../core/ports";
import { EDGE_REVIEW_PREFIX, edgeReviewKey, NODE_REVIEW_KEY, readReviewValue, reviewStatusAt } from "../../core/review";
import type { AppDeps } from "../deps";
import { type In, iso, isoOrNull, round4, timeOf } from "../lib/wire";
import { eventsOf } from "./common";

export function reviewStateUseCases(d: AppDeps) {
  return {
    /** GET /review: a node's or an edge's status as of a time, with its history. */
    async state(archive: string, q: In<typeof S.ReviewQuery>): Promise<Result<In<typeof S.ReviewState>>> {
      const isEdge = q.from !== undefined || q.type !== undefined || q.to !== undefined;
      if (isEdge === (q.chunk !== undefined))
        return fail("validation", "give chunk, or from, type and to (an edge)", "chunk");
      if (isEdge && (q.from === undefined || q.type === undefined || q.to === undefined))
        return fail(
          "validation",
          "an edge needs from, type and to",
          q.from === undefined ? "from" : q.type ? "to" : "type",
        );
      const asOf = timeOf(d, q.as_of);
      const chunk = (q.chunk ?? q.from) as string;
      const h = await d.stores.chunks.chunkHistory(archive, chunk);
      if (!h) return fail("not_found", `chunk ${chunk} is not in archive ${archive}`, isEdge ? "from" : "chunk");
      const key = isEdge ? edgeReviewKey(q.type as string, q.to as string) : NODE_REVIEW_KEY;
      const edgeRef = isEdge ? { type: q.type as string, to: q.to as string } : undefined;
      const rows = await eventsOf(d, archive, chunk, key, asOf, edgeRef);
      const { status, last } = reviewStatusAt(rows, asOf, edgeRef);
      const history = rows.flatMap((r) => {
        const v = readReviewValue(r.value);
        return v
          ? [
              {
                op: v.op,
                status: v.status,
                actor: r.actor,
                reason: r.reason,
                at: iso(r.at),
                recorded_at: iso(r.recordedAt),
                version: r.version,
              },
            ]
          : [];
      });
      const base = {
        as_of: iso(asOf),
        status,
        since: last ? iso(last.at) : null,
        actor: last?.actor ?? null,
        reason: last?.reason ?? "",
        history,
      };
      if (isEdge) {
        const intervals = h.edges.filter((e) => e.src === chunk && e.type === q.type && e.dst === q.to);
        const valid = intervals.find((e) => e.validFrom <= asOf && (e.validTo === null || e.validTo > asOf));
        const shown = valid ?? intervals[intervals.length - 1];
        return ok({
          target: { edge: { from: chunk, type: q.type as string, to: q.to as string } },
          ...base,
          edge: {
            exists: valid !== undefined,
            valid_from: shown ? iso(shown.validFrom) : null,
            valid_to: isoOrNull(shown?.validTo),
            weight: shown ? round4(shown.weight) : null,
          },
        });
      }
      // The chunk's reviewed out-edges: events under edge keys, grouped by the edge their value names.
      const all = await d.stores.annotations.annotationsOf(archive, [chunk], undefined, asOf);
      const byEdge = new Map<string, { type: string; to: string; events: AnnotationRecord[] }>();
      for (const r of all) {
        if (!r.key.startsWith(EDGE_REVIEW_PREFIX)) continue;
        const e = readReviewValue(r.value)?.edge;
        if (!e) continue;
        const k = `${e.type}\u0000${e.to}`;
        const cur = byEdge.get(k) ?? { ...e, events: [] };
        cur.events.push(r);
        byEdge.set(k, cur);
      }
      const edges = [...byEdge.values()].map((e) => ({
        type: e.type,
        to: e.to,
        status: reviewStatusAt(e.events, asOf, e).status,
      }));
      return ok({ target: { chunk }, ...base, edges });
    },
  };
}
