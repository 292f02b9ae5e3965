/**
 * Paper analysis: locate (where in one paper something is discussed) and coverage (which sections,
 * figures, tables and equations of a paper are linked). Both read the paper's `part-of` subtree
 * exactly from D1 as of `as_of`.
 */
import { z } from "@hono/zod-openapi";
import { boundedInt, MAX_ID, Time } from "./common";

const Iso = z.string().openapi({ description: "ISO 8601 date-time (UTC)", example: "2024-05-23T00:00:00.000Z" });

export const LOCATE_KINDS = ["section", "element", "paper"] as const;
export const ELEMENT_TYPES = ["figure", "table", "equation"] as const;

export const LocateBody = z
  .object({
    paper: z.string().min(1).max(MAX_ID).openapi({ description: "The paper chunk id (`arxiv:2212.11867`)." }),
    query: z.string().min(1).max(8000).openapi({ description: "What to find: a phrase, a question, a caption." }),
    as_of: Time.optional().openapi({ description: "Read the paper as of this time (default now)." }),
    limit: boundedInt(1, 50, 10, "Items returned (1-50, default 10)."),
    kinds: z.array(z.enum(LOCATE_KINDS)).min(1).max(LOCATE_KINDS.length).optional().openapi({
      description: "Only these kinds of items (default all: sections, elements and the paper's abstract).",
    }),
    snippets: boundedInt(0, 5, 2, "Exact snippets per item (0-5, default 2)."),
  })
  .openapi("LocateRequest", {
    description: "Where in one paper something is discussed.",
    example: { paper: "arxiv:2212.11867", query: "recall against pool size", limit: 5 },
  });

const Snippet = z.object({
  start: z.number().int().openapi({ description: "Start offset in the version's content (anchor offsets)." }),
  end: z.number().int(),
  text: z.string().openapi({ description: "content.slice(start, end) of that version: verifiable with /verify." }),
  score: z.number().openapi({ description: "Share of the query's distinct terms in this sentence (0-1)." }),
  page: z
    .number()
    .int()
    .nullable()
    .openapi({ description: "Page the sentence starts on (PDF imports); null when the source has no pages." }),
});

const LocateItem = z.object({
  rank: z.number().int(),
  chunk: z.string(),
  kind: z.enum(LOCATE_KINDS),
  element_type: z.enum(ELEMENT_TYPES).nullable(),
  title: z.string(),
  version: z.number().int().openapi({ description: "The version valid at `as_of`; snippets are spans of it." }),
  score: z.number().openapi({ description: "The router's score within the paper (4 significant digits)." }),
  page: z.number().int().nullable().openapi({
    description:
      "Page of the best snippet (else of the chunk's start) when the source has pages (PDF imports); null for unarXive, S2ORC and other text sources.",
  }),
  discussed_in: z.array(z.string()).openapi({ description: "For an element: the sections that reference it." }),
  discusses: z.array(z.string()).openapi({ description: "For a section: the paper's elements it references." }),
  snippets: z.array(Snippet),
});

export const LocateResult = z
  .object({
    paper: z.string(),
    as_of: Iso,
    items: z.array(LocateItem).openapi({ description: "Best first, by the router's score within the paper." }),
    sections: z
      .array(
        z.object({
          chunk: z.string(),
          score: z.number(),
          via: z.string().nullable().openapi({
            description: "The element whose discussion put this section here, or null when its own text ranked it.",
          }),
        }),
      )
      .openapi({
        description:
          "Where it is discussed, as sections best first: each item in rank order contributes itself (a section) or the sections that discuss it (an element), once.",
      }),
    trace: z.object({ subtree: z.number().int(), candidates: z.number().int() }),
  })
  .openapi("LocateResult", {
    description: "The paper's items where the query is discussed, best first, with exact snippets.",
    example: {
      paper: "arxiv:2301.00001",
      as_of: "2024-05-23T00:00:00.000Z",
      items: [
        {
          rank: 1,
          chunk: "arxiv:2301.00001#tab1",
          kind: "element",
          element_type: "table",
          title: "Routing memory for research agents: Table 1",
          version: 1,
          score: 0.8125,
          page: null,
          discussed_in: ["arxiv:2301.00001#s2-2-method", "arxiv:2301.00001#s3-3-results"],
          discusses: [],
          snippets: [{ start: 0, end: 36, text: "Latency per query on three datasets.", score: 1, page: null }],
        },
      ],
      sections: [
        { chunk: "arxiv:2301.00001#s2-2-method", score: 0.8125, via: "arxiv:2301.00001#tab1" },
        { chunk: "arxiv:2301.00001#s3-3-results", score: 0.8125, via: "arxiv:2301.00001#tab1" },
      ],
      trace: { subtree: 9, candidates: 9 },
    },
  });

