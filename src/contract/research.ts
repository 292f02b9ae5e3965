/**
 * Literature-review memory (SGMC, seed 001 §3) on the kernel: the outline tree (part-of edges, each
 * node's references its cites edges), evidence hubs and section drafts as versions, ROUGE-1
 * convergence between consecutive drafts (Eq. 10), assembly within a budget, and the feedback
 * selector of Eq. 12 over annotation counters.
 */
import { z } from "@hono/zod-openapi";
import { IdSchema as Id, queryParam as q, T0, Time } from "./common";
import { AnchorSchema, CardSchema } from "./query";

/** Defaults PaperGuru chose where the seed gives none (docs/research.md). */
export const SGMC_DEFAULTS = {
  /** θ of Eq. 3 (the seed's value). */
  theta: 500,
  /** d_max of Eq. 5 (the seed's value). */
  dMax: 4,
  /** t_max of Eq. 10 (the seed's value). */
  tMax: 4,
  /** ε of Eq. 10: not given by the seed; PaperGuru's default. */
  epsilon: 0.9,
  /** Nodes of one tree read (outline nodes, drafts and hubs). */
  maxNodes: 500,
  maxNodesCap: 2000,
} as const;

/** The anchor the examples cite: the first 20 characters of paper:de, version 1. */
const ANCHOR_EXAMPLE = { artifact_id: "paper:de", version: 1, start: 0, end: 20, snippet: "Differential entropy" };

/** That anchor as evidence, with its chunk's title. */
export const EVIDENCE_EXAMPLE = { ...ANCHOR_EXAMPLE, title: "Differential entropy features" };

export const TreeQuery = z.object({
  root: q(Id, "root", "The outline's root chunk (the review's instruction or any node)."),
  as_of: q(Time.optional(), "as_of", "Read the tree as it was then (default now)."),
  theta: q(
    z.coerce.number().int().min(1).max(1_000_000).default(SGMC_DEFAULTS.theta),
    "theta",
    "θ of Eq. 3: a node whose word count exceeds it is to be split (φ = 1). Default 500, the seed's value.",
  ),
  d_max: q(
    z.coerce.number().int().min(1).max(16).default(SGMC_DEFAULTS.dMax),
    "d_max",
    "d_max of Eq. 5: the deepest level (root = 0). Default 4, the seed's value.",
  ),
  words: q(
    z.enum(["all", "own", "references"]).default("all"),
    "words",
    "What the word count (Eq. 3's complexity) counts: all (default) = the node's own text plus the titles and synopses of its references; own = the node's own text (its content at as_of; its title and synopsis when the content is empty); references = its references' titles and synopses (no node content is read).",
  ),
  max_nodes: q(
    z.coerce.number().int().min(1).max(SGMC_DEFAULTS.maxNodesCap).default(SGMC_DEFAULTS.maxNodes),
    "max_nodes",
    "A larger part-of subtree (drafts and hubs count) is refused with 413 (default 500, at most 2,000).",
  ),
  view: q(
    z.enum(["outline", "planning"]).default("outline"),
    "view",
    "outline (default): SGMC's outline nodes (boundary `outline`). planning: xKG's planning view (seed 003 §2.4, the paper node without its code nodes): every chunk of the root's part-of subtree (techniques, imported or model-made, sections, findings, resources) except `code_unit` chunks, an xKG import's code_file and code_overview records, and SGMC drafts and hubs.",
  ),
});

const Ref = z.object({ id: z.string(), version: z.number().int(), title: z.string() });

const TreeNode = z.object({
  id: z.string(),
  version: z.number().int(),
  kind: z.string(),
  title: z.string(),
  depth: z.number().int().openapi({ description: "part-of steps from the root (the root is 0)." }),
  parent: z.string().nullable(),
  children: z.array(z.string()).openapi({ description: "Outline children in order (docs/research.md: tree order)." }),
  references: z.array(Ref).openapi({ description: "The node's cites targets visible at as_of, heaviest first." }),
  words: z.object({
    own: z.number().int().openapi({ description: "Words of the node's own text." }),
    own_from: z.enum(["content", "head"]).openapi({
      description:
        "content: the node's content at as_of was counted; head: its title and synopsis (empty content, or words=references).",
    }),
    references: z.number().int(),
    counted: z.number().int(),
  }),
  split: z.boolean().openapi({ description: "φ of Eq. 3: words.counted > theta." }),
  leaf: z.boolean(),
  draft: Ref.nullable().openapi({ description: "The node's draft chunk (`<node>#draft`) at as_of." }),
  hub: Ref.nullable().openapi({ description: "The node's hub chunk (`<node>#hub`) at as_of." }),
});

