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

export interface PdfTextItem {
  str: string;
  /** Baseline origin, PDF user space (points, origin bottom-left). */
  x: number;
  y: number;
  /** Advance width in points. */
  w: number;
  /** Font size in points (the scale of the text matrix). */
  size: number;
  /** False for rotated or skewed text (side stamps, rotated table headers). */
  upright: boolean;
}

export interface PdfPage {
  width: number;
  height: number;
  items: PdfTextItem[];
}

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
// Layout: items -> lines in reading order
// ---------------------------------------------------------------------------------------------

interface Line {
  text: string;
  page: number;
  /** 0 left column, 1 right column, 2 across (or a one-column page). */
  col: number;
  x0: number;
  x1: number;
  y: number;
  size: number;
}

const r1 = (x: number) => Math.round(x * 2) / 2;

/** Same-baseline items joined into fragments; a gap over 1.2x the size starts a new one. */
function fragments(page: PdfPage, pageNo: number, stamps: string[]): Line[] {
  const items = page.items.filter((it) => {
    if (!it.str.trim()) return false;
    if (!it.upright) {
      stamps.push(it.str);
      return false;
    }
    return Number.isFinite(it.x) && Number.isFinite(it.y) && it.size > 0;
  });
  // Rows: items within 0.35x the font size of a row's first baseline (superscripts and subscripts
  // stay on their line), then each row left to right, split where the gap exceeds 1.2x the size.
  items.sort((a, z) => z.y - a.y || a.x - z.x);
  const rows: PdfTextItem[][] = [];
  let row: PdfTextItem[] = [];
  let rowY = 0;
  let rowSize = 0;
  for (const it of items) {
    if (row.length && Math.abs(rowY - it.y) <= 0.35 * Math.max(rowSize, it.size)) row.push(it);
    else {
      row = [it];
      rows.push(row);
      rowY = it.y;
      rowSize = it.size;
    }
  }
  const out: Line[] = [];
  for (const r of rows) {
    // The row's baseline is its largest text's (a superscript does not lift the line).
    let base = r[0] as PdfTextItem;
    for (const it of r) if (it.size > base.size) base = it;
    r.sort((a, z) => a.x - z.x);
    let cur: Line | null = null;
    for (const it of r) {
      const gap = cur ? it.x - cur.x1 : 0;
      if (cur && gap > -it.size && gap <= 1.2 * Math.max(it.size, cur.size)) {
        const needsSpace = gap > 0.15 * it.size && !/\s$/.test(cur.text) && !/^\s/.test(it.str);
        cur.text += (needsSpace ? " " : "") + it.str;
        cur.x1 = Math.max(cur.x1, it.x + it.w);
        if (it.str.trim().length > 2) cur.size = Math.max(cur.size, it.size);
        continue;
      }
      cur = { text: it.str, page: pageNo, col: 2, x0: it.x, x1: it.x + it.w, y: base.y, size: it.size };
      out.push(cur);
    }
  }
  for (const f of out) f.text = f.text.replace(/\s+/g, " ").trim();
  return out.filter((f) => f.text);
}

const maskDigits = (s: string) => s.toLowerCase().replace(/\d+/g, "#").replace(/\s+/g, " ").trim();
const PAGE_NUMBER = /^(page\s*)?[-–]?\s*\d{1,4}\s*[-–]?(\s*(of|\/)\s*\d{1,4})?$/i;
const inMargin = (f: Line, h: number) => f.y >= h * 0.9 || f.y <= h * 0.1;

