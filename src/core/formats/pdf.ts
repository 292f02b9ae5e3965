/**
 * PDF text layers -> a `paper` chunk, `section` chunks (`part-of` the paper) and figure / table
 * `element` chunks (captions), with the page of every span kept.
 *
 * Input: the positioned text items of each page (what pdf.js's getTextContent gives, read by
 * src/app/intake/pdf.ts) and the document information dictionary. Pure and linear in the number of
 * items (one sort per page).
 *
 * Reading order. Items on one baseline are joined into fragments; a horizontal gap wider than 1.2x
 * the font size ends a fragment, so the two halves of a two-column line stay apart. A page is two
 * columns when at least 20% of its characters lie wholly left of the middle and 20% wholly right;
 * then fragments that cross the middle (a title, a full-width figure caption) cut the page into
 * bands, and each band is read left column then right column, top to bottom.
 *
 * Dropped: running headers and footers (a fragment in the top or bottom 10% of the page that is a
 * page number, or whose text with digits masked recurs on at least 40% of the pages and at least
 * 2), rotated text (the arXiv side stamp; an arXiv id in it becomes the paper's id), and figure
 * labels (lines under 40 characters set at most 0.85x the body size: axis ticks and legends).
 *
 * Structure. The title is the metadata Title when it reads like one, else the largest text on page
 * 1 (those lines are never body text). A heading is a short line set at 1.1x the body size or more,
 * a numbered line ("3", "3.2", "IV.", "A.") of at most 12 words with no final period, or a bare
 * Abstract / Introduction / References / ... line; each starts a section chunk
 * `<paper>#s<n>-<slug>`. The Abstract becomes the paper chunk's content (else the front matter
 * before the first heading), followed by the front-matter lines as `Authors: ...`. A line opening
 * with "Figure n" / "Fig. n" / "Table n" and the lines of its size that follow it form a caption:
 * an element chunk `<paper>#fig<n>` / `#tab<n>` (n in order), taken out of the section it
 * interrupts, `discussed-in` every section whose text names it ("Figure 1", "Fig. 1", "Table 1").
 * Lines join with a space, paragraphs (a vertical gap over 1.3x the usual line spacing) with a
 * blank line. A word split by a hyphen at a line end is joined without it when the next line
 * starts in lower case, unless the document elsewhere writes the hyphenated form and never the
 * joined one ("long-horizon" stays).
 *
 * Paper Circle's structure (seed 004 §3.4, rules in ./pdf-structure.ts): a numbered section is also
 * `part-of` the nearest earlier section whose number is its parent's ("2.1" -> "2"); a display
 * equation line becomes an element `<paper>#eq<n>` (boundary `element:equation`) `discussed-in` its
 * section; a section over 1,500 characters also gets passages `<section>#p<k>` (kind `record`,
 * boundary `passage`, `part-of` the section), its paragraphs grouped up to 1,500 characters with
 * their own page marks; inside the References only a named heading or larger text starts a section,
 * and its entries with an identifier become the paper's `cites` edges (the others are returned in
 * `references` for the importer to match by title).
 *
 * Pages. Each chunk's boundaries hold `page:<n>` (the page its content starts on) and
 * `page:<n>@<offset>` for every later page its content reaches (the character offset in the
 * content where that page's text starts). Boundaries are part of each version's stored metadata,
 * so they travel with the version through re-imports, as-of reads, dumps and deletes; `pageMarks`
 * and `pageAt` read them back.
 */
import { fail, ok, type Result } from "../errors";
import { canonicalPaperId, slug } from "../ids";
import type { EdgeInput, EntityInput } from "../ingest";
import { runSync, type Sliced, slicer } from "../pace";
import { clip, oneLine, PlanBuilder, personEntity } from "./common";
import { paperIdentity } from "./paper";
import { fragments, type Line, type PdfPage, r1, withoutRunningHeads } from "./pdf-layout";
import {
  displayEquation,
  type PdfReference,
  parentNumber,
  parseReferences,
  passages,
  REFERENCES_HEADING,
  sectionNumber,
} from "./pdf-structure";
import type { ImportPlan } from "./types";

export type { PdfPage, PdfTextItem } from "./pdf-layout";

