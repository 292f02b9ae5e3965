/**
 * One-shot discovery (seed 004, C.2): one request asks several scholarly engines (arXiv, OpenAlex,
 * Crossref, Semantic Scholar, dblp) at their default public API hosts, in parallel, through the
 * guarded outbound fetch, merges their records by DOI, arXiv id and normalised title, marks the
 * records the archive already holds (by any canonical id, or by a paper entity whose name is the
 * same normalised title), applies the query spec's filters, and ranks the merged pool with a
 * Paper Circle mode (and the reranker, when configured and asked).
 *
 * Discovery stores nothing: it returns candidates, as Paper Circle's discovery returns a list the
 * user then ingests (docs/research.md says how). Bounded: at most `per_engine` records from each
 * engine, each engine answered within `timeout_ms` (else reported as timed out), at most 4 MiB
 * read per answer; one engine's failure is reported in `engines` and never fails the request.
 */
import type * as S from "../contract";
import { fail, ok, type Result } from "../core/errors";
import type { ChatModel, ChunkStore, Reranker } from "../core/ports";
import {
  DISCOVERY_ENGINES,
  type Engine,
  engineQuery,
  type FoundRecord,
  mergeRecords,
  normTitle,
  queryScores,
  recordsOf,
} from "../core/research/discover";
import { hasNegative, hasRequired, inYears } from "../core/research/query-spec";
import { type PoolCandidate, rankPool } from "../core/research/rank-pool";
import { RATE_LIMITS, validateSourceSpec } from "../core/sources";
import { arxivRequest, parseArxivFeed } from "../core/sources/arxiv";
import { crossrefRequest, parseCrossrefWorks } from "../core/sources/crossref";
import { dblpRequest, parseDblp } from "../core/sources/dblp";
import { openalexRequest, parseOpenAlexWorks } from "../core/sources/openalex";
import { parseSemanticScholar, semanticScholarRequest } from "../core/sources/semanticscholar";
import type { HttpRequestSpec, SourceSpec } from "../core/sources/types";
import type { IntakeDeps } from "./deps";
import { fetchSpec, HttpError, httpFailure, readCapped } from "./intake/github";
import { buildSpec, wireScoreStats } from "./lib/query-spec";
import { type In, round4 } from "./lib/wire";

/** Largest engine answer read (50 OpenAlex works are about 1 MB). */
const MAX_ENGINE_BYTES = 4 * 1024 * 1024;
/** Candidates the reranker sees at most (the first of the combined order). */
export const RERANK_POOL = 50;

export interface DiscoverDeps {
  intake: Pick<IntakeDeps, "http" | "allowHosts" | "contactEmail" | "sleep">;
  chunks: Pick<ChunkStore, "visibleAt">;
  resolve: (archive: string, mention: string, t: number) => Promise<{ entity: string; name: string } | null>;
  model: ChatModel | null;
  reranker: Reranker | null;
  now: () => number;
}

/** When each engine was last asked from this isolate (its published spacing is kept between requests). */
const lastAsked = new Map<Engine, number>();

function request(engine: Engine, spec: SourceSpec, limit: number, mailto: string | undefined): HttpRequestSpec {
  switch (engine) {
    case "arxiv":
      return arxivRequest(spec, {}, { maxResults: limit });
    case "openalex":
      return openalexRequest(spec, {}, { mailto, perPage: limit });
    case "crossref":
      return crossrefRequest(spec, {}, { mailto, rows: limit });
    case "semanticscholar":
      return semanticScholarRequest(spec, {}, { limit });
    case "dblp":
      return dblpRequest(spec, {}, { hits: limit });
  }
}

function parse(engine: Engine, body: string, url: string) {
  switch (engine) {
    case "arxiv":
      return parseArxivFeed(body, { source: url });
    case "openalex":
      return parseOpenAlexWorks(body);
    case "crossref":
      return parseCrossrefWorks(body);
    case "semanticscholar":
      return parseSemanticScholar(body);
    case "dblp":
      return parseDblp(body);
  }
}

interface EngineRun {
  engine: Engine;
  status: "ok" | "error" | "timeout";
  query: string;
  returned: number;
  ms: number;
  error: string | null;
  records: FoundRecord[];
}