export const TreeResult = z
  .object({
    root: z.string(),
    as_of: z.string(),
    theta: z.number().int(),
    d_max: z.number().int(),
    words: z.string(),
    view: z.enum(["outline", "planning"]).openapi({ description: "Which nodes the tree holds (the query's view)." }),
    nodes: z.array(TreeNode).openapi({ description: "Every outline node in tree order (pre-order)." }),
    done: z.boolean().openapi({ description: "Eq. 5: every leaf has φ = 0 or depth ≥ d_max." }),
    pending: z.array(z.string()).openapi({ description: "Leaves with φ = 1 and depth < d_max: split these next." }),
  })
  .openapi("OutlineTree", {
    example: {
      root: "review:eeg",
      as_of: T0,
      theta: 500,
      d_max: 4,
      words: "all",
      view: "outline",
      nodes: [
        {
          id: "review:eeg",
          version: 1,
          kind: "section",
          title: "EEG-based emotion recognition",
          depth: 0,
          parent: null,
          children: [],
          references: [{ id: "arxiv:2101.00001", version: 1, title: "EEG features for emotion" }],
          words: { own: 12, own_from: "content", references: 140, counted: 152 },
          split: false,
          leaf: true,
          draft: null,
          hub: null,
        },
      ],
      done: true,
      pending: [],
    },
  });

export const GatherBody = z
  .object({
    node: Id.openapi({ description: "The outline node whose references (cites targets) the hub gathers from." }),
    query: z.string().min(1).max(8000).optional().openapi({
      description:
        "What to look for; default: the node's title and synopsis (Eq. 6), or, once the node has a draft, its title and the draft's first 2,000 characters (Eq. 8).",
    }),
    as_of: Time.optional().openapi({ description: "The references and their versions as of then (default now)." }),
    at: Time.optional().openapi({ description: "Valid time of the new hub version (default now)." }),
    budget_tokens: z.number().int().min(100).max(50_000).default(2000),
    max_cards: z.number().int().min(1).max(50).optional(),
  })
  .strict()
  .openapi("GatherRequest", { example: { node: "review:eeg/features", budget_tokens: 1500 } });

const Evidence = AnchorSchema.extend({ title: z.string() });

export const GatherResult = z
  .object({
    node: z.string(),
    as_of: z.string(),
    hub: z.object({
      id: z.string(),
      version: z.number().int(),
      status: z.enum(["created", "updated", "unchanged"]),
    }),
    iteration: z.number().int().openapi({ description: "Seed's t of this gather: hub version - 1." }),
    query: z.string(),
    references: z.number().int().openapi({ description: "The node's references visible at as_of." }),
    cards: z.array(CardSchema),
    evidence: z.array(Evidence).openapi({ description: "Every anchor of the cards: what the hub version stores." }),
  })
  .openapi("Gathered", {
    example: {
      node: "review:eeg/features",
      as_of: T0,
      hub: { id: "review:eeg/features#hub", version: 1, status: "created" },
      iteration: 0,
      query: "Features. Which features.",
      references: 2,
      cards: [],
      evidence: [EVIDENCE_EXAMPLE],
    },
  });

/** `?node=` of the hub and draft reads. */
const NodeParam = q(Id, "node", "The outline node.");

export const HubQuery = z.object({
  node: NodeParam,
  as_of: q(Time.optional(), "as_of", "Iterations recorded (valid) up to then (default now)."),
});

export const HubResult = z
  .object({
    node: z.string(),
    hub: z.string(),
    as_of: z.string(),
    iterations: z.array(
      z.object({
        iteration: z.number().int(),
        version: z.number().int(),
        valid_from: z.string(),
        query: z.string(),
        evidence: z.array(Evidence),
      }),
    ),
  })
  .openapi("Hub", {
    example: {
      node: "review:eeg/features",
      hub: "review:eeg/features#hub",
      as_of: T0,
      iterations: [
        {
          iteration: 0,
          version: 1,
          valid_from: T0,
          query: "Features. Which features.",
          evidence: [EVIDENCE_EXAMPLE],
        },
      ],
    },
  });

