/**
 * xKG's code rewriting (seed 003 §2.3.2 Step 2 and App. C.3, "Prompt for Rewriting Code for a
 * Leaf/Composite Technique" and "Prompt for Verifying Rewritten Code"): a model turns the code units
 * that implement a technique (and, for a composite technique, its sub-techniques' code) into one
 * self-contained code node (implementation, test, documentation), or answers None when the technique
 * cannot be implemented standalone from them. The rewrite is then checked, by rules here and by a
 * second model call (the verifier prompt):
 * (a) every `sources[].quote` is an exact span of the unit it names (anchored as the propose step's
 *     quotes are, src/core/proposals/propose.ts anchorQuote);
 * (b) the core lines of `implementation` (non-blank, not comments or docstrings, before `# TEST
 *     BLOCK`) are looked up verbatim, whitespace-normalised, in the snippets shown: the fraction found
 *     must be at least CORE_MIN (the prompt allows renaming and new signatures, not new logic);
 * (c) the verifier answers true.
 * Pure: the caller reads the units and writes the result.
 */
import { arrayOf, closedObject, quoteOf, text } from "../json-schema";
import type { JsonSchema } from "../ports";
import type { AnchoredSpan } from "../types";
import { anchorQuote, type Checked, objectsField, type SourceDoc, sourceBlock, textField } from "./propose";

export interface CodeDoc extends SourceDoc {
  title: string;
}

/** A sub-technique of a composite technique, with the code units that implement it now. */
export interface SubTechnique {
  id: string;
  definition: string;
  code: CodeDoc[];
}

export interface RewriteInput {
  paperTitle: string;
  abstract: string;
  /** The technique's definition: its name and description. */
  technique: string;
  subTechniques: readonly SubTechnique[];
  /** The code units the technique's own code is taken from ("Relevant Code Files"). */
  code: readonly CodeDoc[];
}

export interface RewriteSource {
  id: string;
  quote: string;
  /** The span the quote was found at, or null with the reason. */
  anchor: AnchoredSpan | null;
  reason?: string | undefined;
}

export interface Rewrite {
  implementation: string;
  test: string;
  documentation: string;
  sources: RewriteSource[];
}

/** The least fraction of the implementation's core lines found verbatim in the snippets shown. */
export const CORE_MIN = 0.5;
/** xKG's code context cap (bytes of code shown to the model), the default of `max_code_bytes`. */
export const MAX_CODE_BYTES = 52_100;
const MAX_SOURCES = 12;
const MAX_IMPLEMENTATION = 60_000;
const MAX_TEST = 20_000;
const MAX_DOCUMENTATION = 4_000;

export const REWRITE_SCHEMA: JsonSchema = closedObject({
  none: {
    type: "boolean",
    description:
      "true (the paper's None) when the technique needs other modules to make one code module, or no direct implementation of it is in the code given; then leave the rest empty.",
  },
  implementation: text(
    "One self-contained, executable code block: imports first, the technique's core logic in functions or classes with docstrings and type hints, then a `# TEST BLOCK` main block as a usage example.",
  ),
  test: text("A test script running the implementation; empty when the TEST BLOCK is the test."),
  documentation: text("The code's logic, configurable options and usage in 5-10 sentences."),
  sources: arrayOf(
    quoteOf("id", "The id of the code unit, as given.", "A line of that unit copied character for character."),
    {
      maxItems: MAX_SOURCES,
      description:
        "The code units the implementation comes from, each with a line of it copied character for character.",
    },
  ),
});

export const REWRITE_SYSTEM = [
  "You transform source code snippets, the official implementation of a technique from a research paper, into one self-contained, executable code block that is clean and documented.",
  "Focus only on this technique: extract only the code that belongs to it and ignore other techniques; refactor (remove hard-coded values, isolate the core algorithm, add docstrings and type hints) but keep the original algorithmic logic, parameters and comments: do not re-implement or invent logic.",
  "End the code with a main block starting with the comment # TEST BLOCK as a usage example.",
  "If the technique needs integration with other modules to constitute one code module, or no direct implementation of it is in the snippets, answer none: true.",
  "Answer with one JSON object matching the schema and nothing else.",
].join(" ");

