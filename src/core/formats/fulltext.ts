/**
 * Full-text paper dumps -> `paper` chunks, `section` chunks (`part-of` the paper) and `cites` edges
 * from each citing section to the cited works.
 *
 * Input: one JSON object, a JSON array of them, or JSONL (one object per line). Two shapes:
 *
 * unarXive (https://github.com/IllDepence/unarXive):
 *   { "paper_id": "2212.11867",
 *     "metadata": { "title", "abstract", "authors", "authors_parsed": [[last, first, suffix]],
 *                   "doi", "categories": "math.PR math.CA", "versions": [{ "version": "v1", "created": "<RFC 2822>" }] },
 *     "discipline": "Mathematics",
 *     "abstract": { "text" },
 *     "body_text": [{ "section", "sec_number", "text": "... {{cite:<hash>}} ... {{formula:<uuid>}}", "cite_spans": [{ "start", "end", "ref_id" }] }],
 *     "bib_entries": { "<hash>": { "bib_entry_raw", "ids": { "arxiv_id", "doi", "open_alex_id" }, "contained_arXiv_ids": [{ "id" }], "contained_links": [{ "url" }] } },
 *     "ref_entries": { "<uuid>": { "type": "formula", "latex" } | { "type": "figure", "caption" } } }
 *
 * S2ORC (2020 release; https://github.com/allenai/s2orc): the merged record
 *   { "paper_id", "metadata": { "title", "authors": [{ "first", "middle", "last", "suffix" }], "abstract", "year",
 *                               "doi", "arxiv_id", "pmc_id", "pubmed_id", "venue", "journal" },
 *     "grobid_parse" | "latex_parse" | "pdf_parse": { "abstract": [{ "text" }], "body_text": [{ "section", "text", "cite_spans": [{ "start", "end", "text", "ref_id": "BIBREF3" }] }],
 *                                                      "bib_entries": { "BIBREF3": { "title", "authors", "year", "venue", "other_ids": { "DOI": [], "arXiv": [] }, "links": "<S2 corpus id>" } } } }
 *   and the flat variant (metadata fields and body_text/bib_entries at the top level). latex_parse is
 *   preferred when it has a body (it is the cleaner parse), then grobid_parse, then pdf_parse.
 *
 * Per paper: the chunk id comes from paperIdentity (arXiv > DOI > OpenAlex > title slug; an S2 id is
 * kept as a `CorpusId:<id>` alias). content = the abstract (or the title). Consecutive paragraphs with
 * the same section name form a `section` chunk `<paper id>#s<n>-<slug>`; `{{formula:…}}` placeholders
 * become `$latex$`, `{{cite:…}}` become `[n]` (the entry's position in the bibliography), other
 * placeholders `[figure]`/`[table]`, and a section ends with the list of the works it cites, so its
 * text can be read and cited on its own. Bibliography entries become paper entities: with ids
 * (arXiv/DOI/OpenAlex, the others aliases) or, without, `paper:<title slug>` from the entry's title
 * (S2ORC) or a title guessed from the raw string (unarXive; see parseReference), so a later title
 * dedup can merge them; each such work is also a `paper` chunk (boundary `reference-only`, the entry
 * as written, created only when its id holds nothing yet: see REFERENCE_ONLY). Entries cited nowhere
 * in the body get their `cites` edge from the paper chunk.
 * valid_from: unarXive's metadata.versions[0].created (a historical import of the first version);
 * S2ORC's publication date (or only its year, as of 1 January) is valid_from too; the year is also a
 * `year:` boundary.
 *
 * Elements: every figure and table of `ref_entries` (unarXive `caption`, S2ORC `text`), every
 * equation entry (S2ORC `type: "equation"`), and each unarXive display formula (a `{{formula:…}}`
 * marker alone on its line; inline formulas stay in the text) becomes an `element` chunk
 * `<paper id>#fig<n>` / `#tab<n>` / `#eq<n>` (n counts per type in file order; at most
 * MAX_EQUATION_ELEMENTS display equations per paper, the rest stay inline and are reported as skipped),
 * kind `element` with the boundary `element:figure|table|equation`, content = the caption (or
 * `$latex$`), `part-of` the paper and `discussed-in` every section whose text references it (an
 * unarXive `{{figure:…}}` / `{{table:…}}` marker, a `ref_spans` entry naming it, or, for an equation,
 * the section it is displayed in). In section text a figure or table marker reads `[Figure n]` /
 * `[Table n]`. Neither format has page numbers, so elements carry none.
 *
 * Edges have no context field, so the sentence(s) around each citation are returned alongside the plan
 * in `citationContexts` (src = citing section, dst = cited id).
 */
