/**
 * `npx tsx scripts/abstention.ts --data ../shared/testdata`: relevance and abstention through the
 * public API of a throwaway local Worker (a snapshot of the working tree; `--ref <commit>` for a
 * commit). Skips cleanly without the data. Writes bench/results/abstention-latest.json.
 *
 * Archives, stored as a user stores them (title and content; conversation turns as records at their
 * own time): HotpotQA (994 passages), NQ-open (2,049), SciFact + PubMedQA (1,024 abstracts) and the
 * two LoCoMo conversations, one archive each. Questions:
 * - answerable: each set's own dev questions over its own archive (LoCoMo categories 1-4);
 * - unanswerable: LoCoMo's adversarial category 5 over its conversation, and questions of one set
 *   asked of another set's archive (HotpotQA and NQ questions of the SciQA archive, SciQA questions
 *   of the HotpotQA and NQ archives, LoCoMo questions of the SciQA archive).
 * Each question is one `/route` (limit 40, what `/context` reads at its default 20 cards). The
 * floors act on the selection's relevance as `/context` applies them (core query.ts): a question
 * abstains when no selected chunk reaches the evidence floor; otherwise its cards are the
 * selection less the chunks below the card floor, so recall@k is over that kept list.
 *
 * Reported: the figures at the defaults in force (DEFAULT_MIN_RELEVANCE and
 * DEFAULT_MIN_CARD_RELEVANCE on the wire's relevance, i.e. RELEVANCE_FIT), the floors this run
 * would choose (the largest evidence floor, grid 0.01, at which no answerable set loses more than
 * half a point of R@5, R@10 for conversations, with no card floor, a margin under the 1-point
 * target for questions it was not chosen on; then the largest card floor under it that keeps that), the same with one floor for both, a refit of RELEVANCE_FIT on this run's
 * candidates (weighted logistic regression by Newton's method on [match, sym, thread, graph]:
 * evidence = gold chunks in the first k, not evidence = the first k of unanswerable questions),
 * and 2-fold cross-validation: fit and floors on every second question, figures on the others.
 * `--raw` also writes the questions' selections; `--from-raw <file>` reports from them again.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { PaperGuruClient } from "../src/client";
import { DEFAULT_MIN_CARD_RELEVANCE, DEFAULT_MIN_RELEVANCE, RELEVANCE_FIT } from "../src/core/capital/scoring";
import { slug } from "../src/core/ids";
import { flags, log } from "./lib/args";
import {
  loadHotpot,
  loadLocomo,
  loadSciQa,
  loadSimpleQa,
  passagesAsNotes,
  type Question,
  turnsAsRecords,
  type UserArtifact,
} from "./lib/datasets";
import { machine } from "./lib/results";
import { harnessFetch, startServer } from "./lib/server";

const opt = flags();
const data = opt("--data") ?? "../shared/testdata";
const ref = opt("--ref");
const out = opt("--out") ?? "bench/results/abstention-latest.json";
/** `--from-raw <file>`: the fit and floors again from a run's questions (`--raw` wrote them). */
const fromRaw = opt("--from-raw");
const LIMIT = 40;
/**
 * The recall a floor may cost the worst answerable set when it is chosen: half the 1-point target,
 * a margin for questions the floors were not chosen on (`--max-loss <fraction>`).
 */
const MAX_LOSS = Number(opt("--max-loss") ?? 0.005);
const BATCH = 200;

interface Archive {
  id: string;
  pg: PaperGuruClient;
}

interface Asked {
  set: string;
  kind: "answerable" | "unanswerable";
  /** Recall depth judged for this set (R@5; R@10 for conversations). */
  k: number;
  gold: string[];
  /**
   * The selection in order: chunk id, the relevance the wire gave it, and relevance's inputs
   * [match, sym, thread, graph] when the chunk is also a candidate (null when not, or pinned).
   */
  selected: Array<{ chunk: string; wire: number; x: number[] | null }>;
}

/** relevanceOf's coefficients: intercept, then match, sym, thread, graph (RELEVANCE_FIT's order). */
type Fit = number[];
const FEATURES = ["match", "sym", "thread", "graph"] as const;
const inForce: Fit = [
  RELEVANCE_FIT.intercept,
  RELEVANCE_FIT.match,
  RELEVANCE_FIT.sym,
  RELEVANCE_FIT.thread,
  RELEVANCE_FIT.graph,
];

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
/** A selected chunk's relevance under a fit (null: the wire's, the fit in force). */
function relevance(s: Asked["selected"][number], f: Fit | null): number {
  if (f === null || s.x === null) return s.wire;
  return sigmoid(s.x.reduce((z, v, i) => z + (f[i + 1] as number) * v, f[0] as number));
}

