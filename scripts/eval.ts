/**
 * `npm run eval -- --data ../shared/testdata`: retrieval quality through the public HTTP API of a
 * throwaway local Worker (run from a snapshot of the working tree taken at start, or of a commit
 * with `--ref <commit>`), with the baselines computed on the same documents in the same run.
 * Skips cleanly when the data is absent. Writes bench/results/eval-latest.json (`--out <file>` to
 * write elsewhere; runs with `--only` write bench/results/eval-partial.json) and prints a summary.
 *
 * Headline rows ingest plain text as a user would: one artifact per passage or conversation turn
 * with only id, kind, title and content (and valid_from where the data has dates); no entities, no
 * edges. The HotpotQA archive with harness-built structure (title-mention entities and `cites`
 * edges) is a separate, labelled row. Questions carry no session id, so no ranking depends on the
 * order in which questions are asked.
 *
 * Sets: HotpotQA (100 questions, 994 passages; /route and /context at 4,000 tokens), HotpotQA with
 * the 6,119 2WikiMultihopQA passages as distractors, LoCoMo conversations (evidence-turn recall by
 * category, adversarial category 5 excluded; turns as records at their own time, and again as notes
 * dated by their session), single-hop NQ-open (simpleqa/), SciFact claims and PubMedQA questions
 * (sciqa/), CiteSeer citation recovery, unArXive per-node references (citing sentences -> the works
 * they cite, over the archive the full-text import builds from the 49 papers); then the staleness,
 * unarXive import and provenance checks (scripts/lib/checks.ts).
 *
 * Every archive built is then dumped to JSON, imported into a new archive and imported again (the
 * dump must be lossless and a second import a no-op).
 *
 * Options: --only <keys> (comma list of hotpotqa, 2wiki, locomo, locomo-note, simpleqa, sciqa, citeseer, unarxive-refs, unarxive, staleness, roundtrip, xkg, projectguard, sgmc, ranking, papers,
 *   retrieval-metrics, pdf-references, discovery-dedup, rerank-mock),
 * --params '{"alpha":0.5}' (kernel overrides for the evaluated archives), --ref <commit>,
 * --out <file>, --context-before (record this run's /context figure as the "before" value), and a
 * model endpoint: --distiller / --extractor / --embedder with --llm-base-url, --llm-model, ... (see
 * MODEL_FLAGS below).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { PaperGuruClient } from "../src/client";
import { slug } from "../src/core/ids";
import { BASELINES, type Doc, rankAll } from "./lib/baselines";
import { dumpRoundTrip, staleness, syntheticStaleness, unarxive, wikipediaStaleness } from "./lib/checks";
import {
  type Conversation,
  firstSentenceTitle,
  loadCiteSeer,
  loadHotpot,
  loadLocomo,
  loadSciQa,
  loadSimpleQa,
  loadTwoWiki,
  loadUnarxiveRefs,
  type Passage,
  type QaSet,
  type Question,
  sessionDates,
  shuffled,
  type UnarxiveRefs,
} from "./lib/datasets";
import { discoveryDedupEval } from "./lib/discovery-eval";
import { projectGuardEval } from "./lib/eval-projectguard";
import { papersEval } from "./lib/papers-eval";
import { pdfReferencesEval } from "./lib/pdf-references-eval";
import { rankingEval } from "./lib/ranking-eval";
import { rerankEval } from "./lib/rerank-eval";
import {
  type ContextFigure,
  type EvalResults,
  type EvalSet,
  type MetricRow,
  machine,
  strongerBm25,
  targets,
} from "./lib/results";
import { retrievalMetricsEval } from "./lib/retrieval-metrics";
import { harnessFetch, runtimeRestarts, type Server, startServer } from "./lib/server";
import { sgmcEval } from "./lib/sgmc";
import { xkgRetrieval } from "./lib/xkg-retrieval";
import { xkgRoundTrip } from "./lib/xkg-roundtrip";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const data = opt("--data") ?? "../shared/testdata";
const only = opt("--only")?.split(",");
const ref = opt("--ref");
/** Kernel parameter overrides for the evaluated archives, e.g. --params '{"alpha":0.5}'. */
const params = opt("--params") ? (JSON.parse(opt("--params") as string) as Record<string, number>) : undefined;
/**
 * A model endpoint for the evaluated Worker (docs/models.md): --distiller openai|anthropic|workers-ai,
 * --extractor ..., --embedder openai, with --llm-base-url, --llm-model, --embedding-base-url,
 * --embedding-model, --embedding-dims; keys from LLM_API_KEY / EMBEDDING_API_KEY in the environment
 * (never a flag: shells keep history). A local server (127.0.0.1, localhost) is allowed as an
 * outbound host. Such a run writes bench/results/eval-model.json unless --out says otherwise: the
 * tables in docs/ stay the deterministic default's.
 */
const MODEL_FLAGS: Record<string, string> = {
  "--distiller": "DISTILLER",
  "--extractor": "EXTRACTOR",
  "--embedder": "EMBEDDER",
  "--llm-base-url": "LLM_BASE_URL",
  "--llm-model": "LLM_MODEL",
  "--llm-max-tokens-per-query": "LLM_MAX_TOKENS_PER_QUERY",
  "--embedding-base-url": "EMBEDDING_BASE_URL",
  "--embedding-model": "EMBEDDING_MODEL",
  "--embedding-dims": "EMBEDDING_DIMS",
};
const modelVars: Record<string, string> = {};
for (const [flag, name] of Object.entries(MODEL_FLAGS)) {
  const v = opt(flag);
  if (v !== undefined) modelVars[name] = v;
}
for (const name of ["LLM_API_KEY", "EMBEDDING_API_KEY"]) {
  const v = process.env[name];
  if (v && Object.keys(modelVars).length) modelVars[name] = v;
}
const modelRun = Object.keys(modelVars).length > 0;
/** Hosts of the model URLs that are this machine (a local vLLM, Ollama or the mock): allowed outbound. */
const localHosts = [modelVars.LLM_BASE_URL, modelVars.EMBEDDING_BASE_URL]
  .filter((u): u is string => !!u)
  .map((u) => new URL(u).hostname)
  .filter((h) => h === "127.0.0.1" || h === "localhost" || h === "::1" || h === "[::1]");
const LATEST = "bench/results/eval-latest.json";
const out =
  opt("--out") ??
  (modelRun ? "bench/results/eval-model.json" : only || params ? "bench/results/eval-partial.json" : LATEST);
