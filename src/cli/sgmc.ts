/**
 * SGMC's `research` commands (seed 001): the outline tree, hubs, drafts, convergence, feedback and
 * assembly, A_S's reference selection, A_O's sub-outlines, the self-loop and the review scaffold.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, flagOption, type OptionSpec, type Run, valueOption } from "./command";
import {
  asOf,
  budget,
  flagOn,
  list,
  oneOf,
  onlyWith,
  printDropped,
  printedJson,
  readJson,
  readText,
  short,
  writeText,
} from "./common";
import { table, UsageError } from "./io";

const FIELDS = ["title", "abstract", "year"] as const;
const METHODS = ["auto", "model", "names"] as const;

/** --max-nodes of the outline readers (tree, scaffold): the server refuses a larger subtree. */
const MAX_NODES: OptionSpec = valueOption("<n>", "refuse a larger subtree (default 500, at most 2000)");
const maxNodes = (r: Run) => r.int("max-nodes", 1, 2000);

const researchReferences: Command = {
  name: "research references",
  args: "[<node>] [--ids <a,b>] [--q-k 20] [--require title,abstract,year] [--as-of <time>]",
  summary:
    "A_S: a node's references (or --ids) by citations, incomplete entries removed and named, the top Q_k unique.",
  options: {
    ids: valueOption("<a,b>", "candidate chunk ids instead of a node's references", { multiple: true }),
    "q-k": valueOption("<n>", "Q_k: unique references to keep (default 20)"),
    require: valueOption("<fields>", "what a complete entry has (default all)", { multiple: true }),
    ...asOf,
  },
  async run(r) {
    const node = r.positionals[0];
    const ids = r.list("ids");
    if ((node === undefined) === (ids === undefined)) throw new UsageError("give a node or --ids, not both");
    const res = await r.client().selectReferences(r.archive(), {
      node,
      ids,
      q_k: r.int("q-k", 1, 500),
      require: r.list("require")?.map((f) => oneOf("require", f, FIELDS)),
      as_of: r.str("as-of"),
    });
    if (printedJson(r, res)) return;
    r.out(`${res.selected.length} of ${res.candidates} candidates selected (Q_k ${res.q_k}) as of ${res.as_of}`);
    for (const x of res.selected)
      r.out(
        `  ${x.id}@v${x.version} ${x.citations} citations (${x.citations_from}), ${x.year ?? "-"}: ${short(x.title, 70)}`,
      );
    for (const x of res.incomplete) r.out(`  removed ${x.id}: no ${x.missing.join(", no ")}`);
    for (const x of res.duplicates) r.out(`  removed ${x.id}: same work as ${x.of}`);
    if (res.not_visible.length) r.out(`  not visible then: ${res.not_visible.join(", ")}`);
  },
};

const researchOutline: Command = {
  name: "research outline",
  args: "<node> [--method auto|model|names] [--max <n>] [--min-shared 2] [--dry-run] [--at <time>] [--as-of <time>]",
  summary:
    "A_O: sub-outlines of a node from its references (model, or grouped by shared names), written as outline nodes.",
  options: {
    method: valueOption("<m>", "auto (default: model when configured), model or names"),
    max: valueOption("<n>", "directions at most (1-12, default 6)"),
    "min-shared": valueOption("<n>", "names: references a direction groups at least (default 2)"),
    "dry-run": flagOption("propose, write nothing"),
    at: valueOption("<time>", "valid time of the new outline nodes"),
    ...asOf,
  },
  async run(r) {
    const res = await r.client().proposeOutline(r.archive(), {
      node: r.arg(0),
      method: oneOf("method", r.str("method"), METHODS),
      max_directions: r.int("max", 1, 12),
      min_shared: r.int("min-shared", 1, 50),
      dry_run: flagOn(r, "dry-run"),
      at: r.str("at"),
      as_of: r.str("as-of"),
    });
    if (printedJson(r, res)) return;
    r.out(`${res.directions.length} directions under ${res.node} (${res.method}${res.model ? ` ${res.model}` : ""})`);
    for (const x of res.directions)
      r.out(`  ${x.order}. ${x.id} [${x.written}]: ${short(x.title, 60)} (cites ${x.references.join(", ")})`);
    if (res.unassigned.length) r.out(`  in no direction: ${res.unassigned.join(", ")}`);
    printDropped(r, res.dropped);
  },
};

