/**
 * The seed systems' model roles share one loop (the model distiller's, src/core/distill/model.ts):
 * one structured() call with a strict JSON schema; the answer is checked by the role (every item must
 * cite ids of what the model was given and quote it verbatim, located like an anchor and re-sliced
 * exactly); an unusable answer (not the schema, or items proposed and none of them verifiable) gets
 * one retry naming what was wrong; then a clear outcome: the verified items and what was dropped and
 * why, or the model's failure (nothing is written on a failure: the caller writes only after this).
 */
import { spanReslices } from "../distill/card";
import { locateQuote } from "../distill/model";
import type { ChatMessage, ChatModel, JsonSchema, ModelFailureCode } from "../ports";
import type { AnchoredSpan } from "../types";

/** One text the model was given, under the id it must cite: a turn, a section, a code unit, a draft. */
export interface SourceDoc {
  id: string;
  version: number;
  /** What the prompt showed (a prefix of the version's content when cut): quotes must come from it. */
  text: string;
}

/** What the model calls of one request spent, retries included. */
export interface ProposalUsage {
  calls: number;
  requests: number;
  retries: number;
  inputTokens: number;
  outputTokens: number;
  ms: number;
}

/** A proposed item left out (`item`), or a part of a kept item left out (`evidence`, `link`). */
export interface Dropped {
  /** The item's position in the model's answer. */
  index: number;
  title: string;
  what: "item" | "evidence" | "link";
  reason: string;
}

export interface Checked<T> {
  items: T[];
  dropped: Dropped[];
}

export type ProposalOutcome<T> =
  | { ok: true; items: T[]; dropped: Dropped[]; usage: ProposalUsage; attempts: number }
  | {
      ok: false;
      /** The model call's failure, or `unusable`: two answers that were not one JSON value of the schema. */
      code: ModelFailureCode | "unusable";
      message: string;
      usage: ProposalUsage;
      attempts: number;
    };

export interface ProposalRequest<T> {
  model: ChatModel;
  /** The schema's name ([a-zA-Z0-9_-]{1,64}) and one sentence saying what the answer is. */
  name: string;
  description: string;
  schema: JsonSchema;
  system: string;
  prompt: string;
  maxOutputTokens: number;
  /** The verified items of an answer, or why the answer as a whole cannot be used. */
  check(value: unknown): Checked<T> | string;
}

/** Shortest quote accepted as provenance (characters, spaces aside): "the", "a cache" prove nothing. */
export const MIN_QUOTE_CHARS = 12;

export const newUsage = (): ProposalUsage => ({
  calls: 0,
  requests: 0,
  retries: 0,
  inputTokens: 0,
  outputTokens: 0,
  ms: 0,
});

/** At most two model calls: the answer, and one retry when it is unusable. */
export async function propose<T>(req: ProposalRequest<T>): Promise<ProposalOutcome<T>> {
  const usage = newUsage();
  const messages: ChatMessage[] = [
    { role: "system", content: req.system },
    { role: "user", content: req.prompt },
  ];
  for (let attempt = 1; ; attempt++) {
    usage.calls++;
    const out = await req.model.structured({
      name: req.name,
      description: req.description,
      schema: req.schema,
      messages,
      maxOutputTokens: req.maxOutputTokens,
    });
    usage.requests += out.usage.requests;
    usage.inputTokens += out.usage.inputTokens;
    usage.outputTokens += out.usage.outputTokens;
    usage.ms += out.usage.ms;
    if (!out.ok) {
      // A failed call (rate limit, outage, refused request, over budget) is not worth a second one.
      if (out.error.code !== "malformed")
        return { ok: false, code: out.error.code, message: out.error.message, usage, attempts: attempt };
      if (attempt === 2)
        return {
          ok: false,
          code: "unusable",
          message: `twice not one JSON value of the schema (${out.error.message})`,
          usage,
          attempts: attempt,
        };
      usage.retries++;
      messages.push({
        role: "user",
        content: `Your answer was not usable: ${out.error.message}. Answer again with one JSON object matching the schema.`,
      });
      continue;
    }
    const checked = req.check(out.value);
    if (typeof checked === "string") {
      if (attempt === 2)
        return { ok: false, code: "unusable", message: `twice unusable (${checked})`, usage, attempts: attempt };
      usage.retries++;
      messages.push(
        { role: "assistant", content: JSON.stringify(out.value) },
        { role: "user", content: `That answer cannot be used: ${checked}. Answer again.` },
      );
      continue;
    }
    const proposedNone = checked.items.length === 0 && checked.dropped.some((x) => x.what === "item");
    if (proposedNone && attempt === 1) {
      usage.retries++;
      const reasons = checked.dropped
        .slice(0, 8)
        .map((x) => `item ${x.index} (${JSON.stringify(x.title.slice(0, 60))}): ${x.reason}`);
      messages.push(
        { role: "assistant", content: JSON.stringify(out.value) },
        {
          role: "user",
          content: `None of those items can be used: ${reasons.join("; ")}. Cite only the ids given above and copy each quote character for character from the text of the id it cites. Answer again; an empty list is a valid answer when nothing qualifies.`,
        },
      );
      continue;
    }
    return { ok: true, items: checked.items, dropped: checked.dropped, usage, attempts: attempt };
  }
}