const wants = (key: string) => !only || only.includes(key);

const BUDGET = 4000;
const BATCH = 200;

const log = (msg: string) => process.stderr.write(`${msg}\n`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const int = (x: number) => Math.round(x).toLocaleString("en");

// ------------------------------------------------------------------ metrics

/** Recall@k of gold ids in a ranked list (duplicates after the first occurrence ignored). */
function recallAt(ranked: string[], gold: string[], ks: number[]): Record<string, number> {
  const seen: string[] = [];
  for (const id of ranked) if (!seen.includes(id)) seen.push(id);
  const out: Record<string, number> = {};
  for (const k of ks) {
    const top = new Set(seen.slice(0, k));
    out[`R@${k}`] = gold.filter((g) => top.has(g)).length / gold.length;
  }
  return out;
}

function meanRecall(rs: Array<Record<string, number>>, ks: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of ks) out[`R@${k}`] = rs.reduce((s, r) => s + (r[`R@${k}`] ?? 0), 0) / Math.max(1, rs.length);
  return out;
}

/** Accumulates per-question recall for several methods. */
class Tally {
  private readonly by = new Map<string, Array<Record<string, number>>>();
  constructor(readonly ks: number[]) {}
  add(method: string, ranked: string[], gold: string[]) {
    const list = this.by.get(method) ?? [];
    list.push(recallAt(ranked, gold, this.ks));
    this.by.set(method, list);
  }
  mean(method: string) {
    return meanRecall(this.by.get(method) ?? [], this.ks);
  }
}

const LABELS: Record<string, [string, MetricRow["role"]]> = {
  bm25: ["BM25 (wink, k1 = 1.2, b = 0.75, stemmed)", "baseline"],
  "bm25-title2": ["BM25 (wink, same, title field weight 2)", "baseline"],
  minisearch: ["BM25 (minisearch defaults)", "baseline"],
  dense: ["dense (hashed embedder, full text, brute force)", "baseline"],
  route: ["PaperGuru /route", "paperguru"],
  context: [`PaperGuru /context (cards in order, ${BUDGET.toLocaleString("en")} tokens)`, "paperguru"],
  "route-structure": ["PaperGuru /route, caller-supplied structure (harness-built entities and edges)", "structure"],
  "context-structure": [
    "PaperGuru /context, caller-supplied structure (harness-built entities and edges)",
    "structure",
  ],
};

function metricRow(method: string, recall: Record<string, number>, extra: Partial<MetricRow> = {}): MetricRow {
  const [label, role] = LABELS[method] ?? [method, "baseline"];
  return { method, label, role, recall, ...extra };
}

// ------------------------------------------------------------------ PaperGuru through the API

interface Archive {
  id: string;
  pg: PaperGuruClient;
}

interface PlainArtifact {
  id: string;
  kind: "note" | "record" | "paper";
  title: string;
  content: string;
  valid_from?: string;
  entities?: Array<{ type: "concept"; id: string; name: string }>;
  edges?: Array<{ type: "cites"; target: string; weight?: number }>;
}

/** Every archive the evaluation builds, for the dump round trip at the end. */
const built: Array<{ name: string; archive: Archive }> = [];

