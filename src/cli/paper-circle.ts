/**
 * Paper Circle's `papers` commands (seed 004): modes, statistics, locate, coverage, review, retrieval
 * metrics, review-score metrics (§4) and model reviewer reports (C33).
 */
import type {
  PaperGuruClient,
  RetrievalMetricsBody,
  ReviewBody,
  ReviewersBody,
  ReviewQuery,
  ReviewScoreMetricsBody,
} from "../client";
import { REVIEW_OPS } from "../core/review";
import { CHUNK_KINDS, EDGE_TYPES } from "../core/types";
import { type Command, flagOption, valueOption } from "./command";
import { asOf, list, oneOf, printedJson, printJson, printNextCursor, readJson, short } from "./common";
import { table, UsageError } from "./io";
import { yearRange } from "./query-flags";

type LocateKind = NonNullable<Parameters<PaperGuruClient["locate"]>[1]["kinds"]>[number];
type CoverageQ = Parameters<PaperGuruClient["coverage"]>[1];
/** The values src/contract/papers.ts allows (the CLI imports no contract code; tsc checks the types). */
const LOCATE_KINDS = ["section", "element", "paper"] as const satisfies readonly LocateKind[];
const COVERAGE_RULES = ["referenced", "grounded", "both", "either"] as const satisfies readonly NonNullable<
  CoverageQ["rule"]
>[];
const COVERAGE_AGGREGATES = ["micro", "macro"] as const satisfies readonly NonNullable<CoverageQ["aggregate"]>[];

const fmt = (x: number | null) => (x === null ? "n/a" : x.toFixed(4));

const papersReviewScores: Command = {
  name: "papers review-scores",
  args: "[<pairs.json|->] [--chunks <a,b>] [--predicted-key <k>] [--human-key <k>] [--as-of <time>]",
  summary:
    "Review-score metrics of predicted vs human scores: MSE, MAE, RMSE, Pearson, Spearman, accuracy within ±0.5/1/1.5.",
  details:
    'The file holds {"pairs": [{"predicted": 6, "human": 5}, ...]} or just the list of pairs; with --chunks, --predicted-key and --human-key the pairs are read from those annotation keys of the chunks (both pooled when given together).',
  options: {
    chunks: valueOption("<a,b>", "chunks whose stored scores to read", { multiple: true }),
    "predicted-key": valueOption("<k>", "annotation key of the predicted scores"),
    "human-key": valueOption("<k>", "annotation key of the human scores"),
    "as-of": valueOption("<time>", "stored scores as of then (default: now)"),
  },
  async run(r) {
    const src = r.positionals[0];
    const chunks = r.list("chunks");
    const pk = r.str("predicted-key");
    const hk = r.str("human-key");
    if ((chunks !== undefined || pk !== undefined || hk !== undefined) && !(chunks && pk && hk))
      throw new UsageError("--chunks, --predicted-key and --human-key go together", "papers review-scores");
    if (src === undefined && !chunks)
      throw new UsageError(
        "give a pairs file or --chunks with --predicted-key and --human-key",
        "papers review-scores",
      );
    const body: ReviewScoreMetricsBody = { as_of: r.str("as-of") };
    if (src !== undefined) {
      const json = await readJson(r, src, "-");
      const pairs = Array.isArray(json) ? json : (json as { pairs?: unknown } | null)?.pairs;
      if (!Array.isArray(pairs)) throw new UsageError(`${src}: expected {"pairs": [...]} or a list of pairs`);
      body.pairs = pairs as NonNullable<ReviewScoreMetricsBody["pairs"]>;
    }
    if (chunks && pk && hk) body.annotations = { chunks, predicted_key: pk, human_key: hk };
    const res = await r.client().reviewScores(r.archive(), body);
    if (printedJson(r, res)) return;
    r.out(
      `${res.n} pairs: MSE ${fmt(res.mse)}, MAE ${fmt(res.mae)}, RMSE ${fmt(res.rmse)}, Pearson ${fmt(res.pearson)}, Spearman ${fmt(res.spearman)}`,
    );
    r.out(
      `  within ${Object.entries(res.accuracy_within)
        // "1" is an integer-like key, so objects list it first: order by the threshold.
        .sort((a, b) => Number(a[0]) - Number(b[0]))
        .map(([t, v]) => `±${t}: ${(v * 100).toFixed(1)}%`)
        .join(", ")}`,
    );
    for (const s of res.skipped) r.out(`  skipped ${s.chunk}: no numeric ${s.missing.join(", ")}`);
  },
};

