/**
 * Paper Circle (seed 004) discovery commands: `papers spec` (the query spec, §3.2), `papers
 * ranking-stats` (score statistics and the leaderboard, E.3) and `papers discover` (one-shot
 * discovery across the scholarly engines, C.2). Readable text, or the server's JSON with --json.
 */
import type { PaperGuruClient } from "../client";
import { type Command, flagOption, type Run, valueOption } from "./command";
import { asOf, flagOn, oneOf, printedJson, printJson } from "./common";
import { table } from "./io";

const ENGINES = ["arxiv", "openalex", "crossref", "semanticscholar", "dblp"] as const;
const MODES = ["stable", "discovery", "balanced"] as const;
const f4 = (x: number) => x.toFixed(3);

/** The value of a flag among `allowed` (a usage error otherwise, without suggestions). */
const pick = <T extends string>(flag: string, v: string | undefined, allowed: readonly T[]) =>
  oneOf(flag, v, allowed, { suggest: false });

/** The query spec as the server returns it (`papers spec`, and inside `papers discover`). */
type QuerySpec = Awaited<ReturnType<PaperGuruClient["querySpec"]>>;

function specLines(r: Run, s: QuerySpec) {
  r.out(`spec (${s.built_by}): keywords ${s.keywords.join(", ") || "-"}`);
  if (s.required.length) r.out(`  required: ${s.required.join(", ")}`);
  if (s.negative.length) r.out(`  negative: ${s.negative.join(", ")}`);
  if (s.related.length) r.out(`  related: ${s.related.join(", ")}`);
  if (s.year_from !== null || s.year_to !== null) r.out(`  years: ${s.year_from ?? "…"}-${s.year_to ?? "…"}`);
  for (const t of s.titles) r.out(`  title: ${t}`);
  if (s.model_note) r.out(`  model: ${s.model_note}`);
}

const papersSpec: Command = {
  name: "papers spec",
  args: '"<query>" [--model]',
  summary:
    "The query's structured spec: keywords, required and negative terms, related terms, plausible titles, years.",
  options: { model: flagOption("ask the configured language model (verified)") },
  async run(r) {
    const res = await r.client().querySpec(r.archive(), {
      query: r.arg(0),
      model: flagOn(r, "model"),
    });
    if (r.json) printJson(r, res);
    else specLines(r, res);
  },
};

const papersRankingStats: Command = {
  name: "papers ranking-stats",
  args: '"<query>" [--mode stable|discovery|balanced|poe] [--top <n>] [--as-of <time>]',
  summary: "Score statistics (mean similarity, recency, novelty, BM25) and the leaderboard of the query's ranked pool.",
  options: {
    mode: valueOption("<mode>", "ranking mode (default stable)"),
    top: valueOption("<n>", "leaderboard entries (1-100, default 10)"),
    ...asOf,
  },
  async run(r) {
    const mode = pick("mode", r.str("mode"), ["poe", ...MODES] as const);
    const res = await r.client().rankingStats(r.archive(), {
      query: r.arg(0),
      ...(mode ? { ranking: { mode } } : {}),
      top: r.int("top", 1, 100),
      as_of: r.str("as-of"),
    });
    if (printedJson(r, res)) return;
    const m = res.score_stats.mean;
    r.out(`${res.score_stats.ranked} ranked of ${res.pool} (mode ${res.mode}) as of ${res.as_of}`);
    r.out(
      `  mean similarity ${f4(m.similarity)}, recency ${f4(m.recency)}, novelty ${f4(m.novelty)}, bm25 ${f4(m.bm25)}, combined ${f4(m.combined)}`,
    );
    r.out(
      table([
        ["#", "chunk", "sim", "rec", "nov", "bm25", "combined", "title"],
        ...res.leaderboard.map((e) => [
          String(e.rank),
          e.chunk,
          f4(e.similarity),
          f4(e.recency),
          f4(e.novelty),
          f4(e.bm25),
          f4(e.combined),
          e.title.slice(0, 60),
        ]),
      ]),
    );
  },
};

const papersDiscover: Command = {
  name: "papers discover",
  args: '"<query>" [--engines <list>] [--per-engine <n>] [--limit <n>] [--timeout <ms>] [--mode <m>] [--model] [--rerank]',
  summary:
    "One-shot discovery: search several engines at once, merged by DOI and title, ranked, marked when already stored.",
  details:
    'Stores nothing: import the records you keep (e.g. `paperguru sources add semanticscholar "ARXIV:<id>"` or an ingest of the id).',
  options: {
    engines: valueOption("<a,b>", `engines asked (default all: ${ENGINES.join(", ")})`, { multiple: true }),
    "per-engine": valueOption("<n>", "records asked of each engine (1-50, default 10)"),
    limit: valueOption("<n>", "records returned (1-100, default 20)"),
    timeout: valueOption("<ms>", "each engine's time to answer (500-20000, default 8000)"),
    mode: valueOption("<mode>", "stable (default), discovery or balanced"),
    model: flagOption("build the query spec with the configured model"),
    rerank: flagOption("reorder by the configured reranker"),
  },
  async run(r) {
    const engines = r.list("engines")?.map((e) => pick("engines", e, ENGINES) as (typeof ENGINES)[number]);
    const res = await r.client().discover(r.archive(), {
      query: r.arg(0),
      engines,
      per_engine: r.int("per-engine", 1, 50),
      limit: r.int("limit", 1, 100),
      timeout_ms: r.int("timeout", 500, 20_000),
      mode: pick("mode", r.str("mode"), MODES),
      model: flagOn(r, "model"),
      rerank: flagOn(r, "rerank"),
    });
    if (printedJson(r, res)) return;
    specLines(r, res.spec);
    for (const e of res.engines)
      r.out(`engine ${e.engine}: ${e.status}, ${e.returned} records in ${e.ms} ms${e.error ? ` (${e.error})` : ""}`);
    const d = res.dedup;
    r.out(
      `${d.fetched} fetched, ${d.unique} unique (merged: ${d.merged_by_doi} by DOI, ${d.merged_by_arxiv} by arXiv id, ${d.merged_by_title} by title), ${d.in_archive} already stored`,
    );
    r.out(
      table([
        ["#", "id", "year", "engines", "stored", "combined", "title"],
        ...res.items.map((x) => [
          String(x.rank),
          x.id,
          x.year === null ? "-" : String(x.year),
          x.engines.join(","),
          x.in_archive ? x.in_archive.chunk : "-",
          f4(x.combined),
          x.title.slice(0, 60),
        ]),
      ]),
    );
  },
};

export const DISCOVERY_COMMANDS: Command[] = [papersSpec, papersRankingStats, papersDiscover];
