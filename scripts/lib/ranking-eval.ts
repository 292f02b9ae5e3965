/**
 * Paper Circle's ranking modes and MMR (`npm run eval -- --only ranking`): template queries over
 * CiteSeer and the unArXive bibliography, hit rate / MRR / Recall@1,5,10,20,50 for the product of
 * experts (PaperGuru's default), the stable, discovery and balanced modes and Okapi BM25 (wink,
 * k1 1.2, b 0.75) in the same run, and the intra-list similarity of the top 10 against MMR's λ.
 *
 * Ingest, as a user would, through the public API: one `paper` artifact per document with title and
 * content, the data's class as a boundary (CiteSeer `class:<label>`, unArXive `discipline:<name>`),
 * and CiteSeer's citations as `cites` edges (PaperGuru counts them as the papers' citations). The
 * unArXive bibliography: every distinct raw reference string of the 49 papers is one artifact (title
 * = content = the string as the citing paper prints it). Neither set has publication years as the
 * user has them, so recency is equal across each pool (Eq. 2: 1 when every year is the same) and
 * the modes differ by their similarity, novelty and BM25 weights here.
 *
 * Query generator (SemanticBench-style, deterministic, written before any PaperGuru output was seen):
 * 1. topic phrases: adjacent word pairs of a document's title field (CiteSeer: the title; unArXive:
 *    the reference string, words written in lower case only, so author names and venues are not
 *    phrases) where both words have ≥ 3 letters, are not stop words (NLTK list) nor numbers;
 * 2. keep phrases that occur in 2-15 documents; order them by FNV-1a hash of "<set>:<phrase>" and
 *    take the first N (CiteSeer 120, unArXive 80);
 * 3. template by the hash mod 4: "{p}", "papers on {p}", "research about {p}", "what has been
 *    published on {p}";
 * 4. every third query carries a scope filter: `boundaries_any` = the class most of its gold
 *    documents carry (ties: alphabetical); its gold is then restricted to that class.
 * Gold = every document whose title field contains the phrase (the same adjacent words).
 */
import { PaperGuruClient } from "../../src/client";
import { cosine, tfidf } from "../../src/core/research/ranking";
import { STOPWORDS } from "../../src/core/text/analyze";
import { winkBm25 } from "./baselines";
import { harnessFetch, type Server } from "./server";

const KS = [1, 5, 10, 20, 50] as const;
const LIMIT = 50;
const LAMBDAS = [0.9, 0.8, 0.65, 0.5, 0.3] as const;
const TEMPLATES = ["{p}", "papers on {p}", "research about {p}", "what has been published on {p}"];

export interface MethodRow {
  method: string;
  label: string;
  queries: number;
  hitRate10: number;
  mrr: number;
  recall: Record<string, number>;
  /** Mean pairwise TF-IDF cosine (over the set's documents) of the first 10 results. */
  ils10: number;
}

export interface RankingSet {
  key: string;
  name: string;
  documents: number;
  queries: number;
  scoped: number;
  meanGold: number;
  examples: string[];
  rows: MethodRow[];
  /** Balanced mode with MMR at each λ (and without: λ = 1). */
  mmr: Array<{ lambda: number; ils10: number; recall10: number; recall50: number; mrr: number }>;
  ingestMs: number;
  /** Mean /route wall ms per call through the local Worker: poe, a mode, a mode with MMR (k = 50). */
  routeMs: { poe: number; mode: number; mmr: number };
}

export interface RankingEval {
  sets: RankingSet[];
  generator: string;
}

interface Doc {
  id: string;
  title: string;
  text: string;
  /** The field phrases come from (and gold is matched in). */
  field: string;
  cls: string;
  cites?: string[];
}

interface Query {
  text: string;
  phrase: string;
  gold: string[];
  scope: string | null;
}

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const WORD = /[\p{L}\p{N}]+/gu;
const okWord = (w: string) => w.length >= 3 && !STOPWORDS.has(w) && !/^\p{N}+$/u.test(w);