const papersReviewers: Command = {
  name: "papers reviewers",
  args: "<paper> [--reviewers <n>] [--focus <text>] [--as-of <time>] [--dry-run]",
  summary:
    "Reviewer reports for a paper from the configured language model, every claim quoting the paper (off without a model).",
  details:
    "Each claim is an exact span of the paper's (or a section's) version; claims whose quote is not verbatim are dropped and counted. Reports are stored as note chunks <paper>/review-<hash> unless --dry-run.",
  options: {
    reviewers: valueOption("<n>", "reports to write, 1 to 3 (default 3)"),
    focus: valueOption("<text>", "what the reviewers should look at"),
    "as-of": valueOption("<time>", "the paper as it was then (default: now)"),
    "dry-run": flagOption("ask the model and check, but write nothing"),
  },
  async run(r) {
    const body: ReviewersBody = {
      paper: r.arg(0),
      reviewers: r.int("reviewers", 1, 3),
      focus: r.str("focus"),
      as_of: r.str("as-of"),
      dry_run: r.values["dry-run"] === true,
    };
    const res = await r.client().reviewers(r.archive(), body);
    if (printedJson(r, res)) return;
    r.out(`${res.reports.length} report(s) on ${res.paper} by ${res.model} as of ${res.as_of}`);
    for (const rep of res.reports) {
      r.out(`${rep.id} [${rep.written}] ${rep.reviewer}: score ${rep.score}/10, confidence ${rep.confidence}/5`);
      for (const c of rep.claims)
        r.out(
          `  ${c.kind}: ${c.text} <- ${c.anchor.artifact_id}@v${c.anchor.version} [${c.anchor.start},${c.anchor.end})`,
        );
    }
    if (res.dropped_claims) r.out(`dropped ${res.dropped_claims} claim(s) whose quote did not verify`);
  },
};

const papersModes: Command = {
  name: "papers modes",
  args: "[<mode>]",
  summary: "Paper Circle's ranking modes with their weights and MMR λ, the views and the defaults (no query needed).",
  options: {},
  async run(r) {
    const res = await r.client().rankingModes(r.archive());
    const want = r.positionals[0];
    if (want !== undefined) oneOf("mode", want, res.modes.map((m) => m.mode) as [string, ...string[]]);
    const modes = want === undefined ? res.modes : res.modes.filter((m) => m.mode === want);
    if (printedJson(r, want === undefined ? res : modes[0])) return;
    r.out(
      table([
        ["mode", "similarity", "recency", "novelty", "bm25", "λ", "what"],
        ...modes.map((m) => [
          m.mode,
          ...(["similarity", "recency", "novelty", "bm25"] as const).map((k) =>
            m.weights ? String(m.weights[k]) : "-",
          ),
          String(m.lambda),
          m.description,
        ]),
      ]),
    );
    if (want === undefined) {
      for (const v of res.views) r.out(`view ${v.view}: ${v.description}`);
      const d = res.defaults;
      r.out(
        `defaults: mode ${d.mode}, similarity floor ${d.min_similarity} when a ranking reorders, pool ${d.pool}, canonical ≥ ${d.canonical.min_citations} citations or top ${d.canonical.top_share} share`,
      );
    }
  },
};

