/**
 * ProjectGuard's evaluation and spec components (seed 002): a record's spec (A.2), stored runs with
 * their rubric scores and the metrics over them (MCF, DIR, IF50, SLUMP_F, Recovery_F; §2.2, §4.1,
 * §5.2), the exposure audit (RCR, ESR, Fig. 1; §3.3), the bounded rubric judge and its calibration
 * against human scores (§3.4, Table 2, Prompt E).
 */
import { z } from "@hono/zod-openapi";
import { IdSchema as Id, MAX_ID, T0, Time } from "./common";
import { ProposalUsageSchema } from "./proposals";

const Text = (max: number) => z.string().min(1).max(max);
const Score = z.number().int().min(0).max(4).openapi({ description: "Rubric score 0-4 (Table 1)." });
const Share = z.number().openapi({ description: "A share in [0, 1]." });
const Name = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, "1-64 of a-z, 0-9, '_', '.', '-', starting with a letter or digit");

// ------------------------------------------------------------------ spec components (A.2)

export const SpecSchema = z
  .object({
    description: Text(4000).openapi({ description: "The component's intended functionality." }),
    formula: z.string().max(4000).default("").openapi({ description: "Its exact formula when it has one." }),
    inputs: z.array(Text(500)).max(20).default([]).openapi({ description: "Expected inputs." }),
    outputs: z.array(Text(500)).max(20).default([]).openapi({ description: "Expected outputs." }),
    connections: z
      .array(Text(MAX_ID))
      .max(20)
      .default([])
      .openapi({ description: "Module-level connections: the modules or records it connects to (ids or names)." }),
  })
  .strict()
  .openapi("Spec");

export const SpecBody = SpecSchema.extend({
  record: Id.openapi({ description: "The design or decision record the spec belongs to." }),
  at: Time.optional().openapi({ description: "When it holds from (valid time); default now." }),
  reason: z.string().max(2000).optional(),
})
  .strict()
  .openapi("SpecRequest", {
    description: "A design or decision record's spec components (seed 002 A.2).",
    example: {
      record: "decision:attention-pool",
      description: "Pools token states with learned attention weights.",
      formula: "h = sum_i softmax(w^T x_i) x_i",
      inputs: ["x: [n, d] token states"],
      outputs: ["h: [d] pooled state"],
      connections: ["repo/model/encoder.py"],
    },
  });

const SpecView = z.object({
  description: z.string(),
  formula: z.string(),
  inputs: z.array(z.string()),
  outputs: z.array(z.string()),
  connections: z.array(z.string()),
});

export { SpecView };

export const SpecResult = z
  .object({ record: z.string(), version: z.number().int(), at: z.string(), spec: SpecView })
  .openapi("SpecResult", {
    description: "The spec now set on the record's version.",
    example: {
      record: "decision:attention-pool",
      version: 1,
      at: T0,
      spec: {
        description: "Pools token states with learned attention weights.",
        formula: "h = sum_i softmax(w^T x_i) x_i",
        inputs: ["x: [n, d] token states"],
        outputs: ["h: [d] pooled state"],
        connections: ["repo/model/encoder.py"],
      },
    },
  });

// ------------------------------------------------------------------ runs and metrics (§2.2, §4.1, §5.2)

export const RUN_CONDITIONS = ["emergent", "single_shot", "memory"] as const;

export const PgRunBody = z
  .object({
    paper: Text(300).openapi({ description: "The task (a paper's id or name)." }),
    platform: Name.default("default").openapi({ description: "The agent platform (e.g. claude-code, codex)." }),
    condition: z.enum(RUN_CONDITIONS).openapi({
      description:
        "emergent: R^em (progressive disclosure); single_shot: R^ss (the whole spec upfront); memory: R^mem (emergent with ProjectGuard).",
    }),
    scores: z
      .array(z.object({ component: Text(MAX_ID), score: Score }).strict())
      .min(1)
      .max(1000)
      .openapi({ description: "The final repository's rubric score per component (each component once)." }),
    dir: z.number().min(0).max(1).optional().openapi({ description: "The run's DIR, when measured elsewhere." }),
    dir_prefix: Text(MAX_ID).optional().openapi({
      description:
        "Or: compute DIR now over this archive's code units under this prefix (GET …/metrics/dir) as of `as_of`.",
    }),
    as_of: Time.optional().openapi({
      description: "When the run finished (the stored version's valid time); default now.",
    }),
  })
  .strict()
  .openapi("ProjectGuardRun", {
    description: "One final repository's rubric scores per component, with its DIR.",
    example: {
      paper: "p1",
      platform: "claude-code",
      condition: "emergent",
      scores: [
        { component: "c1", score: 4 },
        { component: "c2", score: 2 },
      ],
      dir: 0.149,
    },
  });

