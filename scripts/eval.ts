/**
 * `npm run eval -- --data ../shared/testdata`: retrieval quality through the public API, with
 * baselines computed on the same corpus in the same run. Skips cleanly when the data is absent.
 *
 * Multi-hop (HotpotQA subset, 100 questions over 994 passages, and the four case-study sets):
 * Recall@2/5/10 of gold passages for BM25 (minisearch), dense-only (PaperGuru's own embedder,
 * brute-force cosine over title + text), PaperGuru /route (the router's ranked output) and
 * /context (the cards, in order). Passages become chunks; each passage's title becomes an entity;
 * a passage that mentions another passage's title (case-sensitive, whole words) gets that title
 * as an entity and a `cites` edge to it. No LLM anywhere.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import MiniSearch from "minisearch";
import { PaperGuruClient } from "../src/client";
import { cosine, HashedEmbedder } from "../src/core/embed/hashed";
import { parseFullTextPapers } from "../src/core/formats/fulltext";
import { paperIdentity } from "../src/core/formats/paper";
import { slug } from "../src/core/ids";
import { type Server, startServer } from "./lib/server";

const args = process.argv.slice(2);
const dataArg = args[args.indexOf("--data") + 1];
const data = args.includes("--data") && dataArg ? dataArg : "../shared/testdata";
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
/** Kernel parameter overrides for the evaluated archives, e.g. --params '{"alpha":0.5}'. */
const params = args.includes("--params")
  ? (JSON.parse(args[args.indexOf("--params") + 1] ?? "{}") as Record<string, number>)
  : undefined;

interface Passage {
  title: string;
  text: string;
}
interface Question {
  question: string;
  gold: string[];
}
interface Dataset {
  name: string;
  passages: Passage[];
  questions: Question[];
}

function loadHotpot(dir: string): Dataset | null {
  const qf = join(dir, "multihop", "hotpotqa_train.json");
  const cf = join(dir, "multihop", "hotpotqa_train_corpus.json");
  if (!existsSync(qf) || !existsSync(cf)) return null;
  const corpus = JSON.parse(readFileSync(cf, "utf8")) as Record<string, string[]>;
  const qs = JSON.parse(readFileSync(qf, "utf8")) as Array<{
    question: string;
    supporting_facts: Array<[string, number]>;
  }>;
  return {
    name: "HotpotQA (100 q, 994 passages)",
    passages: Object.entries(corpus).map(([title, sents]) => ({ title, text: sents.join("") })),
    questions: qs.map((q) => ({ question: q.question, gold: [...new Set(q.supporting_facts.map(([t]) => t))] })),
  };
}

function loadCase(dir: string, name: string): Dataset | null {
  const qf = join(dir, "multihop", `case_study_${name}.json`);
  const cf = join(dir, "multihop", `case_study_${name}_corpus.json`);
  if (!existsSync(qf) || !existsSync(cf)) return null;
  const corpus = JSON.parse(readFileSync(cf, "utf8")) as Array<{ title: string; content: string }>;
  const qs = JSON.parse(readFileSync(qf, "utf8")) as Array<Record<string, unknown>>;
  const questions: Question[] = [];
  for (const q of qs) {
    const question = q.question as string | undefined;
    // gold_docs indexes the question's own paragraphs, e.g. "[0, 1]" (a JSON string in this release).
    const raw =
      typeof q.gold_docs === "string" ? (JSON.parse(q.gold_docs) as number[]) : ((q.gold_docs ?? []) as number[]);
    const paragraphs = (q.paragraphs ?? []) as Array<{ title: string }>;
    const titles = raw.map((i) => paragraphs[i]?.title).filter((t): t is string => typeof t === "string");
    if (question && titles.length) questions.push({ question, gold: [...new Set(titles)] });
  }
  return { name: `case study: ${name}`, passages: corpus.map((p) => ({ title: p.title, text: p.content })), questions };
}

const KS = [2, 5, 10] as const;
type Recall = Record<(typeof KS)[number], number>;

function recall(ranked: string[], gold: string[]): Recall {
  const out = {} as Recall;
  for (const k of KS) out[k] = gold.filter((g) => ranked.slice(0, k).includes(g)).length / gold.length;
  return out;
}

