/**
 * Technique -> code retrieval on the 43 released xKG graphs, through the public API, against Okapi
 * BM25 (k1 1.2, b 0.75) over the same text in the same run.
 *
 * 1. Self-retrieval: each of the 183 techniques with code asks for its code (query = name +
 *    description, as the technique node holds them); gold = its `#code` chunk. BM25 ranks every code
 *    chunk's stored text (implementation + documentation), with and without the chunk title, and
 *    technique + code documents (the query is then the text of the gold technique itself, as it is
 *    for `/code-pairs`, which routes over techniques: the fair comparison).
 * 2. Realistic queries: each technique listed in the 6 target guides (../shared/testdata/xkg/targets)
 *    asks all 43 graphs; a hit is any returned chunk of a graph labelled relevant to that guide in
 *    scripts/data/xkg-target-labels.json (labelled from titles alone, committed with the eval).
 *    Graph-level: the ranking is deduplicated by graph; MRR, R@k and P@5 (the share of the first 5
 *    distinct graphs that are relevant). Baselines: BM25 over code chunks, and BM25 over technique +
 *    code documents (what a flat store of the same file would index). `paired` counts the queries
 *    on which `/code-pairs` ranks better, equally or worse than the strongest BM25 row.
 * 3. The `/code-pairs` threshold: precision and recall of candidate thresholds for exact lookups
 *    (self-retrieval, right technique vs the best wrong one per query) and for reuse (the target
 *    queries' top-10 pairs), and of the default (src/app/code-pairs.ts says which was chosen).
 *
 * Prints its tables; returns null when ../shared/testdata/xkg (or the label file) is absent.
 *
 * PaperGuru rows: `/code-pairs` (techniques routed, their code followed over `implements`) and
 * `/route` restricted to code chunks (`filter.boundaries_any: ["xkg:code"]`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CODE_PAIR_THRESHOLD } from "../../src/app/code-pairs";
import { PaperGuruClient } from "../../src/client";
import { type Doc, winkBm25 } from "./baselines";
import { harnessFetch, type Server } from "./server";

interface Tech {
  name: string;
  description?: string;
  code?: { implementation?: string; documentation?: string } | null;
  components?: Tech[];
}

export interface RankMetrics {
  queries: number;
  mrr: number;
  r1: number;
  r5: number;
  r10: number;
  /** Realistic queries: the share of the first 5 distinct graphs labelled relevant (absent in older runs). */
  p5?: number;
}

/** A threshold for exact lookups, and what it gives on the target queries' pairs (`targets`). */
export interface ExactPoint {
  value: number;
  precision: number;
  recall: number;
  f1: number;
  pairs: number;
  targets: { precision: number; recall: number; f1: number };
}

/** Per query, PaperGuru's reciprocal rank against the strongest BM25 row's (by MRR). */
export interface Paired {
  against: string;
  wins: number;
  ties: number;
  losses: number;
}

export interface XkgRetrieval {
  graphs: number;
  self: Record<string, RankMetrics>;
  targets: Record<string, RankMetrics>;
  /** `/code-pairs` against the strongest BM25 row, query by query. */
  paired?: { self: Paired; targets: Paired };
  /** Guides with at least one relevant graph, and the queries they give. */
  targetGuides: number;
  targetQueries: number;
  /** Calibration of the /code-pairs threshold (see src/app/code-pairs.ts). */
  threshold: {
    /**
     * Self-retrieval, the right technique's score against the best wrong one's per query: the
     * threshold with the highest F1 (steps of 0.01), and the lowest with precision >= 0.9; `pairs` is
     * the precision over every pair such a threshold returns (a query's several wrong ones count).
     */
    exactBestWrong?: {
      f1: ExactPoint;
      precision90: ExactPoint | null;
    };
    exact: { value: number; precision: number; recall: number; f1: number } | null;
    reuse: { value: number; precision: number; recall: number; f1: number };
    reuseLeaveOneGuideOut: { precision: number; recall: number };
    default: {
      value: number;
      self: { precision: number; recall: number; f1: number };
      /** Right vs best wrong per self-retrieval query (as exactBestWrong). */
      selfBestWrong?: { precision: number; recall: number; f1: number };
      targets: { precision: number; recall: number; f1: number };
    };
  };
  ms: Record<string, number>;
}

