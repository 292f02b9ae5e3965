/**
 * Code in a /context answer (xKG seed 003, Tables 4 and 7): with `max_code_bytes` or `code_chunks`,
 * every card of kind `code_unit` carries its code in `anchored_spans` only, verbatim and exact (its
 * claim_boundary and logic_sketch, which restate that code, are emptied), and says so in `code`.
 * With `code_chunks` those spans are the best windows of the card's version (one version row and one
 * content read per code card, 6 at a time; nothing else of the archive is read); without, they are
 * the spans the distiller anchored. `max_code_bytes` then holds the code of all cards together, in
 * rank order (src/core/code/cap.ts). Other cards are untouched.
 */
import type * as S from "../contract";
import { codeChunksOf } from "../contract/code";
import { type CodeSpan, capCode, utf8Bytes } from "../core/code/cap";
import { bestWindows, mergeWindows, type WindowOptions } from "../core/code/windows";
import { cardTokens } from "../core/distill/card";
import type { ChunkStore } from "../core/ports";
import { DEFAULT_TOKENIZER, type TokenizerName } from "../core/text/tokenizer";
import type { AnchoredSpan, EvidenceCard } from "../core/types";
import { codeSpan } from "./code-pairs";
import type { In } from "./lib/wire";

/** What a code card carries of its code (the wire's CardCode). */
export interface CardCode {
  bytes: number;
  source: "card" | "windows";
  truncated?: boolean;
}

export type WithCode<C> = C & { code?: CardCode };

/** The code options of a /context request, resolved. */
export interface CodeOptions {
  query: string;
  tokenizer: TokenizerName;
  maxCodeBytes?: number | undefined;
  windows: WindowOptions | null;
  /** A card's tokens stay within this when windows are added (the request's max_card_tokens). */
  maxCardTokens?: number | undefined;
}

/** The code options of a /context body (max_code_bytes, code_chunks); null when neither is given. */
export function codeOptions(b: In<typeof S.ContextBody>): CodeOptions | null {
  const windows = codeChunksOf(b.code_chunks);
  if (b.max_code_bytes === undefined && !windows) return null;
  return {
    query: b.query,
    tokenizer: b.tokenizer ?? DEFAULT_TOKENIZER,
    maxCodeBytes: b.max_code_bytes,
    windows,
    maxCardTokens: b.max_card_tokens,
  };
}

/** What reading a code card's version needs: its row, then its content. */
export interface CodeReads {
  versions: Pick<ChunkStore, "exact">;
  contentOf(contentKey: string): Promise<string | null>;
}

/** Versions are read 6 at a time (R2's simultaneous connections per request). */
const READS = 6;

const isCode = (c: EvidenceCard) => c.kind === "code_unit";

/** A card in code form: its code spans as anchors, claim and sketch empty, tokens recounted. */
function codeCard<C extends EvidenceCard>(
  card: C,
  anchors: AnchoredSpan[],
  code: CardCode,
  tokenizer: TokenizerName,
): WithCode<C> {
  const out = { ...card, claim_boundary: "", logic_sketch: "", anchored_spans: anchors, code };
  return { ...out, tokens: cardTokens(out, tokenizer) };
}

const bytesOf = (anchors: readonly AnchoredSpan[]) => anchors.reduce((s, a) => s + utf8Bytes(a.snippet), 0);

/** The card carrying the best windows of `text` (its version's code span), as many as fit max tokens. */
function windowCard<C extends EvidenceCard>(card: C, text: string, o: CodeOptions, w: WindowOptions): WithCode<C> {
  const { windows, ranked } = bestWindows(text, o.query, w);
  let best: WithCode<C> | null = null;
  for (let k = ranked.length; k >= 1; k--) {
    const anchors = mergeWindows(windows, ranked.slice(0, k)).map((s) => ({
      artifact_id: card.artifact_id,
      version: card.version,
      start: s.start,
      end: s.end,
      snippet: text.slice(s.start, s.end),
    }));
    best = codeCard(card, anchors, { bytes: bytesOf(anchors), source: "windows" }, o.tokenizer);
    if (o.maxCardTokens === undefined || best.tokens <= o.maxCardTokens) break;
  }
  return best ?? card;
}

/**
 * Every code card in code form (windows when asked for), in place of the card; the others as they
 * are. A code card whose version cannot be read keeps the distiller's spans.
 */
export async function codeForm<C extends EvidenceCard>(
  reads: CodeReads,
  archive: string,
  cards: readonly C[],
  o: CodeOptions,
): Promise<Array<WithCode<C>>> {
  const out: Array<WithCode<C>> = cards.map((c) =>
    isCode(c) ? codeCard(c, c.anchored_spans, { bytes: bytesOf(c.anchored_spans), source: "card" }, o.tokenizer) : c,
  );
  const w = o.windows;
  if (!w) return out;
  const todo = cards.map((c, i) => ({ c, i })).filter((x) => isCode(x.c));
  for (let k = 0; k < todo.length; k += READS)
    await Promise.all(
      todo.slice(k, k + READS).map(async ({ c, i }) => {
        const v = await reads.versions.exact(archive, c.artifact_id, c.version);
        const content = v ? await reads.contentOf(v.contentKey) : null;
        if (!v || content === null) return;
        const text = content.slice(0, codeSpan(content, v.boundaries).end);
        if (text.length) out[i] = windowCard(c, text, o, w);
      }),
    );
  return out;
}

/**
 * The cards' code within `max` bytes together, in rank order: a code card's spans whole while they
 * fit, the first that does not cut at a line end (`code.truncated`), the card left out (listed in
 * `leftOut`) when none of its code fits. Tokens are recounted for the cards that changed.
 */
export function capCards<C extends EvidenceCard>(
  cards: ReadonlyArray<WithCode<C>>,
  max: number | undefined,
  tokenizer: TokenizerName,
): { cards: Array<WithCode<C>>; bytes: number; leftOut: string[] } {
  const items = cards.map((c): CodeSpan[] | null =>
    c.code
      ? c.anchored_spans.map((a) => ({ start: a.start, end: a.end, bytes: utf8Bytes(a.snippet), text: a.snippet }))
      : null,
  );
  const r = capCode(items, max);
  const kept: Array<WithCode<C>> = [];
  cards.forEach((c, i) => {
    const fit = r.kept[i];
    if (!c.code) kept.push(c);
    else if (fit && !fit.truncated) kept.push(c);
    else if (fit) {
      const anchors = fit.spans.map((s) => ({
        artifact_id: c.artifact_id,
        version: c.version,
        start: s.start,
        end: s.end,
        snippet: s.text ?? "",
      }));
      kept.push(codeCard(c, anchors, { bytes: fit.bytes, source: c.code.source, truncated: true }, tokenizer));
    }
  });
  return { cards: kept, bytes: r.bytes, leftOut: r.leftOut.map((i) => cards[i]?.artifact_id ?? "") };
}

/** Total code bytes of cards (after any later cut, e.g. MCP's budget). */
export function codeBytesOf(cards: ReadonlyArray<{ code?: CardCode | undefined }>): number {
  return cards.reduce((s, c) => s + (c.code?.bytes ?? 0), 0);
}

/** Code form and the cap in one step (no budget between them: the context export). */
export async function codeCards<C extends EvidenceCard>(
  reads: CodeReads,
  archive: string,
  cards: readonly C[],
  o: CodeOptions,
): Promise<{ cards: Array<WithCode<C>>; bytes: number; leftOut: string[] }> {
  return capCards(await codeForm(reads, archive, cards, o), o.maxCodeBytes, o.tokenizer);
}
