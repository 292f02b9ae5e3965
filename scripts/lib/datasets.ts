/**
 * Loaders for the evaluation sets under ../shared/testdata (read in place, never copied). Each
 * returns null when its files are absent.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

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
    let withoutGold = 0;
    let normalised = 0;
    for (const q of c.qa) {
      if (q.category === 5) {
        adversarial++;
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