function unitBlocks(code: readonly CodeDoc[]): string[] {
  return code.map((c) => sourceBlock(`[unit ${c.id}] ${c.title}`, c.text));
}

/** The leaf prompt, or the composite prompt when the technique has sub-techniques (App. C.3). */
export function rewritePrompt(x: RewriteInput): string {
  const parts = [
    `Abstract of the paper ${x.paperTitle}:`,
    x.abstract || "(none stored)",
    "",
    `Technical concept definition from the paper ${x.paperTitle}:`,
    x.technique,
  ];
  if (x.subTechniques.length) {
    parts.push("", `Sub-techniques and associated code (${x.subTechniques.length}):`);
    for (const s of x.subTechniques) {
      parts.push(`- [technique ${s.id}] ${s.definition}`);
      parts.push(...(s.code.length ? unitBlocks(s.code) : ["  (no code yet)"]));
    }
  }
  parts.push("", x.code.length ? `Relevant code files (${x.code.length}):` : "Relevant code files: none given.");
  parts.push(...unitBlocks(x.code));
  parts.push(
    "",
    x.subTechniques.length
      ? "Fully reuse the code of the sub-techniques; locate any part they do not cover in the relevant code files."
      : "Extract only the code that implements this technique.",
    "Name in `sources` each code unit you took code from, by its id, with a line of it copied verbatim.",
  );
  return parts.join("\n");
}

/** The rewrite in an answer ([] for none), its quotes anchored; or why the answer cannot be used. */
export function checkRewrite(value: unknown, units: readonly CodeDoc[]): Checked<Rewrite> | string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "the answer is not a JSON object";
  const v = value as Record<string, unknown>;
  const implementation = typeof v.implementation === "string" ? v.implementation.trim() : "";
  if (v.none === true || /^none$/iu.test(implementation)) return { items: [], dropped: [] };
  if (!implementation) return "implementation is empty (answer none: true when the technique has no standalone code)";
  if (implementation.length > MAX_IMPLEMENTATION)
    return `implementation is longer than ${MAX_IMPLEMENTATION} characters`;
  const byId = new Map(units.map((u) => [u.id, u]));
  const sources: RewriteSource[] = objectsField(v, "sources")
    .slice(0, MAX_SOURCES)
    .map((s) => {
      const id = typeof s.id === "string" ? s.id.trim() : "";
      const quote = typeof s.quote === "string" ? s.quote : "";
      const doc = byId.get(id);
      const at = doc
        ? anchorQuote(doc, quote)
        : `names ${JSON.stringify(id.slice(0, 80))}, a code unit it was not given`;
      return typeof at === "string" ? { id, quote, anchor: null, reason: at } : { id, quote, anchor: at };
    });
  return {
    items: [
      {
        implementation,
        test: textField(v, "test", false).slice(0, MAX_TEST),
        documentation: textField(v, "documentation", false).slice(0, MAX_DOCUMENTATION),
        sources,
      },
    ],
    dropped: [],
  };
}

/** Rule (a): every quote is an exact span of the unit it names (and there is at least one). */
export function quotesCheck(r: Rewrite): { ok: boolean; failures: string[] } {
  const failures = r.sources.flatMap((s, i) => (s.anchor ? [] : [`sources[${i}]: ${s.reason ?? "not verbatim"}`]));
  if (r.sources.length === 0) failures.push("sources is empty: the rewrite names no code unit it comes from");
  return { ok: failures.length === 0, failures };
}

const norm = (s: string) => s.replace(/\s+/gu, " ").trim();

/**
 * The implementation's core lines: before the first `# TEST BLOCK` line, not blank, not a comment
 * (`#`, `//`) and not inside a docstring (`"""` or `'''` blocks), whitespace-normalised.
 */
