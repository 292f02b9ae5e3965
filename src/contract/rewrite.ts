/**
 * xKG's code rewriting (seed 003 App. C.3): a model rewrites the code that implements a technique
 * into one code node (implementation, test, documentation), checked by rules and by a verifier call.
 */
import { z } from "@hono/zod-openapi";
import { boundedInt, IdSchema as Id, T0, Time } from "./common";
import { ProposalUsageSchema } from "./proposals";
import { AnchorSchema } from "./query";

export const RewriteBody = z
  .object({
    technique: Id.openapi({ description: "The `technique` chunk whose code is rewritten." }),
    code_units: z.array(Id).min(1).max(30).optional().openapi({
      description:
        "The code units to rewrite from; default the `code_unit` chunks that implement the technique at `as_of` (earlier rewrites of it left out).",
    }),
    max_code_bytes: boundedInt(
      1000,
      200_000,
      52_100,
      "UTF-8 bytes of code shown to the model (xKG's 52,100), the technique's code first, then its sub-techniques'.",
    ),
    as_of: Time.optional(),
    dry_run: z
      .boolean()
      .default(false)
      .openapi({ description: "true: ask the model and run every check, but write nothing." }),
  })
  .strict()
  .openapi("RewriteRequest", {
    description: "A technique to rewrite code for, and optionally the code units to use.",
    example: { technique: "arxiv:2212.03827#mt:contrast-consistent-search-5e0a1c2b3d4f" },
  });

const Source = z.object({
  id: z.string(),
  quote: z.string(),
  anchor: AnchorSchema.nullable().openapi({ description: "Where the quote is in that unit; null when it is not." }),
  reason: z.string().optional().openapi({ description: "Why the quote did not verify." }),
});

export const RewriteResult = z
  .object({
    as_of: z.string(),
    model: z.string().openapi({ description: "provider:model, also the stored code's source." }),
    dry_run: z.boolean(),
    technique: z.string(),
    paper: z
      .string()
      .nullable()
      .openapi({ description: "The paper the technique is part of (its abstract was shown)." }),
    read: z
      .object({
        code_units: z.array(z.string()).openapi({ description: "The technique's code shown, in order." }),
        sub_techniques: z.array(z.string()).openapi({ description: "A composite technique's sub-techniques." }),
        sub_code_units: z.array(z.string()).openapi({ description: "The sub-techniques' code shown." }),
        code_bytes: z.number().int().openapi({ description: "UTF-8 bytes of code shown (at most max_code_bytes)." }),
      })
      .openapi({ description: "What the model read." }),
    outcome: z.enum(["stored", "existing", "proposal", "none", "dry_run"]).openapi({
      description:
        "stored: written now; existing: the same rewrite (same id) was already stored, nothing written; proposal: a check failed, the rewrite is returned and stored nowhere; none: the model answered None; dry_run: passed, nothing written.",
    }),
    id: z
      .string()
      .nullable()
      .openapi({ description: "The code unit `<technique>#code:<hash>` (stored or that would be)." }),
    test_id: z.string().nullable().openapi({ description: "Its test unit, when the rewrite has a test." }),
    rewrite: z
      .object({
        implementation: z.string(),
        test: z.string(),
        documentation: z.string(),
        sources: z.array(Source),
      })
      .nullable(),
    checks: z
      .object({
        quotes: z.object({ ok: z.boolean(), failures: z.array(z.string()) }),
        core: z
          .object({
            lines: z.number().int(),
            found: z.number().int(),
            fraction: z.number(),
            threshold: z.number(),
            ok: z.boolean(),
            missing: z.array(z.string()),
          })
          .openapi({ description: "The implementation's core lines found verbatim in the code shown." }),
        verifier: z
          .object({ verdict: z.boolean().nullable(), reason: z.string() })
          .openapi({ description: "The verifier call's answer; null when it was not asked (a rule failed)." }),
      })
      .nullable(),
    reasons: z.array(z.string()).openapi({ description: "Why the rewrite was not stored (outcome proposal)." }),
    usage: ProposalUsageSchema,
  })
  .openapi("RewriteResult", {
    description: "The rewrite, its checks and what was written.",
    example: {
      as_of: T0,
      model: "openai:gpt-4o-mini",
      dry_run: false,
      technique: "arxiv:2212.03827#mt:ccs-loss-5e0a1c2b3d4f",
      paper: "arxiv:2212.03827",
      read: {
        code_units: ["gh:collin-burns/ccs/utils.py"],
        sub_techniques: [],
        sub_code_units: [],
        code_bytes: 1840,
      },
      outcome: "stored",
      id: "arxiv:2212.03827#mt:ccs-loss-5e0a1c2b3d4f#code:0c1d2e3f4a5b",
      test_id: "arxiv:2212.03827#mt:ccs-loss-5e0a1c2b3d4f#code:0c1d2e3f4a5b#test",
      rewrite: {
        implementation:
          'import torch\n\ndef ccs_loss(p0: torch.Tensor, p1: torch.Tensor) -> torch.Tensor:\n    """Consistency plus confidence."""\n    return ((p0 - (1 - p1)) ** 2).mean() + (torch.min(p0, p1) ** 2).mean()\n\n# TEST BLOCK\nif __name__ == "__main__":\n    print(ccs_loss(torch.rand(4), torch.rand(4)))\n',
        test: "",
        documentation: "Computes the CCS loss of a batch of contrast-pair probabilities.",
        sources: [
          {
            id: "gh:collin-burns/ccs/utils.py",
            quote: "def get_consistent_loss(self, p0, p1):",
            anchor: {
              artifact_id: "gh:collin-burns/ccs/utils.py",
              version: 1,
              start: 410,
              end: 448,
              snippet: "def get_consistent_loss(self, p0, p1):",
            },
          },
        ],
      },
      checks: {
        quotes: { ok: true, failures: [] },
        core: { lines: 3, found: 2, fraction: 0.667, threshold: 0.5, ok: true, missing: ["import torch"] },
        verifier: { verdict: true, reason: "Implements exactly the loss the technique defines, as in utils.py." },
      },
      reasons: [],
      usage: { calls: 2, requests: 2, retries: 0, input_tokens: 3200, output_tokens: 420, ms: 5100 },
    },
  });
