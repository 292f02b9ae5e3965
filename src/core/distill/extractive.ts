/**
 * The default distiller, "extractive-v1": deterministic, no network. It picks the sentences that
 * best match the query, so every statement in the card is verbatim source text (a shortened claim
 * is a verbatim prefix ending on a clause boundary, marked "…"), and anchors them to exact offsets
 * of the exact version. Only prose is quoted: front matter, headings, table rows, link-only list
 * items, a paper's metadata lines and bibliography entries never become the claim, a sketch sentence
 * or an assumption (see prose.ts). Anchors may also point at data (a table row, code, a reference)
 * but never at structure (a heading, front matter, metadata, the raw BibTeX entry). Content in a data
 * format (a raw BibTeX entry, JSON) is quoted from its prose values only (structured.ts). Budget fitting degrades the card in a fixed order (fewer
 * extra anchors, fewer sketch sentences, fewer optional assumptions, a shorter claim, shorter
 * snippets, a short fallback claim) and returns null only when not even a card with two anchors (one
 * for a one-sentence content) fits.
 */
import type { Distiller, DistillInput } from "../ports";
import { terms } from "../text/analyze";
import { type Span, splitSentences, splitWords } from "../text/sentences";
import { countTokens, DEFAULT_TOKENIZER, loadTokenizer, type TokenizerName } from "../text/tokenizer";
import type { AnchoredSpan, EvidenceCard } from "../types";
import { CROSS_CHECK_ANCHORS, cardTokens, MAX_ANCHORS, MAX_CLAIM_TOKENS, MAX_SKETCH_TOKENS, MIN_ANCHORS } from "./card";
import { clauseCuts, countWords, type NonProse, nonProseRanges } from "./prose";
import { fieldRegions } from "./structured";

/** Snippets are not cut below this many characters (a few words): shorter ones stop being evidence. */
const MIN_SNIPPET_CHARS = 60;
/** A claim cut to a clause keeps at least this many words; shorter cuts read as fragments. */
const CLAUSE_MIN_WORDS = 8;
/** No claim is shorter than this many words when the content has a sentence this long. */
const CLAIM_MIN_WORDS = 4;
/** Other sentences may stand in for a best sentence that does not fit if they score at least this share of it. */
const ALT_SCORE_SHARE = 0.5;
/** How many other sentences are considered as shorter stand-in claims. */
const MAX_ALT_CLAIMS = 8;

/** Claim cue words: sentences that state a contribution or a requirement are likelier claims. */
const CUE = /\b(?:we (?:propose|introduce|present|show|find|prove)|must|should|requires?)\b/i;
/** Numbers and equations: results and definitions are what a reader comes to a card for. */
const QUANT = /\d|[=≤≥<>±×∑∏√∈]/;
/** Conditions a claim holds under: hyper-parameters, splits, versions, inequalities, dates. */
const PARAM =
  /\b(?:split|version|v\d+(?:\.\d+)*|learning rate|batch size|epochs?|seed|damping|threshold|top-?k|temperature|dropout|warm-?up|\d+\/\d+(?:\/\d+)?)\b|[≥≤]|>=|<=/i;
const WS_RUN = /\s+/g;
const WS = /\s/;

/** Only a prefix this long is segmented and scored, bounding cost on pathological chunks (~2,500 sentences). */
const MAX_SCAN_CHARS = 200_000;
/** Longest anchor snippet; a longer sentence is cut to a word-boundary prefix (offsets stay exact). */
const MAX_SNIPPET_CHARS = 300;
/** Sketch sentences considered, so anchors (claim + sketch, at most 5) can cover all of them. */
const MAX_SKETCH_SENTENCES = MAX_ANCHORS - 1;
const MAX_PARAM_ASSUMPTIONS = 2;
const MAX_PARAM_TOKENS = 40;
/** Parameter sentences are looked for among this many best-ranked prose sentences. */
const MAX_PARAM_SCAN = 64;
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

