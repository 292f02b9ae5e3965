/**
 * Access counts from the access log: how often each session routed to, expanded and verified chunks,
 * or how often each chunk was, per channel, one page at a time (most accesses first).
 */
import type * as S from "../contract";
import { fail, ok, type Result } from "../core/errors";
import type { AppDeps } from "./deps";
import { type In, iso } from "./lib/wire";

/** Past this offset a page is refused: narrow with session_id, chunk, since or until instead. */
const MAX_OFFSET = 100_000;

export function accessUseCases(d: AppDeps) {
  return {
    async accessCounts(archive: string, q: In<typeof S.AccessCountsQuery>): Promise<Result<In<typeof S.AccessCounts>>> {
      const since = q.since === undefined ? undefined : Date.parse(q.since);
      const until = q.until === undefined ? undefined : Date.parse(q.until);
      if (since !== undefined && until !== undefined && since > until)
        return fail("validation", `since ${q.since} is after until ${q.until}`, "since", "give since <= until");
      const offset = q.cursor === undefined ? 0 : Number(q.cursor);
      if (offset > MAX_OFFSET)
        return fail(
          "validation",
          `cursor ${q.cursor} is past ${MAX_OFFSET} rows`,
          "cursor",
          "narrow the counts with session_id, chunk, since or until",
        );
      const r = await d.stores.sessions.accessCounts(archive, {
        by: q.by,
        sessionId: q.session_id,
        chunkId: q.chunk,
        since,
        until,
        limit: q.limit,
        offset,
      });
      const next = offset + r.rows.length;
      return ok({
        by: q.by,
        totals: r.totals,
        groups: r.groups,
        rows: r.rows.map((x) => ({
          key: x.key,
          routing: x.routing,
          expansion: x.expansion,
          verification: x.verification,
          total: x.total,
          last: iso(x.last),
        })),
        next_cursor: r.rows.length === q.limit && next < r.groups ? String(next) : null,
      });
    },
  };
}
