/**
 * Review use cases: human verification of nodes and edges (statuses as append-only annotation events,
 * edits and edge changes as new versions through the kernel's ingest, so an edge removed at t is
 * closed at t and every read as of an earlier time still sees it), and retrieval metrics against gold
 * ids, run through the router and stored so runs compare over time.
 */
import type { z } from "zod";
import type * as S from "../contract";
import { toMs } from "../contract";
import { fail, ok, type Result } from "../core/errors";
import { deriveSynopsis, type EdgeInput, type EntityInput } from "../core/ingest";
import { type AnnotationRecord, parseJson } from "../core/ports";
import type { RelationInput } from "../core/relations";
import { aggregateMetrics, normaliseKs, queryMetrics } from "../core/research/retrieval";
import {
  EDGE_REVIEW_PREFIX,
  edgeReviewKey,
  NODE_REVIEW_KEY,
  type ReviewStatus,
  readReviewValue,
  reviewStatusAt,
  reviewValue,
} from "../core/review";
import { DECLARABLE_EDGE_TYPES, type EdgeType } from "../core/types";
import { actorOf } from "./auth";
import type { AppDeps } from "./deps";
import { decodeCursor, encodeCursor, iso, isoOrNull, randomId } from "./lib/wire";
import { resolveFilter } from "./operations";

type In<T extends z.ZodType> = z.infer<T>;

const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
const roundMap = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, r4(v)]));

const declarable = (t: string): t is EdgeType => (DECLARABLE_EDGE_TYPES as readonly string[]).includes(t);

/** The review status of each chunk at `asOf` (key `review`); chunks never reviewed are absent. */
export async function nodeStatuses(
  d: Pick<AppDeps, "stores">,
  archive: string,
  chunkIds: string[],
  asOf: number,
): Promise<Map<string, ReviewStatus>> {
  const rows = await d.stores.annotations.annotationsOf(archive, chunkIds, NODE_REVIEW_KEY, asOf);
  const by = new Map<string, AnnotationRecord[]>();
  for (const r of rows) by.set(r.chunkId, [...(by.get(r.chunkId) ?? []), r]);
  const out = new Map<string, ReviewStatus>();
  for (const [chunk, events] of by) {
    const { status, last } = reviewStatusAt(events.map(asEvent), asOf);
    if (last) out.set(chunk, status);
  }
  return out;
}

const asEvent = (r: AnnotationRecord) => ({ ...r, value: parseJson<unknown>(r.value, null) });

