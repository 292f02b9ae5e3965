import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Result } from "../../src/core/errors";
import { parseBibtex } from "../../src/core/formats/bibtex";
import { parseFullTextPapers } from "../../src/core/formats/fulltext";
import { parseMarkdownPaper } from "../../src/core/formats/markdown";
import { parseReference } from "../../src/core/formats/references";
import type { ImportPlan } from "../../src/core/formats/types";
import { parseXkg } from "../../src/core/formats/xkg";
import { type ArtifactInput, prepareBatch } from "../../src/core/ingest";
import { cpuNow } from "./cpu-clock";

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`${r.error.message} (${r.error.field})`);
  return r.value;
}

function byId(plan: ImportPlan, id: string): ArtifactInput {
  const a = plan.artifacts.find((x) => x.id === id);
  if (!a) throw new Error(`no artifact ${id}; have ${plan.artifacts.map((x) => x.id).join(", ")}`);
  return a;
}

/** The plan is valid ingest input: prepareBatch accepts it (in batches of 200) and the schema limits hold. */
function expectIngestable(plan: ImportPlan) {
  expect(plan.artifacts.length).toBeGreaterThan(0);
  for (let i = 0; i < plan.artifacts.length; i += 200) {
    const r = prepareBatch(plan.artifacts.slice(i, i + 200));
    expect(r.ok ? "ok" : r.error.message).toBe("ok");
  }
  for (const a of plan.artifacts) {
    expect(a.content.length).toBeGreaterThan(0);
    expect(a.title.length).toBeGreaterThan(0);
    expect(a.title.length).toBeLessThanOrEqual(1000);
    expect(a.id.length).toBeLessThanOrEqual(512);
    expect((a.synopsis ?? "").length).toBeLessThanOrEqual(2000);
    expect((a.entities ?? []).length).toBeLessThanOrEqual(200);
    expect((a.edges ?? []).length).toBeLessThanOrEqual(500);
    for (const e of a.entities ?? []) {
      expect(e.name.length).toBeGreaterThan(0);
      expect(e.name.length).toBeLessThanOrEqual(300);
      for (const al of e.aliases ?? []) expect(al.length).toBeLessThanOrEqual(300);
    }
  }
}

const edgesOf = (a: ArtifactInput, type: string) => (a.edges ?? []).filter((e) => e.type === type).map((e) => e.target);