function mean(rs: Recall[]): Recall {
  const out = {} as Recall;
  for (const k of KS) out[k] = rs.reduce((s, r) => s + r[k], 0) / Math.max(1, rs.length);
  return out;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Artifacts for a corpus: title entities, mentions of other titles as entities and `cites` edges. */
function artifacts(ds: Dataset) {
  const ids = new Map(ds.passages.map((p, i) => [p.title, `p:${i}`]));
  // Titles of two or more characters, longest first, matched case-sensitively on word boundaries.
  const titles = [...ids.keys()].filter((t) => t.length >= 3).sort((a, b) => b.length - a.length);
  const res = titles.map((t) => [t, new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRe(t)}($|[^\\p{L}\\p{N}])`, "u")] as const);
  return ds.passages.map((p, i) => {
    const mentioned = res.filter(([t, re]) => t !== p.title && re.test(p.text)).map(([t]) => t);
    return {
      id: `p:${i}`,
      kind: "record" as const,
      title: p.title,
      content: p.text || p.title,
      entities: [p.title, ...mentioned].map((t) => ({
        type: "concept" as const,
        id: `concept:${slug(t) || i}`,
        name: t,
      })),
      edges: mentioned.map((t) => ({ type: "cites" as const, target: ids.get(t) as string, weight: 1 })),
    };
  });
}

async function evaluate(server: Server, ds: Dataset) {
  const arts = artifacts(ds);
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const id = `eval-${slug(ds.name).slice(0, 20)}-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: ds.name, params });
  const pg = admin.withKey(created.key.secret);
  const titleOf = new Map(arts.map((a) => [a.id, a.title]));
  const t0 = performance.now();
  for (let i = 0; i < arts.length; i += 200) await pg.ingest(id, { artifacts: arts.slice(i, i + 200) });
  const ingestMs = performance.now() - t0;

  const bm25 = new MiniSearch<{ id: string; title: string; text: string }>({
    fields: ["title", "text"],
    storeFields: ["title"],
  });
  bm25.addAll(ds.passages.map((p, i) => ({ id: `p:${i}`, title: p.title, text: p.text })));
  const emb = new HashedEmbedder();
  const vecs = ds.passages.map((p) => emb.embedOne(`${p.title}. ${p.text}`));

  const rows: Record<string, Recall[]> = { bm25: [], dense: [], route: [], context: [] };
  const anchors: Array<{ artifact_id: string; version: number; start: number; end: number; snippet: string }> = [];
  let routeMs = 0;
  for (const q of ds.questions) {
    rows.bm25?.push(
      recall(
        bm25
          .search(q.question)
          .slice(0, 10)
          .map((r) => r.title as string),
        q.gold,
      ),
    );
    const qv = emb.embedOne(q.question);
    const dense = vecs
      .map((v, i) => [i, cosine(qv, v)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([i]) => ds.passages[i]?.title as string);
    rows.dense?.push(recall(dense, q.gold));
    const t = performance.now();
    const r = await pg.route(id, { query: q.question, limit: 10 });
    routeMs += performance.now() - t;
    rows.route?.push(
      recall(
        (r.selected as Array<{ chunk: string }>).map((s) => titleOf.get(s.chunk) as string),
        q.gold,
      ),
    );
    const c = await pg.context(id, { query: q.question, budget_tokens: 4000, max_cards: 10 });
    const cards = c.cards as Array<{ artifact_id: string; anchored_spans: typeof anchors }>;
    rows.context?.push(
      recall(
        cards.map((x) => titleOf.get(x.artifact_id) as string),
        q.gold,
      ),
    );
    anchors.push(...cards.flatMap((x) => x.anchored_spans));
  }
  let verified = 0;
  for (let i = 0; i < anchors.length; i += 500) {
    const v = await pg.verify(id, { anchors: anchors.slice(i, i + 500) });
    verified += (v.results as Array<{ verified: boolean }>).filter((x) => x.verified).length;
  }
  return {
    name: ds.name,
    questions: ds.questions.length,
    passages: ds.passages.length,
    edges: arts.reduce((s, a) => s + a.edges.length, 0),
    ingestMs,
    routeMsPerQuery: routeMs / ds.questions.length,
    recall: Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, mean(v)])),
    anchors: anchors.length,
    verified,
  };
}

