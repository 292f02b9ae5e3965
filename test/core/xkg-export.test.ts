import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildXkgPapers, type XkgExportNode } from "../../src/core/export/xkg";
import { parseXkg, XKG_KEY, type XkgNode } from "../../src/core/formats/xkg";

/** What the archive holds after an import of `doc`: each artifact's content, edges and `xkg` annotation. */
function importedNodes(doc: unknown): XkgExportNode[] {
  const r = parseXkg(JSON.stringify(doc), { source: "t.json" });
  if (!r.ok) throw new Error(r.error.message);
  const notes = new Map((r.value.annotations ?? []).filter((a) => a.key === XKG_KEY).map((a) => [a.chunk, a.value]));
  return r.value.artifacts.map((a) => ({
    id: a.id,
    content: a.content,
    edges: (a.edges ?? []).map((e) => ({ type: e.type, target: e.target })),
    node: notes.get(a.id) as XkgNode,
  }));
}

const released = {
  paper_title: "Adaptive Behavior Cloning  Regularization",
  paper_abstract: "Offline RL learns from a fixed dataset.\n\nIt then fine-tunes online.",
  paper_references: [
    "Conservative Q-Learning for Offline RL",
    "Conservative Q-Learning for Offline RL",
    "arXiv:2110.06169",
  ],
  resources: ["D4RL Benchmark: datasets for deep data-driven RL."],
  findings: ["Finding: Stability: AdaptiveBC avoids the initial dip.", "Finding: Speed:\nfaster than REDQ."],
  code_file: "LICENSE\nREADME.md\nmain.py",
  code_overview: "## Dependencies\n- MuJoCo\n- PyTorch\n",
  techniques: [
    {
      name: "REDQ+AdaptiveBC",
      description: "An end-to-end algorithm.",
      weight: 1.0,
      code: null,
      components: [
        {
          name: "TD3+BC",
          description: "Actor-critic with a BC term.",
          weight: 0.25,
          code: {
            implementation: "import torch\n\ndef loss(q, pi, a):\n    return -q.mean() + ((pi - a) ** 2).mean()\n",
            test: "assert loss is not None\n",
            documentation: "Computes the loss.\n\n# Documentation\nTricky: the marker inside the docs.",
            package: ["torch", "numpy"],
            pass_exec: true,
          },
          components: [],
        },
        {
          name: "Adaptive weight",
          description: "",
          weight: 0.16666666666666666,
          code: { implementation: "def w(r):\n    return r", test: "", documentation: "", package: [] },
          components: [],
        },
      ],
    },
  ],
};

describe("xKG export rebuilds the imported file", () => {
  it("returns the released layout exactly: weights, package order, pass_exec, duplicate references, findings", () => {
    const out = buildXkgPapers(importedNodes(released));
    expect(out).toHaveLength(1);
    expect(out[0]?.paper).toEqual(released);
    // Key order of the released graphs.
    expect(Object.keys(out[0]?.paper ?? {})).toEqual(Object.keys(released));
  });

  it("keeps null references and omitted pass_exec apart from empty values", () => {
    const doc = { ...released, paper_references: null };
    expect(buildXkgPapers(importedNodes(doc))[0]?.paper).toEqual(doc);
  });

  it("property: any well-formed paper round-trips exactly", () => {
    const line = fc
      .string({ minLength: 1, maxLength: 30 })
      .map((s) => s.replace(/\s+/g, " ").trim())
      .filter((s) => /[a-z0-9]/i.test(s));
    const body = fc.string({ maxLength: 60 });
    const code = fc.option(
      fc.record({
        implementation: body.filter((s) => s.trim().length > 0),
        // A blank test script stores nothing and comes back as "".
        test: body.map((s) => (s.trim() ? s : "")),
        documentation: body,
        package: fc.array(fc.constantFrom("torch", "numpy", "jax", "scipy"), { maxLength: 3 }),
      }),
      { nil: null },
    );
    const node = <T>(components: fc.Arbitrary<T[]>) =>
      fc.record({
        name: line,
        description: body,
        weight: fc.double({ min: 0, max: 1, noNaN: true }),
        code,
        components,
      });
    // Three levels, as deep as the released graphs go.
    const technique = node(fc.array(node(fc.array(node(fc.constant([])), { maxLength: 2 })), { maxLength: 3 }));
    const paper = fc.record({
      paper_title: line,
      paper_abstract: body,
      paper_references: fc.array(line, { maxLength: 3 }),
      resources: fc.array(
        body.filter((s) => s.trim().length > 0),
        { maxLength: 2 },
      ),
      findings: fc.array(
        body.filter((s) => s.trim().length > 0),
        { maxLength: 2 },
      ),
      code_file: body,
      code_overview: body,
      techniques: fc.array(technique, { maxLength: 3 }),
    });
    fc.assert(
      fc.property(paper, (doc) => {
        // A blank code_file / code_overview comes back as "" (nothing is stored for it).
        const want = {
          ...doc,
          code_file: doc.code_file.trim() ? doc.code_file : "",
          code_overview: doc.code_overview.trim() ? doc.code_overview : "",
        };
        expect(buildXkgPapers(importedNodes(doc))[0]?.paper).toEqual(want);
      }),
      { numRuns: 150 },
    );
  });
});