const papersStats: Command = {
  name: "papers stats",
  args: "[--within <id>] [--kinds paper] [--scope <tags>] [--venue <a,b>] [--year-from|--year-to <y>] [--references <r>] [--limit <n>] [--as-of <t>]",
  summary: "Collection statistics and insights: years, sources, authors, venues, keywords, citations, open access.",
  options: {
    within: valueOption("<id>", "only this chunk's part-of subtree"),
    kinds: valueOption("<a,b>", "kinds counted (default paper)", { multiple: true }),
    scope: valueOption("<tags>", "chunks with any of these boundary tags", { multiple: true }),
    references: valueOption("<r>", "works known only from a bibliography: exclude (default), include, only"),
    limit: valueOption("<n>", "papers read at most (1-2000)"),
    venue: valueOption("<a,b>", "only papers of these venues (ids or names)", { multiple: true }),
    "year-from": valueOption("<yyyy>", "only papers of this year or later"),
    "year-to": valueOption("<yyyy>", "only papers of this year or earlier"),
    ...asOf,
  },
  async run(r) {
    const kinds = r.list("kinds");
    const { yearFrom, yearTo } = yearRange(r);
    for (const k of kinds ?? []) oneOf("kinds", k, CHUNK_KINDS);
    const res = await r.client().stats(r.archive(), {
      within: r.str("within"),
      kinds: kinds?.join(","),
      boundaries_any: r.list("scope")?.join(","),
      references: oneOf("references", r.str("references"), ["exclude", "include", "only"] as const),
      limit: r.int("limit", 1, 2000),
      venues: r.list("venue")?.join(","),
      year_from: yearFrom,
      year_to: yearTo,
      as_of: r.str("as-of"),
    });
    if (printedJson(r, res)) return;
    r.out(`${res.papers} papers as of ${res.as_of}${res.truncated ? ` (first ${res.limit} read)` : ""}`);
    const i = res.insights;
    if (res.years.length) r.out(`  years: ${res.years.map((y) => `${y.year} ${y.count}`).join(", ")}`);
    if (i.primary_source)
      r.out(
        `  primary source: ${i.primary_source.source} (${i.primary_source.count}, ${(i.primary_source.share * 100).toFixed(0)}%)`,
      );
    if (res.top_authors.length)
      r.out(
        `  top authors: ${list(
          res.top_authors.map((a) => `${a.name} ${a.count}`),
          5,
        )}`,
      );
    if (res.top_venues.length)
      r.out(
        `  top venues: ${list(
          res.top_venues.map((a) => `${a.name} ${a.count}`),
          5,
        )}`,
      );
    if (i.hot_topics.length) r.out(`  hot topics: ${i.hot_topics.join(", ")}`);
    const c = res.citations;
    r.out(`  citations: total ${c.total}, mean ${c.mean ?? "-"}, median ${c.median ?? "-"}, max ${c.max ?? "-"}`);
    if (i.citation_leader)
      r.out(
        `  most cited: ${i.citation_leader.chunk} "${short(i.citation_leader.title, 70)}" (${i.citation_leader.citations})`,
      );
    if (i.open_access.known)
      r.out(`  open access: ${i.open_access.open} of ${i.open_access.known} known (${i.open_access.how})`);
  },
};

const papersLocate: Command = {
  name: "papers locate",
  args: '<paper> "<query>" [--limit 10] [--kinds section,element,paper] [--snippets 2] [--as-of <time>]',
  summary: "Where in one paper something is discussed: sections, figures, tables, equations, with exact snippets.",
  options: {
    limit: valueOption("<n>", "items (1-50, default 10)"),
    kinds: valueOption("<a,b>", `only ${LOCATE_KINDS.join(", ")}`, { multiple: true }),
    snippets: valueOption("<n>", "exact snippets per item (0-5, default 2)"),
    ...asOf,
  },
  async run(r) {
    const [paper, query] = [r.arg(0), r.arg(1)];
    const kinds = r.list("kinds")?.map((k) => oneOf("kinds", k, LOCATE_KINDS));
    const res = await r.client().locate(r.archive(), {
      paper,
      query,
      limit: r.int("limit", 1, 50),
      kinds,
      snippets: r.int("snippets", 0, 5),
      as_of: r.str("as-of"),
    });
    if (printedJson(r, res)) return;
    r.out(`"${short(query, 80)}" in ${res.paper} as of ${res.as_of} (${res.trace.subtree} items in the paper)`);
    if (!res.items.length) r.out("not found in this paper");
    for (const it of res.items) {
      const where = it.page === null ? "" : `, page ${it.page}`;
      r.out(
        `[${it.rank}] ${it.chunk}@v${it.version} (${it.element_type ?? it.kind}${where}, ${it.score}): ${short(it.title, 70)}`,
      );
      if (it.discussed_in.length) r.out(`    discussed in ${list(it.discussed_in, 5)}`);
      for (const s of it.snippets) r.out(`    [${s.start},${s.end}) "${short(s.text, 90)}"`);
    }
    if (res.sections.length)
      r.out(
        `sections: ${list(
          res.sections.map((s) => s.chunk),
          8,
        )}`,
      );
  },
};