import { fail, ok, type Result } from "../errors";
import { canonicalPaperId, slug } from "../ids";
import type { EdgeInput, EntityInput } from "../ingest";
import { runSync, type Sliced, slicer } from "../pace";
import { splitSentences } from "../text/sentences";
import {
  arr,
  clip,
  isObject,
  type Json,
  type JsonObject,
  LIMITS,
  oneLine,
  type PlanBuilder,
  parseTime,
  personEntity,
  publicationTime,
  scalar,
  startJsonPlan,
  yearOf,
} from "./common";
import { type PaperIdentity, paperIdentity } from "./paper";
import { parseReference } from "./references";
import type { ImportPlan } from "./types";

export interface FullTextOptions {
  /** File name or URL, recorded as `<source>#<paper id>`. */
  source?: string;
}

export interface CitationContext {
  /** Citing section chunk id. */
  src: string;
  /** Cited paper id (the `cites` edge target). */
  dst: string;
  /** The sentence around the citation, placeholders rendered as in the section content. */
  sentence: string;
}

export type FullTextPlan = ImportPlan & { citationContexts: CitationContext[] };

/** Display equations kept as element chunks per paper (a long derivation can hold hundreds; the unarXive sample has up to 425, median 17). */
export const MAX_EQUATION_ELEMENTS = 20;

export const ELEMENT_TYPES = ["figure", "table", "equation"] as const;
export type ElementType = (typeof ELEMENT_TYPES)[number];
const ELEMENT_ID = { figure: "fig", table: "tab", equation: "eq" } as const;
const ELEMENT_LABEL = { figure: "Figure", table: "Table", equation: "Equation" } as const;

/** The element chunk id of the n-th element of a type. */
export function elementId(paper: string, type: ElementType, n: number): string {
  return `${paper}#${ELEMENT_ID[type]}${n}`;
}

// ---------------------------------------------------------------------------------------------
// Normalised paper
// ---------------------------------------------------------------------------------------------

interface Cite {
  start: number;
  end: number;
  ref: string;
}
interface Paragraph {
  section: string;
  text: string;
  cites: Cite[];
  /** ref_entries keys this paragraph references (markers and ref_spans), in text order. */
  refs: string[];
  /** ref_entries keys of formulas displayed on a line of their own. */
  display: string[];
}
interface Element {
  key: string;
  type: ElementType;
  n: number;
  content: string;
}
/** Boundary of a `paper` chunk known only from a bibliography entry (no record of its own yet). */
export const REFERENCE_ONLY = "reference-only";

interface Bib {
  identity: PaperIdentity;
  /** Display line for the section's reference list. */
  display: string;
  /** Position in the bibliography, 1-based ([n] in rendered text). */
  n: number;
}

/** Replace unarXive placeholders; citations get their bibliography position, figures and tables their number. */
function render(
  text: string,
  refEntries: JsonObject,
  bibs: Map<string, Bib>,
  elements: Map<string, Element> = new Map(),
): string {
  return text.replace(/\{\{(\w+):([^}]+)\}\}/g, (_, kind: string, id: string) => {
    if (kind === "cite") {
      const b = bibs.get(id);
      return b ? `[${b.n}]` : "[?]";
    }
    const el = elements.get(id);
    if (el && el.type !== "equation") return `[${ELEMENT_LABEL[el.type]} ${el.n}]`;
    const r = refEntries[id];
    if (kind === "formula") {
      const latex = isObject(r) ? oneLine(scalar(r.latex)) : "";
      // Long display equations are clipped: the section must stay readable prose (500 chars ~ 3 lines).
      return latex ? `$${clip(latex, 500)}$` : "[formula]";
    }
    return `[${kind}]`;
  });
}

function authorName(a: Json): string {
  if (typeof a === "string") return oneLine(a);
  if (Array.isArray(a)) return oneLine([a[1], a[0], a[2]].map((x) => scalar(x)).join(" "));
  if (!isObject(a)) return "";
  return oneLine([scalar(a.first), ...arr(a.middle).map((x) => scalar(x)), scalar(a.last), scalar(a.suffix)].join(" "));
}

