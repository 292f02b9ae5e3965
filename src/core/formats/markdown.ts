/**
 * Markdown papers -> one `paper` chunk (the whole document, byte-exact) plus one `section` chunk per
 * `##`/`###` heading, each holding the exact substring of the document it covers, with the span
 * recorded in `source` as `<source>#chars=START-END` ([start, end) offsets into the original text),
 * so a card anchored in a section can be traced back to the file.
 *
 * Accepted input:
 * - optional YAML-style front matter at the very start (`---` ... `---` or `...`), read as flat
 *   `key: value` lines: `title`, `doi`, `arxiv`, `openalex`, `date`/`year` (anything else is ignored;
 *   no nested YAML, so no YAML dependency);
 * - title = front matter `title:`, else the first `# ` heading;
 * - sections = ATX headings of level 2 and 3 outside fenced code blocks (``` or ~~~, CommonMark rules
 *   for closing fences); a section runs from its heading line to the next heading of level 1-3, so
 *   sections never overlap and `###` sections are `part-of` both the paper and their `##` section.
 *   Setext headings (underlined with === / ---) are not sections: they are rare in papers converted
 *   to Markdown and a `---` line is more often a thematic break.
 * - a "References" / "Bibliography" / "Works Cited" / "Literature Cited" heading (any level 1-3, with
 *   or without a number): every entry becomes a `cites` edge from the paper and a paper entity on it.
 *   See parseReference for how an entry is resolved.
 *
 * The publication date (`date:`) is NOT used as valid_from: a version dated before the version the
 * archive already holds would be rejected as a conflict (versions never overlap), so it becomes a
 * `year:YYYY` boundary instead and the version starts at ingest time.
 *
 * This file also holds the small helpers every importer shares (limits, fitting an artifact to the
 * ingest schema, reference-string parsing); they have no dependencies beyond src/core.
 */
import { fail, ok, type Result } from "../errors";
import { findIdentifiers, slug } from "../ids";
import { type ArtifactInput, deriveSynopsis, type EdgeInput, type EntityInput, INGEST_LIMITS } from "../ingest";
import { paperIdentity } from "./paper";
import type { ImportPlan } from "./types";

// ---------------------------------------------------------------------------------------------
// Shared by the importers (bibtex.ts, fulltext.ts, xkg.ts)
// ---------------------------------------------------------------------------------------------

/** The HTTP ingest schema's limits (src/http/schemas.ts): importers cap to them instead of failing. */
export const LIMITS = {
  artifactId: 512,
  title: 1000,
  synopsis: 2000,
  source: 2000,
  entityId: 300,
  entityName: 300,
  aliasesPerEntity: 50,
  boundaries: 100,
  boundary: 200,
  edgeTarget: 512,
  content: INGEST_LIMITS.maxContentChars,
  entities: INGEST_LIMITS.maxEntitiesPerArtifact,
  edges: INGEST_LIMITS.maxEdgesPerArtifact,
} as const;

export type Skipped = ImportPlan["skipped"];

/** Cut to at most `max` UTF-16 units without leaving half of a surrogate pair at the end. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** Collapse whitespace runs (titles and names come with line breaks from BibTeX and JSON dumps). */
export function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

function fitEntity(e: EntityInput): EntityInput | null {
  if (e.id !== undefined && (e.id.length === 0 || e.id.length > LIMITS.entityId)) return null;
  const name = clip(oneLine(e.name), LIMITS.entityName) || e.id;
  if (!name) return null;
  const aliases = [
    ...new Set((e.aliases ?? []).map((a) => clip(oneLine(a), LIMITS.entityName)).filter((a) => a && a !== name)),
  ].slice(0, LIMITS.aliasesPerEntity);
  return { type: e.type, ...(e.id !== undefined ? { id: e.id } : {}), name, ...(aliases.length ? { aliases } : {}) };
}

/**
 * Fit an artifact to the ingest schema (lengths, counts, no empty content, no self-edges). Returns null
 * (and records why) only when the id itself is unusable; everything else is clipped or capped and the
 * loss is reported in `skipped`, never silently.
 */