const papersCoverage: Command = {
  name: "papers coverage",
  args: "<paper> [--rule referenced|grounded|both|either] [--aggregate micro|macro] [--as-of <time>]",
  summary: "Coverage of a paper's sections, figures, tables and equations: how many are linked, and which are not.",
  options: {
    rule: valueOption("<r>", `what counts as linked: ${COVERAGE_RULES.join(", ")} (default either)`),
    aggregate: valueOption("<a>", `overall share: ${COVERAGE_AGGREGATES.join(", ")} (default micro)`),
    ...asOf,
  },
  async run(r) {
    const res = await r.client().coverage(r.archive(), {
      paper: r.arg(0),
      rule: oneOf("rule", r.str("rule"), COVERAGE_RULES),
      aggregate: oneOf("aggregate", r.str("aggregate"), COVERAGE_AGGREGATES),
      as_of: r.str("as-of"),
    });
    if (printedJson(r, res)) return;
    r.out(
      `coverage of ${res.paper} (${res.rule}, ${res.aggregate}): ${res.share ?? "-"} (${res.linked} of ${res.total} linked)`,
    );
    r.out(
      table([
        ["  type", "linked", "total", "share", "unlinked"],
        ...Object.entries(res.types).map(([t, v]) => [
          `  ${t}`,
          String(v.linked),
          String(v.total),
          v.share === null ? "-" : String(v.share),
          list(
            v.unlinked.map((u) => u.chunk),
            4,
          ),
        ]),
      ]),
    );
  },
};

/** `from,type,to` of --edge. */
function edgeArg(spec: string): { from: string; type: (typeof EDGE_TYPES)[number]; to: string } {
  const parts = spec.split(",");
  if (parts.length !== 3 || parts.some((p) => !p.trim()))
    throw new UsageError(`--edge takes <from>,<type>,<to>, got ${spec}`);
  const [from, type, to] = parts.map((p) => p.trim()) as [string, string, string];
  return { from, type: oneOf("edge", type, EDGE_TYPES), to };
}

const papersReview: Command = {
  name: "papers review",
  args: "[<chunk>] [--edge <from>,<type>,<to>] [--op verify|flag|edit|add_edge|remove_edge [--reason <text>] ...]",
  summary:
    "A node's or an edge's review status and history; with --op, record a human verification first (verify, flag, edit, add or remove an edge).",
  options: {
    edge: valueOption("<f,t,to>", "an edge instead of a node: from,type,to"),
    op: valueOption("<op>", `record this: ${REVIEW_OPS.join(", ")} (write key)`),
    reason: valueOption("<text>", "why (required to flag)"),
    title: valueOption("<t>", "edit: the new title"),
    synopsis: valueOption("<s>", "edit: the new synopsis"),
    content: valueOption("<text>", "edit: the new content"),
    weight: valueOption("<w>", "add_edge: the edge's weight (default 1)"),
    at: valueOption("<time>", "when it holds from (default now)"),
    "event-id": valueOption("<id>", "your id for the operation: a retry changes nothing"),
    ...asOf,
  },
  async run(r) {
    const chunk = r.positionals[0];
    const edgeSpec = r.str("edge");
    if (!chunk === !edgeSpec) throw new UsageError("give a chunk id or --edge <from>,<type>,<to>", "papers review");
    const edge = edgeSpec ? edgeArg(edgeSpec) : undefined;
    const client = r.client();
    const archive = r.archive();
    const op = oneOf("op", r.str("op"), REVIEW_OPS);
    if (op) {
      const weight = r.num("weight", 0, 1000);
      const changes = { title: r.str("title"), synopsis: r.str("synopsis"), content: r.str("content") };
      const body: ReviewBody = {
        op,
        chunk,
        edge: edge ? { ...edge, ...(weight !== undefined ? { weight } : {}) } : undefined,
        reason: r.str("reason"),
        at: r.str("at"),
        event_id: r.str("event-id"),
        changes: Object.values(changes).some((v) => v !== undefined) ? changes : undefined,
      };
      const { answer: res, replayed } = await client.reviewOnce(archive, body);
      if (printedJson(r, res)) return;
      r.out(
        `${op}: ${res.previous_status} -> ${res.status}${res.version !== null ? ` (version ${res.version})` : ""}${replayed || res.duplicate ? " (already applied)" : ""}`,
      );
    }
    const q: ReviewQuery = edge ? { from: edge.from, type: edge.type, to: edge.to } : { chunk };
    const state = await client.reviewState(archive, { ...q, as_of: r.str("as-of") });
    if (printedJson(r, state)) return;
    const target = edge ? `${edge.from} -${edge.type}-> ${edge.to}` : chunk;
    r.out(
      `${target}: ${state.status}${state.since ? ` since ${state.since} by ${state.actor}` : ""}${state.reason ? ` (${state.reason})` : ""}`,
    );
    if (state.edge)
      r.out(
        `  edge ${state.edge.exists ? "valid" : "not valid"} at ${state.as_of} (${state.edge.valid_from ?? "-"} .. ${state.edge.valid_to ?? ""})`,
      );
    for (const h of state.history)
      r.out(`  ${h.at} ${h.op} -> ${h.status} by ${h.actor}${h.reason ? `: ${short(h.reason, 80)}` : ""}`);
    for (const e of state.edges ?? []) r.out(`  edge -${e.type}-> ${e.to}: ${e.status}`);
  },
};

