import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CapitalStore, route } from "../../src/core/capital";
import { toBase64 } from "../../src/core/sketch";
import { terms } from "../../src/core/text/analyze";
import { BM25_B, BM25_K1, docTerms, parseDocTerms, queryTerms } from "../../src/core/text/lexical";
import { type ChangeOp, DEFAULT_PARAMS, type RouteInput } from "../../src/core/types";

const SK = toBase64(new Uint8Array(32));
function head(chunk: string, version: number, validFrom: number, text: string): ChangeOp {
  return {
    op: "head.upsert",
    chunk,
    kind: "note",
    version,
    validFrom,
    recordedAt: validFrom,
    entities: [],
    boundaries: [],
    sketch: SK,
    ...docTerms("", text),
  };
}
function build(ops: ChangeOp[]) {
  const s = new CapitalStore(DEFAULT_PARAMS);
  for (const op of ops) s.apply(op);
  return s;
}
function input(over: Partial<RouteInput>): RouteInput {
  return {
    mentions: [],
    identifiers: [],
    boundaries: [],
    semantic: [],
    querySketch: new Uint8Array(32),
    asOf: 1e6,
    now: 1e6,
    limit: 10,
    ...over,
  };
}
const byChunk = (s: CapitalStore, m: Map<number, number>) =>
  new Map([...m].map(([i, v]) => [s.ids[i] as string, v] as [string, number]));

/** Okapi BM25 written out directly over whole documents: the reference the index must reproduce. */
function reference(docs: Record<string, string>, query: string): Map<string, number> {
  const bags = Object.entries(docs).map(([id, text]) => [id, terms(text)] as const);
  const n = bags.length;
  const avg = bags.reduce((s, [, t]) => s + t.length, 0) / n;
  const out = new Map<string, number>();
  for (const q of queryTerms(query)) {
    const df = bags.filter(([, t]) => t.includes(q)).length;
    if (df === 0) continue;
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    for (const [id, t] of bags) {
      const tf = t.filter((x) => x === q).length;
      if (tf === 0) continue;
      const s = (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * t.length) / avg));
      out.set(id, (out.get(id) ?? 0) + s);
    }
  }
  return out;
}