const graphOf = (file: string) =>
  file.replace(/_graph_(verified|unverified)\.json$/, "").replace(/(_verified)?\.json$/, "");

function metrics(ranks: Array<number | null>): RankMetrics {
  const n = ranks.length || 1;
  const at = (k: number) => ranks.filter((r) => r !== null && r <= k).length / n;
  return {
    queries: ranks.length,
    mrr: ranks.reduce<number>((s, r) => s + (r === null ? 0 : 1 / r), 0) / n,
    r1: at(1),
    r5: at(5),
    r10: at(10),
  };
}

/** 1-based rank of the first id satisfying `hit` in a list, or null. */
function rankOf(ids: string[], hit: (id: string) => boolean): number | null {
  const i = ids.findIndex(hit);
  return i < 0 ? null : i + 1;
}

function dedupe(ids: string[]): string[] {
  return [...new Set(ids)];
}

export async function xkgRetrieval(
  server: Server,
  data: string,
  labelsFile: string,
  params?: Record<string, unknown>,
): Promise<XkgRetrieval | null> {
  const dir = join(data, "xkg", "kg");
  const targetsDir = join(data, "xkg", "targets");
  if (!existsSync(dir) || !existsSync(targetsDir) || !existsSync(labelsFile)) return null;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `eval-xkg-${Date.now().toString(36)}`;
  const secret = (await admin.createArchive({ id, name: "xKG retrieval", params })).key.secret;
  const pg = admin.withKey(secret);
  const ms: Record<string, number> = {};
  let t = performance.now();

  // Import as a user would, one file per request; the first item of each response is the paper.
  const graphOfPaper = new Map<string, string>();
  /** Query text, and the technique chunk content it must find (name + "\n\n" + description). */
  const selfQueries: Array<{ query: string; content: string }> = [];
  for (const f of files) {
    const text = readFileSync(join(dir, f), "utf8");
    const res = (await pg.importText(id, "xkg", text, f)) as unknown as { items: Array<{ id: string }> };
    const paper = res.items[0]?.id;
    if (paper) graphOfPaper.set(paper, graphOf(f));
    const doc = JSON.parse(text) as { techniques: Tech[] };
    const stack = [...doc.techniques];
    while (stack.length) {
      const x = stack.pop() as Tech;
      if (x.code?.implementation?.trim())
        selfQueries.push({
          query: `${x.name}\n${x.description ?? ""}`,
          content: x.description ? `${x.name.trim()}\n\n${x.description}` : x.name.trim(),
        });
      stack.push(...(x.components ?? []));
    }
  }
  ms.import = performance.now() - t;
  const graphOfChunk = (chunk: string) => graphOfPaper.get(chunk.split("#")[0] ?? "") ?? null;

  // The stored text of every code and technique chunk, read back through the API (what BM25 indexes).
  t = performance.now();
  const code: Doc[] = [];
  const techText = new Map<string, { title: string; text: string }>();
  for (const boundary of ["xkg:code", "xkg:technique"]) {
    let cursor: string | undefined;
    do {
      const page = await pg.chunks(id, { boundary, limit: 200, ...(cursor ? { cursor } : {}) });
      for (const c of page.chunks) {
        const content = await pg.content(id, c.id, { max_chars: 200_000 });
        if (boundary === "xkg:code") code.push({ id: c.id, title: c.title, text: content.text });
        else techText.set(c.id, { title: c.title, text: content.text });
      }
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }
  ms.read = performance.now() - t;
  const codeNoTitle = await winkBm25(code.map((d) => ({ ...d, title: "" })));
  const codeTitled = await winkBm25(code);
  // Technique + its code as one document (what a flat store of the same file holds per technique).
  const codeOf = new Map(code.map((d) => [d.id.replace(/#code\d*$/, ""), d.text]));
  const merged = await winkBm25(
    [...techText].map(([tid, x]) => ({ id: tid, title: x.title, text: `${x.text}\n${codeOf.get(tid) ?? ""}` })),
  );

  const pairs = async (query: string, limit: number, threshold?: number) =>
    (await (
      await harnessFetch(`${server.url}/v1/archives/${id}/code-pairs`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ query, limit, ...(threshold !== undefined ? { threshold } : {}) }),
      })
    ).json()) as {
      pairs: Array<{ technique: { id: string }; code: { id: string } | null; score: number }>;
    };
  const routeCode = async (query: string, limit: number) =>
    (await pg.route(id, { query, limit, filter: { boundaries_any: ["xkg:code"] } })).selected.map((s) => s.chunk);

  // 1. Self-retrieval.
  t = performance.now();
  const self: Record<string, Array<number | null>> = {
    "code-pairs": [],
    "route-code": [],
    "bm25-code": [],
    "bm25-code-title": [],
    "bm25-technique+code": [],
  };
  /** Every routed pair's score, and whether it is the pair the query describes. */
  const calib: Array<{ score: number; right: boolean }> = [];
  /** Per query: the right technique's score (null: not routed) and the best wrong technique's. */
  const bestWrong: Array<{ right: number | null; wrong: number | null }> = [];
  for (const q of selfQueries) {
    const res = await pairs(q.query, 10, -1);
    const codeIds = res.pairs.filter((p) => p.code).map((p) => (p.code as { id: string }).id);
    // The gold code is the one whose technique node holds exactly this name and description.
    const goldTech = new Set([...techText].filter(([, x]) => x.text === q.content).map(([tid]) => tid));
    const isGold = (x: string) => /#code\d*$/.test(x) && goldTech.has(x.replace(/#code\d*$/, ""));
    self["code-pairs"]?.push(rankOf(codeIds, isGold));
    self["route-code"]?.push(rankOf(await routeCode(q.query, 10), isGold));
    self["bm25-code"]?.push(rankOf(codeNoTitle.search(q.query, 10), isGold));
    self["bm25-code-title"]?.push(rankOf(codeTitled.search(q.query, 10), isGold));
    self["bm25-technique+code"]?.push(rankOf(merged.search(q.query, 10), (x) => goldTech.has(x)));
    for (const p of res.pairs) calib.push({ score: p.score, right: p.code !== null && isGold(p.code.id) });
    const scores = new Map(res.pairs.map((p) => [p.technique.id, p.score]));
    const rights = [...scores].filter(([tid]) => goldTech.has(tid)).map(([, v]) => v);
    const wrongs = [...scores].filter(([tid]) => !goldTech.has(tid)).map(([, v]) => v);
    bestWrong.push({
      right: rights.length ? Math.max(...rights) : null,
      wrong: wrongs.length ? Math.max(...wrongs) : null,
    });
  }
  ms.self = performance.now() - t;

  // 2. Realistic queries from the target guides, graph level.
  t = performance.now();
  const labels = JSON.parse(readFileSync(labelsFile, "utf8")) as {
    guides: Record<string, { relevant: string[] }>;
  };
  /** Pairs of the target queries: score and whether the pair's graph is labelled relevant (a check only). */
  const held: Array<{ score: number; right: boolean; guide: string }> = [];
  const targets: Record<string, Array<number | null>> = {
    "code-pairs": [],
    "route-code": [],
    "bm25-code": [],
    "bm25-technique+code": [],
  };
  /** Per query and method: the share of the first 5 distinct graphs that are labelled relevant. */
  const targetP5: Record<string, number[]> = {};
  let guides = 0;
  for (const [guide, label] of Object.entries(labels.guides)) {
    if (!label.relevant.length || !existsSync(join(targetsDir, guide))) continue;
    guides++;
    const relevant = new Set(label.relevant);
    const doc = JSON.parse(readFileSync(join(targetsDir, guide), "utf8")) as { techniques: Tech[] };
    const stack = [...doc.techniques];
    const graphs = (ids: string[]) => dedupe(ids.map((x) => graphOfChunk(x) ?? x));
    const graphHit = (g: string) => relevant.has(g);
    while (stack.length) {
      const x = stack.shift() as Tech;
      stack.push(...(x.components ?? []));
      const query = `${x.name}\n${x.description ?? ""}`;
      const res = await pairs(query, 50, -1);
      for (const p of res.pairs.slice(0, 10))
        held.push({ score: p.score, right: relevant.has(graphOfChunk(p.technique.id) ?? ""), guide });
      const lists: Record<string, string[]> = {
        "code-pairs": graphs(res.pairs.map((p) => p.code?.id ?? p.technique.id)),
        "route-code": graphs(await routeCode(query, 50)),
        "bm25-code": graphs(codeNoTitle.search(query, 50)),
        "bm25-technique+code": graphs(merged.search(query, 50)),
      };
      for (const [k, l] of Object.entries(lists)) {
        targets[k]?.push(rankOf(l, graphHit));
        targetP5[k] = [...(targetP5[k] ?? []), l.slice(0, 5).filter(graphHit).length / 5];
      }
    }
  }
  ms.targets = performance.now() - t;

  // Threshold. Two operating points, measured:
  // - exact lookup (the query describes one technique): the score that best separates that pair from
  //   the other routed pairs (F1 over the self-retrieval queries' top-10 pairs);
  // - reuse (the xKG use: a target paper's technique asks for related code): the lowest score, in
  //   steps of 0.05, whose pair precision on the labelled target queries reaches 0.85. Fitted on 5
  //   guides, so it is also chosen leave-one-guide-out, and the held-out precision and recall are
  //   reported: what to expect on guides it was not fitted on.
  const prf = (rows: Array<{ score: number; right: boolean }>, th: number) => {
    const tp = rows.filter((c) => c.right && c.score >= th).length;
    const fp = rows.filter((c) => !c.right && c.score >= th).length;
    const pos = rows.filter((c) => c.right).length;
    const precision = tp + fp ? tp / (tp + fp) : 0;
    const recall = pos ? tp / pos : 0;
    return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
  };
  const steps = Array.from({ length: 20 }, (_, i) => i / 20);
  type Point = { value: number; precision: number; recall: number; f1: number };
  let exact: Point | null = null;
  for (const th of steps) {
    const m = prf(calib, th);
    if (!exact || m.f1 > exact.f1) exact = { value: th, ...m };
  }
  const reuseOn = (rows: typeof held) => steps.find((th) => prf(rows, th).precision >= 0.85) ?? 0.95;
  const reuse = reuseOn(held);
  let tp = 0;
  let fp = 0;
  let pos = 0;
  for (const g of new Set(held.map((h) => h.guide))) {
    const th = reuseOn(held.filter((h) => h.guide !== g));
    for (const h of held.filter((x) => x.guide === g)) {
      if (h.right) pos++;
      if (h.score >= th) h.right ? tp++ : fp++;
    }
  }
  const cv = { precision: tp + fp ? tp / (tp + fp) : 0, recall: pos ? tp / pos : 0 };

  // Exact lookup as right vs best wrong: a threshold keeps the query's right technique when its score
  // clears it (a true positive) and the best wrong one when that does (a false positive).
  const prfBestWrong = (th: number) => {
    const tpw = bestWrong.filter((q) => q.right !== null && q.right >= th).length;
    const fpw = bestWrong.filter((q) => q.wrong !== null && q.wrong >= th).length;
    const precision = tpw + fpw ? tpw / (tpw + fpw) : 0;
    const recall = bestWrong.length ? tpw / bestWrong.length : 0;
    return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
  };
  const fine = Array.from({ length: 100 }, (_, i) => i / 100);
  const atFine = (th: number): ExactPoint => ({
    value: th,
    ...prfBestWrong(th),
    pairs: prf(calib, th).precision,
    targets: prf(held, th),
  });
  let bestF1 = atFine(0);
  for (const th of fine) if (prfBestWrong(th).f1 > bestF1.f1) bestF1 = atFine(th);
  const p90 = fine.find((th) => prfBestWrong(th).precision >= 0.9);

  const rr = (r: number | null) => (r === null ? 0 : 1 / r);
  const pairedOf = (rows: Record<string, Array<number | null>>): Paired => {
    const [against, base] = Object.entries(rows)
      .filter(([k]) => k.startsWith("bm25"))
      .sort((a, b) => metrics(b[1]).mrr - metrics(a[1]).mrr)[0] ?? ["", []];
    const ours = rows["code-pairs"] ?? [];
    const d = ours.map((r, i) => rr(r) - rr(base[i] ?? null));
    return {
      against,
      wins: d.filter((x) => x > 1e-9).length,
      ties: d.filter((x) => Math.abs(x) <= 1e-9).length,
      losses: d.filter((x) => x < -1e-9).length,
    };
  };

  const out: XkgRetrieval = {
    graphs: files.length,
    self: Object.fromEntries(Object.entries(self).map(([k, v]) => [k, metrics(v)])),
    targets: Object.fromEntries(
      Object.entries(targets).map(([k, v]) => {
        const p5 = targetP5[k] ?? [];
        return [k, { ...metrics(v), p5: p5.reduce((a, b) => a + b, 0) / (p5.length || 1) }];
      }),
    ),
    targetGuides: guides,
    targetQueries: targets["bm25-code"]?.length ?? 0,
    paired: { self: pairedOf(self), targets: pairedOf(targets) },
    threshold: {
      exactBestWrong: { f1: bestF1, precision90: p90 === undefined ? null : atFine(p90) },
      exact,
      reuse: { value: reuse, ...prf(held, reuse) },
      reuseLeaveOneGuideOut: cv,
      default: {
        value: CODE_PAIR_THRESHOLD,
        self: prf(calib, CODE_PAIR_THRESHOLD),
        selfBestWrong: prfBestWrong(CODE_PAIR_THRESHOLD),
        targets: prf(held, CODE_PAIR_THRESHOLD),
      },
    },
    ms: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round(v)])),
  };
  printXkg(out);
  return out;
}

