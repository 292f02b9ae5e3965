/**
 * The leaf judge of PaperBench (§4 of the PaperBench paper: an LLM grades each leaf requirement of
 * the rubric against the submission): one model call per leaf, shown the leaf's requirement, its
 * task category, the requirements of its ancestors (the context a leaf is written in) and the
 * evidence the caller supplied (a submission's README, logs, code excerpts). The answer must be
 * `{score, reason}`: a score in [0, 1] (1 met, 0 not, a fraction only for a partly met requirement)
 * and a short non-empty reason; anything else is unusable (the shared loop retries once, naming why).
 * Pure: prompt text, schema and the check.
 */
import type { Checked } from "../proposals/propose";
import { type FlatNode, type FlatRubric, PAPERBENCH_LIMITS } from "./rubric";

export interface LeafVerdict {
  score: number;
  reason: string;
}

export const JUDGE_SCHEMA = {
  type: "object",
  properties: {
    score: {
      type: "number",
      minimum: 0,
      maximum: 1,
      description: "1 if the evidence shows the requirement is met, 0 if not; a fraction only if partly met",
    },
    reason: { type: "string", description: "One or two sentences citing the evidence" },
  },
  required: ["score", "reason"],
  additionalProperties: false,
} as const;

export const JUDGE_SYSTEM = [
  "You grade one leaf requirement of a PaperBench rubric: whether a submission that tries to replicate a paper meets it.",
  "Judge only from the evidence given. If the evidence does not show the requirement is met, the score is 0.",
  "Code Development asks whether the code implements it; Code Execution whether it was run and produced output; Result Analysis whether the results match.",
  'Answer one JSON object {"score": number in [0, 1], "reason": one or two sentences, at most 500 characters}.',
].join(" ");

/** The requirements from the root down to the leaf's parent. */
function ancestors(r: FlatRubric, leaf: FlatNode): string[] {
  const out: string[] = [];
  for (let p = leaf.parent; p >= 0; p = (r.nodes[p] as FlatNode).parent)
    out.push((r.nodes[p] as FlatNode).requirements);
  return out.reverse();
}

/** The user prompt for one leaf, with the evidence cut to the prompt's share. */
export function judgePrompt(r: FlatRubric, leaf: FlatNode, evidence: string): string {
  const cap = PAPERBENCH_LIMITS.judgeEvidenceChars;
  const shown = evidence.length > cap ? evidence.slice(0, cap) : evidence;
  const context = ancestors(r, leaf)
    .map((req, i) => `${"  ".repeat(i)}- ${req}`)
    .join("\n");
  return [
    "Rubric context (from the root down):",
    context || "- (the leaf is the rubric's root)",
    "",
    `Requirement to grade (leaf ${leaf.id}${leaf.task_category ? `, ${leaf.task_category}` : ""}${leaf.finegrained_task_category ? ` / ${leaf.finegrained_task_category}` : ""}):`,
    leaf.requirements,
    "",
    evidence.length > cap ? `Evidence (the first ${cap} of ${evidence.length} characters):` : "Evidence:",
    shown || "(no evidence was supplied)",
  ].join("\n");
}

/** The verdict of an answer, or why it cannot be used. */
export function checkVerdict(value: unknown): Checked<LeafVerdict> | string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "the answer is not a JSON object";
  const v = value as Record<string, unknown>;
  const score = v.score;
  if (typeof score !== "number" || !Number.isFinite(score)) return "score is missing or not a number";
  if (score < 0 || score > 1) return `score ${score} is outside [0, 1]`;
  const reason = typeof v.reason === "string" ? v.reason.replace(/\s+/gu, " ").trim() : "";
  if (!reason) return "reason is missing or empty";
  if (reason.length > PAPERBENCH_LIMITS.maxReasonChars)
    return `reason has ${reason.length} characters; at most ${PAPERBENCH_LIMITS.maxReasonChars}`;
  return { items: [{ score, reason }], dropped: [] };
}
