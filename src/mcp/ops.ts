/**
 * The research-memory operations behind two MCP tools, `research` (reads) and `curate` (writes):
 * each op takes the REST request of the same capability as `args` (the fields /docs lists for it)
 * and calls the same use case. One tool per op would list every schema in tools/list, a fixed cost
 * in every agent's context held under 16 KB; here the listing names the ops, the server checks
 * `args` against the op's zod schema, naming the field at fault (`args.<field>`), and the read op
 * `schema` answers the JSON Schema of any op's args (the same zod schema, z.toJSONSchema).
 */
import { z } from "zod";
import type { UseCases } from "../app";
import * as S from "../contract";
import { fail, ok, type Result, schemaFailure } from "../core/errors";
import { BBL_LIMITS } from "../core/formats/bbl";

/** One op: the schema its `args` must match and the use case it calls. */
export interface Op {
  /** The REST route whose request `args` is, for the error hint and the docs. */
  rest: string;
  schema: z.ZodType;
  run(app: UseCases, archive: string, args: never, authorization: string | undefined): Promise<Result<object>>;
}

function op<T extends z.ZodType>(
  rest: string,
  schema: T,
  run: (app: UseCases, archive: string, args: z.infer<T>, authorization: string | undefined) => Promise<Result<object>>,
): Op {
  return { rest, schema, run: run as Op["run"] };
}

/** Hub iterations the `hub` op returns by default (the newest). */
export const HUB_LAST = 10;

/** Reads: they change nothing. */
export const READ_OPS = {
  tree: op("GET /tree", S.TreeQuery, (app, a, x) => app.research.tree(a, x)),
  // A hub gains an iteration per gather: MCP returns the last `last` (default 10), REST all of them.
  hub: op(
    "GET /hubs",
    S.HubQuery.extend({ last: z.number().int().min(1).max(100).default(HUB_LAST).describe("Iterations, newest.") }),
    async (app, a, { last, ...x }) => {
      const r = await app.research.hub(a, x);
      if (!r.ok) return r;
      const all = r.value.iterations;
      return ok({ ...r.value, iterations: all.slice(-last), iterations_total: all.length });
    },
  ),
  draft: op("GET /drafts", S.DraftQuery, (app, a, x) => app.research.readDraft(a, x)),
  convergence: op("GET /convergence", S.ConvergenceQuery, (app, a, x) => app.research.convergence(a, x)),
  assemble: op("POST /assemble", S.AssembleBody, (app, a, x) => app.research.assemble(a, x)),
  // Reading only: recording a use (event_id) is the curate op use_feedback.
  feedback: op("POST /feedback/select", S.FeedbackSelectBody.omit({ event_id: true }), (app, a, x) =>
    app.research.selectFeedback(a, x),
  ),
  references: op("POST /references/select", S.ReferencesSelectBody, (app, a, x) => app.research.selectReferences(a, x)),
  scaffold: op("GET /scaffold", S.ScaffoldQuery, async (app, a, x) => {
    const r = await app.research.scaffold(a, x);
    if (!r.ok || x.format === "json") return r;
    return ok({ root: r.value.root, as_of: r.value.as_of, markdown: app.research.scaffoldMarkdown(r.value) });
  }),
  stats: op("GET /stats", S.StatsQuery, (app, a, x) => app.discovery.stats(a, x)),
  locate: op("POST /locate", S.LocateBody, (app, a, x) => app.papers.locate(a, x)),
  coverage: op("GET /coverage", S.CoverageQuery, (app, a, x) => app.papers.coverage(a, x)),
  review_state: op("GET /review", S.ReviewQuery, (app, a, x) => app.review.state(a, x)),
  runs: op("GET /metrics/retrieval/runs", S.RunListQuery, (app, a, x) => app.review.runs(a, x)),
  run: op("GET /metrics/retrieval/runs/{run}", S.RunParam.pick({ run: true }), (app, a, x) => app.review.run(a, x.run)),
  review_scores: op("POST /metrics/review-scores", S.ReviewScoreMetricsBody, (app, a, x) =>
    app.review.reviewScores(a, x),
  ),
  // ProjectGuard's DIR, xKG's grounding and code pairs, a chunk's version diff, per-channel access counts.
  dir: op("GET /metrics/dir", S.DirQuery, (app, a, x) => app.metrics.dir(a, x)),
  // ProjectGuard's metrics over stored runs and the exposure audits; judge calibration (seed 002).
  project_metrics: op("GET /projectguard/metrics", S.PgMetricsQuery, (app, a, x) => app.project.projectMetrics(a, x)),
  calibration: op("POST /projectguard/calibration", S.PgCalibrationBody, (app, a, x) => app.project.calibrate(a, x)),
  grounding: op("GET /metrics/grounding", S.GroundingQuery, (app, a, x) => app.metrics.grounding(a, x)),
  code_pairs: op("POST /code-pairs", S.CodePairsBody, (app, a, x) => app.codePairs.pairs(a, x)),
  diff: op("GET /chunks/{id}/diff", S.DiffQuery.extend({ chunk: z.string().min(1).max(S.MAX_ID) }), (app, a, x) => {
    const { chunk, ...q } = x;
    return app.browse.diff(a, chunk, q);
  }),
  modes: op("GET /ranking/modes", z.object({}).strict(), async (app) => ok(app.discovery.rankingModes())),
  // Paper Circle's query spec (§3.2), ranked-pool statistics and leaderboard (E.3), one-shot discovery (C.2).
  query_spec: op("POST /query-spec", S.QuerySpecBody, (app, _a, x) => app.discovery.querySpec(x)),
  ranking_stats: op("POST /ranking/stats", S.RankingStatsBody, (app, a, x) => app.discovery.rankingStats(a, x)),
  discover: op("POST /discover", S.DiscoverBody, (app, a, x) => app.discovery.discover(a, x)),
  access_counts: op("GET /access-counts", S.AccessCountsQuery, (app, a, x) => app.access.accessCounts(a, x)),
  // PaperBench: a rubric tree scored from leaf grades or the leaf judge (needs a model for `judge`).
  paperbench_score: op("POST /paperbench/score", S.PaperbenchScoreBody, (app, a, x) => app.paperbench.score(a, x)),
  schema: op(
    "none (this server's own)",
    z.object({ op: z.string().min(1).max(64).optional() }).strict(),
    async (_app, _a, x) => opSchemas(x.op),
  ),
} satisfies Record<string, Op>;