function unarxiveBib(key: string, b: JsonObject, n: number): Bib | null {
  const ids = isObject(b.ids) ? b.ids : {};
  const raw = oneLine(scalar(b.bib_entry_raw));
  const forms = [
    scalar(ids.arxiv_id) ? `arXiv:${scalar(ids.arxiv_id)}` : "",
    scalar(ids.doi) ? `doi:${scalar(ids.doi)}` : "",
    scalar(ids.open_alex_id),
    ...arr(b.contained_arXiv_ids).map((x) => (isObject(x) && scalar(x.id) ? `arXiv:${scalar(x.id)}` : "")),
    ...arr(b.contained_links).map((x) => (isObject(x) ? scalar(x.url) : "")),
  ];
  const parsed = parseReference(raw);
  const ids2 = [...forms.filter((f) => f && canonicalPaperId(f)), ...parsed.ids];
  if (!ids2.length && !parsed.title) return null;
  const identity = paperIdentity(ids2, parsed.title ?? "");
  if (!identity) return null;
  const name = parsed.title ?? clip(raw, LIMITS.entityName);
  return {
    identity: { ...identity, entity: { ...identity.entity, name: name || key } },
    display: clip(raw || name, 600),
    n,
  };
}

function s2orcBib(b: JsonObject, n: number): Bib | null {
  const other = isObject(b.other_ids) ? b.other_ids : {};
  const forms: string[] = [];
  for (const [k, v] of Object.entries(other)) {
    const vals = Array.isArray(v) ? v.map((x) => scalar(x)) : [scalar(v)];
    for (const x of vals) {
      if (!x) continue;
      if (/^doi$/i.test(k)) forms.push(`doi:${x}`);
      else if (/^arxiv$/i.test(k)) forms.push(`arXiv:${x}`);
      else if (/^openalex$/i.test(k)) forms.push(x);
    }
  }
  const title = oneLine(scalar(b.title));
  const identity = paperIdentity(forms, title);
  if (!identity) return null;
  const s2 = scalar(b.links);
  const authors = arr(b.authors).map(authorName).filter(Boolean);
  const display = [
    authors.length ? `${authors.slice(0, 3).join(", ")}${authors.length > 3 ? " et al." : ""}` : "",
    scalar(b.year),
    title,
    scalar(b.venue),
    ...identity.ids.filter((x) => !x.startsWith("paper:")),
  ]
    .filter(Boolean)
    .join(". ");
  const aliases = [...(identity.entity.aliases ?? []), ...(s2 ? [`CorpusId:${s2}`] : [])];
  return { identity: { ...identity, entity: { ...identity.entity, aliases } }, display: clip(display, 600), n };
}

interface Normalised {
  ids: string[];
  aliases: string[];
  title: string;
  abstract: string;
  authors: string[];
  year: string | null;
  validFrom: number | undefined;
  boundaries: string[];
  venue: string;
  paragraphs: Paragraph[];
  bibs: Map<string, Bib>;
  refEntries: JsonObject;
  unusableBibs: string[];
}

