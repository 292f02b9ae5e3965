/**
 * PaperBench rubric trees (seed 000 §4; PaperBench, Starace et al. 2025): a replication task is a
 * tree of requirements, each node `{id, requirements, weight, sub_tasks, task_category,
 * finegrained_task_category}`. Leaves are graded (0/1 in PaperBench, any value in [0, 1] here);
 * a parent's score is the weight-averaged score of its children,
 *   s(parent) = Σ_c w_c s(c) / Σ_c w_c,
 * so weights are local to siblings, and the root's score is the replication score. A node's
 * `contribution` is the product of its and its ancestors' normalised weights (w / Σ sibling w): the
 * share of the root score its own score counts for (the leaves' contributions sum to 1).
 *
 * Pure. Everything here is iterative (a rubric's depth cannot overflow the stack) and linear in the
 * number of nodes. Validation the wire schema cannot express lives here: ids unique (or shared by
 * identical leaves, on request), no parent whose children's weights sum to 0 (PaperBench would score
 * it 0 silently; here it is a 400 naming the node).
 */
import { type Failure, fail, ok, type Result } from "../errors";

export const PAPERBENCH_LIMITS = {
  /** Nodes per rubric (the largest of the 23 PaperBench rubrics, pinn, has 2,551). */
  maxNodes: 5000,
  /** Depth below the root (the deepest PaperBench rubric, bam, has 9). */
  maxDepth: 64,
  maxIdChars: 256,
  /** Characters of one node's `requirements` (PaperBench's longest: 716). */
  maxRequirementChars: 20_000,
  maxCategoryChars: 200,
  maxWeight: 1e9,
  /** Leaves one request may have judged by the model (each is one model call, two on a retry). */
  maxJudgedLeaves: 200,
  defaultJudgedLeaves: 50,
  /** Characters of evidence text (shared, or per leaf). */
  maxEvidenceChars: 200_000,
  /** Characters of evidence the judge prompt shows for one leaf (the rest is cut, and the prompt says so). */
  judgeEvidenceChars: 40_000,
  /** Characters of a judge's reason. */
  maxReasonChars: 500,
  /** Leaves judged at the same time. */
  judgeConcurrency: 4,
} as const;

/** A rubric node as PaperBench writes it (`*.rubric.json`). */
export interface RubricNode {
  id: string;
  requirements: string;
  weight: number;
  sub_tasks: RubricNode[];
  task_category?: string | null | undefined;
  finegrained_task_category?: string | null | undefined;
}

/** One node of a flattened rubric, in pre-order (a node's subtree is the index range [index, end)). */
export interface FlatNode {
  index: number;
  id: string;
  /** JSON path from the request body, e.g. `rubric.sub_tasks.0.sub_tasks.3`. */
  path: string;
  depth: number;
  /** -1 for the root. */
  parent: number;
  children: number[];
  /** One past the last node of this node's subtree. */
  end: number;
  weight: number;
  requirements: string;
  task_category: string | null;
  finegrained_task_category: string | null;
}

export interface FlatRubric {
  nodes: FlatNode[];
  /** Node indices by id (more than one only with duplicate ids shared). */
  byId: Map<string, number[]>;
}

export type DuplicateIds = "error" | "shared";

/**
 * The size of a JSON value read as a rubric, without recursion: nodes counted and the depth reached,
 * stopping as soon as either limit is passed. Values that are not nodes count as one node (the
 * schema refuses them after this).
 */
export function rubricExtent(value: unknown): { nodes: number; depth: number; over: "nodes" | "depth" | null } {
  const stack: Array<[unknown, number]> = [[value, 0]];
  let nodes = 0;
  let depth = 0;
  while (stack.length) {
    const [v, d] = stack.pop() as [unknown, number];
    nodes++;
    if (d > depth) depth = d;
    if (nodes > PAPERBENCH_LIMITS.maxNodes) return { nodes, depth, over: "nodes" };
    if (d > PAPERBENCH_LIMITS.maxDepth) return { nodes, depth, over: "depth" };
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const subs = (v as { sub_tasks?: unknown }).sub_tasks;
      if (Array.isArray(subs)) for (let i = subs.length - 1; i >= 0; i--) stack.push([subs[i], d + 1]);
    }
  }
  return { nodes, depth, over: null };
}

/**
 * The rubric in pre-order, checked: ids unique (with `shared`, nodes may share an id only when they
 * are leaves with the same requirements, as bbox's and bridging-data-gaps' repeated leaves are), and
 * every parent's children's weights summing to more than 0. `prefix` is the body path of the root.
 */
