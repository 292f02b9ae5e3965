/** The query of an archive export (GET /v1/archives/{archive}/export). */
import { z } from "@hono/zod-openapi";
import { EXPORT_FORMATS, EXPORT_LIMITS } from "../core/export/types";
import { IdSchema, queryParam, Time } from "./common";

export const ExportQuery = z.object({
  format: z
    .enum(EXPORT_FORMATS)
    .default("json")
    .openapi({
      param: { name: "format", in: "query" },
      example: "bibtex",
      description:
        "json: lossless dump (all versions with contents, entities with alias intervals, renames, merges, deprecations, edges), re-importable with POST /import?format=archive | csv: one row per chunk | bibtex / csljson: paper chunks with stable citation keys | markdown: a listing | graphml / mermaid: chunks and typed edges valid at as_of (mermaid capped at " +
        `${EXPORT_LIMITS.mermaidMaxNodes} nodes / ${EXPORT_LIMITS.mermaidMaxEdges} edges) | xkg: what xkg imports wrote, rebuilt in the xKG layout (Figure 5: paper_title, paper_abstract, paper_references, resources, findings, code_file, code_overview, techniques with weight, code and components), JSON Lines with one paper per line, or one paper's JSON file with \`paper\` | html: one self-contained page (no script, no external resource, its own CSP; every text escaped) listing chunks by kind and the edges valid at as_of | graph-html: one self-contained page drawing the graph as inline SVG (offline: no script, no CDN, no URL but stored texts; its own CSP), with within= for a paper's graph (its sections and what they link to) or collection= for a collection's (the collection and its members); node borders and edge strokes show the review status, tables list them. csv, markdown, bibtex, csljson, html, graph-html, graphml and mermaid carry each chunk's review status (auto-generated, human-verified, human-edited, flagged) at as_of; the json dump carries the review events themselves`,
    }),
  paper: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .openapi({
      param: { name: "paper", in: "query" },
      example: "paper:classifier-free-diffusion-guidance",
      description:
        "format=xkg only: the paper chunk to export alone, as one JSON file (re-importable with POST /import?format=xkg)",
    }),
  view: z
    .enum(["full", "planning"])
    .optional()
    .openapi({
      param: { name: "view", in: "query" },
      example: "planning",
      description:
        "format=xkg only: planning leaves out every code node (the paper's and each technique's `code`, `code_file`, `code_overview`): the paper node with its techniques, as xKG's planning stage reads it (seed 003 §2.4); default full",
    }),
  collection: queryParam(
    IdSchema.optional(),
    "collection",
    "Only the members of this collection chunk: the targets of its `cites` edges valid at as_of (default now); not with format=xkg",
  ),
  within: queryParam(
    IdSchema.optional(),
    "within",
    "Only this chunk and what reaches it over part-of edges valid at as_of (its subtree); not with format=xkg",
  ),
  as_of: queryParam(
    Time.optional(),
    "as_of",
    "csv, bibtex, csljson, markdown: only chunks visible then, at the version valid then (default: every chunk, latest version); graphml, mermaid, graph-html: edges valid then (default: now); xkg: the versions and annotations valid then (default: now); json ignores it (always the whole history)",
  ),
});