function oneLine(s: string): string {
  return s.replace(WS_RUN, " ").trim();
}

/** A sentence (or part of one) with whether it is prose that may be quoted as a claim or sketch. */
interface Unit extends Span {
  prose: boolean;
}

/** The raw end offset inside span `s` of the first `len` characters of oneLine(s.text). */
function rawEnd(s: Span, len: number): number {
  const t = s.text;
  let i = 0;
  let j = 0;
  while (i < t.length && j < len) {
    if (WS.test(t[i] as string)) {
      while (i < t.length && WS.test(t[i] as string)) i++;
      j++;
    } else {
      i++;
      j++;
    }
  }
  return s.start + i;
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

/** The smallest x in [lo, hi] with ok(x), assuming ok is monotone (false up to some point); hi + 1 if none. */
function smallest(lo: number, hi: number, ok: (x: number) => boolean): number {
  let a = lo;
  let b = hi + 1;
  while (a < b) {
    const mid = Math.floor((a + b) / 2);
    if (ok(mid)) b = mid;
    else a = mid + 1;
  }
  return a;
}

function trimmed(content: string, start: number, end: number, prose: boolean): Unit | null {
  let s = start;
  let e = end;
  while (s < e && WS.test(content[s] as string)) s++;
  while (e > s && WS.test(content[e - 1] as string)) e--;
  return e > s ? { start: s, end: e, text: content.slice(s, e), prose } : null;
}

/**
 * Sentence spans cut at the non-prose ranges; each part marked prose or not, and structure (headings,
 * front matter, metadata, a BibTeX entry) left out. Both lists are sorted.
 */
function markProse(content: string, sentences: Span[], ranges: NonProse[]): Unit[] {
  const out: Unit[] = [];
  let r = 0;
  for (const s of sentences) {
    while (r < ranges.length && (ranges[r] as NonProse).end <= s.start) r++;
    let pos = s.start;
    for (let k = r; k < ranges.length && (ranges[k] as NonProse).start < s.end; k++) {
      const g = ranges[k] as NonProse;
      const a = Math.max(g.start, s.start);
      const b = Math.min(g.end, s.end);
      if (a > pos) {
        const u = trimmed(content, pos, a, true);
        if (u) out.push(u);
      }
      if (g.kind === "data") {
        const u = trimmed(content, a, b, false);
        if (u) out.push(u);
      }
      pos = b;
    }
    if (pos < s.end) {
      const u = trimmed(content, pos, s.end, true);
      if (u) out.push(u);
    }
  }
  return out;
}

/**
 * Segment the content into sentence units, at least one. A data format (raw BibTeX, JSON) gives the
 * sentences of its prose values only (structured.ts); text gives its sentences cut at the non-prose
 * ranges (prose.ts). Content with no sentence left (only a heading, a BibTeX entry without a title)
 * gives one short unit, not prose: its first words, up to MIN_SNIPPET_CHARS.
 */
function segment(content: string): Unit[] {
  const limit = Math.min(content.length, MAX_SCAN_CHARS);
  const fields = fieldRegions(content, limit);
  let units: Unit[];
  if (fields) {
    units = [];
    for (const r of fields)
      for (const s of splitSentences(content.slice(r.start, r.end)))
        units.push({ start: r.start + s.start, end: r.start + s.end, text: s.text, prose: r.prose });
  } else {
    const scan = content.length > limit ? content.slice(0, limit) : content;
    units = markProse(content, splitSentences(scan), nonProseRanges(content, limit));
  }
  if (units.length > 0) return units;
  // From the first letter or digit on: no markup ("# ", "| ", "@misc{") opens the anchor.
  const first = content.slice(0, limit).search(/[\p{L}\p{N}]/u);
  const all = (first >= 0 ? trimmed(content, first, limit, false) : null) ?? {
    start: 0,
    end: content.length,
    text: content,
    prose: false,
  };
  return [{ ...prefixAtWord(content, all, MIN_SNIPPET_CHARS), prose: false }];
}

/** A text quoted from one span: the whole span, or a prefix of oneLine(span) ending on a clause. */
interface Quote {
  text: string;
  tokens: number;
  /** The span it quotes. */
  span: Span;
  /** Characters of oneLine(span.text) quoted; null when whole. */
  prefix: number | null;
  /** Unit index. */
  unit: number;
}

/** The spans a quote anchors (within `anchorsOf`, the spans a whole quote of this unit anchors). */
function quotedSpans(q: Quote, anchorsOf: Span[]): Span[] {
  if (q.prefix === null) return anchorsOf;
  const end = rawEnd(q.span, q.prefix);
  const out: Span[] = [];
  for (const s of anchorsOf) {
    if (s.start >= end) break;
    const e = Math.min(s.end, end);
    out.push(e === s.end ? s : { start: s.start, end: e, text: s.text.slice(0, e - s.start) });
  }
  return out;
}

/**
 * Quotes of `span` in decreasing token order, each under `cap` tokens: the whole (when no bracket or
 * quote is left open and it has at least wholeMin words), then prefixes ending on clause boundaries
 * with cutMin..cutMax words; at most `limit` of them. Cut prefixes that do not end a sentence get "…".
 */
function quotes(
  span: Span,
  unit: number,
  cap: number,
  words: { wholeMin: number; cutMin: number; cutMax?: number },
  tokenizer: TokenizerName,
  limit = Number.POSITIVE_INFINITY,
): Quote[] {
  const flat = oneLine(span.text);
  const scan = clauseCuts(flat);
  const out: Quote[] = [];
  const cutMax = words.cutMax ?? Number.POSITIVE_INFINITY;
  const add = (text: string, prefix: number | null) => {
    const tokens = countTokens(text, tokenizer);
    if (tokens <= cap && tokens < (out[out.length - 1]?.tokens ?? Number.POSITIVE_INFINITY)) {
      out.push({ text, tokens, span, prefix, unit });
    }
  };
  if (scan.balanced && scan.words >= words.wholeMin) add(flat, null);
  for (let k = scan.cuts.length - 1; k >= 0 && out.length < limit; k--) {
    const c = scan.cuts[k] as (typeof scan.cuts)[number];
    if (c.words < words.cutMin || c.words > cutMax) continue;
    const body = flat.slice(0, c.end).trimEnd();
    add(c.sentence ? body : `${body.replace(/[\s,;:]+$/u, "")}…`, c.end);
  }
  return out;
}

/** The assumptions every card carries: its validity interval and its deprecation (any distiller). */
export function requiredAssumptions(context: DistillInput["context"]): string[] {
  const out = [
    `valid from ${iso(context.validFrom)}`,
    context.validTo !== null && Number.isFinite(context.validTo)
      ? `valid until ${iso(context.validTo)}`
      : "current version as of query time",
  ];
  if (context.deprecatedBy) out.push(`deprecated by ${context.deprecatedBy}`);
  return out;
}

export class ExtractiveDistiller implements Distiller {
  readonly name = "extractive-v1";

  async distill(input: DistillInput): Promise<EvidenceCard | null> {
    await loadTokenizer(input.tokenizer ?? DEFAULT_TOKENIZER);
    return this.distillSync(input);
  }

  /**
   * distill without the await: the input's tokenizer must already be loaded (cl100k_base always is).
   * The steps, numbered in the comments: score (scoreUnits), choose the claim (claimLadder), the
   * sketch (sketchOptions), the assumptions (assumptionsOf), the anchors, then fit the budget by
   * shrinking them in a fixed order (fitBudget); every step reads and narrows the same sentence units.
   */
  distillSync(input: DistillInput): EvidenceCard | null {
    const tokenizer = input.tokenizer ?? DEFAULT_TOKENIZER;
    const units = segment(input.content);
    const scores = scoreUnits(units, input.query);
    const ranked = Array.from(units.keys()).sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
    const prose = ranked.filter((i) => (units[i] as Unit).prose);
    const claims = claimLadder(units, scores, prose, tokenizer);
    const claimUnit = claims.claims[0]?.unit ?? -2;
    const sketch = sketchOptions(units, prose, claimUnit, claims.preferred, tokenizer);
    const { required, optional, params } = assumptionsOf(input.context, units, prose, {
      claimUnit,
      sketchPool: sketch.pool,
      preferred: claims.preferred,
      tokenizer,
    });
    // 5. Extra anchors: the next best spans not quoted, prose first (a table row can be evidence too;
    //    a heading never is, segment left it out). Two anchors whenever there are two sentences.
    const extraPool = [...prose, ...ranked.filter((i) => !(units[i] as Unit).prose)];
    const floor = Math.min(CROSS_CHECK_ANCHORS, units.length);
    const plan: CardPlan = {
      input,
      tokenizer,
      units,
      claims,
      sketch,
      required,
      optional,
      params,
      extraPool,
      floor,
      distiller: this.name,
    };
    return fitBudget(plan);
  }
}

/** 1. Score: distinct query terms matched / sqrt(sentence terms), plus small lead and cue bonuses. */
function scoreUnits(units: Unit[], query: string): Float64Array {
  const q = new Set(terms(query));
  const scores = new Float64Array(units.length);
  for (let i = 0; i < units.length; i++) {
    const text = (units[i] as Unit).text;
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
  return scores;
}

/** Word bounds of the quotes taken whole or cut to a clause. */
type QuoteWords = { wholeMin: number; cutMin: number; cutMax?: number };

/** The claim options; `ladder()` builds the full list (once) when the card has to shrink that far. */
interface ClaimLadder {
  claims: Quote[];
  /** claims[0, tier1) are preferred; claims[tier1, ...) are the last resort. */
  tier1: number;
  ladder: () => void;
  preferred: QuoteWords;
}

/**
 * 2. Claim options, most preferred first, in decreasing token order so fitting can binary-search:
 *    the best prose sentence whole, its clause prefixes of 8+ words, other well-scoring sentences
 *    whole (8+ words); then, as a last resort, shorter clause prefixes and short sentences (4+ words).
 */
function claimLadder(units: Unit[], scores: Float64Array, prose: number[], tokenizer: TokenizerName): ClaimLadder {
  // Word counts only as far down the ranking as they are needed.
  const words = new Int32Array(units.length).fill(-1);
  const wordsOf = (i: number): number => {
    if ((words[i] as number) < 0) words[i] = countWords((units[i] as Unit).text);
    return words[i] as number;
  };
  const minWords = prose.some((i) => wordsOf(i) >= CLAIM_MIN_WORDS) ? CLAIM_MIN_WORDS : 1;
  const best = prose.find((i) => wordsOf(i) >= minWords);
  const bestSpan: Span | undefined = best === undefined ? undefined : (units[best] as Unit);
  const bestUnit = best ?? -2;
  const preferred = { wholeMin: minWords, cutMin: CLAUSE_MIN_WORDS };
  // The first option only; the rest of the ladder is built if the card has to shrink that far.
  const first = bestSpan ? quotes(bestSpan, bestUnit, MAX_CLAIM_TOKENS, preferred, tokenizer, 1) : [];
  let laddered = false;
  const c: ClaimLadder = { claims: first, tier1: first.length, ladder: () => {}, preferred };
  c.ladder = () => {
    if (laddered || !bestSpan || best === undefined) return;
    laddered = true;
    const out: Quote[] = [];
    const push = (qs: Quote[]) => {
      for (const x of qs) if (x.tokens < (out[out.length - 1]?.tokens ?? Number.POSITIVE_INFINITY)) out.push(x);
    };
    const bestScore = scores[best] as number;
    const alts: number[] = [];
    for (const i of prose) {
      // prose is sorted by score: nothing further down scores enough.
      if (alts.length >= MAX_ALT_CLAIMS || (scores[i] as number) < bestScore * ALT_SCORE_SHARE) break;
      if (i !== best && wordsOf(i) >= minWords) alts.push(i);
    }
    // Other sentences whole, longest first (the ladder must shrink).
    const altWhole = alts
      .map(
        (i) => quotes(units[i] as Unit, i, MAX_CLAIM_TOKENS, { wholeMin: minWords, cutMin: Infinity }, tokenizer, 1)[0],
      )
      .filter((x): x is Quote => x !== undefined)
      .sort((a, b) => b.tokens - a.tokens);
    push(quotes(bestSpan, bestUnit, MAX_CLAIM_TOKENS, preferred, tokenizer));
    push(altWhole.filter((x) => countWords(x.text) >= CLAUSE_MIN_WORDS));
    c.tier1 = out.length;
    const last = { wholeMin: Infinity, cutMin: minWords, cutMax: CLAUSE_MIN_WORDS - 1 };
    push(quotes(bestSpan, bestUnit, MAX_CLAIM_TOKENS, last, tokenizer));
    push(altWhole);
    c.claims = out;
  };
  // The best sentence has no quotable form (too long with no clause boundary, an open bracket):
  // start from the ladder's other options.
  if (c.claims.length === 0) c.ladder();
  return c;
}

interface SketchLevel {
  text: string;
  parts: Quote[];
}

/** The sketch's sentences and its levels, longest first, the empty sketch last; `cuts()` adds clause cuts of the last sentence left. */
interface SketchOptions {
  pool: Quote[];
  levels: SketchLevel[];
  cuts: () => void;
}

/**
 * 3. Sketch: the next best prose sentences (at most 4, so anchors can cover them), in document
 *    order, within 150 tokens; it shrinks by dropping the lowest ranked, then by cutting the
 *    last one left to a clause.
 */
function sketchOptions(
  units: Unit[],
  prose: number[],
  claimUnit: number,
  preferred: QuoteWords,
  tokenizer: TokenizerName,
): SketchOptions {
  const sketchPool: Quote[] = [];
  let sketchBudget = MAX_SKETCH_TOKENS;
  for (const i of prose) {
    if (sketchPool.length >= MAX_SKETCH_SENTENCES || sketchBudget <= 0) break;
    if (i === claimUnit) continue;
    const u = units[i] as Unit;
    const first = quotes(u, i, sketchBudget, preferred, tokenizer, 1)[0];
    if (!first || (first.prefix !== null && sketchPool.length > 0)) continue;
    sketchPool.push(first);
    sketchBudget -= first.tokens;
  }
  const sketchLevels: SketchLevel[] = [];
  for (let k = sketchPool.length; k >= 1; k--) {
    const parts = sketchPool.slice(0, k).sort((a, b) => a.span.start - b.span.start);
    const text = parts.map((p) => p.text).join(" ");
    // Joined sentences can count a token or two more than their parts: check the cap exactly.
    if (k === 1 || countTokens(text, tokenizer) <= MAX_SKETCH_TOKENS) sketchLevels.push({ text, parts });
  }
  // Cut to a clause only if the card has to shrink that far.
  const sketchCuts = () => {
    const top = sketchPool[0];
    if (!top) return;
    const cuts = quotes(
      top.span,
      top.unit,
      top.tokens - 1,
      { wholeMin: Infinity, cutMin: CLAUSE_MIN_WORDS },
      tokenizer,
    );
    sketchLevels.splice(sketchLevels.length - 1, 0, ...cuts.map((x) => ({ text: x.text, parts: [x] })));
  };
  sketchLevels.push({ text: "", parts: [] });
  return { pool: sketchPool, levels: sketchLevels, cuts: sketchCuts };
}

/**
 * 4. Assumptions: validity always; boundaries and parameter sentences are optional. The version
 *    is the card's own field, so it is not repeated here.
 */
function assumptionsOf(
  context: DistillInput["context"],
  units: Unit[],
  prose: number[],
  chosen: { claimUnit: number; sketchPool: Quote[]; preferred: QuoteWords; tokenizer: TokenizerName },
) {
  const { claimUnit, sketchPool, preferred, tokenizer } = chosen;
  const required = requiredAssumptions(context);
  const optional: string[] = [];
  for (const b of context.boundaries) {
    const s = `boundary: ${b}`;
    if (!optional.includes(s) && !required.includes(s)) optional.push(s);
  }
  // Not the claim's or a sketch sentence (whether or not the sketch keeps it when it shrinks: a
  // sentence dropped to save room does not come back as an assumption).
  const inSketch = new Set(sketchPool.map((x) => x.unit));
  const params: Array<{ text: string; unit: number }> = [];
  for (const i of prose.slice(0, MAX_PARAM_SCAN)) {
    if (params.length >= MAX_PARAM_ASSUMPTIONS) break;
    const u = units[i] as Unit;
    if (i === claimUnit || inSketch.has(i) || !PARAM.test(u.text)) continue;
    const x = quotes(u, i, MAX_PARAM_TOKENS, preferred, tokenizer, 1)[0];
    if (x && !optional.includes(x.text)) params.push({ text: x.text, unit: i });
  }
  return { required, optional, params };
}

/** Everything a card is built from; FitState picks how much of each it keeps. */
interface CardPlan {
  input: DistillInput;
  tokenizer: TokenizerName;
  units: Unit[];
  claims: ClaimLadder;
  sketch: SketchOptions;
  required: string[];
  optional: string[];
  params: Array<{ text: string; unit: number }>;
  extraPool: number[];
  floor: number;
  distiller: string;
}

/** The current choice: claim option, sketch level, extra anchors, optional assumptions, snippet length. */
interface FitState {
  claim: number;
  sketch: number;
  extra: number;
  optional: number;
  snippet: number;
}

/** The card for the current choice. */
function buildCard(plan: CardPlan, st: FitState): EvidenceCard {
  const { input, tokenizer, units, extraPool, floor, optional, params, required } = plan;
  const { content } = input;
  const anchor = (s: Span): AnchoredSpan => ({
    artifact_id: input.artifactId,
    version: input.version,
    start: s.start,
    end: s.end,
    snippet: s.text,
  });
  const claim = plan.claims.claims[st.claim];
  const sketch = plan.sketch.levels[st.sketch] as SketchLevel;
  const spans: Span[] = [];
  const used = new Set<number>();
  if (claim) {
    for (const s of quotedSpans(claim, [claim.span])) spans.push(prefixAtWord(content, s, MAX_SNIPPET_CHARS));
    used.add(claim.unit);
  }
  // A stand-in claim may be one of the sketch's sentences: it is not repeated there.
  const parts = claim ? sketch.parts.filter((p) => p.unit !== claim.unit) : sketch.parts;
  for (const p of parts) {
    if (spans.length >= MAX_ANCHORS) break;
    for (const s of quotedSpans(p, [p.span])) spans.push(prefixAtWord(content, s, MAX_SNIPPET_CHARS));
    used.add(p.unit);
  }
  const need = Math.max(floor - spans.length, Math.min(st.extra, MAX_ANCHORS - spans.length));
  let added = 0;
  for (const i of extraPool) {
    if (added >= need) break;
    if (used.has(i)) continue;
    used.add(i);
    spans.push(prefixAtWord(content, units[i] as Unit, st.snippet));
    added++;
  }
  if (spans.length < MIN_ANCHORS) spans.push(prefixAtWord(content, units[0] as Unit, st.snippet));
  const sketchText = parts.length === sketch.parts.length ? sketch.text : parts.map((p) => p.text).join(" ");
  const claimText = claim?.text ?? "";
  const extras = [...optional, ...params.filter((p) => !claimText.includes(p.text)).map((p) => p.text)];
  const card: Omit<EvidenceCard, "tokens"> = {
    artifact_id: input.artifactId,
    version: input.version,
    kind: input.kind,
    title: input.title,
    claim_boundary: claimText,
    logic_sketch: sketchText,
    assumptions: [...required, ...extras.slice(0, st.optional)],
    anchored_spans: spans.sort((a, b) => a.start - b.start || a.end - b.end).map(anchor),
    distiller: plan.distiller,
  };
  return { ...card, tokens: cardTokens(card, tokenizer) };
}

/** 6. Build and fit the budget: the first card that fits, shrinking in a fixed order; null when none does. */
function fitBudget(plan: CardPlan): EvidenceCard | null {
  const budget = plan.input.budgetTokens;
  const { claims, sketch } = plan;
  const sketchLevels = sketch.levels;
  const st: FitState = {
    claim: 0,
    sketch: 0,
    extra: MAX_ANCHORS,
    optional: plan.optional.length + plan.params.length,
    snippet: MAX_SNIPPET_CHARS,
  };
  const build = () => buildCard(plan, st);
  const fits = () => build().tokens <= budget;

  let card = build();
  if (card.tokens <= budget) return card;
  // Fewer extra anchors (the sketch's and the claim's stay).
  while (st.extra > 0) {
    st.extra--;
    card = build();
    if (card.tokens <= budget) return card;
  }
  // Fewer sketch sentences, then a sketch cut to a clause, then none (a second anchor takes its place).
  sketch.cuts();
  // Linear: an empty sketch needs an extra anchor's snippet, which can cost more than a clause.
  let cheapest = sketchLevels.length - 1;
  let least = Number.POSITIVE_INFINITY;
  for (let x = 1; x < sketchLevels.length; x++) {
    st.sketch = x;
    card = build();
    if (card.tokens <= budget) return card;
    if (card.tokens < least) {
      least = card.tokens;
      cheapest = x;
    }
  }
  // Nothing fits yet: go on from the cheapest level.
  st.sketch = cheapest;
  // Fewer optional assumptions (parameter sentences go before boundary tags).
  while (st.optional > 0) {
    st.optional--;
    card = build();
    if (card.tokens <= budget) return card;
  }
  if (claims.claims.length === 0) {
    // No prose at all: only the snippets can shrink.
    const sn = smallest(0, MAX_SNIPPET_CHARS - MIN_SNIPPET_CHARS, (x) => {
      st.snippet = MAX_SNIPPET_CHARS - x;
      return fits();
    });
    if (sn > MAX_SNIPPET_CHARS - MIN_SNIPPET_CHARS) return null;
    st.snippet = MAX_SNIPPET_CHARS - sn;
    return build();
  }
  // A shorter claim: clause prefixes of 8+ words, other sentences (linear: another sentence moves
  // the anchors, so the card's size is not monotone along the ladder).
  claims.ladder();
  for (let x = 1; x < claims.tier1; x++) {
    st.claim = x;
    card = build();
    if (card.tokens <= budget) return card;
  }
  st.claim = Math.max(0, claims.tier1 - 1);
  // Shorter snippets, not below ~60 characters: the extra anchor's when the sketch is empty, so
  // an empty sketch with a short snippet competes with the sketch's last clause.
  const empty = sketchLevels.length - 1;
  const levels = st.sketch === empty ? [empty] : [st.sketch, empty];
  const span = MAX_SNIPPET_CHARS - MIN_SNIPPET_CHARS;
  for (const level of levels) {
    st.sketch = level;
    const sn = smallest(0, span, (x) => {
      st.snippet = MAX_SNIPPET_CHARS - x;
      return fits();
    });
    if (sn <= span) {
      st.snippet = MAX_SNIPPET_CHARS - sn;
      return build();
    }
  }
  st.snippet = MIN_SNIPPET_CHARS;
  // Last resort: a short clause (4+ words) or a short sentence.
  for (let x = Math.max(1, claims.tier1); x < claims.claims.length; x++) {
    st.claim = x;
    for (const level of levels) {
      st.sketch = level;
      card = build();
      if (card.tokens <= budget) return card;
    }
  }
  return null;
}
