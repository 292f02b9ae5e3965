/**
 * Paper Circle (seed 004) commands beside `papers metrics`: review-score metrics (§4) and model
 * reviewer reports (C33).
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { ReviewersBody, ReviewScoreMetricsBody } from "../client";
import type { Command, Run } from "./command";
import { EXIT, UsageError } from "./io";

const printJson = (r: Run, v: unknown) => r.out(JSON.stringify(v, null, 2));
const fmt = (x: number | null) => (x === null ? "n/a" : x.toFixed(4));

/** JSON from a file or stdin (-), as a usage error when it is missing or not JSON. */
async function readJson(r: Run, src: string): Promise<unknown> {
  let text: string;
  if (src === "-") text = await r.io.readStdin();
  else {
    const path = resolve(r.io.cwd, src);
    if (!existsSync(path)) throw new UsageError(`no such file: ${src}`);
    text = readFileSync(path, "utf8");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${src} is not JSON`);
  }
}

const papersReviewScores: Command = {
  name: "papers review-scores",
  args: "[<pairs.json|->] [--chunks <a,b>] [--predicted-key <k>] [--human-key <k>] [--as-of <time>]",
  summary:
    "Review-score metrics of predicted vs human scores: MSE, MAE, RMSE, Pearson, Spearman, accuracy within ±0.5/1/1.5.",
  details:
    'The file holds {"pairs": [{"predicted": 6, "human": 5}, ...]} or just the list of pairs; with --chunks, --predicted-key and --human-key the pairs are read from those annotation keys of the chunks (both pooled when given together).',
  options: {
    chunks: { type: "string", multiple: true, arg: "<a,b>", description: "chunks whose stored scores to read" },
    "predicted-key": { type: "string", arg: "<k>", description: "annotation key of the predicted scores" },
    "human-key": { type: "string", arg: "<k>", description: "annotation key of the human scores" },
    "as-of": { type: "string", arg: "<time>", description: "stored scores as of then (default: now)" },
  },
  positionals: [0, 1],
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
      const json = await readJson(r, src);
      const pairs = Array.isArray(json) ? json : (json as { pairs?: unknown } | null)?.pairs;
      if (!Array.isArray(pairs)) throw new UsageError(`${src}: expected {"pairs": [...]} or a list of pairs`);
      body.pairs = pairs as NonNullable<ReviewScoreMetricsBody["pairs"]>;
    }
    if (chunks && pk && hk) body.annotations = { chunks, predicted_key: pk, human_key: hk };
    const res = await r.client().reviewScores(r.archive(), body);
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
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
    return EXIT.ok;
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
    reviewers: { type: "string", arg: "<n>", description: "reports to write, 1 to 3 (default 3)" },
    focus: { type: "string", arg: "<text>", description: "what the reviewers should look at" },
    "as-of": { type: "string", arg: "<time>", description: "the paper as it was then (default: now)" },
    "dry-run": { type: "boolean", description: "ask the model and check, but write nothing" },
  },
  positionals: [1, 1],
  async run(r) {
    const body: ReviewersBody = {
      paper: r.positionals[0] as string,
      reviewers: r.int("reviewers", 1, 3),
      focus: r.str("focus"),
      as_of: r.str("as-of"),
      dry_run: r.values["dry-run"] === true,
    };
    const res = await r.client().reviewers(r.archive(), body);
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`${res.reports.length} report(s) on ${res.paper} by ${res.model} as of ${res.as_of}`);
    for (const rep of res.reports) {
      r.out(`${rep.id} [${rep.written}] ${rep.reviewer}: score ${rep.score}/10, confidence ${rep.confidence}/5`);
      for (const c of rep.claims)
        r.out(
          `  ${c.kind}: ${c.text} <- ${c.anchor.artifact_id}@v${c.anchor.version} [${c.anchor.start},${c.anchor.end})`,
        );
    }
    if (res.dropped_claims) r.out(`dropped ${res.dropped_claims} claim(s) whose quote did not verify`);
    return EXIT.ok;
  },
};

export const PAPER_CIRCLE_COMMANDS: Command[] = [papersReviewScores, papersReviewers];