describe("parseBibtex", () => {
  const bib = String.raw`
% exported from a reference manager
@string{neurips = "Advances in Neural Information Processing Systems"}

@inproceedings{lewis2020,
  title = {Retrieval-Augmented Generation for Knowledge-Intensive {NLP} Tasks},
  author = {Lewis, Patrick and Perez, Ethan and K{\"u}ttler, Heinrich},
  booktitle = neurips,
  year = {2020},
  month = dec,
  eprint = {2005.11401v4},
  archivePrefix = {arXiv},
  abstract = {Large pre-trained language models store factual knowledge. We explore \emph{RAG} models. They set the state of the art. A fourth sentence.},
  keywords = {retrieval, generation},
}

@misc{gutierrez2024,
  title = {Hippo{RAG}: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  author = {Guti{\'e}rrez, Bernal Jim{\'e}nez and Shu, Yiheng},
  year = 2024,
  url = {https://arxiv.org/abs/2405.14831v2},
  note = {arXiv preprint}
}

@article{karpukhin2020dense,
  title = {Dense Passage Retrieval for Open-Domain Question Answering},
  author = {Karpukhin, Vladimir and O{\u{g}}uz, Barlas},
  journal = {EMNLP},
  doi = {https://doi.org/10.18653/V1/2020.EMNLP-MAIN.550},
  year = {2020}
}

@book{notitle, author = {Nobody, A.}, year = {1999}}

@article{rag-again, title = {RAG, again}, eprint = {2005.11401}, eprinttype = {arxiv}}

@inproceedings{child, crossref = {proc}, title = {A Child Paper}, author = {Doe, Jane}}
@proceedings{proc, title = {Proceedings of Something}, booktitle = {Proceedings of Something}, year = {2019}}
`;

  it("maps entries to paper artifacts with canonical ids, aliases, entities and boundaries", () => {
    const plan = value(parseBibtex(bib, { source: "refs.bib" }));
    expectIngestable(plan);
    const rag = byId(plan, "arxiv:2005.11401");
    expect(rag.kind).toBe("paper");
    expect(rag.title).toBe("Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks");
    expect(rag.valid_from).toBe(Date.UTC(2020, 11, 1)); // year 2020, month dec: the event time
    expect(rag.source).toBe("refs.bib#lewis2020");
    expect(rag.content).toContain("Heinrich Küttler");
    expect(rag.content).toContain("Advances in Neural Information Processing Systems");
    expect(rag.content).toContain("Date: 2020-12");
    expect(rag.content).toContain("We explore RAG models");
    expect(rag.content).not.toContain("<i>");
    expect(rag.synopsis).toBe(
      "Large pre-trained language models store factual knowledge. We explore RAG models. They set the state of the art.",
    );
    const self = rag.entities?.find((e) => e.id === "arxiv:2005.11401");
    // The duplicate @article{rag-again} (same arXiv id) adds its key as an alias instead of a second chunk.
    expect(self?.aliases).toEqual(expect.arrayContaining(["lewis2020", "rag-again"]));
    expect(rag.entities?.filter((e) => e.type === "person").map((e) => e.id)).toEqual([
      "person:patrick-lewis",
      "person:ethan-perez",
      "person:heinrich-küttler",
    ]);
    expect(rag.entities?.find((e) => e.type === "venue")?.id).toBe(
      "venue:advances-in-neural-information-processing-systems",
    );
    expect(rag.boundaries).toEqual(
      expect.arrayContaining(["bibtex:inproceedings", "year:2020", "keyword:retrieval", "keyword:generation"]),
    );

    // arXiv from an arXiv URL, DOI from a doi.org URL (lowercased).
    expect(byId(plan, "arxiv:2405.14831").title).toContain("HippoRAG");
    expect(byId(plan, "doi:10.18653/v1/2020.emnlp-main.550").content).toContain("Barlas Oğuz");
    // crossref inheritance: the child gets the proceedings' year and booktitle.
    const child = plan.artifacts.find((a) => a.title === "A Child Paper");
    expect(child?.id).toBe("paper:a-child-paper");
    expect(child?.boundaries).toContain("year:2019");
    expect(child?.content).toContain("In: Proceedings of Something");

    expect(plan.skipped).toEqual(
      expect.arrayContaining([
        { ref: "notitle", reason: "@book entry has no title" },
        expect.objectContaining({ ref: "rag-again" }),
      ]),
    );
  });

  it("skips a broken entry but keeps the rest", () => {
    const plan = value(parseBibtex(`@article{bad, title = {Unclosed\n\n@misc{ok, title = {Fine Title}, year = 2021}`));
    expect(plan.artifacts.map((a) => a.id)).toEqual(["paper:fine-title"]);
    expect(plan.skipped[0]?.ref).toBe("bad");
    expect(plan.skipped[0]?.reason).toMatch(/parse error/);
  });

  it("quotes at most a line of the input back in a parse error", () => {
    for (const n of [2_000, 20_000]) {
      const r = parseBibtex(`@article{key ${"x".repeat(n)}}`);
      expect(JSON.stringify(r).length, `${n}`).toBeLessThan(1_000);
    }
  });

  it("fails on input that is not BibTeX", () => {
    for (const text of ["", "just some prose", '{"title": "json"}', "@article{bad, title = {Unclosed"]) {
      const r = parseBibtex(text);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.kind).toBe("validation");
        expect(r.error.field).toBe("text");
        expect(r.error.hint).toBeTruthy();
      }
    }
  });

  it("caps long titles and many authors to the ingest limits", () => {
    const authors = Array.from({ length: 250 }, (_, i) => `Author${i}, A.`).join(" and ");
    const plan = value(parseBibtex(`@article{big, title = {${"Long ".repeat(400)}}, author = {${authors}}}`));
    expectIngestable(plan);
    const a = plan.artifacts[0];
    expect(a?.title.length).toBe(1000);
    expect(a?.entities?.length).toBe(200);
    expect(plan.skipped.some((s) => /kept 200 of 251 entities/.test(s.reason))).toBe(true);
  });
});