async function newArchive(server: Server, name: string): Promise<Archive> {
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `eval-${slug(name).slice(0, 24)}-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name, params });
  const archive = { id, pg: admin.withKey(created.key.secret) };
  built.push({ name, archive });
  return archive;
}

/** Ingest in batches of 200, sequentially; returns wall time in ms. */
async function ingestAll(a: Archive, arts: PlainArtifact[], label: string): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < arts.length; i += BATCH) {
    await a.pg.ingest(a.id, { artifacts: arts.slice(i, i + BATCH) });
    const done = Math.min(arts.length, i + BATCH);
    if (done === arts.length || (done / BATCH) % 10 === 0)
      log(`  ${label}: ingested ${done}/${arts.length} (${secs(performance.now() - t0)})`);
  }
  return performance.now() - t0;
}

/** The artifact ids /route selected, in order (chunk ids are artifact ids; `#` parts folded). */
async function routeIds(a: Archive, query: string, limit: number): Promise<{ ids: string[]; ms: number }> {
  const t = performance.now();
  const r = await a.pg.route(a.id, { query, limit });
  return { ids: r.selected.map((s) => s.chunk.split("#")[0] as string), ms: performance.now() - t };
}

type Anchor = { artifact_id: string; version: number; start: number; end: number; snippet: string };

interface ContextRun {
  ids: string[];
  cards: number;
  tokens: number;
  anchors: Anchor[];
}

/** Cards per distiller over every /context of the run (a model run shows how many fell back). */
const cardsByDistiller: Record<string, number> = {};
/** What a model distiller spent over the run (trace.model summed). */
const modelSpent = { inputTokens: 0, outputTokens: 0, requests: 0, fallbacks: 0 };

async function contextIds(a: Archive, query: string): Promise<ContextRun> {
  const c = await a.pg.context(a.id, { query, budget_tokens: BUDGET, include_trace: true });
  for (const x of c.cards) cardsByDistiller[x.distiller] = (cardsByDistiller[x.distiller] ?? 0) + 1;
  const model = c.trace?.model;
  if (model) {
    modelSpent.inputTokens += model.input_tokens;
    modelSpent.outputTokens += model.output_tokens;
    modelSpent.requests += model.requests;
    modelSpent.fallbacks += model.fallbacks;
  }
  return {
    ids: c.cards.map((x) => x.artifact_id),
    cards: c.cards.length,
    tokens: c.cards.reduce((s, x) => s + x.tokens, 0),
    anchors: c.cards.flatMap((x) => x.anchored_spans),
  };
}

const verifiers: Array<{ a: Archive; anchors: Anchor[] }> = [];

function plain(p: Passage, kind: PlainArtifact["kind"]): PlainArtifact {
  return { id: p.id, kind, title: p.title, content: p.text };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Harness-built structure (the separate row): each passage's title becomes a concept entity; a
 * passage whose text names another passage's title (case-sensitive, whole words, titles of 3+
 * characters) also gets that title as an entity and a `cites` edge to that passage.
 */
function structured(passages: Passage[]): PlainArtifact[] {
  const ids = new Map(passages.map((p) => [p.title, p.id]));
  const titles = [...ids.keys()].filter((t) => t.length >= 3).sort((a, b) => b.length - a.length);
  const res = titles.map((t) => [t, new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRe(t)}($|[^\\p{L}\\p{N}])`, "u")] as const);
  return passages.map((p, i) => {
    const mentioned = res.filter(([t, re]) => t !== p.title && re.test(p.text)).map(([t]) => t);
    return {
      ...plain(p, "note"),
      entities: [p.title, ...mentioned].map((t) => ({
        type: "concept" as const,
        id: `concept:${slug(t) || i}`,
        name: t,
      })),
      edges: mentioned.map((t) => ({ type: "cites" as const, target: ids.get(t) as string, weight: 1 })),
    };
  });
}

const docs = (ps: Passage[]): Doc[] => ps.map((p) => ({ id: p.id, title: p.title, text: p.text }));

/** Adds the baselines' rankings (from rankAll, in question order) to a tally. */
function addBaselines(
  ranked: Record<string, string[][]>,
  questions: Question[],
  tally: Tally,
  filter: (i: number, ids: string[]) => string[] = (_, ids) => ids,
) {
  for (const m of BASELINES)
    for (const [i, q] of questions.entries()) tally.add(m, filter(i, ranked[m]?.[i] ?? []), q.gold);
}

// ------------------------------------------------------------------ sets

let contextNow: ContextFigure | null = null;

async function hotpot(server: Server, hp: { passages: Passage[]; questions: Question[] }): Promise<EvalSet> {
  const t0 = performance.now();
  const ks = [2, 5, 10];
  log(`HotpotQA: ${hp.passages.length} passages, ${hp.questions.length} questions`);
  const plainA = await newArchive(server, "HotpotQA plain text");
  const ranked = rankAll(
    docs(hp.passages),
    hp.questions.map((q) => q.question),
    10,
  );
  const ingestMs = await ingestAll(
    plainA,
    hp.passages.map((p) => plain(p, "note")),
    "plain",
  );
  const structA = await newArchive(server, "HotpotQA harness structure");
  const structArts = structured(hp.passages);
  await ingestAll(structA, structArts, "structure");
  const tally = new Tally(ks);
  addBaselines(await ranked, hp.questions, tally);
  let routeMs = 0;
  let cards = 0;
  let tokens = 0;
  const anchors: Anchor[] = [];
  const structAnchors: Anchor[] = [];
  for (const [i, q] of hp.questions.entries()) {
    const r = await routeIds(plainA, q.question, 10);
    routeMs += r.ms;
    tally.add("route", r.ids, q.gold);
    const c = await contextIds(plainA, q.question);
    tally.add("context", c.ids, q.gold);
    cards += c.cards;
    tokens += c.tokens;
    anchors.push(...c.anchors);
    tally.add("route-structure", (await routeIds(structA, q.question, 10)).ids, q.gold);
    const cs = await contextIds(structA, q.question);
    tally.add("context-structure", cs.ids, q.gold);
    structAnchors.push(...cs.anchors);
    if ((i + 1) % 25 === 0) log(`  asked ${i + 1}/${hp.questions.length} (${secs(performance.now() - t0)})`);
  }
  verifiers.push({ a: plainA, anchors }, { a: structA, anchors: structAnchors });
  const n = hp.questions.length;
  const contextRow = metricRow("context", tally.mean("context"), {
    cardsPerContext: cards / n,
    tokensPerContext: tokens / n,
  });
  contextNow = {
    cardsPerContext: cards / n,
    recall5: contextRow.recall["R@5"] ?? 0,
    date: new Date().toISOString(),
    commit: server.source?.commit ?? "unknown",
    source: server.source ?? null,
  };
  return {
    key: "hotpotqa",
    name: "HotpotQA",
    description: `${n} questions over ${int(hp.passages.length)} passages; gold = the supporting passages; recall of gold passages.`,
    ks,
    size: {
      passages: hp.passages.length,
      questions: n,
      harnessEdges: structArts.reduce((s, a) => s + (a.edges?.length ?? 0), 0),
    },
    rows: [
      ...[...BASELINES, "route"].map((m) => metricRow(m, tally.mean(m))),
      contextRow,
      metricRow("route-structure", tally.mean("route-structure")),
      metricRow("context-structure", tally.mean("context-structure")),
    ],
    timings: {
      ingestMs,
      ingestChunksPerS: (1000 * hp.passages.length) / ingestMs,
      routeMsPerQuery: routeMs / n,
      totalMs: performance.now() - t0,
    },
    notes: [
      "Each passage is one `note` artifact with id, kind, title and content only.",
      `The structure rows use a second archive with harness-built title-mention entities and ${structArts.reduce((s, a) => s + (a.edges?.length ?? 0), 0)} \`cites\` edges.`,
    ],
  };
}

async function hotpotDistractors(
  server: Server,
  hp: { passages: Passage[]; questions: Question[] },
  wiki: Passage[],
): Promise<EvalSet> {
  const t0 = performance.now();
  const ks = [2, 5, 10];
  const all = shuffled([...hp.passages, ...wiki], 20_240_601);
  log(`HotpotQA + 2Wiki distractors: ${all.length} passages, ${hp.questions.length} questions`);
  const a = await newArchive(server, "HotpotQA with 2Wiki distractors");
  const ranked = rankAll(
    docs(all),
    hp.questions.map((q) => q.question),
    10,
  );
  const ingestMs = await ingestAll(
    a,
    all.map((p) => plain(p, "note")),
    "plain",
  );
  const tally = new Tally(ks);
  addBaselines(await ranked, hp.questions, tally);
  let routeMs = 0;
  for (const q of hp.questions) {
    const r = await routeIds(a, q.question, 10);
    routeMs += r.ms;
    tally.add("route", r.ids, q.gold);
  }
  const n = hp.questions.length;
  return {
    key: "hotpotqa-2wiki",
    name: "HotpotQA + 2Wiki distractors",
    description: `The ${n} HotpotQA questions over its ${int(hp.passages.length)} passages plus ${int(wiki.length)} 2WikiMultihopQA passages in one archive (${int(all.length)} passages, ingest order shuffled).`,
    ks,
    size: { passages: all.length, distractors: wiki.length, questions: n },
    rows: [...BASELINES, "route"].map((m) => metricRow(m, tally.mean(m))),
    timings: {
      ingestMs,
      ingestChunksPerS: (1000 * all.length) / ingestMs,
      routeMsPerQuery: routeMs / n,
      totalMs: performance.now() - t0,
    },
    notes: ["Plain text only: one `note` artifact per passage."],
  };
}