const researchLoop: Command = {
  name: "research loop",
  args: "<node> --request <text> [--scope <tag>] [--x-max 4] [--no-checklist]",
  summary:
    "The self-loop on a node's draft (needs a model): review with r*, refine, until no feedback or x_max; each review kept as a version.",
  options: {
    request: valueOption("<text>", "what the section must achieve (the context C)"),
    scope: valueOption("<tag>", "select r* among feedback records with this tag"),
    "x-max": valueOption("<n>", "reviews at most (1-8, default 4)"),
    "no-checklist": flagOption("review without r*"),
  },
  async run(r) {
    const request = r.str("request");
    if (!request) throw new UsageError("--request is required");
    const res = await r.client().feedbackLoop(r.archive(), {
      node: r.arg(0),
      request,
      scope: r.str("scope"),
      x_max: r.int("x-max", 1, 8),
      checklist: r.values["no-checklist"] === true ? "none" : undefined,
    });
    if (printedJson(r, res)) return;
    r.out(`self-loop on ${res.node} (${res.model}), checklist ${res.checklist ? res.checklist.id : "none"}`);
    for (const it of res.iterations)
      r.out(
        `  x=${it.x}: reviewed ${it.draft.id}@v${it.draft.version} (${it.review.id}@v${it.review.version}), ${it.feedback.length} items${it.refined ? ` -> v${it.refined.version}` : ""}`,
      );
    r.out(`stop: ${res.stop}; final ${res.final.id}@v${res.final.version}`);
  },
};

const researchScaffold: Command = {
  name: "research scaffold",
  args: "<root> [--markdown [--out <file>]] [--max-nodes 500] [--as-of <time>]",
  summary:
    "The review scaffold: the outline with each node's references, draft and evidence anchors (JSON or Markdown).",
  options: {
    markdown: flagOption("print the Markdown document"),
    out: valueOption("<file>", "with --markdown: write it to a file", { short: "o" }),
    "max-nodes": MAX_NODES,
    ...asOf,
  },
  async run(r) {
    const q = { root: r.arg(0), max_nodes: maxNodes(r), as_of: r.str("as-of") };
    const client = r.client();
    if (r.values.markdown === true) {
      const md = await client.scaffoldMarkdown(r.archive(), q);
      const out = r.str("out");
      if (out) writeFileSync(resolve(r.io.cwd, out), md);
      else r.io.stdout.write(md);
      return;
    }
    if (r.str("out")) throw new UsageError("--out goes with --markdown");
    const res = await client.scaffold(r.archive(), q);
    if (printedJson(r, res)) return;
    r.out(`scaffold of ${res.root} as of ${res.as_of}: ${res.nodes.length} nodes, ${res.anchors} anchors`);
    for (const n of res.nodes)
      r.out(
        `${"  ".repeat(n.depth + 1)}${n.id}: ${n.references.length} refs, ${n.draft ? `draft v${n.draft.version}` : "no draft"}, ${n.evidence.length} anchors`,
      );
  },
};

