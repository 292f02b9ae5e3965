/** The query commands: `route`, `context`, `expand` (cards for chosen chunks), `verify` (anchors) and `export`. */
import {
  type Anchor,
  CONTEXT_EXPORT_FORMATS,
  type ContextBody,
  type ContextExportFormat,
  EXPORT_FORMATS,
  type ExportFormat,
  type RouteBody,
} from "../client";
import { type Command, flagOption, type OptionSpec, type Run, valueOption } from "./command";
import { asOf, budget, outOption, printJson, readJson, writeOut } from "./common";
import { EXIT, UsageError } from "./io";
import {
  CODE_OPTIONS,
  codeFromFlags,
  FILTER_OPTIONS,
  FOLLOW_OPTION,
  filterFromFlags,
  followFromFlags,
  RANKING_OPTIONS,
  rankingFromFlags,
  rewriteCodeChunks,
  rewriteMmr,
} from "./query-flags";
import { extractAnchors, renderCard, renderContext, renderRoute, renderTrace, renderVerify } from "./render";

const QUERY_DETAILS = [
  "Filters apply before the top-M cut: --kinds, --scope/--scope-all (boundary tags), --within, --cited-by, --exclude,",
  "--grounded, --min-similarity. Ranking reorders the candidate pool: --mode, --weights, --mmr [λ], --sort, --view.",
  "Bad values are usage errors (exit 2) naming the flag and the allowed values.",
].join("\n");

/** --max-card-tokens of context and expand. */
const MAX_CARD_TOKENS: OptionSpec = valueOption("<n>", "at most n tokens per card (50-4000)");
const maxCardTokens = (r: Run) => r.int("max-card-tokens", 50, 4000);

const routeCmd: Command = {
  name: "route",
  args: '"<query>" [--as-of <time>] [--limit <n>] [filters] [ranking] [--trace]',
  summary: "Head-only routing: the chunks a query reaches, with per-expert scores.",
  details: QUERY_DETAILS,
  options: {
    ...asOf,
    limit: valueOption("<n>", "candidates (1-256)"),
    session: valueOption("<id>", "the caller's session (its accesses seed recency)"),
    ...FILTER_OPTIONS,
    ...RANKING_OPTIONS,
    trace: flagOption("ask for the trace (seeds, diffusion, router steps, timings)"),
  },
  rewrite: rewriteMmr,
  async run(r) {
    const query = r.arg(0);
    const limit = r.int("limit", 1, 256);
    const body: RouteBody & { include_trace?: boolean } = {
      query,
      as_of: r.str("as-of"),
      limit,
      session_id: r.str("session"),
      filter: filterFromFlags(r),
      ranking: rankingFromFlags(r),
      ...(r.values.trace === true ? { include_trace: true } : {}),
    };
    const res = await r.client().route(r.archive(), body);
    if (r.json) printJson(r, res);
    else {
      r.io.stdout.write(renderRoute(query, res, limit ?? 10));
      if (r.values.trace === true && res.trace) r.out(renderTrace(res.trace));
    }
  },
};

