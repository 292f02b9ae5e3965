/** PaperBench rubric scoring (seed 000 §4, seed 003): a rubric tree, leaf grades or a leaf judge, the weighted score. */
import { z } from "@hono/zod-openapi";
import { PAPERBENCH_LIMITS as L, rubricExtent } from "../core/paperbench/rubric";
import { MODEL_CALLS } from "./common";

const Id = z.string().min(1).max(L.maxIdChars);
const Grade = z.number().min(0).max(1);

/** One rubric node as PaperBench writes it (`*.rubric.json`); sub_tasks are nodes too. */
export const RubricNodeSchema = z
  .object({
    id: Id.openapi({ description: "Unique in the rubric: grades name leaves by it." }),
    requirements: z.string().max(L.maxRequirementChars).openapi({ description: "What the node requires." }),
    weight: z
      .number()
      .min(0)
      .max(L.maxWeight)
      .openapi({ description: "Non-negative; relative to the node's siblings only." }),
    get sub_tasks(): z.ZodDefault<z.ZodArray<typeof RubricNodeSchema>> {
      return z.array(RubricNodeSchema).default([]);
    },
    task_category: z.string().max(L.maxCategoryChars).nullable().optional(),
    finegrained_task_category: z.string().max(L.maxCategoryChars).nullable().optional(),
  })
  .strict()
  .openapi("RubricNode", {
    description: "A PaperBench rubric node; a node without sub_tasks is a leaf, graded in [0, 1].",
  });

/** The size check runs before the schema, without recursion: a rubric too large or deep is one clear 400. */
const Rubric = z.preprocess((v, ctx) => {
  const e = rubricExtent(v);
  if (e.over === "nodes")
    ctx.addIssue({
      code: "custom",
      message: `the rubric has more than ${L.maxNodes} nodes; score one subtree at a time (send that subtree as the rubric)`,
    });
  else if (e.over === "depth")
    ctx.addIssue({ code: "custom", message: `the rubric is deeper than ${L.maxDepth} levels below its root` });
  return v;
}, RubricNodeSchema);

export const PaperbenchJudge = z
  .object({
    evidence: z.string().max(L.maxEvidenceChars).default("").openapi({
      description:
        "What the judge reads for every leaf: the submission's README, logs, result tables, code excerpts (the prompt shows the first 40,000 characters).",
    }),
    evidence_by_leaf: z
      .record(Id, z.string().max(L.maxEvidenceChars))
      .optional()
      .openapi({ description: "Evidence for particular leaves (by id), instead of `evidence`." }),
    max_leaves: z.number().int().min(1).max(L.maxJudgedLeaves).default(L.defaultJudgedLeaves).openapi({
      description:
        "At most this many leaves are judged (each one model call); more ungraded leaves than this is a 400: grade the rest in `grades`, or score a subtree (`root`).",
    }),
  })
  .strict();

export const PaperbenchScoreBody = z
  .object({
    rubric: Rubric.openapi({ description: "The rubric tree (a PaperBench `*.rubric.json` as it is)." }),
    grades: z
      .record(Id, Grade)
      .optional()
      .openapi({ description: "Leaf id → grade in [0, 1] (PaperBench's are 0 or 1). Only leaves may be graded." }),
    judge: PaperbenchJudge.optional().openapi({
      description:
        "Grade the leaves `grades` leaves out with the configured language model (409 naming the setting without one), one call per leaf, from the evidence given.",
    }),
    missing: z.enum(["zero", "error"]).default("zero").openapi({
      description:
        "A leaf without a grade (none given, not judged, or its judging failed): `zero` scores it 0 and lists it under `missing` (PaperBench scores an ungraded leaf 0); `error` is a 400 naming the leaves.",
    }),
    duplicate_ids: z.enum(["error", "shared"]).default("error").openapi({
      description:
        "`error`: two nodes with one id are a 400 naming both paths. `shared`: leaves with the same id and requirements (as in bbox and bridging-data-gaps) share one grade.",
    }),
    root: Id.optional().openapi({ description: "Score only the subtree at this node (default: the whole rubric)." }),
    breakdown_depth: z.number().int().min(0).max(L.maxDepth).optional().openapi({
      description: "List nodes down to this depth below the scored root only (default: every node).",
    }),
  })
  .strict()
  .openapi("PaperbenchScoreRequest", {
    description:
      "A rubric tree, leaf grades and/or the leaf judge's evidence, and how to treat leaves without a grade.",
    example: {
      rubric: {
        id: "root",
        requirements: "The paper has been reproduced",
        weight: 1,
        sub_tasks: [
          { id: "code", requirements: "The method is implemented", weight: 3, sub_tasks: [] },
          { id: "run", requirements: "The experiments were run", weight: 1, sub_tasks: [] },
        ],
      },
      grades: { code: 1, run: 0 },
    },
  });