const researchTree: Command = {
  name: "research tree",
  args: "<root> [--theta 500] [--d-max 4] [--words all|own|references] [--max-nodes 500] [--planning] [--as-of <time>]",
  summary: "The outline under a root (part-of, boundary outline) with each node's words, split flag φ, draft and hub.",
  options: {
    planning: flagOption("xKG's planning view: a paper's techniques and sections, no code nodes"),
    theta: valueOption("<n>", "θ of Eq. 3: split a node with more words (default 500)"),
    "d-max": valueOption("<n>", "d_max of Eq. 5: the deepest level (default 4)"),
    words: valueOption("<w>", "count all (default), own or references words"),
    "max-nodes": MAX_NODES,
    ...asOf,
  },
  async run(r) {
    const res = await r.client().tree(r.archive(), {
      root: r.arg(0),
      theta: r.int("theta", 1, 1_000_000),
      d_max: r.int("d-max", 1, 16),
      words: oneOf("words", r.str("words"), ["all", "own", "references"] as const),
      max_nodes: maxNodes(r),
      view: r.values.planning === true ? "planning" : undefined,
      as_of: r.str("as-of"),
    });
    if (printedJson(r, res)) return;
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
  },
};

const researchHubs: Command = {
  name: "research hubs",
  args: "<node> [--gather [--query <q>] [--budget 2000] [--max-cards <n>] [--at <time>]] [--as-of <time>]",
  summary:
    "A node's evidence hub, iteration by iteration; with --gather, first gather the next iteration from the node's references.",
  options: {
    gather: flagOption("gather one iteration now (write key)"),
    query: valueOption("<q>", "with --gather: what to look for (default: the node's text)"),
    ...budget(2000),
    "max-cards": valueOption("<n>", "with --gather: at most n cards (1-50)"),
    at: valueOption("<time>", "with --gather: valid time of the new hub version"),
    ...asOf,
  },
  async run(r) {
    const node = r.arg(0);
    const client = r.client();
    const archive = r.archive();
    onlyWith(r, "gather", r.values.gather === true, ["query", "budget", "max-cards", "at"]);
    if (r.values.gather === true) {
      const g = await client.gather(archive, {
        node,
        query: r.str("query"),
        budget_tokens: r.int("budget", 100, 50_000),
        max_cards: r.int("max-cards", 1, 50),
        at: r.str("at"),
        as_of: r.str("as-of"),
      });
      if (printedJson(r, g)) return;
      r.out(
        `gathered ${g.evidence.length} anchors from ${g.references} references into ${g.hub.id}@v${g.hub.version} (${g.hub.status}, iteration ${g.iteration})`,
      );
    }
    const res = await client.hub(archive, { node, as_of: r.str("as-of") });
    if (printedJson(r, res)) return;
    r.out(`hub ${res.hub} of ${res.node} as of ${res.as_of}: ${res.iterations.length} iterations`);
    for (const it of res.iterations) {
      r.out(`  t=${it.iteration} v${it.version} ${it.valid_from}: ${short(it.query, 80)}`);
      for (const e of it.evidence.slice(0, 10))
        r.out(`    ${e.artifact_id}@v${e.version} [${e.start},${e.end}) "${short(e.snippet, 80)}"`);
      if (it.evidence.length > 10) r.out(`    … ${it.evidence.length - 10} more (--json prints all)`);
    }
  },
};