export interface PdfInfo {
  title?: string | undefined;
  author?: string | undefined;
  subject?: string | undefined;
  keywords?: string | undefined;
  /** epoch ms of the CreationDate, when it parses. */
  created?: number | undefined;
}

export interface PdfDocument {
  pages: PdfPage[];
  info: PdfInfo;
}

export interface PdfOptions {
  /** File name, recorded as `<source>#<paper id>`; its stem is the title of last resort. */
  source?: string;
}

export const ELEMENT_PREFIX = { figure: "fig", table: "tab" } as const;
/** Display equations kept as elements per PDF (the first ones, in reading order). */
export const MAX_PDF_EQUATIONS = 100;

/**
 * A PDF's plan and its References entries: those with an identifier are already `cites` edges of
 * the paper chunk (`cited`: the edge's target); the others (`cited` null) are for the importer to
 * match against the archive by title, else to keep as unresolved references.
 */
export type PdfPlan = ImportPlan & {
  paper: string;
  references: Array<PdfReference & { cited: string | null }>;
};

// ---------------------------------------------------------------------------------------------
// Page marks
// ---------------------------------------------------------------------------------------------

export interface PageMark {
  page: number;
  /** Character offset in the version's content where this page's text starts. */
  offset: number;
}

const PAGE_TAG = /^page:(\d{1,5})(?:@(\d{1,9}))?$/;

/** Boundaries of a chunk's page marks (see the module comment). */
export function pageBoundaries(marks: PageMark[]): string[] {
  return marks.map((m, i) => (i === 0 ? `page:${m.page}` : `page:${m.page}@${m.offset}`));
}

/** The page marks a version's boundaries hold, by offset; empty when it has none (not from a PDF). */
export function pageMarks(boundaries: readonly string[]): PageMark[] {
  const marks: PageMark[] = [];
  for (const b of boundaries) {
    const m = PAGE_TAG.exec(b);
    if (m) marks.push({ page: Number(m[1]), offset: m[2] === undefined ? 0 : Number(m[2]) });
  }
  return marks.sort((a, z) => a.offset - z.offset || a.page - z.page);
}

/** The page of the character at `offset`; null when there are no marks. */
export function pageAt(marks: readonly PageMark[], offset: number): number | null {
  let page: number | null = null;
  for (const m of marks) {
    if (m.offset > offset) break;
    page = m.page;
  }
  return page ?? marks[0]?.page ?? null;
}

// ---------------------------------------------------------------------------------------------
// Structure
// ---------------------------------------------------------------------------------------------

const CAPTION = /^(fig(?:ure)?\.?|table)\s*(\d+|[ivx]+)\s*[:.|–—-]/i;
const NUMBERED_HEADING = /^((\d+(\.\d+){0,3})\.?|[IVX]{1,5}\.|[A-H]\.)\s+[A-Z].{0,100}$/;
const NAMED_HEADING =
  /^(abstract|introduction|background|related work|method|methods|methodology|experiments|results|discussion|conclusions?|references|bibliography|acknowledge?ments?|appendix)$/i;
const INLINE_ABSTRACT = /^abstract\s*[—–:.-]\s*(\S.*)$/i;

function isHeading(l: Line, body: number): boolean {
  const t = l.text;
  const words = t.split(" ").length;
  if (t.length > 120 || words > 12 || /[-,;]$/.test(t)) return false;
  if (NAMED_HEADING.test(t.replace(/[.:]$/, ""))) return l.size >= body * 0.95;
  if (l.size >= body * 1.1 && /[A-Za-z]{2}/.test(t) && !/\.$/.test(t)) return true;
  // Not a contents line: no dot leaders, no page number at the end.
  if (/(\.\s?){3,}/.test(t) || /\s\d{1,4}$/.test(t)) return false;
  return l.size >= body * 0.95 && NUMBERED_HEADING.test(t) && !/\.$/.test(t);
}

function mode(values: Array<[number, number]>): number {
  const w = new Map<number, number>();
  for (const [v, n] of values) w.set(v, (w.get(v) ?? 0) + n);
  let best = 0;
  let bestW = -1;
  for (const [v, n] of w)
    if (n > bestW || (n === bestW && v < best)) {
      best = v;
      bestW = n;
    }
  return best;
}