/** Solves A x = b (Gaussian elimination with partial pivoting; A is small and symmetric). */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i] as number]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++)
      if (Math.abs((M[r] as number[])[c] as number) > Math.abs((M[p] as number[])[c] as number)) p = r;
    [M[c], M[p]] = [M[p] as number[], M[c] as number[]];
    const piv = (M[c] as number[])[c] as number;
    if (Math.abs(piv) < 1e-12) continue;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const k = ((M[r] as number[])[c] as number) / piv;
      for (let j = c; j <= n; j++)
        (M[r] as number[])[j] = ((M[r] as number[])[j] as number) - k * ((M[c] as number[])[j] as number);
    }
  }
  return M.map((row, i) => (Math.abs(row[i] as number) < 1e-12 ? 0 : (row[n] as number) / (row[i] as number)));
}

/**
 * Weighted logistic regression by Newton's method, the two classes weighted equally (so 0.5 is
 * where evidence and non-evidence are equally likely, whatever the mix of questions asked).
 */
function fitLogistic(rows: Array<[number[], 0 | 1]>): Fit {
  const d = FEATURES.length + 1;
  const pos = rows.filter(([, y]) => y === 1).length;
  const wOf = (y: 0 | 1) => rows.length / (2 * Math.max(1, y === 1 ? pos : rows.length - pos));
  let beta = new Array<number>(d).fill(0);
  for (let it = 0; it < 60; it++) {
    const g = new Array<number>(d).fill(0);
    const H = Array.from({ length: d }, () => new Array<number>(d).fill(1e-6));
    for (const [x, y] of rows) {
      const v = [1, ...x];
      const p = sigmoid(v.reduce((z, xi, i) => z + (beta[i] as number) * xi, 0));
      const c = wOf(y);
      for (let i = 0; i < d; i++) {
        g[i] = (g[i] as number) + c * (y - p) * (v[i] as number);
        for (let j = 0; j < d; j++)
          (H[i] as number[])[j] =
            ((H[i] as number[])[j] as number) + c * p * (1 - p) * (v[i] as number) * (v[j] as number);
      }
    }
    const step = solve(H, g);
    beta = beta.map((b, i) => b + (step[i] as number));
    if (step.reduce((s, x) => s + Math.abs(x), 0) < 1e-9) break;
  }
  return beta.map((b) => Math.round(b * 1e3) / 1e3);
}

/** The query floor and the card floor (at most the query floor), as /context applies them. */
type Floors = { query: number; card: number };

/** What the floors do to one question: whether it abstains, and the recall of the kept list at k. */
function atFloor(q: Asked, fl: Floors, f: Fit | null) {
  const rel = q.selected.map((s) => relevance(s, f));
  const found = rel.some((r) => r >= fl.query);
  const kept = found ? q.selected.filter((_, i) => (rel[i] as number) >= Math.min(fl.card, fl.query)) : [];
  const gold = new Set(q.gold);
  const hits = new Set(kept.slice(0, q.k).filter((s) => gold.has(s.chunk.split("#")[0] as string)));
  return { abstains: kept.length === 0, recall: gold.size ? hits.size / gold.size : 0 };
}

interface SetFigure {
  set: string;
  kind: Asked["kind"];
  questions: number;
  k: number;
  /** Answerable: recall at k with no floor and at the floors; unanswerable: the share that abstains. */
  recallNoFloor?: number;
  recallAtFloor?: number;
  abstained?: number;
}

function figures(asked: Asked[], floor: Floors, f: Fit | null): SetFigure[] {
  const bySet = new Map<string, Asked[]>();
  for (const q of asked) bySet.set(q.set, [...(bySet.get(q.set) ?? []), q]);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
  return [...bySet.entries()].map(([set, qs]) => {
    const first = qs[0] as Asked;
    const base = { set, kind: first.kind, questions: qs.length, k: first.k };
    if (first.kind === "answerable")
      return {
        ...base,
        recallNoFloor: mean(qs.map((q) => atFloor(q, { query: 0, card: 0 }, f).recall)),
        recallAtFloor: mean(qs.map((q) => atFloor(q, floor, f).recall)),
      };
    return { ...base, abstained: mean(qs.map((q) => (atFloor(q, floor, f).abstains ? 1 : 0))) };
  });
}

/** The worst answerable set's recall loss at these floors. */
function worstLoss(asked: Asked[], fl: Floors, f: Fit | null): number {
  return Math.max(
    ...figures(asked, fl, f)
      .filter((x) => x.kind === "answerable")
      .map((x) => (x.recallNoFloor ?? 0) - (x.recallAtFloor ?? 0)),
  );
}

