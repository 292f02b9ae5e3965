/**
 * A large export body is encoded to UTF-8 a slice at a time with a pause between (the runtime's own
 * encoding of a 21 MB body held the Worker ~0.3 s): the bytes must be TextEncoder's of the whole
 * text, even where a slice boundary falls inside a surrogate pair or next to a lone surrogate.
 */
import { describe, expect, it } from "vitest";
import { ENCODE_SLICE, encodeText } from "../../src/app/exports/common";

describe("encodeText", () => {
  it("gives TextEncoder's bytes of the whole text, pausing once per slice", async () => {
    const cases = [
      "plain ascii ".repeat(300_000),
      `${"a".repeat(ENCODE_SLICE - 1)}😀b`,
      `${"é".repeat(ENCODE_SLICE - 1)}\ud83d`,
      `${"x".repeat(ENCODE_SLICE - 1)}\ud83d${"y".repeat(10)}`,
      `${"x".repeat(ENCODE_SLICE)}\ude00${"漢".repeat(ENCODE_SLICE)}`,
    ];
    for (const text of cases) {
      let pauses = 0;
      const bytes = await encodeText(text, async () => void pauses++);
      expect(Buffer.from(bytes).equals(Buffer.from(new TextEncoder().encode(text)))).toBe(true);
      expect(pauses).toBeGreaterThanOrEqual(Math.floor((text.length - 1) / ENCODE_SLICE));
    }
  });
});