function metricsLine(a: { queries: number; hit_rate: number; mrr: number; recall: Record<string, number> }): string {
  const recall = Object.entries(a.recall)
    .map(([k, v]) => `R@${k} ${v.toFixed(3)}`)
    .join(", ");
  return `${a.queries} queries: hit rate ${a.hit_rate.toFixed(3)}, MRR ${a.mrr.toFixed(3)}, ${recall}`;
}

const papersMetrics: Command = {
  name: "papers metrics",
  args: "[<queries.json|->] [--k 1,5,10] [--name <label>] [--no-store] [--as-of <time>] | --runs | --run <id>",
  summary:
    "Retrieval metrics of the router against gold ids (hit rate, MRR, Recall@K, Precision@K), stored as a run; --runs lists the stored runs.",
  details:
    'The file holds {"queries": [{"query": "...", "gold": ["id", ...], "filter"?: {...}}], "k"?: [...], "name"?: "..."} or just the list of queries (at most 100).',
  options: {
    k: valueOption("<a,b>", "cut-offs of Recall@K and Precision@K (default 1,5,10)"),
    name: valueOption("<label>", "a label to compare runs by"),
    "no-store": flagOption("compute only, keep no run"),
    runs: flagOption("list the stored runs, newest first"),
    run: valueOption("<id>", "one stored run with its per-query rows"),
    limit: valueOption("<n>", "with --runs: page size"),
    cursor: valueOption("<c>", "with --runs: the next page"),
    ...asOf,
  },
  async run(r) {
    const src = r.positionals[0];
    const runId = r.str("run");
    const modes = [src !== undefined, r.values.runs === true, runId !== undefined].filter(Boolean).length;
    if (modes !== 1) throw new UsageError("give a queries file, --runs or --run <id>", "papers metrics");
    const client = r.client();
    const archive = r.archive();
    if (r.values.runs === true) {
      const page = await client.retrievalRuns(archive, { limit: r.int("limit", 1, 500), cursor: r.str("cursor") });
      if (r.json) printJson(r, page);
      else {
        if (!page.items.length) r.out("no stored runs");
        for (const x of page.items) r.out(`${x.id} ${x.created_at} "${x.name}": ${metricsLine(x.aggregate)}`);
        printNextCursor(r, page.next_cursor);
      }
      return;
    }
    let res: Awaited<ReturnType<typeof client.retrievalRun>>;
    if (runId) res = await client.retrievalRun(archive, runId);
    else {
      const json = await readJson(r, src as string);
      const file = (Array.isArray(json) ? { queries: json } : json) as Partial<RetrievalMetricsBody>;
      if (!file || typeof file !== "object" || !Array.isArray(file.queries))
        throw new UsageError(`${src}: expected {"queries": [...]} or a list of queries`);
      const k = r.list("k")?.map((x) => {
        const n = Number(x);
        if (!Number.isInteger(n) || n < 1 || n > 100) throw new UsageError(`--k: ${x} is not an integer from 1 to 100`);
        return n;
      });
      res = await client.retrievalMetrics(archive, {
        ...file,
        queries: file.queries,
        k: k ?? file.k,
        name: r.str("name") ?? file.name,
        as_of: r.str("as-of") ?? file.as_of,
        store: r.values["no-store"] === true ? false : file.store,
      });
    }
    if (printedJson(r, res)) return;
    r.out(`run ${res.id ?? "(not stored)"} "${res.name}" as of ${res.as_of}: ${metricsLine(res.aggregate)}`);
    for (const q of res.per_query)
      r.out(`  ${q.first_rank === null ? "miss" : `#${q.first_rank}`}  ${short(q.query, 70)}`);
  },
};

export const PAPER_CIRCLE_COMMANDS: Command[] = [
  papersModes,
  papersStats,
  papersLocate,
  papersCoverage,
  papersReview,
  papersMetrics,
  papersReviewScores,
  papersReviewers,
];
