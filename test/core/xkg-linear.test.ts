/**
 * The xKG parser's work is linear in the file, counted (not timed): the id and membership probes it
 * makes (Set.prototype.has, Array.prototype.includes) at 2n techniques are about twice those at n.
 * Two shapes were quadratic: many techniques of one name (each new id probed every earlier suffix)
 * and many composite techniques (each scanned every artifact of the plan for its own code).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseXkg } from "../../src/core/formats/xkg";

const SHAPES: Record<string, (i: number) => unknown> = {
  "same-named techniques": (i) => ({ name: "Probe", code: { implementation: `f${i}()` } }),
  "composite techniques": (i) => ({
    name: `T${i}`,
    code: { implementation: `f${i}()` },
    components: [{ name: "part", code: { implementation: `g${i}()` } }],
  }),
};

function probes(techniques: unknown[]): { probes: number; artifacts: number } {
  const text = JSON.stringify({ paper_title: "P", paper_abstract: "A", techniques });
  const has = vi.spyOn(Set.prototype, "has");
  const includes = vi.spyOn(Array.prototype, "includes");
  const r = parseXkg(text, { maxRecords: 10_000 });
  const n = has.mock.calls.length + includes.mock.calls.length;
  vi.restoreAllMocks();
  return { probes: n, artifacts: r.ok ? r.value.artifacts.length : 0 };
}

describe("xKG parsing work", () => {
  afterEach(() => vi.restoreAllMocks());
  for (const [name, make] of Object.entries(SHAPES))
    it(`grows linearly with ${name}`, () => {
      const small = probes(Array.from({ length: 400 }, (_, i) => make(i)));
      const big = probes(Array.from({ length: 800 }, (_, i) => make(i)));
      expect(big.artifacts).toBe(2 * small.artifacts - 1);
      // Linear: ~2x; the quadratic versions made 3.8-3.9x.
      expect(big.probes / small.probes, `${small.probes} -> ${big.probes}`).toBeLessThan(2.5);
    });

  it("keeps numbering same-named techniques in order", () => {
    const r = parseXkg(
      JSON.stringify({
        paper_title: "P",
        arxiv_id: "2212.03827",
        techniques: [{ name: "Probe" }, { name: "Probe" }, { name: "Probe-2" }, { name: "Probe" }],
      }),
    );
    expect(r.ok && r.value.artifacts.map((a) => a.id)).toEqual([
      "arxiv:2212.03827",
      "arxiv:2212.03827#t:probe",
      "arxiv:2212.03827#t:probe-2",
      "arxiv:2212.03827#t:probe-2-2",
      "arxiv:2212.03827#t:probe-3",
    ]);
  });
});
