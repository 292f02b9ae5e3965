/** The evidence-card contract (DESIGN section 2 step 7), validated with zod. */
import { z } from "zod";
import { countTokens } from "../text/tokenizer";
import { CHUNK_KINDS, type EvidenceCard } from "../types";

/** Caps on the two prose fields (tokens, pg-approx-cl100k-v1): a claim is one sentence, a sketch a few. */
export const MAX_CLAIM_TOKENS = 80;
export const MAX_SKETCH_TOKENS = 150;
/** Two anchors minimum so every card can be cross-checked; five maximum keeps cards skimmable. */
export const MIN_ANCHORS = 2;
export const MAX_ANCHORS = 5;

export const anchorSchema = z
  .object({
    artifact_id: z.string().min(1),
    version: z.number().int().min(1),
    start: z.number().int().min(0),
    end: z.number().int().min(1),
    snippet: z.string().min(1),
  })
  .refine((a) => a.end > a.start, { message: "end must be greater than start" })
  .refine((a) => a.snippet.length === a.end - a.start, { message: "snippet length must equal end - start" });

export const cardSchema = z.object({
  artifact_id: z.string().min(1),
  version: z.number().int().min(1),
  kind: z.enum(CHUNK_KINDS),
  title: z.string(),
  claim_boundary: z
    .string()
    .refine((s) => countTokens(s) <= MAX_CLAIM_TOKENS, `claim_boundary must be <= ${MAX_CLAIM_TOKENS} tokens`),
  logic_sketch: z
    .string()
    .refine((s) => countTokens(s) <= MAX_SKETCH_TOKENS, `logic_sketch must be <= ${MAX_SKETCH_TOKENS} tokens`),
  assumptions: z.array(z.string()),
  anchored_spans: z.array(anchorSchema).min(MIN_ANCHORS).max(MAX_ANCHORS),
  tokens: z.number().int().min(0),
  distiller: z.string().min(1),
});

/** The card is injected into prompts as JSON, so the budget counts its JSON serialisation. */
export function cardTokens(card: Omit<EvidenceCard, "tokens">): number {
  // Serialise without a `tokens` key even if the caller passes a full card, so the count is the
  // same number the distiller stored.
  const { tokens: _ignored, ...rest } = card as EvidenceCard;
  return countTokens(JSON.stringify(rest));
}

/** Every anchor belongs to this card's artifact version and re-slices the content exactly. */
export function checkAnchors(card: EvidenceCard, content: string): boolean {
  return card.anchored_spans.every(
    (a) =>
      a.artifact_id === card.artifact_id &&
      a.version === card.version &&
      Number.isInteger(a.start) &&
      Number.isInteger(a.end) &&
      a.start >= 0 &&
      a.end > a.start &&
      a.end <= content.length &&
      content.slice(a.start, a.end) === a.snippet,
  );
}
