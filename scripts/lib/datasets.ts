/**
 * Loaders for the evaluation sets under ../shared/testdata (read in place, never copied). Each
 * returns null when its files are absent.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isObject as isJsonObject, type Json } from "../../src/core/formats/common";
import { bibliographyIds, parseFullTextPapers } from "../../src/core/formats/fulltext";
import { canonicalPaperId, normAlias } from "../../src/core/ids";
import type { ArtifactInput } from "../../src/core/ingest";
import { splitSentences } from "../../src/core/text/sentences";

export interface Passage {
  /** Artifact id. */
  id: string;
  title: string;
  text: string;
}

export interface Question {
  question: string;
  /** Gold artifact ids. */
  gold: string[];
  /** LoCoMo category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop). */
  category?: number;
}

/** HotpotQA subset (HippoRAG release): 100 questions over 994 passages; gold = supporting titles. */
export function loadHotpot(dir: string): { passages: Passage[]; questions: Question[] } | null {
  const qf = join(dir, "multihop", "hotpotqa_train.json");
  const cf = join(dir, "multihop", "hotpotqa_train_corpus.json");
  if (!existsSync(qf) || !existsSync(cf)) return null;
  const corpus = JSON.parse(readFileSync(cf, "utf8")) as Record<string, string[]>;
  const qs = JSON.parse(readFileSync(qf, "utf8")) as Array<{
    question: string;
    supporting_facts: Array<[string, number]>;
  }>;
  const passages = Object.entries(corpus).map(([title, sents], i) => ({
    id: `hp:${i}`,
    title,
    text: sents.join("").trim() || title,
  }));
  const idOf = new Map(passages.map((p) => [p.title, p.id]));
  const questions = qs.map((q) => ({
    question: q.question,
    gold: [...new Set(q.supporting_facts.map(([t]) => idOf.get(t)).filter((x): x is string => x !== undefined))],
  }));
  return { passages, questions: questions.filter((q) => q.gold.length > 0) };
}

/** 6,119 2WikiMultihopQA passages (no questions): distractors. */
export function loadTwoWiki(dir: string): Passage[] | null {
  const f = join(dir, "multihop", "2wikimultihopqa_corpus.json");
  if (!existsSync(f)) return null;
  const rows = JSON.parse(readFileSync(f, "utf8")) as Array<{ title: string; text: string }>;
  return rows.map((r, i) => ({ id: `2w:${i}`, title: r.title, text: r.text.trim() || r.title }));
}

