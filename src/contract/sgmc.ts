/**
 * SGMC (seed 001) beyond the tree, hubs, drafts and Eq. 12: A_S's selection of a node's references
 * (§3.3: ranked by citations, incomplete entries removed, the top Q_k unique), A_O's sub-outlines
 * from the references' titles and abstracts (Eq. 2), the Self-Loop Memory's refinement loop
 * (Eqs. 11, 13, 14) and the review scaffold (§5: each claim's chain to its source).
 */
import { z } from "@hono/zod-openapi";
import { boundedInt, IdSchema as Id, queryParam as q, T0, Time } from "./common";
import { ProposalUsageSchema } from "./proposals";
import { AnchorSchema } from "./query";
import { EVIDENCE_EXAMPLE } from "./research";

/** PaperGuru's defaults where the seed gives none (docs/research.md). */
export const SGMC_LOOP_DEFAULTS = {
  /** Q_k of §3.3: not given by the seed. */
  qK: 20,
  /** x_max of the Self-Loop Memory (the seed's value, §4.1). */
  xMax: 4,
  /** Sub-outlines one A_O call proposes at most. */
  maxDirections: 6,
} as const;

export const COMPLETENESS_FIELDS = ["title", "abstract", "year"] as const;

// ------------------------------------------------------------------ A_S: references

export const ReferencesSelectBody = z
  .object({
    node: Id.optional().openapi({ description: "An outline node: its cites targets at as_of are the candidates." }),
    ids: z.array(Id).min(1).max(2000).optional().openapi({
      description: "The candidates by chunk id instead (e.g. a discovery or route result). Give node or ids.",
    }),
    q_k: z.number().int().min(1).max(500).default(SGMC_LOOP_DEFAULTS.qK).openapi({
      description: "Q_k of §3.3: how many unique references to keep. The seed gives none; default 20.",
    }),
    require: z
      .array(z.enum(COMPLETENESS_FIELDS))
      .max(3)
      .default([...COMPLETENESS_FIELDS])
      .openapi({
        description:
          "What a complete entry has (default all three): title (not empty, not the id again), abstract (content that is more than a bibliography line, boundary reference-only, or the title again), year (a year: boundary, else the year of valid_from; none for year:unknown or a work known only from a bibliography).",
      }),
    as_of: Time.optional(),
  })
  .strict()
  .openapi("ReferencesSelectRequest", { example: { node: "review:eeg/features", q_k: 10 } });

const RankedRef = z.object({
  id: z.string(),
  version: z.number().int(),
  title: z.string(),
  year: z.number().int().nullable(),
  citations: z.number(),
  citations_from: z.enum(["annotation", "cites"]).openapi({
    description: "annotation: the `citations` annotation (from a source); cites: cites edges in the archive at as_of.",
  }),
});

export const ReferencesSelectResult = z
  .object({
    as_of: z.string(),
    node: z.string().nullable(),
    q_k: z.number().int(),
    require: z.array(z.string()),
    candidates: z.number().int(),
    selected: z.array(RankedRef).openapi({ description: "The top Q_k complete unique entries, most cited first." }),
    incomplete: z
      .array(z.object({ id: z.string(), missing: z.array(z.enum(COMPLETENESS_FIELDS)) }))
      .openapi({ description: "Removed before the top Q_k: which entry, which fields it lacks." }),
    duplicates: z
      .array(z.object({ id: z.string(), of: z.string() }))
      .openapi({ description: "Removed as the same work (normalised title) as a better-ranked entry." }),
    not_visible: z.array(z.string()).openapi({ description: "Candidate ids with no version valid at as_of." }),
    beyond_q_k: z.number().int().openapi({ description: "Complete unique entries ranked below Q_k." }),
  })
  .openapi("ReferencesSelected", {
    example: {
      as_of: T0,
      node: "review:eeg/features",
      q_k: 10,
      require: ["title", "abstract", "year"],
      candidates: 3,
      selected: [
        {
          id: "paper:de",
          version: 1,
          title: "Differential entropy features",
          year: 2024,
          citations: 120,
          citations_from: "annotation",
        },
      ],
      incomplete: [{ id: "ref:untitled", missing: ["title", "abstract"] }],
      duplicates: [{ id: "paper:de-preprint", of: "paper:de" }],
      not_visible: [],
      beyond_q_k: 0,
    },
  });

// ------------------------------------------------------------------ A_O: sub-outlines

