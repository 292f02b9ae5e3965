/**
 * Clean cards end to end: a .bib import, a Markdown note with headings, a one-sentence note with
 * abbreviations and a raw BibTeX note go in; /context's cards quote prose only, and every anchor
 * re-verifies with POST /verify against the stored version.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

interface Anchor {
  artifact_id: string;
  version: number;
  start: number;
  end: number;
  snippet: string;
}
interface Card {
  artifact_id: string;
  claim_boundary: string;
  logic_sketch: string;
  anchored_spans: Anchor[];
}

const BIB = `@article{guu2020realm,
  title = {{REALM}: Retrieval-Augmented Language Model Pre-Training},
  author = {Guu, Kelvin and Lee, Kenton and Tung, Zora},
  journal = {International Conference on Machine Learning},
  year = {2020},
  abstract = {Language model pre-training captures a surprising amount of world knowledge. We augment language model pre-training with a latent knowledge retriever over a large corpus such as Wikipedia.}
}`;

const RAW = `@misc{memo2021,
  title = {Memory graphs for research agents},
  note = {A retriever over a memory graph returns evidence cards with anchors.},
  year = {2021}
}`;

const NOTES = [
  {
    id: "note:md",
    kind: "note",
    title: "Retriever notes",
    content:
      "# Knowledge retriever\n\n## Training the retriever\n\nThe knowledge retriever is trained with masked language modelling signals.\n\nIt retrieves documents from Wikipedia at every step.",
  },
  {
    id: "note:one",
    kind: "note",
    title: "Abbey",
    content: "Brother William of Baskerville, O.F.M. and the U.S. retriever team met J. R. R. Tolkien at the abbey.",
  },
  { id: "note:raw", kind: "note", title: "Raw entry", content: RAW },
];

describe("clean cards over REST", () => {
  it("quotes prose only, and every anchor verifies", async () => {
    const { id, key } = await newArchive("clean");
    const imp = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/import?format=bibtex&name=refs.bib`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
      body: BIB,
    });
    expect(imp.status, await imp.clone().text()).toBe(200);
    const ing = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: NOTES }, key);
    expect(ing.status).toBe(200);

    const r = await api(
      "POST",
      `/v1/archives/${id}/context`,
      // Every note's card (the test is about what a card quotes, not which cards clear the floors).
      {
        query: "knowledge retriever language model pre-training Wikipedia memory graph abbey",
        budget_tokens: 4000,
        min_relevance: 0,
      },
      key,
    );
    expect(r.status).toBe(200);
    const cards = r.body.cards as Card[];
    const byId = new Map(cards.map((c) => [c.artifact_id, c]));
    expect([...byId.keys()]).toEqual(expect.arrayContaining(["note:md", "note:one", "note:raw"]));
    const paper = cards.find(
      (c) => c.artifact_id !== "note:md" && c.artifact_id !== "note:one" && c.artifact_id !== "note:raw",
    );
    expect(paper).toBeDefined();

    for (const c of cards) {
      for (const text of [c.claim_boundary, c.logic_sketch, ...c.anchored_spans.map((a) => a.snippet)]) {
        expect(text).not.toMatch(/^#|\n#|@article|@misc|BibTeX:|Authors:|Abstract:|\w+ = \{/);
      }
    }
    // The paper's claim comes from its abstract; the raw entry's from its note field.
    expect(paper?.claim_boundary).toMatch(/^(Language model pre-training|We augment language model)/);
    expect(byId.get("note:raw")?.claim_boundary).toBe(
      "A retriever over a memory graph returns evidence cards with anchors.",
    );
    // One sentence, abbreviations and initials included: one anchor, the sentence whole.
    expect(byId.get("note:one")?.anchored_spans.map((a) => a.snippet)).toEqual([NOTES[1]?.content]);

    const anchors = cards.flatMap((c) => c.anchored_spans);
    const v = await api("POST", `/v1/archives/${id}/verify`, { anchors }, key);
    expect(v.status).toBe(200);
    expect(v.body.all_verified).toBe(true);
  });
});
