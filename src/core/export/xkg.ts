/**
 * The xKG export: rebuilds Figure 5's one-object-per-paper layout from the chunks an xKG import
 * wrote (src/core/formats/xkg.ts states the mapping) and their `xkg` annotations. Pure: the caller
 * reads the chunks (the version shown at as_of), their declared edges and annotations.
 *
 * Key order follows the released graphs: paper_title, paper_abstract, paper_references, resources,
 * findings, code_file, code_overview, techniques; a technique's name, description, weight, code,
 * components; a code node's implementation, test, documentation, package, pass_exec.
 */
import { XKG_DOC_MARK, type XkgNode } from "../formats/xkg";

export interface XkgExportNode {
  id: string;
  content: string;
  /** The edges the chunk's shown version declares. */
  edges: Array<{ type: string; target: string }>;
  node: XkgNode;
}

type Json = unknown;

const byIndex = (a: XkgExportNode, b: XkgExportNode) =>
  indexOf(a) - indexOf(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function indexOf(n: XkgExportNode): number {
  return "index" in n.node ? n.node.index : 0;
}

/** The keys in `order` first (as the source file had them), then the rest in their order. */
function reorder(o: Record<string, Json>, order: readonly string[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const k of order) if (k in o) out[k] = o[k];
  for (const [k, v] of Object.entries(o)) if (!(k in out)) out[k] = v;
  return out;
}

/** "head\n\nrest" -> [head, rest]; no separator -> [whole, ""]. */
function splitHead(content: string): [string, string] {
  const i = content.indexOf("\n\n");
  return i < 0 ? [content, ""] : [content.slice(0, i), content.slice(i + 2)];
}

function targets(n: XkgExportNode, type: string): string[] {
  return n.edges.filter((e) => e.type === type).map((e) => e.target);
}

/**
 * One Figure 5 object per paper node, in paper id order. Nodes whose paper is not among `nodes`
 * (a technique whose paper was forgotten) are left out.
 */
export function buildXkgPapers(nodes: readonly XkgExportNode[]): Array<{ id: string; paper: Record<string, Json> }> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const role = (id: string) => byId.get(id)?.node.role;
  const children = new Map<string, XkgExportNode[]>();
  const push = (owner: string, n: XkgExportNode) => {
    const list = children.get(owner);
    if (list) list.push(n);
    else children.set(owner, [n]);
  };
  // Owners: a technique's parent technique, else its paper; code: the technique it implements, else
  // its paper; a test: the implementation it tests (or, without one, the technique); the rest: the paper.
  for (const n of nodes) {
    const partOf = targets(n, "part-of");
    const paper = partOf.find((t) => role(t) === "paper");
    switch (n.node.role) {
      case "paper":
        break;
      case "technique":
        push(partOf.find((t) => role(t) === "technique") ?? paper ?? "", n);
        break;
      case "code":
        push(targets(n, "implements").find((t) => role(t) === "technique") ?? paper ?? "", n);
        break;
      case "test":
        push(targets(n, "tests").find((t) => byId.has(t)) ?? paper ?? "", n);
        break;
      default:
        if (paper) push(paper, n);
    }
  }
  const owned = (id: string, r: XkgNode["role"]) =>
    (children.get(id) ?? []).filter((c) => c.node.role === r).sort(byIndex);

  const codeObject = (c: XkgExportNode): Record<string, Json> => {
    const o: Record<string, Json> = {};
    if (c.node.role === "code") {
      const at = c.node.documentation_at;
      const tests = owned(c.id, "test");
      o.implementation = at === undefined ? c.content : c.content.slice(0, at - XKG_DOC_MARK.length);
      o.test = tests[0]?.content ?? "";
      o.documentation = at === undefined ? "" : c.content.slice(at);
      o.package = c.node.package ?? [];
      if (c.node.pass_exec !== undefined) o.pass_exec = c.node.pass_exec;
      if (c.node.keys) return reorder(o, c.node.keys);
    } else if (c.node.role === "test") {
      o.implementation = "";
      o.test = c.content;
      o.documentation = c.node.documentation ?? "";
      o.package = c.node.package ?? [];
      if (c.node.pass_exec !== undefined) o.pass_exec = c.node.pass_exec;
    }
    return o;
  };

  /** A technique's or paper's code nodes: implementations, and tests that have no implementation. */
  const codeOf = (id: string, asList: boolean): Json => {
    const impl = owned(id, "code");
    const bare = owned(id, "test");
    const all = [...impl, ...bare].sort(byIndex).map(codeObject);
    if (all.length === 0) return asList ? [] : null;
    return asList ? all : all[0];
  };

  const technique = (t: XkgExportNode, depth: number): Record<string, Json> => {
    const [name, description] = splitHead(t.content);
    const node = t.node.role === "technique" ? t.node : null;
    const o: Record<string, Json> = { name, description };
    if (node?.type !== undefined) o.type = node.type;
    if (node?.weight !== undefined) o.weight = node.weight;
    o.code = codeOf(t.id, node?.code_list === true);
    // Depth is bounded by the importer (32 levels); the guard keeps a cyclic edge set finite.
    o.components = depth > 32 ? [] : owned(t.id, "technique").map((c) => technique(c, depth + 1));
    return node?.keys ? reorder(o, node.keys) : o;
  };

  const out: Array<{ id: string; paper: Record<string, Json> }> = [];
  const papers = nodes.filter((n) => n.node.role === "paper").sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const p of papers) {
    const [title, abstract] = splitHead(p.content);
    const node = p.node.role === "paper" ? p.node : null;
    const text = (r: "code_file" | "code_overview") => owned(p.id, r)[0]?.content ?? "";
    const paper: Record<string, Json> = {
      paper_title: title,
      paper_abstract: abstract,
      paper_references: node?.paper_references === undefined ? [] : node.paper_references,
      resources: owned(p.id, "resource").map((r) => r.content),
      findings: owned(p.id, "finding").map((r) => r.content),
      code_file: text("code_file"),
      code_overview: text("code_overview"),
      techniques: owned(p.id, "technique").map((t) => technique(t, 0)),
    };
    const paperCode = codeOf(p.id, node?.code_list === true);
    if (paperCode !== null && !(Array.isArray(paperCode) && paperCode.length === 0)) paper.code = paperCode;
    out.push({ id: p.id, paper: node?.keys ? reorder(paper, node.keys) : paper });
  }
  return out;
}

/**
 * The planning view of a paper's xKG object (seed 003 §2.4: "the target paper's Paper Node without
 * all Code Nodes"): the same object without `code` on the paper and on every technique and
 * component, and without `code_file` and `code_overview`. Not a full graph: an import of it stores
 * the techniques without their code.
 */
export function planningView(paper: Record<string, Json>): Record<string, Json> {
  const strip = (t: Json): Json => {
    if (t === null || typeof t !== "object" || Array.isArray(t)) return t;
    const { code: _code, components, ...rest } = t as Record<string, Json>;
    return { ...rest, components: Array.isArray(components) ? components.map(strip) : [] };
  };
  const { code: _code, code_file: _file, code_overview: _overview, techniques, ...rest } = paper;
  return { ...rest, techniques: Array.isArray(techniques) ? techniques.map(strip) : [] };
}
