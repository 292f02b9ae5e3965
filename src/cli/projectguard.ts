/**
 * ProjectGuard's commands (seed 002), thin callers of the REST routes: `project brief`, `project render`
 * and `project dir` (the brief, its rendering, DIR); `project spec`
 * (a record's spec components), `project run` and `project exposure` (store a run's rubric scores,
 * a task's exposure audit; JSON from a file or stdin), `project metrics` (MCF, DIR, IF50, SLUMP_F,
 * Recovery_F, RCR, ESR) and `project calibrate` (a judge's scores against human scores). Each prints
 * readable text, or the server's JSON with --json.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, type Run, valueOption } from "./command";
import { asOf, budget, list, parseJson, printedJson, printJson, short } from "./common";
import { UsageError, wrap } from "./io";

const fmt = (x: number | null | undefined) => (x === null || x === undefined ? "-" : String(x));
const enc = encodeURIComponent;

/** A JSON body from a file or stdin (-), as a usage error when it is missing or not JSON. */
async function body(r: Run, src: string): Promise<unknown> {
  let text: string;
  if (src === "-") text = await r.io.readStdin();
  else {
    try {
      text = readFileSync(resolve(r.io.cwd, src), "utf8");
    } catch {
      throw new UsageError(`cannot read ${src}`);
    }
  }
  return parseJson(text, src === "-" ? "stdin" : src);
}

/** POST the JSON of the first argument (a file or stdin) to `/v1/archives/<archive>/projectguard/<route>`. */
async function postFile(r: Run, route: string): Promise<unknown> {
  return r.client().request("POST", `/v1/archives/${enc(r.archive())}/projectguard/${route}`, await body(r, r.arg(0)));
}

interface RunView {
  id: string;
  version: number;
  paper: string;
  platform: string;
  condition: string;
  components: number;
  mcf: number;
  dir: number | null;
  if50: number | null;
  faithful: number;
  severe: number;
}
type Triple = { mcf: number | null; dir: number | null; if50: number | null };
interface ExposureView {
  paper: string;
  components: number;
  rcr: number;
  esr: number;
  per_component: Array<{
    id: string;
    level: number;
    first_recoverable_turn: number | null;
    first_explicit_turn: number | null;
  }>;
}
interface MetricsView {
  as_of: string;
  papers: Array<{ paper: string; platform: string; runs: RunView[]; slump: Triple; recovery: Triple }>;
  macro: { tasks: number; slump: Triple; recovery: Triple; rcr: number | null; esr: number | null };
  exposure: ExposureView[];
  skipped: string[];
}

const runLine = (x: RunView) =>
  `${x.condition} (${x.id}@v${x.version}): MCF ${x.mcf}, DIR ${fmt(x.dir)}, IF50 ${fmt(x.if50)}; ${x.components} components, ${x.faithful} faithful, ${x.severe} severe`;
const triple = (t: Triple) => `MCF ${fmt(t.mcf)}, DIR ${fmt(t.dir)}, IF50 ${fmt(t.if50)}`;
const exposureLines = (r: Run, e: ExposureView) => {
  r.out(`exposure ${e.paper}: ${e.components} components, RCR ${e.rcr}, ESR ${e.esr}`);
  for (const c of e.per_component)
    r.out(
      `  ${c.id}: R=${c.level}, recoverable from turn ${fmt(c.first_recoverable_turn)}, explicit from turn ${fmt(c.first_explicit_turn)}`,
    );
};

/** The brief's and the rendering's resources: what motivated the commitments. */
const resourceLine = (x: { id: string; version: number; title: string; motivates: string[] }) =>
  `  ${x.id}@v${x.version}: ${x.title} (motivates ${list(x.motivates)})`;
const printOmitted = (r: Run, omitted: string[]) => {
  if (omitted.length) r.out(`omitted to fit the budget: ${list(omitted)}`);
};

