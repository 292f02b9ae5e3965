import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mixedRng } from "../../scripts/lib/synthetic";
import { type FeedbackCounters, selectFeedback } from "../../src/core/research/feedback";

const record = fc.record({
  id: fc.string({ minLength: 1, maxLength: 4 }),
  revisions: fc.integer({ min: 0, max: 5 }),
  uses: fc.integer({ min: 0, max: 5 }),
  createdAt: fc.integer({ min: 0, max: 10 }),
});

describe("Eq. 12 feedback selection", () => {
  it("property: the choice has the fewest revisions, and the most uses among those", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 30 }), (rs) => {
        const s = selectFeedback(rs) as FeedbackCounters;
        const rMin = Math.min(...rs.map((r) => r.revisions));
        expect(s.revisions).toBe(rMin);
        expect(s.uses).toBe(Math.max(...rs.filter((r) => r.revisions === rMin).map((r) => r.uses)));
        // Order of the input does not matter (ties go to the oldest, then the smallest id).
        const t = selectFeedback([...rs].reverse()) as FeedbackCounters;
        expect([t.revisions, t.uses, t.createdAt]).toEqual([s.revisions, s.uses, s.createdAt]);
        expect(selectFeedback([])).toBeNull();
      }),
    );
  });

  it("ties: the oldest by default, the newest on request", () => {
    const rs = [
      { id: "b", revisions: 0, uses: 2, createdAt: 5 },
      { id: "a", revisions: 0, uses: 2, createdAt: 1 },
      { id: "c", revisions: 1, uses: 9, createdAt: 0 },
    ];
    expect(selectFeedback(rs)?.id).toBe("a");
    expect(selectFeedback(rs, "newest")?.id).toBe("b");
  });

  it("seeded simulation: fewer revisions per output than random choice and than most-used alone", () => {
    // 20 feedback records with latent failure rates p ~ U(0, 0.9); applying record r costs the number of
    // failed attempts before a success (each attempt fails with p_r, at most 5), added to revision(r).
    const policies = {
      eq12: (rs: FeedbackCounters[]) => selectFeedback(rs) as FeedbackCounters,
      random: (rs: FeedbackCounters[], r: () => number) => rs[Math.floor(r() * rs.length)] as FeedbackCounters,
      mostUsed: (rs: FeedbackCounters[]) =>
        rs.reduce((b, x) => (x.uses > b.uses || (x.uses === b.uses && x.createdAt < b.createdAt) ? x : b)),
    };
    const mean: Record<string, number> = {};
    for (const [name, pick] of Object.entries(policies)) {
      let total = 0;
      const runs = 50;
      const steps = 300;
      for (let seed = 1; seed <= runs; seed++) {
        const r = mixedRng(seed);
        const p = new Map<string, number>();
        const rs: FeedbackCounters[] = Array.from({ length: 20 }, (_, i) => {
          p.set(`f${i}`, r() * 0.9);
          return { id: `f${i}`, revisions: 0, uses: 0, createdAt: i };
        });
        const act = mixedRng(seed * 7919);
        for (let s = 0; s < steps; s++) {
          const chosen = pick(rs, act);
          let failures = 0;
          while (failures < 5 && act() < (p.get(chosen.id) ?? 0)) failures++;
          chosen.revisions += failures;
          chosen.uses++;
          total += failures;
        }
      }
      mean[name] = total / (runs * steps);
    }
    console.log(
      `Eq. 12 simulation, revisions per output: eq12 ${mean.eq12?.toFixed(3)}, random ${mean.random?.toFixed(3)}, most-used ${mean.mostUsed?.toFixed(3)}`,
    );
    expect(mean.eq12).toBeLessThan(mean.random as number);
    expect(mean.eq12).toBeLessThan(mean.mostUsed as number);
  });
});