/** Text with the page each appended piece came from. */
/**
 * Text built from lines, with the page each part starts on. Kept as its pieces and joined when read:
 * testing the end of one string grown line by line flattened it at every line (quadratic in the
 * length of a section; a section of 80 dense pages took most of a second).
 */
class Paged {
  private parts: string[] = [];
  private joined: string | null = "";
  private len = 0;
  marks: PageMark[] = [];
  get text(): string {
    if (this.joined === null) this.joined = this.parts.join("");
    return this.joined;
  }
  set text(v: string) {
    this.parts = [v];
    this.joined = v;
    this.len = v.length;
  }
  append(piece: string, page: number, sep: string) {
    const s = this.len > 0 ? sep : "";
    const at = this.len + s.length;
    if (this.marks[this.marks.length - 1]?.page !== page) this.marks.push({ page, offset: at });
    if (s) this.parts.push(s);
    if (piece) this.parts.push(piece);
    this.len += s.length + piece.length;
    this.joined = null;
  }
  /** Remove a trailing hyphen so the next piece continues the word. */
  unhyphen() {
    for (let i = this.parts.length - 1; i >= 0; i--) {
      const p = this.parts[i] as string;
      if (!p) continue;
      this.parts[i] = p.slice(0, -1);
      this.len--;
      this.joined = null;
      return;
    }
  }
  /** The last `n` characters (fewer when the text is shorter). */
  tail(n: number): string {
    let out = "";
    for (let i = this.parts.length - 1; i >= 0 && out.length < n; i--) out = (this.parts[i] as string) + out;
    return out.slice(-n);
  }
  /** The run of ASCII letters right before a final hyphen (`/([A-Za-z]+)-$/`'s group), or "". */
  lettersBeforeHyphen(): string {
    for (let n = 64; ; n *= 2) {
      const t = this.tail(n);
      const m = /([A-Za-z]+)-$/.exec(t)?.[1] ?? "";
      // A run that starts at the cut may go on before it: read a longer tail.
      if (t.length < n || m.length < t.length - 1) return m;
    }
  }
}

interface Section {
  heading: string;
  /** Display equations in its text: the line as written, its number and page. */
  equations?: Array<{ line: string; label: string; page: number }>;
  /** Page of the heading line. */
  page: number;
  body: Paged;
  /** Last line appended (for paragraph gaps and hyphens). */
  last: Line | null;
}
interface Caption {
  type: "figure" | "table";
  label: string;
  body: Paged;
  last: Line;
}

const TITLE_JUNK = /^(untitled|microsoft word|document\d*$|\S+\.(docx?|tex|dvi|pdf|ps)$)/i;

/** The title the metadata gives, when it reads like one. */
function metaTitle(info: PdfInfo): string | null {
  const t = oneLine(info.title ?? "");
  return t.length >= 6 && t.length <= 300 && !TITLE_JUNK.test(t) && /[a-z]{3}/i.test(t) ? t : null;
}

const ARXIV_STAMP = /arXiv:\s*(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?\/\d{7})(v\d+)?/i;

/**
 * Plan the chunks of one PDF. Fails (validation) when no page has text: the message names the
 * missing text layer and OCR as the fix.
 */
export function parsePdf(doc: PdfDocument, opts: PdfOptions = {}): Result<PdfPlan> {
  return runSync(parsePdfSliced(doc, opts));
}

/** Lines laid out between two yields. */
const LINE_SLICE = 1000;

/** parsePdf, yielding after each page's fragments and between slices of lines. */
export function* parsePdfSliced(doc: PdfDocument, opts: PdfOptions = {}): Sliced<Result<PdfPlan>> {
  const src = opts.source ?? "upload.pdf";
  const stamps: string[] = [];
  const perPage: Line[][] = [];
  for (const [i, p] of doc.pages.entries()) {
    perPage.push(fragments(p, i + 1, stamps));
    yield;
  }
  const chars = perPage.reduce((s, fs) => s + fs.reduce((t, f) => t + f.text.length, 0), 0);
  if (chars === 0)
    return fail(
      "unprocessable",
      `no text layer: none of the ${doc.pages.length} pages has any text (a scanned or image-only PDF)`,
      "body",
      "run OCR first (for example `ocrmypdf in.pdf out.pdf`), then import the OCRed PDF",
    );
  const lines = yield* withoutRunningHeads(doc.pages, perPage);
  const body = mode(lines.map((l) => [r1(l.size), l.text.length]));
  const lead = usualLineSpacing(lines, body);
  const { titleLines, title } = pdfTitle(doc.info, lines, body, src);
  const laid = yield* layOut(lines, titleLines, body, lineJoiner(lines, lead));

  // Identity and the paper chunk.
  const ids = [stampedArxivId(stamps)];
  const identity = paperIdentity(ids, title);
  if (!identity)
    return fail("validation", "no title and no arXiv id found in this PDF", "name", "pass ?name=<title>.pdf");
  return ok(buildPdfPlan(doc, src, title, identity, laid));
}

