/**
 * The model distiller (seed 000, A.2): one language-model call per card with the card's fields as
 * the structured-output schema. The model writes the claim, the sketch and the assumptions, and
 * quotes 2-5 passages verbatim; the quotes are located in the version's content (exactly, or with
 * the whitespace the model changed), so every anchor is an exact [start, end) span of that version,
 * checked with checkAnchors (the test /verify applies). A card that breaks the schema, its token
 * caps or the budget, or whose quotes are not in the content, gets one retry naming what was wrong;
 * then the extractive card (never raw text without provenance). Cards carry the distiller that made
 * them. Identical requests (same content, id, version, query, budget, tokenizer) are answered from a
 * bounded in-memory cache: a card depends on the query, so that is the part the paper allows to reuse.
 */
import { closedObject, text } from "../json-schema";
import type { ChatMessage, ChatModel, Distiller, DistillInput, JsonSchema, ModelMeter } from "../ports";
import { DEFAULT_TOKENIZER, loadTokenizer } from "../text/tokenizer";
import type { AnchoredSpan, EvidenceCard } from "../types";
import {
  CROSS_CHECK_ANCHORS,
  cardSchemaFor,
  cardTokens,
  checkAnchors,
  MAX_ANCHORS,
  MAX_CLAIM_TOKENS,
  MAX_SKETCH_TOKENS,
} from "./card";
import { requiredAssumptions } from "./extractive";

/** The model's answer: what it writes, and the passages it quotes (located here, not trusted as offsets). */
export const MODEL_CARD_SCHEMA: JsonSchema = closedObject({
  claim_boundary: text(
    `The document's one statement that best answers the question, at most ${MAX_CLAIM_TOKENS} tokens (about 50 words).`,
  ),
  logic_sketch: text(
    `How the document supports the claim, at most ${MAX_SKETCH_TOKENS} tokens; empty if nothing to add.`,
  ),
  assumptions: {
    type: "array",
    maxItems: 3,
    items: { type: "string" },
    description: "Conditions the document states the claim depends on (setting, data, parameters); may be empty.",
  },
  quotes: {
    type: "array",
    minItems: CROSS_CHECK_ANCHORS,
    maxItems: MAX_ANCHORS,
    items: { type: "string" },
    description:
      "2 to 5 passages copied verbatim from the document (at most 300 characters each) that support the claim.",
  },
});

/** Longest quoted snippet (as the extractive distiller): a longer quote is cut at a word boundary. */
const MAX_SNIPPET_CHARS = 300;
/** Document characters sent to the model (~6,000 tokens); quotes may come from this prefix only. */
const DEFAULT_MAX_DOCUMENT_CHARS = 24_000;
const DEFAULT_CACHE_ENTRIES = 256;
/** What one expand or context may spend on the model by default: 20 cards of ~1,500 tokens of prompt and ~300 of answer, with a few retries. */
export const DEFAULT_MODEL_TOKENS_PER_QUERY = 60_000;

const SYSTEM = [
  "You write one evidence card: what one document says that bears on a question, for another model's prompt.",
  "Use only the document. Quote, do not paraphrase, in `quotes`: copy each passage character for character.",
  "Answer with one JSON object matching the schema and nothing else.",
].join(" ");