const researchDrafts: Command = {
  name: "research drafts",
  args: "<node> [--write <file|-> [--evidence <anchors.json>] [--at <time>]] [--as-of <time>]",
  summary:
    "A node's section draft as of a time, with the sources and anchors it rests on; with --write, store the next draft first.",
  options: {
    write: valueOption("<file|->", "store this text as the next draft (write key)"),
    evidence: valueOption(
      "<file>",
      "with --write: anchors the draft rests on (a list, {anchors}, or hubs/context --json output)",
    ),
    at: valueOption("<time>", "with --write: valid time of the new draft version"),
    ...asOf,
  },
  async run(r) {
    const node = r.arg(0);
    const client = r.client();
    const archive = r.archive();
    const write = r.str("write");
    onlyWith(r, "write", Boolean(write), ["evidence", "at"]);
    if (write) {
      const text = await readText(r, write);
      const evidenceFile = r.str("evidence");
      const evidence = evidenceFile ? anchorsFrom(await readJson(r, evidenceFile)) : undefined;
      const d = await client.draft(archive, { node, text, evidence, at: r.str("at") });
      if (!r.json)
        r.out(`${d.draft.id}@v${d.draft.version} ${d.draft.status} (iteration ${d.iteration}); cites ${list(d.cites)}`);
    }
    const res = await client.readDraft(archive, { node, as_of: r.str("as-of") });
    if (printedJson(r, res)) return;
    r.out(`${res.draft}@v${res.version} (iteration ${res.iteration}, valid from ${res.valid_from})`);
    r.out(res.text.trimEnd());
    r.out(`cites: ${list(res.cites)}; ${res.evidence.length} evidence anchors`);
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
    epsilon: valueOption("<x>", "stop when ψ > ε (0-1, default 0.9)"),
    "t-max": valueOption("<n>", "the last iteration (default 4)"),
    measure: valueOption("<m>", "which ROUGE-1 score is ψ: f1 (default), precision, recall"),
    "max-versions": valueOption("<n>", "versions read, oldest first (2-500, default 100)"),
    ...asOf,
  },
  async run(r) {
    const res = await r.client().convergence(r.archive(), {
      draft: r.arg(0),
      epsilon: r.num("epsilon", 0, 1),
      t_max: r.int("t-max", 1, 1000),
      measure: oneOf("measure", r.str("measure"), ["f1", "precision", "recall"] as const),
      max_versions: r.int("max-versions", 2, 500),
      as_of: r.str("as-of"),
    });
    if (printedJson(r, res)) return;
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
  },
};

const researchFeedback: Command = {
  name: "research feedback",
  args: "[--scope <tag>] [--tie oldest|newest] [--use <event-id>] [--as-of <time>]",
  summary: "Select feedback by Eq. 12: among the records with the fewest revisions, the most used.",
  options: {
    scope: valueOption("<tag>", "only records carrying this boundary tag too"),
    tie: valueOption("<t>", "among equals: oldest (default) or newest"),
    use: valueOption("<event-id>", "count the selection as a use, once per id (write key)"),
    ...asOf,
  },
  async run(r) {
    const sel = {
      scope: r.str("scope"),
      tie: oneOf("tie", r.str("tie"), ["oldest", "newest"] as const),
      as_of: r.str("as-of"),
    };
    const use = r.str("use");
    const once = use === undefined ? null : await r.client().selectFeedbackOnce(r.archive(), { ...sel, event_id: use });
    const res = once ? once.answer : await r.client().selectFeedback(r.archive(), sel);
    if (printedJson(r, res)) return;
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
  },
};

const researchAssemble: Command = {
  name: "research assemble",
  args: "<root> [--budget 8000] [--any-draft] [--as-of <time>] [--out <file>]",
  summary: "The finished sections in tree order as Markdown within a budget, and what was left out and why.",
  options: {
    ...budget(8000),
    "any-draft": flagOption("take drafts that have not converged too"),
    out: valueOption("<file>", "write the Markdown to a file", { short: "o" }),
    ...asOf,
  },
  async run(r) {
    const res = await r.client().assemble(r.archive(), {
      root: r.arg(0),
      budget_tokens: r.int("budget", 50, 200_000),
      require_converged: r.values["any-draft"] === true ? false : undefined,
      as_of: r.str("as-of"),
    });
    if (printedJson(r, res)) return;
    const out = r.str("out");
    if (out) writeFileSync(resolve(r.io.cwd, out), res.text);
    else writeText(r, res.text);
    r.err(
      `${res.sections.length} sections, ${res.tokens} of ${res.budget_tokens} tokens${out ? ` written to ${out}` : ""}`,
    );
    if (res.left_out.length) r.err(`left out: ${list(res.left_out.map((l) => `${l.node} (${l.reason})`))}`);
  },
};

export const SGMC_COMMANDS: Command[] = [
  researchTree,
  researchHubs,
  researchDrafts,
  researchConvergence,
  researchFeedback,
  researchAssemble,
  researchReferences,
  researchOutline,
  researchLoop,
  researchScaffold,
];
