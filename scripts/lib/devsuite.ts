/**
 * The retrieval dev suite, in one process: every visible question set stored as a user stores it
 * (title and content; conversation turns as `record` with their own time, or as `note` with their
 * session's date; papers with their citations; the unArXive papers as the full-text import's parser
 * plans them), planned by the same ingest code as the Worker, with
 * the same head embeddings, sketches and exact local vector index, and asked through the kernel's
 * route() with the query analysed as the query pipeline does. Next to it, the strongest BM25 of the
 * same run (wink k1 1.2 b 0.75 with title weight 1 and 2, minisearch) on the same documents.
 *
 * What it is for: choosing kernel parameters by cross-validation (scripts/cv.ts) without a Worker,
 * so that a sweep of dozens of settings over ~2,700 questions takes minutes. `npm run eval` stays the
 * measurement of record (through the public API); the two agree on the sets both run (docs/quality.md).
 */

import { ExactCosineSpace } from "../../src/adapters/local/memory-vectors";
import { CapitalStore, route } from "../../src/core/capital";
import { HashedEmbedder } from "../../src/core/embed/hashed";
import { type ArtifactInput, planIngest, prepareBatch } from "../../src/core/ingest";
import { preferredEdges } from "../../src/core/query";
import { simhash } from "../../src/core/sketch";
import { queryTerms } from "../../src/core/text/lexical";
import { extractMentions } from "../../src/core/text/mentions";
import type { KernelParams, RouteResult } from "../../src/core/types";
import { type Doc, rankAll } from "./baselines";
import {
  firstSentenceTitle,
  loadCiteSeer,
  loadHotpot,
  loadLocomo,
  loadSciQa,
  loadSimpleQa,
  loadTwoWiki,
  loadUnarxiveRefs,
  type Passage,
  sessionDates,
  shuffled,
} from "./datasets";

export interface DevQuestion {
  query: string;
  gold: string[];
  /** Ids never counted (a paper queried with its own text). */
  exclude?: string;
  /** Sub-group for per-kind reporting (LoCoMo category, sciqa dataset). */
  group?: string;
}

export interface DevSet {
  key: string;
  name: string;
  /** Cut-offs reported; `judged` are the ones the margin is taken at. */
  ks: number[];
  judged: number[];
  /** One or more archives (LoCoMo: one per conversation), each with its questions. */
  parts: Array<{ artifacts: ArtifactInput[]; questions: DevQuestion[] }>;
}

const toDoc = (a: ArtifactInput): Doc => ({ id: a.id, title: a.title, text: a.content });

const note = (p: Passage): ArtifactInput => ({ id: p.id, kind: "note", title: p.title, content: p.text });