export const DraftBody = z
  .object({
    node: Id.openapi({ description: "The outline node the draft is for; the draft chunk is `<node>#draft`." }),
    text: z.string().min(1).max(400_000).openapi({ description: "The section draft M_k^(t)." }),
    evidence: z.array(AnchorSchema).max(200).default([]).openapi({
      description:
        "The anchors the draft rests on (from the hub's evidence or any card); each must verify, and the draft version cites their artifacts.",
    }),
    at: Time.optional().openapi({ description: "Valid time of the new draft version (default now)." }),
  })
  .strict()
  .openapi("DraftRequest", {
    example: {
      node: "review:eeg/features",
      text: "Differential entropy features dominate recent work [1].",
      evidence: [{ artifact_id: "arxiv:2101.00001", version: 1, start: 0, end: 20, snippet: "Differential entropy" }],
    },
  });

export const DraftResult = z
  .object({
    node: z.string(),
    draft: z.object({
      id: z.string(),
      version: z.number().int(),
      status: z.enum(["created", "updated", "unchanged"]),
    }),
    iteration: z.number().int().openapi({ description: "Seed's t of this draft: version - 1." }),
    cites: z.array(z.string()),
    evidence: z.array(AnchorSchema),
  })
  .openapi("Drafted", {
    example: {
      node: "review:eeg/features",
      draft: { id: "review:eeg/features#draft", version: 2, status: "updated" },
      iteration: 1,
      cites: ["paper:de"],
      evidence: [ANCHOR_EXAMPLE],
    },
  });

export const DraftQuery = z.object({
  node: NodeParam,
  as_of: q(Time.optional(), "as_of", "The draft version valid then (default now)."),
});

export const DraftView = z
  .object({
    node: z.string(),
    draft: z.string(),
    as_of: z.string(),
    version: z.number().int(),
    iteration: z.number().int(),
    valid_from: z.string(),
    text: z.string(),
    cites: z.array(z.string()),
    evidence: z
      .array(AnchorSchema)
      .openapi({ description: "The anchors stored with this version; POST /verify them." }),
  })
  .openapi("Draft", {
    example: {
      node: "review:eeg/features",
      draft: "review:eeg/features#draft",
      as_of: T0,
      version: 2,
      iteration: 1,
      valid_from: T0,
      text: "Differential entropy features dominate recent work.",
      cites: ["paper:de"],
      evidence: [ANCHOR_EXAMPLE],
    },
  });

export const ConvergenceQuery = z.object({
  draft: q(Id, "draft", "A chunk whose successive versions are the drafts (`<node>#draft`, or any chunk)."),
  as_of: q(Time.optional(), "as_of", "Only versions valid from then or earlier (default now)."),
  epsilon: q(
    z.coerce.number().min(0).max(1).default(SGMC_DEFAULTS.epsilon),
    "epsilon",
    "ε of Eq. 10 (stop when ψ > ε). The seed gives no value; PaperGuru's default is 0.9.",
  ),
  t_max: q(
    z.coerce.number().int().min(1).max(1000).default(SGMC_DEFAULTS.tMax),
    "t_max",
    "t_max of Eq. 10: the last iteration (iterations t = 0..t_max). Default 4, the seed's value.",
  ),
  measure: q(z.enum(["f1", "precision", "recall"]).default("f1"), "measure", "Which ROUGE-1 score is ψ (default f1)."),
  max_versions: q(
    z.coerce.number().int().min(2).max(500).default(100),
    "max_versions",
    "Versions read, oldest first (default 100, at most 500).",
  ),
});

export const ConvergenceResult = z
  .object({
    draft: z.string(),
    as_of: z.string(),
    epsilon: z.number(),
    t_max: z.number().int(),
    measure: z.string(),
    versions: z.array(
      z.object({ iteration: z.number().int(), version: z.number().int(), valid_from: z.string(), words: z.number() }),
    ),
    pairs: z
      .array(
        z.object({
          from: z.number().int(),
          to: z.number().int(),
          precision: z.number(),
          recall: z.number(),
          f1: z.number(),
        }),
      )
      .openapi({ description: "ROUGE-1 of each version (candidate) against the one before (reference)." }),
    stop: z
      .object({ iteration: z.number().int(), version: z.number().int(), reason: z.enum(["similar", "t_max"]) })
      .nullable()
      .openapi({ description: "Eq. 10's t* and its version; null while neither condition holds." }),
    truncated: z.boolean().openapi({ description: "More versions exist up to as_of than max_versions." }),
  })
  .openapi("Convergence", {
    example: {
      draft: "review:eeg/features#draft",
      as_of: T0,
      epsilon: 0.9,
      t_max: 4,
      measure: "f1",
      versions: [
        { iteration: 0, version: 1, valid_from: T0, words: 6 },
        { iteration: 1, version: 2, valid_from: T0, words: 7 },
      ],
      pairs: [{ from: 1, to: 2, precision: 0.8571, recall: 1, f1: 0.9231 }],
      stop: { iteration: 1, version: 2, reason: "similar" },
      truncated: false,
    },
  });

