/**
 * Paper Circle's locate snippets and coverage, pure: the application layer reads the paper's subtree,
 * versions, edges and entities from D1 and hands them here.
 */
import { terms } from "../text/analyze";
import { splitSentences } from "../text/sentences";

export interface SnippetSpan {
  start: number;
  end: number;
  text: string;
  /** Share of the query's distinct terms the sentence contains (0-1). */
  score: number;
}

/**
 * The `n` sentences of `content` that contain the largest share of the query's distinct terms (stemmed,
 * stop words dropped), best first, ties to the earlier sentence; sentences with none are left out
 * unless nothing matches, in which case the first sentence is returned with score 0. Offsets are
 * string offsets into `content`, so `content.slice(start, end) === text` (anchors verify). Linear in
 * the content's length.
 */
export function bestSentences(content: string, query: string, n: number): SnippetSpan[] {
  if (n <= 0 || !content) return [];
  const q = new Set(terms(query));
  const spans = splitSentences(content);
  const scored: SnippetSpan[] = [];
  for (const s of spans) {
    if (q.size === 0) break;
    let hit = 0;
    for (const t of new Set(terms(s.text))) if (q.has(t)) hit++;
    if (hit > 0) scored.push({ start: s.start, end: s.end, text: content.slice(s.start, s.end), score: hit / q.size });
  }
  if (scored.length === 0) {
    const first = spans[0];
    return first ? [{ start: first.start, end: first.end, text: content.slice(first.start, first.end), score: 0 }] : [];
  }
  scored.sort((a, b) => b.score - a.score || a.start - b.start);
  return scored.slice(0, n);
}

export const COVERAGE_TYPES = ["section", "figure", "table", "equation"] as const;
export type CoverageType = (typeof COVERAGE_TYPES)[number];
export type CoverageRule = "referenced" | "grounded" | "both" | "either";
export type CoverageAggregate = "micro" | "macro";

export interface CoverageInputItem {
  chunk: string;
  title: string;
  version: number;
  type: CoverageType;
  /** Entities the version valid at as_of names, with their types. */
  entities: Array<{ id: string; type: string }>;
}

export interface CoverageInput {
  paper: string;
  items: CoverageInputItem[];
  /** `discussed-in` edges valid at as_of: element -> section. */
  discussedIn: Array<{ element: string; section: string }>;
  /** Sections with at least one `cites` edge valid at as_of. */
  citing: Set<string>;
}

export interface CoverageItemResult {
  chunk: string;
  title: string;
  version: number;
  referenced: boolean;
  grounded: boolean;
}

export interface CoverageTypeResult {
  total: number;
  linked: number;
  share: number | null;
  unlinked: CoverageItemResult[];
}

export interface CoverageResult {
  share: number | null;
  total: number;
  linked: number;
  types: Record<CoverageType, CoverageTypeResult>;
}

/** Entity types that say who wrote or published a paper, not what it is about. */
const NOT_CONTENT = new Set(["person", "venue"]);

/**
 * Coverage of one paper (PaperGuru's definition; the seed leaves it open):
 * - referenced: an element (figure, table, equation) when a section of the paper discusses it; a section
 *   when it discusses an element of the paper or cites a work;
 * - grounded: the item's version names an entity other than the paper itself, the item's own id (a
 *   chunk whose id looks like a DOI or arXiv id names itself), a person or a venue (a concept, method,
 *   dataset, metric, symbol or cited work);
 * - linked under `rule`: referenced, grounded, both, or either.
 * Shares per type are linked / total; the overall share is linked / total over all items (`micro`) or
 * the mean of the per-type shares of the types present (`macro`). Unlinked items are listed in
 * numeric-aware id order.
 */
export function coverage(input: CoverageInput, rule: CoverageRule, aggregate: CoverageAggregate): CoverageResult {
  const sections = new Set(input.items.filter((x) => x.type === "section").map((x) => x.chunk));
  const elements = new Set(input.items.filter((x) => x.type !== "section").map((x) => x.chunk));
  const referenced = new Set<string>(input.citing);
  for (const e of input.discussedIn)
    if (elements.has(e.element) && sections.has(e.section)) {
      referenced.add(e.element);
      referenced.add(e.section);
    }
  const types = Object.fromEntries(
    COVERAGE_TYPES.map((t) => [t, { total: 0, linked: 0, share: null, unlinked: [] } as CoverageTypeResult]),
  ) as Record<CoverageType, CoverageTypeResult>;
  const sorted = [...input.items].sort((a, b) => a.chunk.localeCompare(b.chunk, "en", { numeric: true }));
  for (const it of sorted) {
    const ref = referenced.has(it.chunk);
    const grounded = it.entities.some((e) => e.id !== input.paper && e.id !== it.chunk && !NOT_CONTENT.has(e.type));
    const linked =
      rule === "referenced"
        ? ref
        : rule === "grounded"
          ? grounded
          : rule === "both"
            ? ref && grounded
            : ref || grounded;
    const t = types[it.type];
    t.total++;
    if (linked) t.linked++;
    else t.unlinked.push({ chunk: it.chunk, title: it.title, version: it.version, referenced: ref, grounded });
  }
  let total = 0;
  let linked = 0;
  const shares: number[] = [];
  for (const t of Object.values(types)) {
    total += t.total;
    linked += t.linked;
    if (t.total > 0) {
      t.share = t.linked / t.total;
      shares.push(t.share);
    }
  }
  const share =
    total === 0 ? null : aggregate === "micro" ? linked / total : shares.reduce((s, x) => s + x, 0) / shares.length;
  return { share, total, linked, types };
}