function normalise(rec: JsonObject): Normalised | string {
  const meta = isObject(rec.metadata) ? rec.metadata : rec;
  const parses = [rec.latex_parse, rec.grobid_parse, rec.pdf_parse].filter(isObject);
  const parse = parses.find((p) => arr(p.body_text).length > 0) ?? parses[0] ?? rec;
  const title = oneLine(scalar(meta.title) || scalar(rec.title));
  const isUnarxive = isObject(rec.metadata) && Array.isArray(rec.body_text) && typeof rec.paper_id === "string";
  const ids: string[] = [];
  const aliases: string[] = [];
  if (isUnarxive) ids.push(`arXiv:${scalar(rec.paper_id)}`);
  else if (scalar(rec.paper_id)) aliases.push(`CorpusId:${scalar(rec.paper_id)}`);
  if (scalar(meta.arxiv_id)) ids.push(`arXiv:${scalar(meta.arxiv_id)}`);
  if (scalar(meta.doi)) ids.push(`doi:${scalar(meta.doi)}`);
  for (const k of ["openalex_id", "open_alex_id"]) if (scalar(meta[k])) ids.push(scalar(meta[k]));
  if (!title && !ids.some((x) => canonicalPaperId(x)))
    return "no title (metadata.title) and no arXiv id, DOI or OpenAlex id";
  const abstractParts = isObject(rec.abstract)
    ? [scalar(rec.abstract.text)]
    : arr(parse.abstract).map((p) => (isObject(p) ? scalar(p.text) : scalar(p)));
  const abstract = oneLine(scalar(meta.abstract) || abstractParts.join(" ") || scalar(rec.abstract));
  const authorsRaw = Array.isArray(meta.authors_parsed) ? meta.authors_parsed : meta.authors;
  const authors =
    typeof authorsRaw === "string"
      ? authorsRaw.split(/,\s*|\s+and\s+/).map(oneLine)
      : arr(authorsRaw).map(authorName).filter(Boolean);
  const versions = arr(meta.versions);
  // Event time: unarXive's first version, else a publication date S2ORC-style records carry
  // (`publication_date`, `date`, else the year, as of 1 January), else none (the import time).
  const created = isObject(versions[0]) ? parseTime(scalar(versions[0].created)) : undefined;
  const published = publicationTime(
    scalar(meta.publication_date) || scalar(meta.date) || scalar(rec.publication_date) || scalar(meta.year) || null,
  );
  const validFrom = created ?? published;
  const year =
    yearOf(scalar(meta.year)) ?? (validFrom !== undefined ? String(new Date(validFrom).getUTCFullYear()) : null);
  const boundaries: string[] = [];
  if (year) boundaries.push(`year:${year}`);
  if (scalar(rec.discipline)) boundaries.push(`discipline:${scalar(rec.discipline)}`);
  for (const c of scalar(meta.categories).split(/\s+/).filter(Boolean).slice(0, 10)) boundaries.push(`arxiv:${c}`);
  const bibSource = isObject(parse.bib_entries) ? parse.bib_entries : isObject(rec.bib_entries) ? rec.bib_entries : {};
  const bibs = new Map<string, Bib>();
  const unusableBibs: string[] = [];
  let n = 0;
  for (const [key, b] of Object.entries(bibSource)) {
    n++;
    if (!isObject(b)) continue;
    const bib = "bib_entry_raw" in b ? unarxiveBib(key, b, n) : s2orcBib(b, n);
    if (bib) bibs.set(key, bib);
    else unusableBibs.push(key);
  }
  const paragraphs: Paragraph[] = [];
  for (const p of arr(parse.body_text)) {
    if (!isObject(p)) continue;
    const text = scalar(p.text);
    if (!text.trim()) continue;
    const cites: Cite[] = [];
    for (const c of arr(p.cite_spans)) {
      if (!isObject(c) || typeof c.start !== "number" || typeof c.end !== "number" || !scalar(c.ref_id)) continue;
      cites.push({ start: c.start, end: c.end, ref: scalar(c.ref_id) });
    }
    // unarXive marks citations in the text even when cite_spans is missing.
    if (!cites.length)
      for (const m of text.matchAll(/\{\{cite:([^}]+)\}\}/g))
        if (m[1]) cites.push({ start: m.index, end: m.index + m[0].length, ref: m[1] });
    const refs: string[] = [];
    for (const r of arr(p.ref_spans)) if (isObject(r) && scalar(r.ref_id)) refs.push(scalar(r.ref_id));
    for (const m of text.matchAll(/\{\{(?:figure|table):([^}]+)\}\}/g)) if (m[1]) refs.push(m[1]);
    for (const r of arr(p.eq_spans)) if (isObject(r) && scalar(r.ref_id)) refs.push(scalar(r.ref_id));
    const display: string[] = [];
    for (const m of text.matchAll(/^[ \t]*\{\{formula:([^}]+)\}\}[ \t]*$/gm)) if (m[1]) display.push(m[1]);
    const section = oneLine([scalar(p.sec_number), scalar(p.section)].filter(Boolean).join(" ")) || "Body";
    paragraphs.push({ section, text, cites, refs, display });
  }
  return {
    ids,
    aliases,
    title,
    abstract,
    authors,
    year,
    validFrom,
    boundaries,
    venue: oneLine(scalar(meta.venue) || scalar(meta.journal)),
    paragraphs,
    bibs,
    refEntries: isObject(rec.ref_entries) ? rec.ref_entries : isObject(parse.ref_entries) ? parse.ref_entries : {},
    unusableBibs,
  };
}

