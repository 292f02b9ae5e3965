/**
 * Bibliographic exports of paper chunks: BibTeX with stable citation keys and CSL-JSON items.
 * Metadata comes from the chunk itself: the `Authors:` / `In:` / `Date:` lines the importers write
 * into a paper's content (else its person / venue entities), `year:` and `bibtex:` boundaries, and the
 * canonical ids (chunk id and its own entity's id-like aliases) for DOI and arXiv eprint. A paper
 * imported from BibTeX carries its entry as written (after a `BibTeX:` line at the end of its
 * content): the BibTeX export gives that entry back verbatim, under the user's key.
 *
 * Years are never invented: the `year:` boundary, else the `Date:` line, else valid_from's year for a
 * record of its own valid from a real date (after the epoch); a work known only from a bibliography
 * (boundary `reference-only`, valid from the epoch) takes the year its reference text states
 * (referenceYear); otherwise none: BibTeX then has no `year` field and CSL-JSON no `issued`.
 */

import { REFERENCE_ONLY } from "../formats/fulltext";
import { ENTRY_MARK, splitEntry } from "../formats/paper";
import { canonicalPaperId } from "../ids";
import { runSync, type Sliced, slicer } from "../pace";
import { UNDATED } from "../types";
import { joinParts, type Parts } from "./parts";
import { type ChunkRecord, EXPORT_ROW_SLICE, iso } from "./types";

export interface PaperMeta {
  id: string;
  /** The entry as the user wrote it (with the @string macros it uses), when imported from BibTeX. */
  raw: { macros: string[]; entry: string; key: string } | null;
  version: number;
  title: string;
  /** Display names in order ("Patrick Lewis" or "Lewis, Patrick"). */
  authors: string[];
  year: number | null;
  month: number | null;
  venue: string;
  bibType: string;
  doi: string | null;
  arxiv: string | null;
  url: string | null;
}

function line(content: string, label: string): string | null {
  const m = new RegExp(`^${label}:[ \\t]*(.+)$`, "m").exec(content);
  return m?.[1]?.trim() || null;
}

