/**
 * Retrieval metrics against gold ids: each query run through the router and scored, the run stored
 * so runs compare over time.
 */

import type * as S from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import type { RetrievalRunRecord } from "../../core/ports";
import { aggregateMetrics, normaliseKs, queryMetrics } from "../../core/research/retrieval";
import { actorOf } from "../auth";
import type { AppDeps } from "../deps";
import { archiveAt, missingArchive } from "../lib/archives";
import { resolveFilter } from "../lib/filter";
import { decodeCursor, encodeCursor, type In, iso, randomId, round4 } from "../lib/wire";

const roundMap = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, round4(v)]));

export function retrievalUseCases(d: AppDeps) {
  return {
    /** POST /metrics/retrieval: each query through the router, scored against its gold ids. */
    async retrieval(
      archive: string,
      b: In<typeof S.RetrievalMetricsBody>,
      authorization: string | undefined,
    ): Promise<Result<In<typeof S.RetrievalRun>>> {
      const pre = await archiveAt(d, archive, b.as_of);
      if (!pre.ok) return pre;
      const { now, t: asOf } = pre.value;
      const ks = normaliseKs(b.k);
      const maxK = ks[ks.length - 1] ?? 10;
      const per: In<typeof S.RetrievalRun>["per_query"] = [];
      const metrics = [];
      for (const [i, item] of b.queries.entries()) {
        let filter: Awaited<ReturnType<typeof resolveFilter>>;
        try {
          filter = await resolveFilter(d.stores.chunks, archive, item.filter, asOf);
        } catch {
          return fail("validation", `the filter of query ${i} could not be resolved`, `queries.${i}.filter`);
        }
        const r = await d.kernel.route({ archiveId: archive, query: item.query, asOf, limit: maxK, filter });
        const returned = r.route.selected.map((s) => s.chunk).slice(0, maxK);
        const m = queryMetrics(returned, item.gold, ks);
        metrics.push(m);
        per.push({
          query: item.query,
          gold: item.gold,
          returned,
          hit: m.hit,
          reciprocal_rank: round4(m.reciprocal_rank),
          first_rank: m.first_rank,
          recall: roundMap(m.recall),
          precision: roundMap(m.precision),
        });
      }
      const agg = aggregateMetrics(metrics, ks);
      const aggregate = {
        queries: agg.queries,
        hit_rate: round4(agg.hit_rate),
        mrr: round4(agg.mrr),
        recall: roundMap(agg.recall),
        precision: roundMap(agg.precision),
      };
      const actor = await actorOf(d, authorization);
      const id = b.store ? randomId("run_", 8) : null;
      if (id)
        await d.stores.retrievalRuns.insertRun({
          archiveId: archive,
          id,
          name: b.name ?? "",
          createdAt: now,
          asOf,
          ks,
          queries: agg.queries,
          aggregate,
          perQuery: per,
          actor,
        });
      return ok({
        id,
        name: b.name ?? "",
        created_at: iso(now),
        as_of: iso(asOf),
        k: ks,
        actor,
        aggregate,
        per_query: per,
      });
    },

    /** GET /metrics/retrieval/runs: newest first. */
    async runs(archive: string, q: In<typeof S.RunListQuery>): Promise<Result<In<typeof S.RetrievalRunPage>>> {
      const absent = await missingArchive(d.stores.archives, archive);
      if (absent) return absent;
      const cur = decodeCursor(q.cursor);
      if (!cur.ok) return cur;
      let before: { createdAt: number; id: string } | null = null;
      if (cur.value !== null) {
        const m = /^(\d+):(.+)$/.exec(cur.value);
        if (!m?.[1] || !m[2])
          return fail("validation", "cursor is not one this server issued", "cursor", "pass next_cursor unchanged");
        before = { createdAt: Number(m[1]), id: m[2] };
      }
      const rows = await d.stores.retrievalRuns.listRuns(archive, before, q.limit + 1);
      const more = rows.length > q.limit;
      const kept = more ? rows.slice(0, q.limit) : rows;
      const last = kept[kept.length - 1];
      return ok({
        items: kept.map((r) => runHead(r)),
        next_cursor: more && last ? encodeCursor(`${last.createdAt}:${last.id}`) : null,
      });
    },

    /** GET /metrics/retrieval/runs/{run}. */
    async run(archive: string, id: string): Promise<Result<In<typeof S.RetrievalRun>>> {
      const r = await d.stores.retrievalRuns.getRun(archive, id);
      if (!r) return fail("not_found", `run ${id} is not in archive ${archive}`, "run");
      return ok({ ...runHead(r), per_query: r.perQuery });
    },
  };
}

function runHead(r: Pick<RetrievalRunRecord, "id" | "name" | "createdAt" | "asOf" | "ks" | "actor" | "aggregate">) {
  return {
    id: r.id,
    name: r.name,
    created_at: iso(r.createdAt),
    as_of: iso(r.asOf),
    k: r.ks,
    actor: r.actor,
    aggregate: r.aggregate,
  };
}
