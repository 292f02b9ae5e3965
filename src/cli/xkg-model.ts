/**
 * xKG's model roles from the CLI (each needs a model configured on the server, docs/models.md):
 * `xkg propose` (POST /techniques/propose: a paper's techniques with their code links) and
 * `xkg rewrite` (POST /techniques/rewrite: a technique's code rewritten into one checked code node).
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command, Run } from "./command";
import { EXIT } from "./io";

const printJson = (r: Run, v: unknown) => r.out(JSON.stringify(v, null, 2));
const short = (s: string, n: number) => {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};
const asOf = {
  "as-of": { type: "string" as const, arg: "<time>", description: "ISO date or date-time (default: now)" },
};
const dryRun = { "dry-run": { type: "boolean" as const, description: "ask the model and check, write nothing" } };

const xkgPropose: Command = {
  name: "xkg propose",
  args: "<paper> [--code-prefix <p>] [--max-code-units 30] [--dry-run] [--as-of <time>]",
  summary:
    "Techniques a model proposes from a paper's sections, each with the code units implementing it (needs a model).",
  options: {
    "code-prefix": { type: "string", arg: "<p>", description: "also offer the code units under this id prefix" },
    "max-code-units": { type: "string", arg: "<n>", description: "code units offered (0-60, default 30)" },
    ...dryRun,
    ...asOf,
  },
  positionals: [1, 1],
  async run(r) {
    const res = await r.client().proposeTechniques(r.archive(), {
      paper: r.positionals[0] as string,
      code_prefix: r.str("code-prefix"),
      max_code_units: r.int("max-code-units", 0, 60),
      dry_run: r.values["dry-run"] === true ? true : undefined,
      as_of: r.str("as-of"),
    });
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
    r.out(`${res.proposals.length} techniques (${res.model}); read ${res.read.sections.length} sections`);
    for (const p of res.proposals)
      r.out(`  ${p.id} [${p.written}] ${p.type}: ${short(p.name, 60)} (${p.code.length} code units)`);
    for (const x of res.dropped) r.out(`  dropped ${x.index} "${short(x.title, 40)}": ${x.reason}`);
    return EXIT.ok;
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
    "code-units": { type: "string", multiple: true, arg: "<a,b>", description: "rewrite from these code units" },
    "max-code-bytes": { type: "string", arg: "<n>", description: "bytes of code shown (default 52100)" },
    out: { type: "string", short: "o", arg: "<file>", description: "also write the implementation to a file" },
    ...dryRun,
    ...asOf,
  },
  positionals: [1, 1],
  async run(r) {
    const res = await r.client().rewriteTechnique(r.archive(), {
      technique: r.positionals[0] as string,
      code_units: r.list("code-units"),
      max_code_bytes: r.int("max-code-bytes", 1000, 200_000),
      dry_run: r.values["dry-run"] === true ? true : undefined,
      as_of: r.str("as-of"),
    });
    const out = r.str("out");
    if (out && res.rewrite) {
      writeFileSync(resolve(r.io.cwd, out), res.rewrite.implementation);
      r.err(`wrote the implementation to ${out}`);
    }
    if (r.json) {
      printJson(r, res);
      return EXIT.ok;
    }
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
    return EXIT.ok;
  },
};

export const XKG_MODEL_COMMANDS: Command[] = [xkgPropose, xkgRewrite];