describe("lexical expert (BM25 over each version's bag of terms)", () => {
  const docs: Record<string, string> = {
    a: "Jon went to Paris in May and loved the museums of Paris.",
    b: "Jon likes pottery. He has a cat.",
    c: "The pottery class met every Tuesday in the community centre.",
    d: "Gina opened a dance studio downtown after losing her job.",
  };

  it("reproduces Okapi BM25 (k1 1.2, b 0.75) exactly when documents are under the term cap", () => {
    const s = build(Object.entries(docs).map(([id, t]) => head(id, 1, 100, t)));
    for (const q of ["When was Jon in Paris?", "pottery class", "dance studio job"]) {
      const got = byChunk(s, s.lexicalScores(queryTerms(q), 1000, 8192));
      const want = reference(docs, q);
      expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
      for (const [id, v] of want) expect(got.get(id)).toBeCloseTo(v, 6);
    }
  });

  it("is version-aware: a revision's words count only from its start, a deprecated chunk not at all", () => {
    const s = build([
      head("a", 1, 100, "alpha beta"),
      head("b", 1, 100, "gamma"),
      head("a", 2, 500, "delta epsilon"),
      { op: "head.deprecate", chunk: "b", at: 700, by: null },
    ]);
    const hits = (q: string, t: number) => [...byChunk(s, s.lexicalScores(queryTerms(q), t, 8192)).keys()];
    expect(hits("alpha", 300)).toEqual(["a"]);
    expect(hits("alpha", 600)).toEqual([]);
    expect(hits("delta", 300)).toEqual([]);
    expect(hits("delta", 600)).toEqual(["a"]);
    expect(hits("gamma", 600)).toEqual(["b"]);
    expect(hits("gamma", 800)).toEqual([]);
    expect(hits("alpha", 50)).toEqual([]);
  });

  it("survives a snapshot: identical scores after serialize / deserialize and after further appends", () => {
    const ops = Object.entries(docs).map(([id, t]) => head(id, 1, 100, t));
    const live = build(ops);
    const rebuilt = CapitalStore.deserialize(live.serialize());
    for (const q of ["Jon Paris", "pottery", "studio"])
      expect(byChunk(rebuilt, rebuilt.lexicalScores(queryTerms(q), 1000, 8192))).toEqual(
        byChunk(live, live.lexicalScores(queryTerms(q), 1000, 8192)),
      );
    const extra = head("e", 1, 200, "pottery wheel");
    live.apply(extra);
    rebuilt.apply(extra);
    expect(byChunk(rebuilt, rebuilt.lexicalScores(["potteri"], 1000, 8192))).toEqual(
      byChunk(live, live.lexicalScores(["potteri"], 1000, 8192)),
    );
  });

  it("reads at most maxPostings per term (newest first), so work is bounded at any size", () => {
    const s = build(Array.from({ length: 100 }, (_, i) => head(`d${i}`, 1, 100 + i, "common word")));
    expect(s.lexicalScores(["common"], 1000, 16).size).toBe(16);
    expect([...byChunk(s, s.lexicalScores(["common"], 1000, 16)).keys()]).toContain("d99");
  });

  it("scores the rarest query terms first and stops when the postings budget is spent", () => {
    const s = build([
      ...Array.from({ length: 50 }, (_, i) => head(`c${i}`, 1, 100, "common")),
      head("r", 1, 100, "common rare"),
    ]);
    // Budget 1: only "rare" (df 1) is scored, "common" (df 51) is skipped.
    expect([...byChunk(s, s.lexicalScores(["common", "rare"], 1000, 8192, 1)).keys()]).toEqual(["r"]);
    expect(s.lexicalScores(["common", "rare"], 1000, 8192).size).toBe(51);
  });

  it("routes a rare word found beyond the head (seeds with reason 'lexical', lex expert 1 on the best)", () => {
    const s = build(Object.entries(docs).map(([id, t]) => head(id, 1, 100, t)));
    const r = route(s, input({ terms: queryTerms("museums") }));
    expect(r.candidates[0]?.chunk).toBe("a");
    expect(r.candidates[0]?.experts.lex).toBe(1);
    expect(r.trace.seeds.find((x) => x.chunk === "a")?.reasons).toContain("lexical");
  });

  it("encodes bags as term:tf pairs, caps distinct terms, counts title terms twice", () => {
    const d = docTerms("Paris", "Paris is in France.");
    expect(parseDocTerms(d.terms)).toEqual([
      ["paris", 3],
      ["franc", 1],
    ]);
    expect(d.len).toBe(4);
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{4,8}$/), { maxLength: 400 }), (words) => {
        const bag = parseDocTerms(docTerms("", words.join(" "), 50).terms);
        expect(bag.length).toBeLessThanOrEqual(50);
        for (const [, tf] of bag) expect(tf).toBeGreaterThan(0);
      }),
    );
  });
});

describe("session-scoped recency", () => {
  it("ranks the same without a session whatever was accessed before", () => {
    const s = build(Array.from({ length: 30 }, (_, i) => head(`d${i}`, 1, 100, `topic${i % 5} shared words here`)));
    const q = input({ terms: queryTerms("shared topic1") });
    const before = route(s, q);
    for (let i = 0; i < 30; i += 3) s.recordAccess(`d${i}`, 900_000);
    const after = route(s, q);
    expect(after.selected).toEqual(before.selected);
    expect(after.candidates).toEqual(before.candidates);
    const withSession = route(s, { ...q, recent: [{ chunk: "d0", at: 900_000 }] });
    expect(withSession.trace.seeds.find((x) => x.chunk === "d0")?.reasons).toContain("recent");
  });
});
