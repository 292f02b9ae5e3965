/**
 * xKG's commands: `xkg pairs` (technique -> code pairs), `xkg export` (the xKG export), `xkg grounding`,
 * and the model roles (each needs a model configured on the server, docs/models.md): `xkg propose`
 * (POST /techniques/propose: a paper's techniques with their code links) and `xkg rewrite`
 * (POST /techniques/rewrite: a technique's code rewritten into one checked code node).
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { CHUNK_KINDS } from "../core/types";
import { type Command, flagOption, valueOption } from "./command";
import { asOf, flagOn, list, oneOf, outOption, printDropped, printedJson, printJson, short, writeOut } from "./common";
import { CODE_CHUNKS_OPTION, codeFromFlags, rewriteCodeChunks } from "./query-flags";

const dryRun = { "dry-run": flagOption("ask the model and check, write nothing") };

const xkgPropose: Command = {
  name: "xkg propose",
  args: "<paper> [--code-prefix <p>] [--max-code-units 30] [--dry-run] [--as-of <time>]",
  summary:
    "Techniques a model proposes from a paper's sections, each with the code units implementing it (needs a model).",
  options: {
    "code-prefix": valueOption("<p>", "also offer the code units under this id prefix"),
    "max-code-units": valueOption("<n>", "code units offered (0-60, default 30)"),
    ...dryRun,
    ...asOf,
  },
  async run(r) {
    const res = await r.client().proposeTechniques(r.archive(), {
      paper: r.arg(0),
      code_prefix: r.str("code-prefix"),
      max_code_units: r.int("max-code-units", 0, 60),
      dry_run: flagOn(r, "dry-run"),
      as_of: r.str("as-of"),
    });
    if (printedJson(r, res)) return;
    r.out(`${res.proposals.length} techniques (${res.model}); read ${res.read.sections.length} sections`);
    for (const p of res.proposals)
      r.out(`  ${p.id} [${p.written}] ${p.type}: ${short(p.name, 60)} (${p.code.length} code units)`);
    printDropped(r, res.dropped);
  },
};

const xkgRewrite: Command = {
  name: "xkg rewrite",
  args: "<technique> [--code-units <a,b>] [--max-code-bytes 52100] [--dry-run] [--as-of <time>] [--out <file>]",
  summary:
    "A technique's code rewritten by a model into one code node, checked by rules and a verifier (needs a model).",
  details:
    "Stored as <technique>#code:<hash> when the quotes verify, at least half of the core lines are in the code shown and the verifier agrees; otherwise printed only.",
  options: {
    "code-units": valueOption("<a,b>", "rewrite from these code units", { multiple: true }),
    "max-code-bytes": valueOption("<n>", "bytes of code shown (default 52100)"),
    out: valueOption("<file>", "also write the implementation to a file", { short: "o" }),
    ...dryRun,
    ...asOf,
  },
  async run(r) {
    const res = await r.client().rewriteTechnique(r.archive(), {
      technique: r.arg(0),
      code_units: r.list("code-units"),
      max_code_bytes: r.int("max-code-bytes", 1000, 200_000),
      dry_run: flagOn(r, "dry-run"),
      as_of: r.str("as-of"),
    });
    const out = r.str("out");
    if (out && res.rewrite) {
      writeFileSync(resolve(r.io.cwd, out), res.rewrite.implementation);
      r.err(`wrote the implementation to ${out}`);
    }
    if (printedJson(r, res)) return;
    r.out(`${res.outcome}${res.id ? ` ${res.id}` : ""} (${res.model}; ${res.read.code_units.length} code units read)`);
    if (res.checks) {
      const c = res.checks;
      r.out(`  quotes: ${c.quotes.ok ? "ok" : c.quotes.failures.join("; ")}`);
      r.out(`  core lines found: ${c.core.found}/${c.core.lines} (${c.core.fraction}, threshold ${c.core.threshold})`);
      r.out(
        `  verifier: ${c.verifier.verdict === null ? "not asked" : c.verifier.verdict} ${short(c.verifier.reason, 100)}`,
      );
    }
    for (const x of res.reasons) r.out(`  not stored: ${x}`);
  },
};

const xkgPairs: Command = {
  name: "xkg pairs",
  args: '"<technique>" [--limit 10] [--threshold <x>] [--grounded-only] [--within <id>] [--scope <tags>] [code] [--verify]',
  summary: "Techniques routed for a query, each paired with the code that implements it (exact code spans).",
  details:
    "Code (xKG): --max-code-bytes <n> caps the pairs' code together, --code-chunks [size[:overlap]] carries each code's best windows.",
  options: {
    limit: valueOption("<n>", "techniques routed (1-50, default 10)"),
    threshold: valueOption("<x>", "minimum cosine of the technique to the query (-1 to 1; default 0.15)"),
    "grounded-only": flagOption("leave out techniques no code implements"),
    within: valueOption("<id>", "only techniques in this chunk's part-of subtree (one paper)"),
    scope: valueOption("<tags>", "techniques with any of these boundary tags", { multiple: true }),
    "max-code-bytes": valueOption("<n>", "cap on the code spans' bytes together, in pair order (xKG prompts: 52100)"),
    verify: flagOption("the model verifies: keeps, drops and reorders the pairs (needs a model)"),
    "code-chunks": CODE_CHUNKS_OPTION,
    ...asOf,
  },
  rewrite: rewriteCodeChunks,
  async run(r) {
    const res = await r.client().codePairs(r.archive(), {
      code_chunks: codeFromFlags(r).code_chunks,
      verify: flagOn(r, "verify"),
      max_code_bytes: r.int("max-code-bytes", 1, 10_000_000),
      query: r.arg(0),
      limit: r.int("limit", 1, 50),
      threshold: r.num("threshold", -1, 1),
      include_ungrounded: r.values["grounded-only"] === true ? false : undefined,
      within: r.str("within"),
      boundaries_any: r.list("scope"),
      as_of: r.str("as-of"),
    });
    if (printedJson(r, res)) return;
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
  },
};

const xkgExport: Command = {
  name: "xkg export",
  args: "[--paper <id>] [--planning] [--as-of <time>] [--out <file>]",
  summary: "The archive's xKG graphs in the released layout (JSON Lines, one paper a line), as of a time.",
  options: {
    // The xKG layout is per paper: `--paper` takes one; subtrees and collections are other formats'
    // scopes (`paperguru export --within/--collection`), refused by format=xkg.
    paper: valueOption("<id>", "one paper's file"),
    planning: flagOption("the planning view: papers with their techniques, no code nodes"),
    out: outOption,
    ...asOf,
  },
  async run(r) {
    const text = await r.client().export(r.archive(), {
      format: "xkg",
      paper: r.str("paper"),
      view: r.values.planning === true ? "planning" : undefined,
      as_of: r.str("as-of"),
    });
    if (!text.trim()) r.err("no xKG paper in scope (`paperguru import <file.json> --format xkg` stores one)");
    writeOut(r, text, "xkg");
  },
};

const xkgGrounding: Command = {
  name: "xkg grounding",
  args: "[--kind technique] [--prefix <p>] [--as-of <time>]",
  summary: "How many chunks of a kind some code implements (xKG: techniques with code), and the others.",
  options: {
    kind: valueOption("<kind>", "the kind counted (default technique)"),
    prefix: valueOption("<p>", "only chunk ids starting with this (one paper's graph)"),
    ...asOf,
  },
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
  },
};

export const XKG_COMMANDS: Command[] = [xkgPairs, xkgExport, xkgGrounding, xkgPropose, xkgRewrite];