export function reviewUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;

  /** The current version of a chunk as an ingest artifact, with the fields a review changes applied. */
  async function nextArtifact(
    archive: string,
    chunk: string,
    at: number,
    change: (a: { title: string; synopsis?: string; content: string; edges: EdgeInput[] }) => Result<void>,
  ) {
    const h = await chunks.chunkHistory(archive, chunk);
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
    const entityIds = parseJson<string[]>(v.entities, []);
    const ents = await d.stores.exports.entitiesByIds(archive, entityIds);
    const entities: EntityInput[] = ents.map((e) => ({
      type: e.type as EntityInput["type"],
      id: e.entityId,
      name: e.name,
    }));
    // A synopsis the ingest derived is derived again from the new text; a written one is kept.
    const derived = v.synopsis === deriveSynopsis(v.title, content);
    const fields: { title: string; synopsis?: string; content: string; edges: EdgeInput[] } = {
      title: v.title,
      ...(derived ? {} : { synopsis: v.synopsis }),
      content,
      edges: parseJson<EdgeInput[]>(v.edges, []),
    };
    const changed = change(fields);
    if (!changed.ok) return changed;
    const relations = parseJson<RelationInput[] | null>(v.relations, null);
    return ok({
      id: chunk,
      kind: v.kind as "paper",
      title: fields.title,
      ...(fields.synopsis !== undefined ? { synopsis: fields.synopsis } : {}),
      content: fields.content,
      entities,
      boundaries: parseJson<string[]>(v.boundaries, []),
      edges: fields.edges,
      ...(relations?.length ? { relations } : {}),
      valid_from: at,
      source: v.source,
    });
  }

  /** The review events of a node, or of one edge of it (matched on the edge the value names). */
  async function eventsOf(
    archive: string,
    chunk: string,
    key: string,
    asOf: number,
    edge?: { type: string; to: string },
  ) {
    return (await d.stores.annotations.annotationsOf(archive, [chunk], key, asOf)).filter(
      (r) => readReviewValue(parseJson<unknown>(r.value, null), edge) !== null,
    );
  }

  return {
    /** POST /review: one verification operation. */
    async apply(
      archive: string,
      b: In<typeof S.ReviewBody>,
      authorization: string | undefined,
    ): Promise<Result<In<typeof S.ReviewResult>>> {
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
      if (b.op !== "edit" && b.changes !== undefined)
        return fail("validation", "changes only go with op edit", "changes");
      if (b.edge?.weight !== undefined && b.op !== "add_edge")
        return fail("validation", "weight only goes with op add_edge", "edge.weight");

      const now = d.clock.now();
      const at = toMs(b.at) ?? now;
      const actor = await actorOf(d, authorization);
      const chunk = b.chunk ?? b.edge?.from ?? "";
      const key = b.edge ? edgeReviewKey(b.edge.type, b.edge.to) : NODE_REVIEW_KEY;
      const head = await chunks.chunkRow(archive, chunk);
      if (!head)
        return fail("not_found", `chunk ${chunk} is not in archive ${archive}`, b.edge ? "edge.from" : "chunk");
      const edgeRef = b.edge ? { type: b.edge.type, to: b.edge.to } : undefined;
      const eventId = b.event_id === undefined ? null : `review:${b.event_id}`;
      if (eventId !== null) {
        const prior = await d.stores.annotations.annotationByEventId(archive, eventId);
        if (prior) {
          const v = readReviewValue(parseJson<unknown>(prior.value, null), edgeRef);
          if (!v || v.op !== b.op || prior.chunkId !== chunk || prior.key !== key)
            return fail(
              "conflict",
              `event_id ${b.event_id} was already used for another operation (${v?.op ?? prior.key} on ${prior.chunkId})`,
              "event_id",
              "use a new event_id for a new operation",
            );
          const earlier = (await eventsOf(archive, chunk, key, prior.at, edgeRef)).filter((r) => r.id !== prior.id);
          return ok({
            op: b.op,
            target: b.edge ? { edge: { from: b.edge.from, type: b.edge.type, to: b.edge.to } } : { chunk },
            status: v.status,
            previous_status: reviewStatusAt(earlier.map(asEvent), prior.at, edgeRef).status,
            at: iso(prior.at),
            actor: prior.actor,
            reason: prior.reason,
            version: prior.version,
            event: prior.id,
            duplicate: true,
          });
        }
      }
      const before = reviewStatusAt(
        (await eventsOf(archive, chunk, key, at, edgeRef)).map(asEvent),
        at,
        edgeRef,
      ).status;

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
        const e = b.edge;
        if (e && !declarable(e.type))
          return fail(
            "validation",
            `${e.type} edges are derived by the analyser; they cannot be added or removed`,
            "edge.type",
            "flag the edge instead",
          );
        const art = await nextArtifact(archive, chunk, at, (a) => {
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
        });
        if (!art.ok) return art;
        const res = await d.kernel.ingest(archive, [art.value]);
        if (!res.ok) return res;
        const r = res.value.results[0];
        if (!r || r.status === "unchanged")
          return fail(
            "conflict",
            "the edit changes nothing",
            "changes",
            "send fields that differ from the current version",
          );
        version = r.version;
      } else if (!b.edge) {
        version = head.latestVersion;
      }
      const stored = await d.stores.annotations.appendAnnotation({
        archiveId: archive,
        chunkId: chunk,
        version,
        key,
        op: "set",
        value: JSON.stringify(reviewValue(b.op, edgeRef)),
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
    },

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
      const asOf = toMs(q.as_of) ?? d.clock.now();
      const chunk = (q.chunk ?? q.from) as string;
      const h = await chunks.chunkHistory(archive, chunk);
      if (!h) return fail("not_found", `chunk ${chunk} is not in archive ${archive}`, isEdge ? "from" : "chunk");
      const key = isEdge ? edgeReviewKey(q.type as string, q.to as string) : NODE_REVIEW_KEY;
      const edgeRef = isEdge ? { type: q.type as string, to: q.to as string } : undefined;
      const rows = await eventsOf(archive, chunk, key, asOf, edgeRef);
      const { status, last } = reviewStatusAt(rows.map(asEvent), asOf, edgeRef);
      const history = rows.flatMap((r) => {
        const v = readReviewValue(parseJson<unknown>(r.value, null));
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
            weight: shown ? r4(shown.weight) : null,
          },
        });
      }
      // The chunk's reviewed out-edges: events under edge keys, grouped by the edge their value names.
      const all = await d.stores.annotations.annotationsOf(archive, [chunk], undefined, asOf);
      const byEdge = new Map<string, { type: string; to: string; events: AnnotationRecord[] }>();
      for (const r of all) {
        if (!r.key.startsWith(EDGE_REVIEW_PREFIX)) continue;
        const e = readReviewValue(parseJson<unknown>(r.value, null))?.edge;
        if (!e) continue;
        const k = `${e.type}\u0000${e.to}`;
        const cur = byEdge.get(k) ?? { ...e, events: [] };
        cur.events.push(r);
        byEdge.set(k, cur);
      }
      const edges = [...byEdge.values()].map((e) => ({
        type: e.type,
        to: e.to,
        status: reviewStatusAt(e.events.map(asEvent), asOf, e).status,
      }));
      return ok({ target: { chunk }, ...base, edges });
    },

    /** POST /metrics/retrieval: each query through the router, scored against its gold ids. */
    async retrieval(
      archive: string,
      b: In<typeof S.RetrievalMetricsBody>,
      authorization: string | undefined,
    ): Promise<Result<In<typeof S.RetrievalRun>>> {
      if (!(await d.stores.archives.getArchive(archive)))
        return fail("not_found", `archive ${archive} does not exist`, "archive");
      const ks = normaliseKs(b.k);
      const maxK = ks[ks.length - 1] ?? 10;
      const now = d.clock.now();
      const asOf = toMs(b.as_of) ?? now;
      const per: In<typeof S.RetrievalRun>["per_query"] = [];
      const metrics = [];
      for (const [i, item] of b.queries.entries()) {
        let filter: Awaited<ReturnType<typeof resolveFilter>>;
        try {
          filter = await resolveFilter(chunks, archive, item.filter, asOf);
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
          reciprocal_rank: r4(m.reciprocal_rank),
          first_rank: m.first_rank,
          recall: roundMap(m.recall),
          precision: roundMap(m.precision),
        });
      }
      const agg = aggregateMetrics(metrics, ks);
      const aggregate = {
        queries: agg.queries,
        hit_rate: r4(agg.hit_rate),
        mrr: r4(agg.mrr),
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
          ks: JSON.stringify(ks),
          queries: agg.queries,
          aggregate: JSON.stringify(aggregate),
          perQuery: JSON.stringify(per),
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
      if (!(await d.stores.archives.getArchive(archive)))
        return fail("not_found", `archive ${archive} does not exist`, "archive");
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
      return ok({ ...runHead(r), per_query: parseJson(r.perQuery, []) });
    },
  };
}

function runHead(r: {
  id: string;
  name: string;
  createdAt: number;
  asOf: number;
  ks: string;
  actor: string;
  aggregate: string;
}) {
  return {
    id: r.id,
    name: r.name,
    created_at: iso(r.createdAt),
    as_of: iso(r.asOf),
    k: parseJson<number[]>(r.ks, []),
    actor: r.actor,
    aggregate: parseJson(r.aggregate, { queries: 0, hit_rate: 0, mrr: 0, recall: {}, precision: {} }),
  };
}
