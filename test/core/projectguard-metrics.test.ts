/** ProjectGuard's metrics against the seed's Table 3 and §5.2. */
import { describe, expect, it } from "vitest";
import { dir, exposureAudit, if50, mcf, recovery, slump } from "../../src/core/projectguard/metrics";

describe("IF50 and Recovery (seed 002, Table 3, §5.2)", () => {
  it("reproduces Table 3's IF50 from MCF and DIR", () => {
    const rows: Array<[number, number, number]> = [
      // biome-ignore lint/suspicious/noApproximativeNumericConstant: Table 3's MCF, not e
      [2.718, 0.149, 0.414],
      [3.031, 0.303, 0.53],
      [3.242, 0.148, 0.479],
      [3.245, 0.289, 0.55],
    ];
    for (const [m, d, want] of rows) expect(if50(m, d).toFixed(3)).toBe(want.toFixed(3));
  });

  it("reproduces the 90% MCF recovery on Claude Code (2.718 -> 3.000 against 3.031)", () => {
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: the emergent MCF of §5.2, not e
    expect(recovery(3.0, 2.718, 3.031)?.toFixed(3)).toBe("0.901");
    expect(recovery(1, 2, 2)).toBeNull();
  });

  it("MCF is the mean rubric score and refuses scores outside 0-4", () => {
    expect(mcf([4, 3, 2, 3])).toBe(3);
    expect(() => mcf([5])).toThrow(RangeError);
    expect(() => if50(4.2, 0.1)).toThrow(RangeError);
  });
});

describe("DIR", () => {
  it("counts standalone exports reused by integration code, not by other components", () => {
    const r = dir([
      { id: "ppr.ts", standalone: true, exports: ["ppr", "damping"], uses: [] },
      { id: "index.ts", standalone: true, exports: ["buildIndex", "Index"], uses: [["ppr.ts", "damping"]] },
      {
        id: "main.ts",
        standalone: false,
        exports: ["run"],
        uses: [
          ["ppr.ts", "ppr"],
          ["index.ts", "buildIndex"],
          ["x.ts", "y"],
        ],
      },
    ]);
    expect(r.total).toEqual(["index.ts#Index", "index.ts#buildIndex", "ppr.ts#damping", "ppr.ts#ppr"]);
    // damping is used only by another standalone module: not integration.
    expect(r.used).toEqual(["index.ts#buildIndex", "ppr.ts#ppr"]);
    expect(r.dir).toBe(0.5);
    expect(dir([]).dir).toBe(0);
  });
});

describe("SLUMP_F and the exposure audit (seed 002 §2.2, §3.3, Fig. 1)", () => {
  it("SLUMP_F is single-shot minus emergent: Table 3's IF50 gap on Claude Code", () => {
    expect(slump(0.53, 0.414)).toBeCloseTo(0.116, 12);
  });

  it("RCR, ESR, first recoverable and explicit turns, and the cumulative curve", () => {
    const a = exposureAudit(
      [
        {
          id: "c1",
          levels: [
            { turn: 2, level: 1 },
            { turn: 5, level: 4 },
          ],
        },
        { id: "c2", levels: [{ turn: 3, level: 2 }] },
        { id: "c3", levels: [{ turn: 4, level: 0 }] },
        // Exposure is cumulative: a later lower annotation does not take back the explicit turn.
        {
          id: "c4",
          levels: [
            { turn: 1, level: 4 },
            { turn: 6, level: 3 },
          ],
        },
      ],
      7,
    );
    expect(a.rcr).toBe(0.75);
    expect(a.esr).toBe(0.5);
    expect(a.components).toEqual([
      { id: "c1", level: 4, first_recoverable_turn: 2, first_explicit_turn: 5 },
      { id: "c2", level: 2, first_recoverable_turn: 3, first_explicit_turn: null },
      { id: "c3", level: 0, first_recoverable_turn: null, first_explicit_turn: null },
      { id: "c4", level: 4, first_recoverable_turn: 1, first_explicit_turn: 1 },
    ]);
    expect(a.curve.map((p) => [p.turn, p.recoverable, p.explicit])).toEqual([
      [1, 0.25, 0.25],
      [2, 0.5, 0.25],
      [3, 0.75, 0.25],
      [4, 0.75, 0.25],
      [5, 0.75, 0.5],
      [6, 0.75, 0.5],
      [7, 0.75, 0.5],
    ]);
    expect(() => exposureAudit([{ id: "x", levels: [{ turn: 0, level: 1 }] }])).toThrow(RangeError);
    expect(() => exposureAudit([{ id: "x", levels: [{ turn: 1, level: 5 }] }])).toThrow(RangeError);
    expect(exposureAudit([])).toEqual({ rcr: 0, esr: 0, components: [], curve: [] });
  });
});
