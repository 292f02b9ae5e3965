/** Human verification (statuses and history of nodes and edges) and retrieval metrics with stored runs. */
import { z } from "@hono/zod-openapi";
import { REVIEW_OPS, REVIEW_STATUSES } from "../core/review";
import { EDGE_TYPES } from "../core/types";
import { IdSchema as Id, MAX_ID, PageLimit, queryParam, T0, Time, wellFormed } from "./common";
import { FilterSchema } from "./query";

const Status = z.enum(REVIEW_STATUSES);

export const ReviewEdge = z
  .object({
    from: Id.openapi({ description: "The edge's source chunk (the one that declares it)." }),
    type: z.enum(EDGE_TYPES),
    to: Id,
    weight: z.number().min(0).max(1000).optional().openapi({ description: "add_edge only (default 1)." }),
  })
  .strict();

export const ReviewBody = z
  .object({
    op: z.enum(REVIEW_OPS).openapi({
      description:
        "verify (node or edge -> human-verified), flag (node or edge, reason required -> flagged), edit (node: a new version with `changes` -> human-edited), add_edge / remove_edge (edge: a new version of `from` with the edge added, or without it, which ends the edge's validity at `at` -> human-edited).",
    }),
    chunk: Id.optional().openapi({ description: "The node (verify, flag, edit)." }),
    edge: ReviewEdge.optional().openapi({ description: "The edge (verify, flag, add_edge, remove_edge)." }),
    reason: wellFormed(z.string().max(2000)).optional(),
    at: Time.optional().openapi({
      description:
        "When it holds from (valid time; default now). For edit, add_edge and remove_edge the new version starts then, so it must be after the current version's valid_from.",
    }),
    changes: z
      .object({
        title: z.string().min(1).max(1000).optional(),
        synopsis: z.string().min(1).max(2000).optional(),
        content: z
          .string()
          .min(1)
          .max(2 * 1024 * 1024)
          .optional(),
      })
      .strict()
      .optional()
      .openapi({ description: "edit: the fields of the new version that change (at least one)." }),
    event_id: z.string().min(1).max(200).optional().openapi({
      description:
        "Your id for this operation: every repeat with the same id (concurrent or later, the same op on the same target) gets the first success's status and body byte for byte (header `Idempotent-Replayed: true`) and changes nothing; the same id with another operation or target is a 409. A request that fails stores nothing: the id stays free.",
    }),
  })
  .strict()
  .openapi("ReviewRequest", {
    description: "One human-verification operation on a node or an edge.",
    example: { op: "flag", chunk: "concept:ppr", reason: "definition contradicts Section 3" },
  });

const Target = z
  .object({
    chunk: z.string().optional(),
    edge: z.object({ from: z.string(), type: z.string(), to: z.string() }).optional(),
  })
  .openapi({ description: "The node (`chunk`) or the edge (`edge`)." });

export const ReviewResult = z
  .object({
    op: z.enum(REVIEW_OPS),
    target: Target,
    status: Status,
    previous_status: Status,
    at: z.string(),
    actor: z.string().openapi({ description: "The calling key (`key:<id>`) or `admin`." }),
    reason: z.string(),
    version: z.number().int().nullable().openapi({
      description:
        "The version written (edit, add_edge, remove_edge: of the node or of `from`); null for verify and flag.",
    }),
    event: z.number().int().openapi({ description: "The id of the status event." }),
    duplicate: z.boolean().openapi({
      description:
        "true: the event_id's status event was already stored but its answer was not (an event from before answers were kept, or a request that died in between); this answer is rebuilt from it. A repeat of a stored answer gets that answer unchanged (this field included).",
    }),
  })
  .openapi("ReviewResult", {
    description: "The status the operation left, the one before, and the version it wrote.",
    example: {
      op: "flag",
      target: { chunk: "concept:ppr" },
      status: "flagged",
      previous_status: "auto-generated",
      at: T0,
      actor: "key:k_1a2b3c4d",
      reason: "definition contradicts Section 3",
      version: null,
      event: 12,
      duplicate: false,
    },
  });

const q = (name: string, description: string) => queryParam(Id.optional(), name, description);

export const ReviewQuery = z.object({
  chunk: q("chunk", "A node: its status and history."),
  from: q("from", "An edge's source chunk (with type and to)."),
  type: z
    .enum(EDGE_TYPES)
    .optional()
    .openapi({ param: { name: "type", in: "query" }, description: "The edge's type." }),
  to: q("to", "The edge's target."),
  as_of: Time.optional().openapi({
    param: { name: "as_of", in: "query" },
    description: "Status as of then (default now).",
  }),
});

const HistoryItem = z.object({
  op: z.enum(REVIEW_OPS),
  status: Status,
  actor: z.string(),
  reason: z.string(),
  at: z.string(),
  recorded_at: z.string(),
  version: z.number().int().nullable(),
});