class Timeout extends Error {}

async function askEngine(
  d: DiscoverDeps,
  engine: Engine,
  query: string,
  limit: number,
  timeoutMs: number,
): Promise<EngineRun> {
  const t0 = Date.now();
  const done = (status: EngineRun["status"], error: string | null, records: FoundRecord[] = []): EngineRun => ({
    engine,
    status,
    query,
    returned: records.length,
    ms: Date.now() - t0,
    error,
    records: records.slice(0, limit),
  });
  const spec = validateSourceSpec({ kind: engine, location: "", query }, { allowHosts: d.intake.allowHosts });
  if (!spec.ok) return done("error", `${spec.error.field ?? "query"}: ${spec.error.message}`);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout()), timeoutMs);
  });
  try {
    const work = (async () => {
      const gap = RATE_LIMITS[engine].minIntervalMs - (Date.now() - (lastAsked.get(engine) ?? 0));
      if (gap > 0) await d.intake.sleep(gap);
      lastAsked.set(engine, Date.now());
      const req = request(engine, spec.value, limit, d.intake.contactEmail ?? undefined);
      const res = await fetchSpec(d.intake, req);
      if (!res.ok) throw await httpFailure(res, `${engine}`);
      const body = await readCapped(res, MAX_ENGINE_BYTES);
      const plan = parse(engine, body, res.url || req.url);
      if (!plan.ok) throw new HttpError(422, `${engine} answer: ${plan.error.message}`);
      return recordsOf(plan.value, engine);
    })();
    const records = await Promise.race([work, deadline]);
    return done("ok", null, records);
  } catch (e) {
    if (e instanceof Timeout) return done("timeout", `no answer within ${timeoutMs} ms`);
    return done("error", (e instanceof Error ? e.message : String(e)).slice(0, 500));
  } finally {
    clearTimeout(timer);
  }
}

/** The archive's chunk for each record: by any canonical id visible at t, else by exact normalised title. */
async function inArchive(
  d: DiscoverDeps,
  archive: string,
  records: readonly FoundRecord[],
  t: number,
): Promise<Array<{ chunk: string; by: "id" | "title" } | null>> {
  const ids = [...new Set(records.flatMap((r) => r.ids))];
  const seen = ids.length ? await d.chunks.visibleAt(archive, ids, t) : new Map();
  const out: Array<{ chunk: string; by: "id" | "title" } | null> = [];
  for (const r of records) {
    const hit = r.ids.find((x) => seen.has(x));
    if (hit) {
      out.push({ chunk: hit, by: "id" });
      continue;
    }
    const want = normTitle(r.title);
    const ent = want.length >= 8 ? await d.resolve(archive, r.title, t) : null;
    if (ent && normTitle(ent.name) === want && (await d.chunks.visibleAt(archive, [ent.entity], t)).has(ent.entity))
      out.push({ chunk: ent.entity, by: "title" });
    else out.push(null);
  }
  return out;
}