/**
 * Where `quote` is in the source, as an anchor of its version ([start, end) re-slicing the text
 * exactly, as checkAnchors requires), or why not. Whitespace the model changed is tolerated (located
 * word for word, as the distiller does); a quote longer than 300 characters anchors its first 300.
 */
export function anchorQuote(doc: SourceDoc, quote: string): AnchoredSpan | string {
  if (quote.replace(/\s+/gu, "").length < MIN_QUOTE_CHARS)
    return `the quote ${JSON.stringify(quote.slice(0, 40))} is shorter than ${MIN_QUOTE_CHARS} characters`;
  const at = locateQuote(doc.text, quote);
  if (!at) return `the quote ${JSON.stringify(quote.slice(0, 80))} is not verbatim in ${doc.id}`;
  const span: AnchoredSpan = {
    artifact_id: doc.id,
    version: doc.version,
    start: at.start,
    end: at.end,
    snippet: doc.text.slice(at.start, at.end),
  };
  return spanReslices(span, doc.text) ? span : `the quote does not re-slice ${doc.id} exactly`;
}

/** The answer's list under `key`, or why there is none. */
export function listOf(value: unknown, key: string): unknown[] | string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "the answer is not a JSON object";
  const list = (value as Record<string, unknown>)[key];
  return Array.isArray(list) ? list : `${key} is missing or not an array`;
}

/** A field of an answer's item as a trimmed one-line string ("" when absent or not a string). */
export function textField(item: unknown, key: string, oneLine = true): string {
  if (item === null || typeof item !== "object") return "";
  const v = (item as Record<string, unknown>)[key];
  if (typeof v !== "string") return "";
  return oneLine ? v.replace(/\s+/gu, " ").trim() : v.trim();
}

/** A field of an answer's item as a list of objects ([] when absent). */
export function objectsField(item: unknown, key: string): Array<Record<string, unknown>> {
  if (item === null || typeof item !== "object") return [];
  const v = (item as Record<string, unknown>)[key];
  return Array.isArray(v)
    ? v.filter((x): x is Record<string, unknown> => x !== null && typeof x === "object" && !Array.isArray(x))
    : [];
}

/** Two anchors of the same span of the same version's text. */
export const sameSpan = (a: AnchoredSpan, b: AnchoredSpan): boolean =>
  a.artifact_id === b.artifact_id && a.start === b.start && a.end === b.end;

/**
 * The anchors of an item's `evidence` quotes ({<idKey>: the id of a doc given, quote}), each located in
 * the doc it names, without repeats. A quote that cannot be anchored is dropped as `evidence <i>: <why>`
 * (`what` names the kind of doc, "a <what> it was not given", for an id not given).
 */
export function evidenceAnchors(
  raw: unknown,
  idKey: string,
  docs: ReadonlyMap<string, SourceDoc>,
  what: string,
  item: { index: number; title: string; dropped: Dropped[] },
): AnchoredSpan[] {
  const anchors: AnchoredSpan[] = [];
  for (const [i, ev] of objectsField(raw, "evidence").entries()) {
    const v = ev[idKey];
    const id = typeof v === "string" ? v.trim() : "";
    const doc = docs.get(id);
    const at = doc
      ? anchorQuote(doc, typeof ev.quote === "string" ? ev.quote : "")
      : `cites ${JSON.stringify(id.slice(0, 80))}, a ${what} it was not given`;
    if (typeof at === "string")
      item.dropped.push({ index: item.index, title: item.title, what: "evidence", reason: `evidence ${i}: ${at}` });
    else if (!anchors.some((a) => sameSpan(a, at))) anchors.push(at);
  }
  return anchors;
}

/** The first `hexChars` hex digits of SHA-256 over the parts joined by NUL: ids stable under a retry. */
export async function contentHash(parts: readonly string[], hexChars = 12): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts.join("\u0000")));
  return [...new Uint8Array(d)]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")
    .slice(0, hexChars);
}

/** A prompt block for one source: its id and text between markers, cut to `maxChars`. */
export function sourceBlock(header: string, text: string): string {
  return `${header}\n<<<\n${text}\n>>>`;
}

/** Text cut to at most `max` characters at a line or word boundary when one is near. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const line = text.lastIndexOf("\n", max);
  if (line > max * 0.8) return text.slice(0, line);
  const word = text.lastIndexOf(" ", max);
  return word > max * 0.8 ? text.slice(0, word) : text.slice(0, max);
}

/**
 * The documents a prompt shows, in the given order: each cut to a prefix of at most `one`
 * characters (anchors keep their offsets), until `all` characters are used.
 */
export function fitDocs<T extends { text: string }>(docs: readonly T[], one: number, all: number): T[] {
  const out: T[] = [];
  let used = 0;
  for (const d of docs) {
    const text = cutText(d.text, one);
    if (used + text.length > all) break;
    out.push({ ...d, text });
    used += text.length;
  }
  return out;
}
