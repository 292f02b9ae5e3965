/**
 * LaTeX `.bbl` files (what BibTeX or biber writes for a paper's bibliography) -> the paper's
 * reference entries, by rules: no TeX engine, no network. Two layouts:
 *
 * - BibTeX (`\begin{thebibliography}{N} \bibitem[label]{key} Authors. \newblock Title. \newblock
 *   Venue, 2020. \end{thebibliography}`, from natbib, plain, IEEEtran, ACL, ACM styles): each entry's
 *   LaTeX is stripped to text (accents decoded, `\emph`, `{\em …}`, `\url`, `\href`, `\doi`, `~`, `\&`,
 *   comments) and parsed with parseReference (references.ts); with natbib's `\newblock`s the title is
 *   the second block when the first reads like an author list and the second like a title.
 * - biblatex (`\entry{key}{type}{} \name{author}… \field{title}{…} \verb{doi} \verb 10.x \endverb
 *   \endentry`): the fields are read by name; the title is the `title` field.
 *
 * Pure and linear in the input: every scan moves forward and a group that does not close within its
 * entry ends that entry's reading. The caps are BBL_LIMITS.
 */
import { fail, ok, type Result } from "../errors";
import { runSync, type Sliced, slicer } from "../pace";
import { clip, LIMITS, oneLine } from "./common";
import { paperIdentity } from "./paper";
import { looksLikeAuthors, type ParsedReference, parseReference, plausibleTitle } from "./references";

export const BBL_LIMITS = {
  /** Characters of one request's .bbl (a 2,000-entry biblatex file is ~6 MB). */
  maxChars: 8_000_000,
  /** Entries of one file: a paper cites far fewer; more is a 413. */
  maxEntries: 2000,
  /** Characters of one `\bibitem` entry read; the rest is cut (and reported). */
  maxEntryChars: 5000,
  /** Characters of one biblatex `\entry` read (its name hashes take room); the rest is cut. */
  maxBiblatexEntryChars: 50_000,
  /** A natbib label (`[Lewis et~al.(2020)Lewis, Perez, …]`) and a key, scanned at most this far. */
  maxLabelChars: 2000,
  maxKeyChars: 300,
} as const;

export interface BblEntry extends ParsedReference {
  /** 1-based position in the file. */
  n: number;
  /** The citation key (`\bibitem{key}`, `\entry{key}`). */
  key: string;
  /** The natbib label as text (`Lewis et al.(2020)…`), null without one. */
  label: string | null;
  /** The work's canonical id when the entry carries an identifier (paperIdentity), else null. */
  cited: string | null;
}

export interface BblFile {
  style: "bibitem" | "biblatex";
  entries: BblEntry[];
  /** Positions (n) of the entries cut to BBL_LIMITS before parsing. */
  clipped: number[];
}

/** Entries parsed between two yields of the sliced parse. */
const ENTRY_SLICE = 100;

export function parseBbl(text: string): Result<BblFile> {
  return runSync(parseBblSliced(text));
}

