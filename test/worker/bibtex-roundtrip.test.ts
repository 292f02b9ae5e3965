/**
 * A realistic .bib goes in through the file import and comes back out of the BibTeX export field
 * for field: the user's citation keys, every field (pages, volume, number, publisher, ...), brace
 * protection, @string macros, and no field the user did not write.
 */

import { type Entry, parse } from "@retorquere/bibtex-parser";
import { describe, expect, it } from "vitest";
import { newArchive } from "./helpers";
import { WORKER } from "./worker";

const BIB = String.raw`@string{acl = {Association for Computational Linguistics}}

@inproceedings{devlin2019bert,
  title = {{BERT}: Pre-training of Deep Bidirectional Transformers for Language Understanding},
  author = {Devlin, Jacob and Chang, Ming-Wei and Lee, Kenton and Toutanova, Kristina},
  booktitle = {Proceedings of NAACL-HLT},
  pages = {4171--4186},
  year = {2019},
  month = jun,
  publisher = acl,
  doi = {10.18653/v1/N19-1423}
}

@article{lewis2020rag,
  title = {Retrieval-Augmented Generation for Knowledge-Intensive {NLP} Tasks},
  author = {Lewis, Patrick and Perez, Ethan and Piktus, Aleksandra and K{\"u}ttler, Heinrich},
  journal = {Advances in Neural Information Processing Systems},
  volume = {33},
  number = {1},
  pages = {9459--9474},
  year = {2020},
  eprint = {2005.11401},
  archivePrefix = {arXiv}
}

@misc{gutierrez2024hipporag,
  title = {{HippoRAG}: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  author = {Guti{\'e}rrez, Bernal Jim{\'e}nez and Shu, Yiheng and Gu, Yu and Yasunaga, Michihiro and Su, Yu},
  year = {2024},
  eprint = {2405.14831},
  archivePrefix = {arXiv},
  primaryClass = {cs.CL},
  keywords = {memory, retrieval}
}

@phdthesis{smith2021thesis,
  title = {Memory Systems for {LLM} Agents},
  author = {Smith, Jane},
  school = {Example University},
  year = {2021},
  address = {Springfield}
}
`;

/** Entries by key: type and the fields as written (raw values, before any decoding). */
function fields(text: string): Map<string, { type: string; input: string }> {
  const lib = parse(text, { sentenceCase: false, unsupported: "ignore", raw: true });
  expect(lib.errors).toEqual([]);
  return new Map(lib.entries.map((e: Entry) => [e.key, { type: e.type, input: e.input.trim() }]));
}

describe("BibTeX round trip", () => {
  it("re-exports an imported .bib field for field under the user's keys", async () => {
    const { id, key } = await newArchive("bibrt");
    const imp = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/import?format=bibtex&name=refs.bib`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
      body: BIB,
    });
    expect(imp.status, await imp.clone().text()).toBe(200);
    const out = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/export?format=bibtex`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(out.status).toBe(200);
    const text = await out.text();
    const before = fields(BIB);
    const after = fields(text);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [k, e] of before) expect(after.get(k), k).toEqual(e);
    expect(text).toContain("title = {{BERT}: Pre-training");
    expect(text).toContain("pages = {9459--9474}");
    expect(text).not.toMatch(/^\s*note\s*=/im);
    // The macro the entries use is defined in the export, so the file stands on its own.
    expect(text).toContain("@string{acl = {Association for Computational Linguistics}}");
    const decoded = parse(text, { sentenceCase: false, unsupported: "ignore" });
    const bert = decoded.entries.find((e) => e.key === "devlin2019bert");
    expect(bert?.fields.publisher).toEqual(["Association for Computational Linguistics"]);
  });
});
