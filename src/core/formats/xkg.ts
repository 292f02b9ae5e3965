/**
 * xKG ("Executable Knowledge Graphs for Replicating AI
 * Research", section 2.2 and Figure 5) -> paper, technique and code chunks.
 *
 * The paper models xKG = (N, E) with N = paper nodes ∪ technique nodes ∪ code nodes and
 * E = structural edges (technique -> sub-technique) ∪ implementation edges (technique -> code):
 * - paper node n_p = (M_p, {n_t}, {n_c}): metadata (abstract, references, ...), techniques, code;
 * - technique node n_t = (D_t, {n_t'}): a definition and sub-techniques ("components");
 * - code node n_c = (σ, τ, δ): implementation, test script, documentation (+ the packages it imports).
 * Figure 5 stores one JSON file per paper with techniques and code embedded. Accepted input: that
 * object, an array of them, `{ "papers": [...] }`, or JSONL:
 *
 * {
 *   "paper_title": "Discovering Latent Knowledge in Language Models Without Supervision",
 *   "paper_abstract": "Existing techniques for training language models can be misaligned ...",
 *   "arxiv_id": "2212.03827",                                  // optional: arxiv/doi/openalex/url/paper_id
 *   "paper_references": ["A general language assistant as a laboratory for alignment", "arXiv:2112.00861"],
 *   "findings": ["CCS Outperforms Zero-Shot Prompting: ..."],
 *   "techniques": [{
 *     "name": "Contrast-Consistent Search (CCS)",
 *     "type": "Methodology",                                    // Methodology | Technique | Finding | Resource
 *     "description": "Contrast-Consistent Search (CCS) is an end-to-end, unsupervised procedure ...",
 *     "code": { "implementation": "import numpy as np\n...", "test": "if __name__ == \"__main__\": ...",
 *               "documentation": "This module implements ...", "package": ["numpy", "torch", "transformers"] },
 *     "components": [{ "name": "Construction of Contrast Pairs", "description": "...", "code": {...}, "components": [] }]
 *   }]
 * }
 *
 * Lenient field names: title/paper_title/name, abstract/paper_abstract/summary,
 * references/paper_references, techniques/technique_nodes/nodes, components/sub_techniques/subtechniques/
 * children, description/definition, code/code_node (an object or a list), implementation/code/source,
 * test/tests/test_script, documentation/doc/docs/readme, package/packages/dependencies/requirements.
 *
 * Mapping (lossless: `exportXkg` in src/core/export/xkg.ts rebuilds the file from it, and
 * import -> export -> import changes nothing on the 43 released graphs):
 * - paper -> `paper` chunk (paperIdentity), content = title + "\n\n" + abstract, both verbatim;
 *   references -> paper entities and `cites` edges (parseReference: DOI/arXiv, else a title slug);
 * - findings -> `note` chunks `<paper id>#finding-<n>`, resources -> `dataset` chunks
 *   `<paper id>#resource-<n>`, code_overview -> a `section` chunk `<paper id>#code-overview`, code_file
 *   (the repository's file list) -> a `record` chunk `<paper id>#code-files`; each `part-of` the paper,
 *   content verbatim;
 * - technique -> `technique` chunk `<paper id>#t:<name slug>[/<sub slug>...]` with `part-of` its paper
 *   and its parent technique, a `method:<slug>` entity (the same technique in two papers shares it),
 *   content = name + "\n\n" + description verbatim; type Finding -> `note`, Resource -> `dataset`
 *   (the extraction prompt's categories);
 * - code -> `code_unit` chunk `<technique id>#code` (content = implementation, then the documentation
 *   verbatim after "\n\n# Documentation\n"; synopsis = the documentation's first sentences) with
 *   `implements` -> technique; a test script -> `code_unit` `<technique id>#test` with `tests` ->
 *   the implementation; a composite technique's code `depends-on` its sub-techniques' code (the paper's
 *   composite-code prompt reuses the sub-technique code);
 * - packages -> `package:<name>` boundaries, not edges: every numpy-using snippet pointing at one
 *   `numpy` node would make it a hub that spreads diffusion mass across unrelated code;
 * - what is not text is one `xkg` annotation per chunk (readable as of any time, see XkgNode): its
 *   role and position in the file, a technique's `weight` and `type`, a code node's exact `package`
 *   list and `pass_exec`, the paper's `paper_references` strings.
 * Unknown fields are not kept; names are stored on one line (a name holding a line break comes back
 * with spaces).
 */
