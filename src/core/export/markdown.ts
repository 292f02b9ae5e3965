/** Markdown: an archive listing, or a query result as evidence cards with exact anchors. */
import { promptCard } from "../distill/card";
import { countTokens, DEFAULT_TOKENIZER, TOKENIZERS, type TokenizerName } from "../text/tokenizer";
import type { EvidenceCard } from "../types";
import { joinParts, type Parts } from "./parts";
import { byKind, type ChunkRecord, iso } from "./types";

/** Text inside a table cell: one line, pipes and backslashes escaped. */
export function mdCell(s: string): string {
  return s
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/[\r\n]+/g, " ")
    .trim();
}

/** Inline code that survives backticks in the text (a longer fence). */
export function mdCode(s: string): string {
  const one = s.replace(/[\r\n]+/g, " ");
  const runs = one.match(/`+/g) ?? [];
  const fence = "`".repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = one.startsWith("`") || one.endsWith("`") ? " " : "";
  return `${fence}${pad}${one}${pad}${fence}`;
}

/** Escape Markdown inline syntax in running text (headings, emphasis, links, HTML). */
export function mdText(s: string): string {
  return s.replace(/[\r\n]+/g, " ").replace(/([\\`*_[\]<>#|])/g, "\\$1");
}

function quote(s: string): string {
  return s
    .split(/\r?\n/)
    .map((l) => `> ${l}`)
    .join("\n");
}

export function anchorLabel(a: { artifact_id: string; version: number; start: number; end: number }): string {
  return `${a.artifact_id}@v${a.version} [${a.start},${a.end})`;
}

export function renderArchiveMarkdown(
  archive: { id: string; name: string },
  records: ChunkRecord[],
  opts: { asOf?: number | undefined; exportedAt: number },
): string {
  return joinParts(archiveMarkdownParts(archive, records, opts));
}

/** renderArchiveMarkdown's lines, one part each (joined with line breaks). */
export function archiveMarkdownParts(
  archive: { id: string; name: string },
  records: ChunkRecord[],
  opts: { asOf?: number | undefined; exportedAt: number },
): Parts {
  function* lines(): Generator<string, void, undefined> {
    yield `# ${mdText(archive.name)} (${mdCode(archive.id)})`;
    yield "";
    yield `${records.length} chunk${records.length === 1 ? "" : "s"}${opts.asOf !== undefined ? `, as of ${iso(opts.asOf)}` : ""}; exported ${iso(opts.exportedAt)}.`;
    yield "";
    for (const [kind, rows] of byKind(records)) {
      yield `## ${kind} (${rows.length})`;
      yield "";
      yield "| id | version | title | valid from | deprecated | review |";
      yield "|---|---|---|---|---|---|";
      for (const r of rows) {
        const dep =
          r.deprecatedAt !== null ? `${iso(r.deprecatedAt)}${r.deprecatedBy ? ` by ${r.deprecatedBy}` : ""}` : "";
        yield `| ${mdCell(r.id)} | v${r.version}${r.version !== r.latestVersion ? ` of ${r.latestVersion}` : ""} | ${mdCell(r.title)} | ${iso(r.validFrom)} | ${mdCell(dep)} | ${r.reviewStatus ?? "auto-generated"} |`;
      }
      yield "";
    }
  }
  return { parts: lines(), sep: "\n" };
}

/**
 * A /context result as Markdown within its budget: the document, counted in the budget's tokenizer,
 * holds at most `budget.total` tokens. Cards are taken in rank order, each if it fits in what is
 * left (a card that does not fit is skipped as over_budget, and a later smaller one may still fit:
 * no card is dropped for a less relevant one); a card prints what its prompt form holds, so no
 * sentence appears twice (an evidence snippet that is the claim's or the sketch's sentence is shown
 * by its anchor only). The skipped chunks are named while they fit, then counted by reason.
 */
export function renderContextMarkdown(ctx: {
  query: string;
  asOf: number;
  cards: Array<CodeCard>;
  budget: { total: number; cards: number; shortTerm: number; tokenizer: string };
  skipped: Array<{ chunk: string; reason: string }>;
  /** The relevance floor's outcome: when nothing reached it, the document says so. */
  evidence?: { found: boolean; floor: number; best: number };
  /** With max_code_bytes or code_chunks: the code the cards carry, the cap and the code cards left out. */
  code?: { bytes: number; max?: number | undefined; leftOut: string[] } | undefined;
}): string {
  const tokenizer = (TOKENIZERS as readonly string[]).includes(ctx.budget.tokenizer)
    ? (ctx.budget.tokenizer as TokenizerName)
    : DEFAULT_TOKENIZER;
  const count = (text: string) => countTokens(text, tokenizer);
  const total = ctx.budget.total;
  const none = ctx.evidence && !ctx.evidence.found;
  const title = [
    `# Context: ${mdText(ctx.query)}`,
    "",
    ...(ctx.code
      ? [
          `Code: ${ctx.code.bytes} bytes${ctx.code.max === undefined ? "" : ` of at most ${ctx.code.max}`}${ctx.code.leftOut.length ? `; left out for want of room: ${ctx.code.leftOut.map(mdCode).join(", ")}` : ""}.`,
          "",
        ]
      : []),
    ...(none
      ? [
          `No evidence above the relevance floor ${ctx.evidence?.floor} (the best relevance was ${ctx.evidence?.best}): nothing in this archive answers the query as asked.`,
          "",
        ]
      : []),
  ];
  // The header states the document's own count; it is filled in last, at most this wide.
  const header = (n: number, tokens: number) =>
    `As of ${iso(ctx.asOf)}; ${n} card${n === 1 ? "" : "s"}, ${tokens} of ${total} tokens (${tokenizer}).`;
  const fixed = count([...title, header(ctx.cards.length, total), ""].join("\n")) + 1;
  /** Cards in rank order while they fit in `limit`, then the skipped chunks while they fit. */
  const pack = (limit: number) => {
    const blocks: string[] = [];
    const skipped = [...ctx.skipped];
    let used = fixed;
    for (const c of ctx.cards) {
      const block = cardBlock(blocks.length + 1, c);
      const cost = count(block) + 1;
      if (used + cost <= limit) {
        blocks.push(block);
        used += cost;
      } else skipped.push({ chunk: c.artifact_id, reason: "over_budget" });
    }
    const tail: string[] = [];
    if (skipped.length) {
      const byReason = new Map<string, number>();
      for (const x of skipped) byReason.set(x.reason, (byReason.get(x.reason) ?? 0) + 1);
      const summary = `## Skipped (${[...byReason].map(([r, n]) => `${n} ${mdText(r)}`).join(", ")})`;
      if (used + count(summary) + 2 <= limit) {
        tail.push(summary, "");
        used += count(summary) + 2;
        for (const x of skipped) {
          const line = `- ${mdCode(x.chunk)}: ${mdText(x.reason)}`;
          const cost = count(line) + 1;
          if (used + cost > limit) break;
          tail.push(line);
          used += cost;
        }
        tail.push("");
      }
    }
    const doc = (tokens: number) =>
      collapseBlankRuns([...title, header(blocks.length, tokens), "", ...blocks, ...tail].join("\n"));
    // The stated count is the document's own (a number in the text changes the count; it settles
    // in a step or two).
    let stated = used;
    let out = doc(stated);
    for (let k = 0; k < 4 && count(out) !== stated; k++) {
      stated = count(out);
      out = doc(stated);
    }
    return out;
  };
  // Sums of parts can differ from the whole by a token at a join: count the whole, and pack again
  // within less until it fits (the budget is a bound, never an estimate).
  let limit = total;
  for (;;) {
    const out = pack(limit);
    const over = count(out) - total;
    if (over <= 0 || limit <= fixed) return out;
    limit -= over;
  }
}

/** A card as the context document takes it: with its relevance and, in code form, its code. */
type CodeCard = EvidenceCard & {
  relevance?: number;
  code?: { bytes: number; source: string; truncated?: boolean | undefined } | undefined;
};

/** Runs of blank lines become one, outside fenced code (code is verbatim, its blank lines too). */
function collapseBlankRuns(doc: string): string {
  let out = "";
  let at = 0;
  for (const m of doc.matchAll(/^(`{3,})\n[\s\S]*?\n\1$/gm)) {
    out += doc.slice(at, m.index).replace(/\n{3,}/g, "\n\n") + m[0];
    at = m.index + m[0].length;
  }
  return out + doc.slice(at).replace(/\n{3,}/g, "\n\n");
}

/** Code verbatim in a fenced block (a fence longer than any backtick run in it). */
function fenced(s: string): string {
  const runs = s.match(/`{3,}/g) ?? [];
  const fence = "`".repeat(Math.max(3, ...runs.map((r) => r.length + 1)));
  return `${fence}\n${s.endsWith("\n") ? s : `${s}\n`}${fence}`;
}

/** One card in Markdown: what its prompt form holds (promptCard), with anchors `id@vN [start,end)`. */
function cardBlock(rank: number, c: CodeCard): string {
  const p = promptCard(c);
  const out: string[] = [`## ${rank}. ${mdText(c.title)}`, ""];
  const rel = c.relevance === undefined ? "" : ` · relevance ${c.relevance.toFixed(2)}`;
  out.push(`${mdCode(`${c.artifact_id}@v${c.version}`)} · ${c.kind} · ${c.tokens} tokens${rel}`, "");
  if (c.code) {
    if (p.assumptions?.length) out.push("**Assumptions.**", "", ...p.assumptions.map((a) => `- ${mdText(a)}`), "");
    const how = c.code.source === "windows" ? "best windows" : "anchored spans";
    out.push(`**Code** (${how}, ${c.code.bytes} bytes${c.code.truncated ? ", cut at a line end to fit" : ""}).`, "");
    for (const a of c.anchored_spans) out.push(`- ${mdCode(anchorLabel(a))}`, "", fenced(a.snippet), "");
    return out.join("\n");
  }
  if (p.claim_boundary) out.push(`**Claim.** ${mdText(p.claim_boundary)}`, "");
  if (p.logic_sketch) out.push(`**Logic.** ${mdText(p.logic_sketch)}`, "");
  if (p.assumptions?.length) out.push("**Assumptions.**", "", ...p.assumptions.map((a) => `- ${mdText(a)}`), "");
  if (c.anchored_spans.length) {
    out.push("**Evidence.**", "");
    c.anchored_spans.forEach((a, k) => {
      out.push(`- ${mdCode(anchorLabel(a))}`, "");
      const snippet = p.anchored_spans[k]?.snippet;
      if (snippet) out.push(quote(snippet), "");
    });
  }
  return out.join("\n");
}