const RunSummary = z.object({
  id: z.string().openapi({ description: "The run's chunk (kind benchmark_row); a re-stored run is its next version." }),
  version: z.number().int(),
  paper: z.string(),
  platform: z.string(),
  condition: z.enum(RUN_CONDITIONS),
  components: z.number().int(),
  mcf: z.number().openapi({ description: "Mean component faithfulness: the mean score, 0-4." }),
  dir: z.number().nullable(),
  if50: z.number().nullable().openapi({ description: "½ (MCF / 4) + ½ DIR; null without DIR." }),
  faithful: z.number().int().openapi({ description: "Components scored 4." }),
  severe: z.number().int().openapi({ description: "Components scored 0 or 1." }),
  valid_from: z.string(),
});

export const PgRunResult = RunSummary.extend({
  written: z.enum(["created", "updated", "unchanged"]),
}).openapi("ProjectGuardRunResult", {
  description: "The stored run with its MCF, DIR and IF50.",
  example: {
    id: "pgrun:emergent:claude-code:p1",
    version: 1,
    paper: "p1",
    platform: "claude-code",
    condition: "emergent",
    components: 2,
    mcf: 3,
    dir: 0.149,
    if50: 0.4495,
    faithful: 1,
    severe: 0,
    valid_from: T0,
    written: "created",
  },
});

const Triple = z.object({ mcf: z.number().nullable(), dir: z.number().nullable(), if50: z.number().nullable() });

export const PgMetricsQuery = z
  .object({
    paper: Text(300).optional().openapi({ description: "Only this task." }),
    platform: Name.optional().openapi({ description: "Only this platform." }),
    as_of: Time.optional(),
  })
  .strict();

const ExposureSummary = z.object({
  paper: z.string(),
  components: z.number().int(),
  rcr: Share.openapi({ description: "Recoverable Component Rate: share with R(c) ≥ 1." }),
  esr: Share.openapi({ description: "Explicit Specification Rate: share with R(c) = 4." }),
  per_component: z.array(
    z.object({
      id: z.string(),
      level: z.number().int(),
      first_recoverable_turn: z.number().int().nullable(),
      first_explicit_turn: z.number().int().nullable(),
    }),
  ),
  curve: z
    .array(z.object({ turn: z.number().int(), recoverable: Share, explicit: Share }))
    .openapi({ description: "Fig. 1: cumulative shares recoverable (R ≥ 1) and explicit (R = 4) by each turn." }),
  version: z.number().int(),
});

export const PgMetricsResult = z
  .object({
    as_of: z.string(),
    papers: z.array(
      z.object({
        paper: z.string(),
        platform: z.string(),
        runs: z.array(RunSummary).openapi({ description: "The stored runs of this task on this platform." }),
        slump: Triple.openapi({
          description: "SLUMP_F = F(R^ss) − F(R^em) for F = MCF, DIR, IF50; null without both runs (or DIR).",
        }),
        recovery: Triple.openapi({
          description:
            "Recovery_F = (F(R^mem) − F(R^em)) / (F(R^ss) − F(R^em)); null without the three runs or with a zero gap.",
        }),
      }),
    ),
    macro: z
      .object({
        tasks: z.number().int(),
        slump: Triple,
        recovery: Triple,
        rcr: z.number().nullable(),
        esr: z.number().nullable(),
      })
      .openapi({ description: "Means over the tasks listed (each figure over those where it is defined)." }),
    exposure: z.array(ExposureSummary).openapi({ description: "The stored exposure audits of the tasks listed." }),
    skipped: z.array(z.string()).openapi({ description: "Run chunks whose content is not a run (not counted)." }),
  })
  .openapi("ProjectGuardMetrics", {
    description: "The metrics over the stored runs and exposure audits at `as_of`.",
    example: {
      as_of: T0,
      papers: [
        {
          paper: "p1",
          platform: "claude-code",
          runs: [],
          slump: { mcf: 0.313, dir: 0.154, if50: 0.116 },
          recovery: { mcf: 0.901, dir: null, if50: null },
        },
      ],
      macro: {
        tasks: 1,
        slump: { mcf: 0.313, dir: 0.154, if50: 0.116 },
        recovery: { mcf: 0.901, dir: null, if50: null },
        rcr: 0.994,
        esr: 0.666,
      },
      exposure: [],
      skipped: [],
    },
  });

export const PgExposureBody = z
  .object({
    paper: Text(300),
    turns: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .openapi({ description: "The script's length (the curve's end)." }),
    components: z
      .array(
        z
          .object({
            id: Text(MAX_ID),
            levels: z
              .array(z.object({ turn: z.number().int().min(1).max(10_000), level: Score }).strict())
              .min(1)
              .max(200)
              .openapi({
                description: "The recoverability level R annotated at turns (0 not recoverable … 4 explicit).",
              }),
          })
          .strict(),
      )
      .min(1)
      .max(1000),
    as_of: Time.optional(),
  })
  .strict()
  .openapi("ProjectGuardExposure", {
    description: "A task's exposure audit: each component's recoverability level at the turns annotated.",
    example: {
      paper: "p1",
      turns: 60,
      components: [
        {
          id: "c1",
          levels: [
            { turn: 3, level: 1 },
            { turn: 12, level: 4 },
          ],
        },
      ],
    },
  });