import { fail, ok, type Result } from "../errors";
import { slug } from "../ids";
import type { ArtifactInput, EdgeInput, EntityInput } from "../ingest";
import { runSync, type Sliced, slicer } from "../pace";
import type { ChunkKind } from "../types";
import {
  clip,
  clipLine,
  isObject,
  type JsonObject,
  oneLine,
  type PlanBuilder,
  scalar,
  startJsonPlan,
  synopsisOf,
} from "./common";
import { paperIdentity } from "./paper";
import { parseReference } from "./references";
import type { ImportPlan, PlanAnnotation } from "./types";

/** A paper object's keys in the released graphs' order. */
export const XKG_PAPER_KEYS = [
  "paper_title",
  "paper_abstract",
  "paper_references",
  "resources",
  "findings",
  "code_file",
  "code_overview",
  "techniques",
] as const;

export const XKG_TECHNIQUE_KEYS = ["name", "description", "type", "weight", "code", "components"] as const;
export const XKG_CODE_KEYS = ["implementation", "test", "documentation", "package", "pass_exec"] as const;

/** The object's keys among `known` when their order is not `known`'s (kept so the export matches). */
function keyOrder(o: JsonObject, known: readonly string[]): { keys?: string[] } {
  const keys = Object.keys(o).filter((k) => known.includes(k));
  const usual = known.filter((k) => keys.includes(k));
  return keys.join() === usual.join() ? {} : { keys };
}

/** Separates a code node's implementation from its documentation in the code chunk's content. */
export const XKG_DOC_MARK = "\n\n# Documentation\n";
/** The annotation key holding an xKG node's non-text fields. */
export const XKG_KEY = "xkg";

/** The `xkg` annotation of each imported chunk: what the export needs beyond the chunk's text and edges. */
export type XkgNode =
  | {
      role: "paper";
      paper_references?: unknown;
      code_list?: boolean;
      /** The file's key order, when it is not the released one (XKG_PAPER_KEYS). */
      keys?: string[];
    }
  | { role: "technique"; index: number; weight?: unknown; type?: unknown; code_list?: boolean; keys?: string[] }
  | {
      role: "code";
      index: number;
      package?: unknown;
      pass_exec?: unknown;
      /** Offset in the content where the documentation starts (after XKG_DOC_MARK), if any. */
      documentation_at?: number;
      keys?: string[];
    }
  | { role: "test"; index: number; documentation?: string; package?: unknown; pass_exec?: unknown }
  | { role: "finding" | "resource"; index: number }
  | { role: "code_overview" | "code_file" };

/** Text kept verbatim unless it would break the `first line(s)\n\nrest` layout of the content. */
function verbatimHead(raw: string): string {
  const t = raw.trim();
  return t.includes("\n\n") ? oneLine(t) : t;
}

export interface XkgOptions {
  /** File name or URL, recorded as `<source>#<path in the JSON>`. */
  source?: string;
  /** Refuse (413) before building anything when the file holds more paper and technique nodes. */
  maxRecords?: number;
}

/** Paper and technique nodes (components included) of the file, counted without building records. */
function countNodes(papers: Array<{ value: JsonObject }>): number {
  let n = 0;
  const stack: Value[] = [];
  for (const p of papers) {
    n++;
    const t = pick(p.value, TECHNIQUES);
    if (Array.isArray(t)) stack.push(...t);
  }
  while (stack.length > 0) {
    const v = stack.pop();
    if (!isObject(v)) continue;
    n++;
    const c = pick(v, COMPONENTS);
    if (Array.isArray(c)) stack.push(...c);
  }
  return n;
}

type Value = JsonObject[string];

/** The value of the first lenient name the object has, null included (pick skips nulls). */
function raw(o: JsonObject, names: string[]): Value | undefined {
  for (const n of names) if (Object.hasOwn(o, n)) return o[n];
  return undefined;
}

/** First present field among lenient names. */
function pick(o: JsonObject, names: string[]): Value | undefined {
  for (const n of names) if (o[n] !== undefined && o[n] !== null) return o[n];
  return undefined;
}

function text(o: JsonObject, names: string[]): string {
  const v = pick(o, names);
  if (Array.isArray(v))
    return v
      .map((x) => scalar(x))
      .filter(Boolean)
      .join("\n");
  return scalar(v);
}

