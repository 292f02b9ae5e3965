/**
 * The head score is the lexical expert plus bounded shares of the others (core/capital/scoring.ts).
 * Two properties over generated archives and queries:
 * - with no entity, graph, timeline or recency information for the query (no resolved mention, no
 *   edge, no record, one record time), route()'s ranking is the lexical expert's ranking, whatever
 *   the weights;
 * - with entities, edges and timelines of records, a head ranks above another only if its lexical
 *   score is at most W + B lower (W = the other experts' weights, B = the router's largest path
 *   bonus), so heads that share only frequent words cannot bury the one that matches the query's
 *   rare words.
 * And the thread expert on its own: a turn with none of the query's words reaches the top next to
 * the turn that has them, only on a timeline of records.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CapitalStore, route, TYPE_PRIOR } from "../../src/core/capital";
import { toBase64 } from "../../src/core/sketch";
import { type ChangeOp, DEFAULT_PARAMS, type KernelParams, mergeParams, type RouteInput } from "../../src/core/types";

const SK = toBase64(new Uint8Array(32).fill(7));
const VOCAB = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa", "lam", "mu"];

interface Doc {
  words: number[];
  entities: number[];
}

const docArb = fc.record({
  words: fc.array(fc.integer({ min: 0, max: VOCAB.length - 1 }), { minLength: 1, maxLength: 12 }),
  entities: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
});

function headOp(i: number, d: Doc, withEntities: boolean, record = false): ChangeOp {
  const tf = new Map<string, number>();
  for (const w of d.words) tf.set(VOCAB[w] as string, (tf.get(VOCAB[w] as string) ?? 0) + 1);
  return {
    op: "head.upsert",
    chunk: `c${String(i).padStart(3, "0")}`,
    kind: record ? "record" : "note",
    version: 1,
    // Records get their own times (a timeline in arrival order); notes share one.
    validFrom: record ? 1000 + i : 1000,
    recordedAt: 1000,
    entities: withEntities ? [...new Set(d.entities)].map((e) => `concept:e${e}`) : [],
    boundaries: [],
    sketch: SK,
    terms: [...tf].map(([t, n]) => `${t}:${n}`).join(" "),
    len: d.words.length,
  };
}

function build(ops: ChangeOp[], params: KernelParams): CapitalStore {
  const s = new CapitalStore(params);
  for (const op of ops) s.apply(op);
  return s;
}

const input = (terms: string[], mentions: string[] = [], semantic: RouteInput["semantic"] = []): RouteInput => ({
  mentions,
  identifiers: [],
  boundaries: [],
  semantic,
  querySketch: new Uint8Array(32),
  terms,
  asOf: 1e13,
  now: 1e13,
  limit: 10,
});

const weightsArb = fc.record({
  sem: fc.double({ min: 0, max: 2, noNaN: true }),
  lex: fc.constant(1),
  sym: fc.double({ min: 0, max: 2, noNaN: true }),
  graph: fc.double({ min: 0, max: 2, noNaN: true }),
  rec: fc.double({ min: 0, max: 2, noNaN: true }),
  thread: fc.double({ min: 0, max: 2, noNaN: true }),
});

/** The lexical expert's own top k: BM25 score descending, then chunk id. */
function lexicalTop(s: CapitalStore, terms: string[], k: number): string[] {
  const scores = s.lexicalScores(terms, 1e13, DEFAULT_PARAMS.maxPostingsPerTerm, DEFAULT_PARAMS.maxLexicalPostings);
  return [...scores]
    .map(([i, v]) => [s.ids[i] as string, v] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, k)
    .map(([id]) => id);
}