/** POST …/discover */
export async function discoverOp(
  d: DiscoverDeps,
  archive: string,
  b: In<typeof S.DiscoverBody>,
): Promise<Result<In<typeof S.DiscoverResponse>>> {
  if (b.rerank && !d.reranker)
    return fail(
      "conflict",
      "no reranker configured: set RERANKER and RERANK_BASE_URL (docs/models.md)",
      "rerank",
      "leave rerank out (default false), or configure a rerank endpoint",
    );
  if (b.model && !d.model)
    return fail(
      "conflict",
      "no model configured: set DISTILLER or EXTRACTOR and LLM_* (docs/models.md)",
      "model",
      "leave model out (default false: the rules' spec)",
    );
  const t = d.now();
  const spec = await buildSpec(d.model, b.query, b.model);
  const engines: Engine[] = b.engines ? [...new Set(b.engines)] : [...DISCOVERY_ENGINES];
  const runs = await Promise.all(engines.map((e) => askEngine(d, e, engineQuery(e, spec), b.per_engine, b.timeout_ms)));
  const merged = mergeRecords(runs.map((r) => r.records));
  const excluded = { negative: 0, required: 0, years: 0 };
  const kept = merged.records.filter((r) => {
    const text = `${r.title}\n${r.abstract}`;
    if (hasNegative(spec, text)) excluded.negative++;
    else if (!hasRequired(spec, text)) excluded.required++;
    else if (!inYears(spec, r.year)) excluded.years++;
    else return true;
    return false;
  });
  const texts = kept.map((r) => `${r.title}\n${r.abstract}`);
  const q = queryScores(spec, texts);
  const pool: PoolCandidate[] = kept.map((r, i) => ({
    id: String(i),
    version: 0,
    text: texts[i] as string,
    year: r.year,
    similarity: q[i]?.similarity ?? 0,
    bm25: q[i]?.bm25 ?? 0,
    citations: r.citations,
    poe: 0,
    venues: r.venue ? [r.venue] : [],
  }));
  const ranked = rankPool(pool, { mode: b.mode, k: b.limit });
  let order = ranked.items;
  const rerankScore = new Map<string, number>();
  let rerankNote: string | null = null;
  if (b.rerank && d.reranker && order.length > 0) {
    const head = order.slice(0, RERANK_POOL);
    const scores = await d.reranker.rerank(
      spec.search || b.query,
      head.map((x) => pool[Number(x.id)]?.text ?? ""),
    );
    if (scores.ok) {
      head.forEach((x, i) => {
        rerankScore.set(x.id, scores.value[i] as number);
      });
      const byScore = [...head].sort(
        (a, c) =>
          (rerankScore.get(c.id) as number) - (rerankScore.get(a.id) as number) || a.combinedRank - c.combinedRank,
      );
      order = [...byScore, ...order.slice(RERANK_POOL)];
    } else rerankNote = `the reranker failed, combined order kept: ${scores.error.message}`;
  }
  const top = order.slice(0, b.limit);
  const topRecords = top.map((x) => kept[Number(x.id)] as FoundRecord);
  const stored = await inArchive(d, archive, topRecords, t);
  const perEngine = new Map<Engine, { records: number; only: number }>();
  for (const e of engines) perEngine.set(e, { records: 0, only: 0 });
  for (const r of merged.records)
    for (const e of r.engines) {
      const s = perEngine.get(e) as { records: number; only: number };
      s.records++;
      if (r.engines.length === 1) s.only++;
    }
  return ok({
    query: b.query,
    spec,
    stored: false,
    engines: runs.map((r) => ({
      engine: r.engine,
      status: r.status,
      query: r.query,
      returned: r.returned,
      ms: r.ms,
      error: r.error,
    })),
    source_stats: [...perEngine].map(([engine, s]) => ({ engine, records: s.records, only_here: s.only })),
    dedup: {
      fetched: merged.fetched,
      unique: merged.records.length,
      merged_by_doi: merged.byDoi,
      merged_by_arxiv: merged.byArxiv,
      merged_by_title: merged.byTitle,
      excluded,
      in_archive: stored.filter((x) => x !== null).length,
    },
    ranking: {
      mode: ranked.mode,
      weights: ranked.weights,
      ranked: ranked.relevant,
      score_stats: wireScoreStats(ranked.scoreStats),
      reranker: b.rerank && d.reranker ? d.reranker.name : null,
      rerank_note: rerankNote,
    },
    items: top.map((x, i) => {
      const r = topRecords[i] as FoundRecord;
      return {
        rank: i + 1,
        id: r.id,
        title: r.title,
        year: r.year,
        doi: r.doi,
        arxiv: r.arxiv,
        authors: r.authors.slice(0, 20),
        venue: r.venue,
        url: r.url,
        citations: r.citations,
        engines: r.engines,
        in_archive: stored[i] ?? null,
        similarity: round4(x.similarity),
        recency: round4(x.recency),
        novelty: round4(x.novelty),
        bm25: round4(x.bm25),
        combined: round4(x.combined),
        combined_rank: x.combinedRank,
        rerank_score: rerankScore.has(x.id) ? round4(rerankScore.get(x.id) as number) : null,
      };
    }),
  });
}
