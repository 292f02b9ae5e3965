/**
 * Which paper a repository implements, read from its README by rules (xKG, seed 003 App. C, the
 * prompt "Finding Associated Paper from Code": the official or direct implementation of one
 * specific paper, else none). Pure: no I/O.
 *
 * Evidence, strongest first:
 *   1. a BibTeX entry in the README (the "please cite" block): its title and its DOI / arXiv eprint;
 *   2. a sentence saying the repository is the code of a paper ("official implementation of",
 *      "code for the paper", "PyTorch implementation of"), with the title that follows it, and any
 *      paper identifier on the same line;
 *   3. exactly one distinct paper identifier (arXiv id, DOI) anywhere in the README.
 * Several identifiers and no stronger evidence name several papers: no association (the prompt's
 * "multiple papers" case), and the README says which were seen.
 */
import { parseBibtex } from "../formats/bibtex";
import { findIdentifiers } from "../ids";

/** README, README.md, readme.rst, README.txt, README.markdown: at any depth. */
const README_RE = /(?:^|\/)readme(?:\.(?:md|markdown|rst|txt))?$/i;

export function isReadme(path: string): boolean {
  return README_RE.test(path);
}

export interface ReadmePaper {
  /** Canonical paper ids the evidence names (canonicalPaperId forms: `arxiv:…`, `doi:…`). */
  ids: string[];
  /** The paper's title when the evidence gives one. */
  title: string | null;
  /** Which rule found it. */
  evidence: "bibtex" | "statement" | "identifier";
}

const TITLE_MIN = 8;
const TITLE_MAX = 300;
/** "official (PyTorch) implementation of", "code for the paper", "source code of our paper", … */
const STATEMENT_RE =
  /\b(?:(?:the\s+)?official\s+|(?:py)?torch\s+|tensorflow\s+|jax\s+|reference\s+|source\s+)*(?:code|implementation|codebase|repository|repo)\s+(?:for|of|accompanying)\s+(?:the\s+|our\s+)?(?:\w+\s+)?(?:paper|work|article|publication)?\s*:?\s*/i;

function cleanTitle(raw: string): string | null {
  const t = raw
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1") // markdown link text
    .replace(/[*_`"“”]+/g, " ")
    .replace(/\s+/g, " ")
    .replace(/[\s.,:;(]+$/, "")
    .trim();
  return t.length >= TITLE_MIN && t.length <= TITLE_MAX ? t : null;
}

/** The first BibTeX entry with a title: its title and the identifiers in the entry. */
function fromBibtex(text: string): ReadmePaper | null {
  const at = text.search(/@(?:article|inproceedings|misc|conference|techreport|phdthesis|incollection)\s*\{/i);
  if (at < 0) return null;
  const next = text.slice(at + 1).search(/@[a-z]+\s*\{/i);
  const block = text.slice(at, next < 0 ? at + 5_000 : at + 1 + next).slice(0, 5_000);
  const plan = parseBibtex(block);
  const first = plan.ok ? plan.value.artifacts.find((a) => (a.title ?? "").trim().length > 0) : undefined;
  if (!first) return null;
  const title = cleanTitle(first.title ?? "");
  const ids = [...new Set(findIdentifiers(block).map((x) => x.id))];
  return title || ids.length ? { ids, title, evidence: "bibtex" } : null;
}

/** A sentence saying this is the code of a paper: the title after it, identifiers on its line. */
function fromStatement(text: string): ReadmePaper | null {
  for (const line of text.split("\n").slice(0, 200)) {
    const m = STATEMENT_RE.exec(line);
    if (!m) continue;
    const rest = line.slice(m.index + m[0].length);
    // The title: a markdown link's text, a quoted or emphasised span, else the rest of the sentence.
    const quoted = /\[([^\]]{8,300})\]\(|["“*_]{1,2}([^"”*_]{8,300})["”*_]{1,2}/.exec(rest);
    const title = cleanTitle(quoted?.[1] ?? quoted?.[2] ?? rest.split(/(?<=[a-z0-9)])\.\s|\s\(|$/i)[0] ?? "");
    const ids = findIdentifiers(line).map((x) => x.id);
    if (title || ids.length) return { ids, title, evidence: "statement" };
  }
  return null;
}

/**
 * The paper a README says its repository implements, or null: with `seen`, the distinct paper
 * identifiers the README holds (for the answer's explanation when they are ambiguous).
 */
export function readmePaper(text: string): { paper: ReadmePaper | null; seen: string[] } {
  const seen = findIdentifiers(text).map((x) => x.id);
  const paper = fromBibtex(text) ?? fromStatement(text);
  if (paper) return { paper, seen };
  if (seen.length === 1) return { paper: { ids: seen, title: null, evidence: "identifier" }, seen };
  return { paper: null, seen };
}