export const ReviewState = z
  .object({
    target: Target,
    as_of: z.string(),
    status: Status,
    since: z
      .string()
      .nullable()
      .openapi({ description: "Valid time of the event that set it (null: never reviewed)." }),
    actor: z.string().nullable(),
    reason: z.string(),
    history: z.array(HistoryItem).openapi({ description: "Every review event up to as_of, oldest first." }),
    edge: z
      .object({
        exists: z.boolean().openapi({ description: "The edge is valid at as_of." }),
        valid_from: z.string().nullable(),
        valid_to: z.string().nullable(),
        weight: z.number().nullable(),
      })
      .optional()
      .openapi({ description: "Edges: the stored interval valid at as_of, else the latest one." }),
    edges: z
      .array(z.object({ type: z.string(), to: z.string(), status: Status }))
      .optional()
      .openapi({ description: "Nodes: the reviewed out-edges of the chunk and their status at as_of." }),
  })
  .openapi("ReviewState", {
    description: "A node's or an edge's review status at as_of with its history.",
    example: {
      target: { chunk: "concept:ppr" },
      as_of: T0,
      status: "flagged",
      since: T0,
      actor: "key:k_1a2b3c4d",
      reason: "definition contradicts Section 3",
      history: [
        {
          op: "flag",
          status: "flagged",
          actor: "key:k_1a2b3c4d",
          reason: "definition contradicts Section 3",
          at: T0,
          recorded_at: T0,
          version: 1,
        },
      ],
      edges: [],
    },
  });

// ------------------------------------------------------------------ retrieval metrics

/** Queries per call: each runs the router once (~5-20 ms of CPU on a 10k-head archive). */
export const MAX_METRIC_QUERIES = 100;
export const MAX_METRIC_K = 100;

export const RetrievalMetricsBody = z
  .object({
    queries: z
      .array(
        z
          .object({
            query: z.string().min(1).max(8000),
            gold: z.array(Id).min(1).max(100).openapi({ description: "The relevant chunk ids." }),
            filter: FilterSchema.optional(),
          })
          .strict(),
      )
      .min(1)
      .max(MAX_METRIC_QUERIES),
    k: z
      .array(z.number().int().min(1).max(MAX_METRIC_K))
      .min(1)
      .max(10)
      .default([1, 5, 10])
      .openapi({ description: "The cut-offs of Recall@K and Precision@K (hit rate is at the largest)." }),
    name: z.string().max(200).optional().openapi({ description: "A label to compare runs by." }),
    as_of: Time.optional(),
    store: z.boolean().default(true).openapi({ description: "false: compute only, keep no run." }),
  })
  .strict()
  .openapi("RetrievalMetricsRequest", {
    description: "Queries with gold ids, the K values, and a run name.",
    example: {
      queries: [{ query: "personalized pagerank memory", gold: ["arxiv:2405.14831"] }],
      k: [1, 5, 10],
      name: "baseline",
    },
  });

const KMap = z.record(z.string(), z.number()).openapi({ description: "By K." });

const Aggregate = z.object({
  queries: z.number().int(),
  hit_rate: z.number(),
  mrr: z.number(),
  recall: KMap,
  precision: KMap,
});

const PerQuery = z.object({
  query: z.string(),
  gold: z.array(z.string()),
  returned: z.array(z.string()).openapi({ description: "The router's chunk ids in order (at most max K)." }),
  hit: z.number(),
  reciprocal_rank: z.number(),
  first_rank: z.number().int().nullable(),
  recall: KMap,
  precision: KMap,
});

const RunHead = z.object({
  id: z.string().nullable().openapi({ description: "null when store was false." }),
  name: z.string(),
  created_at: z.string(),
  as_of: z.string(),
  k: z.array(z.number().int()),
  actor: z.string(),
  aggregate: Aggregate,
});

/** The stored run the run examples show. */
const RUN_EXAMPLE = {
  id: "run_3f2a9c",
  name: "baseline",
  created_at: T0,
  as_of: T0,
  k: [1, 5, 10],
  actor: "key:k_1a2b3c4d",
};

/** The one query of the RetrievalRun example. */
const PER_QUERY_EXAMPLE = {
  query: "personalized pagerank memory",
  gold: ["arxiv:2405.14831"],
  returned: ["arxiv:2312.10997", "arxiv:2405.14831"],
  hit: 1,
  reciprocal_rank: 0.5,
  first_rank: 2,
  recall: { "1": 0, "5": 1, "10": 1 },
  precision: { "1": 0, "5": 0.2, "10": 0.1 },
};

