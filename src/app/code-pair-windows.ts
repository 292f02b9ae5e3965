/**
 * The code of technique -> code pairs in a prompt: `code_chunks` (each pair's code as the best windows
 * of its code span, scored against its technique's text) and `max_code_bytes` (the code of all pairs
 * together within a byte cap, in pair order), both on the pure functions of src/core/code.
 */
import type * as S from "../contract";
import { type CodeSpan, fitCode, utf8Bytes } from "../core/code/cap";
import { bestWindows, mergeWindows, type WindowOptions } from "../core/code/windows";
import type { In } from "./lib/wire";

type Pair = In<typeof S.CodePairsResult>["pairs"][number];
type Code = NonNullable<Pair["code"]>;

/** Contents are read 6 at a time (R2's simultaneous connections per request). */
const READS = 6;

/**
 * Each pair's code as its best windows (`code.windows`, exact spans with their text; `bytes` counts
 * them): the code span [start, end) of the version split and scored against the technique's text (an
 * xKG technique's content is its name, then its description). One content read per distinct code and
 * technique of the pairs. In place.
 */
export async function pairWindows(
  pairs: Pair[],
  o: WindowOptions,
  contentOf: (id: string) => Promise<string | null>,
): Promise<void> {
  const ids = [...new Set(pairs.flatMap((p) => (p.code ? [p.technique.id, p.code.id] : [])))];
  const texts = new Map<string, string>();
  for (let i = 0; i < ids.length; i += READS)
    await Promise.all(
      ids.slice(i, i + READS).map(async (id) => {
        const t = await contentOf(id);
        if (t !== null) texts.set(id, t);
      }),
    );
  for (const p of pairs) {
    const code = p.code;
    const content = code ? texts.get(code.id) : undefined;
    if (!code || content === undefined) continue;
    const text = content.slice(0, code.anchor.end);
    const query = texts.get(p.technique.id) ?? p.technique.title;
    const { windows, ranked } = bestWindows(text, query, o);
    const spans = mergeWindows(windows, ranked);
    if (!spans.length) continue;
    const carried = spans.map((s) => ({
      artifact_id: code.id,
      version: code.version,
      start: s.start,
      end: s.end,
      snippet: text.slice(s.start, s.end),
    }));
    p.code = { ...code, windows: carried, bytes: carried.reduce((n, w) => n + utf8Bytes(w.snippet), 0) };
  }
}

/** A pair's code as spans for the cap: its windows, or its whole span (text read only to cut it). */
async function spansOf(code: Code, left: number, contentOf: (id: string) => Promise<string | null>) {
  if (code.windows)
    return code.windows.map(
      (w): CodeSpan => ({ start: w.start, end: w.end, bytes: utf8Bytes(w.snippet), text: w.snippet }),
    );
  const whole: CodeSpan = { start: code.anchor.start, end: code.anchor.end, bytes: code.bytes };
  if (code.bytes <= left || left <= 0) return [whole];
  const content = await contentOf(code.id);
  return [{ ...whole, text: content?.slice(code.anchor.start, code.anchor.end) }];
}

/**
 * Holds the pairs' code to `max` UTF-8 bytes together, in pair order (xKG's prompts carry at most
 * 52,100 bytes of code; src/core/code/cap.ts): a span or window that does not fit whole is cut at its
 * last line end within what is left (`truncated: true`), and pairs after the budget is spent keep no
 * code. In place; returns the bytes kept and the pairs left without code.
 */
export async function capPairCode(
  pairs: Pair[],
  max: number | undefined,
  contentOf: (id: string) => Promise<string | null>,
): Promise<{ code_bytes: number; code_left_out: number }> {
  let used = 0;
  let leftOut = 0;
  for (const p of pairs) {
    if (!p.code) continue;
    const left = max === undefined ? Number.POSITIVE_INFINITY : max - used;
    const fit = fitCode(await spansOf(p.code, left, contentOf), left);
    if (!fit) {
      p.code = null;
      leftOut++;
      continue;
    }
    used += fit.bytes;
    if (!fit.truncated) continue;
    const code: Code = { ...p.code, bytes: fit.bytes, truncated: true };
    if (code.windows)
      code.windows = fit.spans.map((s) => ({
        artifact_id: code.id,
        version: code.version,
        start: s.start,
        end: s.end,
        snippet: s.text ?? "",
      }));
    else code.anchor = { ...code.anchor, end: (fit.spans[0] as CodeSpan).end };
    p.code = code;
  }
  return { code_bytes: used, code_left_out: leftOut };
}
