/**
 * Paper identity across importers: a bare BibTeX eprint that has an arXiv id's shape is the arXiv id
 * (one paper, one identity, a cites edge that reaches it); a title's leading system name is an alias.
 */
import { describe, expect, it } from "vitest";
import type { Result } from "../../src/core/errors";
import { looksLikeArxiv, parseBibtex } from "../../src/core/formats/bibtex";
import { parseMarkdownPaper } from "../../src/core/formats/markdown";
import { paperIdentity } from "../../src/core/formats/paper";
import { leadingName } from "../../src/core/ids";

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`${r.error.message} (${r.error.field})`);
  return r.value;
}

describe("arXiv ids from a bare eprint", () => {
  it("reads new- and old-style ids, with or without a version, and nothing else", () => {
    for (const e of [
      "2405.14831",
      "2405.14831v2",
      "1501.0001",
      "arXiv:2005.11401",
      "hep-th/9901001",
      "math.PR/0601001v3",
    ])
      expect(looksLikeArxiv(e), e).toBe(true);
    for (const e of ["10.1145/3397271", "12345678", "2405.148", "hdl:1721.1/123", "PMC123456", "hep-th/99010", ""])
      expect(looksLikeArxiv(e), e).toBe(false);
  });

  it("one paper: a bare eprint and an eprint with archivePrefix give the same id, a bare non-arXiv eprint none", () => {
    const plan = value(
      parseBibtex(`
@article{hipporag, title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  author = {Guti{\\'e}rrez, Bernal Jim{\\'e}nez}, year = {2024}, eprint = {2405.14831v3}}
@misc{hipporag-again, title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  eprint = {2405.14831}, archivePrefix = {arXiv}}
@article{old, title = {An old-style preprint on strings}, eprint = {hep-th/9901001}}
@article{handle, title = {A thesis in a repository}, eprint = {1721.1/12345}, eprinttype = {hdl}}
@article{number, title = {A record with a number}, eprint = {12345678}}
`),
    );
    const ids = plan.artifacts.filter((a) => a.kind === "paper").map((a) => a.id);
    expect(ids).toContain("arxiv:2405.14831");
    expect(ids.filter((x) => x === "arxiv:2405.14831")).toHaveLength(1);
    expect(ids).toContain("arxiv:hep-th/9901001");
    expect(ids.filter((x) => x.startsWith("arxiv:"))).toHaveLength(2);
    expect(ids.some((x) => x.includes("1721.1") || x.includes("12345678"))).toBe(false);
  });

  it("a citation edge to a bare-eprint entry reaches the paper's arXiv chunk", () => {
    const md = value(
      parseMarkdownPaper(
        "# A survey of memory\n\nWe build on HippoRAG [1].\n\n## References\n\n1. B. Gutiérrez. HippoRAG: Neurobiologically inspired long-term memory. arXiv:2405.14831, 2024.\n",
        { source: "survey.md" },
      ),
    );
    const bib = value(
      parseBibtex("@article{h, title = {HippoRAG: Neurobiologically Inspired Memory}, eprint = {2405.14831}}"),
    );
    const targets = md.artifacts.flatMap((a) => (a.edges ?? []).filter((e) => e.type === "cites").map((e) => e.target));
    expect(targets).toContain("arxiv:2405.14831");
    expect(bib.artifacts.map((a) => a.id)).toContain("arxiv:2405.14831");
  });
});

describe("a title's leading name", () => {
  it("is a system's name: one name-like token before the colon", () => {
    const cases: Array<[string, string | null]> = [
      ["HippoRAG: Neurobiologically Inspired Long-Term Memory for LLMs", "HippoRAG"],
      ["S-Graphs+: Real-time Localization and Mapping", "S-Graphs+"],
      ["RoBERTa: A Robustly Optimized BERT Pretraining Approach", "RoBERTa"],
      ["Clip4clip: An empirical study of clip for end to end video clip retrieval", "Clip4clip"],
      ["EuclidNets: An Alternative Operation for Efficient Inference", "EuclidNets"],
      ["Multimodal interaction: A review", null],
      ["Communication: Note on detailed balance", null],
      ["Retro: Learning Retrosynthetic Planning", null],
      ["REVIEW: graph memory", null],
      ["BERT: Pre-training of deep bidirectional transformers", "BERT"],
      ["Mind the Retrosynthesis Gap: Bridging the divide", null],
      ["Survey: retrieval for agents", null],
      ["Review: graph memory", null],
      ["retrieval: a lower-case word", null],
      ["A: one letter", null],
      ["Attention is all you need", null],
      ["Did You See That? A Covert Channel: Exploiting Traffic", null],
    ];
    for (const [title, want] of cases) expect(leadingName(title), title).toBe(want);
  });

  it("becomes an alias of the paper's entity, next to the identifiers and the title", () => {
    const id = paperIdentity(["arXiv:2405.14831v2"], "HippoRAG: Neurobiologically Inspired Long-Term Memory");
    expect(id?.entity.aliases).toEqual(["HippoRAG: Neurobiologically Inspired Long-Term Memory", "HippoRAG"]);
    const plain = paperIdentity([], "Attention is all you need");
    expect(plain?.entity.aliases).toEqual(["Attention is all you need"]);
  });
});