/**
 * The floors: the largest query floor (grid 0.01) at which no answerable set loses more than
 * `maxLoss` of recall with no card floor, then the largest card floor up to it that keeps that.
 * `single`: one floor for both (the card floor equal to the query floor).
 */
function chooseFloors(asked: Asked[], f: Fit | null, single = false, maxLoss = MAX_LOSS): Floors {
  const okAt = (fl: Floors) => worstLoss(asked, fl, f) <= maxLoss + 1e-12;
  let query = 0;
  for (let i = 1; i < 100 && okAt({ query: i / 100, card: single ? i / 100 : 0 }); i++) query = i / 100;
  if (single) return { query, card: query };
  let card = 0;
  for (let i = 1; i <= Math.round(query * 100) && okAt({ query, card: i / 100 }); i++) card = i / 100;
  return { query, card };
}

/**
 * The fit's rows: evidence = the gold chunks an answerable question's selection has in its first k;
 * not evidence = every chunk in the first k of an unanswerable question's selection. (A non-gold
 * chunk of an answerable question is left out: HotpotQA's distractors are often on topic.) Chunks
 * without relevance's inputs on the wire (not candidates, or pinned) are left out.
 */
function fitRows(asked: Asked[]): Array<[number[], 0 | 1]> {
  const rows: Array<[number[], 0 | 1]> = [];
  for (const q of asked) {
    const gold = new Set(q.gold);
    for (const s of q.selected.slice(0, q.k)) {
      if (s.x === null) continue;
      if (q.kind === "unanswerable") rows.push([s.x, 0]);
      else if (gold.has(s.chunk.split("#")[0] as string)) rows.push([s.x, 1]);
    }
  }
  return rows;
}

async function main() {
  const hp = loadHotpot(data);
  const nq = loadSimpleQa(data);
  const sq = loadSciQa(data);
  const convs = loadLocomo(data);
  if (!hp || !nq || !sq || !convs) {
    log(`abstention: skipped, ${data} lacks multihop/, simpleqa/, sciqa/ or conversations/ (pass --data <dir>)`);
    return;
  }
  const t0 = performance.now();
  const server = await startServer({ fresh: true, snapshot: ref ? { ref } : true });
  try {
    const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
    const archive = async (name: string, arts: UserArtifact[]): Promise<Archive> => {
      const id = `abst-${slug(name).slice(0, 20)}-${Date.now().toString(36)}`;
      const created = await admin.createArchive({ id, name });
      const pg = admin.withKey(created.key.secret);
      for (let i = 0; i < arts.length; i += BATCH) await pg.ingest(id, { artifacts: arts.slice(i, i + BATCH) });
      log(`  ${name}: ${arts.length} artifacts`);
      return { id, pg };
    };
    const notes = passagesAsNotes;
    const A = {
      hotpotqa: await archive("HotpotQA", notes(hp.passages)),
      nq: await archive("NQ-open", notes(nq.passages)),
      sciqa: await archive("SciQA", notes(sq.passages)),
    };
    const conv = await Promise.all(convs.map((c) => archive(`LoCoMo ${c.id}`, turnsAsRecords(c))));
    const asked: Asked[] = [];
    const ask = async (
      a: Archive,
      set: string,
      kind: Asked["kind"],
      k: number,
      qs: Array<Pick<Question, "question" | "gold">>,
    ) => {
      for (const q of qs) {
        const r = await a.pg.route(a.id, { query: q.question, limit: LIMIT });
        const inputs = new Map(
          r.candidates.map((c) => [c.chunk, [Math.min(1, c.match), c.experts.sym, c.experts.thread, c.experts.graph]]),
        );
        asked.push({
          set,
          kind,
          k,
          gold: q.gold,
          selected: r.selected.map((s) => ({
            chunk: s.chunk,
            wire: s.relevance,
            x: s.relevance >= 1 ? null : (inputs.get(s.chunk) ?? null),
          })),
        });
      }
      log(`  ${set}: ${qs.length} questions`);
    };
    const none = (qs: Array<{ question: string }>) => qs.map((q) => ({ question: q.question, gold: [] }));
    const conversationQs = convs.flatMap((c) => c.questions);
    await ask(A.hotpotqa, "HotpotQA", "answerable", 5, hp.questions);
    await ask(A.nq, "NQ-open", "answerable", 5, nq.questions);
    await ask(A.sciqa, "SciFact + PubMedQA", "answerable", 5, sq.questions);
    for (const [i, c] of convs.entries()) await ask(conv[i] as Archive, "LoCoMo (1-4)", "answerable", 10, c.questions);
    for (const [i, c] of convs.entries())
      await ask(
        conv[i] as Archive,
        "LoCoMo adversarial (5)",
        "unanswerable",
        10,
        c.adversarialQuestions.map((question) => ({ question, gold: [] })),
      );
    await ask(A.sciqa, "HotpotQA -> SciQA archive", "unanswerable", 5, none(hp.questions));
    await ask(A.sciqa, "NQ-open -> SciQA archive", "unanswerable", 5, none(nq.questions));
    await ask(A.sciqa, "LoCoMo -> SciQA archive", "unanswerable", 10, none(conversationQs));
    await ask(A.hotpotqa, "SciQA -> HotpotQA archive", "unanswerable", 5, none(sq.questions));
    await ask(A.nq, "SciQA -> NQ-open archive", "unanswerable", 5, none(sq.questions));

    report(asked, server.source ?? null, performance.now() - t0);
  } finally {
    server.stop();
  }
}