/**
 * The paper's elements: figures and tables in `ref_entries` order, then equations in text order
 * (S2ORC equation entries referenced from the text and unarXive display formulas; unreferenced
 * equation entries after them), at most MAX_EQUATION_ELEMENTS; `dropped` counts the equations past it.
 */
function elementsOf(p: Normalised): { elements: Map<string, Element>; dropped: number } {
  const elements = new Map<string, Element>();
  const count = { figure: 0, table: 0, equation: 0 };
  let dropped = 0;
  const typeOf = (key: string): string => {
    const e = p.refEntries[key];
    return isObject(e) ? scalar(e.type).toLowerCase() : "";
  };
  const addEquation = (key: string) => {
    if (elements.has(key)) return;
    const e = p.refEntries[key];
    const latex = isObject(e) ? oneLine(scalar(e.latex) || scalar(e.text)) : "";
    if (!latex) return;
    if (count.equation >= MAX_EQUATION_ELEMENTS) {
      dropped++;
      return;
    }
    count.equation++;
    elements.set(key, { key, type: "equation", n: count.equation, content: `$${clip(latex, 4000)}$` });
  };
  for (const [key, e] of Object.entries(p.refEntries)) {
    const type = typeOf(key);
    if (!isObject(e) || (type !== "figure" && type !== "table")) continue;
    count[type]++;
    const caption = oneLine(scalar(e.caption) || scalar(e.text));
    const label = `${ELEMENT_LABEL[type]} ${count[type]}`;
    elements.set(key, { key, type, n: count[type], content: caption ? clip(caption, 4000) : `${label} (no caption)` });
  }
  for (const para of p.paragraphs) {
    for (const key of para.refs) if (typeOf(key) === "equation") addEquation(key);
    for (const key of para.display) addEquation(key);
  }
  for (const key of Object.keys(p.refEntries)) if (typeOf(key) === "equation") addEquation(key);
  return { elements, dropped };
}

/** Sentence of `text` containing offset `at` (the cite span's start). */
function sentenceAt(text: string, at: number): string {
  for (const s of splitSentences(text)) if (at >= s.start && at < s.end) return s.text;
  return text;
}

/**
 * Parse unarXive / S2ORC full-text JSON, JSON arrays or JSONL. Fails (validation) when the text is not
 * JSON or when no record has the shape of a paper; single unusable records are skipped.
 */
/**
 * The chunk id the importer gives each bibliography entry of one record (entry key -> id), before
 * any merge with works stored under another id; null when the record is not a paper. Lets a caller
 * name a section's cited works the way an import of the same record does.
 */
export function bibliographyIds(record: Json): Map<string, string> | null {
  if (!isObject(record)) return null;
  const p = normalise(record);
  if (typeof p === "string") return null;
  return new Map([...p.bibs].map(([key, bib]) => [key, bib.identity.id]));
}

export function parseFullTextPapers(text: string, opts: FullTextOptions = {}): Result<FullTextPlan> {
  return runSync(parseFullTextPapersSliced(text, opts));
}

/** Bibliography stand-ins made between two yields. */
const STUB_SLICE = 200;

/** parseFullTextPapers, yielding after each paper (tens of ms each) and between slices of stand-ins. */
export function* parseFullTextPapersSliced(text: string, opts: FullTextOptions = {}): Sliced<Result<FullTextPlan>> {
  const src = opts.source ?? "fulltext";
  const start = startJsonPlan(text, src);
  if (!start.ok) return start;
  const { b, records } = start.value;
  const run: FullTextRun = { b, src, citationContexts: [], contextKeys: new Set<string>(), stubs: new Map() };
  let firstProblem: { ref: string; reason: string } | null = null;
  let usable = 0;
  yield;
  for (const { ref, value } of records) {
    yield;
    const where = `${src}#${ref}`;
    if (!isObject(value)) {
      firstProblem ??= { ref, reason: "not a JSON object" };
      b.skip(where, "not a JSON object");
      continue;
    }
    const p = normalise(value);
    if (typeof p === "string") {
      firstProblem ??= { ref, reason: p };
      b.skip(where, p);
      continue;
    }
    usable++;
    addPaperRecord(run, p, where);
  }
  yield* addStandIns(b, run.stubs);
  if (usable === 0)
    return fail(
      "validation",
      `no record has the shape of a paper (${firstProblem ? `${firstProblem.ref}: ${firstProblem.reason}` : "no records"})`,
      firstProblem?.ref === "record" ? "metadata.title" : (firstProblem?.ref ?? "text"),
      "send unarXive or S2ORC records: objects with metadata.title (or title) and body_text",
    );
  return ok({ ...b.plan, citationContexts: run.citationContexts });
}

