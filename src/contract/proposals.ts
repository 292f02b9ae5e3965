/**
 * The seed systems' model roles (docs/models.md): ProjectGuard's commitments from session turns, xKG's
 * techniques from a paper's sections with their code links, SGMC's feedback records from a model's
 * critique of a draft. Each answers what the model read, what it proposed with verified anchors, what
 * was dropped and why, and what the model calls spent.
 */
import { z } from "@hono/zod-openapi";
import { boundedInt, IdSchema as Id, T0, Time } from "./common";
import { AnchorSchema, SessionId } from "./query";

const dryRun = z
  .boolean()
  .default(false)
  .openapi({ description: "true: ask the model and check its answer, but write nothing." });

export const ProposalUsageSchema = z
  .object({
    calls: z.number().int().openapi({ description: "Model calls: 1, or 2 after a retry." }),
    requests: z
      .number()
      .int()
      .openapi({ description: "HTTP requests to the endpoint (the adapter's retries included)." }),
    retries: z.number().int().openapi({ description: "Calls repeated because the answer was unusable." }),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    ms: z.number().int(),
  })
  .openapi("ProposalUsage", { description: "What the model calls of this request spent." });

const Dropped = z.object({
  index: z.number().int().openapi({ description: "The item's position in the model's answer." }),
  title: z.string(),
  what: z.enum(["item", "evidence", "link"]).openapi({
    description: "item: the whole item was left out; evidence or link: one quote or link of a kept item.",
  }),
  reason: z.string(),
});

const Written = z.enum(["created", "existing", "dry_run"]).openapi({
  description:
    "created: written now; existing: the id (source ids + content hash) was already there, left as it is; dry_run: nothing written.",
});

const common = (example: Record<string, unknown>) => ({
  as_of: z.string(),
  model: z.string().openapi({ description: "provider:model, also the proposals' source." }),
  dry_run: z.boolean(),
  dropped: z.array(Dropped).openapi({ description: "What the checks left out, and why." }),
  usage: ProposalUsageSchema,
  ...example,
});

const EXAMPLE_USAGE = { calls: 1, requests: 1, retries: 0, input_tokens: 1830, output_tokens: 212, ms: 2400 };

// ------------------------------------------------------------------ ProjectGuard: commitments

export const CommitmentsBody = z
  .object({
    session: SessionId.optional().openapi({
      description: "Read this session's last `last` events (POST …/sessions/{session}/events) at `as_of`.",
    }),
    last: boundedInt(1, 50, 20, "Events of the session read (1-50)."),
    turns: z
      .array(Id)
      .min(1)
      .max(50)
      .optional()
      .openapi({ description: "Or: the chunk ids of turn records to read (their versions at `as_of`)." }),
    as_of: Time.optional(),
    dry_run: dryRun,
    per_turn: z.boolean().default(false).openapi({
      description:
        "With `session`: extraction for the turn just finished (the newest event read). It is stored as its turn record with the answer as its `commitments` annotation, so a second call for the same turn (a redelivery) asks no model, writes nothing and answers the first answer with `replayed: true`.",
    }),
  })
  .strict()
  .openapi("CommitmentsRequest", { example: { session: "s-2025-01-10", last: 20 } });

export const CommitmentsResult = z
  .object(
    common({
      read: z.array(z.object({ id: z.string(), version: z.number().int(), role: z.string() })).openapi({
        description: "The turns the model read, oldest first (a session event's id is the record it becomes).",
      }),
      proposals: z.array(
        z.object({
          id: z.string(),
          kind: z.enum(["design", "decision"]),
          title: z.string(),
          content: z.string(),
          part_of: z.string().nullable().openapi({ description: "The design a decision operationalises." }),
          revises: z.string().nullable().openapi({
            description:
              "The kept record this one revises: written as that record's next version (status `proposed` until committed again), never as a second record; null for a new record.",
          }),
          sources: z.array(z.string()).openapi({ description: "The turns it cites (each a discussed-in edge)." }),
          anchors: z
            .array(AnchorSchema)
            .openapi({ description: "Verbatim spans of those turns; POST /verify accepts them." }),
          status: z.literal("proposed"),
          written: z.union([Written, z.literal("revised")]).openapi({
            description:
              "created: written now; revised: written as the next version of `revises`; existing: nothing new to write (the same id and content were there); dry_run: nothing written.",
          }),
        }),
      ),
      replayed: z.boolean().optional().openapi({
        description: "With `per_turn`: true when this turn was extracted before and this is that first answer.",
      }),
    }),
  )
  .openapi("CommitmentsResult", {
    example: {
      as_of: T0,
      model: "openai:gpt-4o-mini",
      dry_run: false,
      read: [{ id: "turn:s-2025-01-10/1736501400000-9f2c01ab", version: 1, role: "user" }],
      proposals: [
        {
          id: "decision:evict-least-recently-used-heads-3b1f9a0c4d2e",
          kind: "decision",
          title: "Evict least recently used heads",
          content: "The heads cache evicts the least recently used head when full.",
          part_of: null,
          revises: null,
          sources: ["turn:s-2025-01-10/1736501400000-9f2c01ab"],
          anchors: [
            {
              artifact_id: "turn:s-2025-01-10/1736501400000-9f2c01ab",
              version: 1,
              start: 0,
              end: 40,
              snippet: "Evict the least recently used head first",
            },
          ],
          status: "proposed",
          written: "created",
        },
      ],
      dropped: [],
      usage: EXAMPLE_USAGE,
    },
  });