/** Adjacent pairs of good words (lower-cased); lowerOnly: only words written in lower case. */
function phrases(field: string, lowerOnly: boolean): Set<string> {
  const raw = field.match(WORD) ?? [];
  const out = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i++) {
    const a = raw[i] as string;
    const b = raw[i + 1] as string;
    if (lowerOnly && (a !== a.toLowerCase() || b !== b.toLowerCase())) continue;
    const la = a.toLowerCase();
    const lb = b.toLowerCase();
    if (okWord(la) && okWord(lb)) out.add(`${la} ${lb}`);
  }
  return out;
}

function pairsOf(field: string): Set<string> {
  const raw = (field.toLowerCase().match(WORD) ?? []) as string[];
  const out = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i++) out.add(`${raw[i]} ${raw[i + 1]}`);
  return out;
}

export function generateQueries(set: string, docs: Doc[], n: number, lowerOnly: boolean): Query[] {
  const df = new Map<string, number>();
  for (const d of docs) for (const p of phrases(d.field, lowerOnly)) df.set(p, (df.get(p) ?? 0) + 1);
  const chosen = [...df]
    .filter(([, c]) => c >= 2 && c <= 15)
    .map(([p]) => p)
    .sort((a, b) => fnv(`${set}:${a}`) - fnv(`${set}:${b}`) || (a < b ? -1 : 1))
    .slice(0, n);
  const pairs = docs.map((d) => pairsOf(d.field));
  return chosen.map((p, i) => {
    const gold = docs.filter((_, j) => (pairs[j] as Set<string>).has(p));
    let scope: string | null = null;
    let g = gold;
    if (i % 3 === 2) {
      const counts = new Map<string, number>();
      for (const d of gold) counts.set(d.cls, (counts.get(d.cls) ?? 0) + 1);
      scope = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null;
      g = gold.filter((d) => d.cls === scope);
    }
    const template = TEMPLATES[fnv(`${set}:${p}`) % TEMPLATES.length] as string;
    return { text: template.replace("{p}", p), phrase: p, gold: g.map((d) => d.id), scope };
  });
}

class Scores {
  private readonly rows: Array<{ rr: number; hit10: number; recall: number[]; ils: number }> = [];
  constructor(private readonly vec: (id: string) => Map<string, number> | undefined) {}
  add(ranked: string[], gold: string[]) {
    const g = new Set(gold);
    const first = ranked.findIndex((x) => g.has(x));
    const recall = KS.map((k) => ranked.slice(0, k).filter((x) => g.has(x)).length / gold.length);
    const top = ranked
      .slice(0, 10)
      .map(this.vec)
      .filter((v): v is Map<string, number> => v !== undefined);
    let s = 0;
    let n = 0;
    for (let i = 0; i < top.length; i++)
      for (let j = i + 1; j < top.length; j++) {
        s += cosine(top[i] as Map<string, number>, top[j] as Map<string, number>);
        n++;
      }
    this.rows.push({
      rr: first >= 0 && first < LIMIT ? 1 / (first + 1) : 0,
      hit10: first >= 0 && first < 10 ? 1 : 0,
      recall,
      ils: n ? s / n : 0,
    });
  }
  summary(method: string, label: string): MethodRow {
    const n = Math.max(1, this.rows.length);
    const mean = (f: (r: (typeof this.rows)[number]) => number) => this.rows.reduce((s, r) => s + f(r), 0) / n;
    return {
      method,
      label,
      queries: this.rows.length,
      hitRate10: mean((r) => r.hit10),
      mrr: mean((r) => r.rr),
      recall: Object.fromEntries(KS.map((k, i) => [`R@${k}`, mean((r) => r.recall[i] as number)])),
      ils10: mean((r) => r.ils),
    };
  }
}

const LABELS: Record<string, string> = {
  bm25: "BM25 (wink, k1 = 1.2, b = 0.75, stemmed)",
  poe: "PaperGuru /route, its own order (poe, default)",
  stable: "PaperGuru /route, mode stable",
  discovery: "PaperGuru /route, mode discovery",
  balanced: "PaperGuru /route, mode balanced",
};