/** Fragments of one page in reading order (see the module comment). */
function readingOrder(frags: Line[], width: number): Line[] {
  const mid = width / 2;
  let left = 0;
  let right = 0;
  let total = 0;
  for (const f of frags) {
    total += f.text.length;
    if (f.x1 <= mid + 2) left += f.text.length;
    else if (f.x0 >= mid - 2) right += f.text.length;
  }
  const twoCol = total > 0 && left >= 0.2 * total && right >= 0.2 * total;
  if (!twoCol) return [...frags].sort((a, z) => z.y - a.y || a.x0 - z.x0);
  for (const f of frags) f.col = f.x1 <= mid + 2 ? 0 : f.x0 >= mid - 2 ? 1 : 2;
  const spans = frags.filter((f) => f.col === 2).sort((a, z) => z.y - a.y);
  const spanYs = spans.map((s) => s.y);
  // band = the number of full-width fragments above (binary search over descending y).
  const band = (y: number) => {
    let lo = 0;
    let hi = spanYs.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if ((spanYs[m] ?? 0) > y) lo = m + 1;
      else hi = m;
    }
    return lo;
  };
  const keyed = frags.map((f) => ({ f, b: f.col === 2 ? spans.indexOf(f) : band(f.y) }));
  keyed.sort((a, z) => a.b - z.b || a.f.col - z.f.col || z.f.y - a.f.y || a.f.x0 - z.f.x0);
  return keyed.map((k) => k.f);
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

  // Running headers and footers.
  const seenOn = new Map<string, Set<number>>();
  perPage.forEach((fs, i) => {
    const h = doc.pages[i]?.height ?? 792;
    for (const f of fs) {
      if (!inMargin(f, h)) continue;
      const k = maskDigits(f.text);
      const s = seenOn.get(k) ?? new Set<number>();
      s.add(i);
      seenOn.set(k, s);
    }
  });
  const pagesN = doc.pages.length;
  const repeated = (k: string) => {
    const n = seenOn.get(k)?.size ?? 0;
    return n >= 2 && n >= 0.4 * pagesN;
  };
  const lines: Line[] = [];
  for (const [i, fs] of perPage.entries()) {
    const page = doc.pages[i];
    if (!page) continue;
    const kept = fs.filter(
      (f) => !(inMargin(f, page.height) && (PAGE_NUMBER.test(f.text) || repeated(maskDigits(f.text)))),
    );
    lines.push(...readingOrder(kept, page.width));
    yield;
  }

  const body = mode(lines.map((l) => [r1(l.size), l.text.length]));
  // The usual line spacing: the most common drop between consecutive body lines of one column.
  const drops: Array<[number, number]> = [];
  for (let i = 1; i < lines.length; i++) {
    const a = lines[i - 1];
    const b = lines[i];
    if (a && b && a.page === b.page && a.col === b.col && a.y > b.y && Math.abs(a.size - body) < 0.6)
      drops.push([r1(a.y - b.y), 1]);
  }
  const lead = mode(drops) || body * 1.2;

  // Title: metadata, else the largest text on page 1 (its lines never enter the body).
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
    metaTitle(doc.info) ??
    (layoutTitle ||
      oneLine(
        src
          .replace(/^.*[/\\]/, "")
          .replace(/\.pdf$/i, "")
          .replace(/[_-]+/g, " "),
      ));

  // Hyphenation: words seen whole, and hyphenated forms seen inside lines.
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
  const join = (into: Paged, prev: Line | null, l: Line) => {
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

  const front = new Paged();
  let frontLast: Line | null = null;
  const sections: Section[] = [];
  const captions: Caption[] = [];
  let cap: Caption | null = null;
  let stampId: string | null = null;
  for (const s of stamps) {
    const m = ARXIV_STAMP.exec(s);
    if (m?.[1]) {
      stampId = `arXiv:${m[1]}`;
      break;
    }
  }
  const slice = slicer(LINE_SLICE);
  for (const l of lines) {
    yield* slice();
    if (titleLines.has(l)) continue;
    // Captions: the opening line and the lines of its size right under it.
    if (cap) {
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
        continue;
      }
      cap = null;
    }
    const cm = CAPTION.exec(l.text);
    if (cm) {
      const type = /^t/i.test(cm[1] ?? "") ? "table" : "figure";
      const c: Caption = { type, label: cm[2] ?? "", body: new Paged(), last: l };
      c.body.append(l.text, l.page, "");
      captions.push(c);
      cap = c;
      continue;
    }
    if (l.size <= body * 0.85 && l.text.length < 40) continue; // figure labels
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
      continue;
    }
    const s = sections[sections.length - 1];
    if (s) {
      join(s.body, s.last, l);
      s.last = l;
      const eq = inRefs ? null : displayEquation(l.text);
      if (eq) s.equations = [...(s.equations ?? []), { line: l.text, label: eq.label, page: l.page }];
    } else {
      join(front, frontLast, l);
      frontLast = l;
    }
  }

  // Identity and the paper chunk.
  const ids = [stampId];
  const identity = paperIdentity(ids, title);
  if (!identity)
    return fail("validation", "no title and no arXiv id found in this PDF", "name", "pass ?name=<title>.pdf");
  const pid = identity.id;
  const b = new PlanBuilder();
  const abstractIdx = sections.findIndex((s) => /^abstract$/i.test(s.heading));
  const abstract = abstractIdx >= 0 ? sections.splice(abstractIdx, 1)[0] : undefined;
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
  // References: entries with an identifier become the paper's cites edges (and paper entities).
  const refSection = sections.find((s) => REFERENCES_HEADING.test(s.heading));
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
      boundaries: [...(year ? [`year:${year}`] : []), `pages:${pagesN}`, ...pageBoundaries(paperBody.marks)],
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
  const discussedIn = new Map<string, string[]>();
  const usedIds = new Set<string>();
  // Section numbers -> the latest section so numbered (for "2.5 part-of 2").
  const byNumber = new Map<string, string>();
  const equations: Array<{ line: string; label: string; page: number; section: string }> = [];
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
    const ps = passages(text, marks);
    for (const [k, p] of ps.entries())
      b.add(
        {
          id: `${id}#p${k + 1}`,
          // A record, not a section: coverage and locate count a paper's sections, each once.
          kind: "record",
          title: `${secTitle} (${k + 1}/${ps.length})`,
          content: p.text,
          edges: [{ type: "part-of", target: id }],
          boundaries: ["passage", ...pageBoundaries(p.marks)],
          ...common,
        },
        `${src}:${s.heading}:${k + 1}`,
      );
  });
  // Display equations: elements `part-of` the paper, `discussed-in` the section they stand in.
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
  return ok({ ...b.plan, paper: pid, references });
}

/** An arXiv id as the stamp writes it, canonical (exported for the tests). */
export function stampArxivId(stamp: string): string | null {
  const m = ARXIV_STAMP.exec(stamp);
  return m?.[1] ? canonicalPaperId(`arXiv:${m[1]}`) : null;
}