/** The section's numbers on the console (the README tables come from `npm run report`). */
function printXkg(x: XkgRetrieval): void {
  const f = (v: number) => v.toFixed(3);
  const table = (title: string, rows: Record<string, RankMetrics>, p: Paired | undefined) => {
    console.log(`\n${title}\n| method | queries | MRR | R@1 | R@5 | R@10 | P@5 |\n|---|---|---|---|---|---|---|`);
    for (const [k, m] of Object.entries(rows))
      console.log(
        `| ${k} | ${m.queries} | ${f(m.mrr)} | ${f(m.r1)} | ${f(m.r5)} | ${f(m.r10)} | ${m.p5 === undefined ? "–" : f(m.p5)} |`,
      );
    if (p) console.log(`code-pairs vs ${p.against}, per query: ${p.wins} better, ${p.ties} equal, ${p.losses} worse`);
  };
  table(`xKG self-retrieval (${x.graphs} graphs)`, x.self, x.paired?.self);
  table(`xKG target guides, graph level (${x.targetGuides} guides)`, x.targets, x.paired?.targets);
  const t = x.threshold;
  const pr = (m: { precision: number; recall: number }) => `P ${f(m.precision)} R ${f(m.recall)}`;
  console.log(`\n/code-pairs threshold (default ${t.default.value}):`);
  if (t.exactBestWrong) {
    const b = t.exactBestWrong;
    console.log(
      `  exact, right vs best wrong: max F1 at ${b.f1.value} (${pr(b.f1)}, F1 ${f(b.f1.f1)}, all pairs P ${f(b.f1.pairs)}; on the target queries ${pr(b.f1.targets)}); precision >= 0.9 from ${b.precision90 ? `${b.precision90.value} (${pr(b.precision90)}, all pairs P ${f(b.precision90.pairs)}; targets ${pr(b.precision90.targets)})` : "never"}`,
    );
  }
  if (t.exact)
    console.log(`  exact, all routed pairs: max F1 at ${t.exact.value} (${pr(t.exact)}, F1 ${f(t.exact.f1)})`);
  console.log(
    `  reuse (target guides' top-10 pairs, graph labelled relevant): P >= 0.85 from ${t.reuse.value} (${pr(t.reuse)}); leave-one-guide-out ${pr(t.reuseLeaveOneGuideOut)}`,
  );
  console.log(
    `  default ${t.default.value}: self all pairs ${pr(t.default.self)}${t.default.selfBestWrong ? `, self right vs best wrong ${pr(t.default.selfBestWrong)}` : ""}, targets ${pr(t.default.targets)}`,
  );
}