export function fitArtifact(a: ArtifactInput, skipped: Skipped): ArtifactInput | null {
  if (!a.id || a.id.length > LIMITS.artifactId) {
    skipped.push({
      ref: clip(a.id, 200),
      reason: `artifact id is empty or longer than ${LIMITS.artifactId} characters`,
    });
    return null;
  }
  const title = clip(oneLine(a.title), LIMITS.title) || a.id.slice(0, LIMITS.title);
  let content = a.content.trim() ? a.content : title;
  if (content.length > LIMITS.content) {
    skipped.push({
      ref: a.id,
      reason: `content truncated from ${content.length} to ${LIMITS.content} characters (the ingest limit)`,
    });
    content = clip(content, LIMITS.content);
  }
  const entities: EntityInput[] = [];
  for (const e of a.entities ?? []) {
    const f = fitEntity(e);
    if (f) entities.push(f);
  }
  if (entities.length > LIMITS.entities)
    skipped.push({ ref: a.id, reason: `kept ${LIMITS.entities} of ${entities.length} entities (the ingest limit)` });
  const edges: EdgeInput[] = [];
  const seen = new Set<string>();
  for (const e of a.edges ?? []) {
    const key = `${e.type}\u0000${e.target}`;
    // A self-edge fails the whole batch in prepareBatch (a paper listing itself in its references).
    if (!e.target || e.target === a.id || e.target.length > LIMITS.edgeTarget || seen.has(key)) continue;
    seen.add(key);
    // The ingest schema caps an edge's context (e.g. the citing sentence) at 1,000 characters.
    edges.push(e.context && e.context.length > 1000 ? { ...e, context: clip(e.context, 1000) } : e);
  }
  if (edges.length > LIMITS.edges)
    skipped.push({ ref: a.id, reason: `kept ${LIMITS.edges} of ${edges.length} edges (the ingest limit)` });
  const boundaries = [
    ...new Set((a.boundaries ?? []).map((b) => clip(b.trim(), LIMITS.boundary)).filter(Boolean)),
  ].slice(0, LIMITS.boundaries);
  const synopsis = a.synopsis === undefined ? undefined : clip(a.synopsis.trim(), LIMITS.synopsis);
  return {
    id: a.id,
    kind: a.kind,
    title,
    ...(synopsis ? { synopsis } : {}),
    content,
    ...(entities.length ? { entities: entities.slice(0, LIMITS.entities) } : {}),
    ...(boundaries.length ? { boundaries } : {}),
    ...(edges.length ? { edges: edges.slice(0, LIMITS.edges) } : {}),
    ...(a.valid_from !== undefined ? { valid_from: a.valid_from } : {}),
    ...(a.source ? { source: clip(a.source, LIMITS.source) } : {}),
  };
}

/**
 * Adds fitted artifacts to a plan, keeping ids unique (prepareBatch rejects a batch that repeats an
 * id): a second record for the same chunk id is skipped with the reason.
 */
export class PlanBuilder {
  readonly plan: ImportPlan = { artifacts: [], deprecations: [], skipped: [] };
  private readonly ids = new Map<string, string>();

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(a: ArtifactInput, ref: string): boolean {
    const prev = this.ids.get(a.id);
    if (prev !== undefined) {
      this.plan.skipped.push({ ref, reason: `same chunk id ${a.id} as ${prev} (the same work twice); kept the first` });
      return false;
    }
    const fitted = fitArtifact(a, this.plan.skipped);
    if (!fitted) return false;
    this.ids.set(a.id, ref);
    this.plan.artifacts.push(fitted);
    return true;
  }

  skip(ref: string, reason: string): void {
    this.plan.skipped.push({ ref: clip(ref, 300), reason });
  }
}

/** Synopsis from a passage, by ingest's own rule (first 3 sentences, at most 120 tokens). */
export function synopsisOf(title: string, passage: string): string | undefined {
  const text = passage.trim();
  return text ? clip(deriveSynopsis(title, text), LIMITS.synopsis) : undefined;
}

/** A year (1000-2999) found at the start of a date string: "2024-05-01", "May 2024", "2024". */
export function yearOf(date: string | number | null | undefined): string | null {
  if (date === null || date === undefined) return null;
  const m = /\b([12]\d{3})\b/.exec(String(date));
  return m?.[1] ?? null;
}