interface VersionRow {
  version: string;
  date: string;
  text: string;
}

/**
 * Staleness on real revisions: the 68 dated versions of the s2orc README become versions of one
 * chunk (identical consecutive texts are no-ops). At 60 as-of dates we ask for the latest release;
 * evidence is stale when it is not the version valid at that date. PaperGuru answers with as_of;
 * the version-blind baseline is BM25 over every version stored as its own document (what a flat
 * store that appends revisions does), taking its top hit. Reported next to 1 - (1 - rho)^T.
 */
async function staleness(server: Server, dir: string) {
  const f = join(dir, "versions", "s2orc_readme_versions.jsonl");
  if (!existsSync(f)) return null;
  const rows = readFileSync(f, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as VersionRow);
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const id = `eval-stale-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: "s2orc README versions" });
  const pg = admin.withKey(created.key.secret);
  // Our version number for each stored revision, and when it became valid.
  const stored: Array<{ from: number; text: string; ours: number }> = [];
  for (const r of rows) {
    const from = Date.parse(r.date);
    const res = await pg.ingest(id, {
      artifacts: [
        {
          id: "s2orc:readme",
          kind: "record",
          title: "S2ORC README",
          content: r.text,
          valid_from: new Date(from).toISOString(),
        },
      ],
    });
    const x = res.results[0] as { status: string; version: number };
    if (x.status !== "unchanged") stored.push({ from, text: r.text, ours: x.version });
  }
  const validAt = (t: number) => [...stored].reverse().find((v) => v.from <= t) ?? null;
  const bm25 = new MiniSearch<{ id: number; text: string }>({ fields: ["text"] });
  bm25.addAll(stored.map((v, i) => ({ id: i, text: v.text })));
  const q = "What is the latest release of the S2ORC corpus and its release date?";
  const first = stored[0]?.from ?? 0;
  const last = stored[stored.length - 1]?.from ?? 0;
  let pgStale = 0;
  let blindStale = 0;
  let asked = 0;
  for (let i = 0; i < 60; i++) {
    const t = first + ((last - first) * (i + 0.5)) / 60;
    const truth = validAt(t);
    if (!truth) continue;
    asked++;
    const c = await pg.context(id, { query: q, as_of: new Date(t).toISOString(), budget_tokens: 1500, max_cards: 1 });
    const card = (c.cards as Array<{ version: number }>)[0];
    if (!card || card.version !== truth.ours) pgStale++;
    const top = bm25.search(q)[0];
    const blind = top ? stored[top.id as number] : undefined;
    if (!blind || blind.ours !== truth.ours) blindStale++;
  }
  // Empirical revision rate per step: revisions per as-of step over the span.
  const rho = Math.min(1, (stored.length - 1) / 60);
  return {
    versions: rows.length,
    stored: stored.length,
    asked,
    pgStale: pgStale / asked,
    blindStale: blindStale / asked,
    rho,
    bound: 1 - (1 - rho) ** 60,
  };
}

/**
 * Wikipedia revision sets (50 articles, ordered revisions, no dates): revision k gets the synthetic
 * date t0 + k days. For each article we ask at a date inside its history; evidence is stale when it
 * is not the revision valid then. Version-blind baseline: BM25 over that article's revisions
 * stored as separate documents, top hit for the article title.
 */
async function wikipediaStaleness(server: Server, dir: string) {
  const root = join(dir, "versions", "wikipedia");
  if (!existsSync(root)) return null;
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const id = `eval-wiki-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: "Wikipedia revisions", params });
  const pg = admin.withKey(created.key.secret);
  const day = 86_400_000;
  const t0 = Date.parse("2010-01-01");
  let asked = 0;
  let pgStale = 0;
  let pgMissed = 0;
  let blindStale = 0;
  let revisions = 0;
  for (const [ai, article] of readdirSync(root).sort().entries()) {
    const files = readdirSync(join(root, article))
      .filter((f) => /^\d+\.txt$/.test(f))
      .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
    const stored: Array<{ k: number; text: string; ours: number }> = [];
    for (const [k, f] of files.entries()) {
      const text = readFileSync(join(root, article, f), "utf8");
      if (!text.trim()) continue;
      const res = await pg.ingest(id, {
        artifacts: [
          {
            id: `wiki:${slug(article)}`,
            kind: "record",
            title: article,
            content: text,
            valid_from: new Date(t0 + k * day).toISOString(),
          },
        ],
      });
      const x = res.results[0] as { status: string; version: number };
      if (x.status !== "unchanged") stored.push({ k, text, ours: x.version });
    }
    revisions += stored.length;
    if (stored.length < 2) continue;
    // Ask in the middle of the history (deterministic per article), half a day after a revision.
    const pick = stored[Math.floor((ai * 7919) % (stored.length - 1))] as { k: number; ours: number };
    const at = t0 + pick.k * day + day / 2;
    const truth = [...stored].reverse().find((v) => t0 + v.k * day <= at);
    asked++;
    const c = await pg.context(id, {
      query: `What does the article ${article} say?`,
      as_of: new Date(at).toISOString(),
      budget_tokens: 1500,
      max_cards: 3,
    });
    const card = (c.cards as Array<{ artifact_id: string; version: number }>).find(
      (x) => x.artifact_id === `wiki:${slug(article)}`,
    );
    // A missing card is a retrieval miss, counted apart: staleness is about the evidence returned.
    if (!card) pgMissed++;
    else if (card.version !== truth?.ours) pgStale++;
    const bm25 = new MiniSearch<{ id: number; text: string }>({ fields: ["text"] });
    bm25.addAll(stored.map((v, i) => ({ id: i, text: v.text })));
    const top = bm25.search(article)[0];
    if (!top || stored[top.id as number]?.ours !== truth?.ours) blindStale++;
  }
  return { articles: asked, revisions, pgStale: pgStale / asked, pgMissed, blindStale: blindStale / asked };
}