const projectSpec: Command = {
  name: "project spec",
  args: '<record> --description "<text>" [--formula "<f>"] [--input "<x>"]... [--output "<y>"]... [--connection <id>]... [--at <time>]',
  summary: "Set a design or decision record's spec components (description, formula, inputs, outputs, connections).",
  options: {
    description: valueOption("<text>", "the component's intended functionality (required)"),
    formula: valueOption("<f>", "its exact formula"),
    input: valueOption("<x>", "an expected input (repeatable)", { multiple: true }),
    output: valueOption("<y>", "an expected output (repeatable)", { multiple: true }),
    connection: valueOption("<id>", "a connected module or record (repeatable)", { multiple: true }),
    at: valueOption("<time>", "when it holds from (default: now)"),
  },
  async run(r) {
    const description = r.str("description");
    if (!description) throw new UsageError("--description is required");
    const res = await r.client().request("POST", `/v1/archives/${enc(r.archive())}/projectguard/spec`, {
      record: r.arg(0),
      description,
      ...(r.str("formula") !== undefined ? { formula: r.str("formula") } : {}),
      inputs: r.list("input") ?? [],
      outputs: r.list("output") ?? [],
      connections: r.list("connection") ?? [],
      ...(r.str("at") ? { at: r.str("at") } : {}),
    });
    if (r.json) printJson(r, res);
    else {
      const v = res as { record: string; version: number; at: string };
      r.out(`spec of ${v.record}@v${v.version} set from ${v.at}`);
    }
  },
};

const projectRun: Command = {
  name: "project run",
  args: "<file.json | ->",
  summary:
    "Store a run's rubric scores ({paper, platform?, condition, scores: [{component, score}], dir? | dir_prefix?, as_of?}); prints MCF, DIR, IF50.",
  async run(r) {
    const res = (await postFile(r, "runs")) as RunView & { written: string };
    if (r.json) printJson(r, res);
    else r.out(`${res.paper} on ${res.platform}, ${runLine(res)} (${res.written})`);
  },
};

const projectExposure: Command = {
  name: "project exposure",
  args: "<file.json | ->",
  summary:
    "Store a task's exposure audit ({paper, turns?, components: [{id, levels: [{turn, level}]}]}); prints RCR, ESR and each component's first turns.",
  async run(r) {
    const res = (await postFile(r, "exposure")) as ExposureView;
    if (r.json) printJson(r, res);
    else exposureLines(r, res);
  },
};

const projectMetrics: Command = {
  name: "project metrics",
  args: "[--paper <id>] [--platform <name>] [--as-of <time>]",
  summary:
    "MCF, DIR, IF50 per stored run, SLUMP_F and Recovery_F per task, the exposure audits (RCR, ESR) and their means.",
  options: {
    paper: valueOption("<id>", "only this task"),
    platform: valueOption("<name>", "only this platform"),
    ...asOf,
  },
  async run(r) {
    const q = new URLSearchParams();
    for (const k of ["paper", "platform", "as-of"] as const) {
      const v = r.str(k);
      if (v !== undefined) q.set(k === "as-of" ? "as_of" : k, v);
    }
    const qs = q.toString();
    const res = (await r
      .client()
      .request("GET", `/v1/archives/${enc(r.archive())}/projectguard/metrics${qs ? `?${qs}` : ""}`)) as MetricsView;
    if (printedJson(r, res)) return;
    r.out(`ProjectGuard metrics as of ${res.as_of}: ${res.macro.tasks} task(s)`);
    for (const p of res.papers) {
      r.out(`\n${p.paper} on ${p.platform}:`);
      for (const x of p.runs) r.out(`  ${runLine(x)}`);
      r.out(`  SLUMP: ${triple(p.slump)}`);
      r.out(`  Recovery: ${triple(p.recovery)}`);
    }
    if (res.papers.length) {
      r.out(`\nmean SLUMP: ${triple(res.macro.slump)}`);
      r.out(`mean Recovery: ${triple(res.macro.recovery)}`);
    }
    for (const e of res.exposure) exposureLines(r, e);
    if (res.exposure.length) r.out(`mean RCR ${fmt(res.macro.rcr)}, mean ESR ${fmt(res.macro.esr)}`);
    if (res.skipped.length) r.out(`skipped (not runs): ${res.skipped.join(", ")}`);
  },
};

const projectCalibrate: Command = {
  name: "project calibrate",
  args: "<file.json | ->",
  summary:
    "A judge's scores against human scores ({human: [{component, score}], judge: [...] | run: {paper, platform?, condition}}): weighted κ, exact, Spearman, within ±1.",
  async run(r) {
    const res = (await postFile(r, "calibration")) as {
      pairs: number;
      weighted_kappa: number | null;
      exact: number;
      within_one: number;
      spearman: number | null;
      unmatched: string[];
    };
    if (r.json) printJson(r, res);
    else {
      r.out(
        `${res.pairs} pairs: weighted κ ${fmt(res.weighted_kappa)}, exact ${res.exact}, Spearman ${fmt(res.spearman)}, within ±1 ${res.within_one}`,
      );
      if (res.unmatched.length) r.out(`scored by one side only: ${res.unmatched.join(", ")}`);
    }
  },
};

