/** Paper analysis: locate a topic in one paper, coverage of its sections, figures, tables and equations. */
import * as S from "../../contract";
import { errorResponse as err, errors } from "../docs";
import { archiveGet, archivePost, resourceApp } from "../route";

export const papersRoutes = resourceApp();

archivePost(
  papersRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/locate",
    tags: ["papers"],
    summary: "Where in a paper something is discussed",
    description:
      "Routes `query` within the paper's `part-of` subtree as of `as_of` (read exactly from D1 and applied before the top-M cut): its sections, its figure / table / equation elements (full-text imports keep them) and its abstract, best first, each with the exact snippets of the version valid at `as_of` that hold most of the query's terms (offsets are anchor offsets: `/verify` checks them), the sections an element is discussed in and the elements a section discusses. `sections` lists where it is discussed as sections: an element hit contributes the sections that reference it. `page` is null when the source has no pages (unarXive and S2ORC have none).",
    request: S.LocateBody,
    result: S.LocateResult,
    failures: {
      ...errors(400, 401, 403, 413),
      404: err(404, "No such archive or paper, or no version of it at as_of"),
    },
  },
  (app) => app.papers.locate,
);

archiveGet(
  papersRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/coverage",
    tags: ["papers"],
    summary: "Coverage of a paper's sections and elements",
    description:
      "Per type (section, figure, table, equation), how many of the paper's items (its `part-of` subtree as of `as_of`) are linked, the share and the unlinked items. An item is *referenced* when the text ties it to another: an element some section discusses (`discussed-in`), a section that discusses an element or cites a work; *grounded* when its version names an entity other than the paper itself, a person or a venue. `rule` picks the definition of linked: `referenced`, `grounded`, `both` or `either` (default: linked to a concept or to a discussion), `aggregate` the overall share (`micro`: linked / items, default; `macro`: mean of the per-type shares). PaperGuru's choices: the seed leaves coverage undefined.",
    query: S.CoverageQuery,
    result: S.CoverageResult,
    missing: "No such archive or paper, or no version of it at as_of",
  },
  (app) => app.papers.coverage,
);
