/**
 * Paper analysis use cases: locate (where in one paper something is discussed: sections, figure /
 * table / equation elements and exact snippets, routed within the paper's `part-of` subtree) and
 * coverage (which of its sections and elements are linked). The subtree, edges and entities are read
 * exactly from D1 at `as_of`; snippets are spans of the versions valid then.
 */
import type * as S from "../contract";
import { LOCATE_KINDS } from "../contract/papers";
import { fail, ok, type Result } from "../core/errors";
import { pageAt, pageMarks } from "../core/formats/pdf";
import type { ChunkStore } from "../core/ports";
import { bestSentences, type CoverageInputItem, type CoverageType, coverage } from "../core/research/papers";
import type { ChunkKind } from "../core/types";
import type { AppDeps } from "./deps";
import { MAX_SUBTREE } from "./lib/filter";
import { type In, iso, timeOf } from "./lib/wire";

/** Candidates asked of the router per locate call: enough that `limit` items survive the subtree filter. */
const LOCATE_POOL = 64;

/** Four significant digits (similarities and scores of papers). */
const sig4 = (x: number) => Number(x.toPrecision(4));

const elementType = (boundaries: string[]): "figure" | "table" | "equation" | null => {
  for (const b of boundaries)
    if (b === "element:figure" || b === "element:table" || b === "element:equation")
      return b.slice("element:".length) as "figure" | "table" | "equation";
  return null;
};

/** The paper's version at t, or the failure that says why there is none. */
async function paperAt(chunks: ChunkStore, archive: string, paper: string, t: number) {
  const head = (await chunks.visibleAt(archive, [paper], t)).get(paper);
  if (head) {
    if (head.kind !== "paper")
      return fail(
        "validation",
        `${paper} is a ${head.kind} chunk, not a paper`,
        "paper",
        "give a paper chunk id (list them with GET …/chunks?kind=paper)",
      );
    return ok(head);
  }
  const row = await chunks.chunkRow(archive, paper);
  return row
    ? fail("not_found", `paper ${paper} has no version valid at ${iso(t)}`, "as_of", "give a later as_of")
    : fail(
        "not_found",
        `chunk ${paper} is not in archive ${archive}`,
        "paper",
        "list papers with GET …/chunks?kind=paper",
      );
}

/**
 * What locate and coverage read first: the request's time, the paper's version then (or the failure
 * that says why there is none) and the ids of its `part-of` subtree then, the paper included.
 */
async function openPaper(d: AppDeps, archive: string, paper: string, asOf: string | undefined) {
  const t = timeOf(d, asOf);
  const head = await paperAt(d.stores.chunks, archive, paper, t);
  if (!head.ok) return head;
  return ok({ t, head: head.value, subtree: await d.stores.chunks.subtree(archive, paper, t, MAX_SUBTREE) });
}

/**
 * The sections the located items fall in, each once, in item order: a section item itself, an
 * element item the sections it is discussed in.
 */
function sectionsOf(items: In<typeof S.LocateResult>["items"]): In<typeof S.LocateResult>["sections"] {
  const sections: In<typeof S.LocateResult>["sections"] = [];
  const placed = new Set<string>();
  for (const it of items) {
    const add = (chunk: string, via: string | null) => {
      if (placed.has(chunk)) return;
      placed.add(chunk);
      sections.push({ chunk, score: it.score, via });
    };
    if (it.kind === "section") add(it.chunk, null);
    else if (it.kind === "element") for (const s of it.discussed_in) add(s, it.chunk);
  }
  return sections;
}

