/** Review agents (Paper Circle, seed 004 C33): reviewer reports for a paper from the configured model. */
import { z } from "@hono/zod-openapi";
import { CLAIM_KINDS, MAX_REVIEWERS } from "../core/review-agents";
import { MAX_ID, T0, Time } from "./common";
import { ProposalUsageSchema } from "./proposals";
import { AnchorSchema } from "./query";

export const ReviewersBody = z
  .object({
    paper: z.string().min(1).max(MAX_ID).openapi({ description: "The paper chunk to review." }),
    reviewers: z
      .number()
      .int()
      .min(1)
      .max(MAX_REVIEWERS)
      .default(3)
      .openapi({ description: `Reports to write (1 to ${MAX_REVIEWERS}), one per reviewer angle.` }),
    focus: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .openapi({ description: "What the reviewers should look at (added to the model's instructions)." }),
    as_of: Time.optional().openapi({
      description: "Review the paper and its sections as they were then (default now).",
    }),
    dry_run: z
      .boolean()
      .default(false)
      .openapi({ description: "true: ask the model and check its answer, but write nothing." }),
  })
  .strict()
  .openapi("ReviewersRequest", {
    description: "Which paper to review, how many reviewers, and what to focus on.",
    example: { paper: "arxiv:2405.14831", reviewers: 2, focus: "the evaluation protocol" },
  });

const Claim = z.object({
  kind: z.enum(CLAIM_KINDS),
  text: z.string(),
  anchor: AnchorSchema.openapi({
    description: "The exact span of the exact version the claim quotes (POST /verify re-checks it).",
  }),
});

const Dropped = z.object({
  index: z.number().int().openapi({ description: "The report's position in the model's answer." }),
  title: z.string().openapi({ description: "The report's reviewer." }),
  what: z.enum(["item", "evidence", "link"]).openapi({ description: "item: a whole report; evidence: one claim." }),
  reason: z.string(),
});

export const ReviewersResult = z
  .object({
    paper: z.string(),
    as_of: z.string(),
    model: z.string().openapi({ description: "provider:model, also the reports' source." }),
    dry_run: z.boolean(),
    read: z
      .array(z.object({ id: z.string(), version: z.number().int() }))
      .openapi({ description: "The exact versions the model read: the paper, then its sections." }),
    reports: z.array(
      z.object({
        id: z.string().openapi({ description: "The report's note chunk: <paper>/review-<hash>." }),
        reviewer: z.string(),
        summary: z.string(),
        score: z.number().openapi({ description: "1 to 10." }),
        confidence: z.number().int().openapi({ description: "1 to 5." }),
        claims: z.array(Claim),
        status: z.literal("auto-generated"),
        written: z.enum(["created", "existing", "dry_run"]),
      }),
    ),
    dropped: z.array(Dropped).openapi({ description: "Reports and claims the checks left out, and why." }),
    dropped_claims: z.number().int().openapi({ description: "Claims dropped because their quote did not verify." }),
    usage: ProposalUsageSchema,
  })
  .openapi("ReviewersResult", {
    description: "Reviewer reports with every claim anchored in the paper's text, and what was dropped.",
    example: {
      paper: "arxiv:2405.14831",
      as_of: T0,
      model: "openai:gpt-4o-mini",
      dry_run: false,
      read: [{ id: "arxiv:2405.14831", version: 2 }],
      reports: [
        {
          id: "arxiv:2405.14831/review-3f2a9c1b7d4e",
          reviewer: "experiments",
          summary: "The paper reports multi-hop QA gains; the ablations are thin.",
          score: 6,
          confidence: 4,
          claims: [
            {
              kind: "weakness",
              text: "Only one damping value is evaluated.",
              anchor: {
                artifact_id: "arxiv:2405.14831",
                version: 2,
                start: 120,
                end: 166,
                snippet: "The damping factor is 0.5 in every experiment.",
              },
            },
          ],
          status: "auto-generated",
          written: "created",
        },
      ],
      dropped: [],
      dropped_claims: 0,
      usage: { calls: 1, requests: 1, retries: 0, input_tokens: 5400, output_tokens: 610, ms: 5100 },
    },
  });