export const COVERAGE_RULES = ["referenced", "grounded", "both", "either"] as const;
export const COVERAGE_AGGREGATES = ["micro", "macro"] as const;

export const CoverageQuery = z.object({
  paper: z
    .string()
    .min(1)
    .max(MAX_ID)
    .openapi({
      param: { name: "paper", in: "query" },
      description: "The paper chunk id.",
      example: "arxiv:2212.11867",
    }),
  as_of: Time.optional().openapi({ param: { name: "as_of", in: "query" }, description: "Default now." }),
  rule: z
    .enum(COVERAGE_RULES)
    .default("either")
    .openapi({
      param: { name: "rule", in: "query" },
      description:
        "When an item counts as linked: `referenced` (an element some section discusses; a section that discusses an element or cites a work), `grounded` (its version names an entity other than the paper itself, a person or a venue: a concept, method, dataset, metric, symbol or cited work), `both`, or `either` (default: linked to a concept or to the discussion of a result).",
    }),
  aggregate: z
    .enum(COVERAGE_AGGREGATES)
    .default("micro")
    .openapi({
      param: { name: "aggregate", in: "query" },
      description:
        "`micro` (default): the overall share is linked items / items. `macro`: the mean of the per-type shares over the types the paper has.",
    }),
});

const CoverageItem = z.object({
  chunk: z.string(),
  title: z.string(),
  version: z.number().int(),
  referenced: z.boolean(),
  grounded: z.boolean(),
  page: z
    .number()
    .int()
    .nullable()
    .openapi({ description: "Page the item starts on (PDF imports); null when the source has no pages." }),
});

const CoverageType = z.object({
  total: z.number().int(),
  linked: z.number().int(),
  share: z.number().nullable().openapi({ description: "linked / total (4 significant digits); null when total is 0." }),
  unlinked: z.array(CoverageItem),
});

export const CoverageResult = z
  .object({
    paper: z.string(),
    as_of: Iso,
    rule: z.enum(COVERAGE_RULES),
    aggregate: z.enum(COVERAGE_AGGREGATES),
    share: z
      .number()
      .nullable()
      .openapi({ description: "The overall share under `aggregate`; null for a paper with no items." }),
    pages: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The paper's page count (PDF imports); null when the source has no pages." }),
    total: z.number().int(),
    linked: z.number().int(),
    types: z.object({ section: CoverageType, figure: CoverageType, table: CoverageType, equation: CoverageType }),
  })
  .openapi("CoverageResult", {
    description: "Per type, the paper's linked items, the share and the unlinked items.",
    example: {
      paper: "arxiv:2301.00001",
      as_of: "2024-05-23T00:00:00.000Z",
      rule: "referenced",
      aggregate: "micro",
      share: 0.75,
      pages: null,
      total: 8,
      linked: 6,
      types: {
        section: {
          total: 4,
          linked: 3,
          share: 0.75,
          unlinked: [
            {
              chunk: "arxiv:2301.00001#s4-a-appendix",
              title: "Routing memory for research agents: A Appendix",
              version: 1,
              referenced: false,
              grounded: false,
              page: null,
            },
          ],
        },
        figure: {
          total: 2,
          linked: 1,
          share: 0.5,
          unlinked: [
            {
              chunk: "arxiv:2301.00001#fig2",
              title: "Routing memory for research agents: Figure 2",
              version: 1,
              referenced: false,
              grounded: false,
              page: null,
            },
          ],
        },
        table: { total: 1, linked: 1, share: 1, unlinked: [] },
        equation: { total: 1, linked: 1, share: 1, unlinked: [] },
      },
    },
  });
