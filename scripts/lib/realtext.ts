/**
 * Real text for the scale benchmarks: paragraphs of the real corpora under ../shared/testdata
 * (HotpotQA and 2WikiMultihopQA Wikipedia paragraphs, NQ-open Wikipedia passages, SciFact/PubMedQA
 * abstracts, unarXive and S2ORC body paragraphs), read in place. An artifact joins three
 * consecutive paragraphs of one shuffled order, each led by its own title, as a user pasting notes
 * would store them (`id`, `kind: note`, `title`, `content`), about 1.5 KB. When the paragraphs run
 * out the next round reshuffles them with another seed, so every artifact of every round is a new
 * combination, and tags its titles `(round r)`. Questions are the corpora's own (HotpotQA, NQ,
 * SciQA); known-item probes are a paragraph's first words, answered by any artifact holding it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadHotpot, loadSciQa, loadSimpleQa, loadTwoWiki, shuffled } from "./datasets";

export interface Paragraph {
  title: string;
  text: string;
}

export interface RealArtifact {
  id: string;
  kind: "note";
  title: string;
  content: string;
  /** Indices (into `paragraphs`) of the paragraphs it joins. */
  parts: number[];
}

export interface RealText {
  paragraphs: Paragraph[];
  /** The corpora's own questions (for query load). */
  questions: string[];
  /** Which sources were found, with their paragraph counts. */
  sources: Record<string, number>;
  /** Artifact `i` (0-based); deterministic. */
  artifact(i: number): RealArtifact;
  /** Artifacts [from, to). */
  batch(from: number, to: number): RealArtifact[];
}