/** The usual line spacing: the most common drop between consecutive body lines of one column. */
function usualLineSpacing(lines: Line[], body: number): number {
  const drops: Array<[number, number]> = [];
  for (let i = 1; i < lines.length; i++) {
    const a = lines[i - 1];
    const b = lines[i];
    if (a && b && a.page === b.page && a.col === b.col && a.y > b.y && Math.abs(a.size - body) < 0.6)
      drops.push([r1(a.y - b.y), 1]);
  }
  return mode(drops) || body * 1.2;
}

/** Title: metadata, else the largest text on page 1 (its lines never enter the body). */
function pdfTitle(info: PdfInfo, lines: Line[], body: number, src: string) {
  const first = lines.filter((l) => l.page === 1);
  const maxSize = Math.max(0, ...first.map((l) => l.size));
  const titleLines = new Set<Line>();
  if (maxSize >= body * 1.2)
    for (const l of first) {
      if (l.size >= maxSize - 0.5) titleLines.add(l);
      else if (titleLines.size) break;
    }
  const layoutTitle = oneLine([...titleLines].map((l) => l.text).join(" "));
  const title =
    metaTitle(info) ??
    (layoutTitle ||
      oneLine(
        src
          .replace(/^.*[/\\]/, "")
          .replace(/\.pdf$/i, "")
          .replace(/[_-]+/g, " "),
      ));
  return { titleLines, title };
}

/** Appends a line to a text: hyphenation (words seen whole, hyphenated forms seen inside lines) and paragraph gaps. */
type Joiner = (into: Paged, prev: Line | null, l: Line) => void;

function lineJoiner(lines: Line[], lead: number): Joiner {
  const whole = new Set<string>();
  const hyphenated = new Set<string>();
  for (const l of lines)
    for (const m of l.text.matchAll(/[A-Za-z]+(?:-[A-Za-z]+)*/g)) {
      const w = m[0].toLowerCase();
      if (w.includes("-") && m.index + m[0].length < l.text.length) hyphenated.add(w);
      else whole.add(w.replace(/-/g, ""));
    }
  const keepHyphen = (prev: Paged, next: string) => {
    const a = prev.lettersBeforeHyphen().toLowerCase();
    const b = /^([a-z]+)/.exec(next)?.[1] ?? "";
    return hyphenated.has(`${a}-${b}`) && !whole.has(`${a}${b}`);
  };
  return (into, prev, l) => {
    if (prev && /[A-Za-z]-$/.test(into.tail(2)) && /^[a-z]/.test(l.text)) {
      if (keepHyphen(into, l.text)) into.append(l.text, l.page, "");
      else {
        into.unhyphen();
        into.append(l.text, l.page, "");
      }
      return;
    }
    const para = prev && prev.page === l.page && prev.col === l.col && prev.y - l.y > lead * 1.3;
    into.append(l.text, l.page, para ? "\n\n" : " ");
  };
}

function stampedArxivId(stamps: string[]): string | null {
  for (const s of stamps) {
    const m = ARXIV_STAMP.exec(s);
    if (m?.[1]) return `arXiv:${m[1]}`;
  }
  return null;
}

/** The lines laid out: front matter, sections and captions. */
interface Laid {
  front: Paged;
  sections: Section[];
  captions: Caption[];
}

/** The lines placed into front matter, sections and captions, yielding between slices of lines. */
function* layOut(lines: Line[], titleLines: Set<Line>, body: number, join: Joiner): Sliced<Laid> {
  const laid: Laid = { front: new Paged(), sections: [], captions: [] };
  const at: LayoutCursor = { frontLast: null, cap: null };
  const slice = slicer(LINE_SLICE);
  for (const l of lines) {
    yield* slice();
    if (titleLines.has(l)) continue;
    placeLine(laid, at, l, body, join);
  }
  return laid;
}

