import { describe, expect, it } from "vitest";
import { MAX_EQUATION_ELEMENTS, parseFullTextPapers } from "../../src/core/formats/fulltext";
import type { ImportPlan } from "../../src/core/formats/types";
import { type ArtifactInput, prepareBatch } from "../../src/core/ingest";
import { s2orcPaper, unarxivePaper } from "../fixtures/papers";

function plan(rec: unknown): ImportPlan {
  const r = parseFullTextPapers(JSON.stringify(rec));
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}
const byId = (p: ImportPlan, id: string): ArtifactInput => {
  const a = p.artifacts.find((x) => x.id === id);
  if (!a) throw new Error(`no ${id}; have ${p.artifacts.map((x) => x.id).join(", ")}`);
  return a;
};
const edges = (a: ArtifactInput, type: string) => (a.edges ?? []).filter((e) => e.type === type).map((e) => e.target);

describe("full-text element chunks", () => {
  it("keeps unarXive figures, tables and display equations, discussed-in the sections that reference them", () => {
    const p = plan(unarxivePaper);
    const pid = "arxiv:2301.00001";
    const els = p.artifacts.filter((a) => a.kind === "element");
    expect(els.map((a) => a.id)).toEqual([`${pid}#fig1`, `${pid}#fig2`, `${pid}#tab1`, `${pid}#eq1`]);
    const fig1 = byId(p, `${pid}#fig1`);
    expect(fig1.content).toBe("Recall of the router against candidate pool size.");
    expect(fig1.title).toBe("Routing memory for research agents: Figure 1");
    expect(fig1.boundaries).toEqual(["element:figure"]);
    expect(edges(fig1, "part-of")).toEqual([pid]);
    expect(edges(fig1, "discussed-in")).toEqual([`${pid}#s1-1-introduction`, `${pid}#s3-3-results`]);
    // fb is referenced nowhere: an element of the paper with no discussion.
    expect(edges(byId(p, `${pid}#fig2`), "discussed-in")).toEqual([]);
    expect(edges(byId(p, `${pid}#tab1`), "discussed-in")).toEqual([`${pid}#s2-2-method`, `${pid}#s3-3-results`]);
    // Only the formula alone on its line is an element; the inline one stays text.
    const eq = byId(p, `${pid}#eq1`);
    expect(eq.content).toBe("$\\sum_i p_i = 1$");
    expect(eq.boundaries).toEqual(["element:equation"]);
    expect(edges(eq, "discussed-in")).toEqual([`${pid}#s2-2-method`]);
    // Section text names the element by number.
    expect(byId(p, `${pid}#s1-1-introduction`).content).toContain("Figure [Figure 1] shows that recall");
    expect(byId(p, `${pid}#s3-3-results`).content).toContain("latency of Table [Table 1] confirm");
    for (const a of els) expect(a.valid_from).toBe(Date.parse("2023-01-02T10:00:00Z"));
    const r = prepareBatch(p.artifacts);
    expect(r.ok).toBe(true);
  });

  it("keeps S2ORC ref_entries referenced through ref_spans and eq_spans", () => {
    const p = plan(s2orcPaper);
    const pid = "doi:10.1000/beetles";
    expect(
      p.artifacts.filter((a) => a.kind === "element").map((a) => [a.id, edges(a, "discussed-in"), a.content] as const),
    ).toEqual([
      [`${pid}#fig1`, [`${pid}#s2-results`], "Figure 1. Weight gain of larvae per diet."],
      [`${pid}#tab1`, [`${pid}#s1-methods`], "Table 1. Composition of the three diets."],
      [`${pid}#eq1`, [`${pid}#s1-methods`], "$E = m g$"],
    ]);
  });

  it("caps display equations per paper and reports the rest", () => {
    const n = MAX_EQUATION_ELEMENTS + 3;
    const rec = structuredClone(unarxivePaper) as typeof unarxivePaper & { ref_entries: Record<string, unknown> };
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      rec.ref_entries[`d${i}`] = { latex: `x_${i} = ${i}`, type: "formula" };
      lines.push(`{{formula:d${i}}}`);
    }
    rec.body_text = [{ section: "Derivation", sec_number: "4", text: lines.join("\n"), cite_spans: [] }];
    const p = plan(rec);
    const eqs = p.artifacts.filter((a) => a.boundaries?.includes("element:equation"));
    expect(eqs).toHaveLength(MAX_EQUATION_ELEMENTS);
    expect(p.skipped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ ref: "arxiv:2301.00001#eq", reason: expect.stringMatching(/^3 display equations/) }),
      ]),
    );
  });

  it("is deterministic: the same file gives the same plan", () => {
    expect(JSON.stringify(plan(unarxivePaper))).toBe(JSON.stringify(plan(unarxivePaper)));
  });
});
