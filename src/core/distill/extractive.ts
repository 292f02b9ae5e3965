/**
 * The default distiller, "extractive-v1": deterministic, no network. It picks the sentences that
 * best match the query, so every statement in the card is verbatim source text, and anchors them to
 * exact offsets of the exact version. Budget fitting degrades the card in a fixed order (fewer
 * anchors, shorter sketch, fewer optional assumptions, shorter snippets, shorter claim) and returns
 * null only when not even a two-anchor card fits.
 */
import type { Distiller, DistillInput } from "../ports";
import { terms } from "../text/analyze";
import { type Span, splitSentences, splitWords } from "../text/sentences";
import { countTokens, truncateToTokens } from "../text/tokenizer";
import type { AnchoredSpan, EvidenceCard } from "../types";
import { cardTokens, MAX_ANCHORS, MAX_CLAIM_TOKENS, MAX_SKETCH_TOKENS, MIN_ANCHORS } from "./card";

/** Snippets are not cut below this many characters (a few words): shorter ones stop being evidence. */
const MIN_SNIPPET_CHARS = 60;

/** Claim cue words: sentences that state a contribution or a requirement are likelier claims. */
const CUE = /\b(?:we (?:propose|introduce|present|show|find|prove)|must|should|requires?)\b/i;
/** Numbers and equations: results and definitions are what a reader comes to a card for. */
const QUANT = /\d|[=≤≥<>±×∑∏√∈]/;
/** Conditions a claim holds under: hyper-parameters, splits, versions, inequalities, dates. */
const PARAM =
  /\b(?:split|version|v\d+(?:\.\d+)*|learning rate|batch size|epochs?|seed|damping|threshold|top-?k|temperature|dropout|warm-?up|\d+\/\d+(?:\/\d+)?)\b|[≥≤]|>=|<=/i;
const WS_RUN = /\s+/g;

/** Only a prefix this long is segmented and scored, bounding cost on pathological chunks (~2,500 sentences). */
const MAX_SCAN_CHARS = 200_000;
/** Longest anchor snippet; a longer sentence is cut to a word-boundary prefix (offsets stay exact). */
const MAX_SNIPPET_CHARS = 300;
/** Sketch sentences considered, so anchors (claim + sketch, at most 5) can cover all of them. */
const MAX_SKETCH_SENTENCES = MAX_ANCHORS - 1;
const MAX_PARAM_ASSUMPTIONS = 2;
const MAX_PARAM_TOKENS = 40;
/** Sentences with fewer terms score as if they had this many, so a heading is not a claim. */
const MIN_TERMS_NORM = 4;
const LEAD_BONUS = [0.1, 0.05];
const CUE_BONUS = 0.1;
const QUANT_BONUS = 0.05;

const DAY_MS = 86_400_000;

function iso(t: number): string {
  // Date only when the instant is a UTC midnight (the common case for papers), else to the second.
  if (!Number.isFinite(t) || Math.abs(t) > 8.64e15) return String(t);
  const s = new Date(t).toISOString();
  if (t % DAY_MS === 0) return s.slice(0, 10);
  return `${s.slice(0, 19)}Z`;
}

/**
 * A claim cut to a token cap ends at a clause or word boundary and is marked with "…", so a reader
 * (or a model) never mistakes a fragment such as "Retrieval-augmented generation (" for the claim.
 * The full sentence stays available verbatim in the anchors.
 */