const contextCmd: Command = {
  name: "context",
  args: '"<query>" [--budget 2000] [--as-of <time>] [--max-cards <n>] [--session <id>] [filters] [ranking] [--follow <t>] [code]',
  summary: "Evidence cards for a query within a token budget (title, artifact@version, claim, sketch, anchors).",
  details: `${QUERY_DETAILS}\nCode (xKG): --max-code-bytes <n> caps the code cards' code, --code-chunks [size[:overlap]] carries its best windows.\n\`paperguru context "..." --json | paperguru verify -\` re-checks every anchor.`,
  options: {
    ...asOf,
    ...budget(2000),
    "max-cards": valueOption("<n>", "at most n cards (1-64)"),
    "max-card-tokens": MAX_CARD_TOKENS,
    tokenizer: valueOption("<enc>", "count tokens in cl100k_base (default) or o200k_base"),
    session: valueOption("<id>", "include this session's short-term events"),
    "min-relevance": valueOption("<0-1>", "evidence floor: no cards at all when nothing reaches it (0 turns it off)"),
    "min-card-relevance": valueOption("<0-1>", "no card below this relevance"),
    ...FILTER_OPTIONS,
    ...RANKING_OPTIONS,
    ...FOLLOW_OPTION,
    ...CODE_OPTIONS,
    trace: flagOption("ask for the trace (mentions, seeds, timings); off by default"),
  },
  rewrite: (argv) => rewriteCodeChunks(rewriteMmr(argv)),
  async run(r) {
    const query = r.arg(0);
    const body: ContextBody & { include_trace?: boolean } = {
      ...codeFromFlags(r),
      query,
      as_of: r.str("as-of"),
      budget_tokens: r.int("budget", 50, 200_000) ?? 2000,
      max_cards: r.int("max-cards", 1, 64),
      max_card_tokens: maxCardTokens(r),
      tokenizer: tokenizerFlag(r),
      session_id: r.str("session"),
      filter: filterFromFlags(r),
      ranking: rankingFromFlags(r),
      follow: followFromFlags(r),
      min_relevance: unitFlag(r, "min-relevance"),
      min_card_relevance: unitFlag(r, "min-card-relevance"),
      ...(r.values.trace === true ? { include_trace: true } : {}),
    };
    const res = await r.client().context(r.archive(), body);
    if (r.json) printJson(r, res);
    else {
      r.io.stdout.write(renderContext(query, res));
      if (r.values.trace === true && res.trace) r.out(renderTrace(res.trace));
    }
  },
};

/** A flag holding a number from 0 to 1. */
function unitFlag(r: Run, name: string): number | undefined {
  const v = r.str(name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1)
    throw new UsageError(`--${name} must be a number from 0 to 1, got ${v}`);
  return n;
}

function tokenizerFlag(r: Run): ContextBody["tokenizer"] {
  const t = r.str("tokenizer");
  if (t === undefined) return undefined;
  if (t !== "cl100k_base" && t !== "o200k_base")
    throw new UsageError(`--tokenizer must be cl100k_base or o200k_base, got ${t}`);
  return t;
}

const expandCmd: Command = {
  name: "expand",
  args: '<id[@version]>... [--query "<q>"] [--budget 4000] [--as-of <time>] [--follow <t>]',
  summary: "Cards for chosen chunks (the versions valid at --as-of, or id@version), without routing.",
  options: {
    ...asOf,
    query: valueOption("<q>", "what the cards should focus on", { short: "q" }),
    ...budget(4000),
    "max-card-tokens": MAX_CARD_TOKENS,
    tokenizer: valueOption("<enc>", "cl100k_base (default) or o200k_base"),
    session: valueOption("<id>", "count these reads in this session's recency"),
    ...FOLLOW_OPTION,
  },
  positionals: [1, 64],
  async run(r) {
    const chunks = r.positionals.map((p) => {
      const m = /^(.+)@v?(\d+)$/.exec(p);
      return m ? { id: m[1] as string, version: Number(m[2]) } : { id: p };
    });
    const res = await r.client().expand(r.archive(), {
      query: r.str("query") ?? "",
      chunks,
      as_of: r.str("as-of"),
      budget_tokens: r.int("budget", 50, 200_000) ?? 4000,
      max_card_tokens: maxCardTokens(r),
      tokenizer: tokenizerFlag(r),
      session_id: r.str("session"),
      follow: followFromFlags(r),
    });
    if (r.json) printJson(r, res);
    else {
      r.out(`${res.cards.length} card${res.cards.length === 1 ? "" : "s"}, ${res.tokens} tokens`);
      for (const [i, c] of res.cards.entries()) r.out(`\n${renderCard(c, i)}`);
      if (res.skipped.length) r.out(`\nskipped: ${res.skipped.map((s) => `${s.chunk} (${s.reason})`).join(", ")}`);
    }
  },
};