/**
 * A single-hop set over its own corpus (simpleqa/, sciqa/): one artifact per passage with title and
 * content (an untitled abstract gets its first sentence as title, as a user without one would).
 */
async function qaSet(
  server: Server,
  key: EvalSet["key"],
  name: string,
  qa: QaSet,
  kind: PlainArtifact["kind"],
  description: string,
): Promise<EvalSet> {
  const t0 = performance.now();
  const ks = [1, 2, 5, 10];
  log(`${name}: ${qa.passages.length} passages, ${qa.questions.length} questions`);
  const passages = qa.passages.map((p) => ({ ...p, title: p.title || firstSentenceTitle(p.text, p.id) }));
  const a = await newArchive(server, name);
  const ranked = rankAll(
    docs(passages),
    qa.questions.map((q) => q.question),
    10,
  );
  const ingestMs = await ingestAll(
    a,
    passages.map((p) => plain(p, kind)),
    key,
  );
  const tally = new Tally(ks);
  addBaselines(await ranked, qa.questions, tally);
  let routeMs = 0;
  for (const q of qa.questions) {
    const r = await routeIds(a, q.question, 10);
    routeMs += r.ms;
    tally.add("route", r.ids, q.gold);
  }
  const n = qa.questions.length;
  return {
    key,
    name,
    description,
    ks,
    size: { passages: passages.length, questions: n },
    rows: [...BASELINES, "route"].map((m) => metricRow(m, tally.mean(m))),
    timings: {
      ingestMs,
      ingestChunksPerS: (1000 * passages.length) / ingestMs,
      routeMsPerQuery: routeMs / n,
      totalMs: performance.now() - t0,
    },
    notes: [`Plain text only: one \`${kind}\` artifact per passage with title and content.`],
  };
}

/**
 * Citation contexts over the unArXive sample (scripts/lib/datasets.ts, loadUnarxiveRefs): the 49
 * papers imported as a user stores them (`POST /import?format=fulltext`, 5 papers per request; the
 * import derives the papers, sections, elements, the cited works and the `cites` edges), each question
 * a body sentence with its citation markers removed, gold = the chunks of the works it cites. The
 * section chunk holding the sentence is dropped from every ranking before scoring (as the dev suite's
 * `exclude`), so each method is asked for one more result. Gold ids are the parser's names checked
 * against what the import stored: a question whose cited work the import renamed or merged another
 * record into (its `merges`), or that is not a stored chunk, is left out and counted. The baselines
 * index the stored chunks' title and content, read back through the API.
 */
async function unarxiveRefs(server: Server, ua: UnarxiveRefs): Promise<EvalSet> {
  const t0 = performance.now();
  const ks = [1, 2, 5, 10];
  const limit = Math.max(...ks) + 1;
  log(`unArXive per-node references: ${ua.records.length} papers, ${ua.questions.length} questions`);
  const a = await newArchive(server, "unArXive per-node references");
  const merged = new Set<string>();
  let created = 0;
  const ti = performance.now();
  for (let i = 0; i < ua.records.length; i += 5) {
    const r = await a.pg.importText(a.id, "fulltext", ua.records.slice(i, i + 5).join("\n"), `unarxive-${i}.jsonl`);
    created += r.counts.created;
    for (const m of r.merges) merged.add(m.from).add(m.into);
  }
  const ingestMs = performance.now() - ti;
  log(`  imported ${created} chunks (${secs(ingestMs)}); reading them back`);
  const stored: Array<{ id: string; title: string }> = [];
  let papers = 0;
  for await (const c of a.pg.allChunks(a.id)) {
    stored.push({ id: c.id, title: c.title });
    if (c.kind === "paper") papers++;
  }
  const docs: Doc[] = [];
  for (let i = 0; i < stored.length; i += 16)
    docs.push(
      ...(await Promise.all(
        stored
          .slice(i, i + 16)
          .map(async (c) => ({ id: c.id, title: c.title, text: (await a.pg.content(a.id, c.id)).text })),
      )),
    );
  const ids = new Set(docs.map((d) => d.id));
  const kept = (id: string) => ids.has(id) && !merged.has(id);
  const questions = ua.questions.filter((q) => ids.has(q.exclude) && q.gold.every(kept));
  const dropped = ua.questions.length - questions.length;
  const ranked = await rankAll(
    docs,
    questions.map((q) => q.question),
    limit,
  );
  const methods = [...BASELINES, "route"];
  const rows = new Map<string, Array<Record<string, number>>>(methods.map((m) => [m, []]));
  const add = (m: string, i: number, list: string[]) => {
    const q = questions[i] as (typeof questions)[number];
    const r = list.filter((x) => x !== q.exclude);
    const first = r.findIndex((x) => q.gold.includes(x));
    rows.get(m)?.push({ ...recallAt(r, q.gold, ks), MRR: first < 0 ? 0 : 1 / (first + 1) });
  };
  for (const m of BASELINES) for (const i of questions.keys()) add(m, i, ranked[m][i] ?? []);
  let routeMs = 0;
  for (const [i, q] of questions.entries()) {
    const t = performance.now();
    const r = await a.pg.route(a.id, { query: q.question, limit });
    routeMs += performance.now() - t;
    // Chunk ids kept whole: a section's id is its paper's id + `#s<n>-<heading>`.
    add(
      "route",
      i,
      r.selected.map((x) => x.chunk),
    );
  }
  const mean = (list: Array<Record<string, number>>, key: string) =>
    list.reduce((sum, x) => sum + (x[key] ?? 0), 0) / Math.max(1, list.length);
  const n = questions.length;
  const c = ua.counts;
  return {
    key: "unarxive-refs",
    name: "unArXive per-node references",
    description: `${n} citing sentences of the ${ua.records.length} unArXive papers (deterministic sample, ${c.papersInSample} papers) over the archive their full-text import builds (${int(docs.length)} chunks: papers, sections, figures, tables, equations and one \`paper\` chunk per cited work); query = the sentence without its citation markers, gold = the works it cites, the sentence's own section excluded from every ranking; recall of the cited works and MRR.`,
    ks,
    size: {
      papers: ua.records.length,
      chunks: docs.length,
      questions: n,
      eligible: c.eligible ?? 0,
      droppedAfterImport: dropped,
    },
    rows: methods.map((m) => {
      const list = rows.get(m) ?? [];
      return metricRow(m, Object.fromEntries(ks.map((k) => [`R@${k}`, mean(list, `R@${k}`)])), {
        mrr: mean(list, "MRR"),
      });
    }),
    timings: {
      ingestMs,
      ingestChunksPerS: (1000 * created) / ingestMs,
      routeMsPerQuery: routeMs / Math.max(1, n),
      totalMs: performance.now() - t0,
    },
    notes: [
      `Sentences are cut by the product's splitSentences on the paragraph text with its \`{{…}}\` placeholders removed; a citation trailing a sentence counts for it. Of ${int(c.citeSpans ?? 0)} cite spans, ${int(c.spansUnusableEntry ?? 0)} point to bibliography entries with neither an identifier nor a title (the importer makes no chunk of them), ${int(c.spansNoEntry ?? 0)} to no entry and ${int(c.spansSelf ?? 0)} to the citing paper itself. Of ${int(c.sentencesWithCites ?? 0)} sentences with a cite span, ${int(c.sentencesNoWork ?? 0)} cite no work that became a chunk, ${int(c.sentencesShort ?? 0)} are under 5 words without the markers, and ${int(c.sentencesMergedWork ?? 0)} cite a work the import merges with another record of the same identifier or title (the stored chunk is then another record's); ${int(c.eligible ?? 0)} remain, sampled round robin over the papers (seeded). ${dropped} sampled questions left out because the import stored a cited work under another chunk.`,
      `The chunk ids are the importer's: the section chunk \`<paper>#s<n>-<heading>\`, the works \`arxiv:\`, \`doi:\`, \`openalex:\` or \`paper:<title slug>\` (${int(papers)} \`paper\` chunks stored: the ${ua.records.length} papers and the works their bibliographies name). Every ranking asks for ${limit} results and drops the query's own section before scoring.`,
    ],
  };
}

