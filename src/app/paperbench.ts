/**
 * POST /paperbench/score: a PaperBench rubric tree scored (src/core/paperbench/rubric.ts). Leaf
 * grades come from the request (`grades`) and, for the leaves it leaves out, from the leaf judge
 * (`judge`) through the model port: one call per leaf (src/core/paperbench/judge.ts), a verified
 * `{score, reason}` or one retry, at most `max_leaves` leaves per request, a few at a time. A leaf
 * still without a grade scores 0 and is listed (`missing: zero`, PaperBench's rule for an ungraded
 * leaf), or the request is a 400 naming it (`missing: error`). Reads and writes nothing of the
 * archive: the archive in the path is the key's, as for /query-spec.
 */

import type * as S from "../contract";
import { fail, ok, type Result } from "../core/errors";
import { checkVerdict, JUDGE_SCHEMA, JUDGE_SYSTEM, judgePrompt, type LeafVerdict } from "../core/paperbench/judge";
import {
  type FlatNode,
  type FlatRubric,
  flattenRubric,
  isLeaf,
  leavesUnder,
  PAPERBENCH_LIMITS,
  scoreRubric,
  type TreeScores,
} from "../core/paperbench/rubric";
import { newUsage, type ProposalUsage, propose } from "../core/proposals/propose";
import type { AppDeps } from "./deps";
import { missingArchive } from "./lib/archives";
import { modelFailure, modelName, noModel, usageView } from "./lib/proposals";
import type { In } from "./lib/wire";

type Body = In<typeof S.PaperbenchScoreBody>;
type Out = In<typeof S.PaperbenchScoreResult>;
type NodeOut = Out["breakdown"][number];

/** At most this many ids are named in a failure's message. */
const NAMED = 5;
const names = (ids: string[]) =>
  `${ids
    .slice(0, NAMED)
    .map((x) => JSON.stringify(x))
    .join(", ")}${ids.length > NAMED ? `, … ${ids.length - NAMED} more` : ""}`;

interface Grade {
  score: number;
  source: "grade" | "judge" | "missing";
  reason?: string;
}

/** Every key of a by-id record must name a leaf of the rubric; the failure names the first that does not. */
function checkKeys(r: FlatRubric, keys: string[], field: string): Result<void> {
  for (const id of keys) {
    const at = r.byId.get(id);
    if (!at)
      return fail(
        "validation",
        `${field}.${id}: no node of the rubric has this id`,
        `${field}.${id}`,
        "use the ids of the rubric's leaves (nodes without sub_tasks)",
      );
    const n = r.nodes[at[0] as number] as FlatNode;
    if (!isLeaf(n))
      return fail(
        "validation",
        `${field}.${id}: ${n.path} has sub_tasks, so its score is their weighted mean and cannot be given`,
        `${field}.${id}`,
        "grade its leaves instead",
      );
  }
  return ok(undefined);
}

/** Judge `leaves` (distinct ids), a few at a time; a provider failure stops the run. */
async function judgeLeaves(
  d: AppDeps,
  r: FlatRubric,
  leaves: FlatNode[],
  judge: NonNullable<Body["judge"]>,
): Promise<Result<{ verdicts: Map<string, LeafVerdict | string>; usage: ProposalUsage; model: string }>> {
  const model = d.models.llm;
  if (!model) return noModel();
  const usage = newUsage();
  const verdicts = new Map<string, LeafVerdict | string>();
  let failure: Result<never> | null = null;
  let next = 0;
  const worker = async () => {
    while (failure === null && next < leaves.length) {
      const leaf = leaves[next++] as FlatNode;
      const evidence = judge.evidence_by_leaf?.[leaf.id] ?? judge.evidence;
      const out = await propose({
        model,
        name: "paperbench_leaf_grade",
        description: "The grade of one PaperBench rubric leaf from the evidence, with a short reason.",
        schema: JUDGE_SCHEMA,
        system: JUDGE_SYSTEM,
        prompt: judgePrompt(r, leaf, evidence),
        maxOutputTokens: 400,
        check: checkVerdict,
      });
      usage.calls += out.usage.calls;
      usage.requests += out.usage.requests;
      usage.retries += out.usage.retries;
      usage.inputTokens += out.usage.inputTokens;
      usage.outputTokens += out.usage.outputTokens;
      usage.ms += out.usage.ms;
      if (out.ok) verdicts.set(leaf.id, out.items[0] as LeafVerdict);
      else if (out.code === "unusable") verdicts.set(leaf.id, `the judge's answer was unusable: ${out.message}`);
      else failure ??= modelFailure(out);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PAPERBENCH_LIMITS.judgeConcurrency, leaves.length) }, worker));
  if (failure) return failure;
  return ok({ verdicts, usage, model: modelName(model) });
}

