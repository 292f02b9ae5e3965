/**
 * The rendered exports: an archive (or a collection or subtree of it) as csv, bibtex, csljson,
 * markdown, html, graphml, mermaid or xKG, and a /context result as json, markdown, csv, bibtex or
 * csljson, each gathered from D1 and R2 and handed to the pure renderers in src/core/export.
 */
import { foldAnnotations } from "../../core/annotations";
import { fail, ok, type Result } from "../../core/errors";
import { bibtexPartsSliced, renderBibtex, renderCslItems, renderCslItemsSliced } from "../../core/export/biblio";
import { csvParts, renderCardsCsv } from "../../core/export/csv";
import { graphmlParts, renderMermaid } from "../../core/export/graph";
import { graphPageCsp, graphPageParts } from "../../core/export/graph-html";
import { htmlCsp, htmlParts } from "../../core/export/html";
import { anchorLabel, archiveMarkdownParts, renderContextMarkdown } from "../../core/export/markdown";
import { jsonArrayParts, type Parts } from "../../core/export/parts";
import { CONTENT_TYPES, type ContextExportFormat, type ExportFormat } from "../../core/export/types";
import { buildXkgPapers, planningView, type XkgExportNode } from "../../core/export/xkg";
import { XKG_KEY, type XkgNode } from "../../core/formats/xkg";
import { runSliced, type Sliced } from "../../core/pace";
import type { AnnotationRecord, ChunkRecord as ChunkRow, VersionRecord as VersionRow } from "../../core/ports";
import type { ContextRequest, ScoredCard } from "../../core/query";
import { toEvent } from "../lib/records";
import {
  checkExportSize,
  contentOf,
  type ExportBody,
  type ExportDeps,
  exportFilename,
  partsBody,
  READ_PAGE,
  safeName,
  store,
} from "./common";
import { archiveGraph, archiveRecords, cardRecords, withEdgeStatus, withReviewStatus } from "./gather";
import { addModelTechniques, isModelTechnique } from "./xkg-model";

/** An archive export in one of the rendered formats (every format but the json dump); 413 over the export size limit. */
export async function renderArchive(
  deps: ExportDeps,
  archiveId: string,
  format: Exclude<ExportFormat, "json">,
  asOf: number | undefined,
  now: number,
  paper?: string | undefined,
  sel?: { only: ReadonlySet<string>; label: string; root?: string | undefined } | undefined,
  view: "full" | "planning" = "full",
): Promise<Result<ExportBody>> {
  const size = await checkExportSize(deps, archiveId);
  if (!size.ok) return size;
  const filename = exportFilename(archiveId, format);
  const contentType = CONTENT_TYPES[format];
  const only = sel?.only;
  // Review statuses are read at as_of (default now), like the versions shown.
  const records = async (withPapers: boolean) =>
    withReviewStatus(deps, archiveId, await archiveRecords(deps, archiveId, asOf, withPapers, only), asOf ?? now);
  // A document is sent as it is rendered (partsBody: its text when short, else a stream made a
  // slice at a time with a pause before each); work before the first part pauses at its yields.
  const body = (doc: Parts) => partsBody(doc, deps.pause);
  const prepare = <T>(work: Sliced<T>) => runSliced(work, deps.pause);
  switch (format) {
    case "xkg":
      return exportXkg(deps, archiveId, asOf, now, paper, view);
    case "csv":
      return ok({ body: body(csvParts(await records(false))), contentType, filename });
    case "bibtex":
      return ok({ body: body(await prepare(bibtexPartsSliced(await records(true)))), contentType, filename });
    case "csljson":
      return ok({
        body: body(jsonArrayParts(await prepare(renderCslItemsSliced(await records(true))))),
        contentType,
        filename,
      });
    case "markdown": {
      const archive = await deps.archives.getArchive(archiveId);
      return ok({
        body: body(
          archiveMarkdownParts({ id: archiveId, name: archive?.name ?? archiveId }, await records(false), {
            asOf,
            exportedAt: now,
          }),
        ),
        contentType,
        filename,
      });
    }
    case "html": {
      const t = asOf ?? now;
      const archive = await deps.archives.getArchive(archiveId);
      // One read of the records for the graph's nodes and the listing (it was read twice).
      const base = await archiveRecords(deps, archiveId, t, false, only);
      const graph = await archiveGraph(deps, archiveId, t, only, base);
      const recs = await withReviewStatus(deps, archiveId, base, t);
      const edges = await withEdgeStatus(deps, archiveId, graph.edges, t);
      return ok({
        body: body(
          htmlParts(
            { id: archiveId, name: archive?.name ?? archiveId },
            recs,
            edges,
            { asOf: t, exportedAt: now, scope: sel?.label },
            await htmlCsp(),
          ),
        ),
        contentType,
        filename,
      });
    }
    case "graph-html": {
      const t = asOf ?? now;
      const archive = await deps.archives.getArchive(archiveId);
      const graph = await reviewedGraph(deps, archiveId, t, only);
      const csp = await graphPageCsp();
      return ok({
        body: body(
          graphPageParts(
            graph,
            {
              archive: { id: archiveId, name: archive?.name ?? archiveId },
              asOf: t,
              exportedAt: now,
              scope: sel?.label,
              root: sel?.root,
            },
            csp,
          ),
        ),
        contentType,
        filename,
        csp,
      });
    }
    case "graphml":
    case "mermaid": {
      const t = asOf ?? now;
      const graph = await reviewedGraph(deps, archiveId, t, only);
      const meta = { archive: archiveId, asOf: t };
      return ok({
        body: format === "graphml" ? body(graphmlParts(graph, meta)) : renderMermaid(graph, meta),
        contentType,
        filename,
      });
    }
  }
}