/** parseBbl, yielding every ENTRY_SLICE entries (src/core/pace.ts). */
export function* parseBblSliced(text: string): Sliced<Result<BblFile>> {
  if (!looksLikeText(text))
    return fail(
      "validation",
      "the body is not text (binary bytes or invalid UTF-8); a .bbl file is the LaTeX text BibTeX or biber writes",
      "body",
      "send the paper's .bbl file itself (curl --data-binary @paper.bbl), not a PDF or an archive",
    );
  if (text.length > BBL_LIMITS.maxChars)
    return fail(
      "too_large",
      `this .bbl holds ${text.length.toLocaleString("en-US")} characters; one request takes at most ${BBL_LIMITS.maxChars.toLocaleString("en-US")}`,
      "body",
      "send one paper's .bbl per request",
    );
  const biblatex = /\\entry\s*\{/.test(text) && text.includes("\\endentry");
  const raw = biblatex ? biblatexEntries(text) : bibitemEntries(stripComments(text));
  if (raw.length === 0)
    return fail(
      "validation",
      "no bibliography entries found in the body: no `\\bibitem{key}` and no biblatex `\\entry{key}{type}{} … \\endentry`",
      "body",
      "send the .bbl that bibtex or biber wrote next to the paper's .tex (format=bbl takes no .bib: use format=bibtex for that)",
    );
  if (raw.length > BBL_LIMITS.maxEntries)
    return fail(
      "too_large",
      `this .bbl holds ${raw.length} entries; one request takes at most ${BBL_LIMITS.maxEntries}`,
      "body",
      "split the bibliography into several .bbl files and import each for the same paper",
    );
  const slice = slicer(ENTRY_SLICE);
  const entries: BblEntry[] = [];
  const clipped: number[] = [];
  for (const [i, r] of raw.entries()) {
    yield* slice();
    const n = i + 1;
    if (r.clipped) clipped.push(n);
    const parsed = biblatex ? biblatexReference(r.body) : bibitemReference(r.body);
    const id = parsed.ids.length ? paperIdentity(parsed.ids, parsed.title ?? "") : null;
    entries.push({
      ...parsed,
      n,
      key: r.key,
      label: r.label === null ? null : clip(latexToText(r.label), LIMITS.title),
      cited: id?.id ?? null,
    });
  }
  return ok({ style: biblatex ? "biblatex" : "bibitem", entries, clipped });
}

// ------------------------------------------------------------------ splitting

interface RawEntry {
  key: string;
  label: string | null;
  body: string;
  clipped: boolean;
}

/** Text, not bytes: no NUL, and few control or replacement characters in the first 4,096. */
function looksLikeText(text: string): boolean {
  if (text.includes("\u0000")) return false;
  const head = Math.min(text.length, 4096);
  let bad = 0;
  for (let i = 0; i < head; i++) {
    const c = text.charCodeAt(i);
    if (c === 0xfffd || (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c)) bad++;
  }
  return bad * 20 <= head;
}

/** TeX comments: `%` (not `\%`) to the end of its line. */
function stripComments(text: string): string {
  return text.replace(/(?<!\\)%[^\n]*/g, "");
}

/** End (exclusive) of the `{…}` group opening at `at`, searched at most to `limit`; -1 when it does not close. */
function groupEnd(s: string, at: number, limit: number): number {
  if (s[at] !== "{") return -1;
  let depth = 0;
  for (let j = at; j < limit; j++) {
    const c = s[j];
    if (c === "\\") j++;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return j + 1;
  }
  return -1;
}

function skipSpace(s: string, at: number, limit: number): number {
  let j = at;
  while (j < limit && /\s/.test(s[j] as string)) j++;
  return j;
}

/** `\bibitem[label]{key} body`, each up to the next `\bibitem` or `\end{thebibliography}`. */
function bibitemEntries(text: string): RawEntry[] {
  const starts = [...text.matchAll(/\\bibitem(?![A-Za-z@])/g)].map((m) => m.index ?? 0);
  const ends = [...text.matchAll(/\\end\s*\{thebibliography\}/g)].map((m) => m.index ?? 0);
  const out: RawEntry[] = [];
  let e = 0;
  for (const [i, start] of starts.entries()) {
    const from = start + "\\bibitem".length;
    while (e < ends.length && (ends[e] as number) < from) e++;
    const limit = Math.min(starts[i + 1] ?? text.length, ends[e] ?? text.length);
    let at = skipSpace(text, from, limit);
    let label: string | null = null;
    if (text[at] === "[") {
      const close = labelEnd(text, at, Math.min(limit, at + BBL_LIMITS.maxLabelChars));
      if (close < 0) continue;
      label = text.slice(at + 1, close);
      at = skipSpace(text, close + 1, limit);
    }
    const keyEnd = groupEnd(text, at, Math.min(limit, at + BBL_LIMITS.maxKeyChars));
    if (keyEnd < 0) continue;
    const key = oneLine(text.slice(at + 1, keyEnd - 1));
    if (!key) continue;
    const body = text.slice(keyEnd, limit);
    out.push({
      key,
      label,
      body: clip(body, BBL_LIMITS.maxEntryChars),
      clipped: body.length > BBL_LIMITS.maxEntryChars,
    });
  }
  return out;
}

/** The `]` closing a label opened at `at`, outside braces (`[{Brown et~al.(2020)}]`); -1 when none. */
function labelEnd(s: string, at: number, limit: number): number {
  let depth = 0;
  for (let j = at + 1; j < limit; j++) {
    const c = s[j];
    if (c === "\\") j++;
    else if (c === "{") depth++;
    else if (c === "}") depth = Math.max(0, depth - 1);
    else if (c === "]" && depth === 0) return j;
  }
  return -1;
}

/** biblatex: `\entry{key}{type}{options}` … `\endentry`. */
function biblatexEntries(text: string): RawEntry[] {
  const out: RawEntry[] = [];
  const re = /\\entry\s*\{/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const open = m.index + m[0].length - 1;
    const stop = text.indexOf("\\endentry", open);
    const limit = stop < 0 ? text.length : stop;
    re.lastIndex = stop < 0 ? text.length : stop + "\\endentry".length;
    const keyEnd = groupEnd(text, open, Math.min(limit, open + BBL_LIMITS.maxKeyChars));
    if (keyEnd < 0) continue;
    const key = oneLine(text.slice(open + 1, keyEnd - 1));
    if (!key) continue;
    const body = text.slice(keyEnd, limit);
    out.push({
      key,
      label: null,
      body: clip(body, BBL_LIMITS.maxBiblatexEntryChars),
      clipped: body.length > BBL_LIMITS.maxBiblatexEntryChars,
    });
  }
  return out;
}

// ------------------------------------------------------------------ entries

/** A `\bibitem` body: its blocks (`\newblock`) as text, parsed; the second block as the title when it fits. */
function bibitemReference(body: string): ParsedReference {
  const blocks = body
    .split(/\\newblock(?![A-Za-z@])/)
    .map(latexToText)
    .filter(Boolean);
  const parsed = parseReference(blocks.join(" "));
  const first = blocks[0];
  const second = blocks[1] === undefined ? null : blockTitle(blocks[1]);
  if (first !== undefined && second && looksLikeAuthors(first.replace(/\.$/, "")))
    return { ...parsed, title: clip(second, LIMITS.title) };
  return parsed;
}

/** A natbib block as a title: without its closing period or comma and quotes; null unless plausible. */
function blockTitle(block: string): string | null {
  const t = block
    .replace(/^["“”'\s]+|["“”'\s]+$/g, "")
    .replace(/[.,]+$/, "")
    .replace(/["“”]+$/, "");
  return plausibleTitle(t);
}

interface BiblatexFields {
  fields: Map<string, string>;
  authors: string[];
  lists: Map<string, string[]>;
}

/** The fields of a biblatex entry body, read by name (`\field`, `\verb … \endverb`, `\name`, `\list`). */
function biblatexFields(body: string): BiblatexFields {
  const out: BiblatexFields = { fields: new Map(), authors: [], lists: new Map() };
  const re = /\\(field|verb|name|list)\s*\{([A-Za-z_]+)\}/g;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    const [, kind, rawName] = m;
    const name = (rawName as string).toLowerCase();
    let at = skipSpace(body, re.lastIndex, body.length);
    if (kind === "verb") {
      const end = body.indexOf("\\endverb", at);
      if (end < 0) break;
      const value = body.slice(at, end).replace(/\\verb\s?/g, "");
      if (!out.fields.has(name)) out.fields.set(name, oneLine(value));
      re.lastIndex = end + "\\endverb".length;
      continue;
    }
    if (kind !== "field") {
      // \name{role}{count}{options}{names}, \list{name}{count}{items}: skip to the last group.
      for (let skip = kind === "name" ? 2 : 1; skip > 0; skip--) {
        const e = groupEnd(body, at, body.length);
        if (e < 0) return out;
        at = skipSpace(body, e, body.length);
      }
    }
    const end = groupEnd(body, at, body.length);
    if (end < 0) break;
    const value = body.slice(at + 1, end - 1);
    re.lastIndex = end;
    if (kind === "field") {
      if (!out.fields.has(name)) out.fields.set(name, value);
    } else if (kind === "name") {
      if ((name === "author" && out.authors.length === 0) || (name === "editor" && out.authors.length === 0))
        out.authors = biblatexNames(value);
    } else out.lists.set(name, topGroups(value));
  }
  return out;
}

/** The names of a biblatex `\name` list: `family={…}` / `given={…}`, or biber's older positional groups. */
function biblatexNames(list: string): string[] {
  const names: Array<{ family: string; given: string }> = [];
  const part = /\b(family|given)=\{((?:[^{}]|\{[^{}]*\})*)\}/g;
  for (const m of list.matchAll(part)) {
    if (m[1] === "family") names.push({ family: m[2] as string, given: "" });
    else {
      const last = names[names.length - 1];
      if (last && !last.given) last.given = m[2] as string;
    }
  }
  if (names.length === 0)
    for (const m of list.matchAll(
      /\{\{[^{}]*hash=[^{}]*\}\{((?:[^{}]|\{[^{}]*\})*)\}\{[^{}]*\}\{((?:[^{}]|\{[^{}]*\})*)\}/g,
    ))
      names.push({ family: m[1] as string, given: m[2] as string });
  return names.map((x) => latexToText(`${x.given} ${x.family}`)).filter(Boolean);
}

/** The top-level `{…}` groups of a list (`{Curran}%\n{MIT Press}`). */
function topGroups(s: string): string[] {
  const out: string[] = [];
  for (let j = 0; j < s.length; j++) {
    if (s[j] !== "{") continue;
    const e = groupEnd(s, j, s.length);
    if (e < 0) break;
    out.push(s.slice(j + 1, e - 1));
    j = e - 1;
  }
  return out;
}

/** A biblatex entry as a reference line (authors. title. venue, year. ids), parsed; the title is its field. */
function biblatexReference(body: string): ParsedReference {
  const { fields, authors, lists } = biblatexFields(body);
  const f = (k: string) => {
    const v = fields.get(k);
    return v === undefined ? "" : latexToText(v);
  };
  const sub = f("subtitle");
  const title = [f("title"), sub].filter(Boolean).join(": ");
  const venue =
    f("journaltitle") ||
    f("journal") ||
    f("booktitle") ||
    f("maintitle") ||
    f("eventtitle") ||
    f("howpublished") ||
    (lists.get("publisher") ?? lists.get("institution") ?? lists.get("organization") ?? []).map(latexToText).join(", ");
  const year = f("year") || (f("date").match(/\b[12]\d{3}\b/)?.[0] ?? "");
  const eprint = fields.get("eprint")?.trim() ?? "";
  const eprintType = (fields.get("eprinttype") ?? fields.get("archiveprefix") ?? "").toLowerCase();
  const ids = [
    fields.get("doi") ? `doi:${(fields.get("doi") as string).trim()}` : "",
    eprint && (eprintType.includes("arxiv") || /^\d{4}\.\d{4,5}(v\d+)?$/.test(eprint)) ? `arXiv:${eprint}` : "",
    fields.get("url")?.trim() ?? "",
  ].filter(Boolean);
  const line = [
    authors.length ? `${authors.join(", ")}.` : "",
    title ? `${title}.` : "",
    [venue, year].filter(Boolean).join(", "),
    ids.join(" "),
  ]
    .filter(Boolean)
    .join(" ");
  const parsed = parseReference(line);
  return { ...parsed, title: title ? clip(title, LIMITS.title) : parsed.title };
}

// ------------------------------------------------------------------ LaTeX to text

/** Accent commands -> combining marks (composed with NFC). */
const ACCENTS: Record<string, string> = {
  '"': "\u0308",
  "'": "\u0301",
  "`": "\u0300",
  "^": "\u0302",
  "~": "\u0303",
  "=": "\u0304",
  ".": "\u0307",
  u: "\u0306",
  v: "\u030c",
  H: "\u030b",
  c: "\u0327",
  k: "\u0328",
  r: "\u030a",
  d: "\u0323",
  b: "\u0331",
};

/** Letters TeX writes as commands; a space after them is TeX's, not the text's. */
const GLYPHS: Record<string, string> = {
  ss: "ß",
  SS: "SS",
  o: "ø",
  O: "Ø",
  ae: "æ",
  AE: "Æ",
  oe: "œ",
  OE: "Œ",
  aa: "å",
  AA: "Å",
  l: "ł",
  L: "Ł",
  i: "i",
  j: "j",
  dh: "ð",
  DH: "Ð",
  th: "þ",
  TH: "Þ",
};

/** Word commands with a text of their own (the space after them stays). */
const WORDS: Record<string, string> = {
  textendash: "–",
  textemdash: "—",
  ldots: "…",
  dots: "…",
  textquoteright: "’",
  textquoteleft: "‘",
  textquotedblleft: "“",
  textquotedblright: "”",
  S: "§",
  P: "¶",
  LaTeX: "LaTeX",
  TeX: "TeX",
  BibTeX: "BibTeX",
  textregistered: "®",
  texttrademark: "™",
  copyright: "©",
  textasciitilde: "~",
  textunderscore: "_",
  euro: "€",
  pounds: "£",
  textdegree: "°",
  bibinitperiod: ".",
  bibinitdelim: " ",
  bibinithyphendelim: "-",
  bibnamedelima: " ",
  bibnamedelimb: " ",
  bibnamedelimc: " ",
  bibnamedelimd: " ",
  bibnamedelimi: " ",
  bibrangedash: "–",
  bibrangessep: ", ",
  bibdatedash: "–",
  quad: " ",
  qquad: " ",
  alpha: "α",
  beta: "β",
  gamma: "γ",
  delta: "δ",
  epsilon: "ε",
  lambda: "λ",
  mu: "μ",
  pi: "π",
  sigma: "σ",
  tau: "τ",
  phi: "φ",
  omega: "ω",
};

const ARG = String.raw`\{((?:[^{}]|\{[^{}]*\})*)\}`;
const HREF = new RegExp(String.raw`\\href\s*${ARG}\s*${ARG}`, "g");
const URL_LIKE = new RegExp(String.raw`\\(?:url|path|nolinkurl)\s*${ARG}`, "g");
const DOI = new RegExp(String.raw`\\(?:doi|DOI)\s*${ARG}`, "g");
const INFO = new RegExp(String.raw`\\bib(?:info|field)\s*${ARG}`, "g");
const EPRINT = new RegExp(String.raw`\\showeprint\s*(?:\[([^\]]{0,40})\])?\s*${ARG}`, "g");

/** One entry's LaTeX as one line of text. */
export function latexToText(s: string): string {
  return oneLine(
    s
      // Accents: \"o, \"{o}, {\"o}, \'\i, \c{c}, \v s.
      .replace(
        /\\(["'`^~=.])\s*(?:\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|(\\[ij](?![A-Za-z])|[A-Za-z]))/g,
        (_m, a: string, x?: string, y?: string) => accented(a, x ?? y ?? ""),
      )
      .replace(
        /\\([uvHckrdb])(?![A-Za-z])(?:\s*\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|\s+([A-Za-z]))/g,
        (_m, a: string, x?: string, y?: string) => accented(a, x ?? y ?? ""),
      )
      .normalize("NFC")
      // Links and identifiers keep their text.
      .replace(HREF, (_m, url: string, text: string) => ` ${text} ${url} `)
      .replace(URL_LIKE, (_m, url: string) => ` ${url} `)
      .replace(DOI, (_m, doi: string) => ` doi:${doi} `)
      .replace(EPRINT, (_m, kind: string | undefined, id: string) => ` ${kind ?? "arXiv"}:${id} `)
      .replace(INFO, "")
      .replace(/\\penalty\s*-?\d+/g, "")
      // Control symbols.
      .replace(/\\\\(?:\[[^\]]{0,20}\])?/g, " ")
      .replace(/\\([&%$#_])/g, "$1")
      .replace(/\\[ ,;:>]/g, " ")
      .replace(/\\[!@/\-{}]/g, "")
      // Control words: a glyph, a word, or (formatting: \emph, \textit, \em, \bf, \natexlab) nothing.
      .replace(/\\([A-Za-z@]+)\*?(\s*)/g, (_m, w: string, sp: string) => {
        const g = GLYPHS[w];
        if (g !== undefined) return g;
        const t = WORDS[w];
        return t !== undefined ? t + sp : sp;
      })
      .replace(/~/g, " ")
      .replace(/---/g, "—")
      .replace(/--/g, "–")
      .replace(/``|''/g, '"')
      // Braces, math shifts and what is left of commands this does not know.
      .replace(/[{}$\\]/g, ""),
  );
}

function accented(accent: string, base: string): string {
  const letter = base === "\\i" ? "i" : base === "\\j" ? "j" : base;
  return letter + (ACCENTS[accent] ?? "");
}