export const PgExposureResult = ExposureSummary.extend({
  written: z.enum(["created", "updated", "unchanged"]),
}).openapi("ProjectGuardExposureResult", {
  description: "The stored audit's RCR, ESR, first turns and Fig. 1's curves.",
  example: {
    paper: "p1",
    components: 1,
    rcr: 1,
    esr: 1,
    per_component: [{ id: "c1", level: 4, first_recoverable_turn: 3, first_explicit_turn: 12 }],
    curve: [{ turn: 1, recoverable: 0, explicit: 0 }],
    version: 1,
    written: "created",
  },
});

// ------------------------------------------------------------------ judge and calibration (§3.4, Prompt E)

export const JUDGE_MAX_TOOL_CALLS = 8;

export const PgJudgeBody = z
  .object({
    components: z
      .array(
        z.union([
          Id.openapi({ description: "A record id whose `spec` (POST …/projectguard/spec) is judged." }),
          SpecSchema.extend({ id: Text(MAX_ID) }).strict(),
        ]),
      )
      .min(1)
      .max(20)
      .openapi({ description: "The components to score: record ids with a spec, or inline specs with an id." }),
    prefix: Text(MAX_ID).openapi({ description: "The repository: code units under this id prefix." }),
    as_of: Time.optional(),
    tool_calls: z
      .number()
      .int()
      .min(1)
      .max(JUDGE_MAX_TOOL_CALLS)
      .default(JUDGE_MAX_TOOL_CALLS)
      .openapi({ description: "Repository reads the judge's context holds per component (at most 8, Prompt E)." }),
  })
  .strict()
  .openapi("ProjectGuardJudge", {
    description: "The components to score and the repository to read.",
    example: { components: ["decision:attention-pool"], prefix: "repo/" },
  });

export const PgJudgeResult = z
  .object({
    as_of: z.string(),
    model: z.string(),
    scores: z.array(
      z.object({
        component: z.string(),
        score: Score,
        evidence: z.string().openapi({ description: "file:line, or `not found`." }),
        deviation: z.string(),
        read: z
          .array(z.object({ id: z.string(), version: z.number().int(), chars: z.number().int() }))
          .openapi({ description: "The repository reads in the judge's context (one per tool call)." }),
      }),
    ),
    dropped: z.array(z.object({ component: z.string(), reason: z.string() })),
    usage: ProposalUsageSchema,
  })
  .openapi("ProjectGuardJudgeResult", {
    description: "A score 0-4 per component with its evidence, and the reads behind it.",
    example: {
      as_of: T0,
      model: "openai:gpt-4o-mini",
      scores: [
        {
          component: "decision:attention-pool",
          score: 3,
          evidence: "repo/model/encoder.py:42",
          deviation: "weights from a dot product, not a learned vector",
          read: [{ id: "repo/model/encoder.py", version: 2, chars: 6000 }],
        },
      ],
      dropped: [],
      usage: { calls: 1, requests: 1, retries: 0, input_tokens: 2400, output_tokens: 60, ms: 1800 },
    },
  });

export const PgCalibrationBody = z
  .object({
    human: z
      .array(z.object({ component: Text(MAX_ID), score: Score }).strict())
      .min(1)
      .max(5000)
      .openapi({ description: "The human scores, per component." }),
    judge: z
      .array(z.object({ component: Text(MAX_ID), score: Score }).strict())
      .min(1)
      .max(5000)
      .optional()
      .openapi({ description: "The judge's scores per component; or give `run`." }),
    run: z
      .object({ paper: Text(300), platform: Name.default("default"), condition: z.enum(RUN_CONDITIONS) })
      .strict()
      .optional()
      .openapi({ description: "Or: a stored run whose scores are the judge's." }),
    as_of: Time.optional(),
  })
  .strict()
  .openapi("ProjectGuardCalibration", {
    description: "Human scores and the judge's (given, or a stored run's), per component.",
    example: {
      human: [
        { component: "c1", score: 4 },
        { component: "c2", score: 3 },
        { component: "c3", score: 3 },
        { component: "c4", score: 1 },
      ],
      judge: [
        { component: "c1", score: 4 },
        { component: "c2", score: 2 },
        { component: "c3", score: 3 },
        { component: "c4", score: 1 },
      ],
    },
  });

export const PgCalibrationResult = z
  .object({
    pairs: z.number().int().openapi({ description: "Components scored by both sides." }),
    weighted_kappa: z
      .number()
      .nullable()
      .openapi({ description: "Cohen's κ, quadratic weights; null when undefined." }),
    exact: Share,
    within_one: Share,
    spearman: z.number().nullable(),
    boundary_2_3: Share,
    boundary_3_4: Share,
    unmatched: z.array(z.string()).openapi({ description: "Components only one side scored (not counted)." }),
  })
  .openapi("ProjectGuardCalibrationResult", {
    description: "Table 2's agreement figures over the components both sides scored.",
    example: {
      pairs: 4,
      weighted_kappa: 0.9,
      exact: 0.75,
      within_one: 1,
      spearman: 0.9487,
      boundary_2_3: 0.25,
      boundary_3_4: 0,
      unmatched: [],
    },
  });