async function runSet(
  server: Server,
  key: string,
  name: string,
  docs: Doc[],
  queries: Query[],
  log: (m: string) => void,
  params?: Record<string, unknown>,
): Promise<RankingSet> {
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `eval-rank-${key}-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: `ranking ${name}`, params });
  const pg = admin.withKey(created.key.secret);
  const t0 = performance.now();
  const arts = docs.map((d) => ({
    id: d.id,
    kind: "paper" as const,
    title: d.title,
    content: d.text,
    boundaries: [d.cls],
    ...(d.cites?.length ? { edges: d.cites.map((target) => ({ type: "cites" as const, target })) } : {}),
  }));
  for (let i = 0; i < arts.length; i += 200) await pg.ingest(id, { artifacts: arts.slice(i, i + 200) });
  const ingestMs = performance.now() - t0;
  log(`  ${name}: ingested ${docs.length} documents (${(ingestMs / 1000).toFixed(1)} s)`);
  const vecs = tfidf(docs.map((d) => `${d.title}\n${d.text}`));
  const vecOf = new Map(docs.map((d, i) => [d.id, vecs[i] as Map<string, number>]));
  const vec = (x: string) => vecOf.get(x);
  const bm25 = await winkBm25(docs.map((d) => ({ id: d.id, title: d.title, text: d.text })));
  const cls = new Map(docs.map((d) => [d.id, d.cls]));
  const methods = ["bm25", "poe", "stable", "discovery", "balanced"];
  const scores = new Map(methods.map((m) => [m, new Scores(vec)]));
  const mmr = new Map<number, Scores>(LAMBDAS.map((l) => [l, new Scores(vec)]));
  const ms = { poe: { total: 0, calls: 0 }, mode: { total: 0, calls: 0 }, mmr: { total: 0, calls: 0 } };
  const route = async (q: Query, ranking?: Record<string, unknown>) => {
    const t = performance.now();
    const r = await pg.route(id, {
      query: q.text,
      limit: LIMIT,
      ...(q.scope ? { filter: { boundaries_any: [q.scope] } } : {}),
      ...(ranking ? { ranking } : {}),
    } as Parameters<typeof pg.route>[1]);
    const m = ms[!ranking ? "poe" : ranking.mmr ? "mmr" : "mode"];
    m.total += performance.now() - t;
    m.calls++;
    return r.selected.map((s) => s.chunk);
  };
  for (const [i, q] of queries.entries()) {
    const lexical = bm25
      .search(q.text, q.scope ? docs.length : LIMIT)
      .filter((x) => !q.scope || cls.get(x) === q.scope)
      .slice(0, LIMIT);
    scores.get("bm25")?.add(lexical, q.gold);
    scores.get("poe")?.add(await route(q), q.gold);
    for (const mode of ["stable", "discovery", "balanced"]) scores.get(mode)?.add(await route(q, { mode }), q.gold);
    for (const lambda of LAMBDAS) mmr.get(lambda)?.add(await route(q, { mode: "balanced", mmr: true, lambda }), q.gold);
    if ((i + 1) % 40 === 0) log(`  ${name}: asked ${i + 1}/${queries.length}`);
  }
  const rows = methods.map((m) => (scores.get(m) as Scores).summary(m, LABELS[m] ?? m));
  const balanced = rows.find((r) => r.method === "balanced") as MethodRow;
  return {
    key,
    name,
    documents: docs.length,
    queries: queries.length,
    scoped: queries.filter((q) => q.scope).length,
    meanGold: queries.reduce((s, q) => s + q.gold.length, 0) / Math.max(1, queries.length),
    examples: queries.slice(0, 4).map((q) => `${q.text}${q.scope ? ` [${q.scope}]` : ""} (${q.gold.length} gold)`),
    rows,
    mmr: [
      {
        lambda: 1,
        ils10: balanced.ils10,
        recall10: balanced.recall["R@10"] ?? 0,
        recall50: balanced.recall["R@50"] ?? 0,
        mrr: balanced.mrr,
      },
      ...LAMBDAS.map((lambda) => {
        const s = (mmr.get(lambda) as Scores).summary(`mmr-${lambda}`, `balanced + MMR λ ${lambda}`);
        return { lambda, ils10: s.ils10, recall10: s.recall["R@10"] ?? 0, recall50: s.recall["R@50"] ?? 0, mrr: s.mrr };
      }),
    ],
    ingestMs,
    routeMs: {
      poe: ms.poe.total / Math.max(1, ms.poe.calls),
      mode: ms.mode.total / Math.max(1, ms.mode.calls),
      mmr: ms.mmr.total / Math.max(1, ms.mmr.calls),
    },
  };
}

function citeseerDocs(dir: string, read: (f: string) => string | null): Doc[] | null {
  const texts = read(`${dir}/citeseer/citeseer_texts.txt`);
  const cites = read(`${dir}/citeseer/citeseer.cites`);
  if (texts === null || cites === null) return null;
  const lines = texts.split("\n");
  const docs: Doc[] = [];
  for (let i = 0; i + 2 < lines.length; i += 3) {
    const pid = (lines[i] as string).trim();
    const text = (lines[i + 1] as string).trim();
    const label = (lines[i + 2] as string).trim().toLowerCase();
    const stop = text.search(/[.?!]\s/);
    const title = (stop > 0 && stop < 200 ? text.slice(0, stop) : text.slice(0, 80)) || pid;
    docs.push({ id: `cs:${pid}`, title, text: text || pid, field: title, cls: `class:${label}` });
  }
  const known = new Map(docs.map((d) => [d.id, d]));
  for (const l of cites.split("\n")) {
    const [cited, citing] = l.trim().split(/\s+/);
    if (!cited || !citing || cited === citing) continue;
    const from = known.get(`cs:${citing}`);
    if (!from || !known.has(`cs:${cited}`)) continue;
    from.cites = [...new Set([...(from.cites ?? []), `cs:${cited}`])];
  }
  return docs;
}

function unarxiveDocs(dir: string, read: (f: string) => string | null): Doc[] | null {
  const text = read(`${dir}/unarxive/arXiv_src_2212_086.jsonl`);
  if (text === null) return null;
  const seen = new Map<string, Doc>();
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const p = JSON.parse(line) as { bib_entries?: Record<string, { bib_entry_raw?: string; discipline?: string }> };
    for (const e of Object.values(p.bib_entries ?? {})) {
      const raw = (e.bib_entry_raw ?? "").replace(/\s+/g, " ").trim();
      if (raw.length < 20 || seen.has(raw)) continue;
      const discipline = (e.discipline ?? "unknown").toLowerCase().replace(/\s+/g, "-");
      seen.set(raw, {
        id: `bib:${fnv(raw).toString(16)}-${seen.size}`,
        title: raw.slice(0, 1000),
        text: raw,
        field: raw,
        cls: `discipline:${discipline}`,
      });
    }
  }
  return [...seen.values()];
}

export async function rankingEval(
  server: Server,
  data: string,
  read: (f: string) => string | null,
  log: (m: string) => void,
  params?: Record<string, unknown>,
): Promise<RankingEval | null> {
  const sets: RankingSet[] = [];
  const cs = citeseerDocs(data, read);
  if (cs) {
    const q = generateQueries("citeseer", cs, 120, false);
    log(`ranking: CiteSeer, ${cs.length} papers, ${q.length} template queries`);
    sets.push(await runSet(server, "citeseer", "CiteSeer", cs, q, log, params));
  }
  const ua = unarxiveDocs(data, read);
  if (ua) {
    const q = generateQueries("unarxive", ua, 80, true);
    log(`ranking: unArXive bibliography, ${ua.length} references, ${q.length} template queries`);
    sets.push(await runSet(server, "unarxive", "unArXive bibliography", ua, q, log, params));
  }
  if (!sets.length) return null;
  return {
    sets,
    generator:
      "topic phrase = an adjacent pair of non-stop-words (≥ 3 letters, not numbers) from a title (CiteSeer) or a reference string's lower-case words (unArXive) occurring in 2-15 documents, chosen by FNV-1a hash order; template by hash mod 4 ({p} / papers on {p} / research about {p} / what has been published on {p}); every third query scoped to the class most of its gold carries; gold = the documents whose title field contains the phrase",
  };
}
