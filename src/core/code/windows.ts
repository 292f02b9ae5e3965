/**
 * Code windows for retrieval (xKG's code-RAG: `code.text_splitter.chunk_size` 350 characters,
 * `chunk_overlap` 100): a code unit's text split into windows of at most `size` UTF-16 units, each
 * ending at its last line end within its second half when it has one (else at `size`, never inside a
 * surrogate pair), the next starting at most `overlap` before its end (at the first line start in that
 * overlap when there is one). The windows are scored against a query with the archive's BM25 (the
 * same terms, k1, b and IDF as the router's lexical expert; the pool is the unit's windows) and the
 * best ones, merged where they touch, are exact spans of the text.
 *
 * Scoring is linear in the text: its terms are read once with their offsets, and a window's term
 * frequencies are counted by binary search over the query terms' positions, so a small stride
 * (overlap close to size) costs windows × query terms × log, never windows × size.
 */
import { bm25Idf } from "../capital/scoring";
import { terms } from "../text/analyze";
import { bm25Term, queryTerms } from "../text/lexical";

/** xKG's splitter settings (Table 4). */
export const CODE_WINDOW_SIZE = 350;
export const CODE_WINDOW_OVERLAP = 100;
/** Windows carried per code unit by default (before merging). */
export const CODE_WINDOW_TOP = 3;
/**
 * Bounds on one unit's scoring (a Worker's CPU and memory): its first 1 MiB characters (the largest
 * content is 2 MiB; code files rarely pass 100 KB) in at most 20,000 windows. The overlap shrinks on
 * a unit that would need more (xKG's 350/100 only past ~1.5 M characters), and a unit that even
 * without overlap needs more (windows under ~100 characters on ~1 MiB) is scored over its first
 * 20,000 windows. At most 32 query terms count, the rarest in the unit (the ones BM25 weighs most).
 */
export const MAX_WINDOW_TEXT = 1 << 20;
export const MAX_WINDOWS = 20_000;
export const MAX_WINDOW_TERMS = 32;

/** [start, end) of the text. */
export interface Span {
  start: number;
  end: number;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
/** A cut at `i` would separate a surrogate pair. */
const splitsPair = (text: string, i: number) =>
  i > 0 && i < text.length && isHigh(text.charCodeAt(i - 1)) && isLow(text.charCodeAt(i));

/**
 * The windows of `text`: they cover it in order, each at most `size` long (size >= 2), consecutive
 * ones overlapping by at most `overlap` (0 <= overlap < size). Empty text: none. With `limit`, the
 * first `limit` windows only (they cover a prefix).
 */
export function codeWindows(text: string, size: number, overlap: number, limit = Number.POSITIVE_INFINITY): Span[] {
  if (!Number.isInteger(size) || size < 2) throw new RangeError("size must be an integer >= 2");
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size)
    throw new RangeError("overlap must be an integer in [0, size)");
  const n = text.length;
  const out: Span[] = [];
  let s = 0;
  while (s < n) {
    let e = Math.min(s + size, n);
    if (e < n) {
      const nl = text.lastIndexOf("\n", e - 1);
      if (nl >= s + Math.floor(size / 2)) e = nl + 1;
      else if (splitsPair(text, e)) e -= 1;
    }
    out.push({ start: s, end: e });
    if (e >= n || out.length >= limit) break;
    let next = Math.max(s + 1, e - overlap);
    const nl = text.indexOf("\n", next - 1);
    if (nl >= 0 && nl + 1 <= e) next = nl + 1;
    else if (splitsPair(text, next)) next += 1;
    s = next;
  }
  return out;
}

/** Tokens (runs of letters, digits and marks) with the project's terms, in text order. */
const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;

function first(xs: ArrayLike<number>, pred: (x: number) => boolean): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(xs[mid] as number)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * BM25 of each window against `query`: the query's distinct terms (as the router takes them), each
 * window a document of the terms whose token lies wholly inside it, IDF over the windows.
 */
