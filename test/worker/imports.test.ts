import { parse } from "@retorquere/bibtex-parser";
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";
import { history, versionAt } from "./world";

async function importFile(archive: string, key: string, format: string, body: string, name = `f.${format}`) {
  const res = await WORKER.fetch(
    `http://paperguru.test/v1/archives/${archive}/import?format=${format}&name=${encodeURIComponent(name)}`,
    { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" }, body },
  );
  // biome-ignore lint/suspicious/noExplicitAny: structural checks
  return { status: res.status, body: (await res.json()) as any };
}

const BIB = `
@article{lewis2020rag,
  title = {Retrieval-Augmented Generation for Knowledge-Intensive {NLP} Tasks},
  author = {Lewis, Patrick and Perez, Ethan and Piktus, Aleksandra},
  journal = {Advances in Neural Information Processing Systems},
  year = {2020},
  eprint = {2005.11401},
  archivePrefix = {arXiv},
  abstract = {Large pre-trained language models store factual knowledge in their parameters. We explore retrieval-augmented generation.}
}
@inproceedings{gutierrez2024hipporag,
  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  author = {Guti{\\'e}rrez, Bernal Jim{\\'e}nez and Su, Yu},
  booktitle = {NeurIPS},
  year = {2024},
  doi = {10.5555/hipporag.2024}
}
`;

const MD = `# Memory for Agents: A Short Study

We compare memories for long-horizon agents.

## Method

We route over heads first and expand contents last, as HippoRAG does with PageRank.

## Results

Recall@5 rises from 72.0 to 75.5 with longer synopses.

## References

1. Lewis, P. et al. (2020). Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks. NeurIPS.
2. Gutiérrez, B. J. et al. HippoRAG. doi:10.5555/hipporag.2024
`;

describe("file imports", () => {
  it("BibTeX: first import, unchanged re-import, changed re-import; malformed input stores nothing", async () => {
    const { id, key } = await newArchive("imp");
    const bad = await importFile(id, key, "bibtex", "@article{oops, title = {unclosed");
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBeTruthy();
    expect(bad.body.error.hint).toBeTruthy();
    expect((await api("GET", `/v1/archives/${id}/ingest-log`, undefined, key)).body.entries).toEqual([]);

    const first = await importFile(id, key, "bibtex", BIB);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.counts).toMatchObject({ created: 2, failed: 0 });
    expect((await history(id, key, "arxiv:2005.11401")).status).toBe(200);
    expect((await history(id, key, "doi:10.5555/hipporag.2024")).status).toBe(200);
    // The citation key resolves to the paper.
    const r = await api("GET", `/v1/archives/${id}/resolve?mention=lewis2020rag`, undefined, key);
    expect(r.body.resolved?.entity).toBe("arxiv:2005.11401");

    const again = await importFile(id, key, "bibtex", BIB);
    expect(again.body.counts).toMatchObject({ created: 0, updated: 0, unchanged: 2 });

    const changed = await importFile(
      id,
      key,
      "bibtex",
      BIB.replace("We explore retrieval-augmented generation.", "We fine-tune retrieval and generation jointly."),
    );
    expect(changed.body.counts).toMatchObject({ updated: 1, unchanged: 1 });
    expect((await history(id, key, "arxiv:2005.11401")).body.versions).toHaveLength(2);
  });

  it("refuses an import over 2,000 records with a 413 that says how to split it, storing nothing", async () => {
    const { id, key } = await newArchive("imp");
    const big = Array.from({ length: 2001 }, (_, i) => `@misc{k${i}, title = {Work number ${i}}}`).join("\n");
    const res = await importFile(id, key, "bibtex", big);
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ type: "too_large", field: "body" });
    expect(res.body.error.hint).toMatch(/paperguru import/);
    expect((await api("GET", `/v1/archives/${id}`, undefined, key)).body.stats.storage).toMatchObject({ chunks: 0 });
  });

  it("refuses an xKG file whose paper node is over one stored value (D1's 2 MB row) with a 413, storing nothing", async () => {
    const { id, key } = await newArchive("imp");
    // 50,000 references kept as written in the paper's xkg attribute: 2.4 MB of JSON. This was a
    // 500 (SQLITE_TOOBIG) after the chunks were stored.
    const paper = {
      paper_title: "Discovering Latent Knowledge in Language Models Without Supervision",
      arxiv_id: "2212.03827",
      paper_references: Array.from({ length: 50_000 }, (_, i) => `A study of latent representations number ${i}`),
      techniques: [
        { name: "CCS", description: "Contrast-consistent search.", code: { implementation: "def ccs(): pass" } },
      ],
    };
    const res = await importFile(id, key, "xkg", JSON.stringify(paper));
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ type: "too_large", field: "body" });
    expect(res.body.error.message).toMatch(
      /the xkg annotation this xkg file gives arxiv:2212\.03827 holds [\d,]+ bytes/,
    );
    expect((await api("GET", `/v1/archives/${id}`, undefined, key)).body.stats.storage).toMatchObject({ chunks: 0 });
    // 10,000 references (0.5 MB) still import.
    paper.paper_references = paper.paper_references.slice(0, 10_000);
    expect((await importFile(id, key, "xkg", JSON.stringify(paper))).status).toBe(200);
  });

  it("refuses a BibTeX macro bomb with a 413 naming the macro, storing nothing; macros in a normal file still expand", async () => {
    const { id, key } = await newArchive("imp");
    // 590 bytes: a_i = a_(i-1) # a_(i-1), 23 times; a23 would be 16,777,216 characters.
    const lines = ['@string{a0 = "xx"}'];
    for (let i = 1; i <= 23; i++) lines.push(`@string{a${i} = a${i - 1} # a${i - 1}}`);
    const bomb = `${lines.join("\n")}\n@misc{bomb, title = a23}\n`;
    expect(bomb.length).toBeLessThan(600);
    const res = await importFile(id, key, "bibtex", bomb);
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ type: "too_large", field: "text" });
    expect(res.body.error.message).toMatch(
      /^@string a16 expands to 131,072 characters; one BibTeX value may expand to at most 100,000/,
    );
    expect(res.body.error.hint).toMatch(/macro/);
    expect((await api("GET", `/v1/archives/${id}`, undefined, key)).body.stats.storage).toMatchObject({ chunks: 0 });
    expect((await api("GET", `/v1/archives/${id}/ingest-log`, undefined, key)).body.entries).toEqual([]);

    const macros = `@string{nips = "Advances in Neural Information Processing Systems"}
@string{ms = "Microsoft" # " Research"}
${BIB.replace("journal = {Advances in Neural Information Processing Systems}", "journal = nips,\n  note = ms # { Asia}")}`;
    const ok = await importFile(id, key, "bibtex", macros);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.counts).toMatchObject({ created: 2, failed: 0 });
    // The export gives each entry back with the @string lines it uses; decoded, the macros expand.
    const out = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/export?format=bibtex`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const text = await out.text();
    expect(text).toContain("@string{nips = {Advances in Neural Information Processing Systems}}");
    expect(text).toContain("@string{ms = {Microsoft Research}}");
    const rag = parse(text, { sentenceCase: false, unsupported: "ignore" }).entries.find(
      (e) => e.key === "lewis2020rag",
    );
    expect(rag?.fields.journal).toBe("Advances in Neural Information Processing Systems");
    expect(rag?.fields.note).toBe("Microsoft Research Asia");
  });

  it("Markdown: exact section spans, references resolved to existing papers by DOI and by title", async () => {
    const { id, key } = await newArchive("imp");
    expect((await importFile(id, key, "bibtex", BIB)).status).toBe(200);
    const res = await importFile(id, key, "markdown", MD, "study.md");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const paperId = res.body.items.find((i: { id: string }) => i.id.startsWith("paper:"))?.id as string;
    expect(paperId).toBeTruthy();
    const paper = await history(id, key, paperId);
    const sections = paper.body.edges.filter(
      (e: { type: string; dst: string }) => e.type === "part-of" && e.dst === paperId,
    );
    expect(sections.length).toBeGreaterThanOrEqual(3);
    for (const e of sections) {
      const h = await history(id, key, e.src);
      const m = /#chars=(\d+)-(\d+)$/.exec(h.body.versions[0].source);
      expect(m).not.toBeNull();
      const card = await api(
        "POST",
        `/v1/archives/${id}/expand`,
        { chunks: [{ id: e.src }], budget_tokens: 2000 },
        key,
      );
      const anchor = card.body.cards[0].anchored_spans[0];
      expect(MD.slice(Number(m?.[1]), Number(m?.[2]))).toContain(anchor.snippet);
    }
    // Unchanged re-import: nothing new; an edited section: one new version, of that section only.
    expect((await importFile(id, key, "markdown", MD, "study.md")).body.counts).toMatchObject({
      created: 0,
      updated: 0,
    });
    const edited = await importFile(
      id,
      key,
      "markdown",
      MD.replace("rises from 72.0 to 75.5", "rises from 72.0 to 76.0"),
      "study.md",
    );
    expect(edited.body.counts).toMatchObject({ created: 0, updated: 2 }); // the paper (whole text) and the Results section
    const cites = paper.body.edges
      .filter((e: { type: string; src: string }) => e.type === "cites" && e.src === paperId)
      .map((e: { dst: string }) => e.dst);
    // By title (no id in the reference) and by DOI, onto the chunks the BibTeX import created.
    expect(cites).toContain("arxiv:2005.11401");
    expect(cites).toContain("doi:10.5555/hipporag.2024");
  });

  it("deduplicates across sources by DOI/arXiv id, then title; the richer record wins; merges are in entity history", async () => {
    const { id, key } = await newArchive("imp");
    await importFile(id, key, "bibtex", BIB);
    // The same HippoRAG work from another source: arXiv id plus the DOI, a longer abstract.
    const feed = {
      artifacts: [
        {
          id: "arxiv:2405.14831",
          kind: "paper",
          title: "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",
          content:
            "HippoRAG: Neurobiologically Inspired Long-Term Memory. In order to thrive in hostile environments, mammalian brains store knowledge. We introduce HippoRAG, a retrieval framework inspired by hippocampal indexing theory. It outperforms state-of-the-art methods by up to 20% on multi-hop QA. HippoRAG synergistically orchestrates LLMs, knowledge graphs and the Personalized PageRank algorithm to mimic the different roles of neocortex and hippocampus in human memory. Single-step retrieval with HippoRAG matches iterative retrieval like IRCoT while being 10-30 times cheaper and 6-13 times faster.",
          entities: [
            { type: "paper", id: "arxiv:2405.14831", name: "HippoRAG", aliases: ["doi:10.5555/hipporag.2024"] },
          ],
          source: "https://arxiv.org/abs/2405.14831v1",
        },
      ],
    };
    const merged = await importFile(id, key, "json", JSON.stringify(feed));
    expect(merged.body.merges).toEqual([
      expect.objectContaining({ from: "arxiv:2405.14831", into: "doi:10.5555/hipporag.2024", kept: "incoming" }),
    ]);
    const h = await history(id, key, "doi:10.5555/hipporag.2024");
    expect(h.body.versions).toHaveLength(2);
    expect((await history(id, key, "arxiv:2405.14831")).status).toBe(404);
    const ent = await api(
      "GET",
      `/v1/archives/${id}/history?entity=${encodeURIComponent("doi:10.5555/hipporag.2024")}`,
      undefined,
      key,
    );
    expect(ent.body.events.some((e: { op: string }) => e.op === "deduplicated")).toBe(true);

    // A poorer record with only the title: merged into the existing chunk, which is kept.
    const poor = `@misc{hr, title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models}, year = {2024}}`;
    const p = await importFile(id, key, "bibtex", poor);
    expect(p.body.merges).toEqual([expect.objectContaining({ matched_by: "title", kept: "existing" })]);
    expect((await history(id, key, "doi:10.5555/hipporag.2024")).body.versions).toHaveLength(2);
    // Re-importing it records nothing new.
    const p2 = await importFile(id, key, "bibtex", poor);
    expect(p2.body.merges).toEqual([]);
    expect(p2.body.counts).toMatchObject({ created: 0, updated: 0 });

    // Each record keeps updating the work it merged into: unchanged -> nothing (no revert to an older
    // record), changed -> a new version, whichever record is richer.
    expect((await importFile(id, key, "json", JSON.stringify(feed))).body.counts).toMatchObject({
      created: 0,
      updated: 0,
    });
    const bib2 = BIB.replace("doi = {10.5555/hipporag.2024}", "doi = {10.5555/hipporag.2024},\n  note = {Spotlight}");
    expect((await importFile(id, key, "bibtex", bib2)).body.counts).toMatchObject({ created: 0, updated: 1 });
    expect((await importFile(id, key, "json", JSON.stringify(feed))).body.counts).toMatchObject({ updated: 0 });
    const v2 = structuredClone(feed);
    const art = v2.artifacts[0] as { content: string; source: string };
    art.content += " Version 2 adds a study of path-finding questions.";
    art.source = "https://arxiv.org/abs/2405.14831v2";
    expect((await importFile(id, key, "json", JSON.stringify(v2))).body.counts).toMatchObject({ updated: 1 });
    const sources = (await history(id, key, "doi:10.5555/hipporag.2024")).body.versions.map(
      (v: { source: string }) => v.source,
    );
    expect(sources).toEqual([
      "f.bibtex#gutierrez2024hipporag",
      "https://arxiv.org/abs/2405.14831v1",
      "f.bibtex#gutierrez2024hipporag",
      "https://arxiv.org/abs/2405.14831v2",
    ]);
  });

  it("an undated BibTeX entry is counted under no year, not the year it was imported", async () => {
    const { id, key } = await newArchive("imp");
    const bib = `@inproceedings{hale2021owls, title = {Owls of the Kestrel Tower: A Field Study of Roosting}, author = {Hale, Mara and Osei, Kofi}, booktitle = {NeurIPS}, year = {2021}}