// Reference strings --------------------------------------------------------------------------

export interface ParsedReference {
  /** Canonical paper ids found in the entry (DOI, arXiv, OpenAlex), in order of appearance. */
  ids: string[];
  /** Best guess at the cited work's title, or null. */
  title: string | null;
  /** The entry with markup removed, one line. */
  text: string;
}

/** Markdown/LaTeX/list noise around a reference: list markers, [12], 12., emphasis, links, ``quotes'', ~. */
function cleanReference(raw: string): string {
  return oneLine(
    raw
      .replace(/^\s*(?:[-*+]|\d+[.)]|\[\d+\])\s+/, "")
      .replace(/!?\[([^\]]*)\]\(([^)\s]*)\)/g, "$1 $2")
      .replace(/``|''/g, '"')
      .replace(/(\*\*|__|\*|`)/g, "")
      .replace(/(^|\s)_([^_]+)_(?=\s|[.,;:]|$)/g, "$1$2")
      .replace(/~/g, " "),
  );
}

// Initials ("J", "S.-S", "Q.H") and abbreviations after which a period does not end a segment.
const INITIAL = /^(?:\p{Lu}[.-]*){1,4}$/u;
const ABBREV = /^(?:al|et|eds?|vol|no|pp|proc|conf|jr|sr|st|dr|inc|univ|dept|int|intl|trans|rev|phys|lett)$/i;
/** "Lubliner, J. Plasticity Theory." puts initials after the surname, so an initial can end the authors. */
const SURNAME_FIRST = /^\p{Lu}[\p{L}'’-]+(?:\s\p{L}[\p{L}'’-]+)?,\s+\p{Lu}\./u;
/** What may follow an initial inside an author list: another initial, "and", "&", "et al", "(2020)". */
const AUTHOR_CONTINUES = /^\s(?:\p{Lu}[.-]|and\b|&|et\b|\()/u;

/** Split a reference into period-terminated segments, not splitting after initials or abbreviations. */
function segments(s: string): string[] {
  const out: string[] = [];
  const surnameFirst = SURNAME_FIRST.test(s);
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== "." && c !== "?" && c !== "!") continue;
    const next = s[i + 1];
    if (next !== undefined && next !== " ") continue;
    if (c === ".") {
      const word = /(\S+)$/.exec(s.slice(start, i))?.[1] ?? "";
      if (INITIAL.test(word)) {
        if (!surnameFirst || AUTHOR_CONTINUES.test(s.slice(i + 1, i + 6))) continue;
      } else if (ABBREV.test(word)) continue;
    }
    // Keep ? and ! with the title they end ("Can agents reproduce papers?"); drop the period.
    const seg = s.slice(start, c === "." ? i : i + 1).trim();
    if (seg) out.push(seg);
    start = i + 1;
  }
  const rest = s.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

const YEAR_SEG = /^\(?[12]\d{3}[a-z]?\)?[.,:]?$/;
const ENDS_WITH_YEAR = /\(([12]\d{3})[a-z]?\)$/;

function plausibleTitle(s: string | undefined): string | null {
  if (!s) return null;
  const t = s.replace(/^[\s,;:]+|[\s,;:]+$/g, "");
  // At least two words and 10 characters; venue/locator segments are not titles.
  if (t.length < 10 || !/\p{L}{3,}.*\s.*\p{L}{3,}/u.test(t)) return null;
  if (/^(in\s|arxiv|doi|https?:|available|retrieved|proceedings|preprint|pages?\s|pp\s)/i.test(t)) return null;
  // Locators, not titles: "vol. 62", "19 (2021)", "1(8):9", "PhD thesis", "in preparation", "Journal 120, 8186".
  if (
    /\b(vol|no|pp|pages)\b\.?\s*\d|\d\s*\(\d{4}\)|\d\(\d+\)|:\d|\bthesis\b|in preparation|\bblog\b|\bMR \d/i.test(t) ||
    /\s\d+,\s*\S*\d$/.test(t)
  )
    return null;
  return t;
}

// Physics/maths comma style: "A. B. Author, C. Author, and D. Author, Title, Venue 12, 345 (2019)."
const AUTHOR = String.raw`(?:\p{Lu}[.\-]+\s?)+(?:\p{Ll}+\s)?\p{Lu}[\p{L}'’-]+(?:\s\p{Lu}[\p{L}'’-]+)?`;
const COMMA_AUTHORS = new RegExp(String.raw`^(?:${AUTHOR}(?:,\s(?:and\s)?|\sand\s))*${AUTHOR}(?:\set al\.)?,\s`, "u");
const COMMA_TITLE_END = /,\s(?:in\s)|\s\(\d{4}[a-z]?\)|,\s(?=[^,]*\s\d+,\s\d)/;

function looksLikeAuthors(s: string): boolean {
  return /,|\band\b|&|et al/.test(s) || s.split(" ").length <= 6;
}

/**
 * Parse one bibliography entry. Identifiers come from findIdentifiers (DOI, arXiv, OpenAlex, in any
 * written form). The title is guessed, in this order:
 * 1. a quoted title: `A. Author, "Title of the work," Venue, 2020` (IEEE style, straight or curly quotes);
 * 2. author-year styles: the segment after the year, `Authors. 2020. Title. Venue.` (ACL) or
 *    `Authors (2020). Title. Venue.` (APA);
 * 3. `Authors. Title. Venue, 2020.` (most others): the second period-separated segment when the first
 *    looks like an author list (commas, "and", "et al.", or at most 6 words);
 * 4. physics/maths comma style `A. B. Author and C. Author, Title, Venue 12, 345 (2019).`: the text
 *    after an initials-first author list, up to ", in", " (2019)" or ", Venue 12, 345";
 * where segments split at a period + space that does not follow an initial ("Q. H. Nguyen") or a
 * common abbreviation ("et al.", "Proc."), and a title must have at least two words and 10 characters
 * and must not start like a venue or locator ("In ", "arXiv", "doi", "pp"). Otherwise null.
 */
export function parseReference(raw: string): ParsedReference {
  const text = cleanReference(raw);
  const ids = findIdentifiers(text).map((x) => x.id);
  const quoted = /["“”]([^"“”]{8,}?)[,.]?["“”]/.exec(text)?.[1];
  let title = plausibleTitle(quoted);
  if (!title) {
    const segs = segments(text);
    const yearAt = segs.findIndex((x) => YEAR_SEG.test(x));
    if (yearAt >= 1 && yearAt <= 2) title = plausibleTitle(segs[yearAt + 1]);
    else if (segs[0] && ENDS_WITH_YEAR.test(segs[0])) title = plausibleTitle(segs[1]);
    else if (segs[0] && segs.length >= 2 && looksLikeAuthors(segs[0])) title = plausibleTitle(segs[1]);
  }
  if (!title) {
    const authors = COMMA_AUTHORS.exec(text);
    if (authors) title = plausibleTitle(text.slice(authors[0].length).split(COMMA_TITLE_END)[0]?.replace(/\.$/, ""));
  }
  return { ids, title: title ? clip(title, LIMITS.title) : null, text };
}

// ---------------------------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------------------------

interface Heading {
  level: number;
  text: string;
  /** Offset of the first character of the heading line. */
  start: number;
  /** Offset just after the heading line (after its newline, if any). */
  bodyStart: number;
}

interface FrontMatter {
  fields: Map<string, string>;
  /** Offset where the document after the front matter starts. */
  end: number;
}

function readFrontMatter(text: string): FrontMatter | { error: string; line: number } | null {
  const first = /^---[ \t]*\r?\n/.exec(text);
  if (!first) return null;
  const fields = new Map<string, string>();
  let pos = first[0].length;
  let line = 2;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    const end = nl < 0 ? text.length : nl + 1;
    const l = text.slice(pos, nl < 0 ? text.length : nl).replace(/\r$/, "");
    if (/^(---|\.\.\.)[ \t]*$/.test(l)) return { fields, end };
    const m = /^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*)$/.exec(l);
    if (m?.[1] && m[2] !== undefined) {
      const v = m[2].trim().replace(/^(["'])(.*)\1$/, "$2");
      if (v) fields.set(m[1].toLowerCase(), v);
    }
    pos = end;
    line++;
  }
  return { error: "front matter opened with --- is never closed", line };
}

/** ATX headings outside fenced code blocks, with exact offsets. */
function scanHeadings(text: string, from: number): Heading[] {
  const out: Heading[] = [];
  let fence: { char: string; len: number } | null = null;
  let pos = from;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    const next = nl < 0 ? text.length : nl + 1;
    const line = text.slice(pos, nl < 0 ? text.length : nl).replace(/\r$/, "");
    const f = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence) {
      // CommonMark: a closing fence uses the same character, at least as many, and nothing after it.
      if (f?.[1] && f[1][0] === fence.char && f[1].length >= fence.len && !f[2]?.trim()) fence = null;
    } else if (f?.[1] && !(f[1][0] === "`" && f[2]?.includes("`"))) {
      fence = { char: f[1][0] ?? "`", len: f[1].length };
    } else {
      const h = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/.exec(line);
      if (h?.[1]) {
        const t = (h[2] ?? "").replace(/(?:^|[ \t]+)#+[ \t]*$/, "").trim();
        out.push({ level: h[1].length, text: t, start: pos, bodyStart: next });
      }
    }
    pos = next;
  }
  return out;
}

