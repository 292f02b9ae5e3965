/**
 * The default distiller: deterministic and extractive (no network). It picks the sentences that
 * best match the query, so every statement in the card is verbatim source text, and anchors each
 * one to exact offsets of the exact version. Budget fitting degrades the card step by step
 * (fewer anchors, shorter sketch, fewer assumptions, shorter snippets) and returns null only when
 * not even a two-anchor card fits.
 */
import type { Distiller, DistillInput } from "../ports";
import { terms } from "../text/analyze";
import { type Span, splitSentences, splitWords } from "../text/sentences";
import { countTokens, truncateToTokens } from "../text/tokenizer";
import type { AnchoredSpan, EvidenceCard } from "../types";
import { cardTokens } from "./card";

const CUE =
  /\b(we (propose|introduce|present|show|find|use)|must|should|requires?|outperforms?|improves?|achieves?|defined as|is computed)\b/i;
const PARAM =
  /\b(split|version|v\d+|learning rate|batch size|epochs?|seed|damping|threshold|top-?k|dimensions?|layers?)\b|\d+\/\d+(\/\d+)?|[≥≤]|>=|<=/i;
/** Sentences scanned per chunk: bounds distillation at ~1,500 sentences (~150 KB of prose). */
const MAX_SENTENCES = 1500;
const MAX_SNIPPET_CHARS = 300;

function prefixAtWord(content: string, s: Span, maxChars: number): Span {
  if (s.end - s.start <= maxChars) return s;
  const words = splitWords(content, s.start, s.end);
  let end = words[0]?.end ?? s.end;
  for (const w of words) {
    if (w.end - s.start > maxChars) break;
    end = w.end;
  }
  return { start: s.start, end, text: content.slice(s.start, end) };
}

function iso(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

export class ExtractiveDistiller implements Distiller {
  readonly name = "extractive-v1";

  async distill(input: DistillInput): Promise<EvidenceCard | null> {
    return this.distillSync(input);
  }

  distillSync(input: DistillInput): EvidenceCard | null {
    const { content } = input;
    let sentences = splitSentences(content).slice(0, MAX_SENTENCES);
    if (sentences.length === 0) sentences = [{ start: 0, end: content.length, text: content }];
    if (sentences.length === 1) {
      // Two anchors are the contract: split a single sentence at its middle word boundary.
      const only = sentences[0] as Span;
      const words = splitWords(content, only.start, only.end);
      if (words.length >= 2) {
        const mid = Math.ceil(words.length / 2);
        const a = { start: only.start, end: (words[mid - 1] as Span).end };
        const b = { start: (words[mid] as Span).start, end: only.end };
        sentences = [
          { ...a, text: content.slice(a.start, a.end) },
          { ...b, text: content.slice(b.start, b.end) },
        ];
      } else {
        sentences = [only, only];
      }
    }
    const q = new Set(terms(input.query));
    const scored = sentences.map((s, i) => {
      const t = terms(s.text);
      let hits = 0;
      const seen = new Set<string>();
      for (const w of t) {
        if (q.has(w) && !seen.has(w)) {
          seen.add(w);
          hits++;
        }
      }
      let score = t.length ? hits / Math.sqrt(t.length) : 0;
      if (i === 0) score += 0.3;
      else if (i === 1) score += 0.15;
      if (CUE.test(s.text)) score += 0.2;
      return { i, score };
    });
    const ranked = [...scored].sort((a, b) => b.score - a.score || a.i - b.i).map((x) => x.i);
    const best = ranked[0] as number;

    const required = [
      `version ${input.version}`,
      `valid from ${iso(input.context.validFrom)}${input.context.validTo !== null ? ` until ${iso(input.context.validTo)}` : " (current version at query time)"}`,
    ];
    const extra: string[] = [];
    if (input.context.deprecatedBy) extra.push(`deprecated by ${input.context.deprecatedBy}`);
    for (const b of input.context.boundaries) extra.push(`boundary: ${b}`);
    for (const i of ranked) {
      if (extra.length >= input.context.boundaries.length + 3) break;
      const s = sentences[i] as Span;
      if (i !== best && PARAM.test(s.text)) extra.push(truncateToTokens(s.text, 40));
    }

    let nAnchors = Math.min(5, Math.max(2, new Set(ranked.slice(0, 5)).size));
    let sketchTokens = 150;
    let nExtra = extra.length;
    let snippetChars = MAX_SNIPPET_CHARS;
    let claimTokens = 80;

    const build = (): EvidenceCard => {
      const anchorIdx = [...new Set(ranked.slice(0, nAnchors))];
      while (anchorIdx.length < 2) anchorIdx.push(anchorIdx[0] as number);
      const anchors: AnchoredSpan[] = anchorIdx
        .map((i) => prefixAtWord(content, sentences[i] as Span, snippetChars))
        .map((s) => ({
          artifact_id: input.artifactId,
          version: input.version,
          start: s.start,
          end: s.end,
          snippet: s.text,
        }));
      anchors.sort((a, b) => a.start - b.start || a.end - b.end);
      const sketchIdx = ranked.slice(1, 6).sort((a, b) => a - b);
      let sketch = "";
      for (const i of sketchIdx) {
        const next = sketch ? `${sketch} ${(sentences[i] as Span).text}` : (sentences[i] as Span).text;
        if (countTokens(next) > sketchTokens) {
          if (!sketch) sketch = truncateToTokens(next, sketchTokens);
          break;
        }
        sketch = next;
      }
      const card: Omit<EvidenceCard, "tokens"> = {
        artifact_id: input.artifactId,
        version: input.version,
        kind: input.kind,
        title: input.title,
        claim_boundary: truncateToTokens((sentences[best] as Span).text, claimTokens),
        logic_sketch: sketch,
        assumptions: [...required, ...extra.slice(0, nExtra)],
        anchored_spans: anchors,
        distiller: this.name,
      };
      return { ...card, tokens: cardTokens(card) };
    };

    let card = build();
    while (card.tokens > input.budgetTokens) {
      // Shrink what is redundant first (the claim sentence is also anchored verbatim), then
      // alternate claim and snippet cuts; snippets stop at ~75 characters, below which an excerpt
      // no longer works as evidence.
      if (nAnchors > 2) nAnchors--;
      else if (sketchTokens > 0) sketchTokens = sketchTokens >= 20 ? Math.floor(sketchTokens / 2) : 0;
      else if (nExtra > 0) nExtra--;
      else if (claimTokens > 40) claimTokens = 40;
      else if (snippetChars > 150) snippetChars = 150;
      else if (claimTokens > 20) claimTokens = 20;
      else if (snippetChars > 75) snippetChars = 75;
      else if (claimTokens > 8) claimTokens = 8;
      else return null;
      card = build();
    }
    return card;
  }
}
