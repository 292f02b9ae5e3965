/**
 * Export routes. An archive as json (lossless, re-importable with POST /import?format=archive),
 * csv, bibtex, csljson, markdown, graphml or mermaid; a query result (the /context request) as json,
 * markdown, csljson, bibtex or csv. Read scope. Archives over EXPORT_LIMITS.maxChunks chunks get 413.
 */
import { z } from "@hono/zod-openapi";
import type { ExportBody } from "../../app/exports/common";
import * as S from "../../contract";
import { htmlCsp } from "../../core/export/html";
import { CONTEXT_EXPORT_FORMATS, EXPORT_LIMITS } from "../../core/export/types";
import { type Ctx, failure } from "../common";
import { errorResponse, errors } from "../docs";
import { endpoint, resourceApp } from "../route";

const ContextExportBody = S.ContextBody.extend({
  format: z.enum(CONTEXT_EXPORT_FORMATS).openapi({ example: "markdown" }),
}).openapi("ContextExportRequest", {
  example: {
    query: "How does HippoRAG use personalised PageRank?",
    as_of: "2024-06-01",
    budget_tokens: 2000,
    format: "markdown",
  },
});

const text = (description: string, types: Array<[string, string]>) => ({
  description,
  content: Object.fromEntries(types.map(([t, example]) => [t, { schema: z.string(), example }])),
});

const EXAMPLES: Array<[string, string]> = [
  ["application/json", '{"format":"paperguru.archive","schema_version":1,"archive":{…},"chunks":[…],"entities":[…]}'],
  ["text/csv", "id,kind,title,version,latest_version,valid_from,…\r\narxiv:2405.14831,paper,HippoRAG…,2,2,…\r\n"],
  ["application/x-bibtex", "@misc{gutierrez2024hipporag,\n  title = {HippoRAG: …},\n  eprint = {2405.14831}\n}\n"],
  [
    "application/vnd.citationstyles.csl+json",
    '[{"id":"gutierrez2024hipporag","type":"article","title":"HippoRAG: …"}]',
  ],
  ["text/markdown", "## 1. HippoRAG\n\n- `arxiv:2405.14831@v2 [120,340)`\n\n> …"],
  ["application/graphml+xml", '<?xml version="1.0" encoding="UTF-8"?>\n<graphml …>…</graphml>'],
  ["text/vnd.mermaid", 'flowchart LR\n  n0["HippoRAG · arxiv:2405.14831@v2"]\n  n0 -->|cites| n1'],
  ["text/html", '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">…<h1>my archive <code>mine</code></h1>…'],
];

async function send(c: Ctx, out: ExportBody): Promise<Response> {
  return c.body(out.body, 200, {
    ...(out.contentType.startsWith("text/html") ? { "content-security-policy": out.csp ?? (await htmlCsp()) } : {}),
    "content-type": out.contentType,
    "content-disposition": `attachment; filename="${out.filename}"`,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
}

export const exportsRoutes = resourceApp();

endpoint(
  exportsRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/export",
    tags: ["exports"],
    summary:
      "Export the archive, a collection or a subtree: json (lossless, streamed), csv, bibtex, csljson, markdown, graphml, mermaid, xkg or html; with a content-disposition filename",
    description: `At most ${EXPORT_LIMITS.maxChunks} chunks (413 beyond). Re-import the json dump into another archive with POST /v1/archives/{archive}/import?format=archive.`,
    request: { params: S.ArchiveParam, query: S.ExportQuery },
    responses: {
      200: text("The export in the requested format", EXAMPLES),
      ...errors(400, 401, 403, 404),
      413: errorResponse(413, `The archive holds more than ${EXPORT_LIMITS.maxChunks} chunks`),
    },
  },
  async (c) => {
    const q = c.req.valid("query");
    if (q.paper !== undefined && q.format !== "xkg")
      return failure(c, {
        kind: "validation",
        message: "paper applies to format=xkg only",
        field: "paper",
        hint: "add format=xkg, or drop paper",
      });
    const res = await c.var.app.exports.archive(c.req.valid("param").archive, q);
    if (!res.ok) return failure(c, res.error);
    return (await send(c, res.value)) as never;
  },
);

endpoint(
  exportsRoutes,
  "read",
  {
    method: "post",
    path: "/v1/archives/{archive}/export/context",
    tags: ["exports"],
    summary: "Export a query result (the cards of a /context request) as json, markdown, csljson, bibtex or csv",
    description:
      "Runs the /context request in the body and renders its cards in `format`. Cards keep their anchors `artifact_id@vN [start,end)`; bibtex and csljson also cite the paper a section card is part of; citation keys are de-duplicated within the result.",
    request: {
      params: S.ArchiveParam,
      body: { content: { "application/json": { schema: ContextExportBody } }, required: true },
    },
    responses: {
      200: text(
        "The query result in the requested format",
        EXAMPLES.filter(([t]) => !/graphml|mermaid/.test(t)),
      ),
      ...errors(400, 401, 403, 404),
    },
  },
  async (c) => {
    const out = await c.var.app.exports.context(c.req.valid("param").archive, c.req.valid("json"));
    return (await send(c, out)) as never;
  },
);
