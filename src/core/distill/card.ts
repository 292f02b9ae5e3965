/** The evidence-card contract (DESIGN section 2 step 7), validated with zod. */
import { z } from "zod";
import { countTokens } from "../text/tokenizer";
import { CHUNK_KINDS, type EvidenceCard } from "../types";

export const anchorSchema = z
  .object({
    artifact_id: z.string().min(1),
    version: z.number().int().min(1),
    start: z.number().int().min(0),
    end: z.number().int().min(1),
    snippet: z.string().min(1),
  })
  .refine((a) => a.end > a.start, { message: "end must be greater than start" });

export const cardSchema = z.object({
  artifact_id: z.string().min(1),
  version: z.number().int().min(1),
  kind: z.enum(CHUNK_KINDS),
  title: z.string(),
  claim_boundary: z.string().refine((s) => countTokens(s) <= 80, "claim_boundary must be <= 80 tokens"),
  logic_sketch: z.string().refine((s) => countTokens(s) <= 150, "logic_sketch must be <= 150 tokens"),
  assumptions: z.array(z.string()),
  anchored_spans: z.array(anchorSchema).min(2).max(5),
  tokens: z.number().int().min(0),
  distiller: z.string().min(1),
});

/** The card is injected into prompts as JSON, so the budget counts its JSON serialisation. */
export function cardTokens(card: Omit<EvidenceCard, "tokens">): number {
  return countTokens(JSON.stringify(card));
}

export function checkAnchors(card: EvidenceCard, content: string): boolean {
  return card.anchored_spans.every(
    (a) =>
      a.artifact_id === card.artifact_id &&
      a.version === card.version &&
      a.start >= 0 &&
      a.end <= content.length &&
      content.slice(a.start, a.end) === a.snippet,
  );
}
