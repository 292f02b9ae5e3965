/**
 * The seed systems' command groups, each a thin caller of its REST routes through the typed client:
 * `project` (ProjectGuard: brief, render, DIR), `xkg` (technique -> code pairs, the xKG export,
 * grounding), `research` (SGMC: outline tree, hubs, drafts, convergence, feedback, assembly) and
 * `papers` (Paper Circle: statistics, locate, coverage, review, retrieval metrics); plus `annotate`,
 * `annotations` and `diff` on any chunk. Every command prints readable text, or the server's JSON
 * with --json.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { AnnotateBody, PaperGuruClient, RetrievalMetricsBody, ReviewBody, ReviewQuery } from "../client";
import { REVIEW_OPS } from "../core/review";
import { CHUNK_KINDS, EDGE_TYPES } from "../core/types";
import type { Command, OptionSpec, Run } from "./command";
import { DISCOVERY_COMMANDS } from "./discover";
import { didYouMean, EXIT, table, UsageError, wrap } from "./io";
import { PAPER_CIRCLE_COMMANDS } from "./paper-circle";
import { PAPERBENCH_COMMANDS } from "./paperbench";
import { PROJECTGUARD_COMMANDS } from "./projectguard";
import { CODE_CHUNKS_OPTION, codeFromFlags, rewriteCodeChunks, yearRange } from "./query-flags";
import { SGMC_COMMANDS } from "./sgmc";
import { XKG_MODEL_COMMANDS } from "./xkg-model";

type LocateKind = NonNullable<Parameters<PaperGuruClient["locate"]>[1]["kinds"]>[number];
type CoverageQ = Parameters<PaperGuruClient["coverage"]>[1];
/** The values src/contract/papers.ts allows (the CLI imports no contract code; tsc checks the types). */
const LOCATE_KINDS = ["section", "element", "paper"] as const satisfies readonly LocateKind[];
const COVERAGE_RULES = ["referenced", "grounded", "both", "either"] as const satisfies readonly NonNullable<
  CoverageQ["rule"]
>[];
const COVERAGE_AGGREGATES = ["micro", "macro"] as const satisfies readonly NonNullable<CoverageQ["aggregate"]>[];

const printJson = (r: Run, v: unknown) => r.out(JSON.stringify(v, null, 2));
const short = (s: string, n: number) => {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};
const asOf: Record<string, OptionSpec> = {
  "as-of": { type: "string", arg: "<time>", description: "ISO date or date-time (default: now)" },
};
const budget = (def: number): Record<string, OptionSpec> => ({
  budget: { type: "string", arg: "<tokens>", description: `token budget (default ${def})` },
});
const list = (xs: readonly string[], max = 10) =>
  xs.length ? `${xs.slice(0, max).join(", ")}${xs.length > max ? `, … ${xs.length - max} more` : ""}` : "-";

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(
    `--${flag}: unknown value "${value}"${didYouMean(value, allowed, (s) => `"${s}"`)}; use one of ${allowed.join(", ")}`,
  );
}

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
    throw new UsageError(`${src === "-" ? "stdin" : src} is not JSON`);
  }
}

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
    recent: {
      type: "string",
      multiple: true,
      arg: "<text>",
      description: "one of the session's last requests (up to 5 times, most recent last)",
    },
    session: {
      type: "string",
      arg: "<id>",
      description: "read the last requests from this session's logged turns (when no --recent is given)",
    },
    ...budget(2000),
    prefix: { type: "string", arg: "<p>", description: "only code units under this id prefix (one repository)" },
    "min-score": { type: "string", arg: "<x>", description: "records scored below this are not briefed (default 0.1)" },
    window: {
      type: "string",
      arg: "<tokens>",
      description: "the agent's context window: with --used, the restart signal",
    },
    used: { type: "string", arg: "<tokens>", description: "tokens the agent's live context holds now" },
    "next-turns": { type: "string", arg: "<n>", description: "turns the restart estimate covers (default 3)" },
    "turn-tokens": { type: "string", arg: "<tokens>", description: "tokens one turn adds (default: estimated)" },
    ...asOf,
  },
  positionals: [1, 1],
  async run(r) {
    const values = r.values.recent;
    const recent = Array.isArray(values) ? values : undefined;
    if (recent && recent.length > 5)
      throw new UsageError(`--recent may be given at most 5 times, got ${recent.length}`);
    const res = await r.client().brief(r.archive(), {
      request: r.positionals[0] as string,
      recent_requests: recent,
      session_id: r.str("session"),
      budget_tokens: r.int("budget", 100, 200_000),
      prefix: r.str("prefix"),
      min_score: r.num("min-score", 0, 100),
      as_of: r.str("as-of"),
      context: briefContext(r),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
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
      for (const x of res.resources) r.out(`  ${x.id}@v${x.version}: ${x.title} (motivates ${list(x.motivates)})`);
    }
    if (res.session_turns) r.out(`read ${res.session_turns} recent request(s) from the session`);
    if (res.held_back.length) r.out(`held back: ${res.held_back.map((h) => `${h.id} (${h.status})`).join(", ")}`);
    if (res.restart) r.out(`restart: ${res.restart.advice}: ${res.restart.reason}`);
    if (res.omitted.length) r.out(`omitted to fit the budget: ${list(res.omitted)}`);
    return EXIT.ok;
  },
};

