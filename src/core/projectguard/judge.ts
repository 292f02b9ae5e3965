/**
 * ProjectGuard's bounded repository judge (seed 002 §3.4, Prompt E): a model scores one component
 * 0-4 against its spec (description, formula, expected inputs and outputs, connected modules) from
 * at most 8 repository reads, the context 8 tool calls would give it. The verdict names its
 * evidence as `<read id>:<line>` or `not found`; a score above 0 whose evidence names no read it was
 * given is unusable (the answer is asked once more), and a score of 0 is the conservative answer when
 * the code was not found.
 */
import { closedObject, text } from "../json-schema";
import type { JsonSchema } from "../ports";

export interface JudgeSpec {
  id: string;
  description: string;
  formula: string;
  inputs: readonly string[];
  outputs: readonly string[];
  connections: readonly string[];
}

/** One repository read in the judge's context: a code unit's version, its lines numbered from 1. */
export interface JudgeRead {
  id: string;
  version: number;
  text: string;
}

export interface Verdict {
  score: number;
  evidence: string;
  deviation: string;
}

/** Characters of one read shown (a file's head; about 1,500 tokens). */
export const MAX_READ_CHARS = 6000;

export const JUDGE_SCHEMA: JsonSchema = closedObject({
  score: {
    type: "integer",
    minimum: 0,
    maximum: 4,
    description: "0 absent, 1 wrong, 2 simplified, 3 equivalent, 4 faithful.",
  },
  evidence: text("<file id>:<line> of the code found, or `not found`."),
  deviation: text("How the code deviates from the spec, or `none`."),
});

export const JUDGE_SYSTEM = [
  "You are an implementation faithfulness judge.",
  "Determine whether a specific component is correctly implemented in the repository files you are shown.",
  "Score: 0 = ABSENT: no code attempts this component; 1 = WRONG: code attempts it but the logic is incorrect;",
  "2 = SIMPLIFIED: a degraded or approximate version (e.g. mean pooling instead of attention-weighted, missing formula terms);",
  "3 = EQUIVALENT: not identical but functionally equivalent; 4 = FAITHFUL: matches the specification.",
  "If the files shown do not contain the code, score 0 (ABSENT).",
  "Answer with one JSON object matching the schema and nothing else.",
].join(" ");

const numbered = (text: string) =>
  text
    .slice(0, MAX_READ_CHARS)
    .split("\n")
    .map((l, i) => `${i + 1}: ${l}`)
    .join("\n");

/** Prompt E's claim, then the reads (each a tool call's worth) under their ids. */
export function judgePrompt(spec: JudgeSpec, reads: readonly JudgeRead[], maxCalls: number): string {
  const list = (xs: readonly string[]) => (xs.length ? xs.join("; ") : "(not given)");
  return [
    "Specification claim to verify:",
    `COMPONENT: ${spec.description}`,
    `FORMULA: ${spec.formula || "(none)"}`,
    `EXPECTED INPUTS: ${list(spec.inputs)}`,
    `EXPECTED OUTPUTS: ${list(spec.outputs)}`,
    `CONNECTED MODULE: ${list(spec.connections)}`,
    "",
    `Repository reads (${reads.length} of at most ${maxCalls} tool calls), lines numbered:`,
    ...reads.map((r) => `[read ${r.id}]\n<<<\n${numbered(r.text)}\n>>>`),
    "",
    "Give evidence as <file id>:<line> from the reads above, or `not found`.",
  ].join("\n");
}

/** The verdict of an answer, or why it cannot be used. */
export function checkVerdict(value: unknown, reads: readonly JudgeRead[]): Verdict | string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "the answer is not a JSON object";
  const v = value as Record<string, unknown>;
  const score = v.score;
  if (typeof score !== "number" || !Number.isInteger(score) || score < 0 || score > 4)
    return `score must be an integer 0-4, not ${JSON.stringify(score)}`;
  const evidence = typeof v.evidence === "string" ? v.evidence.trim().slice(0, 500) : "";
  const deviation = typeof v.deviation === "string" ? v.deviation.trim().slice(0, 2000) : "";
  if (score > 0) {
    const named = reads.find((r) => evidence === r.id || evidence.startsWith(`${r.id}:`));
    if (!named)
      return `score ${score} needs evidence naming one of the reads (<id>:<line>), not ${JSON.stringify(evidence.slice(0, 80))}`;
  }
  return { score, evidence: evidence || "not found", deviation: deviation || "none" };
}