export function scoreWindows(text: string, windows: readonly Span[], query: string): number[] {
  const q = queryTerms(query);
  const scores = new Array<number>(windows.length).fill(0);
  if (!q.length || !windows.length) return scores;
  const wanted = new Map(q.map((t) => [t, [] as number[]]));
  const starts: number[] = [];
  const ends: number[] = [];
  for (const m of text.matchAll(TOKEN)) {
    for (const t of terms(m[0])) {
      wanted.get(t)?.push(starts.length);
      starts.push(m.index);
      ends.push(m.index + m[0].length);
    }
  }
  const present = [...wanted.values()]
    .filter((p) => p.length > 0)
    .sort((a, b) => a.length - b.length)
    .slice(0, MAX_WINDOW_TERMS);
  if (!present.length) return scores;
  const lens = new Array<number>(windows.length);
  const tf = new Array<number[]>(windows.length);
  const df = new Array<number>(present.length).fill(0);
  windows.forEach((w, i) => {
    const lo = first(starts, (x) => x >= w.start);
    const hi = first(ends, (x) => x > w.end);
    lens[i] = Math.max(0, hi - lo);
    tf[i] = present.map((pos, k) => {
      const c = hi <= lo ? 0 : first(pos, (x) => x >= hi) - first(pos, (x) => x >= lo);
      if (c > 0) df[k] = (df[k] as number) + 1;
      return c;
    });
  });
  const avg = lens.reduce((a, b) => a + b, 0) / windows.length;
  const idf = df.map((d) => bm25Idf(d, windows.length));
  for (let i = 0; i < windows.length; i++) {
    let s = 0;
    (tf[i] as number[]).forEach((c, k) => {
      s += bm25Term(idf[k] as number, c, lens[i] as number, avg);
    });
    scores[i] = s;
  }
  return scores;
}

/**
 * The windows to carry, best first: those scoring above 0 (ties by position), at most `top`; when
 * none does, the first window (the unit's head: its imports and first declarations).
 */
export function rankWindows(scores: readonly number[], top: number): number[] {
  const ranked = scores
    .map((s, i) => ({ s, i }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, Math.max(1, top))
    .map((x) => x.i);
  return ranked.length ? ranked : scores.length ? [0] : [];
}

/** The chosen windows as spans in text order, overlapping or adjacent ones merged. */
export function mergeWindows(windows: readonly Span[], chosen: readonly number[]): Span[] {
  const spans = chosen
    .map((i) => windows[i])
    .filter((w): w is Span => w !== undefined)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Span[] = [];
  for (const w of spans) {
    const last = out[out.length - 1];
    if (last && w.start <= last.end) last.end = Math.max(last.end, w.end);
    else out.push({ start: w.start, end: w.end });
  }
  return out;
}

/** Options of a windowed read: window size and overlap (characters) and windows carried. */
export interface WindowOptions {
  size: number;
  overlap: number;
  top: number;
}

/**
 * The best windows of `text` for `query`, ranked (indices into `windows`), with the windows: what a
 * caller needs to carry the top ones merged (mergeWindows), or fewer of them to fit a budget.
 */
export function bestWindows(text: string, query: string, o: WindowOptions): { windows: Span[]; ranked: number[] } {
  let cut = Math.min(text.length, MAX_WINDOW_TEXT);
  if (splitsPair(text, cut)) cut -= 1;
  const scanned = cut < text.length ? text.slice(0, cut) : text;
  // A step is at least floor(size / 2) + 1 - overlap (a window ends in its second half at the
  // earliest): the overlap shrinks until MAX_WINDOWS steps cover the text, if it has to.
  const need = Math.ceil(scanned.length / MAX_WINDOWS);
  const half = Math.floor(o.size / 2) + 1;
  const overlap = Math.max(1, half - o.overlap) >= need ? o.overlap : Math.max(0, half - need);
  const windows = codeWindows(scanned, o.size, overlap, MAX_WINDOWS);
  return { windows, ranked: rankWindows(scoreWindows(scanned, windows, query), o.top) };
}