const projectRender: Command = {
  name: "project render",
  args: "[--budget 8000] [--prefix <repo/>] [--as-of <time>]",
  summary: "The committed project state within a budget: designs, decisions, modules with their signatures.",
  options: {
    ...budget(8000),
    prefix: { type: "string", arg: "<p>", description: "only code units under this id prefix" },
    ...asOf,
  },
  positionals: [0, 0],
  async run(r) {
    const res = await r.client().render(r.archive(), {
      budget_tokens: r.int("budget", 100, 200_000),
      prefix: r.str("prefix"),
      as_of: r.str("as-of"),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
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
    for (const x of res.resources) r.out(`  ${x.id}@v${x.version}: ${x.title} (motivates ${list(x.motivates)})`);
    if (!res.designs.length && !res.decisions.length && !res.modules.length) r.out("nothing committed yet");
    if (res.omitted.length) r.out(`omitted to fit the budget: ${list(res.omitted)}`);
    return EXIT.ok;
  },
};

const projectDir: Command = {
  name: "project dir",
  args: "<prefix> [--as-of <time>]",
  summary: "The dependency integration ratio (DIR) of the code units under a prefix: exports integration code uses.",
  options: { ...asOf },
  positionals: [1, 1],
  async run(r) {
    const res = await r.client().dir(r.archive(), { prefix: r.positionals[0] as string, as_of: r.str("as-of") });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`DIR ${res.dir} for ${res.prefix} as of ${res.as_of}: ${res.used} of ${res.total} standalone exports used`);
    r.out(`  integration: ${list(res.integration)}`);
    r.out(`  standalone:  ${list(res.standalone)}`);
    if (res.tests.length) r.out(`  tests (left out): ${list(res.tests)}`);
    if (res.unused.length) r.out(`  unused exports: ${list(res.unused, 20)}`);
    return EXIT.ok;
  },
};

// ------------------------------------------------------------------ xKG

const xkgPairs: Command = {
  name: "xkg pairs",
  args: '"<technique>" [--limit 10] [--threshold <x>] [--grounded-only] [--within <id>] [--scope <tags>] [code] [--verify]',
  summary: "Techniques routed for a query, each paired with the code that implements it (exact code spans).",
  details:
    "Code (xKG): --max-code-bytes <n> caps the pairs' code together, --code-chunks [size[:overlap]] carries each code's best windows.",
  options: {
    limit: { type: "string", arg: "<n>", description: "techniques routed (1-50, default 10)" },
    threshold: {
      type: "string",
      arg: "<x>",
      description: "minimum cosine of the technique to the query (-1 to 1; default 0.15)",
    },
    "grounded-only": { type: "boolean", description: "leave out techniques no code implements" },
    within: { type: "string", arg: "<id>", description: "only techniques in this chunk's part-of subtree (one paper)" },
    scope: { type: "string", multiple: true, arg: "<tags>", description: "techniques with any of these boundary tags" },
    "max-code-bytes": {
      type: "string",
      arg: "<n>",
      description: "cap on the code spans' bytes together, in pair order (xKG prompts: 52100)",
    },
    verify: { type: "boolean", description: "the model verifies: keeps, drops and reorders the pairs (needs a model)" },
    "code-chunks": CODE_CHUNKS_OPTION,
    ...asOf,
  },
  positionals: [1, 1],
  rewrite: rewriteCodeChunks,
  async run(r) {
    const res = await r.client().codePairs(r.archive(), {
      code_chunks: codeFromFlags(r).code_chunks,
      verify: r.values.verify === true ? true : undefined,
      max_code_bytes: r.int("max-code-bytes", 1, 10_000_000),
      query: r.positionals[0] as string,
      limit: r.int("limit", 1, 50),
      threshold: r.num("threshold", -1, 1),
      include_ungrounded: r.values["grounded-only"] === true ? false : undefined,
      within: r.str("within"),
      boundaries_any: r.list("scope"),
      as_of: r.str("as-of"),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    if (!res.pairs.length) r.out(`no technique above threshold ${res.threshold}`);
    for (const [i, p] of res.pairs.entries()) {
      r.out(`[${i + 1}] ${p.technique.id}@v${p.technique.version} (score ${p.score.toFixed(3)}): ${p.technique.title}`);
      if (p.code)
        r.out(
          `    code: ${p.code.id}@v${p.code.version} [${p.code.anchor.start},${p.code.anchor.end}) ${p.code.bytes} bytes${p.code.truncated ? " (cut to fit --max-code-bytes)" : ""}`,
        );
      else if (p.grounded) r.out("    code: left out (--max-code-bytes spent)");
      else r.out("    code: none (not grounded)");
      if (p.code?.windows) r.out(`    windows: ${p.code.windows.map((w) => `[${w.start},${w.end})`).join(" ")}`);
      if (p.verifier_reason) r.out(`    verifier: ${short(p.verifier_reason, 140)}`);
    }
    const v = res.verifier;
    if (v) {
      r.out(`verifier ${v.model}: kept ${v.kept} of ${v.candidates}`);
      for (const x of v.dropped)
        r.out(`  dropped ${x.technique}${x.code ? ` / ${x.code}` : ""}: ${short(x.reason, 120)}`);
    }
    if (res.below_threshold) r.out(`${res.below_threshold} routed techniques below threshold ${res.threshold}`);
    return EXIT.ok;
  },
};

const xkgExport: Command = {
  name: "xkg export",
  args: "[--paper <id>] [--planning] [--as-of <time>] [--out <file>]",
  summary: "The archive's xKG graphs in the released layout (JSON Lines, one paper a line), as of a time.",
  options: {
    // The xKG layout is per paper: `--paper` takes one; subtrees and collections are other formats'
    // scopes (`paperguru export --within/--collection`), refused by format=xkg.
    paper: { type: "string", arg: "<id>", description: "one paper's file" },
    planning: { type: "boolean", description: "the planning view: papers with their techniques, no code nodes" },
    out: { type: "string", short: "o", arg: "<file>", description: "write to a file (default: stdout)" },
    ...asOf,
  },
  positionals: [0, 0],
  async run(r) {
    const text = await r.client().export(r.archive(), {
      format: "xkg",
      paper: r.str("paper"),
      view: r.values.planning === true ? "planning" : undefined,
      as_of: r.str("as-of"),
    });
    const out = r.str("out");
    if (!text.trim()) r.err("no xKG paper in scope (`paperguru import <file.json> --format xkg` stores one)");
    if (out) {
      writeFileSync(resolve(r.io.cwd, out), text);
      r.err(`wrote ${Buffer.byteLength(text)} bytes of xkg to ${out}`);
    } else r.io.stdout.write(text.endsWith("\n") || !text ? text : `${text}\n`);
    return EXIT.ok;
  },
};

const xkgGrounding: Command = {
  name: "xkg grounding",
  args: "[--kind technique] [--prefix <p>] [--as-of <time>]",
  summary: "How many chunks of a kind some code implements (xKG: techniques with code), and the others.",
  options: {
    kind: { type: "string", arg: "<kind>", description: "the kind counted (default technique)" },
    prefix: { type: "string", arg: "<p>", description: "only chunk ids starting with this (one paper's graph)" },
    ...asOf,
  },
  positionals: [0, 0],
  async run(r) {
    const res = await r.client().grounding(r.archive(), {
      kind: oneOf("kind", r.str("kind"), CHUNK_KINDS),
      prefix: r.str("prefix"),
      as_of: r.str("as-of"),
    });
    if (r.json) printJson(r, res);
    else {
      r.out(`${res.grounded} of ${res.total} ${res.kind} chunks grounded (${res.share}) as of ${res.as_of}`);
      if (res.ungrounded.length) r.out(`  without code: ${list(res.ungrounded, 20)}`);
    }
    return EXIT.ok;
  },
};

// ------------------------------------------------------------------ SGMC

const researchTree: Command = {
  name: "research tree",
  args: "<root> [--theta 500] [--d-max 4] [--words all|own|references] [--max-nodes 500] [--planning] [--as-of <time>]",
  summary: "The outline under a root (part-of, boundary outline) with each node's words, split flag φ, draft and hub.",
  options: {
    planning: { type: "boolean", description: "xKG's planning view: a paper's techniques and sections, no code nodes" },
    theta: { type: "string", arg: "<n>", description: "θ of Eq. 3: split a node with more words (default 500)" },
    "d-max": { type: "string", arg: "<n>", description: "d_max of Eq. 5: the deepest level (default 4)" },
    words: { type: "string", arg: "<w>", description: "count all (default), own or references words" },
    "max-nodes": { type: "string", arg: "<n>", description: "refuse a larger subtree (default 500, at most 2000)" },
    ...asOf,
  },
  positionals: [1, 1],
  async run(r) {
    const res = await r.client().tree(r.archive(), {
      root: r.positionals[0] as string,
      theta: r.int("theta", 1, 1_000_000),
      d_max: r.int("d-max", 1, 16),
      words: oneOf("words", r.str("words"), ["all", "own", "references"] as const),
      max_nodes: r.int("max-nodes", 1, 2000),
      view: r.values.planning === true ? "planning" : undefined,
      as_of: r.str("as-of"),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(
      `${res.view === "planning" ? "planning view of" : "outline"} ${res.root} as of ${res.as_of} (θ ${res.theta}, d_max ${res.d_max}, words ${res.words})`,
    );
    for (const n of res.nodes) {
      const flags = [
        `${n.words.counted} words`,
        n.split ? "split" : "",
        `${n.references.length} refs`,
        n.draft ? `draft v${n.draft.version}` : "",
        n.hub ? `hub v${n.hub.version}` : "",
      ].filter(Boolean);
      const kind = res.view === "planning" ? ` [${n.kind}]` : "";
      r.out(`${"  ".repeat(n.depth + 1)}${n.id}${kind}: ${short(n.title, 70)} (${flags.join(", ")})`);
    }
    r.out(res.done ? "done (Eq. 5): no leaf to split" : `to split next: ${list(res.pending)}`);
    return EXIT.ok;
  },
};

const researchHubs: Command = {
  name: "research hubs",
  args: "<node> [--gather [--query <q>] [--budget 2000] [--max-cards <n>] [--at <time>]] [--as-of <time>]",
  summary:
    "A node's evidence hub, iteration by iteration; with --gather, first gather the next iteration from the node's references.",
  options: {
    gather: { type: "boolean", description: "gather one iteration now (write key)" },
    query: { type: "string", arg: "<q>", description: "with --gather: what to look for (default: the node's text)" },
    ...budget(2000),
    "max-cards": { type: "string", arg: "<n>", description: "with --gather: at most n cards (1-50)" },
    at: { type: "string", arg: "<time>", description: "with --gather: valid time of the new hub version" },
    ...asOf,
  },
  positionals: [1, 1],
  async run(r) {
    const node = r.positionals[0] as string;
    const client = r.client();
    const archive = r.archive();
    if (r.values.gather !== true && (r.str("query") || r.str("budget") || r.str("max-cards") || r.str("at")))
      throw new UsageError("--query, --budget, --max-cards and --at go with --gather");
    if (r.values.gather === true) {
      const g = await client.gather(archive, {
        node,
        query: r.str("query"),
        budget_tokens: r.int("budget", 100, 50_000),
        max_cards: r.int("max-cards", 1, 50),
        at: r.str("at"),
        as_of: r.str("as-of"),
      });
      if (r.json) {
        printJson(r, g);
        return EXIT.ok;
      }
      r.out(
        `gathered ${g.evidence.length} anchors from ${g.references} references into ${g.hub.id}@v${g.hub.version} (${g.hub.status}, iteration ${g.iteration})`,
      );
    }
    const res = await client.hub(archive, { node, as_of: r.str("as-of") });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`hub ${res.hub} of ${res.node} as of ${res.as_of}: ${res.iterations.length} iterations`);
    for (const it of res.iterations) {
      r.out(`  t=${it.iteration} v${it.version} ${it.valid_from}: ${short(it.query, 80)}`);
      for (const e of it.evidence.slice(0, 10))
        r.out(`    ${e.artifact_id}@v${e.version} [${e.start},${e.end}) "${short(e.snippet, 80)}"`);
      if (it.evidence.length > 10) r.out(`    … ${it.evidence.length - 10} more (--json prints all)`);
    }
    return EXIT.ok;
  },
};

const researchDrafts: Command = {
  name: "research drafts",
  args: "<node> [--write <file|-> [--evidence <anchors.json>] [--at <time>]] [--as-of <time>]",
  summary:
    "A node's section draft as of a time, with the sources and anchors it rests on; with --write, store the next draft first.",
  options: {
    write: { type: "string", arg: "<file|->", description: "store this text as the next draft (write key)" },
    evidence: {
      type: "string",
      arg: "<file>",
      description: "with --write: anchors the draft rests on (a list, {anchors}, or hubs/context --json output)",
    },
    at: { type: "string", arg: "<time>", description: "with --write: valid time of the new draft version" },
    ...asOf,
  },
  positionals: [1, 1],
  async run(r) {
    const node = r.positionals[0] as string;
    const client = r.client();
    const archive = r.archive();
    const write = r.str("write");
    if (!write && (r.str("evidence") || r.str("at"))) throw new UsageError("--evidence and --at go with --write");
    if (write) {
      const text = write === "-" ? await r.io.readStdin() : readFileSync(resolve(r.io.cwd, write), "utf8");
      const evidenceFile = r.str("evidence");
      const evidence = evidenceFile ? anchorsFrom(await readJson(r, evidenceFile)) : undefined;
      const d = await client.draft(archive, { node, text, evidence, at: r.str("at") });
      if (!r.json)
        r.out(`${d.draft.id}@v${d.draft.version} ${d.draft.status} (iteration ${d.iteration}); cites ${list(d.cites)}`);
    }
    const res = await client.readDraft(archive, { node, as_of: r.str("as-of") });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`${res.draft}@v${res.version} (iteration ${res.iteration}, valid from ${res.valid_from})`);
    r.out(res.text.trimEnd());
    r.out(`cites: ${list(res.cites)}; ${res.evidence.length} evidence anchors`);
    return EXIT.ok;
  },
};

/** Anchors from a list, {anchors}, {evidence} (hubs) or {cards} (context --json). */
function anchorsFrom(json: unknown) {
  type A = { artifact_id: string; version: number; start: number; end: number; snippet: string };
  const pick = (xs: unknown[]): A[] =>
    xs.map((x) => {
      const a = x as Partial<A>;
      if (
        typeof a.artifact_id !== "string" ||
        typeof a.version !== "number" ||
        typeof a.start !== "number" ||
        typeof a.end !== "number" ||
        typeof a.snippet !== "string"
      )
        throw new UsageError("--evidence: every anchor needs artifact_id, version, start, end and snippet");
      return { artifact_id: a.artifact_id, version: a.version, start: a.start, end: a.end, snippet: a.snippet };
    });
  if (Array.isArray(json)) return pick(json);
  const o = (json ?? {}) as { anchors?: unknown; evidence?: unknown; cards?: unknown; iterations?: unknown };
  if (Array.isArray(o.anchors)) return pick(o.anchors);
  if (Array.isArray(o.evidence)) return pick(o.evidence);
  if (Array.isArray(o.cards))
    return pick(o.cards.flatMap((c) => ((c as { anchored_spans?: unknown[] }).anchored_spans ?? []) as unknown[]));
  if (Array.isArray(o.iterations)) {
    const last = o.iterations[o.iterations.length - 1] as { evidence?: unknown[] } | undefined;
    return pick(last?.evidence ?? []);
  }
  throw new UsageError("--evidence: give a list of anchors, {anchors}, hubs --json or context --json output");
}

const researchConvergence: Command = {
  name: "research convergence",
  args: "<draft> [--epsilon 0.9] [--t-max 4] [--measure f1|precision|recall] [--max-versions 100] [--as-of <time>]",
  summary: "ROUGE-1 between consecutive versions of a draft and Eq. 10's stop iteration.",
  options: {
    epsilon: { type: "string", arg: "<x>", description: "stop when ψ > ε (0-1, default 0.9)" },
    "t-max": { type: "string", arg: "<n>", description: "the last iteration (default 4)" },
    measure: { type: "string", arg: "<m>", description: "which ROUGE-1 score is ψ: f1 (default), precision, recall" },
    "max-versions": { type: "string", arg: "<n>", description: "versions read, oldest first (2-500, default 100)" },
    ...asOf,
  },
  positionals: [1, 1],
  async run(r) {
    const res = await r.client().convergence(r.archive(), {
      draft: r.positionals[0] as string,
      epsilon: r.num("epsilon", 0, 1),
      t_max: r.int("t-max", 1, 1000),
      measure: oneOf("measure", r.str("measure"), ["f1", "precision", "recall"] as const),
      max_versions: r.int("max-versions", 2, 500),
      as_of: r.str("as-of"),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`${res.draft} as of ${res.as_of}: ${res.versions.length} versions (ε ${res.epsilon}, t_max ${res.t_max})`);
    if (res.pairs.length)
      r.out(
        table([
          ["  from", "to", "precision", "recall", "f1"],
          ...res.pairs.map((p) => [
            `  v${p.from}`,
            `v${p.to}`,
            p.precision.toFixed(4),
            p.recall.toFixed(4),
            p.f1.toFixed(4),
          ]),
        ]),
      );
    r.out(
      res.stop
        ? `stop at t*=${res.stop.iteration} (v${res.stop.version}, ${res.stop.reason === "similar" ? `${res.measure} > ε` : "t_max reached"})`
        : "not converged yet",
    );
    if (res.truncated) r.out("more versions exist than --max-versions");
    return EXIT.ok;
  },
};

const researchFeedback: Command = {
  name: "research feedback",
  args: "[--scope <tag>] [--tie oldest|newest] [--use <event-id>] [--as-of <time>]",
  summary: "Select feedback by Eq. 12: among the records with the fewest revisions, the most used.",
  options: {
    scope: { type: "string", arg: "<tag>", description: "only records carrying this boundary tag too" },
    tie: { type: "string", arg: "<t>", description: "among equals: oldest (default) or newest" },
    use: { type: "string", arg: "<event-id>", description: "count the selection as a use, once per id (write key)" },
    ...asOf,
  },
  positionals: [0, 0],
  async run(r) {
    const sel = {
      scope: r.str("scope"),
      tie: oneOf("tie", r.str("tie"), ["oldest", "newest"] as const),
      as_of: r.str("as-of"),
    };
    const use = r.str("use");
    const once = use === undefined ? null : await r.client().selectFeedbackOnce(r.archive(), { ...sel, event_id: use });
    const res = once ? once.answer : await r.client().selectFeedback(r.archive(), sel);
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(
      `${res.records} feedback records as of ${res.as_of}; R_min (revisions ${res.r_min ?? "-"}) has ${res.r_min_size}`,
    );
    if (res.selected)
      r.out(
        `selected: ${res.selected.id}@v${res.selected.version} "${short(res.selected.title, 80)}" (uses ${res.selected.uses}, revisions ${res.selected.revisions})`,
      );
    else r.out("no feedback record to select");
    if (res.used)
      r.out(
        `use recorded (event ${res.used.event_id}${once?.replayed ? ", a repeat: counted once" : ""}): uses ${res.used.uses}`,
      );
    if (res.pending_proposals) r.out(`${res.pending_proposals} model proposals wait for review (papers review)`);
    return EXIT.ok;
  },
};

const researchAssemble: Command = {
  name: "research assemble",
  args: "<root> [--budget 8000] [--any-draft] [--as-of <time>] [--out <file>]",
  summary: "The finished sections in tree order as Markdown within a budget, and what was left out and why.",
  options: {
    ...budget(8000),
    "any-draft": { type: "boolean", description: "take drafts that have not converged too" },
    out: { type: "string", short: "o", arg: "<file>", description: "write the Markdown to a file" },
    ...asOf,
  },
  positionals: [1, 1],
  async run(r) {
    const res = await r.client().assemble(r.archive(), {
      root: r.positionals[0] as string,
      budget_tokens: r.int("budget", 50, 200_000),
      require_converged: r.values["any-draft"] === true ? false : undefined,
      as_of: r.str("as-of"),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    const out = r.str("out");
    if (out) writeFileSync(resolve(r.io.cwd, out), res.text);
    else if (res.text) r.io.stdout.write(res.text.endsWith("\n") ? res.text : `${res.text}\n`);
    r.err(
      `${res.sections.length} sections, ${res.tokens} of ${res.budget_tokens} tokens${out ? ` written to ${out}` : ""}`,
    );
    if (res.left_out.length) r.err(`left out: ${list(res.left_out.map((l) => `${l.node} (${l.reason})`))}`);
    return EXIT.ok;
  },
};

// ------------------------------------------------------------------ Paper Circle

const papersModes: Command = {
  name: "papers modes",
  args: "[<mode>]",
  summary: "Paper Circle's ranking modes with their weights and MMR λ, the views and the defaults (no query needed).",
  options: {},
  positionals: [0, 1],
  async run(r) {
    const res = await r.client().rankingModes(r.archive());
    const want = r.positionals[0];
    if (want !== undefined) oneOf("mode", want, res.modes.map((m) => m.mode) as [string, ...string[]]);
    const modes = want === undefined ? res.modes : res.modes.filter((m) => m.mode === want);
    if (r.json) {
      printJson(r, want === undefined ? res : modes[0]);
      return EXIT.ok;
    }
    r.out(
      table([
        ["mode", "similarity", "recency", "novelty", "bm25", "λ", "what"],
        ...modes.map((m) => [
          m.mode,
          ...(["similarity", "recency", "novelty", "bm25"] as const).map((k) =>
            m.weights ? String(m.weights[k]) : "-",
          ),
          String(m.lambda),
          m.description,
        ]),
      ]),
    );
    if (want === undefined) {
      for (const v of res.views) r.out(`view ${v.view}: ${v.description}`);
      const d = res.defaults;
      r.out(
        `defaults: mode ${d.mode}, similarity floor ${d.min_similarity} when a ranking reorders, pool ${d.pool}, canonical ≥ ${d.canonical.min_citations} citations or top ${d.canonical.top_share} share`,
      );
    }
    return EXIT.ok;
  },
};

const papersStats: Command = {
  name: "papers stats",
  args: "[--within <id>] [--kinds paper] [--scope <tags>] [--venue <a,b>] [--year-from|--year-to <y>] [--references <r>] [--limit <n>] [--as-of <t>]",
  summary: "Collection statistics and insights: years, sources, authors, venues, keywords, citations, open access.",
  options: {
    within: { type: "string", arg: "<id>", description: "only this chunk's part-of subtree" },
    kinds: { type: "string", multiple: true, arg: "<a,b>", description: "kinds counted (default paper)" },
    scope: { type: "string", multiple: true, arg: "<tags>", description: "chunks with any of these boundary tags" },
    references: {
      type: "string",
      arg: "<r>",
      description: "works known only from a bibliography: exclude (default), include, only",
    },
    limit: { type: "string", arg: "<n>", description: "papers read at most (1-2000)" },
    venue: { type: "string", multiple: true, arg: "<a,b>", description: "only papers of these venues (ids or names)" },
    "year-from": { type: "string", arg: "<yyyy>", description: "only papers of this year or later" },
    "year-to": { type: "string", arg: "<yyyy>", description: "only papers of this year or earlier" },
    ...asOf,
  },
  positionals: [0, 0],
  async run(r) {
    const kinds = r.list("kinds");
    const { yearFrom, yearTo } = yearRange(r);
    for (const k of kinds ?? []) oneOf("kinds", k, CHUNK_KINDS);
    const res = await r.client().stats(r.archive(), {
      within: r.str("within"),
      kinds: kinds?.join(","),
      boundaries_any: r.list("scope")?.join(","),
      references: oneOf("references", r.str("references"), ["exclude", "include", "only"] as const),
      limit: r.int("limit", 1, 2000),
      venues: r.list("venue")?.join(","),
      year_from: yearFrom,
      year_to: yearTo,
      as_of: r.str("as-of"),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`${res.papers} papers as of ${res.as_of}${res.truncated ? ` (first ${res.limit} read)` : ""}`);
    const i = res.insights;
    if (res.years.length) r.out(`  years: ${res.years.map((y) => `${y.year} ${y.count}`).join(", ")}`);
    if (i.primary_source)
      r.out(
        `  primary source: ${i.primary_source.source} (${i.primary_source.count}, ${(i.primary_source.share * 100).toFixed(0)}%)`,
      );
    if (res.top_authors.length)
      r.out(
        `  top authors: ${list(
          res.top_authors.map((a) => `${a.name} ${a.count}`),
          5,
        )}`,
      );
    if (res.top_venues.length)
      r.out(
        `  top venues: ${list(
          res.top_venues.map((a) => `${a.name} ${a.count}`),
          5,
        )}`,
      );
    if (i.hot_topics.length) r.out(`  hot topics: ${i.hot_topics.join(", ")}`);
    const c = res.citations;
    r.out(`  citations: total ${c.total}, mean ${c.mean ?? "-"}, median ${c.median ?? "-"}, max ${c.max ?? "-"}`);
    if (i.citation_leader)
      r.out(
        `  most cited: ${i.citation_leader.chunk} "${short(i.citation_leader.title, 70)}" (${i.citation_leader.citations})`,
      );
    if (i.open_access.known)
      r.out(`  open access: ${i.open_access.open} of ${i.open_access.known} known (${i.open_access.how})`);
    return EXIT.ok;
  },
};

const papersLocate: Command = {
  name: "papers locate",
  args: '<paper> "<query>" [--limit 10] [--kinds section,element,paper] [--snippets 2] [--as-of <time>]',
  summary: "Where in one paper something is discussed: sections, figures, tables, equations, with exact snippets.",
  options: {
    limit: { type: "string", arg: "<n>", description: "items (1-50, default 10)" },
    kinds: { type: "string", multiple: true, arg: "<a,b>", description: `only ${LOCATE_KINDS.join(", ")}` },
    snippets: { type: "string", arg: "<n>", description: "exact snippets per item (0-5, default 2)" },
    ...asOf,
  },
  positionals: [2, 2],
  async run(r) {
    const [paper, query] = r.positionals as [string, string];
    const kinds = r.list("kinds")?.map((k) => oneOf("kinds", k, LOCATE_KINDS) as (typeof LOCATE_KINDS)[number]);
    const res = await r.client().locate(r.archive(), {
      paper,
      query,
      limit: r.int("limit", 1, 50),
      kinds,
      snippets: r.int("snippets", 0, 5),
      as_of: r.str("as-of"),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`"${short(query, 80)}" in ${res.paper} as of ${res.as_of} (${res.trace.subtree} items in the paper)`);
    if (!res.items.length) r.out("not found in this paper");
    for (const it of res.items) {
      const where = it.page === null ? "" : `, page ${it.page}`;
      r.out(
        `[${it.rank}] ${it.chunk}@v${it.version} (${it.element_type ?? it.kind}${where}, ${it.score}): ${short(it.title, 70)}`,
      );
      if (it.discussed_in.length) r.out(`    discussed in ${list(it.discussed_in, 5)}`);
      for (const s of it.snippets) r.out(`    [${s.start},${s.end}) "${short(s.text, 90)}"`);
    }
    if (res.sections.length)
      r.out(
        `sections: ${list(
          res.sections.map((s) => s.chunk),
          8,
        )}`,
      );
    return EXIT.ok;
  },
};

const papersCoverage: Command = {
  name: "papers coverage",
  args: "<paper> [--rule referenced|grounded|both|either] [--aggregate micro|macro] [--as-of <time>]",
  summary: "Coverage of a paper's sections, figures, tables and equations: how many are linked, and which are not.",
  options: {
    rule: {
      type: "string",
      arg: "<r>",
      description: `what counts as linked: ${COVERAGE_RULES.join(", ")} (default either)`,
    },
    aggregate: {
      type: "string",
      arg: "<a>",
      description: `overall share: ${COVERAGE_AGGREGATES.join(", ")} (default micro)`,
    },
    ...asOf,
  },
  positionals: [1, 1],
  async run(r) {
    const res = await r.client().coverage(r.archive(), {
      paper: r.positionals[0] as string,
      rule: oneOf("rule", r.str("rule"), COVERAGE_RULES),
      aggregate: oneOf("aggregate", r.str("aggregate"), COVERAGE_AGGREGATES),
      as_of: r.str("as-of"),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(
      `coverage of ${res.paper} (${res.rule}, ${res.aggregate}): ${res.share ?? "-"} (${res.linked} of ${res.total} linked)`,
    );
    r.out(
      table([
        ["  type", "linked", "total", "share", "unlinked"],
        ...Object.entries(res.types).map(([t, v]) => [
          `  ${t}`,
          String(v.linked),
          String(v.total),
          v.share === null ? "-" : String(v.share),
          list(
            v.unlinked.map((u) => u.chunk),
            4,
          ),
        ]),
      ]),
    );
    return EXIT.ok;
  },
};

/** `from,type,to` of --edge. */
function edgeArg(spec: string): { from: string; type: (typeof EDGE_TYPES)[number]; to: string } {
  const parts = spec.split(",");
  if (parts.length !== 3 || parts.some((p) => !p.trim()))
    throw new UsageError(`--edge takes <from>,<type>,<to>, got ${spec}`);
  const [from, type, to] = parts.map((p) => p.trim()) as [string, string, string];
  return { from, type: oneOf("edge", type, EDGE_TYPES) as (typeof EDGE_TYPES)[number], to };
}

const papersReview: Command = {
  name: "papers review",
  args: "[<chunk>] [--edge <from>,<type>,<to>] [--op verify|flag|edit|add_edge|remove_edge [--reason <text>] ...]",
  summary:
    "A node's or an edge's review status and history; with --op, record a human verification first (verify, flag, edit, add or remove an edge).",
  options: {
    edge: { type: "string", arg: "<f,t,to>", description: "an edge instead of a node: from,type,to" },
    op: { type: "string", arg: "<op>", description: `record this: ${REVIEW_OPS.join(", ")} (write key)` },
    reason: { type: "string", arg: "<text>", description: "why (required to flag)" },
    title: { type: "string", arg: "<t>", description: "edit: the new title" },
    synopsis: { type: "string", arg: "<s>", description: "edit: the new synopsis" },
    content: { type: "string", arg: "<text>", description: "edit: the new content" },
    weight: { type: "string", arg: "<w>", description: "add_edge: the edge's weight (default 1)" },
    at: { type: "string", arg: "<time>", description: "when it holds from (default now)" },
    "event-id": { type: "string", arg: "<id>", description: "your id for the operation: a retry changes nothing" },
    ...asOf,
  },
  positionals: [0, 1],
  async run(r) {
    const chunk = r.positionals[0];
    const edgeSpec = r.str("edge");
    if (!chunk === !edgeSpec) throw new UsageError("give a chunk id or --edge <from>,<type>,<to>", "papers review");
    const edge = edgeSpec ? edgeArg(edgeSpec) : undefined;
    const client = r.client();
    const archive = r.archive();
    const op = oneOf("op", r.str("op"), REVIEW_OPS);
    if (op) {
      const weight = r.num("weight", 0, 1000);
      const changes = { title: r.str("title"), synopsis: r.str("synopsis"), content: r.str("content") };
      const body: ReviewBody = {
        op,
        chunk,
        edge: edge ? { ...edge, ...(weight !== undefined ? { weight } : {}) } : undefined,
        reason: r.str("reason"),
        at: r.str("at"),
        event_id: r.str("event-id"),
        changes: Object.values(changes).some((v) => v !== undefined) ? changes : undefined,
      };
      const { answer: res, replayed } = await client.reviewOnce(archive, body);
      if (r.json) {
        printJson(r, res);
        return EXIT.ok;
      }
      r.out(
        `${op}: ${res.previous_status} -> ${res.status}${res.version !== null ? ` (version ${res.version})` : ""}${replayed || res.duplicate ? " (already applied)" : ""}`,
      );
    }
    const q: ReviewQuery = edge ? { from: edge.from, type: edge.type, to: edge.to } : { chunk };
    const state = await client.reviewState(archive, { ...q, as_of: r.str("as-of") });
    if (r.json) {
      printJson(r, state);
      return EXIT.ok;
    }
    const target = edge ? `${edge.from} -${edge.type}-> ${edge.to}` : chunk;
    r.out(
      `${target}: ${state.status}${state.since ? ` since ${state.since} by ${state.actor}` : ""}${state.reason ? ` (${state.reason})` : ""}`,
    );
    if (state.edge)
      r.out(
        `  edge ${state.edge.exists ? "valid" : "not valid"} at ${state.as_of} (${state.edge.valid_from ?? "-"} .. ${state.edge.valid_to ?? ""})`,
      );
    for (const h of state.history)
      r.out(`  ${h.at} ${h.op} -> ${h.status} by ${h.actor}${h.reason ? `: ${short(h.reason, 80)}` : ""}`);
    for (const e of state.edges ?? []) r.out(`  edge -${e.type}-> ${e.to}: ${e.status}`);
    return EXIT.ok;
  },
};

function metricsLine(a: { queries: number; hit_rate: number; mrr: number; recall: Record<string, number> }): string {
  const recall = Object.entries(a.recall)
    .map(([k, v]) => `R@${k} ${v.toFixed(3)}`)
    .join(", ");
  return `${a.queries} queries: hit rate ${a.hit_rate.toFixed(3)}, MRR ${a.mrr.toFixed(3)}, ${recall}`;
}

const papersMetrics: Command = {
  name: "papers metrics",
  args: "[<queries.json|->] [--k 1,5,10] [--name <label>] [--no-store] [--as-of <time>] | --runs | --run <id>",
  summary:
    "Retrieval metrics of the router against gold ids (hit rate, MRR, Recall@K, Precision@K), stored as a run; --runs lists the stored runs.",
  details:
    'The file holds {"queries": [{"query": "...", "gold": ["id", ...], "filter"?: {...}}], "k"?: [...], "name"?: "..."} or just the list of queries (at most 100).',
  options: {
    k: { type: "string", arg: "<a,b>", description: "cut-offs of Recall@K and Precision@K (default 1,5,10)" },
    name: { type: "string", arg: "<label>", description: "a label to compare runs by" },
    "no-store": { type: "boolean", description: "compute only, keep no run" },
    runs: { type: "boolean", description: "list the stored runs, newest first" },
    run: { type: "string", arg: "<id>", description: "one stored run with its per-query rows" },
    limit: { type: "string", arg: "<n>", description: "with --runs: page size" },
    cursor: { type: "string", arg: "<c>", description: "with --runs: the next page" },
    ...asOf,
  },
  positionals: [0, 1],
  async run(r) {
    const src = r.positionals[0];
    const runId = r.str("run");
    const modes = [src !== undefined, r.values.runs === true, runId !== undefined].filter(Boolean).length;
    if (modes !== 1) throw new UsageError("give a queries file, --runs or --run <id>", "papers metrics");
    const client = r.client();
    const archive = r.archive();
    if (r.values.runs === true) {
      const page = await client.retrievalRuns(archive, { limit: r.int("limit", 1, 500), cursor: r.str("cursor") });
      if (r.json) printJson(r, page);
      else {
        if (!page.items.length) r.out("no stored runs");
        for (const x of page.items) r.out(`${x.id} ${x.created_at} "${x.name}": ${metricsLine(x.aggregate)}`);
        if (page.next_cursor) r.out(`more: --cursor ${page.next_cursor}`);
      }
      return EXIT.ok;
    }
    let res: Awaited<ReturnType<typeof client.retrievalRun>>;
    if (runId) res = await client.retrievalRun(archive, runId);
    else {
      const json = await readJson(r, src as string);
      const file = (Array.isArray(json) ? { queries: json } : json) as Partial<RetrievalMetricsBody>;
      if (!file || typeof file !== "object" || !Array.isArray(file.queries))
        throw new UsageError(`${src}: expected {"queries": [...]} or a list of queries`);
      const k = r.list("k")?.map((x) => {
        const n = Number(x);
        if (!Number.isInteger(n) || n < 1 || n > 100) throw new UsageError(`--k: ${x} is not an integer from 1 to 100`);
        return n;
      });
      res = await client.retrievalMetrics(archive, {
        ...file,
        queries: file.queries,
        k: k ?? file.k,
        name: r.str("name") ?? file.name,
        as_of: r.str("as-of") ?? file.as_of,
        store: r.values["no-store"] === true ? false : file.store,
      });
    }
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`run ${res.id ?? "(not stored)"} "${res.name}" as of ${res.as_of}: ${metricsLine(res.aggregate)}`);
    for (const q of res.per_query)
      r.out(`  ${q.first_rank === null ? "miss" : `#${q.first_rank}`}  ${short(q.query, 70)}`);
    return EXIT.ok;
  },
};

// ------------------------------------------------------------------ any chunk: annotations and diffs

const annotateCmd: Command = {
  name: "annotate",
  args: "<chunk> <key> [<value> | --add <n>] [--version <n>] [--reason <text>] [--at <time>] [--event-id <id>]",
  summary:
    "Append a status (a value: committed, proposed, ...) or a counter (--add) event to a chunk; readable as of any time.",
  details: "A value of true, false, null or a number is stored as that JSON value; anything else as a string.",
  options: {
    add: { type: "string", arg: "<n>", description: "add n to the key's value (a counter)" },
    version: { type: "string", arg: "<n>", description: "the version it is about (default: the chunk)" },
    reason: { type: "string", arg: "<text>", description: "why (kept with the event)" },
    at: { type: "string", arg: "<time>", description: "when it holds from (default now)" },
    "event-id": { type: "string", arg: "<id>", description: "your id for the event: a retry counts once" },
  },
  positionals: [2, 3],
  async run(r) {
    const [chunk, key, raw] = r.positionals as [string, string, string | undefined];
    const add = r.num("add", -1e15, 1e15);
    if ((raw === undefined) === (add === undefined)) throw new UsageError("give a value or --add <n>", "annotate");
    const value =
      raw === undefined
        ? undefined
        : /^(true|false|null|-?\d+(\.\d+)?)$/.test(raw)
          ? (JSON.parse(raw) as string | number | boolean | null)
          : raw;
    const body: AnnotateBody = {
      key,
      ...(raw !== undefined ? { value } : { add }),
      version: r.int("version", 1, 1_000_000),
      reason: r.str("reason"),
      at: r.str("at"),
      event_id: r.str("event-id"),
    };
    const { answer: res, replayed } = await r.client().annotateOnce(r.archive(), chunk, body);
    if (r.json) printJson(r, res);
    else
      r.out(
        `${chunk} ${key} = ${JSON.stringify(res.current.value)} (${res.current.events} events)${replayed || res.duplicate ? " (already recorded)" : ""}`,
      );
    return EXIT.ok;
  },
};

const annotationsCmd: Command = {
  name: "annotations",
  args: "<chunk> [--key <k>] [--as-of <time>]",
  summary: "A chunk's annotation values as of a time, with their events.",
  options: { key: { type: "string", arg: "<k>", description: "only this key" }, ...asOf },
  positionals: [1, 1],
  async run(r) {
    const chunk = r.positionals[0] as string;
    const res = await r.client().annotations(r.archive(), chunk, { key: r.str("key"), as_of: r.str("as-of") });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    const values = Object.entries(res.values);
    if (!values.length) r.out(`${chunk}: no annotations`);
    else
      r.out(
        table([
          ["key", "value", "since", "by", "events"],
          ...values.map(([k, v]) => [k, short(JSON.stringify(v.value), 60), v.at, v.actor, String(v.events)]),
        ]),
      );
    return EXIT.ok;
  },
};

const accessCmd: Command = {
  name: "access",
  args: "[--by session|chunk] [--session <id>] [--chunk <id>] [--since <time>] [--until <time>] [--limit 50]",
  summary: "How often chunks were routed to, expanded and verified, per session (default) or per chunk; most first.",
  options: {
    by: { type: "string", arg: "<session|chunk>", description: "one row per session (default) or per chunk" },
    session: { type: "string", arg: "<id>", description: "only this session's accesses" },
    chunk: { type: "string", arg: "<id>", description: "only accesses of this chunk" },
    since: { type: "string", arg: "<time>", description: "only accesses at or after this instant" },
    until: { type: "string", arg: "<time>", description: "only accesses at or before this instant" },
    limit: { type: "string", arg: "<n>", description: "rows per page (1-500, default 50)" },
    cursor: { type: "string", arg: "<c>", description: "next_cursor of the previous page" },
  },
  positionals: [0, 0],
  async run(r) {
    const by = r.str("by");
    if (by !== undefined && by !== "session" && by !== "chunk")
      throw new UsageError(`--by must be session or chunk, got "${by}"`);
    const res = await r.client().accessCounts(r.archive(), {
      by,
      session_id: r.str("session"),
      chunk: r.str("chunk"),
      since: r.str("since"),
      until: r.str("until"),
      limit: r.int("limit", 1, 500),
      cursor: r.str("cursor"),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    const t = res.totals;
    r.out(
      `${t.total} accesses (routing ${t.routing}, expansion ${t.expansion}, verification ${t.verification}) in ${res.groups} ${by ?? "session"} row(s)`,
    );
    if (res.rows.length)
      r.out(
        table([
          [by ?? "session", "routing", "expansion", "verification", "total", "last"],
          ...res.rows.map((x) => [
            x.key ?? "(no session)",
            String(x.routing),
            String(x.expansion),
            String(x.verification),
            String(x.total),
            x.last,
          ]),
        ]),
      );
    if (res.next_cursor) r.err(`more: --cursor ${res.next_cursor}`);
    return EXIT.ok;
  },
};

const diffCmd: Command = {
  name: "diff",
  args: "<chunk> [--from <n>] [--to <n>] [--context 3]",
  summary: "A line diff between two versions of a chunk (default: the latest and the one before), unified.",
  options: {
    from: { type: "string", arg: "<n>", description: "the older version (default: the one before --to)" },
    to: { type: "string", arg: "<n>", description: "the newer version (default: the latest)" },
    context: { type: "string", arg: "<n>", description: "lines of context (0-100, default 3)" },
  },
  positionals: [1, 1],
  async run(r) {
    const res = await r.client().diff(r.archive(), r.positionals[0] as string, {
      from: r.int("from", 1, 1_000_000),
      to: r.int("to", 1, 1_000_000),
      context: r.int("context", 0, 100),
    });
    if (r.json) printJson(r, res);
    else {
      r.io.stdout.write(res.unified.endsWith("\n") || !res.unified ? res.unified : `${res.unified}\n`);
      r.err(
        `${res.chunk}: v${res.from.version} -> v${res.to.version}, +${res.inserted_lines} -${res.deleted_lines} lines`,
      );
    }
    return EXIT.ok;
  },
};

export const SYSTEM_COMMANDS: Command[] = [
  accessCmd,
  annotateCmd,
  annotationsCmd,
  diffCmd,
  projectBrief,
  projectRender,
  projectDir,
  ...PROJECTGUARD_COMMANDS,
  xkgPairs,
  xkgExport,
  xkgGrounding,
  ...XKG_MODEL_COMMANDS,
  researchTree,
  researchHubs,
  researchDrafts,
  researchConvergence,
  researchFeedback,
  researchAssemble,
  ...SGMC_COMMANDS,
  papersModes,
  papersStats,
  papersLocate,
  papersCoverage,
  papersReview,
  papersMetrics,
  ...PAPER_CIRCLE_COMMANDS,
  ...DISCOVERY_COMMANDS,
  ...PAPERBENCH_COMMANDS,
];