/** What the records of one file share while they are planned. */
interface FullTextRun {
  b: PlanBuilder;
  src: string;
  citationContexts: CitationContext[];
  contextKeys: Set<string>;
  /** Works named by the bibliographies, first naming kept: id -> entry and the citing record. */
  stubs: Map<string, { bib: Bib; source: string }>;
}

/** One usable record: its paper chunk, section chunks and element chunks (or the reason it is skipped). */
function addPaperRecord(run: FullTextRun, p: Normalised, where: string): void {
  const { b, src, stubs } = run;
  const identity = paperIdentity(p.ids, p.title);
  if (!identity) {
    b.skip(where, "no usable title or identifier");
    return;
  }
  const pid = identity.id;
  if (b.has(pid)) {
    b.skip(where, `same chunk id ${pid} as an earlier record; kept the first`);
    return;
  }
  const title = p.title || pid;
  const { elements, dropped } = elementsOf(p);
  if (dropped > 0)
    b.skip(
      `${pid}#eq`,
      `${dropped} display equations past the first ${MAX_EQUATION_ELEMENTS} stay inline in their sections, not element chunks`,
    );
  /** Element key -> the section chunks that reference it, in section order. */
  const discussedIn = new Map<string, string[]>();
  for (const key of p.unusableBibs) b.skip(`${pid}#bib:${key}`, "bibliography entry with no identifier and no title");
  for (const bib of p.bibs.values())
    if (bib.identity.id !== pid && !stubs.has(bib.identity.id))
      stubs.set(bib.identity.id, { bib, source: `${src}#${pid}` });

  // Sections: runs of consecutive paragraphs with the same section name.
  const runs: SectionRun[] = [];
  for (const para of p.paragraphs) {
    const last = runs[runs.length - 1];
    if (last && last.name === para.section) last.paras.push(para);
    else runs.push({ name: para.section, paras: [para] });
  }
  const rec: RecordContext = { run, p, pid, title, elements, discussedIn, citedAnywhere: new Set<string>() };
  const sections = runs.map((r, i) => sectionChunk(rec, r, i));
  b.add(paperChunk(rec, identity), where);
  for (const s of sections) b.add(s, `${where}:${s.title}`);
  for (const el of elements.values()) {
    const label = `${ELEMENT_LABEL[el.type]} ${el.n}`;
    b.add(
      {
        id: elementId(pid, el.type, el.n),
        kind: "element",
        title: `${clip(title, 150)}: ${label}`,
        content: el.content,
        boundaries: [`element:${el.type}`],
        edges: [
          { type: "part-of", target: pid },
          ...(discussedIn.get(el.key) ?? []).map((sec) => ({ type: "discussed-in" as const, target: sec })),
        ],
        ...(p.validFrom !== undefined ? { valid_from: p.validFrom } : {}),
        source: `${src}#${pid}`,
      },
      `${where}:${label}`,
    );
  }
}

/** Consecutive paragraphs with the same section name. */
interface SectionRun {
  name: string;
  paras: Paragraph[];
}

/** One record being planned: its paper id and title, elements, and what its sections have cited so far. */
interface RecordContext {
  run: FullTextRun;
  p: Normalised;
  pid: string;
  title: string;
  elements: Map<string, Element>;
  discussedIn: Map<string, string[]>;
  citedAnywhere: Set<string>;
}

