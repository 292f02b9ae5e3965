/** Markdown: an archive listing, or a query result as evidence cards with exact anchors. */
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

export function renderContextMarkdown(ctx: {
  query: string;
  asOf: number;
  cards: EvidenceCard[];
  budget: { total: number; cards: number; shortTerm: number; tokenizer: string };
  skipped: Array<{ chunk: string; reason: string }>;
}): string {
  const out: string[] = [
    `# Context: ${mdText(ctx.query)}`,
    "",
    `As of ${iso(ctx.asOf)}; ${ctx.cards.length} card${ctx.cards.length === 1 ? "" : "s"}, ${ctx.budget.cards + ctx.budget.shortTerm} of ${ctx.budget.total} tokens (${ctx.budget.tokenizer}).`,
    "",
  ];
  ctx.cards.forEach((c, i) => {
    out.push(`## ${i + 1}. ${mdText(c.title)}`, "");
    out.push(`${mdCode(`${c.artifact_id}@v${c.version}`)} · ${c.kind} · ${c.tokens} tokens`, "");
    if (c.claim_boundary) out.push(`**Claim.** ${mdText(c.claim_boundary)}`, "");
    if (c.logic_sketch) out.push(`**Logic.** ${mdText(c.logic_sketch)}`, "");
    if (c.assumptions.length) out.push("**Assumptions.**", "", ...c.assumptions.map((a) => `- ${mdText(a)}`), "");
    if (c.anchored_spans.length) {
      out.push("**Evidence.**", "");
      for (const a of c.anchored_spans) out.push(`- ${mdCode(anchorLabel(a))}`, "", quote(a.snippet), "");
    }
  });
  if (ctx.skipped.length) {
    out.push("## Skipped", "", ...ctx.skipped.map((s) => `- ${mdCode(s.chunk)}: ${mdText(s.reason)}`), "");
  }
  return out.join("\n");
}