export function coreLines(implementation: string): string[] {
  const out: string[] = [];
  let inDoc: string | null = null;
  for (const raw of implementation.split(/\r?\n/u)) {
    const line = raw.trim();
    if (/^#\s*TEST BLOCK\b/iu.test(line)) break;
    if (inDoc !== null) {
      if (line.includes(inDoc)) inDoc = null;
      continue;
    }
    const doc = /^(?:[rRbBuU]{0,2})("""|''')/u.exec(line);
    if (doc) {
      const q = doc[1] as string;
      // One-line docstring: opened and closed on the same line.
      if (!line.slice(line.indexOf(q) + 3).includes(q)) inDoc = q;
      continue;
    }
    if (!line || line.startsWith("#") || line.startsWith("//")) continue;
    out.push(norm(line));
  }
  return out;
}

export interface CoreCheck {
  lines: number;
  found: number;
  /** found / lines; 0 for an implementation without core lines. */
  fraction: number;
  threshold: number;
  ok: boolean;
  /** The first core lines not found (at most 10). */
  missing: string[];
}

/** Rule (b): the fraction of core lines found verbatim (whitespace-normalised) in the snippets. */
export function coreCheck(implementation: string, snippets: readonly string[], threshold = CORE_MIN): CoreCheck {
  const lines = coreLines(implementation);
  const hay = snippets.map(norm);
  const missing: string[] = [];
  let found = 0;
  for (const l of lines) {
    if (hay.some((h) => h.includes(l))) found++;
    else if (missing.length < 10) missing.push(l.slice(0, 200));
  }
  const fraction = lines.length ? Math.round((found / lines.length) * 1000) / 1000 : 0;
  return { lines: lines.length, found, fraction, threshold, ok: lines.length > 0 && fraction >= threshold, missing };
}

/** The code shown, in order: whole units until `maxBytes` (UTF-8) is used, the last one cut at a line. */
export function fitCodeBytes<T extends { text: string }>(docs: readonly T[], maxBytes: number): T[] {
  const enc = new TextEncoder();
  const out: T[] = [];
  let left = maxBytes;
  for (const d of docs) {
    const size = enc.encode(d.text).length;
    if (size <= left) {
      out.push(d);
      left -= size;
      continue;
    }
    // A prefix within the bytes left, cut at a line boundary (anchors keep their offsets).
    let text = d.text.slice(0, left);
    while (text && enc.encode(text).length > left) text = text.slice(0, Math.floor(text.length * 0.9));
    const nl = text.lastIndexOf("\n");
    if (nl > 0) text = text.slice(0, nl + 1);
    if (text.trim()) out.push({ ...d, text });
    break;
  }
  return out;
}

// ------------------------------------------------------------------ the verifier (App. C.3)

export interface Verdict {
  verdict: boolean;
  reason: string;
}

export const VERIFY_SCHEMA: JsonSchema = closedObject({
  verdict: {
    type: "boolean",
    description:
      "true only if the code implements exactly the technique described, adds nothing beyond it and follows the given code files.",
  },
  reason: text("The analysis behind the verdict, in a few sentences."),
});

export const VERIFY_SYSTEM = [
  "You determine whether a code block strictly follows a technique's description and the relevant code files.",
  "Answer false if the implementation is unrelated to the technique, if it contains core logic that cannot be located in the code files,",
  "or if it contains logic the technique description does not cover (e.g. the technique defines a submodule but the code implements the full algorithm).",
  "Answer true if it implements exactly what the description specifies, adds no features beyond it and follows the code files.",
  "Answer with one JSON object matching the schema and nothing else.",
].join(" ");

export function verifyPrompt(
  paperTitle: string,
  technique: string,
  code: readonly CodeDoc[],
  implementation: string,
): string {
  return [
    `Technical concept definition from the paper ${paperTitle}:`,
    technique,
    "",
    `Relevant code files (${code.length}):`,
    ...unitBlocks(code),
    "",
    "Implemented code block:",
    "```",
    implementation,
    "```",
  ].join("\n");
}

export function checkVerdict(value: unknown): Checked<Verdict> | string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "the answer is not a JSON object";
  const v = value as Record<string, unknown>;
  if (typeof v.verdict !== "boolean") return "verdict must be true or false";
  return { items: [{ verdict: v.verdict, reason: textField(v, "reason").slice(0, 2000) }], dropped: [] };
}