const CATEGORY: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };

/**
 * LoCoMo, one archive per conversation. `record`: every turn a record at its own time (the README's
 * way); `note`: every turn a note dated by its session.
 */
async function conversations(server: Server, convs: Conversation[], kind: "record" | "note"): Promise<EvalSet> {
  const t0 = performance.now();
  const ks = [5, 10, 20];
  const methods = [...BASELINES, "route"];
  const overall = new Tally(ks);
  const byCat = new Map<number, { tally: Tally; n: number }>();
  let ingestMs = 0;
  let routeMs = 0;
  let turns = 0;
  let asked = 0;
  for (const c of convs) {
    log(`Conversation ${c.id}: ${c.turns.length} turns, ${c.questions.length} questions`);
    const a = await newArchive(server, `LoCoMo ${c.id}${kind === "note" ? " notes" : ""}`);
    const session = sessionDates(c);
    const ranked = rankAll(
      docs(c.turns),
      c.questions.map((q) => q.question),
      20,
    );
    ingestMs += await ingestAll(
      a,
      c.turns.map((t) => ({
        ...plain(t, kind),
        valid_from: new Date(kind === "record" ? t.at : (session.get(t.id) ?? t.at)).toISOString(),
      })),
      c.id,
    );
    turns += c.turns.length;
    const base = await ranked;
    for (const [i, q] of c.questions.entries()) {
      const cat = q.category ?? 0;
      const g = byCat.get(cat) ?? { tally: new Tally(ks), n: 0 };
      g.n++;
      byCat.set(cat, g);
      for (const m of BASELINES) {
        const ids = base[m][i] ?? [];
        overall.add(m, ids, q.gold);
        g.tally.add(m, ids, q.gold);
      }
      const r = await routeIds(a, q.question, 20);
      routeMs += r.ms;
      overall.add("route", r.ids, q.gold);
      g.tally.add("route", r.ids, q.gold);
      asked++;
    }
  }
  const unmatched = convs.flatMap((c) => c.unmatchedEvidence);
  return {
    key: kind === "record" ? "locomo" : "locomo-note",
    name: kind === "record" ? "Conversations (LoCoMo)" : "Conversations (LoCoMo), turns as notes",
    description:
      kind === "record"
        ? `${convs.length} conversations (${int(turns)} turns), one archive each; every turn is a \`record\` at its own time (its session's date + 1 minute per turn). ${asked} questions of categories 1-4; gold = the evidence turns; recall of evidence turns.`
        : `The same ${convs.length} conversations with every turn stored as a \`note\` dated by its session. ${asked} questions of categories 1-4; recall of evidence turns.`,
    ks,
    size: {
      conversations: convs.length,
      turns,
      questions: asked,
      adversarialExcluded: convs.reduce((s, c) => s + c.adversarial, 0),
      evidenceNormalised: convs.reduce((s, c) => s + c.normalised, 0),
      evidenceUnmatched: unmatched.length,
      questionsWithoutGold: convs.reduce((s, c) => s + c.questionsWithoutGold, 0),
    },
    rows: methods.map((m) => metricRow(m, overall.mean(m))),
    groups: [...byCat.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([cat, g]) => ({
        key: `category-${cat}`,
        label: `${cat} ${CATEGORY[cat] ?? ""}`.trim(),
        questions: g.n,
        rows: methods.map((m) => metricRow(m, g.tally.mean(m))),
      })),
    timings: {
      ingestMs,
      ingestChunksPerS: (1000 * turns) / ingestMs,
      routeMsPerQuery: routeMs / Math.max(1, asked),
      totalMs: performance.now() - t0,
    },
    notes: [
      'Turn title "<speaker>, <session date>", content "<speaker>: <text>" plus " [shared a photo: <caption>]" when the turn has an image caption.',
      `Category 5 (adversarial, ${convs.reduce((s, c) => s + c.adversarial, 0)} questions) is excluded: those questions are built to be unanswerable from the conversation.`,
      `Evidence ids normalised: ${convs.reduce((s, c) => s + c.normalised, 0)} (e.g. "D8:6; D9:17" -> D8:6, D9:17); unmatched: ${unmatched.length}${unmatched.length ? ` (${unmatched.slice(0, 5).join(", ")})` : ""}; questions without evidence: ${convs.reduce((s, c) => s + c.questionsWithoutGold, 0)} (excluded).`,
    ],
  };
}