export function paperUseCases(d: AppDeps) {
  const chunks: ChunkStore = d.stores.chunks;

  return {
    /** POST …/locate: where in one paper the query is discussed. */
    async locate(archive: string, b: In<typeof S.LocateBody>): Promise<Result<In<typeof S.LocateResult>>> {
      const open = await openPaper(d, archive, b.paper, b.as_of);
      if (!open.ok) return open;
      const { t, subtree } = open.value;
      const inTree = new Set(subtree);
      const kinds: ChunkKind[] = [...(b.kinds ?? LOCATE_KINDS)];
      const r = await d.kernel.route({
        archiveId: archive,
        query: b.query,
        asOf: t,
        limit: Math.max(b.limit, 8),
        filter: { kinds, only: subtree },
      });
      // The router's picks first, then the rest of the filtered pool by score.
      const score = new Map(r.route.candidates.map((c) => [c.chunk, c.score]));
      const order: string[] = [];
      const seen = new Set<string>();
      for (const s of r.route.selected)
        if (inTree.has(s.chunk) && !seen.has(s.chunk)) {
          seen.add(s.chunk);
          order.push(s.chunk);
          if (!score.has(s.chunk)) score.set(s.chunk, s.score);
        }
      const rest = r.route.candidates
        .filter((c) => inTree.has(c.chunk) && !seen.has(c.chunk))
        .sort((a, z) => z.score - a.score || (a.chunk < z.chunk ? -1 : 1));
      for (const c of rest.slice(0, LOCATE_POOL)) order.push(c.chunk);
      const ids = order.slice(0, b.limit);
      const [visible, out, into] = await Promise.all([
        chunks.visibleAt(archive, ids, t),
        chunks.edgesAt(archive, ids, "discussed-in", "out", t),
        chunks.edgesAt(archive, ids, "discussed-in", "in", t),
      ]);
      const discussedIn = new Map<string, string[]>();
      for (const e of out) if (inTree.has(e.to)) discussedIn.set(e.from, [...(discussedIn.get(e.from) ?? []), e.to]);
      const discusses = new Map<string, string[]>();
      for (const e of into) if (inTree.has(e.to)) discusses.set(e.from, [...(discusses.get(e.from) ?? []), e.to]);
      const byOrder = (a: string, z: string) => a.localeCompare(z, "en", { numeric: true });
      const items: In<typeof S.LocateResult>["items"] = [];
      for (const id of ids) {
        const v = visible.get(id);
        if (!v || !(LOCATE_KINDS as readonly string[]).includes(v.kind)) continue;
        const text = b.snippets > 0 ? await d.kernel.contentOf(v.contentKey) : null;
        // Pages come from the version's page marks (PDF imports); other sources have none.
        const marks = pageMarks(v.boundaries);
        const snippets =
          text === null
            ? []
            : bestSentences(text, b.query, b.snippets).map((s) => ({
                ...s,
                score: sig4(s.score),
                page: pageAt(marks, s.start),
              }));
        items.push({
          rank: items.length + 1,
          chunk: id,
          kind: v.kind as (typeof LOCATE_KINDS)[number],
          element_type: v.kind === "element" ? elementType(v.boundaries) : null,
          title: v.title,
          version: v.version,
          score: sig4(score.get(id) ?? 0),
          page: snippets[0]?.page ?? pageAt(marks, 0),
          discussed_in: (discussedIn.get(id) ?? []).sort(byOrder),
          discusses: (discusses.get(id) ?? []).sort(byOrder),
          snippets,
        });
      }
      return ok({
        paper: b.paper,
        as_of: iso(t),
        items,
        sections: sectionsOf(items),
        trace: { subtree: subtree.length, candidates: rest.length + seen.size },
      });
    },

    /** GET …/coverage: which of the paper's sections and elements are linked. */
    async coverage(archive: string, q: In<typeof S.CoverageQuery>): Promise<Result<In<typeof S.CoverageResult>>> {
      const open = await openPaper(d, archive, q.paper, q.as_of);
      if (!open.ok) return open;
      const { t, head, subtree } = open.value;
      const ids = subtree.filter((x) => x !== q.paper);
      const visible = await chunks.visibleAt(archive, ids, t);
      const entities = await chunks.entitiesAt(archive, ids, t);
      const items: CoverageInputItem[] = [];
      const pageOf = new Map<string, number | null>();
      for (const [id, v] of visible) {
        pageOf.set(id, pageAt(pageMarks(v.boundaries), 0));
        const type: CoverageType | null =
          v.kind === "section" ? "section" : v.kind === "element" ? elementType(v.boundaries) : null;
        if (!type) continue;
        items.push({ chunk: id, title: v.title, version: v.version, type, entities: entities.get(id) ?? [] });
      }
      const elements = items.filter((x) => x.type !== "section").map((x) => x.chunk);
      const sections = items.filter((x) => x.type === "section").map((x) => x.chunk);
      const [discussed, cites] = await Promise.all([
        chunks.edgesAt(archive, elements, "discussed-in", "out", t),
        chunks.edgesAt(archive, sections, "cites", "out", t),
      ]);
      const res = coverage(
        {
          paper: q.paper,
          items,
          discussedIn: discussed.map((e) => ({ element: e.from, section: e.to })),
          citing: new Set(cites.map((e) => e.from)),
        },
        q.rule,
        q.aggregate,
      );
      const r4 = (x: number | null) => (x === null ? null : sig4(x));
      const types = Object.fromEntries(
        Object.entries(res.types).map(([k, v]) => [
          k,
          { ...v, share: r4(v.share), unlinked: v.unlinked.map((u) => ({ ...u, page: pageOf.get(u.chunk) ?? null })) },
        ]),
      ) as In<typeof S.CoverageResult>["types"];
      const pagesTag = /^pages:(\d+)$/;
      let pages: number | null = null;
      for (const t of head.boundaries) {
        const m = pagesTag.exec(t);
        if (m) pages = Number(m[1]);
      }
      return ok({
        paper: q.paper,
        as_of: iso(t),
        rule: q.rule,
        aggregate: q.aggregate,
        share: r4(res.share),
        pages,
        total: res.total,
        linked: res.linked,
        types,
      });
    },
  };
}
