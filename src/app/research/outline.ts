/**
 * The outline tree (Tree-Guided Memory) read exactly from D1 at a time: outline nodes are chunks
 * carrying the boundary `outline`, linked `part-of` their parent; a node's references are its `cites`
 * edges. Read by the tree and assembly use cases.
 */
import { SGMC_DEFAULTS } from "../../contract/research";
import { fail, ok, type Result } from "../../core/errors";
import type { StoredVersion } from "../../core/ports";
import type { AppDeps } from "../deps";
import { iso } from "../lib/wire";
import { DRAFT, draftId, HUB, hubId, MAX_READ_CHARS, OUTLINE, readContents } from "./common";

/** Words: runs of non-space characters with a letter or digit. Linear. */
export function wordCount(text: string): number {
  let n = 0;
  for (const w of text.split(/\s+/)) if (/[\p{L}\p{N}]/u.test(w)) n++;
  return n;
}

const orderOf = (boundaries: readonly string[]): number => {
  for (const b of boundaries) {
    const m = /^order:(-?\d{1,9})$/.exec(b);
    if (m) return Number(m[1]);
  }
  return Number.POSITIVE_INFINITY;
};

export interface TreeNodeOut {
  id: string;
  version: number;
  kind: string;
  title: string;
  depth: number;
  parent: string | null;
  children: string[];
  references: Array<{ id: string; version: number; title: string }>;
  words: { own: number; own_from: "content" | "head"; references: number; counted: number };
  split: boolean;
  leaf: boolean;
  draft: { id: string; version: number; title: string } | null;
  hub: { id: string; version: number; title: string } | null;
}

export interface TreeOpts {
  theta: number;
  dMax: number;
  words: "all" | "own" | "references";
  maxNodes: number;
  /**
   * Count a node's own words from its content (Eq. 3's complexity of the direction): true for the
   * tree; false where φ is not used (assembly), so no node content is read.
   */
  ownContent: boolean;
  /** outline (default): nodes tagged `outline`; planning: xKG's planning view (inPlanningView). */
  view?: "outline" | "planning" | undefined;
}

/** xKG code records an import stores part-of the paper (src/core/formats/xkg.ts, role in the `xkg` annotation). */
const XKG_CODE_RECORDS = ["xkg:code_file", "xkg:code_overview"];

/**
 * xKG's planning view (seed 003 §2.4: the paper node without its code nodes): a chunk of the subtree
 * is in it unless it is code (`code_unit`, an xKG import's code_file and code_overview records) or
 * SGMC's working state (drafts, hubs).
 */
export function inPlanningView(v: Pick<StoredVersion, "kind" | "boundaries">): boolean {
  if (v.kind === "code_unit") return false;
  return !v.boundaries.some((b) => XKG_CODE_RECORDS.includes(b) || b === DRAFT || b === HUB);
}