function shortenClaim(claim: string, cap: number): string {
  if (countTokens(claim) <= cap) return claim;
  // Reserve one token for the ellipsis.
  const cut = truncateToTokens(claim, Math.max(0, cap - 1));
  const clause = Math.max(cut.lastIndexOf(", "), cut.lastIndexOf("; "), cut.lastIndexOf(": "));
  const word = cut.lastIndexOf(" ");
  const end = clause >= cut.length * 0.5 ? clause : word > 0 ? word : cut.length;
  const text = cut.slice(0, end).replace(/[\s([{,;:-]+$/u, "");
  return text ? `${text}…` : "";
}

function oneLine(s: string): string {
  return s.replace(WS_RUN, " ").trim();
}

/** The longest prefix of span `s` of at most maxChars ending at a word boundary; at least one word. */
function prefixAtWord(content: string, s: Span, maxChars: number): Span {
  if (s.end - s.start <= maxChars) return s;
  const words = splitWords(content, s.start, s.end);
  const first = words[0];
  if (!first) return s;
  let end = first.end;
  if (end - s.start > MAX_SNIPPET_CHARS) {
    // A single "word" longer than the snippet cap (a URL, a formula): hard cut, never mid surrogate pair.
    end = s.start + MAX_SNIPPET_CHARS;
    const hi = content.charCodeAt(end - 1);
    if (hi >= 0xd800 && hi <= 0xdbff) end--;
  } else {
    for (const w of words) {
      if (w.end - s.start > maxChars) break;
      end = w.end;
    }
  }
  return { start: s.start, end, text: content.slice(s.start, end) };
}

/** The largest x in [lo, hi] with ok(x), assuming ok is monotone (true up to some point); lo - 1 if none. */
function largest(lo: number, hi: number, ok: (x: number) => boolean): number {
  if (hi < lo || !ok(lo)) return lo - 1;
  let a = lo;
  let b = hi;
  while (a < b) {
    const mid = Math.ceil((a + b) / 2);
    if (ok(mid)) a = mid;
    else b = mid - 1;
  }
  return a;
}

/** Segment the content; guarantee at least two spans (the card contract needs two anchors). */
function segment(content: string): Span[] {
  const scan = content.length > MAX_SCAN_CHARS ? content.slice(0, MAX_SCAN_CHARS) : content;
  const sentences = splitSentences(scan);
  if (sentences.length >= 2) return sentences;
  const only: Span = sentences[0] ?? { start: 0, end: content.length, text: content };
  const words = splitWords(content, only.start, only.end);
  if (words.length < 2) return [only, only];
  // One sentence: split it at its middle word boundary.
  const mid = Math.ceil(words.length / 2);
  const aEnd = (words[mid - 1] as Span).end;
  const bStart = (words[mid] as Span).start;
  return [
    { start: only.start, end: aEnd, text: content.slice(only.start, aEnd) },
    { start: bStart, end: only.end, text: content.slice(bStart, only.end) },
  ];
}

export class ExtractiveDistiller implements Distiller {
  readonly name = "extractive-v1";

  async distill(input: DistillInput): Promise<EvidenceCard | null> {
    return this.distillSync(input);
  }

  distillSync(input: DistillInput): EvidenceCard | null {
    const { content } = input;
    const sentences = segment(content);

    // 1. Score: distinct query terms matched / sqrt(sentence terms), plus small lead and cue bonuses.
    const q = new Set(terms(input.query));
    const scores = new Float64Array(sentences.length);
    for (let i = 0; i < sentences.length; i++) {
      const text = (sentences[i] as Span).text;
      let score = 0;
      if (q.size > 0) {
        const t = terms(text);
        let hits = 0;
        const seen = new Set<string>();
        for (const w of t) {
          if (q.has(w) && !seen.has(w)) {
            seen.add(w);
            hits++;
          }
        }
        score = hits / Math.sqrt(Math.max(MIN_TERMS_NORM, t.length));
      }
      score += LEAD_BONUS[i] ?? 0;
      if (CUE.test(text)) score += CUE_BONUS;
      if (QUANT.test(text)) score += QUANT_BONUS;
      scores[i] = score;
    }
    const ranked = Array.from(sentences.keys()).sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
    const best = ranked[0] as number;

    // 2. Claim: the best sentence; sketch: the next best (at most 4, so anchors can cover them), in
    //    document order, as many as fit 150 tokens.
    const claimFull = oneLine((sentences[best] as Span).text);
    const sketchIdx: number[] = [];
    let sketchBudget = MAX_SKETCH_TOKENS;
    for (const i of ranked) {
      if (sketchIdx.length >= MAX_SKETCH_SENTENCES || sketchBudget <= 0) break;
      if (i === best || (sentences[i] as Span).start === (sentences[best] as Span).start) continue;
      const c = countTokens(oneLine((sentences[i] as Span).text));
      if (c <= sketchBudget || sketchIdx.length === 0) {
        sketchIdx.push(i);
        sketchBudget -= c;
      }
    }
    const sketchFull = truncateToTokens(
      [...sketchIdx]
        .sort((a, b) => a - b)
        .map((i) => oneLine((sentences[i] as Span).text))
        .join(" "),
      MAX_SKETCH_TOKENS,
    );

    // 3. Assumptions: validity and version always; boundaries and parameter sentences are optional.
    const { context } = input;
    const required = [
      `valid from ${iso(context.validFrom)}`,
      context.validTo !== null && Number.isFinite(context.validTo)
        ? `valid until ${iso(context.validTo)}`
        : "current version as of query time",
      `version ${input.version}`,
    ];
    if (context.deprecatedBy) required.push(`deprecated by ${context.deprecatedBy}`);
    const extras: string[] = [];
    for (const b of context.boundaries) {
      const s = `boundary: ${b}`;
      if (!extras.includes(s)) extras.push(s);
    }
    let params = 0;
    for (const i of ranked) {
      if (params >= MAX_PARAM_ASSUMPTIONS) break;
      const text = (sentences[i] as Span).text;
      if (i === best || !PARAM.test(text)) continue;
      const s = truncateToTokens(oneLine(text), MAX_PARAM_TOKENS);
      if (s && !extras.includes(s)) {
        extras.push(s);
        params++;
      }
    }

    // 4. Anchors: claim sentence, sketch sentences, then the next best; at most 5.
    const anchorOrder: number[] = [];
    for (const i of [best, ...sketchIdx, ...ranked]) {
      if (anchorOrder.length >= MAX_ANCHORS) break;
      if (!anchorOrder.includes(i)) anchorOrder.push(i);
    }
    while (anchorOrder.length < MIN_ANCHORS) anchorOrder.push(best);

    // 5. Build and fit the budget.
    const budget = input.budgetTokens;
    let nAnchors = anchorOrder.length;
    let sketchCap = MAX_SKETCH_TOKENS;
    let nExtras = extras.length;
    let snippetCap = MAX_SNIPPET_CHARS;
    let claimCap = MAX_CLAIM_TOKENS;

    const build = (): EvidenceCard => {
      const anchors: AnchoredSpan[] = anchorOrder
        .slice(0, nAnchors)
        .map((i) => prefixAtWord(content, sentences[i] as Span, snippetCap))
        .sort((a, b) => a.start - b.start || a.end - b.end)
        .map((s) => ({
          artifact_id: input.artifactId,
          version: input.version,
          start: s.start,
          end: s.end,
          snippet: s.text,
        }));
      const card: Omit<EvidenceCard, "tokens"> = {
        artifact_id: input.artifactId,
        version: input.version,
        kind: input.kind,
        title: input.title,
        claim_boundary: shortenClaim(claimFull, claimCap),
        logic_sketch: sketchCap >= MAX_SKETCH_TOKENS ? sketchFull : truncateToTokens(sketchFull, sketchCap),
        assumptions: [...required, ...extras.slice(0, nExtras)],
        anchored_spans: anchors,
        distiller: this.name,
      };
      return { ...card, tokens: cardTokens(card) };
    };
    const fits = (card: EvidenceCard) => card.tokens <= budget;

    let card = build();
    if (fits(card)) return card;
    // Fewer anchors (the dropped sentences may still be in the sketch; the claim's anchor stays).
    while (nAnchors > MIN_ANCHORS) {
      nAnchors--;
      card = build();
      if (fits(card)) return card;
    }
    // A shorter sketch.
    const sketchOk = largest(0, MAX_SKETCH_TOKENS - 1, (x) => {
      sketchCap = x;
      return fits(build());
    });
    if (sketchOk >= 0) {
      sketchCap = sketchOk;
      return build();
    }
    sketchCap = 0;
    // Fewer optional assumptions (parameter sentences go before boundary tags).
    while (nExtras > 0) {
      nExtras--;
      card = build();
      if (fits(card)) return card;
    }
    // Then alternate: the claim sentence is also anchored verbatim, so the claim shortens first,
    // down to 12 tokens; then snippets, but not below ~60 characters (shorter excerpts stop working
    // as evidence); then the claim down to 6 tokens. Below that the card is skipped.
    const claimLong = largest(12, MAX_CLAIM_TOKENS - 1, (x) => {
      claimCap = x;
      return fits(build());
    });
    if (claimLong >= 12) {
      claimCap = claimLong;
      return build();
    }
    claimCap = 12;
    const snippetOk = largest(MIN_SNIPPET_CHARS, MAX_SNIPPET_CHARS - 1, (x) => {
      snippetCap = x;
      return fits(build());
    });
    if (snippetOk >= MIN_SNIPPET_CHARS) {
      snippetCap = snippetOk;
      return build();
    }
    snippetCap = MIN_SNIPPET_CHARS;
    const claimShort = largest(6, 11, (x) => {
      claimCap = x;
      return fits(build());
    });
    if (claimShort >= 6) {
      claimCap = claimShort;
      return build();
    }
    return null;
  }
}
