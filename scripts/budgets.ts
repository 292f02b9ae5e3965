/**
 * `npx tsx scripts/budgets.ts --data ../shared/testdata`: do budgets hold for the form returned?
 * Through the public API of a throwaway local Worker (a snapshot of the working tree), over dev
 * questions of four sets stored as a user stores them (HotpotQA, NQ-open, SciFact + PubMedQA, one
 * LoCoMo conversation as records), at 500 / 800 / 2,000 / 4,000 tokens, in three forms:
 * - REST `POST /context` (JSON): the cards' JSON plus the session window against budget_tokens;
 * - `POST /export/context` with format markdown: the whole document;
 * - MCP `context` (the prompt form): the whole tool result's text.
 * For each: the largest tokens ÷ budget, how many answers were over, sentences printed twice within
 * one card, and packing faults (a card skipped as over budget while a card ranked after it, so less
 * relevant, was returned; the selection order comes from the trace). Counted in cl100k_base.
 * Writes bench/results/budgets-latest.json. Skips cleanly without the data.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { PaperGuruClient } from "../src/client";
import { slug } from "../src/core/ids";
import { countTokens, loadTokenizer } from "../src/core/text/tokenizer";
import { firstSentenceTitle, loadHotpot, loadLocomo, loadSciQa, loadSimpleQa, type Passage } from "./lib/datasets";
import { machine } from "./lib/results";
import { harnessFetch, startServer } from "./lib/server";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const data = opt("--data") ?? "../shared/testdata";
const out = opt("--out") ?? "bench/results/budgets-latest.json";
const PER_SET = Number(opt("--questions") ?? 25);
const BUDGETS = [500, 800, 2000, 4000];
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Plain {
  id: string;
  kind: "note" | "record";
  title: string;
  content: string;
  valid_from?: string;
}

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
  packingFaults: number;
}

/** Sentences of a card's text as a prompt shows it, lower-cased, for the repeat count. */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s.length >= 20);
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
function faults(order: string[], cards: Card[], skipped: Array<{ chunk: string; reason: string }>): number {
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
    const notes = (ps: Passage[]) =>
      ps.map(
        (p): Plain => ({ id: p.id, kind: "note", title: p.title || firstSentenceTitle(p.text, p.id), content: p.text }),
      );
    const conv = convs[0];
    const sets: Array<{ name: string; arts: Plain[]; questions: string[] }> = [
      { name: "HotpotQA", arts: notes(hp.passages), questions: hp.questions.map((q) => q.question) },
      { name: "NQ-open", arts: notes(nq.passages), questions: nq.questions.map((q) => q.question) },
      { name: "SciFact + PubMedQA", arts: notes(sq.passages), questions: sq.questions.map((q) => q.question) },
      {
        name: `LoCoMo ${conv.id}`,
        arts: conv.turns.map((t) => ({
          id: t.id,
          kind: "record",
          title: t.title,
          content: t.text,
          valid_from: new Date(t.at).toISOString(),
        })),
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
          packingFaults: 0,
        };
        cells.set(k, c);
      }
      return c;
    };
    const note = (c: Cell, tokens: number, cards: Card[], fault: number) => {
      const r = tokens / c.budget;
      c.answers++;
      c.maxRatio = Math.max(c.maxRatio, r);
      c.meanRatio += r;
      if (tokens > c.budget) c.over++;
      c.cards += cards.length;
      for (const x of cards)
        c.repeatedSentences += repeats([
          x.claim_boundary ?? "",
          x.logic_sketch ?? "",
          ...x.anchored_spans.map((a) => a.snippet ?? ""),
        ]);
      c.packingFaults += fault;
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
          note(cell("json", budget), tokens, r.cards, faults(order, r.cards, r.skipped));
          const md = await pg.exportContext(id, { query, budget_tokens: budget, format: "markdown" });
          const mdCards = r.cards.filter((c) => md.includes(`\`${c.artifact_id}@v${c.version}\``));
          note(cell("markdown", budget), countTokens(md), mdCards, 0);
          const text = await mcp(query, budget);
          const m = JSON.parse(text) as { cards: Card[] };
          note(cell("mcp", budget), countTokens(text), m.cards ?? [], 0);
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
        `  ${c.form.padEnd(9)} ${String(c.budget).padStart(5)}: max ${c.maxRatio.toFixed(3)}, mean ${c.meanRatio.toFixed(3)}, over ${c.over}/${c.answers}, ${c.cards} cards, repeated sentences ${c.repeatedSentences}, packing faults ${c.packingFaults}`,
      );
    log(`wrote ${out}`);
  } finally {
    server.stop();
  }
}

await main();