export const AssembleBody = z
  .object({
    root: Id,
    as_of: Time.optional(),
    budget_tokens: z.number().int().min(50).max(200_000).default(8000),
    epsilon: z.number().min(0).max(1).default(SGMC_DEFAULTS.epsilon),
    t_max: z.number().int().min(1).max(1000).default(SGMC_DEFAULTS.tMax),
    require_converged: z
      .boolean()
      .default(true)
      .openapi({ description: "true: only drafts whose Eq. 10 stop is reached at as_of count as finished." }),
    max_nodes: z.number().int().min(1).max(SGMC_DEFAULTS.maxNodesCap).default(SGMC_DEFAULTS.maxNodes),
  })
  .strict()
  .openapi("AssembleRequest", { example: { root: "review:eeg", budget_tokens: 8000 } });

export const AssembleResult = z
  .object({
    root: z.string(),
    as_of: z.string(),
    text: z.string(),
    tokens: z.number().int(),
    budget_tokens: z.number().int(),
    sections: z.array(
      z.object({
        node: z.string(),
        depth: z.number().int(),
        draft: z.string(),
        version: z.number().int(),
        tokens: z.number().int(),
      }),
    ),
    left_out: z.array(
      z.object({
        node: z.string(),
        reason: z.enum(["no_draft", "not_converged", "budget"]),
        tokens: z.number().int().nullable(),
      }),
    ),
  })
  .openapi("Assembled", {
    example: {
      root: "review:eeg",
      as_of: T0,
      text: "## Features\n\nDifferential entropy features dominate recent work.\n\n",
      tokens: 12,
      budget_tokens: 8000,
      sections: [{ node: "review:eeg/features", depth: 1, draft: "review:eeg/features#draft", version: 2, tokens: 12 }],
      left_out: [{ node: "review:eeg", reason: "no_draft", tokens: null }],
    },
  });

export const FeedbackSelectBody = z
  .object({
    scope: z.string().min(1).max(200).optional().openapi({
      description: "Only feedback records that also carry this boundary tag (e.g. agent:drafter).",
    }),
    as_of: Time.optional(),
    tie: z.enum(["oldest", "newest"]).default("oldest").openapi({
      description: "Among equally used records of R_min: the oldest (default) or newest by first valid time.",
    }),
    event_id: z.string().min(1).max(200).optional().openapi({
      description:
        "Count this selection as a use of the selected record (usage(r) of Eq. 12): a `uses` add event of 1 at as_of, stored under this id. Needs a write key. Every repeat of the id gets the first answer (header Idempotent-Replayed: true) and counts nothing; without it, the selection only reads.",
    }),
  })
  .strict()
  .openapi("FeedbackSelectRequest", { example: { scope: "agent:drafter", event_id: "loop-7-select" } });

const FeedbackRecord = z.object({
  id: z.string(),
  version: z.number().int(),
  title: z.string(),
  synopsis: z.string(),
  revisions: z.number(),
  uses: z.number(),
  created_at: z.string(),
});

export const FeedbackSelectResult = z
  .object({
    as_of: z.string(),
    tie: z.string(),
    records: z.number().int(),
    pending_proposals: z.number().int().openapi({
      description:
        "Records a model proposed (POST /feedback/propose) that no user has verified or edited yet: not candidates.",
    }),
    r_min: z.number().nullable(),
    r_min_size: z.number().int(),
    selected: FeedbackRecord.nullable(),
    candidates: z.array(FeedbackRecord).openapi({ description: "R_min, most used first (at most 20)." }),
    used: z.object({ id: z.string(), event_id: z.string(), at: z.string(), uses: z.number() }).nullable().openapi({
      description:
        "With event_id: the use recorded for the selected record and its uses after it (selected.uses is the count it was selected with); null without event_id.",
    }),
  })
  .openapi("FeedbackSelected", {
    example: {
      as_of: T0,
      tie: "oldest",
      records: 3,
      pending_proposals: 0,
      r_min: 0,
      r_min_size: 1,
      selected: {
        id: "fb:cite-check",
        version: 1,
        title: "Check every citation against its span",
        synopsis: "Check every citation against its span.",
        revisions: 0,
        uses: 4,
        created_at: T0,
      },
      candidates: [],
      used: { id: "fb:cite-check", event_id: "loop-7-select", at: T0, uses: 5 },
    },
  });

export type EvidenceItem = z.infer<typeof Evidence>;
