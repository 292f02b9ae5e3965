/**
 * Code within a byte cap (xKG's `max_prompt_code_bytes`, 52,100): the code spans several results
 * carry (code pairs, the code cards of a context) are held to a total of UTF-8 bytes, taken in the
 * results' order. A result's spans are kept whole while they fit; the first that does not is cut at
 * its last line end within what is left (the result is then `truncated`) and its later spans go; a
 * result that keeps nothing is left out. Pure: the callers read the texts.
 */

const ENC = new TextEncoder();

/** UTF-8 bytes of a string. */
export function utf8Bytes(s: string): number {
  return ENC.encode(s).length;
}

/** The longest prefix of `text` ending at a line end whose UTF-8 size is at most `max` bytes (one pass). */
export function cutAtLine(text: string, max: number): { chars: number; bytes: number } {
  let chars = 0;
  let bytes = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", chars)) {
    const b = bytes + utf8Bytes(text.slice(chars, i + 1));
    if (b > max) break;
    chars = i + 1;
    bytes = b;
  }
  return { chars, bytes };
}

/**
 * One exact span of code: [start, end) of a version's text, its UTF-8 size and, when known, its text
 * (needed only to cut it; a span without text that does not fit whole is dropped).
 */
export interface CodeSpan {
  start: number;
  end: number;
  bytes: number;
  text?: string | undefined;
}

/** What a result keeps of its code within the cap. */
export interface FittedCode {
  spans: CodeSpan[];
  bytes: number;
  truncated: boolean;
}

/**
 * One result's spans within `left` bytes: whole spans in order while they fit, then the first that
 * does not cut at its last line end (if any line fits), nothing after. Null when nothing fits.
 */
export function fitCode(spans: readonly CodeSpan[], left: number): FittedCode | null {
  const kept: CodeSpan[] = [];
  let bytes = 0;
  let truncated = false;
  for (const s of spans) {
    if (bytes + s.bytes <= left) {
      kept.push(s);
      bytes += s.bytes;
      continue;
    }
    truncated = true;
    const cut = s.text === undefined ? null : cutAtLine(s.text, left - bytes);
    if (cut && cut.chars > 0) {
      kept.push({ start: s.start, end: s.start + cut.chars, bytes: cut.bytes, text: s.text?.slice(0, cut.chars) });
      bytes += cut.bytes;
    }
    break;
  }
  return kept.length ? { spans: kept, bytes, truncated } : null;
}

/**
 * Every result's code within `max` bytes together (undefined: no cap), in order; null items carry no
 * code (neither counted nor left out). `leftOut`: the indices of items that kept nothing.
 */
export function capCode(
  items: ReadonlyArray<readonly CodeSpan[] | null>,
  max: number | undefined,
): { kept: Array<FittedCode | null>; bytes: number; leftOut: number[] } {
  const kept: Array<FittedCode | null> = [];
  const leftOut: number[] = [];
  let used = 0;
  items.forEach((spans, i) => {
    if (spans === null) {
      kept.push(null);
      return;
    }
    const fit = fitCode(spans, max === undefined ? Number.POSITIVE_INFINITY : max - used);
    if (fit) used += fit.bytes;
    else leftOut.push(i);
    kept.push(fit);
  });
  return { kept, bytes: used, leftOut };
}