interface LayoutCursor {
  frontLast: Line | null;
  cap: Caption | null;
}

function placeLine(laid: Laid, at: LayoutCursor, l: Line, body: number, join: Joiner): void {
  const { sections } = laid;
  if (continuesCaption(at, l, body, join)) return;
  const cm = CAPTION.exec(l.text);
  if (cm) {
    const type = /^t/i.test(cm[1] ?? "") ? "table" : "figure";
    const c: Caption = { type, label: cm[2] ?? "", body: new Paged(), last: l };
    c.body.append(l.text, l.page, "");
    laid.captions.push(c);
    at.cap = c;
    return;
  }
  if (l.size <= body * 0.85 && l.text.length < 40) return; // figure labels
  const inline = INLINE_ABSTRACT.exec(l.text);
  // Before the first numbered or named heading, larger lines are front matter (authors, affiliations).
  const structural = NAMED_HEADING.test(l.text.replace(/[.:]$/, "")) || NUMBERED_HEADING.test(l.text);
  // Inside the References, numbered lines are entries: only a named heading or larger text ends them.
  const cur = sections[sections.length - 1];
  const inRefs = cur !== undefined && REFERENCES_HEADING.test(cur.heading);
  const endsRefs = !inRefs || NAMED_HEADING.test(l.text.replace(/[.:]$/, "")) || l.size >= body * 1.1;
  if (inline?.[1] || (isHeading(l, body) && (sections.length > 0 || structural) && endsRefs)) {
    const heading = inline?.[1] ? "Abstract" : l.text.replace(/[.:]$/, "");
    const s: Section = { heading, page: l.page, body: new Paged(), last: null };
    sections.push(s);
    if (inline?.[1]) {
      s.body.append(inline[1], l.page, "");
      s.last = l;
    }
    return;
  }
  const s = sections[sections.length - 1];
  if (s) {
    join(s.body, s.last, l);
    s.last = l;
    const eq = inRefs ? null : displayEquation(l.text);
    if (eq) s.equations = [...(s.equations ?? []), { line: l.text, label: eq.label, page: l.page }];
  } else {
    join(laid.front, at.frontLast, l);
    at.frontLast = l;
  }
}

/** Captions: the opening line and the lines of its size right under it. True when `l` joined the open caption. */
function continuesCaption(at: LayoutCursor, l: Line, body: number, join: Joiner): boolean {
  const cap = at.cap;
  if (!cap) return false;
  const same = cap.last.page === l.page && cap.last.col === l.col;
  const close = same && cap.last.y - l.y <= Math.max(cap.last.size, l.size) * 1.6;
  const bodySized = Math.abs(cap.last.size - body) < 0.6;
  if (
    close &&
    Math.abs(l.size - cap.last.size) < 0.6 &&
    !CAPTION.test(l.text) &&
    !isHeading(l, body) &&
    !(bodySized && cap.body.tail(1) === ".")
  ) {
    join(cap.body, cap.last, l);
    cap.last = l;
    return true;
  }
  at.cap = null;
  return false;
}

type PaperIdentity = NonNullable<ReturnType<typeof paperIdentity>>;
type Common = { valid_from?: number; source: string };