/** Synthetic staleness: N chunks revised with probability rho per step for T steps. */
async function syntheticStaleness(server: Server, rho: number, T: number, n: number) {
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const id = `eval-syn-${Math.round(rho * 100)}-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: `synthetic rho=${rho}` });
  const pg = admin.withKey(created.key.secret);
  let x = 12345;
  const rand = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
  const day = 86_400_000;
  const t0 = Date.parse("2024-01-01");
  const versionAt: number[][] = Array.from({ length: n }, () => [0]);
  await pg.ingest(id, {
    artifacts: Array.from({ length: n }, (_, i) => ({
      id: `fact:${i}`,
      kind: "record" as const,
      title: `Fact ${i}`,
      content: `Fact ${i} value is 0.`,
      valid_from: new Date(t0).toISOString(),
    })),
  });
  for (let step = 1; step <= T; step++) {
    const batch = [];
    for (let i = 0; i < n; i++) {
      const hist = versionAt[i] as number[];
      if (rand() < rho) {
        hist.push(step);
        batch.push({
          id: `fact:${i}`,
          kind: "record" as const,
          title: `Fact ${i}`,
          content: `Fact ${i} value is ${step}.`,
          valid_from: new Date(t0 + step * day).toISOString(),
        });
      }
    }
    for (let k = 0; k < batch.length; k += 200) await pg.ingest(id, { artifacts: batch.slice(k, k + 200) });
  }
  // Ask at the start (t = 0 + half a day) about every fact: the truth is value 0.
  let pgStale = 0;
  let blindStale = 0;
  for (let i = 0; i < n; i++) {
    const c = await pg.expand(id, {
      query: `Fact ${i} value`,
      chunks: [{ id: `fact:${i}` }],
      as_of: new Date(t0 + day / 2).toISOString(),
      budget_tokens: 400,
    });
    const card = (c.cards as Array<{ version: number }>)[0];
    if (card?.version !== 1) pgStale++;
    // Version-blind: the store holds only what it saw last (or any version without its time).
    if ((versionAt[i] as number[]).length > 1) blindStale++;
  }
  return { rho, T, n, pgStale: pgStale / n, blindStale: blindStale / n, bound: 1 - (1 - rho) ** T };
}

/**
 * Citation recovery on CiteSeer (3,186 papers, 4,732 citations): 100 papers that cite at least 3
 * others lose their outgoing citation edges; each is then queried with its own text, and we report
 * Recall@10 of the papers it cites (the paper itself excluded from every ranking). PaperGuru can use
 * the remaining graph (papers similar to the query, and what they cite); the baselines cannot.
 */
async function citeseer(server: Server, dir: string) {
  const tf = join(dir, "citeseer", "citeseer_texts.txt");
  const cf = join(dir, "citeseer", "citeseer.cites");
  if (!existsSync(tf) || !existsSync(cf)) return null;
  const lines = readFileSync(tf, "utf8").split("\n");
  const papers: Array<{ id: string; text: string }> = [];
  for (let i = 0; i + 2 < lines.length; i += 3)
    papers.push({ id: (lines[i] as string).trim(), text: (lines[i + 1] as string).trim() });
  const known = new Set(papers.map((p) => p.id));
  const cites = new Map<string, Set<string>>();
  for (const l of readFileSync(cf, "utf8").split("\n")) {
    const [cited, citing] = l.trim().split(/\s+/);
    if (!cited || !citing || cited === citing || !known.has(cited) || !known.has(citing)) continue;
    const set = cites.get(citing) ?? new Set<string>();
    set.add(cited);
    cites.set(citing, set);
  }
  // Deterministic held-out set: every k-th paper (by id order) with at least 3 in-corpus citations.
  const eligible = [...cites.entries()].filter(([, c]) => c.size >= 3).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const step = Math.max(1, Math.floor(eligible.length / 100));
  const held = new Map(eligible.filter((_, i) => i % step === 0).slice(0, 100));
  const key = (id: string) => `cs:${id}`;
  const arts = papers.map((p) => {
    const firstStop = p.text.search(/[.?!]\s/);
    return {
      id: key(p.id),
      kind: "paper" as const,
      title: (firstStop > 0 && firstStop < 200 ? p.text.slice(0, firstStop) : p.text.slice(0, 80)) || p.id,
      content: p.text || p.id,
      edges: held.has(p.id)
        ? []
        : [...(cites.get(p.id) ?? [])].map((c) => ({ type: "cites" as const, target: key(c) })),
    };
  });
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const id = `eval-citeseer-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: "CiteSeer", params });
  const pg = admin.withKey(created.key.secret);
  for (let i = 0; i < arts.length; i += 200) await pg.ingest(id, { artifacts: arts.slice(i, i + 200) });
  const bm25 = new MiniSearch<{ id: string; text: string }>({ fields: ["text"] });
  bm25.addAll(papers.map((p) => ({ id: p.id, text: p.text })));
  const emb = new HashedEmbedder();
  const vecs = papers.map((p) => emb.embedOne(p.text));
  const r10 = { bm25: 0, dense: 0, paperguru: 0 };
  for (const [pid, gold] of held) {
    const text = papers.find((p) => p.id === pid)?.text ?? "";
    const score = (ranked: string[]) =>
      [...gold].filter((g) =>
        ranked
          .filter((x) => x !== pid)
          .slice(0, 10)
          .includes(g),
      ).length / gold.size;
    r10.bm25 += score(
      bm25
        .search(text)
        .slice(0, 11)
        .map((x) => x.id as string),
    );
    const qv = emb.embedOne(text);
    r10.dense += score(
      vecs
        .map((v, i) => [papers[i]?.id as string, cosine(qv, v)] as const)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 11)
        .map(([x]) => x),
    );
    const r = await pg.route(id, { query: text.slice(0, 8000), limit: 11 });
    r10.paperguru += score((r.selected as Array<{ chunk: string }>).map((x) => x.chunk.slice(3)));
  }
  const n = held.size;
  return {
    papers: papers.length,
    citations: [...cites.values()].reduce((s, c) => s + c.size, 0),
    heldOut: n,
    bm25: r10.bm25 / n,
    dense: r10.dense / n,
    paperguru: r10.paperguru / n,
  };
}