async function citeseer(server: Server, dir: string): Promise<EvalSet | null> {
  const cs = loadCiteSeer(dir);
  if (!cs) return null;
  const t0 = performance.now();
  const ks = [2, 5, 10];
  const key = (id: string) => `cs:${id}`;
  const passages: Passage[] = cs.papers.map((p) => ({
    id: key(p.id),
    title: firstSentenceTitle(p.text, p.id),
    text: p.text || p.id,
  }));
  const arts: PlainArtifact[] = passages.map((p) => {
    const pid = p.id.slice(3);
    return {
      ...plain(p, "paper"),
      edges: cs.held.has(pid)
        ? []
        : [...(cs.cites.get(pid) ?? [])].map((c) => ({ type: "cites" as const, target: key(c) })),
    };
  });
  log(`CiteSeer: ${arts.length} papers, ${cs.held.size} held out`);
  const textOf = new Map(cs.papers.map((p) => [p.id, p.text]));
  const questions: Array<Question & { self: string }> = [...cs.held].map(([pid, gold]) => ({
    question: (textOf.get(pid) ?? "").slice(0, 8000),
    gold: [...gold].map(key),
    self: key(pid),
  }));
  const a = await newArchive(server, "CiteSeer");
  const ranked = rankAll(
    docs(passages),
    questions.map((q) => q.question),
    11,
  );
  const ingestMs = await ingestAll(a, arts, "papers");
  const tally = new Tally(ks);
  addBaselines(await ranked, questions, tally, (i, ids) => ids.filter((x) => x !== questions[i]?.self));
  let routeMs = 0;
  for (const { question: query, gold: g, self } of questions) {
    const r = await routeIds(a, query, 11);
    routeMs += r.ms;
    tally.add(
      "route",
      r.ids.filter((x) => x !== self),
      g,
    );
  }
  const n = cs.held.size;
  const citations = [...cs.cites.values()].reduce((s, c) => s + c.size, 0);
  return {
    key: "citeseer",
    name: "CiteSeer citation recovery",
    description: `${int(cs.papers.length)} papers, ${int(citations)} in-corpus citations; ${n} papers citing ≥ 3 others lose their outgoing \`cites\` edges and are queried with their own text; recall of the papers they cite (the paper itself excluded).`,
    ks,
    size: { papers: cs.papers.length, citations, heldOut: n },
    rows: [...BASELINES, "route"].map((m) => metricRow(m, tally.mean(m))),
    timings: {
      ingestMs,
      ingestChunksPerS: (1000 * arts.length) / ingestMs,
      routeMsPerQuery: routeMs / n,
      totalMs: performance.now() - t0,
    },
    notes: [
      "Each paper is a `paper` artifact (title = its text up to the first full stop, where the paper title runs into the abstract; content = its whole text: title, abstract, start of the introduction) with its citations as `cites` edges, which is what a user storing papers has; the held-out papers' edges are withheld.",
    ],
  };
}

// ------------------------------------------------------------------ summary

const pct = (x: number | undefined) => (x === undefined ? "-" : (x * 100).toFixed(1));