/** The chunks of the paper: the paper chunk, its sections and passages, equations, then figures and tables. */
function buildPdfPlan(doc: PdfDocument, src: string, title: string, identity: PaperIdentity, laid: Laid): PdfPlan {
  const { front, sections, captions } = laid;
  const pid = identity.id;
  const b = new PlanBuilder();
  const abstractIdx = sections.findIndex((s) => /^abstract$/i.test(s.heading));
  const abstract = abstractIdx >= 0 ? sections.splice(abstractIdx, 1)[0] : undefined;
  const paperBody = paperContent(abstract, front, title);
  // References: entries with an identifier become the paper's cites edges (and paper entities).
  const refSection = sections.find((s) => REFERENCES_HEADING.test(s.heading));
  const { references, paperEdges, refEntities } = citesOf(refSection, pid);
  const validFrom = doc.info.created;
  const year = validFrom !== undefined ? new Date(validFrom).getUTCFullYear() : null;
  const authors = (doc.info.author ?? "")
    .split(/\s*(?:;|,|\band\b)\s*/)
    .map((a) => a.trim())
    .filter((a) => a.length > 2)
    .slice(0, 50);
  const paperEntities: EntityInput[] = [
    identity.entity,
    ...authors.map((a) => personEntity(a)).filter((e): e is EntityInput => e !== null),
  ];
  const common = { ...(validFrom !== undefined ? { valid_from: validFrom } : {}), source: `${src}#${pid}` };
  b.add(
    {
      id: pid,
      kind: "paper",
      title,
      content: paperBody.text,
      entities: [...paperEntities, ...refEntities],
      edges: paperEdges,
      boundaries: [...(year ? [`year:${year}`] : []), `pages:${doc.pages.length}`, ...pageBoundaries(paperBody.marks)],
      ...common,
    },
    src,
  );

  // Elements, numbered per type in order; caption labels map to them for discussed-in.
  const count = { figure: 0, table: 0 };
  const elements = captions.map((c) => {
    count[c.type]++;
    return { c, id: `${pid}#${ELEMENT_PREFIX[c.type]}${count[c.type]}`, n: count[c.type] };
  });
  const byLabel = new Map(elements.map((e) => [`${e.c.type}:${e.c.label.toLowerCase()}`, e.id]));
  const ctx: PlanContext = { b, src, pid, title, common };
  const { equations, discussedIn } = addSections(ctx, sections, refSection, byLabel);
  addEquations(ctx, equations);
  addElements(ctx, elements, discussedIn);
  return { ...b.plan, paper: pid, references };
}

/** What the chunk steps of one PDF share. */
interface PlanContext {
  b: PlanBuilder;
  src: string;
  pid: string;
  title: string;
  common: Common;
}

/** The paper chunk's content: the Abstract and the front matter as `Authors: ...`, else the front matter, else the title. */
function paperContent(abstract: Section | undefined, front: Paged, title: string): Paged {
  const paperBody = new Paged();
  const lead0 = abstract?.body.text.trim() ? abstract.body : front;
  paperBody.text = lead0.text;
  paperBody.marks = [...lead0.marks];
  if (lead0 === abstract?.body && front.text.trim()) {
    const at = paperBody.text.length + 2;
    const p = front.marks[0]?.page ?? 1;
    if (paperBody.marks[paperBody.marks.length - 1]?.page !== p) paperBody.marks.push({ page: p, offset: at });
    paperBody.text += `\n\nAuthors: ${clip(oneLine(front.text), 600)}`;
  }
  if (!paperBody.text.trim()) {
    paperBody.text = title;
    paperBody.marks = [{ page: 1, offset: 0 }];
  }
  return paperBody;
}

function citesOf(refSection: Section | undefined, pid: string) {
  const references: PdfPlan["references"] = [];
  const paperEdges: EdgeInput[] = [];
  const refEntities: EntityInput[] = [];
  const citedIds = new Set<string>();
  for (const r of refSection ? parseReferences(refSection.body.text) : []) {
    const ref = r.ids.length ? paperIdentity(r.ids, r.title ?? "") : null;
    const target = ref && ref.id !== pid ? ref.id : null;
    references.push({ ...r, cited: target });
    if (!ref || !target || citedIds.has(target)) continue;
    citedIds.add(target);
    refEntities.push({ ...ref.entity, name: r.title ?? ref.id });
    paperEdges.push({ type: "cites", target });
  }
  return { references, paperEdges, refEntities };
}

type SectionEquation = { line: string; label: string; page: number; section: string };