export const OutlineProposeBody = z
  .object({
    node: Id.openapi({ description: "The outline node to decompose; its cites targets at as_of are the references." }),
    method: z.enum(["auto", "model", "names"]).default("auto").openapi({
      description:
        "model: the configured language model proposes the sub-outlines (409 without one); names: group the references by the names they share (entities, else title terms), no model; auto (default): model when configured, else names.",
    }),
    max_directions: z.number().int().min(1).max(12).default(SGMC_LOOP_DEFAULTS.maxDirections),
    min_shared: boundedInt(
      1,
      50,
      2,
      "names: a direction groups at least this many references sharing a name (default 2).",
    ),
    dry_run: z.boolean().default(false).openapi({ description: "true: propose, write nothing." }),
    as_of: Time.optional().openapi({ description: "The node and its references as of then (default now)." }),
    at: Time.optional().openapi({ description: "Valid time of the new outline nodes (default now)." }),
  })
  .strict()
  .openapi("OutlineProposeRequest", { example: { node: "review:eeg", method: "names" } });

export const OutlineProposeResult = z
  .object({
    node: z.string(),
    as_of: z.string(),
    method: z.enum(["model", "names"]),
    model: z.string().nullable().openapi({ description: "provider:model for method model, else null." }),
    dry_run: z.boolean(),
    read: z.array(z.string()).openapi({ description: "The references whose titles and abstracts were read." }),
    directions: z.array(
      z.object({
        id: z.string().openapi({ description: "The outline node id: `<node>/<slug of the title>`." }),
        title: z.string(),
        synopsis: z.string(),
        order: z.number().int(),
        references: z.array(z.string()).openapi({ description: "The references it came from (its cites edges)." }),
        names: z
          .array(z.string())
          .openapi({ description: "method names: the shared names that grouped them; model: []." }),
        written: z.enum(["created", "updated", "unchanged", "dry_run"]),
      }),
    ),
    unassigned: z.array(z.string()).openapi({ description: "References no direction cites." }),
    dropped: z
      .array(z.object({ index: z.number().int(), title: z.string(), reason: z.string() }))
      .openapi({ description: "Model directions (or their reference ids) the checks left out, and why." }),
    usage: ProposalUsageSchema.nullable(),
  })
  .openapi("OutlineProposed", {
    example: {
      node: "review:eeg",
      as_of: T0,
      method: "names",
      model: null,
      dry_run: false,
      read: ["paper:de", "paper:de2", "paper:gnn", "paper:gnn2"],
      directions: [
        {
          id: "review:eeg/graph-neural-networks",
          title: "Graph neural networks",
          synopsis: "2 references share: graph neural networks.",
          order: 1,
          references: ["paper:gnn", "paper:gnn2"],
          names: ["graph neural networks"],
          written: "created",
        },
      ],
      unassigned: [],
      dropped: [],
      usage: null,
    },
  });

// ------------------------------------------------------------------ Self-Loop Memory

export const FeedbackLoopBody = z
  .object({
    node: Id.openapi({ description: "The outline node whose current draft Y^(0) (`<node>#draft`) is refined." }),
    request: z.string().min(1).max(4000).openapi({
      description: "The context C: what the section must achieve; the review checks it and the refinement follows it.",
    }),
    scope: z.string().min(1).max(200).optional().openapi({
      description: "Where r* is selected (Eq. 12 among feedback records carrying this boundary too).",
    }),
    checklist: z.enum(["selected", "none"]).default("selected").openapi({
      description: "selected (default): the review refers to r* of Eq. 12 (Eq. 13); none: no checklist.",
    }),
    x_max: z.number().int().min(1).max(8).default(SGMC_LOOP_DEFAULTS.xMax).openapi({
      description:
        "x_max: reviews at most (default 4, the seed's value); each review with feedback is followed by one refinement.",
    }),
  })
  .strict()
  .openapi("FeedbackLoopRequest", {
    example: { node: "survey/retrieval", request: "Every number must match its cited source.", scope: "agent:drafter" },
  });

const LoopFeedback = z.object({
  title: z.string(),
  text: z.string(),
  category: z.string(),
  anchors: z.array(AnchorSchema).openapi({ description: "The reviewed draft version's spans it is about." }),
});