describe("do no harm", () => {
  it("property: with no entity, graph or recency signal, the ranking is the lexical ranking", () => {
    fc.assert(
      fc.property(
        fc.array(docArb, { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: VOCAB.length - 1 }), { minLength: 1, maxLength: 4 }),
        weightsArb,
        // Vector-index hits seed the diffusion too; with no edge they move no mass anywhere.
        fc.array(fc.tuple(fc.nat(39), fc.double({ min: 0.01, max: 1, noNaN: true })), { maxLength: 8 }),
        fc.boolean(),
        (docs, q, weights, hits, withEntities) => {
          const params = mergeParams({ weights });
          const s = build(
            docs.map((d, i) => headOp(i, d, withEntities)),
            params,
          );
          const terms = [...new Set(q.map((w) => VOCAB[w] as string))];
          const semantic = hits
            .filter(([i]) => i < docs.length)
            .map(([i, score]) => ({ chunk: `c${String(i).padStart(3, "0")}`, score }));
          // Query words are not entity names: nothing resolves, even where heads carry entities.
          const r = route(s, input(terms, terms, semantic), params);
          expect(r.trace.mentions).toEqual([]);
          // Heads without any query word (vector hits) may follow the lexical hits, never precede them.
          const top = lexicalTop(s, terms, 10);
          expect(r.selected.map((x) => x.chunk).slice(0, top.length)).toEqual(top);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("property: a head outranks another only within the bounded share of the other experts", () => {
    fc.assert(
      fc.property(
        fc.array(docArb, { minLength: 2, maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(39), fc.nat(39)), { maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: VOCAB.length - 1 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 2 }),
        fc.boolean(),
        (docs, edges, q, names, records) => {
          const params = DEFAULT_PARAMS;
          const ops: ChangeOp[] = docs.map((d, i) => headOp(i, d, true, records));
          for (const [a, b] of edges)
            if (a < docs.length && b < docs.length && a !== b)
              ops.push({
                op: "edge.upsert",
                src: `c${String(a).padStart(3, "0")}`,
                dst: `c${String(b).padStart(3, "0")}`,
                type: "cites",
                weight: 1,
                validFrom: 1000,
                validTo: null,
              });
          const s = build(ops, params);
          const terms = [...new Set(q.map((w) => VOCAB[w] as string))];
          const r = route(
            s,
            input(
              terms,
              names.map((n) => `e${n}`),
            ),
            params,
          );
          const lex = s.lexicalScores(terms, 1e13, params.maxPostingsPerTerm, params.maxLexicalPostings);
          let maxLex = 0;
          for (const v of lex.values()) maxLex = Math.max(maxLex, v);
          if (maxLex <= 0) return;
          const rel = (id: string) => (lex.get(s.index.get(id) as number) ?? 0) / maxLex;
          const w = params.weights;
          const others = w.sem + w.sym + w.graph + w.rec + w.thread;
          // The router adds at most lambda x (the score it starts from, <= lex + others) x prior (x2 when asked) per hop.
          const maxPrior = 2 * Math.max(...Object.values(TYPE_PRIOR));
          const bound = others + maxPrior * params.routerLambda * (w.lex + others) * params.dMax;
          const order = r.selected.map((x) => x.chunk);
          for (let a = 0; a < order.length; a++)
            for (let b = a + 1; b < order.length; b++)
              expect(rel(order[b] as string) - rel(order[a] as string)).toBeLessThanOrEqual(bound + 1e-9);
        },
      ),
      { numRuns: 150 },
    );
  });

  describe("thread expert", () => {
    const turn = (i: number, words: string, kind: "record" | "note"): ChangeOp => ({
      op: "head.upsert",
      chunk: `t${i}`,
      kind,
      version: 1,
      validFrom: 1000 + i * 60_000,
      recordedAt: 1000,
      entities: [],
      boundaries: [],
      sketch: SK,
      terms: words
        .split(" ")
        .map((w) => `${w}:1`)
        .join(" "),
      len: words.split(" ").length,
    });
    // t1 asks what the question asks; t2 answers it in other words; t0 and t3 are unrelated.
    const words = [
      "hello there friend",
      "where did you adopt the puppy",
      "shelter downtown last spring",
      "nice weather",
    ];
    const ranked = (kind: "record" | "note", thread: number) => {
      const params = mergeParams({ weights: { thread } });
      const s = build(
        words.map((w, i) => turn(i, w, kind)),
        params,
      );
      return route(s, input(["adopt", "puppy"]), params);
    };

    it("the turns next to the one with the query's words join the top, with none of its words", () => {
      const r = ranked("record", DEFAULT_PARAMS.weights.thread);
      // Both neighbours on the timeline (the turn before and the reply) get t1's lexical share; t3,
      // two turns away, gets no thread share (diffusion and the router may still reach it).
      expect(r.selected.slice(0, 3).map((x) => x.chunk)).toEqual(["t1", "t0", "t2"]);
      expect(r.candidates.find((c) => c.chunk === "t3")?.experts.thread ?? 0).toBe(0);
      const t2 = r.candidates.find((c) => c.chunk === "t2");
      expect(t2?.experts.lex).toBe(0);
      expect(t2?.experts.thread).toBe(1);
      expect(t2?.score).toBeGreaterThanOrEqual(DEFAULT_PARAMS.weights.thread);
    });

    it("reads neighbour tables only in a store that holds a record", () => {
      const s = build(
        words.map((w, i) => turn(i, w, "note")),
        DEFAULT_PARAMS,
      );
      expect(s.hasRecords()).toBe(false);
      s.apply(turn(9, "late record", "record"));
      expect(s.hasRecords()).toBe(true);
    });

    it("is 0 without a timeline (notes) and off at weight 0", () => {
      for (const r of [ranked("note", DEFAULT_PARAMS.weights.thread), ranked("record", 0)])
        for (const c of r.candidates) expect(c.experts.thread).toBe(0);
      expect(ranked("note", 1).candidates.map((c) => c.chunk)).toEqual(["t1"]);
    });
  });
});