export const PaperbenchNodeScore = z.object({
  id: z.string(),
  path: z.string().openapi({ description: "Where the node is in the request body (rubric.sub_tasks.0…)." }),
  depth: z.number().int().openapi({ description: "Below the scored root (0 = the root)." }),
  parent: z.string().nullable(),
  leaf: z.boolean(),
  weight: z.number(),
  normalized_weight: z.number().openapi({ description: "weight / the sum of its siblings' weights (1 for the root)." }),
  contribution: z.number().openapi({
    description: "The share of the root's score this node's score counts for (product of normalised weights).",
  }),
  score: z.number(),
  task_category: z.string().nullable(),
  source: z
    .enum(["grade", "judge", "missing"])
    .optional()
    .openapi({ description: "Leaves: where the grade came from." }),
  reason: z.string().optional().openapi({ description: "The judge's reason, or why judging failed." }),
});

export const PaperbenchScoreResult = z
  .object({
    score: z.number().openapi({ description: "The weighted replication score of the root scored, in [0, 1]." }),
    root: z.string(),
    nodes: z.number().int(),
    leaves: z.number().int(),
    graded: z.number().int().openapi({ description: "Leaves graded by `grades`." }),
    judged: z.number().int().openapi({ description: "Leaves graded by the judge." }),
    missing: z.array(z.string()).openapi({ description: "Ids of the leaves scored 0 for want of a grade." }),
    by_category: z
      .record(z.string(), z.object({ leaves: z.number().int(), contribution: z.number(), score: z.number() }))
      .openapi({
        description:
          "Per task_category of the leaves (`none` without one): how many, their summed contribution, and the score they add to the root's.",
      }),
    breakdown: z.array(PaperbenchNodeScore).openapi({ description: "Every node scored, in rubric (pre-)order." }),
    judge: z
      .object({ model: z.string(), ...MODEL_CALLS })
      .optional()
      .openapi({ description: "What the judge's model calls spent." }),
  })
  .openapi("PaperbenchScoreResult", {
    description: "The weighted replication score of the rubric (or of the subtree `root`) and every node's score.",
    example: {
      score: 0.75,
      root: "root",
      nodes: 3,
      leaves: 2,
      graded: 2,
      judged: 0,
      missing: [],
      by_category: { none: { leaves: 2, contribution: 1, score: 0.75 } },
      breakdown: [
        {
          id: "root",
          path: "rubric",
          depth: 0,
          parent: null,
          leaf: false,
          weight: 1,
          normalized_weight: 1,
          contribution: 1,
          score: 0.75,
          task_category: null,
        },
        {
          id: "code",
          path: "rubric.sub_tasks.0",
          depth: 1,
          parent: "root",
          leaf: true,
          weight: 3,
          normalized_weight: 0.75,
          contribution: 0.75,
          score: 1,
          task_category: null,
          source: "grade",
        },
        {
          id: "run",
          path: "rubric.sub_tasks.1",
          depth: 1,
          parent: "root",
          leaf: true,
          weight: 1,
          normalized_weight: 0.25,
          contribution: 0.25,
          score: 0,
          task_category: null,
          source: "grade",
        },
      ],
    },
  });
