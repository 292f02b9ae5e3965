/**
 * A paper's reference entries (a PDF's References section, a .bbl file) resolved against the archive,
 * shared by both imports: an entry with a DOI, arXiv or OpenAlex id names that work; an entry with
 * only a title names the archive paper whose normalised title (or alias) it equals; the rest are
 * kept on the paper as the annotation `references:unresolved`, rewritten by each import, so a
 * re-import after the cited papers arrive resolves them.
 */
import { aliasKeys, normAlias } from "../../core/ids";
import type { EdgeInput } from "../../core/ingest";
import type { World } from "../deps";

/** Annotation key of a paper's references that matched nothing (a list of {n, text, title}, with key and ids from a .bbl). */
export const UNRESOLVED_REFERENCES_KEY = "references:unresolved";

export interface ReferenceEntry {
  /** 1-based position in the list. */
  n: number;
  text: string;
  title: string | null;
  ids: string[];
  /** The canonical id the entry's identifiers name (paperIdentity), null without one. */
  cited: string | null;
  /** The citation key (a .bbl's `\bibitem{key}`). */
  key?: string;
}

export interface ReferenceReport {
  /** Entries read. */
  found: number;
  /** Entries that became `cites` edges of the paper. */
  cited: number;
  items: Array<{
    n: number;
    key?: string;
    text: string;
    title: string | null;
    /** The entry's identifiers (format=bbl). */
    ids?: string[];
    /** The `cites` target, null when unresolved. */
    target: string | null;
    /** doi | arxiv | openalex (an identifier in the entry) | title (an archive paper's title) | null. */
    matched_by: string | null;
    /** The target is a paper in the archive now (an identifier's work may arrive later). */
    in_archive: boolean;
  }>;
  /** The entries that matched nothing, stored on the paper under UNRESOLVED_REFERENCES_KEY. */
  unresolved: number;
}

/** What is stored per unresolved entry. */
export interface UnresolvedReference {
  n: number;
  key?: string;
  text: string;
  title: string | null;
  ids?: string[];
}

export interface ResolveOptions {
  /** The citing paper's chunk id (it never cites itself). */
  paper: string;
  /**
   * `cite` (PDF): an entry's identifier is its target whether or not the work is in the archive yet
   * (the plan already carries those edges). `archive` (.bbl): only a work in the archive is cited,
   * by the chunk that holds it; the others stay unresolved with their ids.
   */
  ids: "cite" | "archive";
  /** Edge targets the paper already cites (no second edge is added for them). */
  alreadyCited: Iterable<string>;
}

export interface Resolution {
  report: ReferenceReport;
  /** The `cites` edges to add to the paper, one per target. */
  edges: EdgeInput[];
  unresolved: UnresolvedReference[];
}

/** Match each entry to an archive paper (by identifier, else by title); see the module comment. */
export async function resolveReferences(
  world: Pick<World, "papersByAliases" | "chunksByIds">,
  archiveId: string,
  refs: readonly ReferenceEntry[],
  opts: ResolveOptions,
): Promise<Resolution> {
  const byAlias = new Map<string, string>();
  const keys = [...new Set(refs.flatMap((r) => [...(r.title ? aliasKeys(r.title) : []), ...r.ids.flatMap(aliasKeys)]))];
  for (let i = 0; i < keys.length; i += 80)
    for (const m of await world.papersByAliases(archiveId, keys.slice(i, i + 80)))
      if (!byAlias.has(normAlias(m.key))) byAlias.set(normAlias(m.key), m.chunkId);
  const idTargets = [...new Set(refs.flatMap((r) => (r.cited ? [r.cited] : [])))];
  const present = new Set<string>();
  for (let i = 0; i < idTargets.length; i += 80)
    for (const [id, row] of await world.chunksByIds(archiveId, idTargets.slice(i, i + 80)))
      if (row.kind === "paper") present.add(id);
  const cited = new Set(opts.alreadyCited);
  const edges: EdgeInput[] = [];
  const cite = (target: string) => {
    if (cited.has(target)) return;
    cited.add(target);
    edges.push({ type: "cites", target });
  };
  const items: ReferenceReport["items"] = [];
  for (const r of refs) {
    const base = {
      n: r.n,
      ...(r.key !== undefined ? { key: r.key } : {}),
      text: r.text.slice(0, 500),
      title: r.title,
      ...(opts.ids === "archive" ? { ids: r.ids } : {}),
    };
    const id = r.cited && r.cited !== opts.paper ? r.cited : null;
    if (id) {
      const holder = present.has(id) ? id : r.ids.map((x) => byAlias.get(normAlias(x))).find(Boolean);
      const matchedBy = id.split(":")[0] ?? "id";
      if (opts.ids === "cite") {
        items.push({ ...base, target: id, matched_by: matchedBy, in_archive: holder !== undefined });
        continue;
      }
      if (holder && holder !== opts.paper) {
        cite(holder);
        items.push({ ...base, target: holder, matched_by: matchedBy, in_archive: true });
        continue;
      }
    }
    const hit = r.title ? byAlias.get(normAlias(r.title)) : undefined;
    if (hit && hit !== opts.paper) {
      cite(hit);
      items.push({ ...base, target: hit, matched_by: "title", in_archive: true });
    } else items.push({ ...base, target: null, matched_by: null, in_archive: false });
  }
  const open = items.filter((x) => x.target === null);
  return {
    report: { found: refs.length, cited: items.length - open.length, items, unresolved: open.length },
    edges,
    unresolved: open.map((x) => ({
      n: x.n,
      ...(x.key !== undefined ? { key: x.key } : {}),
      text: x.text,
      title: x.title,
      ...(x.ids?.length ? { ids: x.ids } : {}),
    })),
  };
}
