/** The evidence-card contract (what the distiller returns), validated with zod. */
import { z } from "zod";
import { countTokens, DEFAULT_TOKENIZER, type TokenizerName } from "../text/tokenizer";
import { type AnchoredSpan, CHUNK_KINDS, type EvidenceCard } from "../types";

/** Caps on the two prose fields (tokens of the request's encoding): a claim is one sentence, a sketch a few. */
export const MAX_CLAIM_TOKENS = 80;
export const MAX_SKETCH_TOKENS = 150;
/**
 * Two anchors so a card can be cross-checked (CROSS_CHECK_ANCHORS), whenever its content has two
 * sentences; a one-sentence content has one anchor, that sentence whole (MIN_ANCHORS), rather than
 * two halves of it. Five maximum keeps cards skimmable.
 */
export const MIN_ANCHORS = 1;
export const CROSS_CHECK_ANCHORS = 2;
export const MAX_ANCHORS = 5;

/**
 * The fields of an anchor, defined once: the card's anchors below and the wire anchor of /verify
 * (src/contract/query.ts) both build on them. A card's anchor must also quote its span exactly; a
 * /verify anchor may quote anything, since answering `snippet_mismatch` is verify's job.
 */
export const anchorFields = {
  artifact_id: z.string().min(1).max(512),
  version: z.number().int().min(1),
  start: z.number().int().min(0),
  end: z.number().int().min(1),
  // A quoted span; 200,000 characters is far past any card's snippet (at most 300).
  snippet: z.string().max(200_000),
};

export const anchorSchema = z
  .object({ ...anchorFields, snippet: z.string().min(1) })
  .refine((a) => a.end > a.start, { message: "end must be greater than start" })
  .refine((a) => a.snippet.length === a.end - a.start, { message: "snippet length must equal end - start" });

/** The card schema, with the prose caps counted in `tokenizer` (which must be loaded). */
export function cardSchemaFor(tokenizer: TokenizerName) {
  return z.object({
    artifact_id: z.string().min(1),
    version: z.number().int().min(1),
    kind: z.enum(CHUNK_KINDS),
    title: z.string(),
    claim_boundary: z
      .string()
      .refine(
        (s) => countTokens(s, tokenizer) <= MAX_CLAIM_TOKENS,
        `claim_boundary must be <= ${MAX_CLAIM_TOKENS} tokens`,
      ),
    logic_sketch: z
      .string()
      .refine(
        (s) => countTokens(s, tokenizer) <= MAX_SKETCH_TOKENS,
        `logic_sketch must be <= ${MAX_SKETCH_TOKENS} tokens`,
      ),
    assumptions: z.array(z.string()),
    anchored_spans: z.array(anchorSchema).min(MIN_ANCHORS).max(MAX_ANCHORS),
    tokens: z.number().int().min(0),
    distiller: z.string().min(1),
  });
}

export const cardSchema = cardSchemaFor(DEFAULT_TOKENIZER);

/** One anchor in a card's prompt form: offsets always, the snippet only when it adds text. */
export interface PromptAnchor {
  artifact_id?: string;
  version?: number;
  start: number;
  end: number;
  snippet?: string;
}

/** A card as it is injected into a prompt (the API's field names; what `tokens` counts). */
export interface PromptCard {
  artifact_id: string;
  version: number;
  kind: string;
  title?: string;
  claim_boundary?: string;
  logic_sketch?: string;
  assumptions?: string[];
  anchored_spans: PromptAnchor[];
}

const WS_RUN = /\s+/g;

/**
 * The prompt form of a card: the card's own fields, without what a reader of the prompt would read
 * twice or not at all. Left out: `tokens` and `distiller` (bookkeeping), empty strings and arrays,
 * repeated assumptions, an anchor's artifact_id and version when they are the card's, and an
 * anchor's snippet when its text (whitespace collapsed) is already in claim_boundary or
 * logic_sketch, which is the case for the claim's and the sketch's own sentences: the offsets
 * still say where. `verify` takes the full anchors of the API card, not these.
 */
export function promptCard(card: Omit<EvidenceCard, "tokens" | "distiller">): PromptCard {
  const assumptions = [...new Set(card.assumptions.filter((a) => a.length > 0))];
  const claim = card.claim_boundary;
  const sketch = card.logic_sketch;
  const anchors: PromptAnchor[] = card.anchored_spans.map((a) => {
    const flat = a.snippet.replace(WS_RUN, " ").trim();
    const repeated = flat.length > 0 && (claim.includes(flat) || sketch.includes(flat));
    return {
      ...(a.artifact_id !== card.artifact_id ? { artifact_id: a.artifact_id } : {}),
      ...(a.version !== card.version ? { version: a.version } : {}),
      start: a.start,
      end: a.end,
      ...(repeated ? {} : { snippet: a.snippet }),
    };
  });
  const out: PromptCard = {
    artifact_id: card.artifact_id,
    version: card.version,
    kind: card.kind,
    ...(card.title ? { title: card.title } : {}),
    ...(claim ? { claim_boundary: claim } : {}),
    ...(sketch ? { logic_sketch: sketch } : {}),
    ...(assumptions.length ? { assumptions } : {}),
    anchored_spans: anchors,
  };
  return out;
}

/** The prompt form serialised as it is injected: compact JSON (no whitespace between tokens). */
export function cardPromptJson(card: Omit<EvidenceCard, "tokens" | "distiller">): string {
  return JSON.stringify(promptCard(card));
}

/** Tok(card): the exact token count of the card's prompt form in `tokenizer` (default cl100k_base). */
export function cardTokens(
  card: Omit<EvidenceCard, "tokens" | "distiller"> & { tokens?: number; distiller?: string },
  tokenizer: TokenizerName = DEFAULT_TOKENIZER,
): number {
  return countTokens(cardPromptJson(card), tokenizer);
}

/** An anchor's [start, end) is a non-empty span of `content` that re-slices to its snippet exactly. */
export function spanReslices(a: AnchoredSpan, content: string): boolean {
  return (
    Number.isInteger(a.start) &&
    Number.isInteger(a.end) &&
    a.start >= 0 &&
    a.end > a.start &&
    a.end <= content.length &&
    content.slice(a.start, a.end) === a.snippet
  );
}

/** Every anchor belongs to this card's artifact version and re-slices the content exactly. */
export function checkAnchors(card: EvidenceCard, content: string): boolean {
  return card.anchored_spans.every(
    (a) => a.artifact_id === card.artifact_id && a.version === card.version && spanReslices(a, content),
  );
}