/** Writes: each adds versions, annotations or a stored run (the propose_* ops ask the configured model first). */
export const WRITE_OPS = {
  gather: op("POST /hubs/gather", S.GatherBody, (app, a, x) => app.research.gather(a, x)),
  draft: op("POST /drafts", S.DraftBody, (app, a, x) => app.research.draft(a, x)),
  review: op("POST /review", S.ReviewBody, (app, a, x, auth) => app.review.apply(a, x, auth)),
  metrics: op("POST /metrics/retrieval", S.RetrievalMetricsBody, (app, a, x, auth) => app.review.retrieval(a, x, auth)),
  // The seed systems' model roles (need a configured model; docs/models.md).
  commitments: op("POST /commitments/propose", S.CommitmentsBody, (app, a, x, auth) =>
    app.project.proposeCommitments(a, x, auth),
  ),
  // ProjectGuard: a record's spec, a run's rubric scores, a task's exposure audit (seed 002).
  spec: op("POST /projectguard/spec", S.SpecBody, (app, a, x, auth) => app.project.setSpec(a, x, auth)),
  project_run: op("POST /projectguard/runs", S.PgRunBody, (app, a, x) => app.project.storeRun(a, x)),
  exposure: op("POST /projectguard/exposure", S.PgExposureBody, (app, a, x) => app.project.storeExposure(a, x)),
  judge: op("POST /projectguard/judge", S.PgJudgeBody, (app, a, x) => app.project.judge(a, x)),
  techniques: op("POST /techniques/propose", S.TechniquesBody, (app, a, x, auth) =>
    app.techniques.proposeTechniques(a, x, auth),
  ),
  rewrite: op("POST /techniques/rewrite", S.RewriteBody, (app, a, x, auth) =>
    app.techniques.rewriteTechnique(a, x, auth),
  ),
  critique: op("POST /feedback/propose", S.FeedbackProposeBody, (app, a, x, auth) =>
    app.research.proposeFeedback(a, x, auth),
  ),
  reviewers: op("POST /reviewers", S.ReviewersBody, (app, a, x, auth) => app.review.proposeReviews(a, x, auth)),
  // SGMC: a selection counted as a use (Eq. 12), A_O's sub-outlines, the self-loop (model).
  use_feedback: op(
    "POST /feedback/select (with event_id)",
    S.FeedbackSelectBody.required({ event_id: true }),
    (app, a, x, auth) => app.research.selectFeedback(a, x, auth),
  ),
  outline: op("POST /outline/propose", S.OutlineProposeBody, (app, a, x) => app.research.proposeOutline(a, x)),
  loop: op("POST /feedback/loop", S.FeedbackLoopBody, (app, a, x) => app.research.feedbackLoop(a, x)),
  // xKG's references: a paper's .bbl as its cites edges (the import's query, the file as `text`).
  import_bbl: op(
    "POST /import?format=bbl (query fields; the file as text)",
    S.ImportQuery.pick({ paper: true, name: true, valid_from: true, recreate_deleted: true })
      .required({ paper: true })
      .extend({ text: z.string().min(1).max(BBL_LIMITS.maxChars).describe("The .bbl file's text.") })
      .strict(),
    (app, a, { text, ...q }, auth) => app.imports.file(a, { ...q, format: "bbl" }, text, auth),
  ),
} satisfies Record<string, Op>;