@misc{undated, title = {A Note on Rye Bakeries of the North}, author = {Lind, Ada}}`;
    expect((await importFile(id, key, "bibtex", bib)).status).toBe(200);
    const all = await api("GET", `/v1/archives/${id}/stats`, undefined, key);
    expect(all.body.papers).toBe(2);
    expect(all.body.years).toEqual([{ year: 2021, count: 1 }]);
    // Re-importing the same file changes nothing.
    expect((await importFile(id, key, "bibtex", bib)).body.counts).toMatchObject({ created: 0, updated: 0 });
  });

  it("one entity per work: a DOI cited alone merges into the paper entity that carries it as an alias", async () => {
    const { id, key } = await newArchive("imp");
    const note = { id: "note:n1", kind: "note", title: "Reading list", content: "Read doi:10.1234/abc.5 next week." };
    await importFile(id, key, "json", JSON.stringify({ artifacts: [note] }));
    const resolve = async (m: string) =>
      (await api("GET", `/v1/archives/${id}/resolve?mention=${encodeURIComponent(m)}`, undefined, key)).body.resolved
        ?.entity;
    expect(await resolve("doi:10.1234/abc.5")).toBe("doi:10.1234/abc.5");
    const bib = `@article{k, title = {A Study}, doi = {10.1234/abc.5}, eprint = {2401.00001}, archivePrefix = {arXiv}}`;
    const res = await importFile(id, key, "bibtex", bib);
    expect(res.body.merges).toEqual([expect.objectContaining({ from: "doi:10.1234/abc.5", into: "arxiv:2401.00001" })]);
    expect(await resolve("doi:10.1234/abc.5")).toBe("arxiv:2401.00001");
    expect(await resolve("https://doi.org/10.1234/ABC.5")).toBe("arxiv:2401.00001");
    // Later text that cites the DOI grounds to the same entity.
    const later = { id: "note:n2", kind: "note", title: "Notes", content: "As shown in doi:10.1234/abc.5, it works." };
    expect((await importFile(id, key, "json", JSON.stringify({ artifacts: [later] }))).body.merges).toEqual([]);
    expect(await resolve("doi:10.1234/abc.5")).toBe("arxiv:2401.00001");
  });

  it("full-text JSON (unarXive shape): sections, cites edges with the citing sentence as context", async () => {
    const { id, key } = await newArchive("imp");
    const paper = {
      paper_id: "2212.00001",
      metadata: {
        title: "Graph Memory for Question Answering",
        abstract: "We build a graph memory for multi-hop question answering.",
        authors: "A. Author, B. Author",
        versions: [{ version: "v1", created: "Thu, 1 Dec 2022 10:00:00 GMT" }],
      },
      abstract: { text: "We build a graph memory for multi-hop question answering." },
      body_text: [
        {
          section: "Introduction",
          text: "Retrieval helps language models {{cite:aa11}}. Graphs help more.",
          cite_spans: [],
        },
        { section: "Method", text: "We run personalised PageRank as in prior work {{cite:bb22}}.", cite_spans: [] },
      ],
      bib_entries: {
        aa11: {
          bib_entry_raw: "P. Lewis et al. Retrieval-Augmented Generation. arXiv:2005.11401",
          ids: { arxiv_id: "2005.11401", doi: "", open_alex_id: "" },
        },
        bb22: {
          bib_entry_raw: "B. Gutierrez et al. HippoRAG. 2024",
          ids: { arxiv_id: "2405.14831", doi: "10.5555/hipporag.2024", open_alex_id: "" },
        },
      },
    };
    const res = await importFile(id, key, "fulltext", JSON.stringify(paper));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.counts.created).toBeGreaterThanOrEqual(3);
    const h = await history(id, key, "arxiv:2212.00001");
    const sectionIds = h.body.edges
      .filter((e: { type: string }) => e.type === "part-of")
      .map((e: { src: string }) => e.src);
    expect(sectionIds.length).toBe(2);
    const intro = await history(
      id,
      key,
      sectionIds.find((s: string) => s.includes("introduction")),
    );
    const cite = intro.body.edges.find(
      (e: { type: string; dst: string }) => e.type === "cites" && e.dst === "arxiv:2005.11401",
    );
    expect(cite?.context).toMatch(/Retrieval helps language models/);
    expect((await importFile(id, key, "fulltext", JSON.stringify(paper))).body.counts).toMatchObject({
      created: 0,
      updated: 0,
    });
    const revised = structuredClone(paper);
    (revised.body_text[1] as { text: string }).text = "We run personalised PageRank with damping 0.5 {{cite:bb22}}.";
    expect((await importFile(id, key, "fulltext", JSON.stringify(revised))).body.counts).toMatchObject({
      created: 0,
      updated: 1,
    });
    expect((await importFile(id, key, "fulltext", "{not json")).status).toBe(400);
  });

  it("full-text JSON: a cited work is a paper chunk until its own record arrives, which never conflicts", async () => {
    const { id, key } = await newArchive("imp");
    const record = (paperId: string, title: string, created: string, bib: Record<string, unknown>, text: string) => ({
      paper_id: paperId,
      metadata: { title, abstract: `${title} abstract.`, versions: [{ version: "v1", created }] },
      body_text: [{ section: "Introduction", text, cite_spans: [] }],
      bib_entries: bib,
    });
    const citing = record(
      "2212.00001",
      "Graph Memory for Question Answering",
      "Thu, 1 Dec 2022 10:00:00 GMT",
      {
        a: {
          bib_entry_raw: "B. Gutierrez et al. HippoRAG: neurobiologically inspired memory. 2024",
          ids: { arxiv_id: "2405.14831" },
        },
      },
      "Memory as a graph {{cite:a}}.",
    );
    const first = await importFile(id, key, "fulltext", JSON.stringify(citing));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const stub = await history(id, key, "arxiv:2405.14831");
    expect(stub.status).toBe(200);
    expect(stub.body.versions).toHaveLength(1);
    expect(stub.body.versions[0]).toMatchObject({ kind: "paper", boundaries: ["reference-only"] });
    expect(stub.body.versions[0].valid_from).toBe("1970-01-01T00:00:00.000Z");
    // The cited work's own record, dated before the citing paper: a later version of the same chunk.
    const own = record("2405.14831", "HippoRAG", "Thu, 23 May 2024 17:00:00 GMT", {}, "We index passages as a graph.");
    const second = await importFile(id, key, "fulltext", JSON.stringify(own));
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.counts).toMatchObject({ created: 1, updated: 1 });
    const held = await history(id, key, "arxiv:2405.14831");
    const titles = held.body.versions.map((v: { title: string }) => v.title);
    expect(titles[0]).toMatch(/^B\. Gutierrez et al\. HippoRAG/);
    expect(titles[1]).toBe("HippoRAG");
    expect(held.body.versions[1].boundaries).not.toContain("reference-only");
    // The citing file again, and a new file citing it: the record stays as it is.
    expect((await importFile(id, key, "fulltext", JSON.stringify(citing))).body.counts).toMatchObject({
      created: 0,
      updated: 0,
    });
    const later = record(
      "2301.00002",
      "Another reader",
      "Mon, 2 Jan 2023 10:00:00 GMT",
      { z: { bib_entry_raw: "Gutierrez. HippoRAG. arXiv:2405.14831", ids: {} } },
      "See {{cite:z}}.",
    );
    const third = await importFile(id, key, "fulltext", JSON.stringify(later));
    expect(third.status, JSON.stringify(third.body)).toBe(200);
    expect((await history(id, key, "arxiv:2405.14831")).body.versions).toHaveLength(2);
  });

  it("xKG JSON: paper, technique and code nodes with implements and tests edges", async () => {
    const { id, key } = await newArchive("imp");
    const xkg = {
      paper_title: "Discovering Latent Knowledge in Language Models Without Supervision",
      paper_abstract: "We find latent knowledge inside the internal activations of a language model.",
      arxiv_id: "2212.03827",
      techniques: [
        {
          name: "Contrast-Consistent Search",
          type: "Methodology",
          description: "CCS finds a direction in activation space that satisfies logical consistency.",
          code: {
            implementation:
              "import numpy as np\n\ndef ccs_loss(p_pos, p_neg):\n    return ((p_pos - (1 - p_neg)) ** 2).mean()\n",
            test: "def test_ccs_loss():\n    assert ccs_loss(np.array([1.0]), np.array([0.0])) == 0\n",
            documentation: "Consistency loss of CCS.",
            package: ["numpy"],
          },
          components: [{ name: "Contrast pairs", description: "Build x+ and x- for each question." }],
        },
      ],
    };
    const res = await importFile(id, key, "xkg", JSON.stringify(xkg));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids: string[] = res.body.items.map((i: { id: string }) => i.id);
    const code = ids.find((x) => x.endsWith("#code"));
    const test = ids.find((x) => x.endsWith("#test"));
    expect(code && test).toBeTruthy();
    const codeH = await history(id, key, code as string);
    expect(codeH.body.edges.some((e: { type: string; src: string }) => e.type === "implements" && e.src === code)).toBe(
      true,
    );
    expect(codeH.body.edges.some((e: { type: string; src: string }) => e.type === "tests" && e.src === test)).toBe(
      true,
    );
    expect((await importFile(id, key, "xkg", JSON.stringify(xkg))).body.counts.created).toBe(0);
    // Grounding: CCS has code, its component "Contrast pairs" has none.
    const g = await api("GET", `/v1/archives/${id}/metrics/grounding`, undefined, key);
    expect(g.body).toMatchObject({ kind: "technique", total: 2, grounded: 1, share: 0.5 });
    expect(g.body.ungrounded).toHaveLength(1);
    expect(g.body.ungrounded[0]).toMatch(/contrast-pairs$/);
    expect(
      (await api("GET", `/v1/archives/${id}/metrics/grounding?prefix=nothing`, undefined, key)).body,
    ).toMatchObject({
      total: 0,
      share: 0,
    });
  });

  it("feed JSON: deprecations are visible to as_of queries", async () => {
    const { id, key } = await newArchive("imp");
    const feed = {
      artifacts: [
        {
          id: "decision:cache",
          kind: "decision",
          title: "Cache heads",
          content: "We cache heads in the Durable Object.",
        },
      ],
    };
    expect((await importFile(id, key, "json", JSON.stringify(feed))).body.counts.created).toBe(1);
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    const dep = await importFile(
      id,
      key,
      "json",
      JSON.stringify({ deprecations: [{ id: "decision:cache", reason: "superseded" }] }),
    );
    expect(dep.body.counts.deprecated).toBe(1);
    expect(await versionAt(id, key, "decision:cache", before)).toBe(1);
    expect(await versionAt(id, key, "decision:cache", new Date(Date.now() + 1000).toISOString())).toBeNull();
    // Withdrawing again is a no-op.
    expect(
      (await importFile(id, key, "json", JSON.stringify({ deprecations: [{ id: "decision:cache" }] }))).body.counts
        .deprecated,
    ).toBe(0);
  });
});
