import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capCode, cutAtLine, fitCode, utf8Bytes } from "../../src/core/code/cap";
import {
  bestWindows,
  CODE_WINDOW_OVERLAP,
  CODE_WINDOW_SIZE,
  codeWindows,
  mergeWindows,
  rankWindows,
  scoreWindows,
} from "../../src/core/code/windows";

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
const splits = (t: string, i: number) => i > 0 && i < t.length && isHigh(t.charCodeAt(i - 1)) && isLow(t.charCodeAt(i));

/** Code-like text: lines of words, symbols, astral characters (surrogate pairs) and blank lines. */
const codeText = fc
  .array(
    fc.oneof(
      fc.constantFrom("def f(x):", "    return x + 1", "", "import torch", "  # ω 🙂 𝔘", "}", "x = [1, 2, 3]"),
      fc.string({ unit: "grapheme", maxLength: 120 }),
      fc.string({ unit: "binary", maxLength: 40 }),
    ),
    { maxLength: 60 },
  )
  .map((lines) => lines.join("\n"));

const sizes = fc
  .integer({ min: 2, max: 400 })
  .chain((size) => fc.tuple(fc.constant(size), fc.integer({ min: 0, max: size - 1 })));

describe("codeWindows", () => {
  it("covers the text in order, each window at most size, consecutive ones overlapping by at most overlap", () => {
    fc.assert(
      fc.property(codeText, sizes, (text, [size, overlap]) => {
        const w = codeWindows(text, size, overlap);
        if (!text.length) return w.length === 0;
        expect(w[0]?.start).toBe(0);
        expect(w[w.length - 1]?.end).toBe(text.length);
        for (let i = 0; i < w.length; i++) {
          const x = w[i] as { start: number; end: number };
          expect(x.end).toBeGreaterThan(x.start);
          expect(x.end - x.start).toBeLessThanOrEqual(size);
          // Never inside a surrogate pair; the span is an exact substring.
          expect(splits(text, x.start) || splits(text, x.end)).toBe(false);
          expect(text.slice(x.start, x.end).length).toBe(x.end - x.start);
          const next = w[i + 1];
          if (next) {
            expect(next.start).toBeGreaterThan(x.start);
            expect(next.start).toBeLessThanOrEqual(x.end); // no gap: covered
            expect(x.end - next.start).toBeLessThanOrEqual(overlap);
          }
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it("prefers line ends: xKG's 350/100 on short lines ends every window but the last at a line end", () => {
    const text = Array.from({ length: 80 }, (_, i) => `    value_${i} = compute(${i}, scale=0.5)`).join("\n");
    const w = codeWindows(text, CODE_WINDOW_SIZE, CODE_WINDOW_OVERLAP);
    expect(w.length).toBeGreaterThan(5);
    for (const x of w.slice(0, -1)) expect(text[x.end - 1]).toBe("\n");
    // Each later window starts at a line start within the overlap.
    for (const x of w.slice(1)) expect(text[x.start - 1]).toBe("\n");
  });

  it("rejects bad bounds", () => {
    expect(() => codeWindows("x", 1, 0)).toThrow(RangeError);
    expect(() => codeWindows("x", 10, 10)).toThrow(RangeError);
    expect(() => codeWindows("x", 10, -1)).toThrow(RangeError);
  });
});

describe("scoreWindows / rankWindows / mergeWindows", () => {
  const unit = [
    "import random",
    "",
    "def reservoir_add(buffer, item, seen, size):",
    "    if len(buffer) < size:",
    "        buffer.append(item)",
    "    else:",
    "        j = random.randint(0, seen)",
    "        if j < size:",
    "            buffer[j] = item",
    "",
    ...Array.from({ length: 30 }, (_, i) => `def helper_${i}(a, b):\n    return a * b + ${i}`),
    "",
    "def guided_eps(eps_cond, eps_uncond, w):",
    "    # classifier-free guidance mixes conditional and unconditional predictions",
    "    return (1 + w) * eps_cond - w * eps_uncond",
  ].join("\n");

  it("scores the window holding the query's terms highest, and carries it as an exact span", () => {
    const { windows, ranked } = bestWindows(unit, "classifier-free guidance conditional predictions", {
      size: 200,
      overlap: 50,
      top: 1,
    });
    const [best] = mergeWindows(windows, ranked);
    expect(unit.slice(best?.start, best?.end)).toContain("classifier-free guidance");
    const reservoir = mergeWindows(
      windows,
      bestWindows(unit, "reservoir buffer", { size: 200, overlap: 50, top: 1 }).ranked,
    );
    expect(unit.slice(reservoir[0]?.start, reservoir[0]?.end)).toContain("reservoir_add");
  });

  it("with no query term in the unit carries its first window; merges touching windows in text order", () => {
    const w = codeWindows(unit, 120, 40);
    const scores = scoreWindows(unit, w, "quaternion");
    expect(scores.every((s) => s === 0)).toBe(true);
    expect(rankWindows(scores, 3)).toEqual([0]);
    expect(rankWindows([], 3)).toEqual([]);
    expect(mergeWindows(w, [2, 1, 0])).toEqual([{ start: 0, end: (w[2] as { end: number }).end }]);
    expect(mergeWindows(w, [5, 0]).map((s) => s.start)).toEqual([0, (w[5] as { start: number }).start]);
  });

  it("merged spans are exact, disjoint, ordered substrings, at most top windows", () => {
    fc.assert(
      fc.property(
        codeText,
        sizes,
        fc.string({ maxLength: 30 }),
        fc.integer({ min: 1, max: 6 }),
        (text, [size, overlap], q, top) => {
          const { windows, ranked } = bestWindows(text, q, { size, overlap, top });
          expect(ranked.length).toBeLessThanOrEqual(top);
          const spans = mergeWindows(windows, ranked);
          let at = -1;
          for (const s of spans) {
            expect(s.start).toBeGreaterThan(at);
            expect(s.end).toBeLessThanOrEqual(text.length);
            expect(splits(text, s.start) || splits(text, s.end)).toBe(false);
            at = s.end;
          }
          const scores = scoreWindows(text, windows, q);
          expect(scores.every((s) => Number.isFinite(s) && s >= 0)).toBe(true);
          return true;
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("capCode", () => {
  const span = (text: string, start = 0) => ({ start, end: start + text.length, bytes: utf8Bytes(text), text });

  it("takes results in order: whole, then one cut at a line end, then nothing; null items are not code", () => {
    const a = span("def a():\n    return 1\n");
    const b = span("def b():\n    return 2\n    # ω\n");
    const c = span("def c():\n    return 3\n");
    const cap = a.bytes + utf8Bytes("def b():\n") + 3;
    const r = capCode([[a], null, [b], [c]], cap);
    expect(r.kept[0]).toEqual({ spans: [a], bytes: a.bytes, truncated: false });
    expect(r.kept[1]).toBeNull();
    expect(r.kept[2]?.truncated).toBe(true);
    expect(r.kept[2]?.spans[0]?.text).toBe("def b():\n");
    expect(r.kept[3]).toBeNull();
    expect(r.leftOut).toEqual([3]);
    expect(r.bytes).toBe(a.bytes + utf8Bytes("def b():\n"));
    expect(capCode([[a], [b]], undefined).bytes).toBe(a.bytes + b.bytes);
  });

  it("never exceeds the cap; kept spans are prefixes of whole lines of the given ones", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(codeText, { maxLength: 3 }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 2000 }),
        (items, max) => {
          const given = items.map((texts) => texts.filter((t) => t.length).map((t) => span(t)));
          const r = capCode(given, max);
          expect(r.bytes).toBeLessThanOrEqual(max);
          let sum = 0;
          r.kept.forEach((k, i) => {
            if (!k) return;
            sum += k.bytes;
            k.spans.forEach((s, j) => {
              const src = given[i]?.[j];
              expect(src?.text?.startsWith(s.text ?? "")).toBe(true);
              expect(utf8Bytes(s.text ?? "")).toBe(s.bytes);
              if (s.end !== src?.end) expect(s.text?.endsWith("\n")).toBe(true);
            });
          });
          expect(sum).toBe(r.bytes);
          return true;
        },
      ),
    );
  });

  it("cutAtLine and fitCode edge cases", () => {
    expect(cutAtLine("no newline", 100)).toEqual({ chars: 0, bytes: 0 });
    expect(cutAtLine("ω\nx\n", 3)).toEqual({ chars: 2, bytes: 3 });
    expect(fitCode([{ start: 0, end: 4, bytes: 4 }], 3)).toBeNull();
  });
});

describe("bestWindows bounds", () => {
  it("scores a 2 MiB unit at stride 1 within the window cap, and keeps the given overlap on small units", () => {
    const line = "    total = total + weight * value  # accumulate\n";
    const big = `${line.repeat(Math.ceil((2 * 1024 * 1024) / line.length))}def needle_function():\n    return 1\n`;
    const t0 = Date.now();
    const r = bestWindows(big, "accumulate weight", { size: 50, overlap: 49, top: 3 });
    expect(r.windows.length).toBeLessThanOrEqual(20_000);
    expect(r.ranked.length).toBeGreaterThan(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    const small = "a = 1\n".repeat(200);
    const w = bestWindows(small, "a", { size: 100, overlap: 90, top: 1 }).windows;
    expect(w).toEqual(codeWindows(small, 100, 90));
  });
});
