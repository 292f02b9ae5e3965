/** ProjectGuard (seed 002): record specs, stored runs and their metrics, the exposure audit, the judge. */
import * as S from "../../contract";
import { errors, modelErrors } from "../docs";
import { archiveGet, archivePost, resourceApp } from "../route";

export const projectguardRoutes = resourceApp();

archivePost(
  projectguardRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/projectguard/spec",
    tags: ["projectguard"],
    summary: "Set a record's spec components",
    description:
      "A design or decision record's spec (seed 002 A.2): description, formula, expected inputs and outputs, module-level connections. Stored as the annotation `spec` on the record's version valid at `at` (default now); a later call revises it, and reads as of a time see the spec then. The brief and the render show it with the record; the judge scores against it.",
    request: S.SpecBody,
    result: S.SpecResult,
    failures: errors(400, 401, 403, 404),
  },
  (app) => app.project.setSpec,
);

archivePost(
  projectguardRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/projectguard/runs",
    tags: ["projectguard"],
    summary: "Store a run's rubric scores",
    description:
      "One final repository of a task on a platform under a condition (emergent R^em, single_shot R^ss, memory R^mem), scored per component 0-4, with its DIR (given, or computed now over the code units under `dir_prefix`). Stored as the benchmark_row chunk `pgrun:<condition>:<platform>:<paper>`: the same run stored again with other scores is its next version (valid from `as_of`), the same scores change nothing. Answers MCF, DIR, IF50 and the counts of faithful (4) and severe (≤ 1) components.",
    request: S.PgRunBody,
    result: S.PgRunResult,
    failures: errors(400, 401, 403, 404, 413),
  },
  (app) => app.project.storeRun,
);

archivePost(
  projectguardRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/projectguard/exposure",
    tags: ["projectguard"],
    summary: "Store a task's exposure audit",
    description:
      "The recoverability level R ∈ {0..4} of each component at the turns it was annotated (seed 002 §3.3). Exposure is cumulative (a level holds from its turn on; R(c) is the highest). Stored as the benchmark_row chunk `pgexposure:<paper>`; answers RCR (share with R ≥ 1), ESR (share with R = 4), each component's first recoverable and first explicit turn, and Fig. 1's cumulative curves.",
    request: S.PgExposureBody,
    result: S.PgExposureResult,
    failures: errors(400, 401, 403, 404, 413),
  },
  (app) => app.project.storeExposure,
);

archiveGet(
  projectguardRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/projectguard/metrics",
    tags: ["projectguard"],
    summary: "MCF, DIR, IF50, SLUMP_F, Recovery_F and the exposure audits over stored runs",
    description:
      "The runs stored at `as_of` (each its version then), grouped by task and platform: per run MCF, DIR, IF50; per task SLUMP_F = F(R^ss) − F(R^em) and Recovery_F = (F(R^mem) − F(R^em)) / (F(R^ss) − F(R^em)) for F = MCF, DIR, IF50 (null where a run, DIR or the gap is missing); the stored exposure audits (RCR, ESR, first turns, Fig. 1's curves); and the means over the tasks listed (macro).",
    query: S.PgMetricsQuery,
    result: S.PgMetricsResult,
    also: [413],
  },
  (app) => app.project.projectMetrics,
);

archivePost(
  projectguardRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/projectguard/calibration",
    tags: ["projectguard"],
    summary: "Judge calibration against human scores",
    description:
      "Table 2's figures between a judge's scores (given, or a stored run's) and the human scores the caller supplies, over the components both scored: weighted Cohen's κ (quadratic; null when undefined), exact match, Spearman ρ (null when a side is constant), within ±1, and the 2-3 and 3-4 boundary disagreements. Components only one side scored are listed in `unmatched`.",
    request: S.PgCalibrationBody,
    result: S.PgCalibrationResult,
    failures: errors(400, 401, 403, 404),
  },
  (app) => app.project.calibrate,
);

archivePost(
  projectguardRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/projectguard/judge",
    tags: ["projectguard"],
    summary: "Score components 0-4 with the bounded rubric judge (model)",
    description:
      "Needs a configured language model (docs/models.md); without one, a 409 naming the setting. Per component (a record id with a spec, or an inline spec), the model sees Prompt E's claim (description, formula, expected inputs and outputs, connected modules) and at most `tool_calls` (8) repository reads: the code units under `prefix` the router ranks highest for the component, each a file's first 6,000 characters with numbered lines. It answers score 0 (absent) to 4 (faithful), evidence `<id>:<line>` (a score above 0 must name a read; else the answer is asked once more) and the deviation. Writes nothing (write scope: it spends model calls); store the scores with POST …/projectguard/runs and compare them with human scores with POST …/projectguard/calibration. A model failure is a 503.",
    request: S.PgJudgeBody,
    result: S.PgJudgeResult,
    failures: { ...errors(400, 401, 403, 404, 413), ...modelErrors() },
  },
  (app) => app.project.judge,
);
