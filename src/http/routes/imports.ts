/** File imports. */
import * as S from "../../contract";
import { answer, failure, json } from "../common";
import { errorResponse as err, errors } from "../docs";
import { endpoint, resourceApp } from "../route";

export const importsRoutes = resourceApp();

endpoint(
  importsRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/import",
    tags: ["ingest"],
    summary: "Import a file",
    description:
      "The file is the raw body, parsed as the `format` parameter says (see its values). Papers are deduplicated by DOI / arXiv id, then title; records that fail are listed in `failures` (the rest is stored). At most 2,000 records per request. format=bbl takes `paper` (the citing paper's chunk id) and answers `references` (every entry: key, title, ids, target, matched_by) and `paper` (the next version it wrote, or unchanged).",
    request: {
      params: S.ArchiveParam,
      query: S.ImportQuery,
      body: {
        description: "The file, any content type (read as UTF-8 text; with format=pdf, the PDF's bytes)",
        content: {
          "application/pdf": { schema: { type: "string", format: "binary" } },
          "text/plain": {
            schema: { type: "string" },
            example:
              "@article{gutierrez2024hipporag,\n  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},\n  eprint = {2405.14831},\n  archivePrefix = {arXiv},\n  year = {2024}\n}\n",
          },
        },
      },
    },
    responses: {
      200: json(S.ImportResult),
      ...errors(401, 403),
      404: err(404, "No such archive, or (format=bbl) `paper` has no current version in it"),
      400: err(
        400,
        "Invalid query (format=bbl without `paper`, `paper` with another format), empty body, or no records of this format in it",
      ),
      409: err(409, "format=bbl: `paper` is deprecated, or valid_from is not after its current version"),
      413: err(413, "Body over 32 MiB or more than 2,000 records; a PDF over 16 MiB or 80 pages"),
      422: err(422, "A PDF without a text layer (`unprocessable`): run OCR first"),
    },
  },
  async (c) => {
    const q = c.req.valid("query");
    if (q.format === "pdf") {
      const pdf = await c.var.app.imports.pdf(
        c.req.valid("param").archive,
        q,
        new Uint8Array(await c.req.arrayBuffer()),
        c.req.header("authorization"),
      );
      return pdf.ok ? c.json(pdf.value, 200) : failure(c, pdf.error);
    }
    return answer(
      c,
      await c.var.app.imports.file(c.req.valid("param").archive, q, await c.req.text(), c.req.header("authorization")),
    );
  },
);