// ------------------------------------------------------------------ xKG: techniques

export const TechniquesBody = z
  .object({
    paper: Id.openapi({ description: "The paper chunk: its sections are its part-of subtree's `section` chunks." }),
    code_prefix: Id.optional().openapi({
      description:
        "Also offer the code units under this id prefix (a repository) besides those in the paper's subtree.",
    }),
    max_code_units: boundedInt(0, 60, 30, "Code units offered (0-60)."),
    as_of: Time.optional(),
    dry_run: dryRun,
  })
  .strict()
  .openapi("TechniquesRequest", { example: { paper: "arxiv:2212.03827", code_prefix: "gh:collin-burns/ccs/" } });

export const TechniquesResult = z
  .object(
    common({
      read: z
        .object({ sections: z.array(z.string()), code_units: z.array(z.string()) })
        .openapi({ description: "What the model read, by chunk id." }),
      proposals: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          type: z.enum(["Methodology", "Technique"]),
          description: z.string(),
          parent: z.string().nullable().openapi({ description: "The technique it is a component of (part-of)." }),
          sources: z.array(z.string()).openapi({ description: "The sections it cites (each a discussed-in edge)." }),
          anchors: z.array(AnchorSchema),
          code: z
            .array(z.object({ id: z.string(), anchor: AnchorSchema }))
            .openapi({ description: "Code units that implement it, each with the span of its code the model named." }),
          written: Written,
        }),
      ),
    }),
  )
  .openapi("TechniquesResult", {
    example: {
      as_of: T0,
      model: "openai:gpt-4o-mini",
      dry_run: false,
      read: { sections: ["arxiv:2212.03827#s2"], code_units: ["gh:collin-burns/ccs/ccs.py"] },
      proposals: [
        {
          id: "arxiv:2212.03827#mt:contrast-consistent-search-5e0a1c2b3d4f",
          name: "Contrast-Consistent Search",
          type: "Methodology",
          description: "Finds a direction in activation space that is consistent across contrast pairs.",
          parent: null,
          sources: ["arxiv:2212.03827#s2"],
          anchors: [
            {
              artifact_id: "arxiv:2212.03827#s2",
              version: 1,
              start: 120,
              end: 174,
              snippet: "we find a direction that satisfies logical consistency",
            },
          ],
          code: [
            {
              id: "gh:collin-burns/ccs/ccs.py",
              anchor: {
                artifact_id: "gh:collin-burns/ccs/ccs.py",
                version: 3,
                start: 410,
                end: 434,
                snippet: "def get_consistent_loss(",
              },
            },
          ],
          written: "created",
        },
      ],
      dropped: [],
      usage: EXAMPLE_USAGE,
    },
  });

// ------------------------------------------------------------------ SGMC: feedback

export const FeedbackProposeBody = z
  .object({
    node: Id.openapi({ description: "The outline node whose draft (`<node>#draft`) is critiqued." }),
    version: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({ description: "The draft version; default the one at `as_of`." }),
    request: z.string().min(1).max(4000).openapi({
      description: "What the critique checks (the reviewer's request), e.g. citation accuracy and coverage.",
    }),
    scope: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: "A scope boundary the records carry besides `feedback` (e.g. agent:drafter)." }),
    checklist: z.enum(["selected", "none"]).default("selected").openapi({
      description:
        "selected (default): the critique refers to r*, the record Eq. 12 selects at as_of within `scope` (Eq. 13), when there is one; none: no checklist.",
    }),
    as_of: Time.optional(),
    dry_run: dryRun,
  })
  .strict()
  .openapi("FeedbackProposeRequest", {
    example: {
      node: "survey/retrieval",
      request: "Check that every claim is supported by its citation.",
      scope: "agent:drafter",
    },
  });

export const FeedbackProposeResult = z
  .object(
    common({
      read: z
        .object({ draft: z.string(), version: z.number().int(), evidence: z.array(z.string()) })
        .openapi({ description: "The draft version critiqued and the sources its evidence anchors quote." }),
      checklist: z
        .object({ id: z.string(), version: z.number().int(), title: z.string() })
        .nullable()
        .openapi({ description: "r* (Eq. 12) the critique referred to; null when none was selected or asked for." }),
      proposals: z.array(
        z.object({
          id: z.string(),
          title: z.string(),
          text: z.string(),
          category: z.string(),
          anchors: z.array(AnchorSchema).openapi({ description: "The draft's spans it is about." }),
          status: z.literal("auto-generated").openapi({
            description:
              "Pending: POST …/review verify accepts it (only then may /feedback/select pick it), flag rejects it.",
          }),
          written: Written,
        }),
      ),
    }),
  )
  .openapi("FeedbackProposeResult", {
    example: {
      as_of: T0,
      model: "openai:gpt-4o-mini",
      dry_run: false,
      read: { draft: "survey/retrieval#draft", version: 3, evidence: ["arxiv:2405.14831"] },
      checklist: null,
      proposals: [
        {
          id: "survey/retrieval#draft/feedback-7c1d2e3f4a5b",
          title: "Check that each number matches its cited source",
          text: "The draft says recall improves by 30 points; the cited passage says up to 20.",
          category: "citation",
          anchors: [
            {
              artifact_id: "survey/retrieval#draft",
              version: 3,
              start: 42,
              end: 70,
              snippet: "improves recall by 30 points",
            },
          ],
          status: "auto-generated",
          written: "created",
        },
      ],
      dropped: [],
      usage: EXAMPLE_USAGE,
    },
  });