function list(o: JsonObject, names: string[]): Value[] {
  const v = pick(o, names);
  return Array.isArray(v) ? v : v === undefined ? [] : [v];
}

const TITLE = ["paper_title", "title", "name"];
const ABSTRACT = ["paper_abstract", "abstract", "summary"];
const REFERENCES = ["paper_references", "references"];
const TECHNIQUES = ["techniques", "technique_nodes", "nodes"];
const COMPONENTS = ["components", "sub_techniques", "subtechniques", "children"];
const DESCRIPTION = ["description", "definition", "desc"];
const CODE = ["code", "code_node", "code_nodes"];
const IMPLEMENTATION = ["implementation", "code", "source", "impl"];
const TEST = ["test", "tests", "test_script"];
const DOCUMENTATION = ["documentation", "doc", "docs", "readme"];
const PACKAGES = ["package", "packages", "dependencies", "requirements"];

const KIND_OF_TYPE: Record<string, ChunkKind> = { finding: "note", resource: "dataset" };

interface Ctx {
  b: PlanBuilder;
  note: (chunk: string, node: XkgNode) => void;
  paperId: string;
  paperTitle: string;
  src: string;
  ids: UsedIds;
}

/** Chunk ids taken in this file, and per base id the next suffix to try (ids are never released). */
interface UsedIds {
  used: Set<string>;
  next: Map<string, number>;
}

/** `base`, else `base-2`, `base-3`, ...: the first free one, in time linear in the file (not per name). */
function uniqueId(ctx: Ctx, base: string): string {
  let id = base;
  let i = ctx.ids.next.get(base) ?? 2;
  if (ctx.ids.used.has(id)) {
    while (ctx.ids.used.has(`${base}-${i}`)) i++;
    id = `${base}-${i}`;
    ctx.ids.next.set(base, i + 1);
  }
  ctx.ids.used.add(id);
  return id;
}