/** The floors in force and chosen, a refit, 2-fold cross-validation and a grid, written to `out`. */
function report(asked: Asked[], source: unknown, totalMs: number) {
  {
    // On the wire's relevance (the fit in force): the defaults' figures and the floors this run picks.
    const defaults: Floors = { query: DEFAULT_MIN_RELEVANCE, card: DEFAULT_MIN_CARD_RELEVANCE };
    const floor = chooseFloors(asked, null);
    const single = chooseFloors(asked, null, true);
    // A refit on this run's inputs, and 2-fold: fit and floors on one half, figures on the other.
    const fit = fitLogistic(fitRows(asked));
    const half = (i: number) => asked.filter((_, j) => j % 2 === i);
    const folds = [0, 1].map((i) => {
      const train = half(i);
      const test = half(1 - i);
      const f = fitLogistic(fitRows(train));
      const fl = chooseFloors(train, f);
      return { fit: f, floor: fl, heldOut: figures(test, fl, f), worstLoss: worstLoss(test, fl, f) };
    });
    const grid = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7].map((q) => ({
      floor: { query: q, card: Math.min(q, defaults.card) },
      sets: figures(asked, { query: q, card: Math.min(q, defaults.card) }, null),
    }));
    const pooled = (fs: SetFigure[]) => {
      const un = fs.filter((x) => x.kind === "unanswerable");
      const n = un.reduce((s, x) => s + x.questions, 0);
      return un.reduce((s, x) => s + (x.abstained ?? 0) * x.questions, 0) / Math.max(1, n);
    };
    const result = {
      date: new Date().toISOString(),
      commit: (source as { commit?: string } | null)?.commit ?? "unknown",
      machine: machine(),
      source,
      features: FEATURES,
      inForce,
      defaults,
      atDefaults: figures(asked, defaults, null),
      pooledAbstained: pooled(figures(asked, defaults, null)),
      worstLoss: worstLoss(asked, defaults, null),
      chosen: floor,
      refit: fit,
      single: {
        floor: single,
        sets: figures(asked, single, null),
        pooledAbstained: pooled(figures(asked, single, null)),
      },
      folds: folds.map((f) => ({ ...f, pooledAbstained: pooled(f.heldOut) })),
      grid: grid.map((g) => ({ ...g, pooledAbstained: pooled(g.sets) })),
      questions: asked.length,
      totalMs,
    };
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    if (process.argv.includes("--raw") && !fromRaw)
      writeFileSync(out.replace(/\.json$/, "-raw.json"), JSON.stringify(asked));
    log(`in force ${JSON.stringify(inForce)}, defaults ${JSON.stringify(defaults)}`);
    log(`this run: floors ${JSON.stringify(floor)} (one floor: ${single.query}); refit ${JSON.stringify(fit)}`);
    for (const f of result.folds)
      log(
        `  fold: fit ${JSON.stringify(f.fit)} floors ${JSON.stringify(f.floor)} held-out worst loss ${(f.worstLoss * 100).toFixed(1)}, abstained ${(f.pooledAbstained * 100).toFixed(1)}%`,
      );
    for (const x of result.atDefaults)
      log(
        `  ${x.set.padEnd(28)} ${x.kind.padEnd(12)} n=${x.questions} ${
          x.kind === "answerable"
            ? `R@${x.k} ${(x.recallNoFloor ?? 0).toFixed(3)} -> ${(x.recallAtFloor ?? 0).toFixed(3)}`
            : `abstained ${((x.abstained ?? 0) * 100).toFixed(1)}%`
        }`,
      );
    log(`pooled unanswerable abstained ${(result.pooledAbstained * 100).toFixed(1)}%; wrote ${out}`);
  }
}

if (fromRaw) report(JSON.parse(readFileSync(fromRaw, "utf8")) as Asked[], { fromRaw }, 0);
else await main();
