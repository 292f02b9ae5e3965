import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DIFF_MAX_EDIT_LINES, lineDiff } from "../../src/core/text/diff";

function ok<T>(r: { ok: true; value: T } | { ok: false }): T {
  if (!r.ok) throw new Error("diff failed");
  return r.value;
}

describe("lineDiff", () => {
  it("gives exact offsets into both versions and a unified diff", () => {
    const a = "design: cache heads\nevict: LRU\nsize: 64 MB\n";
    const b = "design: cache heads\nevict: LFU\nsize: 64 MB\nttl: 1 h\n";
    const d = ok(lineDiff(a, b, ["v1", "v2"]));
    expect(d.ops.map((o) => o.op)).toEqual(["equal", "delete", "insert", "equal", "insert"]);
    const del = d.ops[1];
    expect(a.slice(...(del?.from ?? [0, 0]))).toBe("evict: LRU\n");
    expect(b.slice(...(d.ops[2]?.to ?? [0, 0]))).toBe("evict: LFU\n");
    expect(d).toMatchObject({ inserted_lines: 2, deleted_lines: 1 });
    expect(d.unified).toContain("-evict: LRU");
    expect(d.unified).toContain("+ttl: 1 h");
  });

  it("property: equal + delete spans rebuild the old version, equal + insert spans the new one", () => {
    const text = fc.array(fc.constantFrom("a", "b", "c", "dd", "", "x y"), { maxLength: 30 }).map((l) => l.join("\n"));
    fc.assert(
      fc.property(text, text, (a, b) => {
        const d = ok(lineDiff(a, b, ["a", "b"]));
        const old = d.ops.filter((o) => o.op !== "insert").map((o) => a.slice(...o.from));
        const neu = d.ops.filter((o) => o.op !== "delete").map((o) => b.slice(...o.to));
        expect(old.join("")).toBe(a);
        expect(neu.join("")).toBe(b);
        for (const o of d.ops)
          if (o.op !== "equal") expect(o.text).toBe(o.op === "insert" ? b.slice(...o.to) : a.slice(...o.from));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses two unrelated large versions instead of scanning them quadratically", () => {
    const a = Array.from({ length: DIFF_MAX_EDIT_LINES + 10 }, (_, i) => `a${i}`).join("\n");
    const b = Array.from({ length: DIFF_MAX_EDIT_LINES + 10 }, (_, i) => `b${i}`).join("\n");
    const r = lineDiff(a, b, ["a", "b"]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ kind: "too_large", field: "to" });
  });
});