export const FeedbackLoopResult = z
  .object({
    node: z.string(),
    model: z.string(),
    checklist: z
      .object({ id: z.string(), version: z.number().int(), title: z.string() })
      .nullable()
      .openapi({ description: "r* the reviews referred to; null without one." }),
    iterations: z.array(
      z.object({
        x: z.number().int(),
        draft: z
          .object({ id: z.string(), version: z.number().int() })
          .openapi({ description: "Y^(x), the version reviewed." }),
        review: z
          .object({ id: z.string(), version: z.number().int() })
          .openapi({ description: "R^(x), kept as a version of `<node>#review`." }),
        feedback: z.array(LoopFeedback),
        refined: z
          .object({ id: z.string(), version: z.number().int(), status: z.enum(["created", "updated", "unchanged"]) })
          .nullable()
          .openapi({ description: "Y^(x+1), the next draft version; null when R^(x) had no feedback." }),
      }),
    ),
    stop: z.enum(["no_feedback", "x_max"]).openapi({
      description: "no_feedback: the last review found nothing; x_max: x_max reviews each had feedback.",
    }),
    final: z.object({ id: z.string(), version: z.number().int() }),
    dropped: z.array(z.object({ x: z.number().int(), index: z.number().int(), title: z.string(), reason: z.string() })),
    usage: ProposalUsageSchema,
  })
  .openapi("FeedbackLoop", {
    example: {
      node: "survey/retrieval",
      model: "openai:gpt-4o-mini",
      checklist: { id: "fb:cite-check", version: 1, title: "Check every number against its cited span" },
      iterations: [
        {
          x: 0,
          draft: { id: "survey/retrieval#draft", version: 1 },
          review: { id: "survey/retrieval#review", version: 1 },
          feedback: [
            {
              title: "Check every number against its cited span",
              text: "The source says 20 points, not 30.",
              category: "citation",
              anchors: [{ artifact_id: "survey/retrieval#draft", version: 1, start: 0, end: 9, snippet: "30 points" }],
            },
          ],
          refined: { id: "survey/retrieval#draft", version: 2, status: "updated" },
        },
        {
          x: 1,
          draft: { id: "survey/retrieval#draft", version: 2 },
          review: { id: "survey/retrieval#review", version: 2 },
          feedback: [],
          refined: null,
        },
      ],
      stop: "no_feedback",
      final: { id: "survey/retrieval#draft", version: 2 },
      dropped: [],
      usage: { calls: 3, requests: 3, retries: 0, input_tokens: 5200, output_tokens: 700, ms: 6100 },
    },
  });

// ------------------------------------------------------------------ review scaffold

export const ScaffoldQuery = z.object({
  root: q(Id, "root", "The outline's root."),
  as_of: q(Time.optional(), "as_of", "The outline, hubs and drafts as of then (default now)."),
  format: q(
    z.enum(["json", "markdown"]).default("json"),
    "format",
    "json (default): the scaffold as JSON; markdown: the same as a Markdown document (text/markdown).",
  ),
  max_nodes: q(
    z.coerce.number().int().min(1).max(2000).default(500),
    "max_nodes",
    "A larger part-of subtree is refused with 413 (default 500, at most 2,000).",
  ),
});

const ScaffoldEvidence = AnchorSchema.extend({
  title: z.string().openapi({ description: "The source's title." }),
  from: z.enum(["draft", "hub"]).openapi({
    description:
      "draft: an anchor the draft version rests on; hub: gathered into the node's hub, not (yet) in the draft.",
  }),
});

export const ScaffoldResult = z
  .object({
    root: z.string(),
    as_of: z.string(),
    nodes: z.array(
      z.object({
        id: z.string(),
        version: z.number().int(),
        title: z.string(),
        depth: z.number().int(),
        parent: z.string().nullable(),
        references: z.array(z.object({ id: z.string(), version: z.number().int(), title: z.string() })),
        draft: z
          .object({ id: z.string(), version: z.number().int(), text: z.string() })
          .nullable()
          .openapi({ description: "The claims: the draft version valid at as_of." }),
        hub: z.object({ id: z.string(), version: z.number().int() }).nullable(),
        evidence: z
          .array(ScaffoldEvidence)
          .openapi({ description: "Anchors to exact spans of the sources (POST /verify re-checks each)." }),
      }),
    ),
    anchors: z.number().int(),
  })
  .openapi("ReviewScaffold", {
    example: {
      root: "review:eeg",
      as_of: T0,
      nodes: [
        {
          id: "review:eeg/features",
          version: 1,
          title: "Features",
          depth: 1,
          parent: "review:eeg",
          references: [{ id: "paper:de", version: 1, title: "Differential entropy features" }],
          draft: { id: "review:eeg/features#draft", version: 2, text: "Differential entropy features dominate." },
          hub: { id: "review:eeg/features#hub", version: 1 },
          evidence: [{ ...EVIDENCE_EXAMPLE, from: "draft" }],
        },
      ],
      anchors: 1,
    },
  });
