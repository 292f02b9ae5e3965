/**
 * Model-made techniques in the xKG export (src/core/export/xkg.ts rebuilds the imported ones): the
 * `technique` chunks POST /techniques/propose wrote part-of a paper (source `model:<provider>:<model>`),
 * each as a Figure 5 technique object with the code units that implement it, whatever their origin
 * (an imported xKG code node, a repository file, a rewrite of POST /techniques/rewrite), and two keys
 * the released layout does not have: `origin` (the chunk's source) and `review` (its review status).
 * They are appended after a paper's imported techniques, which keep their released layout; a model
 * technique part-of another model technique is one of its `components`. A paper no xKG import wrote
 * (a plain ingested paper) gets an object in the same layout: its title, its abstract (the content
 * after the title, cut to MAX_ABSTRACT characters), empty references, resources, findings and code
 * files, and its model techniques. Pure: the caller reads the chunks.
 */
import { XKG_DOC_MARK } from "../formats/xkg";

type Json = unknown;

/** A code unit implementing a model technique, as the export shows it. */
export interface ModelCode {
  id: string;
  content: string;
  /** The shown version's source (an xKG import's file reference, `model:…` for a rewrite, ...). */
  origin: string;
  /** An imported xKG code node's `documentation_at`; a rewrite's documentation follows XKG_DOC_MARK. */
  documentationAt?: number | undefined;
  package?: unknown;
  /** The contents of the units that `tests` it. */
  tests: string[];
}

export interface ModelTechnique {
  id: string;
  content: string;
  /** The targets of its shown version's part-of edges. */
  partOf: string[];
  origin: string;
  type?: string | undefined;
  review?: string | undefined;
  code: ModelCode[];
}

/** Characters of a plain paper's content shown as its abstract. */
export const MAX_ABSTRACT = 4000;
const MAX_DEPTH = 32;

/** "head\n\nrest" -> [head, rest]; no separator -> [whole, ""]. */
function splitHead(content: string): [string, string] {
  const i = content.indexOf("\n\n");
  return i < 0 ? [content, ""] : [content.slice(0, i), content.slice(i + 2)];
}

/** A paper's abstract: its content without a leading title line, cut to MAX_ABSTRACT at a boundary. */
export function paperAbstract(title: string, content: string): string {
  let text = content.trim();
  const [head, rest] = splitHead(text);
  if (rest && head.trim().toLowerCase() === title.trim().toLowerCase()) text = rest.trim();
  if (text.length <= MAX_ABSTRACT) return text;
  const cut = text.lastIndexOf("\n", MAX_ABSTRACT);
  const word = text.lastIndexOf(" ", MAX_ABSTRACT);
  const at = cut > MAX_ABSTRACT * 0.8 ? cut : word > MAX_ABSTRACT * 0.8 ? word : MAX_ABSTRACT;
  return text.slice(0, at).trimEnd();
}

/** The Figure 5 object of a paper no xKG import wrote, with no techniques yet. */
export function plainPaperObject(title: string, content: string): Record<string, Json> {
  return {
    paper_title: title,
    paper_abstract: paperAbstract(title, content),
    paper_references: [],
    resources: [],
    findings: [],
    code_file: "",
    code_overview: "",
    techniques: [],
  };
}

function codeObject(c: ModelCode): Record<string, Json> {
  const at = c.documentationAt ?? (c.origin.startsWith("model:") ? indexAfterMark(c.content) : undefined);
  return {
    implementation: at === undefined ? c.content : c.content.slice(0, at - XKG_DOC_MARK.length),
    test: c.tests[0] ?? "",
    documentation: at === undefined ? "" : c.content.slice(at),
    package: c.package ?? [],
    id: c.id,
    origin: c.origin,
  };
}

function indexAfterMark(content: string): number | undefined {
  const i = content.lastIndexOf(XKG_DOC_MARK);
  return i < 0 ? undefined : i + XKG_DOC_MARK.length;
}

/**
 * The model techniques of paper `owner` as technique objects, in id order: those part-of it and of
 * no other model technique of the list, each with its components (the list's techniques part-of it).
 */
export function modelTechniqueObjects(owner: string, list: readonly ModelTechnique[]): Array<Record<string, Json>> {
  const ids = new Set(list.map((t) => t.id));
  const sorted = [...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const parentOf = (t: ModelTechnique) => t.partOf.find((p) => ids.has(p) && p !== t.id);
  const build = (t: ModelTechnique, depth: number, seen: ReadonlySet<string>): Record<string, Json> => {
    const [name, description] = splitHead(t.content);
    const o: Record<string, Json> = { name, description };
    if (t.type !== undefined) o.type = t.type;
    o.code = t.code.map(codeObject);
    const next = new Set(seen).add(t.id);
    o.components =
      depth >= MAX_DEPTH
        ? []
        : sorted.filter((c) => parentOf(c) === t.id && !next.has(c.id)).map((c) => build(c, depth + 1, next));
    o.origin = t.origin;
    if (t.review !== undefined) o.review = t.review;
    return o;
  };
  return sorted.filter((t) => t.partOf.includes(owner) && parentOf(t) === undefined).map((t) => build(t, 0, new Set()));
}

/** The paper object with its model techniques appended after the imported ones. */
export function withModelTechniques(
  paper: Record<string, Json>,
  owner: string,
  list: readonly ModelTechnique[],
): Record<string, Json> {
  const extra = modelTechniqueObjects(owner, list);
  if (extra.length === 0) return paper;
  const techniques = Array.isArray(paper.techniques) ? paper.techniques : [];
  return { ...paper, techniques: [...techniques, ...extra] };
}