/** Every dev set whose files are present under `dir`. */
export function devSets(dir: string, only?: string[]): DevSet[] {
  const want = (k: string) => !only || only.includes(k);
  const out: DevSet[] = [];
  const hp = loadHotpot(dir);
  if (hp && want("hotpotqa"))
    out.push({
      key: "hotpotqa",
      name: "HotpotQA",
      ks: [1, 2, 5, 10],
      judged: [2, 5],
      parts: [
        { artifacts: hp.passages.map(note), questions: hp.questions.map((q) => ({ query: q.question, gold: q.gold })) },
      ],
    });
  const wiki = loadTwoWiki(dir);
  if (hp && wiki && want("2wiki"))
    out.push({
      key: "2wiki",
      name: "HotpotQA + 2Wiki distractors",
      ks: [1, 2, 5, 10],
      judged: [2, 5],
      parts: [
        {
          artifacts: shuffled([...hp.passages, ...wiki], 20_240_601).map(note),
          questions: hp.questions.map((q) => ({ query: q.question, gold: q.gold })),
        },
      ],
    });
  const convs = loadLocomo(dir);
  if (convs) {
    const qs = (c: (typeof convs)[number]) =>
      c.questions.map((q) => ({ query: q.question, gold: q.gold, group: `category-${q.category ?? 0}` }));
    if (want("locomo"))
      out.push({
        key: "locomo",
        name: "LoCoMo, turns as record with their own time",
        ks: [1, 5, 10, 20],
        judged: [10],
        parts: convs.map((c) => ({
          artifacts: c.turns.map((t) => ({
            id: t.id,
            kind: "record" as const,
            title: t.title,
            content: t.text,
            valid_from: t.at,
          })),
          questions: qs(c),
        })),
      });
    if (want("locomo-note"))
      out.push({
        key: "locomo-note",
        name: "LoCoMo, turns as note with the session date",
        ks: [1, 5, 10, 20],
        judged: [10],
        parts: convs.map((c) => {
          const session = sessionDates(c);
          return {
            artifacts: c.turns.map((t) => ({
              id: t.id,
              kind: "note" as const,
              title: t.title,
              content: t.text,
              valid_from: session.get(t.id) ?? t.at,
            })),
            questions: qs(c),
          };
        }),
      });
  }
  const cs = loadCiteSeer(dir);
  if (cs) {
    const key = (id: string) => `cs:${id}`;
    const papers = (withheld: boolean) =>
      cs.papers.map((p) => ({
        id: key(p.id),
        kind: "paper" as const,
        title: firstSentenceTitle(p.text, p.id),
        content: p.text || p.id,
        edges:
          withheld && cs.held.has(p.id)
            ? []
            : [...(cs.cites.get(p.id) ?? [])].map((c) => ({ type: "cites" as const, target: key(c) })),
      }));
    if (want("citeseer")) {
      const textOf = new Map(cs.papers.map((p) => [p.id, p.text]));
      out.push({
        key: "citeseer",
        name: "CiteSeer citation recovery",
        ks: [2, 5, 10],
        judged: [2, 5],
        parts: [
          {
            artifacts: papers(true),
            questions: [...cs.held].map(([pid, gold]) => ({
              query: (textOf.get(pid) ?? "").slice(0, 8000),
              gold: [...gold].map(key),
              exclude: key(pid),
            })),
          },
        ],
      });
    }
    if (want("known-item")) {
      // The eval's retrieval-metrics task: every 15th paper by id, queried with its second sentence.
      const sorted = [...cs.papers].sort((a, b) => (a.id < b.id ? -1 : 1));
      const questions: DevQuestion[] = [];
      for (const [i, p] of sorted.entries()) {
        if (i % 15 !== 0) continue;
        const s = p.text.split(/(?<=[.?!])\s+/)[1]?.trim() ?? "";
        const words = s.split(/\s+/).filter(Boolean).length;
        if (words >= 8 && words <= 60) questions.push({ query: s, gold: [key(p.id)] });
      }
      out.push({
        key: "known-item",
        name: "Known-item lookups (CiteSeer)",
        ks: [1, 2, 5, 10],
        judged: [2, 5],
        parts: [{ artifacts: papers(false), questions }],
      });
    }
  }
  const nq = loadSimpleQa(dir);
  if (nq && want("simpleqa"))
    out.push({
      key: "simpleqa",
      name: "Single-hop (NQ-open)",
      ks: [1, 2, 5, 10],
      judged: [2, 5],
      parts: [
        { artifacts: nq.passages.map(note), questions: nq.questions.map((q) => ({ query: q.question, gold: q.gold })) },
      ],
    });
  const sq = loadSciQa(dir);
  if (sq)
    for (const ds of ["scifact", "pubmedqa"]) {
      if (!want(ds)) continue;
      out.push({
        key: ds,
        name: ds === "scifact" ? "SciFact claims" : "PubMedQA questions",
        ks: [1, 2, 5, 10],
        judged: [2, 5],
        parts: [
          {
            artifacts: sq.passages.map((p) => ({
              id: p.id,
              kind: "paper" as const,
              title: p.title || firstSentenceTitle(p.text, p.id),
              content: p.text,
            })),
            questions: sq.questions.filter((q) => q.dataset === ds).map((q) => ({ query: q.question, gold: q.gold })),
          },
        ],
      });
    }
  const ua = want("unarxive-refs") ? loadUnarxiveRefs(dir) : null;
  if (ua)
    out.push({
      key: "unarxive-refs",
      name: "unArXive per-node references",
      ks: [1, 2, 5, 10],
      judged: [2, 5],
      parts: [
        {
          // The importer's plan for the 49 papers (sections, elements, one paper chunk per cited work,
          // the cites edges) as the archive; edge contexts, which route does not read, are left out.
          artifacts: ua.artifacts,
          questions: ua.questions.map((q) => ({ query: q.question, gold: q.gold, exclude: q.exclude })),
        },
      ],
    });
  return out;
}

/** One archive built in-process: the capital chunk and the exact vector index over head embeddings. */
export interface DevArchive {
  store: CapitalStore;
  space: ExactCosineSpace;
  embedder: HashedEmbedder;
  now: number;
}

const toBase64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

/** Ingest as the Worker does (batches of 200; head text "title. synopsis" embedded and sketched). */
export async function buildArchive(artifacts: ArtifactInput[], start = Date.UTC(2026, 0, 1)): Promise<DevArchive> {
  const embedder = new HashedEmbedder();
  const space = new ExactCosineSpace();
  const store = new CapitalStore();
  const existing = { chunks: new Map(), entities: new Set<string>(), aliases: new Set<string>() };
  let seq = 0;
  let now = start;
  for (let i = 0; i < artifacts.length; i += 200) {
    now = start + i;
    const prep = prepareBatch(artifacts.slice(i, i + 200));
    if (!prep.ok) throw new Error(prep.error.message);
    const heads = prep.value.items.map((n) => `${n.input.title}. ${n.synopsis}`);
    const vecs = await embedder.embed(heads);
    const sketch = new Map(heads.map((t, k) => [t, toBase64(simhash(vecs[k] as Float32Array))]));
    const plan = await planIngest("dev", prep.value, existing, now, async (t) => sketch.get(t) ?? "");
    if (!plan.ok) throw new Error(plan.error.message);
    for (const [k, n] of prep.value.items.entries()) space.upsert(n.input.id, vecs[k] as Float32Array);
    for (const e of plan.value.entityInserts) existing.entities.add(e.entityId);
    for (const a of plan.value.aliasInserts) existing.aliases.add(`${a.entityId}\u0000${a.aliasNorm}`);
    for (const op of plan.value.ops) {
      store.apply(op);
      store.seq = ++seq;
    }
  }
  return { store, space, embedder, now: now + 60_000 };
}

