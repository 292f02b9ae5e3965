/** The annotation fold: order-independent, as-of exact, counters add, statuses replace. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AnnotationEvent, foldAnnotations } from "../../src/core/annotations";

const ev = (id: number, key: string, op: "set" | "add", value: unknown, at: number): AnnotationEvent => ({
  id,
  chunkId: "c",
  version: null,
  key,
  op,
  value,
  actor: "a",
  reason: "",
  at,
});

describe("foldAnnotations", () => {
  it("sets replace, adds count, and a read as of t sees only events at or before t", () => {
    const events = [
      ev(1, "status", "set", "proposed", 10),
      ev(2, "uses", "add", 1, 11),
      ev(3, "status", "set", "committed", 20),
      ev(4, "uses", "add", 2, 21),
      ev(5, "uses", "set", 0, 30),
      ev(6, "uses", "add", 5, 31),
    ];
    expect(foldAnnotations(events, 15).get("status")?.value).toBe("proposed");
    expect(foldAnnotations(events, 25).get("status")?.value).toBe("committed");
    expect(foldAnnotations(events, 25).get("uses")).toMatchObject({ value: 3, events: 2, at: 21 });
    expect(foldAnnotations(events, 31).get("uses")?.value).toBe(5);
    expect(foldAnnotations(events, 9).size).toBe(0);
    // A counter over a non-number starts again from 0.
    expect(foldAnnotations([ev(1, "k", "set", "x", 1), ev(2, "k", "add", 2, 2)], 5).get("k")?.value).toBe(2);
  });

  it("does not depend on the order the events are given in (property)", () => {
    const arb = fc.array(
      fc.record({
        key: fc.constantFrom("status", "uses"),
        op: fc.constantFrom("set" as const, "add" as const),
        value: fc.integer({ min: -5, max: 5 }),
        at: fc.integer({ min: 0, max: 50 }),
      }),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(arb, fc.integer({ min: 0, max: 60 }), (raw, t) => {
        const events = raw.map((r, i) => ev(i + 1, r.key, r.op, r.value, r.at));
        const a = foldAnnotations(events, t);
        const b = foldAnnotations([...events].reverse(), t);
        expect([...b.entries()]).toEqual([...a.entries()]);
        // The counter equals a direct replay of the visible events in (at, id) order.
        let uses: number | undefined;
        for (const e of [...events]
          .filter((x) => x.at <= t && x.key === "uses")
          .sort((x, y) => x.at - y.at || x.id - y.id))
          uses = e.op === "set" ? (e.value as number) : (uses ?? 0) + (e.value as number);
        expect(a.get("uses")?.value).toBe(uses);
      }),
    );
  });
});
