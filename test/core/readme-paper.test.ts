import { describe, expect, it } from "vitest";
import { isReadme, readmePaper } from "../../src/core/sources/readme";

describe("the paper a README says its repository implements (xKG App. C, by rules)", () => {
  it("reads a BibTeX citation block: its title and identifiers", () => {
    const text = [
      "# HippoRAG",
      "Neurobiologically inspired long-term memory for LLMs. See also arXiv:2402.01234 for a survey.",
      "## Citation",
      "```bibtex",
      "@inproceedings{gutierrez2024hipporag,",
      "  title = {{HippoRAG}: Neurobiologically Inspired Long-Term Memory for Large Language Models},",
      "  author = {Guti{\\'e}rrez, Bernal Jim{\\'e}nez and others},",
      "  eprint = {2405.14831},",
      "  year = {2024}",
      "}",
      "```",
    ].join("\n");
    const r = readmePaper(text);
    expect(r.paper?.evidence).toBe("bibtex");
    expect(r.paper?.title).toBe("HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models");
    expect(r.paper?.ids).toEqual(["arxiv:2405.14831"]);
    expect(r.seen).toEqual(expect.arrayContaining(["arxiv:2402.01234", "arxiv:2405.14831"]));
  });

  it("reads an 'official implementation of' statement: the linked or quoted title, identifiers on the line", () => {
    const linked = readmePaper(
      "This is the official PyTorch implementation of [Graph Memories for Agents](https://arxiv.org/abs/2501.01234).\n\nOther text cites 10.1000/xyz123.",
    );
    expect(linked.paper).toEqual({
      ids: ["arxiv:2501.01234"],
      title: "Graph Memories for Agents",
      evidence: "statement",
    });
    const quoted = readmePaper('Code for the paper "Typed Temporal Graphs for Long Horizons" (NeurIPS 2024).');
    expect(quoted.paper).toEqual({ ids: [], title: "Typed Temporal Graphs for Long Horizons", evidence: "statement" });
  });

  it("takes a single identifier as the paper, and several without stronger evidence as none", () => {
    expect(readmePaper("Paper: https://arxiv.org/abs/2405.14831v2\n").paper).toEqual({
      ids: ["arxiv:2405.14831"],
      title: null,
      evidence: "identifier",
    });
    const many = readmePaper("We build on arXiv:2405.14831 and arXiv:2310.01234 and doi:10.1000/abc.");
    expect(many.paper).toBeNull();
    expect(many.seen).toHaveLength(3);
    expect(readmePaper("A fast JSON parser. MIT licensed.").paper).toBeNull();
  });

  it("knows README files by name at any depth", () => {
    for (const p of ["README.md", "readme", "docs/README.rst", "pkg/Readme.txt", "README.markdown"])
      expect(isReadme(p), p).toBe(true);
    for (const p of ["README.md.bak", "src/readme.ts", "READMEFIRST.md"]) expect(isReadme(p), p).toBe(false);
  });
});
