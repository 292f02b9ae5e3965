/**
 * Retrieval baselines the evaluation runs on the same documents PaperGuru ingests (title and
 * content of each artifact), in the same process and run:
 * - Okapi BM25 (k1 = 1.2, b = 0.75) with wink-bm25-text-search; prep tasks from wink-nlp-utils
 *   (lowercase, tokenise, remove English stop words, Porter2 stem). Title and body are two fields of
 *   weight 1 each, so a document's term frequencies and length are those of title + body; a second
 *   run weights the title field 2, as PaperGuru's lexical expert does (core/text/lexical.ts).
 * - minisearch's BM25 (its defaults: k1 = 1.2, b = 0.7, d = 0.5 BM25+; lowercase, no stemming or
 *   stop words) over the title and text fields.
 * - dense: PaperGuru's hashed embedder over title + full text, brute-force cosine.
 * Both BM25 variants score each distinct query term once (Okapi's sum over the query's terms, as
 * PaperGuru's lexical expert does); both libraries would otherwise add a repeated word once per
 * occurrence, and minisearch then takes ~1 s per whole-abstract CiteSeer query on 2 cores.
 */
import MiniSearch from "minisearch";
import bm25 from "wink-bm25-text-search";
import nlp from "wink-nlp-utils";
import { cosine, HashedEmbedder } from "../../src/core/embed/hashed";

export interface Doc {
  id: string;
  title: string;
  text: string;
}

export interface Ranker {
  /** Up to k document ids, best first. */
  search(query: string, k: number): string[];
}

export const BM25_PARAMS = { k1: 1.2, b: 0.75 } as const;

/** Lets pending I/O (the API calls the evaluation makes meanwhile) run between slices of work. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const SLICE = 100;

export async function winkBm25(docs: Doc[], titleWeight = 1): Promise<Ranker> {
  const engine = bm25();
  engine.defineConfig({ fldWeights: { title: titleWeight, body: 1 }, bm25Params: { ...BM25_PARAMS } });
  const prep = [nlp.string.lowerCase, nlp.string.tokenize0, nlp.tokens.removeWords, nlp.tokens.stem];
  // Distinct terms for queries only: wink applies the default prep tasks to queries too (its
  // "search" prep tasks need a document field named "search").
  let searching = false;
  const distinct = (ts: string[]) => (searching ? [...new Set(ts)] : ts);
  engine.definePrepTasks([...prep, distinct] as Array<(input: never) => unknown>);
  for (const [i, d] of docs.entries()) {
    engine.addDoc({ title: d.title, body: d.text }, d.id);
    if (i % SLICE === 0) await tick();
  }
  engine.consolidate();
  return {
    search(q, k) {
      searching = true;
      try {
        return engine.search(q, k).map(([id]) => id);
      } finally {
        searching = false;
      }
    },
  };
}

export async function miniSearchBm25(docs: Doc[]): Promise<Ranker> {
  const ms = new MiniSearch<Doc>({ fields: ["title", "text"] });
  for (let i = 0; i < docs.length; i += SLICE) {
    ms.addAll(docs.slice(i, i + SLICE));
    await tick();
  }
  const tokenize = MiniSearch.getDefault("tokenize") as (text: string) => string[];
  return {
    search: (q, k) =>
      ms
        .search([...new Set(tokenize(q).map((t) => t.toLowerCase()))].join(" "))
        .slice(0, k)
        .map((r) => String(r.id)),
  };
}

export async function dense(docs: Doc[]): Promise<Ranker> {
  const emb = new HashedEmbedder();
  const vecs: Float32Array[] = [];
  for (const [i, d] of docs.entries()) {
    vecs.push(emb.embedOne(`${d.title}. ${d.text}`));
    if (i % SLICE === 0) await tick();
  }
  return {
    search(q, k) {
      const qv = emb.embedOne(q);
      const scored = vecs.map((v, i) => [i, cosine(qv, v)] as const);
      scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      return scored.slice(0, k).map(([i]) => (docs[i] as Doc).id);
    },
  };
}

export const BASELINES = ["bm25", "bm25-title2", "minisearch", "dense"] as const;
export type Baseline = (typeof BASELINES)[number];

/**
 * Every baseline's top k for every query, computed in slices so that it can run while the
 * evaluation waits for the Worker (ingest), on the other core.
 */
export async function rankAll(docs: Doc[], queries: string[], k: number): Promise<Record<Baseline, string[][]>> {
  const out = { bm25: [], "bm25-title2": [], minisearch: [], dense: [] } as Record<Baseline, string[][]>;
  const build = {
    bm25: (d: Doc[]) => winkBm25(d, 1),
    "bm25-title2": (d: Doc[]) => winkBm25(d, 2),
    minisearch: miniSearchBm25,
    dense,
  };
  for (const name of BASELINES) {
    const r = await build[name](docs);
    for (const q of queries) {
      out[name].push(r.search(q, k));
      await tick();
    }
  }
  return out;
}