/** The graph at t with the review status of each archive node and each edge at t. */
async function reviewedGraph(deps: ExportDeps, archiveId: string, t: number, only: ReadonlySet<string> | undefined) {
  const graph = await archiveGraph(deps, archiveId, t, only);
  await withReviewStatus(
    deps,
    archiveId,
    graph.nodes.filter((n) => !n.external),
    t,
  );
  await withEdgeStatus(deps, archiveId, graph.edges, t);
  return graph;
}

// ------------------------------------------------------------------ xKG (Figure 5 layout)

/**
 * The chunks an xKG import wrote (a boundary starting `xkg:` and an `xkg` annotation), at the version
 * shown at `asOf`, rebuilt into one Figure 5 object per paper. `paper` picks one paper chunk: the
 * body is then that paper's JSON file; otherwise JSON Lines, one paper per line (re-importable).
 */
export async function exportXkg(
  deps: ExportDeps,
  archiveId: string,
  asOf: number | undefined,
  now: number,
  paper: string | undefined,
  view: "full" | "planning" = "full",
): Promise<Result<ExportBody>> {
  const st = store(deps);
  const t = asOf ?? now;
  const picked: Array<{ c: ChunkRow; v: VersionRow }> = [];
  // Techniques a model proposed (POST /techniques/propose): appended after the imported ones.
  const modelMade: Array<{ c: ChunkRow; v: VersionRow }> = [];
  const take = async (page: ChunkRow[]) => {
    const shown = await st.shownVersions(archiveId, page, asOf);
    for (const c of page) {
      const v = shown.get(c.chunkId);
      if (v?.boundaries.some((b) => b.startsWith("xkg:"))) picked.push({ c, v });
      else if (v && isModelTechnique(v)) modelMade.push({ c, v });
    }
  };
  // One paper: an xKG import names every node of a paper `<paper id>#…` (src/core/formats/xkg.ts),
  // so its chunks are the paper's row and one key range after `<paper id>#`, not the whole archive.
  const prefix = paper === undefined ? null : `${paper}#`;
  if (paper !== undefined) await take(await st.chunksByIds(archiveId, [paper]));
  let after: string | null = prefix;
  for (;;) {
    await deps.pause?.();
    const page = await st.chunkPage(archiveId, after, READ_PAGE);
    const inScope = prefix === null ? page : page.filter((c) => c.chunkId.startsWith(prefix));
    if (inScope.length > 0) await take(inScope);
    if (page.length < READ_PAGE || inScope.length < page.length) break;
    after = page[page.length - 1]?.chunkId ?? null;
  }
  const roles = new Map<string, XkgNode>();
  const ids = picked.map((x) => x.c.chunkId);
  for (let i = 0; i < ids.length; i += 200) {
    await deps.pause?.();
    const rows = await deps.annotations.annotationsOf(archiveId, ids.slice(i, i + 200), XKG_KEY, t);
    const byChunk = new Map<string, AnnotationRecord[]>();
    for (const r of rows) byChunk.set(r.chunkId, [...(byChunk.get(r.chunkId) ?? []), r]);
    for (const [chunk, evs] of byChunk) {
      const v = foldAnnotations(evs.map(toEvent), t).get(XKG_KEY)?.value;
      if (v && typeof v === "object" && typeof (v as { role?: unknown }).role === "string")
        roles.set(chunk, v as XkgNode);
    }
  }
  const nodes: XkgExportNode[] = [];
  const withRole = picked.filter((x) => roles.has(x.c.chunkId));
  for (let i = 0; i < withRole.length; i += 50) {
    await deps.pause?.();
    const slice = withRole.slice(i, i + 50);
    const contents = await Promise.all(slice.map((x) => contentOf(deps, x.v)));
    for (const [j, x] of slice.entries())
      nodes.push({
        id: x.c.chunkId,
        content: contents[j] ?? "",
        edges: x.v.edges.map((e) => ({ type: e.type, target: e.target })),
        node: roles.get(x.c.chunkId) as XkgNode,
      });
  }
  const withModel = await addModelTechniques(deps, archiveId, asOf, t, buildXkgPapers(nodes), modelMade, paper);
  const papers = withModel.map((p) => (view === "planning" ? { ...p, paper: planningView(p.paper) } : p));
  if (paper !== undefined) {
    const one = papers.find((p) => p.id === paper);
    if (!one)
      return fail(
        "not_found",
        `no xKG paper ${paper} in archive ${archiveId}${asOf !== undefined ? " at as_of" : ""}`,
        "paper",
        "give the id of a paper chunk (an xkg import's: GET /chunks?boundary=xkg:paper; or any chunk of kind paper)",
      );
    return ok({
      body: `${JSON.stringify(one.paper, null, 2)}\n`,
      contentType: "application/json; charset=utf-8",
      filename: `${safeName(paper)}${view === "planning" ? ".plan" : ""}.json`,
    });
  }
  return ok({
    body: papers.map((p) => `${JSON.stringify(p.paper)}\n`).join(""),
    contentType: CONTENT_TYPES.xkg,
    filename: exportFilename(archiveId, "xkg"),
  });
}

