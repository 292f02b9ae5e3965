/**
 * The rewrite step's rule checks (src/core/proposals/rewrite.ts) and the layout of model-made
 * techniques in the xKG export (src/core/export/xkg-model.ts), pure.
 */
import { describe, expect, it } from "vitest";
import { modelTechniqueObjects, paperAbstract, withModelTechniques } from "../../src/core/export/xkg-model";
import { XKG_DOC_MARK } from "../../src/core/formats/xkg";
import {
  CORE_MIN,
  checkRewrite,
  coreCheck,
  coreLines,
  fitCodeBytes,
  quotesCheck,
  rewritePrompt,
} from "../../src/core/proposals/rewrite";

const UNIT = {
  id: "gh:acme/ccs/loss.py",
  version: 2,
  title: "loss.py",
  text: "import torch\n\ndef ccs_loss(p0, p1):\n    consistency = ((p0 - (1 - p1)) ** 2).mean()\n    confidence = (torch.min(p0, p1) ** 2).mean()\n    return consistency + confidence\n",
};

const IMPL = [
  "import torch",
  "",
  "def ccs_loss(p0: torch.Tensor, p1: torch.Tensor) -> torch.Tensor:",
  '    """The CCS loss.',
  "",
  "    return consistency + confidence  (inside the docstring: not core)",
  '    """',
  "    # consistency of the two halves",
  "    consistency = ((p0 - (1 - p1)) ** 2).mean()",
  "    confidence  =  (torch.min(p0, p1) ** 2).mean()",
  "    return consistency + confidence",
  "",
  "# TEST BLOCK",
  'if __name__ == "__main__":',
  "    print(ccs_loss(torch.rand(4), torch.rand(4)))",
].join("\n");

describe("rewrite rule checks", () => {
  it("core lines leave out blanks, comments, docstrings and the TEST BLOCK, whitespace-normalised", () => {
    expect(coreLines(IMPL)).toEqual([
      "import torch",
      "def ccs_loss(p0: torch.Tensor, p1: torch.Tensor) -> torch.Tensor:",
      "consistency = ((p0 - (1 - p1)) ** 2).mean()",
      "confidence = (torch.min(p0, p1) ** 2).mean()",
      "return consistency + confidence",
    ]);
    expect(coreLines('def f():\n    """One line."""\n    return 1\n')).toEqual(["def f():", "return 1"]);
  });

  it("reports the fraction of core lines found verbatim in the snippets, against the threshold", () => {
    const c = coreCheck(IMPL, [UNIT.text]);
    expect(c).toMatchObject({ lines: 5, found: 4, fraction: 0.8, threshold: CORE_MIN, ok: true });
    expect(c.missing).toEqual(["def ccs_loss(p0: torch.Tensor, p1: torch.Tensor) -> torch.Tensor:"]);
    const invented = coreCheck("import numpy as np\nx = np.zeros(3)\ny = x + 1\nprint(y)\n", [UNIT.text]);
    expect(invented).toMatchObject({ lines: 4, found: 0, fraction: 0, ok: false });
    expect(coreCheck("# only a comment\n", [UNIT.text]).ok).toBe(false);
  });

  it("anchors every quote in the unit it names; a misquote or an unknown unit fails rule (a)", () => {
    const checked = checkRewrite(
      {
        none: false,
        implementation: IMPL,
        test: "",
        documentation: "Computes the loss.",
        sources: [
          { id: UNIT.id, quote: "def ccs_loss(p0, p1):" },
          { id: UNIT.id, quote: "def invented_function(x):" },
          { id: "gh:other/x.py", quote: "def ccs_loss(p0, p1):" },
        ],
      },
      [UNIT],
    );
    if (typeof checked === "string") throw new Error(checked);
    const r = checked.items[0];
    if (!r) throw new Error("no rewrite");
    expect(r.sources[0]?.anchor).toMatchObject({ artifact_id: UNIT.id, version: 2, snippet: "def ccs_loss(p0, p1):" });
    expect(r.sources[1]?.anchor).toBeNull();
    expect(r.sources[2]?.reason).toMatch(/not given/);
    const q = quotesCheck(r);
    expect(q.ok).toBe(false);
    expect(q.failures).toHaveLength(2);
    expect(quotesCheck({ ...r, sources: [r.sources[0] as (typeof r.sources)[number]] }).ok).toBe(true);
    expect(quotesCheck({ ...r, sources: [] }).failures[0]).toMatch(/sources is empty/);
  });

  it("reads None as no rewrite, and an empty implementation as unusable", () => {
    expect(checkRewrite({ none: true, implementation: "", test: "", documentation: "", sources: [] }, [UNIT])).toEqual({
      items: [],
      dropped: [],
    });
    expect(checkRewrite({ none: false, implementation: "None", sources: [] }, [UNIT])).toEqual({
      items: [],
      dropped: [],
    });
    expect(checkRewrite({ none: false, implementation: " ", sources: [] }, [UNIT])).toMatch(/implementation is empty/);
    expect(checkRewrite([], [UNIT])).toMatch(/not a JSON object/);
  });

  it("fits code into a byte budget, cutting the last unit at a line", () => {
    const a = { id: "a", text: "x = 1\n".repeat(10) };
    const b = { id: "b", text: "é = 2\n".repeat(10) };
    expect(fitCodeBytes([a, b], 1000).map((d) => d.id)).toEqual(["a", "b"]);
    const cut = fitCodeBytes([a, b], 60 + 15);
    expect(cut.map((d) => d.id)).toEqual(["a", "b"]);
    expect(new TextEncoder().encode(cut[1]?.text ?? "").length).toBeLessThanOrEqual(15);
    expect(cut[1]?.text.endsWith("\n")).toBe(true);
    expect(fitCodeBytes([a, b], 30).map((d) => d.text)).toEqual(["x = 1\n".repeat(5)]);
  });

  it("asks the composite prompt with the sub-techniques' code when there are sub-techniques", () => {
    const base = {
      paperTitle: "CCS",
      abstract: "We find latent knowledge.",
      technique: "CCS\n\nThe method.",
      code: [UNIT],
    };
    const leaf = rewritePrompt({ ...base, subTechniques: [] });
    expect(leaf).toContain(`[unit ${UNIT.id}] loss.py`);
    expect(leaf).not.toContain("Sub-techniques");
    const composite = rewritePrompt({
      ...base,
      subTechniques: [{ id: "p#mt:pairs-1", definition: "Contrast pairs", code: [] }],
    });
    expect(composite).toContain("Sub-techniques and associated code (1):");
    expect(composite).toContain("[technique p#mt:pairs-1] Contrast pairs");
    expect(composite).toContain("Fully reuse the code of the sub-techniques");
  });
});

