/**
 * SGMC (seed 001) commands beside the tree, hubs, drafts, convergence, feedback and assembly:
 * A_S's reference selection, A_O's sub-outlines, the self-loop and the review scaffold.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command, Run } from "./command";
import { didYouMean, EXIT, UsageError } from "./io";

const printJson = (r: Run, v: unknown) => r.out(JSON.stringify(v, null, 2));
const short = (s: string, n: number) => {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};
const asOf = {
  "as-of": { type: "string" as const, arg: "<time>", description: "ISO date or date-time (default: now)" },
};

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(
    `--${flag}: unknown value "${value}"${didYouMean(value, allowed, (s) => `"${s}"`)}; use one of ${allowed.join(", ")}`,
  );
}

const FIELDS = ["title", "abstract", "year"] as const;
const METHODS = ["auto", "model", "names"] as const;

const researchReferences: Command = {
  name: "research references",
  args: "[<node>] [--ids <a,b>] [--q-k 20] [--require title,abstract,year] [--as-of <time>]",
  summary:
    "A_S: a node's references (or --ids) by citations, incomplete entries removed and named, the top Q_k unique.",
  options: {
    ids: {
      type: "string",
      multiple: true,
      arg: "<a,b>",
      description: "candidate chunk ids instead of a node's references",
    },
    "q-k": { type: "string", arg: "<n>", description: "Q_k: unique references to keep (default 20)" },
    require: {
      type: "string",
      multiple: true,
      arg: "<fields>",
      description: "what a complete entry has (default all)",
    },
    ...asOf,
  },
  positionals: [0, 1],
  async run(r) {
    const node = r.positionals[0];
    const ids = r.list("ids");
    if ((node === undefined) === (ids === undefined)) throw new UsageError("give a node or --ids, not both");
    const res = await r.client().selectReferences(r.archive(), {
      node,
      ids,
      q_k: r.int("q-k", 1, 500),
      require: r.list("require")?.map((f) => oneOf("require", f, FIELDS) as (typeof FIELDS)[number]),
      as_of: r.str("as-of"),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`${res.selected.length} of ${res.candidates} candidates selected (Q_k ${res.q_k}) as of ${res.as_of}`);
    for (const x of res.selected)
      r.out(
        `  ${x.id}@v${x.version} ${x.citations} citations (${x.citations_from}), ${x.year ?? "-"}: ${short(x.title, 70)}`,
      );
    for (const x of res.incomplete) r.out(`  removed ${x.id}: no ${x.missing.join(", no ")}`);
    for (const x of res.duplicates) r.out(`  removed ${x.id}: same work as ${x.of}`);
    if (res.not_visible.length) r.out(`  not visible then: ${res.not_visible.join(", ")}`);
    return EXIT.ok;
  },
};

const researchOutline: Command = {
  name: "research outline",
  args: "<node> [--method auto|model|names] [--max <n>] [--min-shared 2] [--dry-run] [--at <time>] [--as-of <time>]",
  summary:
    "A_O: sub-outlines of a node from its references (model, or grouped by shared names), written as outline nodes.",
  options: {
    method: { type: "string", arg: "<m>", description: "auto (default: model when configured), model or names" },
    max: { type: "string", arg: "<n>", description: "directions at most (1-12, default 6)" },
    "min-shared": {
      type: "string",
      arg: "<n>",
      description: "names: references a direction groups at least (default 2)",
    },
    "dry-run": { type: "boolean", description: "propose, write nothing" },
    at: { type: "string", arg: "<time>", description: "valid time of the new outline nodes" },
    ...asOf,
  },
  positionals: [1, 1],
  async run(r) {
    const res = await r.client().proposeOutline(r.archive(), {
      node: r.positionals[0] as string,
      method: oneOf("method", r.str("method"), METHODS),
      max_directions: r.int("max", 1, 12),
      min_shared: r.int("min-shared", 1, 50),
      dry_run: r.values["dry-run"] === true ? true : undefined,
      at: r.str("at"),
      as_of: r.str("as-of"),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`${res.directions.length} directions under ${res.node} (${res.method}${res.model ? ` ${res.model}` : ""})`);
    for (const x of res.directions)
      r.out(`  ${x.order}. ${x.id} [${x.written}]: ${short(x.title, 60)} (cites ${x.references.join(", ")})`);
    if (res.unassigned.length) r.out(`  in no direction: ${res.unassigned.join(", ")}`);
    for (const x of res.dropped) r.out(`  dropped ${x.index} "${short(x.title, 40)}": ${x.reason}`);
    return EXIT.ok;
  },
};

const researchLoop: Command = {
  name: "research loop",
  args: "<node> --request <text> [--scope <tag>] [--x-max 4] [--no-checklist]",
  summary:
    "The self-loop on a node's draft (needs a model): review with r*, refine, until no feedback or x_max; each review kept as a version.",
  options: {
    request: { type: "string", arg: "<text>", description: "what the section must achieve (the context C)" },
    scope: { type: "string", arg: "<tag>", description: "select r* among feedback records with this tag" },
    "x-max": { type: "string", arg: "<n>", description: "reviews at most (1-8, default 4)" },
    "no-checklist": { type: "boolean", description: "review without r*" },
  },
  positionals: [1, 1],
  async run(r) {
    const request = r.str("request");
    if (!request) throw new UsageError("--request is required");
    const res = await r.client().feedbackLoop(r.archive(), {
      node: r.positionals[0] as string,
      request,
      scope: r.str("scope"),
      x_max: r.int("x-max", 1, 8),
      checklist: r.values["no-checklist"] === true ? "none" : undefined,
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`self-loop on ${res.node} (${res.model}), checklist ${res.checklist ? res.checklist.id : "none"}`);
    for (const it of res.iterations)
      r.out(
        `  x=${it.x}: reviewed ${it.draft.id}@v${it.draft.version} (${it.review.id}@v${it.review.version}), ${it.feedback.length} items${it.refined ? ` -> v${it.refined.version}` : ""}`,
      );
    r.out(`stop: ${res.stop}; final ${res.final.id}@v${res.final.version}`);
    return EXIT.ok;
  },
};

const researchScaffold: Command = {
  name: "research scaffold",
  args: "<root> [--markdown [--out <file>]] [--max-nodes 500] [--as-of <time>]",
  summary:
    "The review scaffold: the outline with each node's references, draft and evidence anchors (JSON or Markdown).",
  options: {
    markdown: { type: "boolean", description: "print the Markdown document" },
    out: { type: "string", short: "o", arg: "<file>", description: "with --markdown: write it to a file" },
    "max-nodes": { type: "string", arg: "<n>", description: "refuse a larger subtree (default 500, at most 2000)" },
    ...asOf,
  },
  positionals: [1, 1],
  async run(r) {
    const q = { root: r.positionals[0] as string, max_nodes: r.int("max-nodes", 1, 2000), as_of: r.str("as-of") };
    const client = r.client();
    if (r.values.markdown === true) {
      const md = await client.scaffoldMarkdown(r.archive(), q);
      const out = r.str("out");
      if (out) writeFileSync(resolve(r.io.cwd, out), md);
      else r.io.stdout.write(md);
      return EXIT.ok;
    }
    if (r.str("out")) throw new UsageError("--out goes with --markdown");
    const res = await client.scaffold(r.archive(), q);
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`scaffold of ${res.root} as of ${res.as_of}: ${res.nodes.length} nodes, ${res.anchors} anchors`);
    for (const n of res.nodes)
      r.out(
        `${"  ".repeat(n.depth + 1)}${n.id}: ${n.references.length} refs, ${n.draft ? `draft v${n.draft.version}` : "no draft"}, ${n.evidence.length} anchors`,
      );
    return EXIT.ok;
  },
};

export const SGMC_COMMANDS: Command[] = [researchReferences, researchOutline, researchLoop, researchScaffold];