/** Section chunks (and passages of each but the References); returns their equations and the sections naming each element. */
function addSections(
  ctx: PlanContext,
  sections: Section[],
  refSection: Section | undefined,
  byLabel: Map<string, string>,
) {
  const { b, src, pid, title, common } = ctx;
  const discussedIn = new Map<string, string[]>();
  const usedIds = new Set<string>();
  // Section numbers -> the latest section so numbered (for "2.5 part-of 2").
  const byNumber = new Map<string, string>();
  const equations: SectionEquation[] = [];
  sections.forEach((s, i) => {
    const text = s.body.text.trim() ? s.body.text : s.heading;
    const marks = s.body.text.trim() ? s.body.marks : [{ page: s.page, offset: 0 }];
    let id = `${pid}#s${i + 1}${slug(s.heading) ? `-${slug(s.heading).slice(0, 48)}` : ""}`;
    if (usedIds.has(id)) id = `${id}-${i + 1}`;
    usedIds.add(id);
    for (const m of text.matchAll(/\b(fig(?:ure)?s?\.?|tables?)\s*(\d+|[IVX]+)\b/gi)) {
      const el = byLabel.get(`${/^t/i.test(m[1] ?? "") ? "table" : "figure"}:${(m[2] ?? "").toLowerCase()}`);
      if (!el) continue;
      const l = discussedIn.get(el) ?? [];
      if (!l.includes(id)) l.push(id);
      discussedIn.set(el, l);
    }
    const edges: EdgeInput[] = [{ type: "part-of", target: pid }];
    const num = sectionNumber(s.heading);
    const parentNum = num ? parentNumber(num) : null;
    const parent = parentNum ? byNumber.get(parentNum) : undefined;
    if (parent) edges.push({ type: "part-of", target: parent });
    if (num) byNumber.set(num, id);
    const secTitle = `${clip(title, 150)}: ${clip(s.heading, 200)}`;
    b.add(
      { id, kind: "section", title: secTitle, content: text, edges, boundaries: pageBoundaries(marks), ...common },
      `${src}:${s.heading}`,
    );
    for (const e of s.equations ?? []) equations.push({ ...e, section: id });
    // Passages of a long section (not of the References): paragraphs grouped up to 1,500 characters.
    if (s === refSection) return;
    addPassages(ctx, s, id, secTitle, text, marks);
  });
  return { equations, discussedIn };
}

function addPassages(ctx: PlanContext, s: Section, id: string, secTitle: string, text: string, marks: PageMark[]) {
  const ps = passages(text, marks);
  for (const [k, p] of ps.entries())
    ctx.b.add(
      {
        id: `${id}#p${k + 1}`,
        // A record, not a section: coverage and locate count a paper's sections, each once.
        kind: "record",
        title: `${secTitle} (${k + 1}/${ps.length})`,
        content: p.text,
        edges: [{ type: "part-of", target: id }],
        boundaries: ["passage", ...pageBoundaries(p.marks)],
        ...ctx.common,
      },
      `${ctx.src}:${s.heading}:${k + 1}`,
    );
}

/** Display equations: elements `part-of` the paper, `discussed-in` the section they stand in. */
function addEquations(ctx: PlanContext, equations: SectionEquation[]) {
  const { b, src, pid, title, common } = ctx;
  for (const [k, e] of equations.slice(0, MAX_PDF_EQUATIONS).entries()) {
    const label = `Equation (${e.label})`;
    b.add(
      {
        id: `${pid}#eq${k + 1}`,
        kind: "element",
        title: `${clip(title, 150)}: ${label}`,
        content: e.line,
        boundaries: ["element:equation", `page:${e.page}`],
        edges: [
          { type: "part-of", target: pid },
          { type: "discussed-in", target: e.section },
        ],
        ...common,
      },
      `${src}:${label}`,
    );
  }
}

function addElements(
  ctx: PlanContext,
  elements: Array<{ c: Caption; id: string; n: number }>,
  discussedIn: Map<string, string[]>,
) {
  const { b, src, pid, title, common } = ctx;
  for (const e of elements) {
    const label = `${e.c.type === "figure" ? "Figure" : "Table"} ${e.n}`;
    b.add(
      {
        id: e.id,
        kind: "element",
        title: `${clip(title, 150)}: ${label}`,
        content: e.c.body.text,
        boundaries: [`element:${e.c.type}`, ...pageBoundaries(e.c.body.marks)],
        edges: [
          { type: "part-of", target: pid },
          ...(discussedIn.get(e.id) ?? []).map((sec) => ({ type: "discussed-in" as const, target: sec })),
        ],
        ...common,
      },
      `${src}:${label}`,
    );
  }
}

/** An arXiv id as the stamp writes it, canonical (exported for the tests). */
export function stampArxivId(stamp: string): string | null {
  const m = ARXIV_STAMP.exec(stamp);
  return m?.[1] ? canonicalPaperId(`arXiv:${m[1]}`) : null;
}