/** What `max_code_bytes` / `code_chunks` made of a context's cards (src/app/code-context.ts). */
export type ContextCode = (
  cards: ScoredCard[],
) => Promise<{ cards: ScoredCard[]; bytes: number; leftOut: string[]; max?: number | undefined }>;

export async function exportContext(
  deps: ExportDeps,
  req: ContextRequest,
  format: ContextExportFormat,
  code?: ContextCode,
): Promise<ExportBody> {
  const answer = await deps.kernel.context(req);
  const coded = code ? await code(answer.cards) : null;
  const r = coded ? { ...answer, cards: coded.cards } : answer;
  const codeInfo = coded
    ? { code_bytes: coded.bytes, ...(coded.max !== undefined ? { code_left_out: coded.leftOut } : {}) }
    : {};
  const filename = exportFilename(req.archiveId, format, "-context");
  const contentType = CONTENT_TYPES[format];
  switch (format) {
    case "json":
      return {
        body: `${JSON.stringify(
          {
            query: req.query,
            as_of: new Date(r.asOf).toISOString(),
            short_term: r.shortTerm,
            short_term_chunks: r.shortTermChunks,
            cards: r.cards,
            evidence: r.evidence,
            budget: r.budget,
            skipped: r.skipped,
            ...codeInfo,
            selected: r.route.selected,
          },
          null,
          2,
        )}\n`,
        contentType,
        filename,
      };
    case "markdown":
      return {
        body: renderContextMarkdown({
          query: req.query,
          asOf: r.asOf,
          cards: r.cards,
          budget: r.budget,
          skipped: r.skipped,
          evidence: r.evidence,
          ...(coded ? { code: { bytes: coded.bytes, max: coded.max, leftOut: coded.leftOut } } : {}),
        }),
        contentType,
        filename,
      };
    case "csv": {
      const { cardRecs } = await cardRecords(deps, req.archiveId, r.cards, r.asOf, false);
      await withReviewStatus(deps, req.archiveId, cardRecs, r.asOf);
      const byKey = new Map(cardRecs.map((x) => [`${x.id}\u0000${x.version}`, x]));
      const rows = r.cards.flatMap((c) => {
        const record = byKey.get(`${c.artifact_id}\u0000${c.version}`);
        return record
          ? [{ record, claim: c.claim_boundary, anchors: c.anchored_spans.map(anchorLabel), tokens: c.tokens }]
          : [];
      });
      return { body: renderCardsCsv(rows), contentType, filename };
    }
    case "bibtex":
    case "csljson": {
      const { bib } = await cardRecords(deps, req.archiveId, r.cards, r.asOf, true);
      return {
        body: format === "bibtex" ? renderBibtex(bib) : `${JSON.stringify(renderCslItems(bib), null, 2)}\n`,
        contentType,
        filename,
      };
    }
  }
}
