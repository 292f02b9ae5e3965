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
 * The publication date (front matter `date:` or `year:`) is the valid_from of the paper and its
 * sections (publicationTime) and a `year:YYYY` boundary (without one the paper carries UNDATED,
 * `year:unknown`: statistics and exports give it no year); when the archive already holds a later
 * version, the import layer records the new one from now instead (versions never overlap).
 */
import { fail, ok, type Result } from "../errors";
import { slug } from "../ids";
import type { ArtifactInput, EdgeInput, EntityInput } from "../ingest";
import { runSync, type Sliced, slicer } from "../pace";
import { UNDATED } from "../types";
import { clip, LIMITS, oneLine, PlanBuilder, publicationTime, synopsisOf, yearOf } from "./common";
import { paperIdentity } from "./paper";
import { parseReference } from "./references";
import type { ImportPlan } from "./types";

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

/** Lines scanned between two yields (a few ms). */
const LINE_SLICE = 20_000;
/** References parsed between two yields (~12 µs each). */
const REFERENCE_SLICE = 500;
/** Sections made between two yields. */
const SECTION_SLICE = 1000;

function* readFrontMatter(text: string): Sliced<FrontMatter | { error: string; line: number } | null> {
  const first = /^---[ \t]*\r?\n/.exec(text);
  if (!first) return null;
  const fields = new Map<string, string>();
  let pos = first[0].length;
  let line = 2;
  const slice = slicer(LINE_SLICE);
  while (pos < text.length) {
    yield* slice();
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

/**
 * A heading's optional closing sequence (CommonMark: spaces, then #s, then spaces) removed, in one
 * backwards scan; the regex /(?:^|[ \t]+)#+[ \t]*$/ retried from every space of a long run.
 */
function stripClosingHashes(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
  let hashes = end;
  while (hashes > 0 && text[hashes - 1] === "#") hashes--;
  if (hashes === end) return text.slice(0, end);
  if (hashes === 0) return "";
  if (text[hashes - 1] !== " " && text[hashes - 1] !== "\t") return text.slice(0, end);
  return text.slice(0, hashes);
}

function* scanHeadings(text: string, from: number): Sliced<Heading[]> {
  const out: Heading[] = [];
  let fence: { char: string; len: number } | null = null;
  let pos = from;
  const slice = slicer(LINE_SLICE);
  while (pos < text.length) {
    yield* slice();
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
        const t = stripClosingHashes(h[2] ?? "").trim();
        out.push({ level: h[1].length, text: t, start: pos, bodyStart: next });
      }
    }
    pos = next;
  }
  return out;
}

/**
 * Strip heading markers and emphasis so a synopsis reads as prose: the lines without heading
 * markers, joined, without `**`, `__` and backticks, trimmed. A synopsis reads the first 4,000
 * characters of its passage (deriveSynopsis), so the lines are read only until more than `chars`
 * characters are kept: the result then starts like the whole passage's, and reads the same to it.
 */
function prose(md: string, chars = 4000): string {
  let out = "";
  let kept = 0;
  // Where the kept text's first non-space character is, and just after its last one.
  let first = -1;
  let last = 0;
  for (let pos = 0; ; ) {
    const nl = md.indexOf("\n", pos);
    const line = md.slice(pos, nl < 0 ? md.length : nl);
    if (!/^\s{0,3}#/.test(line)) {
      // `**` and `__` never span the line breaks that join the kept lines: each line is stripped alone.
      const stripped = line.replace(/(\*\*|__|`)/g, "");
      const at = kept++ > 0 ? out.length + 1 : 0;
      out = at > 0 ? `${out}\n${stripped}` : stripped;
      const lead = stripped.search(/\S/);
      if (lead >= 0) {
        if (first < 0) first = at + lead;
        last = at + stripped.trimEnd().length;
      }
    }
    if (nl < 0 || (first >= 0 && last - first > chars)) break;
    pos = nl + 1;
  }
  return out.trim();
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
function* referenceEntries(body: string): Sliced<string[]> {
  const lines = body.split("\n");
  const marker = /^\s{0,3}(?:[-*+]|\d+[.)]|\[\d+\])\s+/;
  const slice = slicer(LINE_SLICE);
  if (lines.some((l) => marker.test(l))) {
    const items: string[][] = [];
    for (const l of lines) {
      yield* slice();
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
  return runSync(parseMarkdownPaperSliced(text, opts));
}

/** parseMarkdownPaper, yielding between slices of its work (lines, sections, references). */
export function* parseMarkdownPaperSliced(text: string, opts: MarkdownOptions = {}): Sliced<Result<ImportPlan>> {
  if (!text.trim())
    return fail("validation", "the Markdown document is empty", "text", "send the paper's Markdown text");
  const fm = yield* readFrontMatter(text);
  if (fm && "error" in fm)
    return fail(
      "validation",
      `${fm.error} (reached line ${fm.line}, the end of the document)`,
      "front_matter",
      "close the front matter with a line containing only ---",
    );
  const fields = fm?.fields ?? new Map<string, string>();
  const bodyFrom = fm?.end ?? 0;
  const headings = yield* scanHeadings(text, bodyFrom);
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
  const sectionSlice = slicer(SECTION_SLICE);
  for (const [i, h] of structural.entries()) {
    yield* sectionSlice();
    const end = structural[i + 1]?.start ?? text.length;
    const name = headingName(h.text);
    if (REFERENCES_HEADING.test(name)) refs = refs.concat(yield* referenceEntries(text.slice(h.bodyStart, end)));
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
  const referenceSlice = slicer(REFERENCE_SLICE);
  for (const [i, raw] of refs.entries()) {
    yield* referenceSlice();
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
    // A reference line is never a name: without a recognisable title the work is named by its id.
    entities.push({ ...ref.entity, name: r.title ?? ref.id });
    edges.push({ type: "cites", target: ref.id });
  }

  const year = yearOf(fields.get("date") ?? fields.get("year"));
  const published = publicationTime(fields.get("date") ?? fields.get("year"));
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
      ...(published !== undefined ? { valid_from: published } : {}),
      entities,
      edges,
      // A document without a date says so: its valid_from (the import's time) is not its year.
      boundaries: [year ? `year:${year}` : UNDATED],
      source: src,
    },
    src,
  );
  for (const s of sectionArtifacts)
    b.add(published !== undefined ? { ...s, valid_from: published } : s, s.source ?? src);
  return ok(b.plan);
}