const projectJudge: Command = {
  name: "project judge",
  args: "<component>... --prefix <repo/> [--tool-calls 8] [--as-of <time>]",
  summary:
    "Score components (record ids with a spec) 0-4 with the bounded rubric judge: the model reads at most 8 files under the prefix (needs a configured model).",
  options: {
    prefix: valueOption("<p>", "the repository: code units under this id prefix (required)"),
    "tool-calls": valueOption("<n>", "repository reads per component, 1-8 (default 8)"),
    ...asOf,
  },
  positionals: [1, 20],
  async run(r) {
    const prefix = r.str("prefix");
    if (!prefix) throw new UsageError("--prefix is required");
    const res = (await r.client().request("POST", `/v1/archives/${enc(r.archive())}/projectguard/judge`, {
      components: r.positionals,
      prefix,
      ...(r.int("tool-calls", 1, 8) !== undefined ? { tool_calls: r.int("tool-calls", 1, 8) } : {}),
      ...(r.str("as-of") ? { as_of: r.str("as-of") } : {}),
    })) as {
      model: string;
      scores: Array<{ component: string; score: number; evidence: string; deviation: string; read: unknown[] }>;
      dropped: Array<{ component: string; reason: string }>;
    };
    if (r.json) printJson(r, res);
    else {
      r.out(`judged by ${res.model}:`);
      for (const s of res.scores)
        r.out(`  ${s.component}: ${s.score} (${s.evidence}; ${s.read.length} reads) ${s.deviation}`);
      for (const x of res.dropped) r.out(`  not judged: ${x.component}: ${x.reason}`);
    }
  },
};

// ------------------------------------------------------------------ ProjectGuard

/** The brief's live context from --window and --used (both or neither). */
function briefContext(r: Run) {
  const window = r.int("window", 1000, 10_000_000);
  const used = r.int("used", 0, 10_000_000);
  if ((window === undefined) !== (used === undefined)) throw new UsageError("--window and --used go together");
  if (window === undefined || used === undefined) return undefined;
  return {
    window_tokens: window,
    used_tokens: used,
    next_turns: r.int("next-turns", 1, 50) ?? 3,
    turn_tokens: r.int("turn-tokens", 1, 1_000_000),
  };
}

const projectBrief: Command = {
  name: "project brief",
  args: '"<request>" [--recent "<text>"]... [--session <id>] [--budget 2000] [--prefix <repo/>] [--min-score <x>] [--as-of <t>]',
  summary:
    "ProjectGuard's pre-turn brief: the committed designs and decisions the request touches, modules to preserve, revise or reuse, signatures to keep.",
  options: {
    recent: valueOption("<text>", "one of the session's last requests (up to 5 times, most recent last)", {
      multiple: true,
    }),
    session: valueOption("<id>", "read the last requests from this session's logged turns (when no --recent is given)"),
    ...budget(2000),
    prefix: valueOption("<p>", "only code units under this id prefix (one repository)"),
    "min-score": valueOption("<x>", "records scored below this are not briefed (default 0.1)"),
    window: valueOption("<tokens>", "the agent's context window: with --used, the restart signal"),
    used: valueOption("<tokens>", "tokens the agent's live context holds now"),
    "next-turns": valueOption("<n>", "turns the restart estimate covers (default 3)"),
    "turn-tokens": valueOption("<tokens>", "tokens one turn adds (default: estimated)"),
    ...asOf,
  },
  async run(r) {
    const values = r.values.recent;
    const recent = Array.isArray(values) ? values : undefined;
    if (recent && recent.length > 5)
      throw new UsageError(`--recent may be given at most 5 times, got ${recent.length}`);
    const res = await r.client().brief(r.archive(), {
      request: r.arg(0),
      recent_requests: recent,
      session_id: r.str("session"),
      budget_tokens: r.int("budget", 100, 200_000),
      prefix: r.str("prefix"),
      min_score: r.num("min-score", 0, 100),
      as_of: r.str("as-of"),
      context: briefContext(r),
    });
    if (printedJson(r, res)) return;
    r.out(`brief as of ${res.as_of} (${res.tokens} tokens)`);
    if (!res.commitments.length) r.out("no committed design or decision is about this request");
    else {
      r.out("commitments:");
      for (const c of res.commitments) {
        r.out(`  ${c.id}@v${c.version} (${c.kind}, score ${c.score.toFixed(3)}): ${c.title}`);
        if (c.synopsis) r.out(wrap(c.synopsis, "      "));
      }
    }
    for (const [name, mods] of [
      ["preserve", res.preserve],
      ["revise", res.revise],
      ["reuse", res.reuse],
    ] as const)
      if (mods.length) {
        r.out(`${name}:`);
        for (const m of mods) r.out(`  ${m.id}@v${m.version} implements ${list(m.implements)} (${m.reason})`);
      }
    if (res.constraints.length) {
      r.out("constraints (keep these signatures):");
      for (const c of res.constraints)
        r.out(`  ${c.module}#${c.symbol}: ${short(c.signature, 120)} [${c.anchor.start},${c.anchor.end})`);
    }
    if (res.resources?.length) {
      r.out("resources (what motivated the commitments):");
      for (const x of res.resources) r.out(resourceLine(x));
    }
    if (res.session_turns) r.out(`read ${res.session_turns} recent request(s) from the session`);
    if (res.held_back.length) r.out(`held back: ${res.held_back.map((h) => `${h.id} (${h.status})`).join(", ")}`);
    if (res.restart) r.out(`restart: ${res.restart.advice}: ${res.restart.reason}`);
    printOmitted(r, res.omitted);
  },
};