describe("model-made techniques in the xKG layout", () => {
  const tech = (id: string, partOf: string[], extra: Record<string, unknown> = {}) => ({
    id,
    content: `${id.split(":").pop()}\n\nWhat ${id} does.`,
    partOf,
    origin: "model:openai:m",
    code: [],
    ...extra,
  });

  it("nests components under their parent, in id order, with origin, review and code after the layout", () => {
    const list = [
      tech("p#mt:b", ["p"], { type: "Methodology", review: "auto-generated" }),
      tech("p#mt:a", ["p", "p#mt:b"], { type: "Technique" }),
      tech("technique:c", ["p"], {
        code: [
          {
            id: "p#mt:c#code:1",
            content: `def f():\n    return 1${XKG_DOC_MARK}Returns one.`,
            origin: "model:openai:m",
            tests: ["assert f() == 1"],
          },
          { id: "gh:x/f.py", content: "def g(): pass", origin: "gh", tests: [] },
        ],
      }),
    ];
    const out = modelTechniqueObjects("p", list);
    expect(out.map((t) => t.name)).toEqual(["b", "c"]);
    expect(Object.keys(out[0] ?? {})).toEqual([
      "name",
      "description",
      "type",
      "code",
      "components",
      "origin",
      "review",
    ]);
    expect(((out[0]?.components ?? []) as Array<{ name: string }>).map((c) => c.name)).toEqual(["a"]);
    expect(out[1]?.code).toEqual([
      {
        implementation: "def f():\n    return 1",
        test: "assert f() == 1",
        documentation: "Returns one.",
        package: [],
        id: "p#mt:c#code:1",
        origin: "model:openai:m",
      },
      { implementation: "def g(): pass", test: "", documentation: "", package: [], id: "gh:x/f.py", origin: "gh" },
    ]);
    // Appended after the imported techniques, which are left as they are.
    const imported = { name: "CCS", description: "d", code: null, components: [] };
    const paper = withModelTechniques({ paper_title: "P", techniques: [imported] }, "p", list);
    expect((paper.techniques as unknown[])[0]).toBe(imported);
    expect(paper.techniques).toHaveLength(3);
    expect(modelTechniqueObjects("q", list)).toEqual([]);
  });

  it("a plain paper's abstract is its content without the title line, cut at a boundary", () => {
    expect(paperAbstract("CCS", "CCS\n\nWe find latent knowledge.")).toBe("We find latent knowledge.");
    expect(paperAbstract("Other", "We find latent knowledge.")).toBe("We find latent knowledge.");
    const long = paperAbstract("T", "word ".repeat(2000));
    expect(long.length).toBeLessThanOrEqual(4000);
    expect(long.endsWith("word")).toBe(true);
  });
});
