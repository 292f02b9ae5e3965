/**
 * `npx tsx scripts/budgets.ts --data ../shared/testdata`: do budgets hold for the form returned?
 * Through the public API of a throwaway local Worker (a snapshot of the working tree), over dev
 * questions of four sets stored as a user stores them (HotpotQA, NQ-open, SciFact + PubMedQA, one
 * LoCoMo conversation as records), at 500 / 800 / 2,000 / 4,000 tokens, in three forms:
 * - REST `POST /context` (JSON): the cards' JSON plus the session window against budget_tokens;
 * - `POST /export/context` with format markdown: the whole document;
 * - MCP `context` (the prompt form): the whole tool result's text.
 * For each: the largest tokens ÷ budget, how many answers were over, sentences printed twice within
 * one card as that form shows it (JSON: claim, sketch and the snippets that are not the claim's or
 * the sketch's own anchors, which are counted apart as `anchorEchoes`: the full anchors `verify`
 * takes; markdown: the card's section of the document; MCP: the prompt cards), and rank gaps (a
 * card skipped as over budget while a card ranked after it was returned; the selection order comes
 * from the trace; test/core/cards.test.ts checks that each such skip could not fit what was left at
 * its turn at any card size, so the later card fills room no earlier card could use). Counted in
 * cl100k_base.
 * Writes bench/results/budgets-latest.json. Skips cleanly without the data.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { PaperGuruClient } from "../src/client";
import { slug } from "../src/core/ids";
import { countTokens, loadTokenizer } from "../src/core/text/tokenizer";
import { flags, log } from "./lib/args";
import {
  loadHotpot,
  loadLocomo,
  loadSciQa,
  loadSimpleQa,
  passagesAsNotes,
  turnsAsRecords,
  type UserArtifact,
} from "./lib/datasets";
import { machine } from "./lib/results";
import { harnessFetch, startServer } from "./lib/server";

const opt = flags();
const data = opt("--data") ?? "../shared/testdata";
const out = opt("--out") ?? "bench/results/budgets-latest.json";
const PER_SET = Number(opt("--questions") ?? 25);
const BUDGETS = [500, 800, 2000, 4000];

type Form = "json" | "markdown" | "mcp";
interface Cell {
  form: Form;
  budget: number;
  answers: number;
  maxRatio: number;
  meanRatio: number;
  over: number;
  cards: number;
  repeatedSentences: number;
  anchorEchoes: number;
  rankGaps: number;
}

/** Sentences of a card's text as a prompt shows it, lower-cased, for the repeat count. */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s.length >= 20);
}

const flat = (s: string) => s.replace(/\s+/g, " ").trim();

/** A card's prose as the JSON form shows it, and its anchors that echo the claim or the sketch. */
function jsonProse(c: Card): { texts: string[]; echoes: number } {
  const own = `${flat(c.claim_boundary ?? "")}\n${flat(c.logic_sketch ?? "")}`;
  const snippets = c.anchored_spans.map((a) => a.snippet ?? "").filter((x) => x.length > 0);
  const echo = (x: string) => own.includes(flat(x));
  return {
    texts: [c.claim_boundary ?? "", c.logic_sketch ?? "", ...snippets.filter((x) => !echo(x))],
    echoes: snippets.filter(echo).length,
  };
}