/** The outline tree under `root` at t, exactly from D1, in pre-order. */
export async function readTree(
  d: AppDeps,
  archive: string,
  root: string,
  t: number,
  o: TreeOpts,
): Promise<Result<{ nodes: TreeNodeOut[]; done: boolean; pending: string[] }>> {
  const chunks = d.stores.chunks;
  const ids = await chunks.subtree(archive, root, t, o.maxNodes + 1);
  if (ids.length > o.maxNodes)
    return fail(
      "too_large",
      `the part-of subtree under ${root} has more than ${o.maxNodes} chunks at that time`,
      "max_nodes",
      `raise max_nodes (at most ${SGMC_DEFAULTS.maxNodesCap}) or read a deeper root`,
    );
  const visible = await chunks.visibleAt(archive, ids, t);
  const rootV = visible.get(root);
  if (!rootV) return fail("not_found", `chunk ${root} has no version valid at ${iso(t)}`, "root");
  const outline = new Map<string, StoredVersion>();
  const inView = o.view === "planning" ? inPlanningView : (v: StoredVersion) => v.boundaries.includes(OUTLINE);
  for (const [id, v] of visible) if (id === root || inView(v)) outline.set(id, v);
  const outlineIds = [...outline.keys()];

  // Parents among outline nodes; depth = the longest part-of path from the root (≤ 64 steps, so a
  // cycle ends), parent = the deepest parent.
  const parentsOf = new Map<string, string[]>();
  for (const e of await chunks.edgesAt(archive, outlineIds, "part-of", "out", t))
    if (e.from !== root && outline.has(e.to) && e.from !== e.to)
      parentsOf.set(e.from, [...(parentsOf.get(e.from) ?? []), e.to]);
  const depth = new Map<string, number>([[root, 0]]);
  for (let round = 0; round < 64; round++) {
    let changed = false;
    for (const [child, parents] of parentsOf)
      for (const p of parents) {
        const dp = depth.get(p);
        if (dp === undefined || dp >= 64) continue;
        if ((depth.get(child) ?? -1) < dp + 1) {
          depth.set(child, dp + 1);
          changed = true;
        }
      }
    if (!changed) break;
  }
  const parent = new Map<string, string>();
  for (const [child, parents] of parentsOf) {
    const dc = depth.get(child);
    if (dc === undefined) continue;
    const best = parents.filter((p) => depth.get(p) === dc - 1).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[0];
    if (best !== undefined) parent.set(child, best);
  }
  const children = new Map<string, string[]>();
  for (const [c, p] of parent) children.set(p, [...(children.get(p) ?? []), c]);
  const cmp = (a: string, b: string) => {
    const oa = orderOf(outline.get(a)?.boundaries ?? []);
    const ob = orderOf(outline.get(b)?.boundaries ?? []);
    if (oa !== ob) return oa < ob ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  };
  for (const l of children.values()) l.sort(cmp);

  // Pre-order; a node is visited once.
  const order: string[] = [];
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length) {
    const id = stack.pop() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    order.push(id);
    const cs = children.get(id) ?? [];
    for (let i = cs.length - 1; i >= 0; i--) stack.push(cs[i] as string);
  }

  const refsOf = new Map<string, string[]>();
  for (const e of await chunks.edgesAt(archive, order, "cites", "out", t))
    refsOf.set(e.from, [...(refsOf.get(e.from) ?? []), e.to]);
  const refIds = [...new Set([...refsOf.values()].flat())];
  const refs = refIds.length ? await chunks.visibleAt(archive, refIds, t) : new Map<string, StoredVersion>();

  // Eq. 3's complexity of a direction: the words of the node's own text (its content valid at t, read
  // from the blob store like every content read); a node whose content is empty or unreadable counts
  // its title and synopsis, as does every node with words=references (no node content is read then).
  // References count by their heads (title and synopsis, the seed's abstracts).
  const ownText = new Map<string, string>();
  if (o.ownContent && o.words !== "references") {
    const withText = order.map((id) => outline.get(id) as StoredVersion).filter((v) => v.contentChars > 0);
    const chars = withText.reduce((n, v) => n + v.contentChars, 0);
    if (chars > MAX_READ_CHARS)
      return fail(
        "too_large",
        `the outline nodes under ${root} hold ${chars} characters of content (at most ${MAX_READ_CHARS} per call)`,
        "root",
        "read a deeper root, or count heads only with words=references",
      );
    const contents = await readContents(
      d,
      withText.map((v) => v.contentKey),
    );
    for (const v of withText) {
      const c = contents.get(v.contentKey);
      if (c !== undefined && c.trim().length > 0) ownText.set(v.chunkId, c);
    }
  }

  const ref = (v: StoredVersion | undefined) => (v ? { id: v.chunkId, version: v.version, title: v.title } : null);
  const nodes: TreeNodeOut[] = [];
  const pending: string[] = [];
  let done = true;
  for (const id of order) {
    const v = outline.get(id) as StoredVersion;
    const dep = depth.get(id) ?? 0;
    const references = (refsOf.get(id) ?? []).map((r) => refs.get(r)).filter((r) => r !== undefined);
    const text = ownText.get(id);
    const own = text === undefined ? wordCount(`${v.title} ${v.synopsis}`) : wordCount(text);
    const refWords = references.reduce((n, r) => n + wordCount(`${r.title} ${r.synopsis}`), 0);
    const counted = o.words === "own" ? own : o.words === "references" ? refWords : own + refWords;
    const split = counted > o.theta;
    const kids = children.get(id) ?? [];
    const leaf = kids.length === 0;
    if (leaf && split && dep < o.dMax) {
      done = false;
      pending.push(id);
    }
    nodes.push({
      id,
      version: v.version,
      kind: v.kind,
      title: v.title,
      depth: dep,
      parent: parent.get(id) ?? null,
      children: kids,
      references: references.map((r) => ({ id: r.chunkId, version: r.version, title: r.title })),
      words: { own, own_from: text === undefined ? "head" : "content", references: refWords, counted },
      split,
      leaf,
      draft: ref(visible.get(draftId(id))),
      hub: ref(visible.get(hubId(id))),
    });
  }
  return ok({ nodes, done, pending });
}
