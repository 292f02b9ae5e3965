/**
 * Retrieval metrics through the product endpoint (`POST /metrics/retrieval`, stored runs) on CiteSeer,
 * against Okapi BM25 (k1 1.2, b 0.75) over the same documents scored by the same metric code
 * (src/core/research/retrieval.ts) in the same run.
 *
 * Task (known-item search, as Paper Circle's benchmarks ask for one target paper): every paper is
 * ingested as a user would (title = its text up to the first full stop, where the title runs into the
 * abstract; content = its whole text; its citations as `cites` edges). Query = the paper's second
 * sentence (the abstract's first), for every 15th paper in id order whose second sentence has 8-60
 * words; gold = the paper. The queries run in calls of at most 100 (the endpoint's bound); the
 * aggregate is the query-weighted mean of the calls' aggregates. The harness also reads the runs back
 * (list and by id) and checks that they hold what the calls returned.
 *
 * Returns null when ../shared/testdata/citeseer is absent.
 */
import { PaperGuruClient, type RetrievalRun } from "../../src/client";
import { type AggregateMetrics, aggregateMetrics, queryMetrics } from "../../src/core/research/retrieval";
import { winkBm25 } from "./baselines";
import { firstSentenceTitle, loadCiteSeer } from "./datasets";
import { harnessFetch, type Server } from "./server";

export interface RetrievalMetricsEval {
  queries: number;
  papers: number;
  k: number[];
  paperguru: AggregateMetrics;
  bm25: AggregateMetrics;
  /** PaperGuru / BM25 for hit rate, MRR and each Recall@K. */
  ratios: Record<string, number>;
  /** Wall time of the endpoint per query (routing, scoring and storing the run). */
  msPerQuery: number;
  runs: { stored: number; listed: number; readBackEqual: boolean };
}

const K = [1, 5, 10, 20, 50];

export async function retrievalMetricsEval(
  server: Server,
  dir: string,
  params?: Record<string, unknown>,
): Promise<RetrievalMetricsEval | null> {
  const cs = loadCiteSeer(dir);
  if (!cs) return null;
  const sentences = (t: string) => t.split(/(?<=[.?!])\s+/);
  const docs = cs.papers.map((p) => ({
    id: `cs:${p.id}`,
    title: firstSentenceTitle(p.text, p.id),
    text: p.text || p.id,
  }));
  const sorted = [...cs.papers].sort((a, b) => (a.id < b.id ? -1 : 1));
  const items: Array<{ query: string; gold: string[] }> = [];
  for (const [i, p] of sorted.entries()) {
    if (i % 15 !== 0) continue;
    const s = sentences(p.text)[1]?.trim() ?? "";
    const words = s.split(/\s+/).filter(Boolean).length;
    if (words >= 8 && words <= 60) items.push({ query: s, gold: [`cs:${p.id}`] });
  }

  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `eval-retrieval-metrics-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: "CiteSeer retrieval metrics", params });
  const pg = admin.withKey(created.key.secret);
  const arts = docs.map((d) => ({
    id: d.id,
    kind: "paper" as const,
    title: d.title,
    content: d.text,
    edges: [...(cs.cites.get(d.id.slice(3)) ?? [])].map((c) => ({ type: "cites" as const, target: `cs:${c}` })),
  }));
  for (let i = 0; i < arts.length; i += 200) await pg.ingest(id, { artifacts: arts.slice(i, i + 200) });

  const t0 = performance.now();
  const runs: RetrievalRun[] = [];
  for (let i = 0; i < items.length; i += 100)
    runs.push(await pg.retrievalMetrics(id, { queries: items.slice(i, i + 100), k: K, name: `citeseer-${i / 100}` }));
  const msPerQuery = (performance.now() - t0) / Math.max(1, items.length);
  const n = items.length;
  const wmean = (f: (a: AggregateMetrics) => number) =>
    runs.reduce((s, r) => s + f(r.aggregate) * r.aggregate.queries, 0) / Math.max(1, n);
  const pgAgg: AggregateMetrics = {
    queries: n,
    hit_rate: wmean((a) => a.hit_rate),
    mrr: wmean((a) => a.mrr),
    recall: Object.fromEntries(K.map((k) => [String(k), wmean((a) => a.recall[String(k)] ?? 0)])),
    precision: Object.fromEntries(K.map((k) => [String(k), wmean((a) => a.precision[String(k)] ?? 0)])),
  };

  const listed = await pg.retrievalRuns(id, { limit: 100 });
  let readBackEqual = listed.items.length === runs.length;
  for (const r of runs) {
    const back = await pg.retrievalRun(id, r.id ?? "");
    readBackEqual &&= JSON.stringify(back.per_query) === JSON.stringify(r.per_query);
  }

  const bm = await winkBm25(docs);
  const maxK = K[K.length - 1] as number;
  const bmAgg = aggregateMetrics(
    items.map((q) => queryMetrics(bm.search(q.query, maxK), q.gold, K)),
    K,
  );
  const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
  const ratios: Record<string, number> = {
    hit_rate: ratio(pgAgg.hit_rate, bmAgg.hit_rate),
    mrr: ratio(pgAgg.mrr, bmAgg.mrr),
  };
  for (const k of K) ratios[`r@${k}`] = ratio(pgAgg.recall[String(k)] ?? 0, bmAgg.recall[String(k)] ?? 0);
  const out: RetrievalMetricsEval = {
    queries: n,
    papers: docs.length,
    k: K,
    paperguru: pgAgg,
    bm25: bmAgg,
    ratios,
    msPerQuery,
    runs: { stored: runs.length, listed: listed.items.length, readBackEqual },
  };
  const f = (x: number) => (x * 100).toFixed(1);
  console.log(`\nRetrieval metrics (POST /metrics/retrieval), CiteSeer known-item search, ${n} queries:`);
  for (const [name, a] of [
    ["PaperGuru /route", pgAgg],
    ["BM25", bmAgg],
  ] as const)
    console.log(
      `  ${name.padEnd(18)} hit@50 ${f(a.hit_rate)}  MRR ${f(a.mrr)}  ${K.map((k) => `R@${k} ${f(a.recall[String(k)] ?? 0)}`).join("  ")}`,
    );
  console.log(
    `  ratios ${Object.entries(ratios)
      .map(([k, v]) => `${k} ${v.toFixed(3)}`)
      .join(
        ", ",
      )}; ${msPerQuery.toFixed(1)} ms per query; runs stored ${runs.length}, listed ${listed.items.length}, read back equal ${readBackEqual}`,
  );
  return out;
}