/** Code node(s) of a technique; returns the implementation chunk ids (for depends-on from the parent). */
function addCode(
  ctx: Ctx,
  owner: JsonObject,
  ownerId: string,
  ownerName: string,
  ref: string,
  kind: ChunkKind,
): string[] {
  const out: string[] = [];
  const codes = list(owner, CODE).filter((c) => isObject(c) || typeof c === "string");
  for (const [i, c] of codes.entries()) {
    const node: JsonObject = isObject(c) ? c : { implementation: c };
    const impl = text(node, IMPLEMENTATION);
    const test = text(node, TEST);
    const doc = text(node, DOCUMENTATION);
    const rawPackages = raw(node, PACKAGES);
    const packages = list(node, PACKAGES)
      .map((p) => oneLine(scalar(p)).split(/[<>=~!\s[]/)[0] ?? "")
      .filter(Boolean);
    const extra = {
      ...(rawPackages !== undefined ? { package: rawPackages } : {}),
      ...(Object.hasOwn(node, "pass_exec") ? { pass_exec: node.pass_exec } : {}),
    };
    const cref = `${ref}.code${codes.length > 1 ? `[${i}]` : ""}`;
    if (!impl.trim() && !test.trim()) {
      ctx.b.skip(cref, "code node without implementation or test");
      continue;
    }
    const base = uniqueId(ctx, `${ownerId}#code${codes.length > 1 ? i + 1 : ""}`);
    const boundaries = [...new Set(packages)].map((p) => `package:${p.toLowerCase()}`);
    const relation: EdgeInput =
      kind === "technique" ? { type: "implements", target: ownerId } : { type: "part-of", target: ownerId };
    if (impl.trim()) {
      const line = oneLine(doc);
      const synopsis = line ? synopsisOf(ownerName, line) : undefined;
      // The documentation follows the code verbatim: BM25 and the embedder see both, and the export
      // cuts it back at documentation_at.
      const content = doc ? `${impl}${XKG_DOC_MARK}${doc}` : impl;
      const added = ctx.b.add(
        {
          id: base,
          kind: "code_unit",
          title: `${clip(ownerName, 200)} (implementation)`,
          ...(synopsis ? { synopsis } : {}),
          content,
          boundaries: ["xkg:code", ...boundaries],
          edges: [relation, { type: "part-of", target: ctx.paperId }],
          source: `${ctx.src}#${cref}`,
        },
        cref,
      );
      if (added) {
        ctx.note(base, {
          role: "code",
          index: i,
          ...extra,
          ...(doc ? { documentation_at: impl.length + XKG_DOC_MARK.length } : {}),
          ...keyOrder(node, XKG_CODE_KEYS),
        });
        out.push(base);
      }
    }
    if (test.trim()) {
      const testId = uniqueId(ctx, `${ownerId}#test${codes.length > 1 ? i + 1 : ""}`);
      const edges: EdgeInput[] = impl.trim() ? [{ type: "tests", target: base }] : [{ type: "tests", target: ownerId }];
      edges.push({ type: "part-of", target: ctx.paperId });
      const added = ctx.b.add(
        {
          id: testId,
          kind: "code_unit",
          title: `${clip(ownerName, 200)} (test)`,
          content: test,
          boundaries: ["xkg:test", ...boundaries],
          edges,
          source: `${ctx.src}#${cref}.test`,
        },
        `${cref}.test`,
      );
      // Without an implementation chunk, the test's annotation keeps the node's other fields.
      if (added)
        ctx.note(testId, {
          role: "test",
          index: i,
          ...(impl.trim() ? {} : { ...extra, ...(doc ? { documentation: doc } : {}) }),
        });
    }
  }
  return out;
}

/** A technique node and, recursively, its components. Returns its id and its code ids. */
function addTechnique(
  ctx: Ctx,
  t: Value,
  parent: { id: string; path: string } | null,
  ref: string,
  depth: number,
  index: number,
): { id: string; code: string[] } | null {
  if (typeof t === "string") t = { name: t };
  if (!isObject(t)) {
    ctx.b.skip(ref, "technique is not an object");
    return null;
  }
  const name = oneLine(text(t, ["name", "title", "technique"]));
  if (!name) {
    ctx.b.skip(ref, "technique without a name");
    return null;
  }
  // 32 levels is far deeper than any extraction produces (the paper's examples have 2); it bounds recursion.
  if (depth > 32) {
    ctx.b.skip(ref, "technique nested more than 32 levels deep");
    return null;
  }
  const type = oneLine(text(t, ["type", "category"])).toLowerCase();
  const kind = KIND_OF_TYPE[type] ?? "technique";
  const path = `${parent ? `${parent.path}/` : ""}${slug(name).slice(0, 48) || "technique"}`;
  const id = uniqueId(ctx, `${ctx.paperId}#t:${path}`);
  const description = text(t, DESCRIPTION);
  const head = verbatimHead(text(t, ["name", "title", "technique"]));
  const edges: EdgeInput[] = [{ type: "part-of", target: ctx.paperId }];
  if (parent) edges.push({ type: "part-of", target: parent.id });
  const entities: EntityInput[] =
    kind === "technique" ? [{ type: "method", id: `method:${slug(name).slice(0, 200)}`, name }] : [];
  const childCode: string[] = [];
  const components = list(t, COMPONENTS);
  const childIds: string[] = [];
  // Children first in the recursion, but the parent artifact is added before them (document order).
  const artifact: ArtifactInput = {
    id,
    kind,
    title: `${clip(name, 300)} (${clip(ctx.paperTitle, 150)})`,
    content: description ? `${head}\n\n${description}` : head,
    entities,
    boundaries: [`xkg:${type || "technique"}`],
    edges,
    source: `${ctx.src}#${ref}`,
  };
  if (!ctx.b.add(artifact, ref)) return null;
  const rawType = pick(t, ["type", "category"]);
  ctx.note(id, {
    role: "technique",
    index,
    ...(Object.hasOwn(t, "weight") ? { weight: t.weight } : {}),
    ...(rawType !== undefined ? { type: rawType } : {}),
    ...(Array.isArray(pick(t, CODE)) ? { code_list: true } : {}),
    ...keyOrder(t, XKG_TECHNIQUE_KEYS),
  });
  const codeFrom = ctx.b.plan.artifacts.length;
  const code = addCode(ctx, t, id, name, ref, kind);
  // This technique's own code and test chunks: the ones addCode just added.
  const ownCode = ctx.b.plan.artifacts.slice(codeFrom);
  for (const [i, c] of components.entries()) {
    const child = addTechnique(ctx, c, { id, path }, `${ref}.components[${i}]`, depth + 1, i);
    if (child) {
      childIds.push(child.id);
      childCode.push(...child.code);
    }
  }
  // A composite technique's code reuses its components' code (paper, C.3 composite-code prompt).
  if (code.length && childCode.length) {
    const fitted = ownCode.filter((a) => code.includes(a.id));
    for (const a of fitted)
      a.edges = [
        ...(a.edges ?? []),
        ...childCode.slice(0, 100).map((target) => ({ type: "depends-on" as const, target })),
      ];
  }
  return { id, code };
}

/** References (~12 µs each) and techniques read between two yields. */
const REFERENCE_SLICE = 500;
const TECHNIQUE_SLICE = 50;

function* addPaper(
  b: PlanBuilder,
  p: JsonObject,
  ref: string,
  src: string,
  ids: UsedIds,
  note: Ctx["note"],
): Sliced<boolean> {
  const title = oneLine(text(p, TITLE));
  const rawIds = [
    ...["arxiv_id", "arxiv", "doi", "openalex", "openalex_id", "url", "paper_url", "paper_id", "id"].map((k) =>
      scalar(p[k]),
    ),
  ].map((x) => (/^\d{4}\.\d{4,5}(v\d+)?$/.test(x) ? `arXiv:${x}` : x));
  const identity = paperIdentity(rawIds, title);
  const techniques = list(p, TECHNIQUES);
  if (!identity || (!title && identity.id.startsWith("paper:"))) {
    b.skip(ref, "paper without a title (paper_title) or an id (arxiv_id, doi)");
    return false;
  }
  const paperId = identity.id;
  const abstract = text(p, ABSTRACT);
  const findings = list(p, ["findings"]).map((f) => (isObject(f) ? text(f, ["name", "description"]) : scalar(f)));
  const resources = list(p, ["resources"]).map((f) => (isObject(f) ? text(f, ["name", "description"]) : scalar(f)));
  const entities: EntityInput[] = [identity.entity];
  const edges: EdgeInput[] = [];
  const refSlice = slicer(REFERENCE_SLICE);
  for (const [i, r] of list(p, REFERENCES).entries()) {
    yield* refSlice();
    const raw = isObject(r)
      ? [text(r, ["title", "name"]), scalar(r.doi), scalar(r.arxiv_id ?? r.arxiv)].join(". ")
      : scalar(r);
    const parsed = parseReference(raw);
    // A bare reference string in xKG is a title (Figure 5), not a formatted citation.
    const refTitle = isObject(r)
      ? oneLine(text(r, ["title", "name"]))
      : (parsed.title ?? (parsed.ids.length ? "" : oneLine(raw)));
    const rid = paperIdentity(parsed.ids, refTitle);
    if (!rid) {
      b.skip(`${ref}.paper_references[${i}]`, "reference without a title or identifier");
      continue;
    }
    entities.push(rid.entity);
    edges.push({ type: "cites", target: rid.id });
  }
  if (b.has(paperId)) {
    b.skip(ref, `same chunk id ${paperId} as an earlier paper; kept the first`);
    return false;
  }
  const head = verbatimHead(text(p, TITLE)) || paperId;
  const synopsis = abstract.trim() ? synopsisOf(title, oneLine(abstract)) : undefined;
  const added = b.add(
    {
      id: paperId,
      kind: "paper",
      title: title || paperId,
      ...(synopsis ? { synopsis } : {}),
      content: abstract ? `${head}\n\n${abstract}` : head,
      entities,
      edges,
      boundaries: ["xkg:paper"],
      source: `${src}#${ref}`,
    },
    ref,
  );
  if (!added) return false;
  const refs = raw(p, REFERENCES);
  note(paperId, {
    role: "paper",
    ...keyOrder(p, XKG_PAPER_KEYS),
    ...(refs !== undefined ? { paper_references: refs } : {}),
    ...(Array.isArray(pick(p, CODE)) ? { code_list: true } : {}),
  });
  const short = clip(title || paperId, 150);
  const part: EdgeInput[] = [{ type: "part-of", target: paperId }];
  const items: Array<{ role: "finding" | "resource"; texts: string[]; kind: ChunkKind }> = [
    { role: "finding", texts: findings, kind: "note" },
    { role: "resource", texts: resources, kind: "dataset" },
  ];
  for (const { role, texts, kind } of items)
    for (const [i, f] of texts.entries()) {
      if (!f.trim()) {
        b.skip(`${ref}.${role}s[${i}]`, `empty ${role}`);
        continue;
      }
      const id = `${paperId}#${role}-${i + 1}`;
      // "Name: what it is" (the released graphs' form) is titled by its name.
      const name = /^([^:\n]{3,160}):\s/.exec(f.replace(/^Finding:\s*/, ""))?.[1];
      const ok = b.add(
        {
          id,
          kind,
          title: `${clipLine(name ?? f, 200)} (${short})`,
          content: f,
          boundaries: [`xkg:${role}`],
          edges: part,
          source: `${src}#${ref}.${role}s[${i}]`,
        },
        `${ref}.${role}s[${i}]`,
      );
      if (ok) note(id, { role, index: i });
    }
  const repo: Array<{ role: "code_overview" | "code_file"; kind: ChunkKind; suffix: string; label: string }> = [
    { role: "code_overview", kind: "section", suffix: "code-overview", label: "Code overview" },
    { role: "code_file", kind: "record", suffix: "code-files", label: "Code files" },
  ];
  for (const r of repo) {
    const body = text(p, [r.role]);
    if (!body.trim()) continue;
    const id = `${paperId}#${r.suffix}`;
    const ok = b.add(
      {
        id,
        kind: r.kind,
        title: `${r.label} (${short})`,
        content: body,
        boundaries: [`xkg:${r.role}`],
        edges: part,
        source: `${src}#${ref}.${r.role}`,
      },
      `${ref}.${r.role}`,
    );
    if (ok) note(id, { role: r.role });
  }
  ids.used.add(paperId);
  const ctx: Ctx = { b, note, paperId, paperTitle: title || paperId, src, ids };
  const techniqueSlice = slicer(TECHNIQUE_SLICE);
  for (const [i, t] of techniques.entries()) {
    yield* techniqueSlice();
    addTechnique(ctx, t, null, `${ref}.techniques[${i}]`, 0, i);
  }
  addCode(ctx, p, paperId, title || paperId, ref, "paper");
  return true;
}

/**
 * Parse xKG JSON. Fails (validation) when the text is not JSON or holds no paper node (an object with
 * a title or id and techniques); a single unusable paper, technique or code node is skipped.
 */
export function parseXkg(text: string, opts: XkgOptions = {}): Result<ImportPlan> {
  return runSync(parseXkgSliced(text, opts));
}

/** parseXkg, yielding between papers and between slices of their references and techniques. */
export function* parseXkgSliced(text: string, opts: XkgOptions = {}): Sliced<Result<ImportPlan>> {
  const src = opts.source ?? "xkg";
  const start = startJsonPlan(text, src);
  if (!start.ok) return start;
  const { b, records } = start.value;
  const papers: Array<{ ref: string; value: JsonObject }> = [];
  for (const r of records) {
    if (isObject(r.value) && Array.isArray(r.value.papers)) {
      for (const [i, p] of r.value.papers.entries())
        if (isObject(p)) papers.push({ ref: `papers[${i}]`, value: p });
        else b.skip(`papers[${i}]`, "paper node is not an object");
    } else if (isObject(r.value)) papers.push({ ref: r.ref === "record" ? "paper" : r.ref, value: r.value });
    else b.skip(r.ref, "paper node is not an object");
  }
  const looksLikeXkg = papers.some(
    (p) =>
      pick(p.value, TITLE) !== undefined &&
      (pick(p.value, TECHNIQUES) !== undefined || pick(p.value, ABSTRACT) !== undefined),
  );
  if (!looksLikeXkg)
    return fail(
      "validation",
      "no xKG paper node found: expected objects with paper_title (or title) and techniques",
      papers.length ? `${papers[0]?.ref}.paper_title` : "text",
      'send {"paper_title": ..., "paper_abstract": ..., "techniques": [{"name", "description", "code": {"implementation", "test", "documentation", "package"}, "components": [...]}]}',
    );
  if (opts.maxRecords !== undefined) {
    const nodes = countNodes(papers);
    if (nodes > opts.maxRecords)
      return fail(
        "too_large",
        `this xkg file holds ${nodes} paper and technique nodes; one request takes at most ${opts.maxRecords}`,
        "body",
        "split the file (one paper per request works)",
      );
  }
  const ids: UsedIds = { used: new Set(), next: new Map() };
  const annotations: PlanAnnotation[] = [];
  const note = (chunk: string, node: XkgNode) => {
    annotations.push({ chunk, key: XKG_KEY, value: node });
  };
  for (const p of papers) {
    yield;
    yield* addPaper(b, p.value, p.ref, src, ids, note);
  }
  return ok({ ...b.plan, annotations });
}
