/**
 * A rendered export is sent as it is made (src/app/exports/common.ts partsBody): its text when short,
 * else a stream of its UTF-8 bytes a slice at a time with a pause before each, so a 50,000-chunk HTML
 * export neither builds a 30 MB string nor holds the Worker while it is encoded. The bytes must be
 * TextEncoder's of the joined text, wherever a slice ends (inside a surrogate pair, next to a lone
 * surrogate), and JSON parts must join to JSON.stringify's own text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ENCODE_SLICE, partsBody } from "../../src/app/exports/common";
import { joinParts, jsonArrayParts, type Parts } from "../../src/core/export/parts";

const doc = (parts: string[], sep: string): Parts => ({ parts, sep });

async function bytesOf(body: string | ReadableStream<Uint8Array>): Promise<Buffer> {
  if (typeof body === "string") return Buffer.from(new TextEncoder().encode(body));
  return Buffer.from(new Uint8Array(await new Response(body).arrayBuffer()));
}

describe("partsBody", () => {
  it("is the joined text when short, and a stream of its exact bytes when long, pausing per slice", async () => {
    expect(partsBody(doc(["a", "b", "c"], "\n"))).toBe("a\nb\nc");
    expect(partsBody(doc([], "\n"))).toBe("");
    const cases: Array<[string[], string]> = [
      [Array.from({ length: 300_000 }, (_, i) => `<tr><td>row ${i}</td></tr>`), "\n"],
      [["a".repeat(ENCODE_SLICE - 1), "😀b", "tail"], ""],
      [["x".repeat(ENCODE_SLICE), "\ud83d", "\ude00", "漢".repeat(ENCODE_SLICE)], ""],
      [["é".repeat(2 * ENCODE_SLICE), "\ud83d"], "\n"],
    ];
    for (const [parts, sep] of cases) {
      let pauses = 0;
      const body = partsBody(doc(parts, sep), async () => void pauses++);
      expect(typeof body).not.toBe("string");
      const text = joinParts(doc(parts, sep));
      expect((await bytesOf(body)).equals(Buffer.from(new TextEncoder().encode(text)))).toBe(true);
      expect(pauses).toBeGreaterThanOrEqual(Math.floor(text.length / ENCODE_SLICE) - 1);
    }
  });

  it("reads the parts as it sends them, not all before the first chunk", async () => {
    let made = 0;
    function* parts() {
      for (let i = 0; i < 200_000; i++) {
        made++;
        yield `line ${i} ${"x".repeat(40)}`;
      }
    }
    const body = partsBody({ parts: parts(), sep: "\n" });
    expect(made).toBeLessThan(200_000);
    const reader = (body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    expect(made).toBeLessThan(100_000);
    await reader.cancel();
  });
});

describe("jsonArrayParts", () => {
  it("joins to JSON.stringify(items, null, 2) and a line break (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 20 }), (items) => {
        expect(joinParts(jsonArrayParts(items))).toBe(`${JSON.stringify(items, null, 2)}\n`);
      }),
      { numRuns: 200 },
    );
  });
});