export const RetrievalRun = RunHead.extend({ per_query: z.array(PerQuery) }).openapi("RetrievalRun", {
  description: "A retrieval-metrics run: aggregate and per-query hit, reciprocal rank, Recall@K and Precision@K.",
  example: {
    ...RUN_EXAMPLE,
    // Over one query the aggregate is that query's numbers.
    aggregate: {
      queries: 1,
      hit_rate: PER_QUERY_EXAMPLE.hit,
      mrr: PER_QUERY_EXAMPLE.reciprocal_rank,
      recall: PER_QUERY_EXAMPLE.recall,
      precision: PER_QUERY_EXAMPLE.precision,
    },
    per_query: [PER_QUERY_EXAMPLE],
  },
});

export const RetrievalRunPage = z
  .object({ items: z.array(RunHead), next_cursor: z.string().nullable() })
  .openapi("RetrievalRunPage", {
    description: "Stored runs, newest first, without their per-query rows.",
    example: {
      items: [
        {
          ...RUN_EXAMPLE,
          aggregate: {
            queries: 50,
            hit_rate: 0.8,
            mrr: 0.627,
            recall: { "1": 0.52, "5": 0.74, "10": 0.8 },
            precision: { "1": 0.52, "5": 0.148, "10": 0.08 },
          },
        },
      ],
      next_cursor: null,
    },
  });

export const RunListQuery = z.object({
  limit: PageLimit,
  cursor: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "`next_cursor` of the previous page." }),
});

export const RunParam = z.object({
  run: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: "run", in: "path" }, example: "run_3f2a9c", description: "The run's id." }),
});

// ------------------------------------------------------------------ review-score metrics

/** Pairs per call (the metrics are linear; 10,000 pairs is ~1 ms). */
export const MAX_SCORE_PAIRS = 10_000;
/** Chunks whose stored scores one call reads. */
export const MAX_SCORE_CHUNKS = 1000;

const Score = z.number().finite().min(-1e6).max(1e6);

export const ReviewScoreMetricsBody = z
  .object({
    pairs: z
      .array(
        z
          .object({
            predicted: Score.openapi({ description: "The predicted review score (e.g. a model reviewer's)." }),
            human: Score.openapi({ description: "The human review score of the same item." }),
            id: z.string().min(1).max(MAX_ID).optional().openapi({ description: "Your label for the pair." }),
          })
          .strict(),
      )
      .max(MAX_SCORE_PAIRS)
      .optional()
      .openapi({ description: "Score pairs given inline." }),
    annotations: z
      .object({
        chunks: z.array(Id).min(1).max(MAX_SCORE_CHUNKS).openapi({ description: "The chunks to read scores of." }),
        predicted_key: z.string().min(1).max(200).openapi({ description: "Annotation key of the predicted score." }),
        human_key: z.string().min(1).max(200).openapi({ description: "Annotation key of the human score." }),
      })
      .strict()
      .optional()
      .openapi({
        description:
          "Score pairs read from stored annotations: for each chunk, the values of `predicted_key` and `human_key` at `as_of` (a number; an object with a numeric `score`, as an import may store, also counts); a chunk lacking either is skipped and listed.",
      }),
    as_of: Time.optional().openapi({ description: "annotations: the values as of then (default now)." }),
  })
  .strict()
  .openapi("ReviewScoreMetricsRequest", {
    description: "Predicted and human review scores: inline `pairs`, stored `annotations`, or both (pooled).",
    example: {
      pairs: [
        { predicted: 6, human: 5 },
        { predicted: 3.5, human: 4 },
        { predicted: 8, human: 8 },
      ],
    },
  });

export const ReviewScoreMetrics = z
  .object({
    n: z.number().int().openapi({ description: "Pairs scored." }),
    mse: z.number(),
    mae: z.number(),
    rmse: z.number(),
    pearson: z.number().nullable().openapi({ description: "null when n < 2 or either side is constant." }),
    spearman: z.number().nullable().openapi({ description: "Pearson of the ranks (ties averaged); null as pearson." }),
    accuracy_within: z
      .record(z.string(), z.number())
      .openapi({ description: "Share of pairs with |predicted - human| <= t, by t (0.5, 1, 1.5)." }),
    skipped: z
      .array(z.object({ chunk: z.string(), missing: z.array(z.string()) }))
      .openapi({ description: "annotations: chunks without a numeric value for a key, and which keys." }),
    as_of: z.string(),
  })
  .openapi("ReviewScoreMetrics", {
    description: "MSE, MAE, RMSE, Pearson, Spearman and accuracy within ±0.5 / 1 / 1.5 of predicted vs human scores.",
    example: {
      n: 3,
      mse: 0.4167,
      mae: 0.5,
      rmse: 0.6455,
      pearson: 0.941,
      spearman: 1,
      accuracy_within: { "0.5": 0.6667, "1": 1, "1.5": 1 },
      skipped: [],
      as_of: T0,
    },
  });