/** /route's answer for a plain query (no session), as routeQuery builds its input. */
export async function devRoute(
  a: DevArchive,
  query: string,
  limit: number,
  params: KernelParams,
): Promise<RouteResult> {
  const { identifiers, candidates } = extractMentions(query);
  const [vec] = await a.embedder.embed([query]);
  const v = vec ?? new Float32Array(a.embedder.dims);
  const semantic = a.space.query(v, 100).map((m) => ({ chunk: m.id, score: m.score }));
  return route(
    a.store,
    {
      mentions: candidates,
      identifiers: identifiers.map((x) => x.id),
      boundaries: [],
      semantic,
      querySketch: simhash(v),
      terms: queryTerms(query),
      asOf: a.now,
      now: a.now,
      preferEdges: preferredEdges(query),
      limit,
    },
    params,
  );
}

export const BM25S = ["bm25", "bm25-title2", "minisearch"] as const;

/** Recall@k of the gold ids in a ranking (excluded id dropped first). */
export function recall(ranked: string[], q: DevQuestion, k: number): number {
  const ids = q.exclude ? ranked.filter((x) => x !== q.exclude) : ranked;
  const top = new Set(ids.slice(0, k));
  return q.gold.filter((g) => top.has(g)).length / Math.max(1, q.gold.length);
}

/** Reciprocal rank of the first gold id. */
export function reciprocalRank(ranked: string[], q: DevQuestion): number {
  const ids = q.exclude ? ranked.filter((x) => x !== q.exclude) : ranked;
  const i = ids.findIndex((x) => q.gold.includes(x));
  return i < 0 ? 0 : 1 / (i + 1);
}

/** A set ready to ask: its archives built and the baselines' rankings computed once. */
export interface PreparedSet {
  set: DevSet;
  parts: Array<{
    archive: DevArchive;
    questions: DevQuestion[];
    baselines: Record<string, string[][]>;
    /** The part's artifact ids: a selected chunk id is kept whole when it is one (unArXive sections carry `#`). */
    ids: Set<string>;
  }>;
}

export async function prepare(set: DevSet): Promise<PreparedSet> {
  const kmax = Math.max(...set.ks) + 1;
  const parts = [];
  for (const p of set.parts) {
    const archive = await buildArchive(p.artifacts);
    const baselines = await rankAll(
      p.artifacts.map(toDoc),
      p.questions.map((q) => q.query),
      kmax,
    );
    parts.push({ archive, questions: p.questions, baselines, ids: new Set(p.artifacts.map((a) => a.id)) });
  }
  return { set, parts };
}

/** Per-question rankings of PaperGuru with these parameters, in the set's question order, and the query entities each question resolved to. */
export async function rankSet(
  ps: PreparedSet,
  params: KernelParams,
): Promise<{ rankings: string[][]; mentions: number[] }> {
  const kmax = Math.max(...ps.set.ks) + 1;
  const rankings: string[][] = [];
  const mentions: number[] = [];
  for (const p of ps.parts)
    for (const q of p.questions) {
      const r = await devRoute(p.archive, q.query, kmax, params);
      rankings.push(r.selected.map((s) => (p.ids.has(s.chunk) ? s.chunk : (s.chunk.split("#")[0] as string))));
      mentions.push(r.trace.mentions.length);
    }
  return { rankings, mentions };
}

export function questionsOf(ps: PreparedSet): DevQuestion[] {
  return ps.parts.flatMap((p) => p.questions);
}

/** The baselines' rankings in question order. */
export function baselineRankings(ps: PreparedSet, method: string): string[][] {
  return ps.parts.flatMap((p) => p.baselines[method] ?? []);
}

/** Mean recall@k per k (and MRR) of rankings over questions, optionally only those of a subset. */
export function score(
  rankings: string[][],
  qs: DevQuestion[],
  ks: number[],
  pick: (i: number) => boolean = () => true,
): Record<string, number> {
  const out: Record<string, number> = {};
  let n = 0;
  for (const [i, q] of qs.entries()) {
    if (!pick(i)) continue;
    n++;
    const r = rankings[i] ?? [];
    for (const k of ks) out[`R@${k}`] = (out[`R@${k}`] ?? 0) + recall(r, q, k);
    out.MRR = (out.MRR ?? 0) + reciprocalRank(r, q);
  }
  for (const key of Object.keys(out)) out[key] = (out[key] as number) / Math.max(1, n);
  return out;
}