describe("parseMarkdownPaper", () => {
  const md = `---
title: "HippoRAG: Neurobiologically Inspired Long-Term Memory"
arxiv: 2405.14831v2
date: 2024-05-23
---
# HippoRAG

We present HippoRAG. It indexes passages into a knowledge graph.

## 1 Introduction

Retrieval-augmented generation (arXiv:2005.11401) is the baseline.

\`\`\`python
## not a heading: inside a fence
x = 1
\`\`\`

### 1.1 Background

Personalized PageRank with damping 0.5.

## 2 Method
Text.
~~~
# also not a heading
~~~

# Appendix

## References

- Collin Burns, Haotian Ye, Dan Klein, and Jacob Steinhardt. 2022. Discovering latent knowledge in language models without supervision. *arXiv* preprint *arXiv*:2212.03827.
- Lewis, P., Perez, E., & Piktus, A. (2020). Retrieval-augmented generation for knowledge-intensive NLP tasks. In NeurIPS.
- V. Karpukhin et al., "Dense passage retrieval for open-domain question answering," in EMNLP, 2020. https://doi.org/10.18653/v1/2020.emnlp-main.550
- T. Alazard, O. Lazar, and Q. H. Nguyen. On the dynamics of the roots of polynomials under differentiation. J. Math. Pures Appl., 162:1–22, 2022.
- Nicholas Edwards and Najoung Kim. 2025. Rexbench: Can coding agents autonomously

- implement ai research extensions? arXiv preprint.
- ???
`;

  it("produces a paper and exact-span sections", () => {
    const plan = value(parseMarkdownPaper(md, { source: "papers/hippo.md" }));
    expectIngestable(plan);
    const paper = byId(plan, "arxiv:2405.14831");
    expect(paper.content).toBe(md);
    expect(paper.title).toBe("HippoRAG: Neurobiologically Inspired Long-Term Memory");
    expect(paper.synopsis).toBe("We present HippoRAG. It indexes passages into a knowledge graph.");
    expect(paper.boundaries).toEqual(["year:2024"]);
    expect(paper.valid_from).toBe(Date.UTC(2024, 4, 23)); // front matter date: 2024-05-23
    const sections = plan.artifacts.filter((a) => a.kind === "section");
    for (const s of sections) expect(s.valid_from).toBe(Date.UTC(2024, 4, 23));
    expect(sections.map((s) => s.id)).toEqual([
      "arxiv:2405.14831#s1-1-introduction",
      "arxiv:2405.14831#s2-1-1-background",
      "arxiv:2405.14831#s3-2-method",
      "arxiv:2405.14831#s4-references",
    ]);
    for (const s of sections) {
      const m = /#chars=(\d+)-(\d+)$/.exec(s.source ?? "");
      expect(s.source?.startsWith("papers/hippo.md#chars=")).toBe(true);
      expect(md.slice(Number(m?.[1]), Number(m?.[2]))).toBe(s.content);
      expect(edgesOf(s, "part-of")).toContain("arxiv:2405.14831");
    }
    // The fenced "## not a heading" stays inside the introduction; "# Appendix" ends "2 Method".
    expect(sections[0]?.content).toContain("## not a heading: inside a fence");
    expect(sections[2]?.content.endsWith("~~~\n\n")).toBe(true);
    expect(edgesOf(sections[1] as ArtifactInput, "part-of")).toEqual([
      "arxiv:2405.14831",
      "arxiv:2405.14831#s1-1-introduction",
    ]);
  });

  it("resolves references through DOI, arXiv and titles", () => {
    const plan = value(parseMarkdownPaper(md));
    const paper = byId(plan, "arxiv:2405.14831");
    expect(edgesOf(paper, "cites")).toEqual([
      "arxiv:2212.03827",
      "paper:retrieval-augmented-generation-for-knowledge-intensive-nlp-tasks",
      "doi:10.18653/v1/2020.emnlp-main.550",
      "paper:on-the-dynamics-of-the-roots-of-polynomials-under-differentiation",
      "paper:rexbench-can-coding-agents-autonomously-implement-ai-research-extensions",
    ]);
    const dpr = paper.entities?.find((e) => e.id === "doi:10.18653/v1/2020.emnlp-main.550");
    expect(dpr?.name).toBe("Dense passage retrieval for open-domain question answering");
    expect(plan.skipped).toEqual([expect.objectContaining({ ref: "markdown#references.6" })]);
  });

  it("uses the first # heading and an explicit id when there is no front matter", () => {
    const plan = value(parseMarkdownPaper("# My Notes\n\nSome text.\n\n## Part\nBody\n", { id: "doc:notes" }));
    expectIngestable(plan);
    expect(plan.artifacts.map((a) => a.id)).toEqual(["doc:notes", "doc:notes#s1-part"]);
    expect(byId(plan, "doc:notes").title).toBe("My Notes");
    const noId = value(parseMarkdownPaper("# My Notes\n\ntext"));
    expect(noId.artifacts[0]?.id).toBe("paper:my-notes");
  });

  it("fails on empty, untitled or broken front matter documents", () => {
    const cases: Array<[string, string]> = [
      ["", "text"],
      ["## Only a section\n\ntext", "title"],
      ["---\ntitle: x\nno end", "front_matter"],
    ];
    for (const [text, field] of cases) {
      const r = parseMarkdownPaper(text);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.field).toBe(field);
        expect(r.error.hint).toBeTruthy();
      }
    }
  });

  it("property: every section's recorded span slices back to its content", () => {
    const word = fc.constantFrom("alpha", "beta", "gamma", "RAG", "ü", "x.y", "#", "##", "`", "~~~");
    const line = fc.array(word, { minLength: 0, maxLength: 6 }).map((w) => w.join(" "));
    const block = fc.oneof(
      line.map((l) => `## ${l}`),
      line.map((l) => `### ${l}`),
      line.map((l) => `# ${l}`),
      line.map((l) => `#### ${l}`),
      fc.array(line, { minLength: 1, maxLength: 3 }).map((ls) => ls.join("\n")),
      line.map((l) => `\`\`\`\n## ${l}\n\`\`\``),
      fc.constant(""),
    );
    const doc = fc
      .tuple(fc.array(block, { minLength: 0, maxLength: 12 }), fc.constantFrom("\n", "\r\n"), fc.boolean())
      .map(([blocks, nl, trailing]) => `# Title\n${blocks.join(nl)}${trailing ? nl : ""}`);
    fc.assert(
      fc.property(doc, (text) => {
        const plan = value(parseMarkdownPaper(text, { source: "f.md" }));
        expect(plan.artifacts[0]?.content).toBe(text);
        for (const s of plan.artifacts.filter((a) => a.kind === "section")) {
          const m = /#chars=(\d+)-(\d+)$/.exec(s.source ?? "");
          expect(m).not.toBeNull();
          expect(text.slice(Number(m?.[1]), Number(m?.[2]))).toBe(s.content);
        }
        expect(prepareBatch(plan.artifacts).ok).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("parseReference", () => {
  it.each([
    [
      "Collin Burns and Jacob Steinhardt. 2022. Discovering latent knowledge in language models. arXiv preprint.",
      "Discovering latent knowledge in language models",
    ],
    ["Lubliner, J. Plasticity Theory. Dover Publications, Mineola, NY, 2008.", "Plasticity Theory"],
    [
      "F. Arute et al., Quantum supremacy using a programmable superconducting processor, Nature 574, 505 (2019).",
      "Quantum supremacy using a programmable superconducting processor",
    ],
    ["A. Troisi and G. Orlandi, The Journal of Physical Chemistry B 109, 1849 (2005).", null],
    [
      "I.~Armeni and S.~Savarese, ``3D Semantic Parsing of Large-Scale Indoor Spaces,'' in CVPR, 2016.",
      "3D Semantic Parsing of Large-Scale Indoor Spaces",
    ],
  ])("%s", (raw, title) => {
    expect(parseReference(raw).title).toBe(title);
  });
});

describe("parseFullTextPapers", () => {
  const unarxive = {
    paper_id: "2212.00001",
    metadata: {
      id: "2212.00001",
      title: "Zeros of\n  random polynomials",
      authors: "Ada Lovelace, Alan Turing",
      authors_parsed: [
        ["Lovelace", "Ada", ""],
        ["Turing", "Alan", ""],
      ],
      abstract: "  We study zeros. They move.",
      categories: "math.PR math.CA",
      doi: null,
      versions: [{ version: "v1", created: "Thu, 22 Dec 2022 17:01:56 GMT" }],
    },
    discipline: "Mathematics",
    abstract: { section: "Abstract", text: "We study zeros. They move." },
    body_text: [
      {
        section: "Introduction",
        sec_number: "1",
        text: "Let {{formula:f1}} be a measure. Pemantle and Rivin {{cite:b1}} conjectured this. Kabluchko {{cite:b2}} proved it.",
        cite_spans: [
          { start: 53, end: 65, text: "{{cite:b1}}", ref_id: "b1" },
          { start: 94, end: 105, text: "{{cite:b2}}", ref_id: "b2" },
        ],
      },
      { section: "Introduction", sec_number: "1", text: "More on {{cite:b3}} and {{cite:b4}}.", cite_spans: [] },
      { section: "Proofs", sec_number: "2", text: "Trivial.", cite_spans: [] },
    ],
    bib_entries: {
      b1: {
        bib_entry_raw:
          "R. Pemantle and I. Rivin. The distribution of zeros of the derivative of a random polynomial. 2013.",
        ids: { arxiv_id: "1109.5975", doi: "", open_alex_id: "https://openalex.org/W1" },
      },
      b2: {
        bib_entry_raw: "Z. Kabluchko. Critical points of random polynomials with i.i.d. roots. Proc. AMS, 2015.",
        ids: { arxiv_id: "", doi: "10.1090/S0002-9939-2014-12258-1", open_alex_id: "" },
      },
      b3: { bib_entry_raw: "O. Kallenberg. Foundations of modern probability. Springer, 2002.", ids: {} },
      b4: { bib_entry_raw: "???", ids: {} },
      b5: { bib_entry_raw: "Never cited. A work cited nowhere in the text. 1999.", ids: { doi: "10.1000/uncited" } },
    },
    ref_entries: { f1: { latex: "\\mu", type: "formula" } },
  };
  const s2orc = {
    paper_id: "15772371",
    metadata: {
      title: "Artificial diets for beetles",
      authors: [{ first: "Dale", middle: ["B."], last: "Gelman", suffix: "" }],
      abstract: "Beetles were reared on diets.",
      year: "2001",
      arxiv_id: null,
      doi: "10.1673/031.001.0701",
      venue: "Journal of Insect Science",
    },
    grobid_parse: {
      abstract: [{ text: "Beetles were reared on diets.", cite_spans: [], section: "Abstract" }],
      body_text: [
        {
          text: "The beetle is a pest (Hare, 1980). Diets exist (Smith, 2000).",
          cite_spans: [
            { start: 21, end: 33, text: "(Hare, 1980)", ref_id: "BIBREF0" },
            { start: 47, end: 60, text: "(Smith, 2000)", ref_id: "BIBREF1" },
            { start: 0, end: 3, text: "(15)", ref_id: null },
          ],
          section: null,
        },
      ],
      bib_entries: {
        BIBREF0: {
          title: "Ecology of the beetle",
          authors: [],
          year: 1980,
          venue: "Pests",
          other_ids: {},
          links: "123",
        },
        BIBREF1: {
          title: "Diets",
          authors: [],
          year: 2000,
          venue: "",
          other_ids: { DOI: ["10.1000/Diets"] },
          links: null,
        },
      },
    },
    latex_parse: null,
  };

  it("maps unarXive papers to paper and section chunks with cites and citation contexts", () => {
    const r = value(parseFullTextPapers(JSON.stringify(unarxive), { source: "sample.jsonl" }));
    expectIngestable(r);
    const paper = byId(r, "arxiv:2212.00001");
    expect(paper.title).toBe("Zeros of random polynomials");
    expect(paper.content).toBe("We study zeros. They move.");
    expect(paper.valid_from).toBe(Date.parse("2022-12-22T17:01:56Z"));
    expect(paper.boundaries).toEqual(expect.arrayContaining(["year:2022", "discipline:Mathematics", "arxiv:math.PR"]));
    expect(paper.entities?.map((e) => e.id)).toEqual(
      expect.arrayContaining(["arxiv:2212.00001", "person:ada-lovelace", "doi:10.1000/uncited"]),
    );
    // b5 is cited nowhere in the body: the paper cites it.
    expect(edgesOf(paper, "cites")).toEqual(["doi:10.1000/uncited"]);
    const intro = byId(r, "arxiv:2212.00001#s1-1-introduction");
    expect(intro.valid_from).toBe(paper.valid_from);
    expect(edgesOf(intro, "part-of")).toEqual(["arxiv:2212.00001"]);
    expect(edgesOf(intro, "cites")).toEqual([
      "arxiv:1109.5975",
      "doi:10.1090/s0002-9939-2014-12258-1",
      "paper:foundations-of-modern-probability",
    ]);
    const pemantle = intro.entities?.find((e) => e.id === "arxiv:1109.5975");
    expect(pemantle?.aliases).toContain("openalex:W1");
    expect(intro.content).toContain("Let $\\mu$ be a measure. Pemantle and Rivin [1] conjectured this.");
    expect(intro.content).toContain("Cited in this section:\n[1] R. Pemantle and I. Rivin.");
    expect(r.citationContexts).toEqual(
      expect.arrayContaining([
        {
          src: "arxiv:2212.00001#s1-1-introduction",
          dst: "arxiv:1109.5975",
          sentence: "Pemantle and Rivin [1] conjectured this.",
        },
        {
          src: "arxiv:2212.00001#s1-1-introduction",
          dst: "doi:10.1090/s0002-9939-2014-12258-1",
          sentence: "Kabluchko [2] proved it.",
        },
      ]),
    );
    expect(byId(r, "arxiv:2212.00001#s2-2-proofs").content).toBe("Trivial.");
    expect(r.skipped).toEqual([expect.objectContaining({ ref: "arxiv:2212.00001#bib:b4" })]);
  });

  it("maps S2ORC papers (grobid_parse) with bib_entries ids and corpus ids as aliases", () => {
    const r = value(parseFullTextPapers(JSON.stringify(s2orc)));
    expectIngestable(r);
    const paper = byId(r, "doi:10.1673/031.001.0701");
    expect(paper.valid_from).toBe(Date.UTC(2001, 0, 1)); // the year, as of 1 January
    expect(paper.boundaries).toContain("year:2001");
    expect(paper.entities?.[0]?.aliases).toContain("CorpusId:15772371");
    expect(paper.entities?.map((e) => e.id)).toContain("venue:journal-of-insect-science");
    const body = byId(r, "doi:10.1673/031.001.0701#s1-body");
    expect(edgesOf(body, "cites")).toEqual(["paper:ecology-of-the-beetle", "doi:10.1000/diets"]);
    expect(body.entities?.find((e) => e.id === "paper:ecology-of-the-beetle")?.aliases).toContain("CorpusId:123");
    expect(r.citationContexts.map((c) => c.sentence)).toEqual([
      "The beetle is a pest (Hare, 1980).",
      "Diets exist (Smith, 2000).",
    ]);
  });

  it("accepts arrays and JSONL, skipping bad lines and duplicate papers", () => {
    const jsonl = [
      JSON.stringify(unarxive),
      "{not json",
      JSON.stringify(s2orc),
      JSON.stringify(unarxive),
      '{"x": 1}',
    ].join("\n");
    const r = value(parseFullTextPapers(jsonl));
    const records = (x: typeof r) => x.artifacts.filter((a) => a.kind === "paper" && !a.placeholder);
    expect(records(r).map((a) => a.id)).toEqual(["arxiv:2212.00001", "doi:10.1673/031.001.0701"]);
    expect(r.skipped.map((s) => s.ref)).toEqual(
      expect.arrayContaining(["fulltext#line 2", "fulltext#line 4", "fulltext#line 5"]),
    );
    const arr = value(parseFullTextPapers(JSON.stringify([unarxive, s2orc])));
    expect(records(arr)).toHaveLength(2);
  });

  it("makes every cited work a paper chunk of its own, created only when absent, a record winning", () => {
    const r = value(parseFullTextPapers(JSON.stringify(unarxive), { source: "sample.jsonl" }));
    const intro = byId(r, "arxiv:2212.00001#s1-1-introduction");
    const stubs = r.artifacts.filter((a) => a.placeholder);
    // Every cites target of the sections and of the paper has a chunk: the works are retrievable heads.
    const targets = r.artifacts.flatMap((a) => edgesOf(a, "cites"));
    expect(new Set(stubs.map((a) => a.id))).toEqual(new Set(targets));
    const pemantle = byId(r, "arxiv:1109.5975");
    expect(pemantle).toMatchObject({ kind: "paper", placeholder: true, valid_from: 0, boundaries: ["reference-only"] });
    expect(pemantle.content).toMatch(/^R\. Pemantle and I\. Rivin\./);
    expect(pemantle.source).toBe("sample.jsonl#arxiv:2212.00001");
    expect(pemantle.entities?.[0]?.aliases).toContain("openalex:W1");
    expect(edgesOf(intro, "cites")).toContain(pemantle.id);
    // A second file citing a paper the first one holds as a record: the record stays, no stand-in.
    const citing = {
      ...unarxive,
      paper_id: "2212.99999",
      metadata: { ...unarxive.metadata, title: "A reply" },
      bib_entries: { r1: { bib_entry_raw: "A. Lovelace. Zeros of random polynomials. arXiv:2212.00001" } },
      body_text: [{ section: "Intro", text: "As shown {{cite:r1}}.", cite_spans: [] }],
    };
    const both = value(parseFullTextPapers(JSON.stringify([citing, unarxive])));
    const held = both.artifacts.filter((a) => a.id === "arxiv:2212.00001");
    expect(held).toHaveLength(1);
    expect(held[0]?.placeholder).toBeUndefined();
  });

  it("fails on non-JSON or records that are not papers", () => {
    const notJson = parseFullTextPapers('{"paper_id": "1",\n "metadata": ');
    expect(notJson.ok).toBe(false);
    if (!notJson.ok) {
      expect(notJson.error.field).toBe("text");
      expect(notJson.error.message).toMatch(/not JSON/);
    }
    const wrong = parseFullTextPapers('{"hello": "world"}');
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) {
      expect(wrong.error.field).toBe("metadata.title");
      expect(wrong.error.hint).toMatch(/unarXive or S2ORC/);
    }
  });
});

describe("parseXkg", () => {
  const xkg = {
    paper_title: "Discovering Latent Knowledge in Language Models Without Supervision",
    paper_abstract: "Existing techniques can be misaligned with the truth. We propose CCS.",
    arxiv_id: "2212.03827",
    paper_references: ["A general language assistant as a laboratory for alignment", "arXiv:2112.00861"],
    findings: ["CCS outperforms zero-shot prompting."],
    techniques: [
      {
        name: "Contrast-Consistent Search (CCS)",
        type: "Methodology",
        description: "An unsupervised procedure for extracting latent knowledge.",
        code: {
          implementation: "import torch\n\ndef ccs_loss(p, q):\n    return ((p - (1 - q)) ** 2).mean()\n",
          test: 'if __name__ == "__main__":\n    print(ccs_loss(0.2, 0.8))\n',
          documentation: "This module implements the CCS loss. It takes two probabilities.",
          package: ["torch", "numpy>=1.24"],
        },
        components: [
          {
            name: "Construction of Contrast Pairs",
            description: "Format each question with yes and no.",
            code: { implementation: "def pairs(q):\n    return (q + ' Yes', q + ' No')\n", package: ["transformers"] },
            components: [],
          },
          { name: "Feature Normalization", description: "Mean-normalise hidden states.", components: [] },
          { description: "no name" },
        ],
      },
      { name: "Truthfulness finding", type: "Finding", description: "Models know more than they say." },
    ],
  };

  it("maps paper, technique and code nodes with part-of, implements, tests and depends-on", () => {
    const plan = value(parseXkg(JSON.stringify(xkg), { source: "kg/ccs.json" }));
    expectIngestable(plan);
    const pid = "arxiv:2212.03827";
    const paper = byId(plan, pid);
    expect(paper.content).toBe(`${xkg.paper_title}\n\n${xkg.paper_abstract}`);
    const finding = byId(plan, `${pid}#finding-1`);
    expect(finding).toMatchObject({ kind: "note", content: "CCS outperforms zero-shot prompting." });
    expect(edgesOf(finding, "part-of")).toEqual([pid]);
    expect(edgesOf(paper, "cites")).toEqual([
      "paper:a-general-language-assistant-as-a-laboratory-for-alignment",
      "arxiv:2112.00861",
    ]);
    const ccs = byId(plan, `${pid}#t:contrast-consistent-search-ccs`);
    expect(ccs.kind).toBe("technique");
    expect(ccs.entities?.[0]).toEqual({
      type: "method",
      id: "method:contrast-consistent-search-ccs",
      name: "Contrast-Consistent Search (CCS)",
    });
    expect(edgesOf(ccs, "part-of")).toEqual([pid]);
    const sub = byId(plan, `${pid}#t:contrast-consistent-search-ccs/construction-of-contrast-pairs`);
    expect(edgesOf(sub, "part-of")).toEqual([pid, ccs.id]);
    const impl = byId(plan, `${ccs.id}#code`);
    expect(impl.kind).toBe("code_unit");
    expect(impl.content).toBe(
      `${xkg.techniques[0]?.code?.implementation}\n\n# Documentation\n${xkg.techniques[0]?.code?.documentation}`,
    );
    expect(impl.synopsis).toBe("This module implements the CCS loss. It takes two probabilities.");
    expect(edgesOf(impl, "implements")).toEqual([ccs.id]);
    expect(edgesOf(impl, "depends-on")).toEqual([`${sub.id}#code`]);
    expect(impl.boundaries).toEqual(expect.arrayContaining(["package:torch", "package:numpy"]));
    const test = byId(plan, `${ccs.id}#test`);
    expect(edgesOf(test, "tests")).toEqual([impl.id]);
    expect(byId(plan, `${pid}#t:truthfulness-finding`).kind).toBe("note");
    expect(plan.skipped).toEqual([expect.objectContaining({ reason: "technique without a name" })]);
  });

  it("accepts lenient field names, arrays and {papers: [...]}", () => {
    const lenient = {
      papers: [
        {
          title: "A Paper",
          abstract: "About things.",
          techniques: [
            { name: "Thing", definition: "Does things.", code_node: { source: "x = 1", tests: "assert x == 1" } },
          ],
        },
      ],
    };
    const plan = value(parseXkg(JSON.stringify(lenient)));
    expectIngestable(plan);
    expect(plan.artifacts.map((a) => a.id)).toEqual([
      "paper:a-paper",
      "paper:a-paper#t:thing",
      "paper:a-paper#t:thing#code",
      "paper:a-paper#t:thing#test",
    ]);
    expect(byId(plan, "paper:a-paper#t:thing").content).toBe("Thing\n\nDoes things.");
  });

  it("fails on JSON that is not an xKG paper", () => {
    for (const text of ["[1, 2]", '{"nodes_only": true}', "not json at all"]) {
      const r = parseXkg(text);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.hint).toBeTruthy();
    }
  });
});

describe("import limits are checked before records are built", () => {
  it("refuses an xkg file over the record limit without building its 20,000 records", () => {
    const doc = JSON.stringify({
      paper_title: "Big paper",
      paper_abstract: "An abstract.",
      techniques: Array.from({ length: 10_000 }, (_, i) => ({
        name: `Technique ${i}`,
        description: `Does thing ${i} with care.`,
        code: { implementation: `def f${i}():\n  return ${i}\n` },
      })),
    });
    const time = (f: () => unknown) => {
      const t0 = cpuNow();
      f();
      return cpuNow() - t0;
    };
    let limited: Result<ImportPlan> | null = null;
    const refuse = time(() => {
      limited = parseXkg(doc, { maxRecords: 2000 });
    });
    const r = limited as unknown as Result<ImportPlan>;
    expect(r.ok ? "ok" : r.error.kind).toBe("too_large");
    expect(r.ok ? "" : r.error.message).toContain("10001 paper and technique nodes");
    const build = time(() => parseXkg(doc));
    // Counting nodes is a small fraction of building the records (measured: 8 ms vs 219 ms).
    expect(refuse).toBeLessThan(build / 3);
  });
});