/** A markdown context's card sections ("## N. title" up to the next heading), formatting removed. */
function markdownCards(md: string): string[] {
  return md
    .split(/^## /m)
    .slice(1)
    .filter((b) => /^\d+\. /.test(b))
    .map((b) =>
      b
        .replace(/^> ?/gm, "")
        .replace(/\*\*[A-Za-z]+\.\*\*/g, "")
        .replace(/`[^`]*`/g, ""),
    );
}

function repeats(texts: string[]): number {
  const seen = new Set<string>();
  let n = 0;
  for (const s of texts.flatMap(sentences)) {
    if (seen.has(s)) n++;
    seen.add(s);
  }
  return n;
}

type Card = {
  artifact_id: string;
  claim_boundary?: string;
  logic_sketch?: string;
  anchored_spans: Array<{ snippet?: string }>;
};

/** Over-budget skips ranked before a returned card (by the selection's order). */
function gaps(order: string[], cards: Card[], skipped: Array<{ chunk: string; reason: string }>): number {
  const pos = new Map(order.map((c, i) => [c, i]));
  const last = Math.max(-1, ...cards.map((c) => pos.get(c.artifact_id) ?? -1));
  return skipped.filter((s) => s.reason === "over_budget" && (pos.get(s.chunk) ?? Number.POSITIVE_INFINITY) < last)
    .length;
}

async function main() {
  const hp = loadHotpot(data);
  const nq = loadSimpleQa(data);
  const sq = loadSciQa(data);
  const convs = loadLocomo(data);
  if (!hp || !nq || !sq || !convs?.[0]) {
    log(`budgets: skipped, ${data} lacks multihop/, simpleqa/, sciqa/ or conversations/ (pass --data <dir>)`);
    return;
  }
  await loadTokenizer("cl100k_base");
  const t0 = performance.now();
  const server = await startServer({ fresh: true, snapshot: true });
  try {
    const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
    const notes = passagesAsNotes;
    const conv = convs[0];
    const sets: Array<{ name: string; arts: UserArtifact[]; questions: string[] }> = [
      { name: "HotpotQA", arts: notes(hp.passages), questions: hp.questions.map((q) => q.question) },
      { name: "NQ-open", arts: notes(nq.passages), questions: nq.questions.map((q) => q.question) },
      { name: "SciFact + PubMedQA", arts: notes(sq.passages), questions: sq.questions.map((q) => q.question) },
      {
        name: `LoCoMo ${conv.id}`,
        arts: turnsAsRecords(conv),
        questions: conv.questions.map((q) => q.question),
      },
    ];
    const cells = new Map<string, Cell>();
    const cell = (form: Form, budget: number): Cell => {
      const k = `${form}:${budget}`;
      let c = cells.get(k);
      if (!c) {
        c = {
          form,
          budget,
          answers: 0,
          maxRatio: 0,
          meanRatio: 0,
          over: 0,
          cards: 0,
          repeatedSentences: 0,
          anchorEchoes: 0,
          rankGaps: 0,
        };
        cells.set(k, c);
      }
      return c;
    };
    /** One answer: its tokens, each card's prose as the form shows it, its anchor echoes, its rank gaps. */
    const note = (c: Cell, tokens: number, cards: string[][], echoes: number, gaps: number) => {
      const r = tokens / c.budget;
      c.answers++;
      c.maxRatio = Math.max(c.maxRatio, r);
      c.meanRatio += r;
      if (tokens > c.budget) c.over++;
      c.cards += cards.length;
      for (const texts of cards) c.repeatedSentences += repeats(texts);
      c.anchorEchoes += echoes;
      c.rankGaps += gaps;
    };
    for (const s of sets) {
      const id = `budget-${slug(s.name).slice(0, 20)}-${Date.now().toString(36)}`;
      const created = await admin.createArchive({ id, name: s.name });
      const key = created.key.secret;
      const pg = admin.withKey(key);
      for (let i = 0; i < s.arts.length; i += 200) await pg.ingest(id, { artifacts: s.arts.slice(i, i + 200) });
      let rpcId = 0;
      const mcp = async (query: string, budget: number) => {
        const res = await harnessFetch(`${server.url}/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: ++rpcId,
            method: "tools/call",
            params: { name: "context", arguments: { archive: id, query, budget_tokens: budget } },
          }),
        });
        const body = (await res.json()) as { result: { content: Array<{ text: string }> } };
        return body.result.content[0]?.text ?? "";
      };
      for (const query of s.questions.slice(0, PER_SET))
        for (const budget of BUDGETS) {
          const r = await pg.context(id, { query, budget_tokens: budget, include_trace: true });
          const traced = r.trace as { selected?: Array<{ chunk: string }> } | undefined;
          const order = (traced?.selected ?? []).map((x) => x.chunk);
          const tokens = (r.cards.length ? countTokens(JSON.stringify(r.cards)) : 0) + r.budget.short_term;
          const prose = r.cards.map(jsonProse);
          note(
            cell("json", budget),
            tokens,
            prose.map((p) => p.texts),
            prose.reduce((n, p) => n + p.echoes, 0),
            gaps(order, r.cards, r.skipped),
          );
          const md = await pg.exportContext(id, { query, budget_tokens: budget, format: "markdown" });
          note(
            cell("markdown", budget),
            countTokens(md),
            markdownCards(md).map((b) => [b]),
            0,
            0,
          );
          const text = await mcp(query, budget);
          const m = JSON.parse(text) as { cards: Card[] };
          note(
            cell("mcp", budget),
            countTokens(text),
            (m.cards ?? []).map((x) => jsonProse(x).texts),
            0,
            0,
          );
        }
      log(`  ${s.name}: ${s.arts.length} artifacts, ${Math.min(PER_SET, s.questions.length)} questions`);
    }
    const rows = [...cells.values()].map((c) => ({ ...c, meanRatio: c.meanRatio / Math.max(1, c.answers) }));
    const result = {
      date: new Date().toISOString(),
      commit: server.source?.commit ?? "unknown",
      source: server.source ?? null,
      machine: machine(),
      tokenizer: "cl100k_base",
      sets: sets.map((s) => ({
        name: s.name,
        artifacts: s.arts.length,
        questions: Math.min(PER_SET, s.questions.length),
      })),
      rows,
      totalMs: performance.now() - t0,
    };
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    for (const c of rows)
      log(
        `  ${c.form.padEnd(9)} ${String(c.budget).padStart(5)}: max ${c.maxRatio.toFixed(3)}, mean ${c.meanRatio.toFixed(3)}, over ${c.over}/${c.answers}, ${c.cards} cards, repeated sentences ${c.repeatedSentences}, anchor echoes ${c.anchorEchoes}, rank gaps ${c.rankGaps}`,
      );
    log(`wrote ${out}`);
  } finally {
    server.stop();
  }
}

await main();