/** The section chunk of the i-th run; records its citation contexts, the elements it discusses and the entries it cites. */
function sectionChunk(rec: RecordContext, run: SectionRun, i: number) {
  const { p, pid, title, elements, discussedIn, citedAnywhere } = rec;
  const { src, contextKeys, citationContexts } = rec.run;
  const id = `${pid}#s${i + 1}${slug(run.name) ? `-${slug(run.name).slice(0, 48)}` : ""}`;
  const entities: EntityInput[] = [];
  const edges: EdgeInput[] = [{ type: "part-of", target: pid }];
  const cited = new Map<string, Bib>();
  for (const para of run.paras)
    for (const c of para.cites) {
      const bib = p.bibs.get(c.ref);
      if (!bib || bib.identity.id === pid) continue;
      const sentence = clip(oneLine(render(sentenceAt(para.text, c.start), p.refEntries, p.bibs, elements)), 1000);
      const ctxKey = `${id}\u0000${bib.identity.id}\u0000${sentence}`;
      if (sentence && !contextKeys.has(ctxKey)) {
        contextKeys.add(ctxKey);
        citationContexts.push({ src: id, dst: bib.identity.id, sentence });
      }
      if (cited.has(c.ref)) continue;
      cited.set(c.ref, bib);
      citedAnywhere.add(c.ref);
    }
  for (const para of run.paras)
    for (const key of [...para.refs, ...para.display]) {
      if (!elements.has(key)) continue;
      const l = discussedIn.get(key) ?? [];
      if (l[l.length - 1] !== id) l.push(id);
      discussedIn.set(key, l);
    }
  const seen = new Set<string>();
  for (const bib of cited.values()) {
    if (seen.has(bib.identity.id)) continue;
    seen.add(bib.identity.id);
    entities.push(bib.identity.entity);
    edges.push({ type: "cites", target: bib.identity.id });
  }
  const body = run.paras.map((x) => render(x.text, p.refEntries, p.bibs, elements).trim()).join("\n\n");
  const refList = [...cited.values()].sort((a, z) => a.n - z.n).map((x) => `[${x.n}] ${x.display}`);
  return {
    id,
    kind: "section" as const,
    title: `${clip(title, 150)}: ${run.name}`,
    content: refList.length ? `${body}\n\nCited in this section:\n${refList.join("\n")}` : body,
    entities,
    edges,
    ...(p.validFrom !== undefined ? { valid_from: p.validFrom } : {}),
    source: `${src}#${pid}`,
  };
}

/** The paper chunk; works in the bibliography but cited nowhere in the body are cited by the paper as a whole. */
function paperChunk(rec: RecordContext, identity: PaperIdentity) {
  const { p, pid, title, citedAnywhere } = rec;
  const paperEntities: EntityInput[] = [
    { ...identity.entity, aliases: [...(identity.entity.aliases ?? []), ...p.aliases] },
    ...p.authors.map((name) => personEntity(name)).filter((e): e is EntityInput => e !== null),
    ...(p.venue ? [{ type: "venue" as const, id: `venue:${slug(p.venue).slice(0, 200)}`, name: p.venue }] : []),
  ];
  const paperEdges: EdgeInput[] = [];
  const seen = new Set<string>();
  for (const [key, bib] of p.bibs) {
    if (citedAnywhere.has(key) || bib.identity.id === pid || seen.has(bib.identity.id)) continue;
    seen.add(bib.identity.id);
    paperEntities.push(bib.identity.entity);
    paperEdges.push({ type: "cites", target: bib.identity.id });
  }
  return {
    id: pid,
    kind: "paper" as const,
    title,
    content: p.abstract || title,
    entities: paperEntities,
    edges: paperEdges,
    boundaries: p.boundaries,
    ...(p.validFrom !== undefined ? { valid_from: p.validFrom } : {}),
    source: `${rec.run.src}#${pid}`,
  };
}

/**
 * Every work a bibliography names becomes a `paper` chunk of its own, so a section's references
 * are retrievable heads the `cites` edges reach (not only entity names). A stand-in is created
 * only when the id holds nothing yet (placeholder): a record of the work, in this file or stored,
 * always wins. Its text is the entry as the citing paper wrote it; it is valid from the epoch,
 * since the work predates every citation of it and its own record, imported later with its real
 * date, must be a later version.
 */
function* addStandIns(b: PlanBuilder, stubs: FullTextRun["stubs"]): Sliced<void> {
  const slice = slicer(STUB_SLICE);
  for (const [id, w] of stubs) {
    yield* slice();
    if (b.has(id)) continue;
    b.add(
      {
        id,
        kind: "paper",
        title: w.bib.identity.entity.name || w.bib.display,
        content: w.bib.display,
        entities: [w.bib.identity.entity],
        boundaries: [REFERENCE_ONLY],
        valid_from: 0,
        source: w.source,
        placeholder: true,
      },
      `${w.source}:bib`,
    );
  }
}
