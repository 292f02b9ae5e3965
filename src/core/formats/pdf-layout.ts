/**
 * The layout steps of ./pdf.ts (its module comment describes them): positioned text items ->
 * fragments -> each page's lines in reading order, running headers, footers and page numbers
 * dropped.
 */
import type { Sliced } from "../pace";

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

// ---------------------------------------------------------------------------------------------
// Layout: items -> lines in reading order
// ---------------------------------------------------------------------------------------------

export interface Line {
  text: string;
  page: number;
  /** 0 left column, 1 right column, 2 across (or a one-column page). */
  col: number;
  x0: number;
  x1: number;
  y: number;
  size: number;
}

export const r1 = (x: number) => Math.round(x * 2) / 2;

/** Same-baseline items joined into fragments; a gap over 1.2x the size starts a new one. */
export function fragments(page: PdfPage, pageNo: number, stamps: string[]): Line[] {
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

/** Each page's fragments in reading order, running headers and footers and page numbers dropped. */
export function* withoutRunningHeads(pages: PdfPage[], perPage: Line[][]): Sliced<Line[]> {
  const seenOn = new Map<string, Set<number>>();
  perPage.forEach((fs, i) => {
    const h = pages[i]?.height ?? 792;
    for (const f of fs) {
      if (!inMargin(f, h)) continue;
      const k = maskDigits(f.text);
      const s = seenOn.get(k) ?? new Set<number>();
      s.add(i);
      seenOn.set(k, s);
    }
  });
  const pagesN = pages.length;
  const repeated = (k: string) => {
    const n = seenOn.get(k)?.size ?? 0;
    return n >= 2 && n >= 0.4 * pagesN;
  };
  const lines: Line[] = [];
  for (const [i, fs] of perPage.entries()) {
    const page = pages[i];
    if (!page) continue;
    const kept = fs.filter(
      (f) => !(inMargin(f, page.height) && (PAGE_NUMBER.test(f.text) || repeated(maskDigits(f.text)))),
    );
    lines.push(...readingOrder(kept, page.width));
    yield;
  }
  return lines;
}