/** The BibTeX entry at the end of a paper's content, split into @string lines, the entry and its key. */
export function rawEntry(content: string): PaperMeta["raw"] {
  const { entry } = splitEntry(content);
  if (!entry) return null;
  const block = entry.slice(ENTRY_MARK.length);
  const macros: string[] = [];
  let rest = block;
  for (;;) {
    const m = /^@string\s*\{[^\n]*\}\n/i.exec(rest);
    if (!m) break;
    macros.push(m[0].trimEnd());
    rest = rest.slice(m[0].length);
  }
  const key = /^@\s*[a-z]+\s*[{(]\s*([^,\s]+)\s*,/i.exec(rest)?.[1];
  return key ? { macros, entry: rest.trim(), key } : null;
}

/** Identifiers and links whose digits are not years: URLs, DOIs, arXiv ids (new and old style). */
const NOT_YEARS =
  /\bhttps?:\/\/\S+|\bdoi:\s*\S+|\b10\.\d{4,9}\/\S+|\barxiv:\s*\S+|\b\d{4}\.\d{4,5}(?:v\d+)?\b|\b[a-z-]+(?:\.[a-z]{2})?\/\d{7}\b/gi;
/** A year 1900-2099 standing alone (not part of a longer number, a decimal or a range of pages). */
const YEAR = /(?<![\d./-])((?:19|20)\d{2})[a-z]?(?![\d]|\.\d|[-–]\d)/g;

/**
 * The publication year a reference's text states, or null: the first year in parentheses ("(2019)",
 * APA and physics styles), else the last standing year (after the authors in ACL style, at the end
 * elsewhere); identifiers (URLs, DOIs, arXiv ids) are left out first, so "arXiv:2005.14165" is no 2005.
 */
export function referenceYear(text: string): number | null {
  const t = text.slice(0, 4000).replace(NOT_YEARS, " ");
  const paren = /\(\s*((?:19|20)\d{2})[a-z]?\s*\)/.exec(t);
  if (paren?.[1]) return Number(paren[1]);
  let last: string | null = null;
  for (const m of t.matchAll(YEAR)) last = m[1] ?? last;
  return last === null ? null : Number(last);
}

export function paperMeta(r: ChunkRecord): PaperMeta {
  const full = r.content ?? "";
  const raw = rawEntry(full);
  const content = splitEntry(full).body;
  const authorsLine = line(content, "Authors?");
  const authors = authorsLine
    ? authorsLine
        .replace(/,?\s+(et al\.?|and \d+ more)$/i, "")
        .split(/\s*;\s*|,\s+/)
        .map((s) => s.trim())
        .filter(Boolean)
    : (r.entityInfo ?? []).filter((e) => e.type === "person").map((e) => e.name);
  const yearTag = r.boundaries.find((b) => /^year:\d{4}$/.test(b));
  const date = line(content, "Date") ?? line(content, "Published");
  const dm = date ? /^(\d{4})(?:-(\d{1,2}))?/.exec(date) : null;
  // valid_from is a publication time only for a record of its own: a stand-in for a cited work is
  // valid from the epoch (its reference text may state the year), and so is a record of unknown date.
  const year = yearTag
    ? Number(yearTag.slice(5))
    : dm?.[1]
      ? Number(dm[1])
      : r.boundaries.includes(REFERENCE_ONLY)
        ? referenceYear(content)
        : r.validFrom > 0 && !r.boundaries.includes(UNDATED)
          ? new Date(r.validFrom).getUTCFullYear()
          : null;
  const month = dm?.[2] ? Number(dm[2]) : null;
  const venue = line(content, "In") ?? (r.entityInfo ?? []).find((e) => e.type === "venue")?.name ?? "";
  const bibTag = r.boundaries.find((b) => /^bibtex:[a-z]+$/.test(b));
  const ids = new Set<string>();
  for (const x of [r.id, ...(r.aliases ?? [])]) {
    const c = canonicalPaperId(x);
    if (c) ids.add(c);
  }
  const doiLine = line(content, "DOI");
  if (doiLine) {
    const c = canonicalPaperId(doiLine);
    if (c) ids.add(c);
  }
  const arxivLine = line(content, "arXiv");
  if (arxivLine) {
    const c = canonicalPaperId(`arXiv:${arxivLine}`);
    if (c) ids.add(c);
  }
  const doi = [...ids].find((x) => x.startsWith("doi:"))?.slice(4) ?? null;
  const arxiv = [...ids].find((x) => x.startsWith("arxiv:"))?.slice(6) ?? null;
  const src = /^https?:\/\/\S+$/.test(r.source) ? r.source : null;
  const url =
    line(content, "URL") ?? src ?? (doi ? `https://doi.org/${doi}` : arxiv ? `https://arxiv.org/abs/${arxiv}` : null);
  return {
    id: r.id,
    raw,
    version: r.version,
    title: r.title,
    authors,
    year: year !== null && Number.isFinite(year) ? year : null,
    month,
    venue,
    bibType: bibTag ? bibTag.slice(7) : venue ? "article" : "misc",
    doi,
    arxiv,
    url,
  };
}

/** ASCII letters and digits only, lower case (diacritics folded: "Gutiérrez" -> "gutierrez"). */
function fold(s: string): string {
  return s
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/ß/g, "ss")
    .replace(/[æÆ]/g, "ae")
    .replace(/[øØ]/g, "o")
    .replace(/[łŁ]/g, "l")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
}

/** Family name of a display name: "Lewis, Patrick" -> Lewis; "Bernal Jiménez Gutiérrez" -> Gutiérrez. */
export function familyName(name: string): string {
  const n = name.replace(/[{}]/g, "").trim();
  if (n.includes(",")) return n.split(",")[0]?.trim() ?? n;
  const parts = n.split(/\s+/);
  return parts[parts.length - 1] ?? n;
}

function givenName(name: string): string {
  const n = name.replace(/[{}]/g, "").trim();
  if (n.includes(",")) return n.split(",").slice(1).join(",").trim();
  const parts = n.split(/\s+/);
  return parts.slice(0, -1).join(" ");
}

const STOPWORDS = new Set(
  "a an the on of in for to and or with from by at as is are towards toward via using into over under".split(" "),
);

/** The base key: first author's family name + year + first significant title word ("lewis2020retrieval"). */
export function baseCitationKey(m: PaperMeta): string {
  const fam = m.authors[0] ? fold(familyName(m.authors[0])) : "";
  const words = m.title
    .split(/[^\p{L}\p{N}]+/u)
    .map(fold)
    .filter(Boolean);
  const word = words.find((w) => !STOPWORDS.has(w)) ?? words[0] ?? "";
  return `${fam || "anon"}${m.year ?? "nd"}${word}`;
}

function suffix(i: number): string {
  let s = "";
  let n = i;
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return s;
}

/**
 * Stable keys: a paper imported from BibTeX keeps the user's key; the others get the base key when
 * unique in the set (and not a user's key), colliding ones a, b, c, ... in chunk-id order. The same
 * set of papers always gets the same keys.
 */
export function citationKeys(metas: PaperMeta[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const m of metas)
    if (m.raw && !taken.has(m.raw.key)) {
      out.set(m.id, m.raw.key);
      taken.add(m.raw.key);
    }
  const groups = new Map<string, string[]>();
  for (const m of metas) {
    if (out.has(m.id)) continue;
    const k = baseCitationKey(m);
    groups.set(k, [...(groups.get(k) ?? []), m.id]);
  }
  for (const [k, ids] of groups) {
    const sorted = [...new Set(ids)].sort();
    if (sorted.length === 1 && !taken.has(k)) out.set(sorted[0] as string, k);
    else {
      let i = 0;
      for (const id of sorted) {
        while (taken.has(`${k}${suffix(i)}`)) i++;
        out.set(id, `${k}${suffix(i)}`);
        i++;
      }
    }
  }
  return out;
}

/** Escape the LaTeX specials so a value is literal text inside `{...}`. */
export function latexEscape(s: string): string {
  const map: Record<string, string> = {
    "\\": "\\textbackslash{}",
    "{": "\\{",
    "}": "\\}",
    "&": "\\&",
    "%": "\\%",
    $: "\\$",
    "#": "\\#",
    _: "\\_",
    "~": "\\textasciitilde{}",
    "^": "\\textasciicircum{}",
  };
  return s.replace(/[\r\n\t]+/g, " ").replace(/[\\{}&%$#_~^]/g, (c) => map[c] ?? c);
}

function bibName(name: string): string {
  const fam = familyName(name);
  const given = givenName(name);
  // A one-word (e.g. corporate) name is braced so BibTeX does not split or reorder it.
  if (!given) return `{${latexEscape(fam)}}`;
  return `${latexEscape(fam)}, ${latexEscape(given)}`;
}

const VENUE_FIELD: Record<string, string> = {
  article: "journal",
  inproceedings: "booktitle",
  conference: "booktitle",
  incollection: "booktitle",
  inbook: "booktitle",
};

export function papersOnly(records: ChunkRecord[]): ChunkRecord[] {
  return records.filter((r) => r.kind === "paper");
}

/**
 * BibTeX for the paper chunks among `records` (others are ignored). Entries imported from BibTeX
 * come back as written (the @string macros they use first, once); the others are generated, with
 * the PaperGuru id and version in a comment line above the entry (outside it, so no field is added).
 */
export function renderBibtex(records: ChunkRecord[]): string {
  return joinParts(runSync(bibtexPartsSliced(records)));
}

/** The paper records' metadata in id order, yielding every EXPORT_ROW_SLICE records. */
function* sortedMetas(records: ChunkRecord[]): Sliced<PaperMeta[]> {
  const slice = slicer(EXPORT_ROW_SLICE);
  const metas: PaperMeta[] = [];
  for (const r of papersOnly(records)) {
    yield* slice();
    metas.push(paperMeta(r));
  }
  return metas.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * renderBibtex's entries (after the macros they use), one part each (joined with line breaks): the
 * papers' metadata read first, yielding every EXPORT_ROW_SLICE records; the entries made as read.
 */
export function* bibtexPartsSliced(records: ChunkRecord[]): Sliced<Parts> {
  const metas = yield* sortedMetas(records);
  yield;
  const keys = citationKeys(metas);
  const macros = new Set<string>();
  for (const m of metas) for (const x of m.raw?.macros ?? []) macros.add(x);
  const status = new Map(records.map((r) => [r.id, r.reviewStatus]));
  // The review status (when reviewed) goes in the comment line above the entry: no field is added.
  const note = (id: string) => {
    const st = status.get(id);
    return st && st !== "auto-generated" ? `; review: ${st}` : "";
  };
  function* parts(): Generator<string, void, undefined> {
    if (macros.size) yield `${[...macros].join("\n")}\n`;
    for (const m of metas) yield entryOf(m);
  }
  return { parts: parts(), sep: "\n" };

  function entryOf(m: PaperMeta): string {
    if (m.raw && keys.get(m.id) === m.raw.key)
      return `${note(m.id) ? `% PaperGuru ${m.id} v${m.version}${note(m.id)}\n` : ""}${m.raw.entry}\n`;
    const fields: Array<[string, string]> = [["title", latexEscape(m.title)]];
    if (m.authors.length) fields.push(["author", m.authors.map(bibName).join(" and ")]);
    if (m.year !== null) fields.push(["year", String(m.year)]);
    if (m.month !== null) fields.push(["month", String(m.month)]);
    if (m.venue) fields.push([VENUE_FIELD[m.bibType] ?? "howpublished", latexEscape(m.venue)]);
    if (m.doi) fields.push(["doi", latexEscape(m.doi)]);
    if (m.arxiv) fields.push(["eprint", latexEscape(m.arxiv)], ["archiveprefix", "arXiv"]);
    if (m.url) fields.push(["url", latexEscape(m.url)]);
    const body = fields.map(([k, v]) => `  ${k} = {${v}}`).join(",\n");
    return `% PaperGuru ${m.id} v${m.version}${note(m.id)}\n@${m.bibType}{${keys.get(m.id)},\n${body}\n}\n`;
  }
}

const CSL_TYPE: Record<string, string> = {
  article: "article-journal",
  inproceedings: "paper-conference",
  conference: "paper-conference",
  book: "book",
  incollection: "chapter",
  inbook: "chapter",
  phdthesis: "thesis",
  mastersthesis: "thesis",
  techreport: "report",
};

export interface CslItem {
  id: string;
  type: string;
  title: string;
  author?: Array<{ family: string; given?: string } | { literal: string }>;
  issued?: { "date-parts": number[][] };
  "container-title"?: string;
  DOI?: string;
  URL?: string;
  note: string;
}

/** CSL-JSON items (ids = the same stable citation keys as the BibTeX export). */
export function renderCslItems(records: ChunkRecord[]): CslItem[] {
  return runSync(renderCslItemsSliced(records));
}

/** renderCslItems, yielding every EXPORT_ROW_SLICE records. */
export function* renderCslItemsSliced(records: ChunkRecord[]): Sliced<CslItem[]> {
  const metas = yield* sortedMetas(records);
  yield;
  const keys = citationKeys(metas);
  const status = new Map(records.map((r) => [r.id, r.reviewStatus]));
  const slice = slicer(EXPORT_ROW_SLICE);
  const items: CslItem[] = [];
  for (const m of metas) {
    yield* slice();
    items.push(cslItem(m));
  }
  return items;

  function cslItem(m: PaperMeta): CslItem {
    return {
      id: keys.get(m.id) as string,
      type: CSL_TYPE[m.bibType] ?? "article",
      title: m.title,
      ...(m.authors.length
        ? {
            author: m.authors.map((a) => {
              const given = givenName(a);
              return given ? { family: familyName(a), given } : { literal: familyName(a) };
            }),
          }
        : {}),
      ...(m.year !== null ? { issued: { "date-parts": [m.month ? [m.year, m.month] : [m.year]] } } : {}),
      ...(m.venue ? { "container-title": m.venue } : {}),
      ...(m.doi ? { DOI: m.doi } : {}),
      ...(m.url ? { URL: m.url } : {}),
      note: `PaperGuru ${m.id} v${m.version}${m.arxiv ? `; arXiv:${m.arxiv}` : ""}${
        status.get(m.id) && status.get(m.id) !== "auto-generated" ? `; review: ${status.get(m.id)}` : ""
      }`,
    };
  }
}

export { iso };