const projectRender: Command = {
  name: "project render",
  args: "[--budget 8000] [--prefix <repo/>] [--as-of <time>]",
  summary: "The committed project state within a budget: designs, decisions, modules with their signatures.",
  options: {
    ...budget(8000),
    prefix: valueOption("<p>", "only code units under this id prefix"),
    ...asOf,
  },
  async run(r) {
    const res = await r.client().render(r.archive(), {
      budget_tokens: r.int("budget", 100, 200_000),
      prefix: r.str("prefix"),
      as_of: r.str("as-of"),
    });
    if (printedJson(r, res)) return;
    r.out(`project state as of ${res.as_of}: ${res.tokens} tokens (of ${res.state_chars} characters of state)`);
    for (const d of res.designs) {
      r.out(`\ndesign ${d.id}@v${d.version}: ${d.title}`);
      r.out(wrap(d.content, "  "));
    }
    for (const d of res.decisions) {
      r.out(`\ndecision ${d.id}@v${d.version}: ${d.title}${d.part_of.length ? ` (part of ${list(d.part_of)})` : ""}`);
      r.out(wrap(d.content, "  "));
    }
    if (res.modules.length) r.out("\nmodules:");
    for (const m of res.modules) {
      const rel = [
        m.implements.length ? `implements ${list(m.implements)}` : "",
        m.depends_on.length ? `depends on ${list(m.depends_on)}` : "",
      ].filter(Boolean);
      r.out(`  ${m.id}@v${m.version}${rel.length ? ` (${rel.join("; ")})` : ""}`);
      for (const s of m.signatures) r.out(`    ${short(s.signature, 110)}`);
    }
    if (res.resources.length) r.out("\nresources:");
    for (const x of res.resources) r.out(resourceLine(x));
    if (!res.designs.length && !res.decisions.length && !res.modules.length) r.out("nothing committed yet");
    printOmitted(r, res.omitted);
  },
};

const projectDir: Command = {
  name: "project dir",
  args: "<prefix> [--as-of <time>]",
  summary: "The dependency integration ratio (DIR) of the code units under a prefix: exports integration code uses.",
  options: { ...asOf },
  async run(r) {
    const res = await r.client().dir(r.archive(), { prefix: r.arg(0), as_of: r.str("as-of") });
    if (printedJson(r, res)) return;
    r.out(`DIR ${res.dir} for ${res.prefix} as of ${res.as_of}: ${res.used} of ${res.total} standalone exports used`);
    r.out(`  integration: ${list(res.integration)}`);
    r.out(`  standalone:  ${list(res.standalone)}`);
    if (res.tests.length) r.out(`  tests (left out): ${list(res.tests)}`);
    if (res.unused.length) r.out(`  unused exports: ${list(res.unused, 20)}`);
  },
};

export const PROJECTGUARD_COMMANDS: Command[] = [
  projectBrief,
  projectRender,
  projectDir,
  projectJudge,
  projectSpec,
  projectRun,
  projectExposure,
  projectMetrics,
  projectCalibrate,
];