/** Run `op` of `table` with `args` checked against its schema. */
export async function runOp(
  table: Record<string, Op>,
  app: UseCases,
  archive: string,
  name: string,
  args: unknown,
  authorization: string | undefined,
): Promise<Result<object>> {
  const o = table[name];
  if (!o) return fail("validation", `op: unknown op ${name}`, "op", `one of ${Object.keys(table).join(", ")}`);
  const parsed = o.schema.safeParse(args ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ ...i, path: ["args", ...i.path] }));
    const hint = `args is the request of ${o.rest} (see /docs)`;
    return { ok: false, error: schemaFailure(issues, { subject: "args", hint, fieldFallback: true }) };
  }
  return o.run(app, archive, parsed.data as never, authorization);
}

/** The tables by the tool that serves them. */
const TABLES: Array<[tool: string, table: Record<string, Op>]> = [
  ["research", READ_OPS],
  ["curate", WRITE_OPS],
];

/**
 * Without `op`: every op with its tool and REST route. With `op`: the JSON Schema (draft 7, the
 * input side) of its args, once per tool that has an op of that name (`draft` is both a read and a
 * write). Validation is still the zod schema's; refinements (such as "lambda needs mmr") are not in
 * the JSON Schema, and the failure names them.
 */
export function opSchemas(name?: string): Result<object> {
  if (name === undefined)
    return ok({ ops: TABLES.flatMap(([tool, t]) => Object.entries(t).map(([op, o]) => ({ tool, op, rest: o.rest }))) });
  const found = TABLES.flatMap(([tool, t]) => {
    const o = t[name];
    if (!o) return [];
    const { $schema: _, ...schema } = z.toJSONSchema(o.schema, {
      io: "input",
      target: "draft-7",
      unrepresentable: "any",
    }) as Record<string, unknown>;
    return [{ tool, op: name, rest: o.rest, schema }];
  });
  if (!found.length) {
    const all = TABLES.flatMap(([, t]) => Object.keys(t));
    return fail("validation", `args.op: unknown op ${name}`, "args.op", `one of ${[...new Set(all)].join(", ")}`);
  }
  return ok({ ops: found });
}