/** A deterministic shuffle (xorshift32), so distractors and gold passages interleave in ingest order. */
export function shuffled<T>(xs: T[], seed: number): T[] {
  let x = seed >>> 0 || 1;
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const j = (x >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export interface Turn extends Passage {
  /** Epoch ms: the session's date plus one minute per turn. */
  at: number;
}

export interface Conversation {
  id: string;
  turns: Turn[];
  questions: Question[];
  /** Category-5 (adversarial) questions left out. */
  adversarial: number;
  /** Their text: built to be unanswerable from the conversation (scripts/abstention.ts asks them). */
  adversarialQuestions: string[];
  /** Evidence ids that name no turn after normalisation, and questions left with no gold turn. */
  unmatchedEvidence: string[];
  questionsWithoutGold: number;
  /** Evidence ids that needed normalising (e.g. "D8:6; D9:17" -> D8:6, D9:17). */
  normalised: number;
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** LoCoMo session dates: "1:56 pm on 8 May, 2023" (read as UTC). */
export function parseLocomoDate(s: string): number | null {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(s);
  if (!m) return null;
  const month = MONTHS.indexOf((m[5] as string).toLowerCase());
  if (month < 0) return null;
  let hour = Number(m[1]) % 12;
  if ((m[3] as string).toLowerCase() === "pm") hour += 12;
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

/** "D8:6", " D08:06 " -> "D8:6"; anything else -> null. */
function turnId(s: string): string | null {
  const m = /^D(\d+):(\d+)$/i.exec(s.trim());
  return m ? `D${Number(m[1])}:${Number(m[2])}` : null;
}

interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

/**
 * LoCoMo conversations: one artifact per turn, dated by its session (`session_N_date_time`) plus
 * one minute per turn; title "<speaker>, <session date>", content "<speaker>: <text>", with
 * " [shared a photo: <caption>]" when the turn carries an image caption. Questions of categories
 * 1-4 with their evidence turns as gold.
 */
export function loadLocomo(dir: string): Conversation[] | null {
  const f = join(dir, "conversations", "locomo_dev.json");
  if (!existsSync(f)) return null;
  const raw = JSON.parse(readFileSync(f, "utf8")) as Array<{
    sample_id: string;
    conversation: Record<string, unknown>;
    qa: Array<{ question: string; evidence: string[]; category: number }>;
  }>;
  return raw.map((c) => {
    const conv = c.conversation;
    const turns: Turn[] = [];
    const sessions = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    for (const n of sessions) {
      const list = conv[`session_${n}`] as LocomoTurn[] | undefined;
      const date = String(conv[`session_${n}_date_time`] ?? "");
      const start = parseLocomoDate(date);
      if (!list?.length || start === null) continue;
      for (const [i, t] of list.entries()) {
        const id = turnId(t.dia_id);
        if (!id) continue;
        const caption = t.blip_caption ? ` [shared a photo: ${t.blip_caption}]` : "";
        turns.push({
          id: `${c.sample_id}:${id}`,
          title: `${t.speaker}, ${date}`,
          text: `${t.speaker}: ${t.text}${caption}`,
          at: start + i * 60_000,
        });
      }
    }
    const known = new Set(turns.map((t) => t.id));
    const questions: Question[] = [];
    const unmatched: string[] = [];
    let adversarial = 0;
    const adversarialQuestions: string[] = [];
    let withoutGold = 0;
    let normalised = 0;
    for (const q of c.qa) {
      if (q.category === 5) {
        adversarial++;
        adversarialQuestions.push(q.question);
        continue;
      }
      const gold = new Set<string>();
      for (const e of q.evidence) {
        const parts = e.split(/[;,\s]+/).filter(Boolean);
        if (parts.length !== 1 || parts[0] !== e) normalised++;
        for (const p of parts) {
          const id = turnId(p);
          const full = id ? `${c.sample_id}:${id}` : null;
          if (full && known.has(full)) gold.add(full);
          else unmatched.push(`${c.sample_id}:${p}`);
        }
      }
      if (gold.size === 0) withoutGold++;
      else questions.push({ question: q.question, gold: [...gold], category: q.category });
    }
    return {
      id: c.sample_id,
      turns,
      questions,
      adversarial,
      adversarialQuestions,
      unmatchedEvidence: unmatched,
      questionsWithoutGold: withoutGold,
      normalised,
    };
  });
}

export interface CiteSeer {
  papers: Array<{ id: string; text: string }>;
  /** citing paper id -> cited paper ids (in-corpus, no self-citations). */
  cites: Map<string, Set<string>>;
  /** Held-out citing papers (their outgoing edges are not ingested) -> gold cited ids. */
  held: Map<string, Set<string>>;
}

/**
 * CiteSeer (3,186 papers, 4,732 citation pairs): the held-out set is every k-th paper (by id order)
 * with at least 3 in-corpus citations, 100 papers.
 */
export function loadCiteSeer(dir: string): CiteSeer | null {
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
  const eligible = [...cites.entries()].filter(([, c]) => c.size >= 3).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const step = Math.max(1, Math.floor(eligible.length / 100));
  const held = new Map(eligible.filter((_, i) => i % step === 0).slice(0, 100));
  return { papers, cites, held };
}

/**
 * A title for a text that has none, as a user without one would give it: its first sentence (under
 * 200 characters; CiteSeer's paper title runs into the abstract there), else its first 80 characters.
 */
export function firstSentenceTitle(text: string, fallback: string): string {
  const stop = text.search(/[.?!]\s/);
  return (stop > 0 && stop < 200 ? text.slice(0, stop) : text.slice(0, 80)) || fallback;
}

/** Each turn's session date: the time of its session's first turn ("D8:1" opens session 8). */
export function sessionDates(c: Conversation): Map<string, number> {
  const start = new Map<string, number>();
  const out = new Map<string, number>();
  for (const t of c.turns) {
    const s = t.id.split(":").at(-2) ?? "";
    if (!start.has(s)) start.set(s, t.at);
    out.set(t.id, start.get(s) as number);
  }
  return out;
}

/** A single-answer question set over its own corpus (simpleqa/, sciqa/). */
export interface QaSet {
  passages: Passage[];
  questions: Array<Question & { dataset?: string }>;
}

function loadQa(dir: string, sub: string, q: string, c: string, prefix: string): QaSet | null {
  const qf = join(dir, sub, q);
  const cf = join(dir, sub, c);
  if (!existsSync(qf) || !existsSync(cf)) return null;
  const corpus = JSON.parse(readFileSync(cf, "utf8")) as Array<{ id: string; title: string; text: string }>;
  const qs = JSON.parse(readFileSync(qf, "utf8")) as Array<{ question: string; gold_ids: string[]; dataset?: string }>;
  return {
    passages: corpus.map((p) => ({ id: `${prefix}:${p.id}`, title: p.title, text: p.text })),
    questions: qs.map((x) => ({
      question: x.question,
      gold: x.gold_ids.map((g) => `${prefix}:${g}`),
      ...(x.dataset ? { dataset: x.dataset } : {}),
    })),
  };
}

/** simpleqa/: 400 NQ-open questions over 2,049 Wikipedia passages (one gold passage each). */
export function loadSimpleQa(dir: string): QaSet | null {
  return loadQa(dir, "simpleqa", "nq_dev_questions.json", "nq_dev_corpus.json", "nq");
}

/** sciqa/: 186 SciFact claims and 200 PubMedQA questions over 1,024 abstracts (PubMedQA ones untitled). */
export function loadSciQa(dir: string): QaSet | null {
  return loadQa(dir, "sciqa", "sciqa_dev_questions.json", "sciqa_dev_corpus.json", "sq");
}

/** A citation context of unarxive/: a body sentence, its citation markers removed, and the works it cites. */
export interface CitationQuestion {
  question: string;
  /** Chunk ids of the cited works, as the importer names them. */
  gold: string[];
  /** The section chunk the sentence comes from (never counted: it holds the sentence). */
  exclude: string;
  /** The citing paper's chunk id. */
  paper: string;
}

export interface UnarxiveRefs {
  /** The file's records (one paper per line), as an import sends them. */
  records: string[];
  /** What the importer's parser plans for the whole file: papers, sections, elements, cited works. */
  artifacts: ArtifactInput[];
  questions: CitationQuestion[];
  counts: Record<string, number>;
}

const MARKER = /\{\{(\w+):([^}]+)\}\}/g;

/** Placeholders removed, separators left around a removed citation tidied ("in [, ]." -> "in."). */
function tidy(s: string): string {
  return s
    .replace(/[([]\s*(?:[,;]\s*)*[)\]]/g, " ")
    .replace(/\s*([,;])(?:\s*[,;])+/g, "$1")
    .replace(/\s+([,.;:!?)\]])/g, "$1")
    .replace(/\s+/g, " ")
    .replace(/^[\s,;:.]+/, "")
    .trim();
}

/**
 * unarxive/ as a retrieval set of citation contexts. The archive is what the product's full-text
 * import plans for the 49 papers (parseFullTextPapers, the parser behind `POST /import?format=fulltext`):
 * paper chunks, section chunks (runs of paragraphs with one heading), element chunks, and one `paper`
 * chunk per work a bibliography names, with the `cites` edges the parser derives. Questions: every body
 * sentence (sentences of the paragraph with its `{{…}}` placeholders removed, split by the product's
 * splitSentences) that carries a cite span whose bibliography entry became a work chunk; query = the
 * sentence, gold = those works (bibliographyIds: the importer's own naming), exclude = the section
 * chunk holding the sentence. Skipped: spans to no entry, to an entry with neither identifier nor
 * title (no chunk), self-citations; sentences under 5 words; sentences citing a work the import
 * merges with another record (same identifier or normalised title in the plan: the stored chunk is
 * then another record's text or id). Then a deterministic sample of `sample` questions, round robin
 * over the papers in file order, each paper's sentences shuffled with `seed`.
 * Sentences rather than paragraphs: every cite span has exact offsets, so each citation has its
 * sentence, and a sentence is about the works it names (1,737 sentences carry the 3,042 spans; the
 * 1,023 paragraphs with citations name 2.7 entries on average, up to 39).
 */
export function loadUnarxiveRefs(dir: string, sample = 200, seed = 20_261_127): UnarxiveRefs | null {
  const f = join(dir, "unarxive", "arXiv_src_2212_086.jsonl");
  if (!existsSync(f)) return null;
  const records = readFileSync(f, "utf8")
    .split("\n")
    .filter((l) => l.trim());
  const plan = parseFullTextPapers(records.join("\n"), { source: "arXiv_src_2212_086.jsonl" });
  if (!plan.ok) throw new Error(`unarxive: ${plan.error.message}`);
  const artifacts = plan.value.artifacts;
  const planned = new Set(artifacts.map((a) => a.id));
  // Works the import dedupes (apply.ts, within a plan and against the archive): paper artifacts
  // sharing an identifier (the id or an id-like alias of its own entity) or a normalised title.
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    const p = parent.get(x) ?? x;
    if (p === x) return x;
    const r = find(p);
    parent.set(x, r);
    return r;
  };
  for (const a of artifacts) {
    if (a.kind !== "paper") continue;
    const own = a.entities?.find((e) => e.type === "paper" && e.id === a.id);
    const keys = [
      ...new Set([
        a.id,
        ...(own?.aliases ?? []).map((x) => canonicalPaperId(x)).filter((x): x is string => x !== null),
        `title\u0000${normAlias(a.title)}`,
      ]),
    ];
    for (const k of keys) if (!parent.has(k)) parent.set(k, k);
    for (const k of keys.slice(1)) parent.set(find(k), find(a.id));
  }
  const groupSize = new Map<string, number>();
  for (const a of artifacts) if (a.kind === "paper") groupSize.set(find(a.id), (groupSize.get(find(a.id)) ?? 0) + 1);
  const merged = (id: string) => (groupSize.get(find(id)) ?? 1) > 1;

  const counts: Record<string, number> = {
    papers: records.length,
    citeSpans: 0,
    spansNotAtMarker: 0,
    spansNoEntry: 0,
    spansUnusableEntry: 0,
    spansSelf: 0,
    sentencesWithCites: 0,
    sentencesNoSection: 0,
    sentencesNoWork: 0,
    sentencesShort: 0,
    sentencesMergedWork: 0,
    papersSkipped: 0,
  };
  const perPaper: CitationQuestion[][] = [];
  for (const line of records) {
    const rec = JSON.parse(line) as Json;
    const own = parseFullTextPapers(line, { source: "record" });
    const bib = bibliographyIds(rec);
    const paper = own.ok ? own.value.artifacts.find((a) => a.kind === "paper" && !a.placeholder) : undefined;
    if (!isJsonObject(rec) || !own.ok || !bib || !paper) {
      counts.papersSkipped = (counts.papersSkipped ?? 0) + 1;
      continue;
    }
    const pid = paper.id;
    // Section n of the import is run n of the paragraphs (consecutive ones under one heading).
    const sectionIds = new Map<number, string>();
    for (const a of own.value.artifacts) {
      const m = a.kind === "section" && a.id.startsWith(`${pid}#s`) ? /#s(\d+)(?:-|$)/.exec(a.id) : null;
      if (m) sectionIds.set(Number(m[1]), a.id);
    }
    const entries = isJsonObject(rec.bib_entries) ? rec.bib_entries : {};
    const list: CitationQuestion[] = [];
    let run = 0;
    let heading: string | null = null;
    for (const p of Array.isArray(rec.body_text) ? rec.body_text : []) {
      if (!isJsonObject(p) || typeof p.text !== "string" || !p.text.trim()) continue;
      const name =
        [p.sec_number, p.section]
          .map((x) => (typeof x === "string" || typeof x === "number" ? String(x) : ""))
          .filter(Boolean)
          .join(" ")
          .replace(/\s+/g, " ")
          .trim() || "Body";
      if (name !== heading) {
        run++;
        heading = name;
      }
      const section = sectionIds.get(run);
      // The text without placeholders; each citation marker's offset in it.
      let text = "";
      let last = 0;
      const at = new Map<number, number>();
      for (const m of p.text.matchAll(MARKER)) {
        text += p.text.slice(last, m.index);
        if (m[1] === "cite") at.set(m.index, text.length);
        last = m.index + m[0].length;
      }
      text += p.text.slice(last);
      const spans = (Array.isArray(p.cite_spans) ? p.cite_spans : []).filter(isJsonObject);
      const cites = spans.length
        ? spans.map((c) => ({ start: typeof c.start === "number" ? c.start : -1, ref: String(c.ref_id ?? "") }))
        : [...p.text.matchAll(/\{\{cite:([^}]+)\}\}/g)].map((m) => ({ start: m.index, ref: m[1] as string }));
      const sentences = splitSentences(text);
      const cited = new Map<number, Set<string>>();
      for (const c of cites) {
        counts.citeSpans = (counts.citeSpans ?? 0) + 1;
        const x = at.get(c.start);
        if (x === undefined) {
          counts.spansNotAtMarker = (counts.spansNotAtMarker ?? 0) + 1;
          continue;
        }
        // The sentence the marker sits in, or the one it trails ("... shown. {{cite}}").
        let s = 0;
        for (const [i, sp] of sentences.entries()) if (sp.start <= x) s = i;
        const work = bib.get(c.ref);
        const set = cited.get(s) ?? new Set<string>();
        cited.set(s, set);
        if (!(c.ref in entries)) counts.spansNoEntry = (counts.spansNoEntry ?? 0) + 1;
        else if (!work) counts.spansUnusableEntry = (counts.spansUnusableEntry ?? 0) + 1;
        else if (work === pid) counts.spansSelf = (counts.spansSelf ?? 0) + 1;
        else set.add(work);
      }
      for (const [s, works] of cited) {
        counts.sentencesWithCites = (counts.sentencesWithCites ?? 0) + 1;
        const query = tidy(sentences[s]?.text ?? "");
        const gold = [...works].filter((w) => planned.has(w));
        if (!section) counts.sentencesNoSection = (counts.sentencesNoSection ?? 0) + 1;
        else if (gold.length === 0) counts.sentencesNoWork = (counts.sentencesNoWork ?? 0) + 1;
        else if ((query.match(/\p{L}{2,}/gu) ?? []).length < 5)
          counts.sentencesShort = (counts.sentencesShort ?? 0) + 1;
        else if (gold.some(merged)) counts.sentencesMergedWork = (counts.sentencesMergedWork ?? 0) + 1;
        else list.push({ question: query, gold, exclude: section, paper: pid });
      }
    }
    perPaper.push(shuffled(list, seed));
  }
  counts.eligible = perPaper.reduce((n, l) => n + l.length, 0);
  const questions: CitationQuestion[] = [];
  for (let i = 0; questions.length < sample && perPaper.some((l) => l.length > i); i++)
    for (const l of perPaper) {
      const q = l[i];
      if (q && questions.length < sample) questions.push(q);
    }
  counts.papersInSample = new Set(questions.map((q) => q.paper)).size;
  return { records, artifacts, questions, counts };
}

/** An artifact as a user stores it through the API: a note or a record with title and content. */
export interface UserArtifact {
  id: string;
  kind: "note" | "record";
  title: string;
  content: string;
  valid_from?: string;
}

/** Passages as notes: their own title, else the first sentence (as a user would title them). */
export function passagesAsNotes(ps: Passage[]): UserArtifact[] {
  return ps.map((p) => ({
    id: p.id,
    kind: "note",
    title: p.title || firstSentenceTitle(p.text, p.id),
    content: p.text,
  }));
}

/** A conversation's turns as records valid from their session's date, as the testdata README says. */
export function turnsAsRecords(c: Conversation): UserArtifact[] {
  return c.turns.map((t) => ({
    id: t.id,
    kind: "record",
    title: t.title,
    content: t.text,
    valid_from: new Date(t.at).toISOString(),
  }));
}