/** Where a quote is in `content`: exactly, else word for word with any whitespace between words. */
export function locateQuote(content: string, quote: string): { start: number; end: number } | null {
  const q = quote
    .trim()
    .replace(/^["'“‘«]+|["'”’»]+$/gu, "")
    .replace(/^(…|\.\.\.)\s*|\s*(…|\.\.\.)$/gu, "")
    .trim();
  if (q.length < 2) return null;
  let start = content.indexOf(q);
  let end = start + q.length;
  if (start < 0) {
    const words = q.split(/\s+/u).filter(Boolean);
    if (words.length === 0 || words.length > 200) return null;
    const re = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+"), "u");
    const m = re.exec(content);
    if (!m) return null;
    start = m.index;
    end = start + m[0].length;
  }
  if (end - start > MAX_SNIPPET_CHARS) {
    const cut = content.lastIndexOf(" ", start + MAX_SNIPPET_CHARS);
    end = cut > start ? cut : start + MAX_SNIPPET_CHARS;
  }
  return { start, end };
}

interface ModelAnswer {
  claim_boundary: string;
  logic_sketch: string;
  assumptions: string[];
  quotes: string[];
}

function asAnswer(v: unknown): ModelAnswer | string {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return "the answer is not a JSON object";
  const o = v as Record<string, unknown>;
  const str = (k: string) => (typeof o[k] === "string" ? (o[k] as string) : null);
  const list = (k: string) =>
    Array.isArray(o[k]) && (o[k] as unknown[]).every((x) => typeof x === "string") ? (o[k] as string[]) : null;
  const claim = str("claim_boundary");
  const sketch = str("logic_sketch") ?? "";
  const assumptions = list("assumptions") ?? [];
  const quotes = list("quotes");
  if (claim === null) return "claim_boundary is missing or not a string";
  if (quotes === null) return "quotes is missing or not an array of strings";
  return { claim_boundary: claim, logic_sketch: sketch, assumptions, quotes };
}

const oneLine = (s: string) => s.replace(/\s+/gu, " ").trim();

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export interface ModelDistillerOptions {
  model: ChatModel;
  /** The card when the model's two attempts fail or the query's model budget is spent. */
  fallback: Distiller;
  maxDocumentChars?: number | undefined;
  cacheEntries?: number | undefined;
}

export class ModelDistiller implements Distiller {
  readonly name: string;
  /** Cards of one request may be distilled this many at a time (the model call is the wait). */
  readonly concurrency = 4;
  readonly #model: ChatModel;
  readonly #fallback: Distiller;
  readonly #maxDoc: number;
  readonly #cacheEntries: number;
  readonly #cache = new Map<string, EvidenceCard>();

  constructor(opts: ModelDistillerOptions) {
    this.#model = opts.model;
    this.#fallback = opts.fallback;
    this.name = `${opts.model.provider}:${opts.model.model}`;
    this.#maxDoc = opts.maxDocumentChars ?? DEFAULT_MAX_DOCUMENT_CHARS;
    this.#cacheEntries = opts.cacheEntries ?? DEFAULT_CACHE_ENTRIES;
  }

  async distill(input: DistillInput): Promise<EvidenceCard | null> {
    const tokenizer = input.tokenizer ?? DEFAULT_TOKENIZER;
    await loadTokenizer(tokenizer);
    const meter = input.meter;
    const key = [
      await sha256Hex(input.content),
      input.artifactId,
      input.version,
      input.query,
      input.budgetTokens,
      tokenizer,
    ].join("\u0000");
    const hit = this.#cache.get(key);
    if (hit) {
      this.#cache.delete(key);
      this.#cache.set(key, hit);
      if (meter) meter.cacheHits++;
      return hit;
    }
    const messages: ChatMessage[] = [
      { role: "system", content: SYSTEM },
      { role: "user", content: this.#prompt(input) },
    ];
    for (let attempt = 0; attempt < 2; attempt++) {
      const maxOutputTokens = Math.min(2048, 256 + 2 * input.budgetTokens);
      const estimate = Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 4) + maxOutputTokens;
      if (meter && meter.spent + estimate > meter.limit) return this.#fallBack(input, "over_budget");
      if (meter) meter.calls++;
      const out = await this.#model.structured({
        name: "evidence_card",
        description: "One evidence card for the question, from the document.",
        schema: MODEL_CARD_SCHEMA,
        messages,
        maxOutputTokens,
      });
      if (meter) {
        meter.requests += out.usage.requests;
        meter.inputTokens += out.usage.inputTokens;
        meter.outputTokens += out.usage.outputTokens;
        meter.spent += out.usage.inputTokens + out.usage.outputTokens;
      }
      if (!out.ok) {
        // A failed call (rate limit, outage, refused request) is not worth a second card attempt.
        if (out.error.code !== "malformed") return this.#fallBack(input, out.error.code);
        messages.push({
          role: "user",
          content: `Your answer was not usable: ${out.error.message}. Answer again with one JSON object matching the schema.`,
        });
        if (meter) meter.retries++;
        continue;
      }
      const card = this.#card(input, out.value, tokenizer);
      if (typeof card !== "string") {
        this.#remember(key, card);
        return card;
      }
      messages.push(
        { role: "assistant", content: JSON.stringify(out.value) },
        { role: "user", content: `That card cannot be used: ${card}. Write it again.` },
      );
      if (meter && attempt === 0) meter.retries++;
    }
    return this.#fallBack(input, "invalid_card");
  }

  #prompt(input: DistillInput): string {
    const doc =
      input.content.length > this.#maxDoc
        ? `${input.content.slice(0, this.#maxDoc)}\n[… document cut here]`
        : input.content;
    return [
      `Question: ${input.query || "(none: summarise the document's main claim)"}`,
      `Document: ${input.title} (${input.kind}, version ${input.version})`,
      "<<<",
      doc,
      ">>>",
      `The whole card (claim, sketch, assumptions and quotes as JSON) must fit in ${input.budgetTokens} tokens: keep it short.`,
    ].join("\n");
  }

  /** The card from the model's answer, or why it cannot be used. */
  #card(input: DistillInput, value: unknown, tokenizer: NonNullable<DistillInput["tokenizer"]>): EvidenceCard | string {
    const a = asAnswer(value);
    if (typeof a === "string") return a;
    const spans: AnchoredSpan[] = [];
    const missing: string[] = [];
    for (const q of a.quotes) {
      const at = locateQuote(input.content, q);
      if (!at) {
        missing.push(q.slice(0, 80));
        continue;
      }
      if (spans.some((s) => s.start === at.start && s.end === at.end)) continue;
      spans.push({
        artifact_id: input.artifactId,
        version: input.version,
        start: at.start,
        end: at.end,
        snippet: input.content.slice(at.start, at.end),
      });
    }
    if (spans.length < CROSS_CHECK_ANCHORS)
      return `only ${spans.length} of the quotes are verbatim passages of the document${missing.length ? ` (not found: ${missing.map((m) => JSON.stringify(m)).join(", ")})` : ""}; copy ${CROSS_CHECK_ANCHORS} to ${MAX_ANCHORS} passages exactly`;
    const assumptions = [
      ...new Set([...requiredAssumptions(input.context), ...a.assumptions.map(oneLine).filter(Boolean)]),
    ];
    const body: Omit<EvidenceCard, "tokens"> = {
      artifact_id: input.artifactId,
      version: input.version,
      kind: input.kind,
      title: input.title,
      claim_boundary: oneLine(a.claim_boundary),
      logic_sketch: oneLine(a.logic_sketch),
      assumptions,
      anchored_spans: spans.sort((x, y) => x.start - y.start || x.end - y.end).slice(0, MAX_ANCHORS),
      distiller: this.name,
    };
    const card: EvidenceCard = { ...body, tokens: cardTokens(body, tokenizer) };
    const parsed = cardSchemaFor(tokenizer).safeParse(card);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return `${issue?.path.join(".") ?? "card"}: ${issue?.message ?? "invalid"}`;
    }
    if (!checkAnchors(card, input.content)) return "an anchor does not re-slice the document exactly";
    if (card.tokens > input.budgetTokens)
      return `the card is ${card.tokens} tokens and must fit in ${input.budgetTokens}: shorten the claim, the sketch and the quotes`;
    return card;
  }

  async #fallBack(input: DistillInput, reason: string): Promise<EvidenceCard | null> {
    if (input.meter) {
      input.meter.fallbacks++;
      input.meter.reasons[reason] = (input.meter.reasons[reason] ?? 0) + 1;
    }
    return this.#fallback.distill(input);
  }

  #remember(key: string, card: EvidenceCard) {
    this.#cache.set(key, card);
    while (this.#cache.size > this.#cacheEntries) {
      const oldest = this.#cache.keys().next().value;
      if (oldest === undefined) break;
      this.#cache.delete(oldest);
    }
  }
}

/** A fresh meter for one request: what its cards may spend on the model, and what they spent. */
export function newModelMeter(limit: number): ModelMeter {
  return {
    limit,
    spent: 0,
    calls: 0,
    requests: 0,
    retries: 0,
    inputTokens: 0,
    outputTokens: 0,
    fallbacks: 0,
    cacheHits: 0,
    reasons: {},
  };
}