/** Collapse whitespace; drop unArXive's `{{formula:…}}`/`{{cite:…}}` placeholders. */
function clean(s: string): string {
  return s
    .replace(/\{\{[a-z]+:[0-9a-f-]+\}\}/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function unarxive(dir: string): Paragraph[] {
  const d = join(dir, "unarxive");
  if (!existsSync(d)) return [];
  const out: Paragraph[] = [];
  for (const f of readdirSync(d).filter((x) => x.endsWith(".jsonl"))) {
    for (const line of readFileSync(join(d, f), "utf8").split("\n")) {
      if (!line.trim()) continue;
      const p = JSON.parse(line) as {
        metadata?: { title?: string };
        body_text?: Array<{ section?: string; text?: string }>;
      };
      const paper = clean(p.metadata?.title ?? "");
      for (const b of p.body_text ?? []) {
        const text = clean(b.text ?? "");
        if (text.length < 80) continue;
        out.push({ title: b.section ? `${paper}: ${clean(b.section)}` : paper, text });
      }
    }
  }
  return out;
}

function s2orc(dir: string): Paragraph[] {
  const f = join(dir, "s2orc", "example_paper.json");
  if (!existsSync(f)) return [];
  const p = JSON.parse(readFileSync(f, "utf8")) as {
    metadata?: { title?: string };
    grobid_parse?: { body_text?: Array<{ section?: string; text?: string }> };
  };
  const paper = clean(p.metadata?.title ?? "");
  return (p.grobid_parse?.body_text ?? [])
    .map((b) => ({ title: b.section ? `${paper}: ${clean(b.section)}` : paper, text: clean(b.text ?? "") }))
    .filter((x) => x.text.length >= 80);
}

/** Null when no corpus is found under `dir`. */
export function loadRealText(dir: string, prefix = "real"): RealText | null {
  const sources: Record<string, number> = {};
  const paragraphs: Paragraph[] = [];
  const questions: string[] = [];
  const add = (name: string, ps: Paragraph[]) => {
    const kept = ps.filter((p) => p.text.length > 0);
    if (kept.length === 0) return;
    sources[name] = kept.length;
    paragraphs.push(...kept);
  };
  const hp = loadHotpot(dir);
  if (hp) {
    add("hotpotqa", hp.passages);
    questions.push(...hp.questions.map((q) => q.question));
  }
  add("2wikimultihopqa", loadTwoWiki(dir) ?? []);
  const nq = loadSimpleQa(dir);
  if (nq) {
    add("nq", nq.passages);
    questions.push(...nq.questions.map((q) => q.question));
  }
  const sq = loadSciQa(dir);
  if (sq) {
    add(
      "sciqa",
      sq.passages.map((p) => ({ title: p.title || "Abstract", text: p.text })),
    );
    questions.push(...sq.questions.map((q) => q.question));
  }
  add("unarxive", unarxive(dir));
  add("s2orc", s2orc(dir));
  if (paragraphs.length < 3) return null;
  const perRound = Math.floor(paragraphs.length / 3);
  const orders = new Map<number, number[]>();
  const order = (round: number) => {
    let o = orders.get(round);
    if (!o) {
      o = shuffled(
        paragraphs.map((_, i) => i),
        20_261_201 + round * 7919,
      );
      orders.set(round, o);
    }
    return o;
  };
  const artifact = (i: number): RealArtifact => {
    const round = Math.floor(i / perRound);
    const at = (i % perRound) * 3;
    const o = order(round);
    const parts = [o[at], o[at + 1], o[at + 2]] as number[];
    const tag = round > 0 ? ` (round ${round})` : "";
    const ps = parts.map((k) => paragraphs[k] as Paragraph);
    return {
      id: `${prefix}:${i}`,
      kind: "note",
      title: `${ps[0]?.title ?? ""}${tag}`,
      content: ps.map((p) => `${p.title}${tag}\n${p.text}`).join("\n\n"),
      parts,
    };
  };
  return {
    paragraphs,
    questions,
    sources,
    artifact,
    batch: (from, to) => Array.from({ length: Math.max(0, to - from) }, (_, k) => artifact(from + k)),
  };
}

/** The first `words` words of a paragraph: a known-item probe. */
export function knownItemQuery(p: Paragraph, words = 12): string {
  return p.text.split(" ").slice(0, words).join(" ");
}

/** Data directory from `--data DIR` (default ../shared/testdata); exits 0 with a message when absent. */
export function realTextOrSkip(args: string[], prefix = "real"): RealText {
  const i = args.indexOf("--data");
  const dir = i >= 0 ? (args[i + 1] ?? "") : "../shared/testdata";
  const rt = loadRealText(dir, prefix);
  if (!rt) {
    console.error(`no real text under ${dir} (pass --data DIR pointing at shared/testdata): skipped`);
    process.exit(0);
  }
  return rt;
}

/**
 * Known-item probes over artifacts [0, n): for each of `count` artifacts spread evenly over them, the
 * probe of one of its paragraphs (knownItemQuery), with every artifact of [0, n) that holds a
 * paragraph with the same probe (the same paragraph recurs in later rounds' artifacts, and a few
 * paragraphs of different corpora share their first words), so a hit is any of them.
 */
export function knownItems(
  rt: RealText,
  n: number,
  count = 100,
  words = 12,
): Array<{ artifact: string; paragraph: number; query: string; holders: Set<string> }> {
  const probe = new Map<number, string>();
  const probeOf = (k: number) => {
    let q = probe.get(k);
    if (q === undefined) {
      q = knownItemQuery(rt.paragraphs[k] as Paragraph, words);
      probe.set(k, q);
    }
    return q;
  };
  const holders = new Map<string, Set<string>>();
  for (let i = 0; i < n; i++) {
    const a = rt.artifact(i);
    for (const k of a.parts) {
      const q = probeOf(k);
      let s = holders.get(q);
      if (!s) {
        s = new Set();
        holders.set(q, s);
      }
      s.add(a.id);
    }
  }
  const m = Math.min(count, n);
  return Array.from({ length: m }, (_, j) => {
    const a = rt.artifact(Math.floor(((j + 0.5) * n) / m));
    const paragraph = a.parts[j % a.parts.length] as number;
    const query = probeOf(paragraph);
    return { artifact: a.id, paragraph, query, holders: holders.get(query) as Set<string> };
  });
}