/** The scores under `top` by task category, and the nodes to `breakdownDepth` below it, in rubric order. */
function breakdownOf(
  r: FlatRubric,
  top: FlatNode,
  score: TreeScores["score"],
  contribution: TreeScores["contribution"],
  given: Map<string, Grade>,
  breakdownDepth: number | undefined,
): { byCategory: Out["by_category"]; breakdown: NodeOut[] } {
  const byCategory: Out["by_category"] = {};
  const breakdown: NodeOut[] = [];
  for (let i = top.index; i < top.end; i++) {
    const n = r.nodes[i] as FlatNode;
    const depth = n.depth - top.depth;
    const s = score[i] as number;
    const share = contribution[i] as number;
    const parent = i === top.index ? null : (r.nodes[n.parent] as FlatNode);
    let siblings = 0;
    if (parent) for (const c of parent.children) siblings += (r.nodes[c] as FlatNode).weight;
    const g = isLeaf(n) ? (given.get(n.id) ?? { score: 0, source: "missing" as const }) : undefined;
    if (g) {
      const cat = n.task_category ?? "none";
      const c = byCategory[cat] ?? { leaves: 0, contribution: 0, score: 0 };
      byCategory[cat] = c;
      c.leaves++;
      c.contribution += share;
      c.score += share * s;
    }
    if (breakdownDepth !== undefined && depth > breakdownDepth) continue;
    breakdown.push({
      id: n.id,
      path: n.path,
      depth,
      parent: parent ? parent.id : null,
      leaf: isLeaf(n),
      weight: n.weight,
      normalized_weight: parent ? n.weight / siblings : 1,
      contribution: share,
      score: s,
      task_category: n.task_category,
      ...(g ? { source: g.source, ...(g.reason !== undefined ? { reason: g.reason } : {}) } : {}),
    });
  }
  return { byCategory, breakdown };
}

export function paperbenchUseCases(d: AppDeps) {
  return {
    async score(archive: string, b: Body): Promise<Result<Out>> {
      const absent = await missingArchive(d.stores.archives, archive);
      if (absent) return absent;
      const flat = flattenRubric(b.rubric, b.duplicate_ids);
      if (!flat.ok) return flat;
      const r = flat.value;

      let rootIndex = 0;
      if (b.root !== undefined) {
        const at = r.byId.get(b.root);
        if (!at)
          return fail(
            "validation",
            `root: no node of the rubric has the id ${JSON.stringify(b.root)}`,
            "root",
            "give the id of a node of the rubric",
          );
        rootIndex = at[0] as number;
      }
      const grades = b.grades ?? {};
      const keys = checkKeys(r, Object.keys(grades), "grades");
      if (!keys.ok) return keys;
      if (b.judge?.evidence_by_leaf) {
        const ev = checkKeys(r, Object.keys(b.judge.evidence_by_leaf), "judge.evidence_by_leaf");
        if (!ev.ok) return ev;
      }

      const leaves = leavesUnder(r, rootIndex);
      const given = new Map<string, Grade>();
      for (const leaf of leaves) {
        const g = grades[leaf.id];
        if (g !== undefined) given.set(leaf.id, { score: g, source: "grade" });
      }
      // Distinct ids still to grade (a shared id is one grade), in rubric order.
      const ungraded: FlatNode[] = [];
      const seen = new Set<string>();
      for (const leaf of leaves)
        if (!given.has(leaf.id) && !seen.has(leaf.id)) {
          seen.add(leaf.id);
          ungraded.push(leaf);
        }

      let judgeView: Out["judge"];
      if (b.judge && ungraded.length) {
        if (!d.models.llm) return noModel();
        if (ungraded.length > b.judge.max_leaves)
          return fail(
            "validation",
            `judge.max_leaves: ${ungraded.length} leaves have no grade, and at most ${b.judge.max_leaves} are judged per request`,
            "judge.max_leaves",
            `grade the others in grades, score one subtree at a time (root), or raise max_leaves (at most ${PAPERBENCH_LIMITS.maxJudgedLeaves})`,
          );
        const judged = await judgeLeaves(d, r, ungraded, b.judge);
        if (!judged.ok) return judged;
        for (const [id, v] of judged.value.verdicts)
          given.set(
            id,
            typeof v === "string"
              ? { score: 0, source: "missing", reason: v }
              : { score: v.score, source: "judge", reason: v.reason },
          );
        judgeView = { model: judged.value.model, ...usageView(judged.value.usage) };
      }

      const missing = [
        ...new Set(
          leaves
            .filter((l) => given.get(l.id)?.source !== "grade" && given.get(l.id)?.source !== "judge")
            .map((l) => l.id),
        ),
      ];
      if (missing.length && b.missing === "error")
        return fail(
          "validation",
          `grades: ${missing.length} leaves have no grade: ${names(missing)}`,
          `grades.${missing[0]}`,
          b.judge
            ? "grade them in grades (their judging failed), or send missing: zero to score them 0"
            : "grade them in grades, have them judged (judge), or send missing: zero to score them 0",
        );

      const { score, contribution } = scoreRubric(r, rootIndex, (leaf) => given.get(leaf.id)?.score ?? 0);
      const top = r.nodes[rootIndex] as FlatNode;
      const { byCategory, breakdown } = breakdownOf(r, top, score, contribution, given, b.breakdown_depth);
      return ok({
        score: score[top.index] as number,
        root: top.id,
        nodes: top.end - top.index,
        leaves: leaves.length,
        graded: leaves.filter((l) => given.get(l.id)?.source === "grade").length,
        judged: leaves.filter((l) => given.get(l.id)?.source === "judge").length,
        missing,
        by_category: byCategory,
        breakdown,
        ...(judgeView ? { judge: judgeView } : {}),
      });
    },
  };
}