export function flattenRubric(root: RubricNode, duplicateIds: DuplicateIds, prefix = "rubric"): Result<FlatRubric> {
  const nodes: FlatNode[] = [];
  const byId = new Map<string, number[]>();
  const stack: Array<{ node: RubricNode; path: string; depth: number; parent: number }> = [
    { node: root, path: prefix, depth: 0, parent: -1 },
  ];
  while (stack.length) {
    const { node, path, depth, parent } = stack.pop() as (typeof stack)[number];
    const index = nodes.length;
    nodes.push({
      index,
      id: node.id,
      path,
      depth,
      parent,
      children: [],
      end: index + 1,
      weight: node.weight,
      requirements: node.requirements,
      task_category: node.task_category ?? null,
      finegrained_task_category: node.finegrained_task_category ?? null,
    });
    if (parent >= 0) (nodes[parent] as FlatNode).children.push(index);
    const same = byId.get(node.id);
    if (same) same.push(index);
    else byId.set(node.id, [index]);
    for (let i = node.sub_tasks.length - 1; i >= 0; i--)
      stack.push({
        node: node.sub_tasks[i] as RubricNode,
        path: `${path}.sub_tasks.${i}`,
        depth: depth + 1,
        parent: index,
      });
  }
  // Subtree ends, children before parents (pre-order: a child's index is above its parent's).
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i] as FlatNode;
    const last = n.children.at(-1);
    if (last !== undefined) n.end = (nodes[last] as FlatNode).end;
  }
  for (const n of nodes) {
    if (!n.children.length) continue;
    let sum = 0;
    for (const c of n.children) sum += (nodes[c] as FlatNode).weight;
    if (!(sum > 0))
      return fail(
        "validation",
        `${n.path}: the weights of its ${n.children.length} sub_tasks sum to 0, so its score (their weighted mean) is undefined`,
        `${n.path}.sub_tasks`,
        "give at least one of its sub_tasks a positive weight, or remove the node",
      );
  }
  for (const [id, at] of byId) {
    if (at.length < 2) continue;
    const [first, second] = at.map((i) => nodes[i] as FlatNode) as [FlatNode, FlatNode];
    if (duplicateIds === "error")
      return fail(
        "validation",
        `${second.path}.id: id ${JSON.stringify(id)} is also the id of ${first.path}; a grade names one node, so ids must be unique`,
        `${second.path}.id`,
        'rename one of them, or send duplicate_ids: "shared" to let leaves with the same id and requirements share one grade',
      );
    const differing = at
      .map((i) => nodes[i] as FlatNode)
      .find((n) => n.children.length > 0 || n.requirements !== first.requirements || first.children.length > 0);
    if (differing)
      return fail(
        "validation",
        `${second.path}.id: id ${JSON.stringify(id)} is also the id of ${first.path}, and only leaves with the same requirements may share an id`,
        `${second.path}.id`,
        "rename one of them: duplicate_ids shared lets identical leaves share one grade, nothing else",
      );
  }
  return ok({ nodes, byId });
}

export const isLeaf = (n: FlatNode) => n.children.length === 0;

/** The leaves of the subtree at `root`, in pre-order. */
export function leavesUnder(r: FlatRubric, root: number): FlatNode[] {
  const top = r.nodes[root] as FlatNode;
  const out: FlatNode[] = [];
  for (let i = top.index; i < top.end; i++) {
    const n = r.nodes[i] as FlatNode;
    if (isLeaf(n)) out.push(n);
  }
  return out;
}

export interface TreeScores {
  /** Score per node index (NaN outside the subtree scored). */
  score: Float64Array;
  /** Share of the subtree root's score each node's score counts for (NaN outside it). */
  contribution: Float64Array;
}

/**
 * Scores of the subtree at `root`: each leaf's grade (`grade(leaf)`, in [0, 1]), each parent the
 * weighted mean of its children. The sums run in the children's order, so all leaves at 1 give
 * exactly 1 and all at 0 exactly 0, and rounding keeps the score monotone in every grade.
 */
export function scoreRubric(r: FlatRubric, root: number, grade: (leaf: FlatNode) => number): TreeScores {
  const size = r.nodes.length;
  const score = new Float64Array(size).fill(Number.NaN);
  const contribution = new Float64Array(size).fill(Number.NaN);
  const top = r.nodes[root] as FlatNode;
  for (let i = top.end - 1; i >= top.index; i--) {
    const n = r.nodes[i] as FlatNode;
    if (isLeaf(n)) {
      score[i] = grade(n);
      continue;
    }
    let num = 0;
    let den = 0;
    for (const c of n.children) {
      const w = (r.nodes[c] as FlatNode).weight;
      num += w * (score[c] as number);
      den += w;
    }
    // den > 0: flattenRubric refuses a zero sum.
    score[i] = num / den;
  }
  contribution[top.index] = 1;
  for (let i = top.index; i < top.end; i++) {
    const n = r.nodes[i] as FlatNode;
    if (isLeaf(n)) continue;
    let den = 0;
    for (const c of n.children) den += (r.nodes[c] as FlatNode).weight;
    for (const c of n.children) contribution[c] = ((contribution[i] as number) * (r.nodes[c] as FlatNode).weight) / den;
  }
  return { score, contribution };
}

/** A failure naming a grade key (`grades.<id>` style), for the application layer. */
export function gradeFailure(field: string, message: string, hint: string): { ok: false; error: Failure } {
  return fail("validation", `${field}: ${message}`, field, hint);
}