const verifyCmd: Command = {
  name: "verify",
  args: "<anchors.json|->",
  summary: "Re-check anchors: is each snippet exactly the text at [start, end) of that version?",
  details:
    "Input: a JSON list of anchors, {anchors: [...]}, or a context/expand response (`context --json`); - reads stdin.\nPrints ok or MISMATCH per anchor; exits 1 if any anchor fails.",
  async run(r) {
    const found = extractAnchors(await readJson(r, r.arg(0), "stdin", "verify"));
    if (!found)
      throw new UsageError(
        "no anchors found: give a list of anchors, {anchors: [...]} or a context --json output",
        "verify",
      );
    const anchors: Anchor[] = found.map(({ artifact_id, version, start, end, snippet }) => ({
      artifact_id,
      version,
      start,
      end,
      snippet,
    }));
    if (!anchors.length) {
      if (r.json) printJson(r, { all_verified: true, results: [] });
      else r.out("no anchors to verify");
      return;
    }
    const client = r.client();
    const archive = r.archive();
    const results = [];
    for (let i = 0; i < anchors.length; i += 500)
      results.push(...(await client.verify(archive, { anchors: anchors.slice(i, i + 500) })).results);
    const ok = results.filter((x) => x.verified).length;
    if (r.json) printJson(r, { all_verified: ok === results.length, results });
    else {
      for (const x of results) r.out(renderVerify(x));
      r.out(`${ok}/${results.length} anchors verified`);
    }
    return ok === results.length ? EXIT.ok : EXIT.failed;
  },
};

// ------------------------------------------------------------------ export

const exportCmd: Command = {
  name: "export",
  args: '--format <f> [--out <file>] [--as-of <time>] [--within <chunk> | --collection <chunk>] [--query "<q>" [--budget <n>]]',
  summary: "Export the archive (as of a time), or with --query the cards of a context request.",
  details: `Archive formats: ${EXPORT_FORMATS.join(", ")} (json is a lossless dump that \`paperguru import\` re-imports).\nWith --query: ${CONTEXT_EXPORT_FORMATS.join(", ")}.`,
  options: {
    format: valueOption("<f>", EXPORT_FORMATS.join(", "), { short: "f" }),
    out: outOption,
    ...asOf,
    query: valueOption("<q>", "export the context for this query", { short: "q" }),
    budget: valueOption("<tokens>", "context budget with --query (default 2000)"),
    within: valueOption("<chunk>", "only this chunk's part-of subtree (a paper's graph)"),
    collection: valueOption("<chunk>", "only this collection's members"),
  },
  async run(r) {
    const format = r.str("format");
    if (!format) throw new UsageError("missing --format", "export");
    if (!(EXPORT_FORMATS as readonly string[]).includes(format))
      throw new UsageError(`unknown --format ${format}; use one of ${EXPORT_FORMATS.join(", ")}`, "export");
    const query = r.str("query");
    const budget = r.int("budget", 50, 200_000);
    if (budget !== undefined && !query) throw new UsageError("--budget needs --query", "export");
    if (query && !(CONTEXT_EXPORT_FORMATS as readonly string[]).includes(format))
      throw new UsageError(
        `--query exports take --format ${CONTEXT_EXPORT_FORMATS.join(", ")}, not ${format}`,
        "export",
      );
    const client = r.client();
    const archive = r.archive();
    const as_of = r.str("as-of");
    const text = query
      ? await client.exportContext(archive, {
          query,
          as_of,
          budget_tokens: budget ?? 2000,
          format: format as ContextExportFormat,
        })
      : await client.export(archive, {
          format: format as ExportFormat,
          as_of,
          within: r.str("within"),
          collection: r.str("collection"),
        });
    writeOut(r, text, format);
  },
};

export const QUERY_COMMANDS: Command[] = [routeCmd, contextCmd, expandCmd, verifyCmd, exportCmd];