interface UnarxiveBib {
  bib_entry_raw: string;
  ids?: { open_alex_id?: string; doi?: string; arxiv_id?: string };
}
interface UnarxivePaper {
  paper_id: string;
  metadata: { title: string; abstract: string; versions?: Array<{ version: string; created: string }> };
  body_text: Array<{ section: string | null; text: string }>;
  bib_entries: Record<string, UnarxiveBib>;
}

/**
 * Full-text papers through the file import (`POST /import?format=fulltext`, the same parser the
 * CLI uses): the unarXive sample (49 papers, 1,786 bibliography entries) in requests of 10 papers,
 * then the same files again (must be all `unchanged`). Reported: import throughput, how many
 * references carry an identifier and how many distinct canonical entities they make (the same work
 * cited by several papers is one entity), whether every id form of a reference resolves to that one
 * entity through /resolve, and the title-only references: how many distinct title entities they
 * make, how many are cited by two or more papers, and how many land on a paper of the sample.
 */
async function unarxive(server: Server, dir: string) {
  const f = join(dir, "unarxive", "arXiv_src_2212_086.jsonl");
  if (!existsSync(f)) return null;
  const lines = readFileSync(f, "utf8").split("\n").filter(Boolean);
  const papers = lines.map((l) => JSON.parse(l) as UnarxivePaper);
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const id = `eval-unarxive-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: "unarXive sample", params });
  const pg = admin.withKey(created.key.secret);
  const sum = (acc: Record<string, number>, c: Record<string, number>) => {
    for (const [k, v] of Object.entries(c)) acc[k] = (acc[k] ?? 0) + v;
  };
  const first: Record<string, number> = {};
  const again: Record<string, number> = {};
  const t0 = performance.now();
  for (let i = 0; i < lines.length; i += 10)
    sum(first, (await pg.importText(id, "fulltext", lines.slice(i, i + 10).join("\n"), `unarxive-${i}.jsonl`)).counts);
  const importMs = performance.now() - t0;
  const t1 = performance.now();
  for (let i = 0; i < lines.length; i += 10)
    sum(again, (await pg.importText(id, "fulltext", lines.slice(i, i + 10).join("\n"), `unarxive-${i}.jsonl`)).counts);
  const reimportMs = performance.now() - t1;

  // Ground truth from the raw records: forms that appear together in one bibliography entry name
  // the same work, so works are the connected components of co-occurring forms (union-find).
  let refs = 0;
  let withIds = 0;
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    const p = parent.get(x) ?? x;
    if (p === x) return x;
    const r = find(p);
    parent.set(x, r);
    return r;
  };
  const entries: string[][] = [];
  for (const p of papers) {
    for (const b of Object.values(p.bib_entries)) {
      refs++;
      const forms = [
        b.ids?.arxiv_id ? `arXiv:${b.ids.arxiv_id}` : "",
        b.ids?.doi ? `doi:${b.ids.doi}` : "",
        b.ids?.open_alex_id ?? "",
      ].filter(Boolean);
      const ids = paperIdentity(forms, "")?.ids ?? [];
      if (forms.length === 0 || ids.length === 0) continue;
      withIds++;
      entries.push(forms);
      for (const x of ids) if (!parent.has(x)) parent.set(x, x);
      for (const x of ids.slice(1)) parent.set(find(x), find(ids[0] as string));
    }
  }
  const works = new Set([...parent.keys()].map(find));
  // Every form of an entry must resolve to one entity, and all entries of a work to the same one.
  const entityOfWork = new Map<string, Set<string>>();
  const resolved = new Map<string, string | undefined>();
  let consistent = 0;
  for (const forms of entries) {
    const got = new Set<string | undefined>();
    for (const form of forms) {
      if (!resolved.has(form)) resolved.set(form, (await pg.resolve(id, { mention: form })).resolved?.entity);
      got.add(resolved.get(form));
    }
    const work = find(paperIdentity(forms, "")?.id ?? "");
    const set = entityOfWork.get(work) ?? new Set<string>();
    for (const g of got) set.add(g ?? "(unresolved)");
    entityOfWork.set(work, set);
    if (got.size === 1 && !got.has(undefined)) consistent++;
  }
  const worksOneEntity = [...entityOfWork.values()].filter((x) => x.size === 1 && !x.has("(unresolved)")).length;
  const entities = new Set([...entityOfWork.values()].flatMap((x) => [...x]));
  const checked = entries.length;
  // Lossless export: dump the archive, replay it into a new one, compare routing on 20 queries.
  const t2 = performance.now();
  const dump = await pg.export(id, { format: "json" });
  const exportMs = performance.now() - t2;
  const copyId = `${id}-copy`;
  const copy = admin.withKey((await admin.createArchive({ id: copyId, name: "unarXive copy", params })).key.secret);
  const t3 = performance.now();
  await copy.importText(copyId, "archive", dump, "dump.json");
  const reimportDumpMs = performance.now() - t3;
  let sameRoutes = 0;
  const routeQueries = papers.slice(0, 20).map((p) => p.metadata.title.replace(/\s+/g, " "));
  for (const q of routeQueries) {
    const [a, b] = await Promise.all([
      pg.route(id, { query: q, limit: 10 }),
      copy.route(copyId, { query: q, limit: 10 }),
    ]);
    const key = (r: typeof a) => JSON.stringify(r.selected.map((x) => [x.chunk, x.version]));
    if (key(a) === key(b)) sameRoutes++;
  }
  // Title-only references: the same work cited by title from several papers is one entity.
  const titleRefs = new Map<string, Set<string>>(); // title id -> citing papers
  const plan = parseFullTextPapers(lines.join("\n"));
  if (plan.ok)
    for (const a of plan.value.artifacts)
      for (const e of a.edges ?? [])
        if (e.type === "cites" && e.target.startsWith("paper:")) {
          const set = titleRefs.get(e.target) ?? new Set<string>();
          set.add(a.id.split("#")[0] as string);
          titleRefs.set(e.target, set);
        }
  return {
    papers: papers.length,
    chunks: first.created ?? 0,
    importMs,
    reimportMs,
    first,
    again,
    refs,
    withIds,
    entities: entities.size,
    works: works.size,
    worksOneEntity,
    dumpBytes: dump.length,
    exportMs,
    reimportDumpMs,
    sameRoutes,
    routeQueries: routeQueries.length,
    checked,
    consistent,
    titleEntities: titleRefs.size,
    titleShared: [...titleRefs.values()].filter((s) => s.size >= 2).length,
  };
}

async function main() {
  if (!existsSync(data)) {
    console.log(`eval: skipped, no test data at ${data} (pass --data <path to shared/testdata>)`);
    return;
  }
  const sets = [loadHotpot(data), ...["university", "movies", "books", "biomed"].map((n) => loadCase(data, n))].filter(
    (d): d is Dataset => d !== null && (!only || d.name.includes(only)),
  );
  if (sets.length === 0 && !existsSync(join(data, "citeseer"))) {
    console.log(`eval: skipped, no evaluation sets under ${data}`);
    return;
  }
  const server = await startServer();
  try {
    const results = [];
    for (const ds of sets) {
      process.stdout.write(
        `${ds.name}: ingesting ${ds.passages.length} passages, ${ds.questions.length} questions ... `,
      );
      const r = await evaluate(server, ds);
      console.log(
        `done (${r.edges} title-mention edges, ingest ${(r.ingestMs / 1000).toFixed(1)} s, route ${r.routeMsPerQuery.toFixed(1)} ms/q)`,
      );
      results.push(r);
    }
    const f = (x: number | undefined) => ((x ?? 0) * 100).toFixed(1);
    console.log("\n| set | method | R@2 | R@5 | R@10 |\n|---|---|---|---|---|");
    for (const r of results) {
      for (const m of ["bm25", "dense", "route", "context"]) {
        const x = r.recall[m] as Recall;
        console.log(`| ${r.name} | ${m} | ${f(x[2])} | ${f(x[5])} | ${f(x[10])} |`);
      }
    }
    const cs = only && !"citeseer".includes(only) ? null : await citeseer(server, data);
    if (cs) {
      console.log(
        `\nCitation recovery on CiteSeer (${cs.papers} papers, ${cs.citations} citations, ${cs.heldOut} held out):`,
      );
      console.log("| method | Recall@10 of cited papers |\n|---|---|");
      console.log(
        `| BM25 | ${(cs.bm25 * 100).toFixed(1)} |\n| dense | ${(cs.dense * 100).toFixed(1)} |\n| PaperGuru /route (graph over remaining edges) | ${(cs.paperguru * 100).toFixed(1)} |`,
      );
    }
    const ua = only && !"unarxive".includes(only) ? null : await unarxive(server, data);
    if (ua) {
      console.log(
        `\nFull-text import (unarXive sample through POST /import?format=fulltext, 10 papers per request): ${ua.papers} papers -> ${ua.chunks} chunks in ${(ua.importMs / 1000).toFixed(1)} s (${((1000 * ua.chunks) / ua.importMs).toFixed(0)} chunks/s); the same files again: ${ua.again.unchanged ?? 0} unchanged, ${(ua.again.created ?? 0) + (ua.again.updated ?? 0)} created or updated, ${(ua.reimportMs / 1000).toFixed(1)} s`,
      );
      console.log(
        `| bibliography entries | with DOI / arXiv / OpenAlex id | distinct works (ids co-occurring in an entry) | entities they resolve to | entries whose id forms all resolve to one entity | works resolving to exactly one entity | title-only references: distinct title entities | cited by >= 2 papers |`,
      );
      console.log("|---|---|---|---|---|---|---|---|");
      console.log(
        `| ${ua.refs} | ${ua.withIds} (${((100 * ua.withIds) / ua.refs).toFixed(1)}%) | ${ua.works} | ${ua.entities} | ${ua.consistent}/${ua.checked} (${((100 * ua.consistent) / Math.max(1, ua.checked)).toFixed(1)}%) | ${ua.worksOneEntity}/${ua.works} | ${ua.titleEntities} | ${ua.titleShared} |`,
      );
      console.log(
        `Lossless export: the archive's json dump (${(ua.dumpBytes / 1e6).toFixed(1)} MB) exported in ${(ua.exportMs / 1000).toFixed(1)} s and replayed into a new archive in ${(ua.reimportDumpMs / 1000).toFixed(1)} s; /route selects the same chunks and versions for ${ua.sameRoutes}/${ua.routeQueries} queries`,
      );
    }
    const st = await staleness(server, data);
    if (st) {
      console.log(
        `\nStaleness on ${st.versions} real README revisions (${st.stored} distinct, ${st.asked} as-of questions):`,
      );
      console.log("| method | stale-evidence rate |\n|---|---|");
      console.log(`| PaperGuru with as_of | ${(st.pgStale * 100).toFixed(1)}% |`);
      console.log(`| version-blind BM25 over all versions | ${(st.blindStale * 100).toFixed(1)}% |`);
      // 67 revisions over 60 question steps: more than one revision per step, so the bound is 1.
      console.log(`| bound 1-(1-rho)^T (rho >= 1 revision per step here) | ${(st.bound * 100).toFixed(1)}% |`);
    }
    const wk = only && !"wikipedia".includes(only) ? null : await wikipediaStaleness(server, data);
    if (wk) {
      console.log(
        `\nStaleness on Wikipedia revision sets (${wk.articles} articles, ${wk.revisions} revisions, synthetic daily dates):`,
      );
      console.log("| method | stale-evidence rate |\n|---|---|");
      console.log(
        `| PaperGuru with as_of | ${(wk.pgStale * 100).toFixed(1)}% (${wk.pgMissed} article(s) not retrieved) |\n| version-blind BM25 over the article's revisions | ${(wk.blindStale * 100).toFixed(1)}% |`,
      );
    }
    console.log("\nSynthetic archive, 100 facts revised with probability rho per step, asked as of step 0:");
    console.log(
      "| rho | T | PaperGuru with as_of | version-blind (latest) | bound 1-(1-rho)^T |\n|---|---|---|---|---|",
    );
    for (const rho of [0.01, 0.05, 0.1]) {
      const r = await syntheticStaleness(server, rho, 30, 100);
      console.log(
        `| ${rho} | ${r.T} | ${(r.pgStale * 100).toFixed(1)}% | ${(r.blindStale * 100).toFixed(1)}% | ${(r.bound * 100).toFixed(1)}% |`,
      );
    }
    const a = results.reduce((s, r) => s + r.anchors, 0);
    const v = results.reduce((s, r) => s + r.verified, 0);
    console.log(
      `\nprovenance: ${v}/${a} anchors returned during the eval verified by /verify (${a ? ((100 * v) / a).toFixed(1) : "n/a"}%)`,
    );
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