function summary(r: EvalResults): string {
  const lines: string[] = [];
  lines.push(
    `\nPaperGuru eval ${r.date.slice(0, 10)}, commit ${r.commit}${r.source?.dirtyHash ? ` + uncommitted ${r.source.dirtyHash} (${r.source.dirty.length} files)` : ""}, ${r.machine.cores} cores, ${secs(r.durationMs)}`,
  );
  lines.push("| set | method | R@k | vs strongest BM25 | cards/ctx |");
  lines.push("|---|---|---|---|---|");
  const emit = (set: string, rows: MetricRow[], ks: number[]) => {
    for (const row of rows) {
      const vs =
        row.role === "baseline"
          ? ""
          : ks
              .map((k) => {
                const b = strongerBm25(rows, `R@${k}`);
                const v = row.recall[`R@${k}`];
                if (!b || v === undefined) return "-";
                const d = (v - b.value) * 100;
                return `${d >= 0 ? "+" : ""}${d.toFixed(1)}`;
              })
              .join(" / ");
      const rk = `${ks.map((k) => `${k}: ${pct(row.recall[`R@${k}`])}`).join(", ")}${row.mrr !== undefined ? `, MRR ${row.mrr.toFixed(3)}` : ""}`;
      lines.push(
        `| ${set} | ${row.label} | ${rk} | ${vs} | ${row.cardsPerContext !== undefined ? row.cardsPerContext.toFixed(1) : ""} |`,
      );
    }
  };
  for (const s of r.sets) {
    emit(s.name, s.rows, s.ks);
    for (const g of s.groups ?? []) emit(`${s.name}, cat. ${g.label} (${g.questions} q)`, g.rows, s.ks);
  }
  for (const t of r.roundTrips ?? [])
    lines.push(
      `dump round trip, ${t.archive}: ${t.chunks} chunks, first import ${t.firstFailures} failures / ${t.firstMismatches} hash mismatches, same dump: ${t.sameDump}, second import: ${t.secondCreated} created or updated, ${t.secondFailures} failures, storage unchanged: ${t.storageUnchanged}`,
    );
  lines.push("\n| set | ingest chunks/s | /route ms/q | total |\n|---|---|---|---|");
  for (const s of r.sets)
    lines.push(
      `| ${s.name} | ${s.timings.ingestChunksPerS.toFixed(0)} | ${s.timings.routeMsPerQuery.toFixed(1)} | ${secs(s.timings.totalMs)} |`,
    );
  const st = r.staleness;
  if (st.s2orc)
    lines.push(
      `\nstaleness, s2orc README (${st.s2orc.stored} revisions, ${st.s2orc.asked} as-of questions): PaperGuru ${pct(st.s2orc.pgStale)}%, version-blind BM25 ${pct(st.s2orc.blindStale)}%`,
    );
  if (st.wikipedia)
    lines.push(
      `staleness, Wikipedia (${st.wikipedia.articles} articles): PaperGuru ${pct(st.wikipedia.pgStale)}% (${st.wikipedia.pgMissed} not retrieved), version-blind BM25 ${pct(st.wikipedia.blindStale)}%`,
    );
  for (const s of st.synthetic)
    lines.push(
      `staleness, synthetic rho=${s.rho}: PaperGuru ${pct(s.pgStale)}%, version-blind ${pct(s.blindStale)}%, bound ${pct(s.bound)}%`,
    );
  const ua = r.unarxive as Record<string, number> | null;
  if (ua)
    lines.push(
      `unarXive import: ${ua.papers} papers -> ${ua.chunks} chunks in ${secs(ua.importMs ?? 0)}; ids resolve to one entity for ${ua.consistent}/${ua.checked} entries, ${ua.worksOneEntity}/${ua.works} works; export replay same routes ${ua.sameRoutes}/${ua.routeQueries}`,
    );
  for (const c of r.sgmc?.convergence ?? []) {
    const f = c.f1;
    lines.push(
      `SGMC convergence, ${c.name}: ${c.documents} documents, ${c.pairs} consecutive pairs, ROUGE-1 F1 min ${f.min.toFixed(3)} p25 ${f.p25.toFixed(3)} median ${f.median.toFixed(3)} p75 ${f.p75.toFixed(3)} max ${f.max.toFixed(3)}; API = core on ${c.agree}/${c.pairs}`,
    );
    for (const s of c.stops)
      lines.push(
        `  eps ${s.epsilon}, t_max ${s.tMax}: stopped ${s.stopped}/${s.documents} (similar ${s.bySimilar}, t_max ${s.byTMax}), t* median ${s.stop ? s.stop.median : "-"}, histogram ${JSON.stringify(s.histogram)}`,
      );
  }
  if (r.sgmc) {
    const fb = r.sgmc.feedback;
    lines.push(
      `SGMC Eq. 12 simulation (${fb.runs} runs x ${fb.steps} steps, ${fb.records} records): revisions per output eq12 ${fb.revisionsPerOutput.eq12.toFixed(3)}, random ${fb.revisionsPerOutput.random.toFixed(3)}, most-used ${fb.revisionsPerOutput.mostUsed.toFixed(3)}; API = core selector ${fb.agree}/${fb.runs * fb.steps}; ${fb.msPerSelect.toFixed(1)} ms per select`,
    );
  }
  lines.push(`provenance: ${r.provenance.verified}/${r.provenance.anchors} anchors verified by /verify`);
  if (r.pdfReferences) {
    const p = r.pdfReferences;
    const by = Object.entries(p.matchedBy)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
    lines.push(
      `PDF references as cites (generated PDF, ${p.entries} entries): ${p.recovered} of ${p.gold} recovered (${pct(p.recall)}%), ${p.extra} wrong, by ${by}; unresolved ${p.unresolvedListed} listed, ${p.unresolvedStored} stored; resolved on re-import: ${p.resolvedOnReimport}`,
    );
  }
  if (r.discoveryDedup) {
    const d = r.discoveryDedup;
    lines.push(
      `one-shot discovery dedup (recorded answers of ${d.engines} engines): ${d.fetched} records -> ${d.unique} works (${d.mergedByDoi} merged by DOI, ${d.mergedByArxiv} by arXiv id, ${d.mergedByTitle} by title); HippoRAG named by ${d.hippoEngines} of 5 engines; ${d.duplicatesLeft} duplicates left`,
    );
  }
  if (r.rerankMock) {
    const k = r.rerankMock;
    lines.push(
      `reranker port against the mock endpoint (${k.records} merged discovery records): ${k.providers
        .map((p) =>
          p.error
            ? `${p.provider} failed: ${p.error}`
            : `${p.provider} ${p.agree}/${p.scored} scores as the mock's, ${p.moved} moved, ${p.requests} request`,
        )
        .join("; ")}`,
    );
  }
  if (r.cardsByDistiller)
    lines.push(
      `cards by distiller: ${Object.entries(r.cardsByDistiller)
        .map(([k, n]) => `${k} ${n}`)
        .join(", ")}`,
    );
  lines.push("\n| target | measured | bar | pass |\n|---|---|---|---|");
  for (const t of r.targets)
    lines.push(`| ${t.label} | ${t.measured} | ${t.target} | ${t.pass === null ? "n/a" : t.pass ? "yes" : "no"} |`);
  return lines.join("\n");
}

// ------------------------------------------------------------------ main

function previousBefore(): ContextFigure | null {
  try {
    const prev = JSON.parse(readFileSync(LATEST, "utf8")) as Partial<EvalResults>;
    return prev.context?.before ?? null;
  } catch {
    return null;
  }
}

async function main() {
  if (!existsSync(data)) {
    console.log(`eval: skipped, no test data at ${data} (pass --data <path to shared/testdata>)`);
    return;
  }
  const hp = wants("hotpotqa") || wants("2wiki") ? loadHotpot(data) : null;
  const wiki = wants("2wiki") ? loadTwoWiki(data) : null;
  const convs = wants("locomo") ? loadLocomo(data) : null;
  const hasCiteseer = wants("citeseer") && existsSync(join(data, "citeseer"));
  if (!hp && !convs && !hasCiteseer && !existsSync(join(data, "versions")) && !existsSync(join(data, "unarxive"))) {
    console.log(`eval: skipped, no evaluation sets under ${data}`);
    return;
  }
  const t0 = performance.now();
  log(`starting a local Worker from ${ref ? `commit ${ref}` : "a snapshot of the working tree"} ...`);
  if (modelRun)
    log(
      `model settings: ${Object.keys(modelVars)
        .filter((k) => !k.endsWith("_KEY"))
        .map((k) => `${k}=${modelVars[k]}`)
        .join(" ")}`,
    );
  const server = await startServer({
    snapshot: ref ? { ref } : true,
    ...(modelRun ? { vars: modelVars } : {}),
    ...(localHosts.length ? { allowHosts: [...new Set(localHosts)].join(",") } : {}),
  });
  log(
    `Worker at ${server.url} (commit ${server.source?.commit ?? "?"}${server.source?.dirtyHash ? `, uncommitted changes ${server.source.dirtyHash} in ${server.source.dirty.length} files` : ""})`,
  );
  try {
    const sets: EvalSet[] = [];
    if (hp && wants("hotpotqa")) sets.push(await hotpot(server, hp));
    if (hp && wiki) sets.push(await hotpotDistractors(server, hp, wiki));
    if (convs) sets.push(await conversations(server, convs, "record"));
    if (convs && wants("locomo-note")) sets.push(await conversations(server, convs, "note"));
    const nq = wants("simpleqa") ? loadSimpleQa(data) : null;
    if (nq)
      sets.push(
        await qaSet(
          server,
          "simpleqa",
          "Single-hop questions (NQ-open)",
          nq,
          "note",
          `${nq.questions.length} Natural Questions over ${int(nq.passages.length)} Wikipedia passages (one gold passage each, the others gold passages of other questions); recall of the gold passage.`,
        ),
      );
    const sq = wants("sciqa") ? loadSciQa(data) : null;
    if (sq)
      for (const [ds, label] of [
        ["scifact", "SciFact claims"],
        ["pubmedqa", "PubMedQA questions"],
      ] as const) {
        const qs = sq.questions.filter((q) => q.dataset === ds);
        sets.push(
          await qaSet(
            server,
            ds,
            label,
            { passages: sq.passages, questions: qs },
            "paper",
            `${qs.length} ${label} over ${int(sq.passages.length)} abstracts (sciqa/; PubMedQA abstracts untitled); recall of the gold abstracts.`,
          ),
        );
      }
    if (hasCiteseer) {
      const cs = await citeseer(server, data);
      if (cs) sets.push(cs);
    }
    const refs = wants("unarxive-refs") ? loadUnarxiveRefs(data) : null;
    if (refs) sets.push(await unarxiveRefs(server, refs));
    const checkMs: Record<string, number> = {};
    const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      const t = performance.now();
      log(`${name} ...`);
      const v = await fn();
      checkMs[name] = performance.now() - t;
      log(`  ${name}: ${secs(checkMs[name] as number)}`);
      return v;
    };
    let s2orc = null;
    let wikipedia = null;
    const synthetic = [];
    if (wants("staleness")) {
      s2orc = await timed("staleness: s2orc README revisions", () => staleness(server, data));
      wikipedia = await timed("staleness: Wikipedia revisions", () => wikipediaStaleness(server, data, params));
      for (const rho of [0.01, 0.05, 0.1])
        synthetic.push(await timed(`staleness: synthetic rho=${rho}`, () => syntheticStaleness(server, rho, 30, 100)));
    }
    let ua = null;
    if (wants("unarxive"))
      ua = await timed("unarXive: full-text import, references, export round trip", () =>
        unarxive(server, data, params),
      );
    let xkgRt = null;
    let xkgRet = null;
    if (wants("xkg")) {
      xkgRt = await timed("xKG: import, export format=xkg, re-import", () => xkgRoundTrip(server, data));
      xkgRet = await timed("xKG: technique -> code retrieval", () =>
        xkgRetrieval(server, data, join(import.meta.dirname, "data", "xkg-target-labels.json"), params),
      );
    }
    let ranking = null;
    if (wants("ranking"))
      ranking = await timed("ranking modes and MMR: template queries on CiteSeer and the unArXive bibliography", () =>
        rankingEval(server, data, (f) => (existsSync(f) ? readFileSync(f, "utf8") : null), log, params),
      );
    let papers = null;
    if (wants("papers"))
      papers = await timed("papers: locate on unarXive, per-node references", () => papersEval(server, data, params));
    let pgEval = null;
    if (wants("projectguard"))
      pgEval = await timed("ProjectGuard: briefs and renders over scripted histories", () => projectGuardEval(server));
    let sgmc = null;
    if (wants("sgmc"))
      sgmc = await timed("SGMC: draft convergence on revisions, Eq. 12 feedback simulation", () =>
        sgmcEval(server, data),
      );
    let rm = null;
    if (wants("retrieval-metrics"))
      rm = await timed("retrieval metrics: POST /metrics/retrieval on CiteSeer vs BM25", () =>
        retrievalMetricsEval(server, data, params),
      );
    let pdfRefs = null;
    if (wants("pdf-references"))
      pdfRefs = await timed("PDF references: the generated PDF's References recovered as cites", () =>
        pdfReferencesEval(server),
      );
    const discoveryDedup = wants("discovery-dedup") ? discoveryDedupEval() : null;
    const rerankMock = wants("rerank-mock") ? await rerankEval() : null;
    // How many shards each archive's capital chunk spans (1 unless --params sets a small heap budget).
    const shards: Array<{ name: string; shards: number; heads: number }> = [];
    for (const b of built) {
      const info = await b.archive.pg.archive(b.archive.id);
      const cap = (info.stats as { capital?: { heads?: number; shards?: unknown[] } }).capital;
      shards.push({ name: b.name, shards: cap?.shards?.length ?? 1, heads: cap?.heads ?? 0 });
    }
    log(`shards per archive: ${shards.map((x) => `${x.name} ${x.shards}`).join(", ")}`);
    const roundTrips = [];
    if (wants("roundtrip"))
      for (const b of built)
        roundTrips.push(
          await timed(`dump round trip: ${b.name}`, () => dumpRoundTrip(server, b.archive, b.name, params)),
        );
    log("provenance: verifying the anchors /context returned");
    let anchors = 0;
    let verified = 0;
    for (const { a, anchors: list } of verifiers) {
      anchors += list.length;
      for (let i = 0; i < list.length; i += 500) {
        const v = await a.pg.verify(a.id, { anchors: list.slice(i, i + 500) });
        verified += v.results.filter((x) => x.verified).length;
      }
    }
    const flagBefore = args.includes("--context-before");
    const before = flagBefore ? contextNow : (previousBefore() ?? contextNow);
    const partial = { sets, context: { budgetTokens: BUDGET, before, now: contextNow } };
    const results: EvalResults = {
      date: new Date().toISOString(),
      commit: server.source?.commit ?? "unknown",
      source: server.source ?? null,
      machine: machine(),
      durationMs: performance.now() - t0,
      // The Worker's port choices when not the defaults (VECTOR_INDEX=none: no semantic seeds).
      args: process.env.VECTOR_INDEX ? [...args, `VECTOR_INDEX=${process.env.VECTOR_INDEX}`] : args,
      ...partial,
      staleness: { s2orc, wikipedia, synthetic },
      unarxive: ua,
      xkgRoundTrip: xkgRt,
      xkgRetrieval: xkgRet,
      projectguard: pgEval,
      sgmc,
      ranking,
      papers,
      retrievalMetrics: rm,
      pdfReferences: pdfRefs,
      discoveryDedup,
      rerankMock,
      roundTrips,
      shards,
      provenance: { anchors, verified },
      cardsByDistiller,
      ...(modelRun
        ? {
            model: {
              settings: Object.fromEntries(Object.entries(modelVars).filter(([k]) => !k.endsWith("_KEY"))),
              spent: modelSpent,
            },
          }
        : {}),
      checkMs,
      runtimeRestarts: runtimeRestarts.count,
      targets: targets(partial),
    };
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    console.log(summary(results));
    console.log(`\nwrote ${out}`);
  } finally {
    server.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