/** Strip heading markers and emphasis so a synopsis reads as prose. */
function prose(md: string): string {
  return md
    .split("\n")
    .filter((l) => !/^\s{0,3}#/.test(l))
    .join("\n")
    .replace(/(\*\*|__|`)/g, "")
    .trim();
}

const REFERENCES_HEADING = /^(references|bibliography|works cited|literature cited|reference list)$/i;

function headingName(h: string): string {
  // "7 References", "7. References", "VII. References", "**References**"
  return h
    .replace(/[*_]/g, "")
    .replace(/^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.)\s+/, "")
    .trim();
}

/** Bibliography entries: list items (a lowercase-initial item continues the previous one), else paragraphs. */
function referenceEntries(body: string): string[] {
  const lines = body.split("\n");
  const marker = /^\s{0,3}(?:[-*+]|\d+[.)]|\[\d+\])\s+/;
  if (lines.some((l) => marker.test(l))) {
    const items: string[][] = [];
    for (const l of lines) {
      const cur = items[items.length - 1];
      if (marker.test(l)) {
        const rest = l.replace(marker, "");
        // PDF-to-Markdown converters break one entry into two items at a page break; the second
        // then starts in lowercase ("- implement ai research extensions? arXiv preprint ...").
        if (cur && /^\p{Ll}/u.test(rest)) cur.push(rest);
        else items.push([rest]);
      } else if (cur && l.trim()) cur.push(l);
    }
    return items.map((x) => x.join(" "));
  }
  return body
    .split(/\n[ \t]*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}

export interface MarkdownOptions {
  /** Chunk id for the paper when it has no DOI/arXiv/OpenAlex id (default: `paper:<title slug>`). */
  id?: string;
  /** Where the text came from (file path or URL); spans are recorded as `<source>#chars=S-E`. */
  source?: string;
}

/**
 * Parse a Markdown paper. Fails (validation) on an empty document, an unclosed front matter block or a
 * document with neither a title nor an identifier; everything else produces a plan.
 */
export function parseMarkdownPaper(text: string, opts: MarkdownOptions = {}): Result<ImportPlan> {
  if (!text.trim())
    return fail("validation", "the Markdown document is empty", "text", "send the paper's Markdown text");
  const fm = readFrontMatter(text);
  if (fm && "error" in fm)
    return fail(
      "validation",
      `${fm.error} (reached line ${fm.line}, the end of the document)`,
      "front_matter",
      "close the front matter with a line containing only ---",
    );
  const fields = fm?.fields ?? new Map<string, string>();
  const bodyFrom = fm?.end ?? 0;
  const headings = scanHeadings(text, bodyFrom);
  const h1 = headings.find((h) => h.level === 1 && h.text);
  const title = oneLine(fields.get("title") ?? h1?.text ?? "");
  const rawIds = [fields.get("arxiv"), fields.get("doi"), fields.get("openalex"), opts.id];
  const identity = paperIdentity(
    rawIds.map((x) => (x && /^\d{4}\.\d{4,5}(v\d+)?$/.test(x) ? `arXiv:${x}` : x)),
    title,
  );
  const canonical = identity !== null && !identity.id.startsWith("paper:");
  if (!identity || (!title && !canonical))
    return fail(
      "validation",
      "the Markdown document has no title: no front matter title: and no '# ' heading",
      "title",
      "start the document with a '# Title' line or a front matter block with title:",
    );
  // A DOI/arXiv/OpenAlex id names the chunk; else an explicit id (e.g. "doc:notes-2024"); else the title slug.
  const paperId = canonical ? identity.id : (opts.id ?? identity.id);
  const src = opts.source ?? "markdown";
  const b = new PlanBuilder();

  // Sections: ## and ### headings, each up to the next heading of level <= 3.
  const structural = headings.filter((h) => h.level <= 3);
  const sectionArtifacts: ArtifactInput[] = [];
  let parentH2: string | null = null;
  let n = 0;
  let abstract: string | null = null;
  let refs: string[] = [];
  for (const [i, h] of structural.entries()) {
    const end = structural[i + 1]?.start ?? text.length;
    const name = headingName(h.text);
    if (REFERENCES_HEADING.test(name)) refs = refs.concat(referenceEntries(text.slice(h.bodyStart, end)));
    if (h.level === 1) {
      parentH2 = null;
      continue;
    }
    if (/^abstract$/i.test(name) && abstract === null) abstract = text.slice(h.bodyStart, end);
    n++;
    const s = slug(h.text).slice(0, 48);
    const id = `${paperId}#s${n}${s ? `-${s}` : ""}`;
    // Keep content an exact slice even when a single section exceeds the 2 MiB content limit.
    const stop = Math.min(end, h.start + LIMITS.content);
    const edges: EdgeInput[] = [{ type: "part-of", target: paperId }];
    if (h.level === 3 && parentH2) edges.push({ type: "part-of", target: parentH2 });
    if (h.level === 2) parentH2 = id;
    sectionArtifacts.push({
      id,
      kind: "section",
      title: `${clip(title || paperId, 150)}: ${h.text || `section ${n}`}`,
      content: text.slice(h.start, stop),
      edges,
      source: `${src}#chars=${h.start}-${stop}`,
    });
  }

  // References -> paper entities and cites edges on the paper artifact.
  const entities: EntityInput[] = [{ ...identity.entity, id: paperId }];
  const edges: EdgeInput[] = [];
  const cited = new Set<string>();
  for (const [i, raw] of refs.entries()) {
    const r = parseReference(raw);
    const ref = paperIdentity(r.ids, r.title ?? "");
    if (!ref || (!r.ids.length && !r.title)) {
      b.skip(
        `${src}#references.${i + 1}`,
        `no DOI, arXiv or OpenAlex id and no recognisable title in "${clip(r.text, 120)}"`,
      );
      continue;
    }
    if (ref.id === paperId || cited.has(ref.id)) continue;
    cited.add(ref.id);
    entities.push({ ...ref.entity, name: r.title ?? clip(r.text, LIMITS.entityName) });
    edges.push({ type: "cites", target: ref.id });
  }

  const year = yearOf(fields.get("date") ?? fields.get("year"));
  const firstSection = structural.find((h) => h.level > 1);
  const lead = abstract ?? text.slice(h1?.bodyStart ?? bodyFrom, firstSection?.start ?? text.length);
  const synopsis = synopsisOf(title, prose(lead)) ?? synopsisOf(title, prose(text.slice(bodyFrom)));
  b.add(
    {
      id: paperId,
      kind: "paper",
      title: title || paperId,
      ...(synopsis ? { synopsis } : {}),
      content: text,
      entities,
      edges,
      ...(year ? { boundaries: [`year:${year}`] } : {}),
      source: src,
    },
    src,
  );
  for (const s of sectionArtifacts) b.add(s, s.source ?? src);
  return ok(b.plan);
}
