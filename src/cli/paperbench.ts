/**
 * `paperguru paperbench score`: a PaperBench rubric tree (`*.rubric.json`) scored by the server
 * (POST /paperbench/score) from leaf grades in a file, a grade for every leaf (`--all`), or the leaf
 * judge (`--judge`, with the evidence in a file; needs a configured model). Prints the replication
 * score, the score per task category and the top levels of the tree, or the server's JSON.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { PaperbenchScoreBody } from "../client";
import { type Command, flagOption, type Run, valueOption } from "./command";
import { list, oneOf, parseJson, printedJson } from "./common";
import { UsageError } from "./io";

const NAME = "paperbench score";
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function readText(r: Run, src: string, what: string): string {
  const path = resolve(r.io.cwd, src);
  if (!existsSync(path)) throw new UsageError(`no such ${what} file: ${src}`, NAME);
  return readFileSync(path, "utf8");
}

async function readJson(r: Run, src: string, what: string): Promise<unknown> {
  const text = src === "-" ? await r.io.readStdin() : readText(r, src, what);
  return parseJson(text, `${src === "-" ? "stdin" : src} (${what})`, NAME);
}

/** The value of a flag among `allowed` (a usage error of this command otherwise, without suggestions). */
const pick = <T extends string>(flag: string, v: string | undefined, allowed: readonly T[]) =>
  oneOf(flag, v, allowed, { suggest: false, command: NAME });

/** Every leaf id of a rubric (iteratively; the server checks the rest). */
function leafIds(rubric: unknown): string[] {
  const out: string[] = [];
  const stack = [rubric];
  while (stack.length) {
    const n = stack.pop();
    if (n === null || typeof n !== "object") continue;
    const { id, sub_tasks } = n as { id?: unknown; sub_tasks?: unknown };
    if (Array.isArray(sub_tasks) && sub_tasks.length) stack.push(...sub_tasks);
    else if (typeof id === "string") out.push(id);
  }
  return out;
}

const paperbenchScore: Command = {
  name: NAME,
  args: "<rubric.json> [--grades <file>] [--all <grade>] [--judge] [--evidence <f>] [--missing <m>] [--duplicate-ids <d>] [--root <id>] [--depth <n>]",
  summary:
    "PaperBench's weighted replication score of a rubric tree from leaf grades (or the leaf judge), with the per-node breakdown.",
  details:
    'The grades file holds {"<leaf id>": 1, ...} (grades in [0, 1]), or {"grades": {...}}. A parent scores the weighted mean of its children. Leaves without a grade score 0 and are listed (--missing error refuses them). --judge has the configured language model grade the leaves without one, from the --evidence file (a README, logs, results).',
  options: {
    grades: valueOption("<file>", "leaf grades, JSON {leaf id: grade in [0, 1]}"),
    all: valueOption("<grade>", "grade every leaf this (0..1) where --grades gives none"),
    judge: flagOption("judge the leaves without a grade with the configured model"),
    evidence: valueOption("<file>", "what the judge reads for every leaf (text)"),
    "max-leaves": valueOption("<n>", "judge at most this many leaves (default 50, at most 200)"),
    missing: valueOption("zero|error", "leaves without a grade: score 0 (default) or refuse"),
    "duplicate-ids": valueOption(
      "error|shared",
      "repeated ids: refuse (default) or let identical leaves share a grade",
    ),
    root: valueOption("<id>", "score only the subtree at this node"),
    depth: valueOption("<n>", "print (and return) nodes down to this depth (default 2 in text)"),
  },
  async run(r) {
    const rubric = await readJson(r, r.arg(0), "rubric");
    const all = r.num("all", 0, 1);
    let grades: Record<string, number> | undefined;
    const gradesFile = r.str("grades");
    if (gradesFile !== undefined) {
      const g = await readJson(r, gradesFile, "grades");
      const inner = g !== null && typeof g === "object" && "grades" in g ? (g as { grades: unknown }).grades : g;
      if (inner === null || typeof inner !== "object" || Array.isArray(inner))
        throw new UsageError(`${gradesFile}: expected {"<leaf id>": grade, ...}`, NAME);
      grades = inner as Record<string, number>;
    }
    if (all !== undefined) {
      grades ??= {};
      for (const id of leafIds(rubric)) grades[id] ??= all;
    }
    const judge = r.values.judge === true;
    const evidence = r.str("evidence");
    if (evidence !== undefined && !judge) throw new UsageError("--evidence goes with --judge", NAME);
    const depth = r.int("depth", 0, 64);
    const body: PaperbenchScoreBody = {
      rubric: rubric as PaperbenchScoreBody["rubric"],
      grades,
      missing: pick("missing", r.str("missing"), ["zero", "error"] as const),
      duplicate_ids: pick("duplicate-ids", r.str("duplicate-ids"), ["error", "shared"] as const),
      root: r.str("root"),
      breakdown_depth: r.json ? depth : undefined,
      judge: judge
        ? {
            evidence: evidence === undefined ? "" : readText(r, evidence, "evidence"),
            max_leaves: r.int("max-leaves", 1, 200),
          }
        : undefined,
    };
    const res = await r.client().paperbenchScore(r.archive(), body);
    if (printedJson(r, res)) return;
    r.out(
      `score ${res.score.toFixed(4)} (${pct(res.score)}) of ${res.root}: ${res.leaves} leaves, ${res.graded} graded, ${res.judged} judged, ${res.missing.length} missing (scored 0)`,
    );
    if (res.judge)
      r.out(
        `judge ${res.judge.model}: ${res.judge.calls} calls, ${res.judge.input_tokens + res.judge.output_tokens} tokens`,
      );
    for (const [cat, c] of Object.entries(res.by_category))
      r.out(`  ${cat}: ${c.leaves} leaves, ${pct(c.score)} of ${pct(c.contribution)} possible`);
    const shown = depth ?? 2;
    for (const n of res.breakdown.filter((x) => x.depth <= shown))
      r.out(
        `${"  ".repeat(n.depth)}${n.score.toFixed(3)}  w=${n.weight} ${n.id}${n.leaf && n.source ? ` (${n.source})` : ""}`,
      );
    if (res.missing.length) r.out(`missing: ${list(res.missing)}`);
  },
};

export const PAPERBENCH_COMMANDS: Command[] = [paperbenchScore];
