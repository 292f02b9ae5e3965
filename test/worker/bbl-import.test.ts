/**
 * format=bbl through the Worker: a .bbl imported as the reference list of a paper in the archive
 * gives it one next version with `cites` edges to the papers matched by arXiv id, DOI and title; the
 * unmatched entries are kept on the paper (`references:unresolved`) and a re-import after the cited
 * paper arrives cites it; the same file again writes nothing; the 400s and 404s name `paper` or `body`.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { connect, ok, toolError } from "./mcp-client";
import { WORKER } from "./worker";

const open: Client[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

const enc = encodeURIComponent;
const CITING = "arxiv:2501.00001";

const SEED = `@article{citing2025,
  title = {A Citing Paper About Memory Graphs for Agents},
  eprint = {2501.00001}, archivePrefix = {arXiv}, year = {2025}
}
@misc{hipporag,
  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  eprint = {2405.14831}, archivePrefix = {arXiv}, year = {2024}
}
@inproceedings{colbert,
  title = {ColBERT: Efficient and Effective Passage Search via Contextualized Late Interaction over BERT},
  doi = {10.1145/3397271.3401075}, year = {2020}
}
@article{quietstudy,
  title = {Tighter Bounds for Routing Memory in Sparse Archives},
  author = {Lever, Guy}, year = {2013}
}
`;

// natbib (plainnat-like): arXiv id, DOI, a title only, an unknown title, an unknown DOI.
const BBL = String.raw`\begin{thebibliography}{5}
\providecommand{\natexlab}[1]{#1}
\bibitem[Guti{\'e}rrez et~al.(2024)]{gutierrez2024}
Bernal~Jim{\'e}nez Guti{\'e}rrez, Yiheng Shu, and Yu~Su.
\newblock {HippoRAG}: Neurobiologically inspired long-term memory for large language models.
\newblock \emph{arXiv preprint arXiv:2405.14831}, 2024.

\bibitem[Khattab and Zaharia(2020)]{khattab2020}
Omar Khattab and Matei Zaharia.
\newblock {ColBERT}: Efficient and effective passage search.
\newblock In \emph{SIGIR}, pages 39--48, 2020.
\newblock \doi{10.1145/3397271.3401075}.

\bibitem[Lever(2013)]{lever2013}
G.~Lever.
\newblock Tighter bounds for routing memory in sparse archives.
\newblock \emph{Theoretical Computer Science}, 473:\penalty0 4--28, 2013.

\bibitem[M{\"u}ller(2019)]{muller2019}
J.~M{\"u}ller and K.~{\O}stergaard.
\newblock An entirely unknown study of quiet archives.
\newblock In \emph{Proc. of Nowhere}, 2019. % not in the archive yet

\bibitem[Nobody(2021)]{nobody2021}
A.~Nobody.
\newblock A study nobody imported.
\newblock \emph{J. Absent}, 2021.
\newblock \doi{10.9999/absent.2021.7}.
\end{thebibliography}
`;

async function post(archive: string, key: string, query: string, body: string | Uint8Array) {
  const res = await WORKER.fetch(`http://paperguru.test/v1/archives/${archive}/import?${query}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
    body,
  });
  // biome-ignore lint/suspicious/noExplicitAny: structural checks
  return { status: res.status, body: (await res.json()) as any };
}

async function seeded() {
  const { id, key } = await newArchive("bbl");
  const seed = await post(id, key, "format=bibtex&name=refs.bib", SEED);
  expect(seed.status, JSON.stringify(seed.body)).toBe(200);
  const ids: string[] = seed.body.items.map((x: { id: string }) => x.id);
  const titled = ids.find((x) => x.startsWith("paper:")) as string;
  return { id, key, titled };
}

async function citesOf(archive: string, key: string): Promise<string[]> {
  const res = await api("GET", `/v1/archives/${archive}/chunks/${enc(CITING)}`, undefined, key);
  expect(res.status).toBe(200);
  return res.body.edges
    .filter((e: { type: string; src: string }) => e.type === "cites" && e.src === CITING)
    .map((e: { dst: string }) => e.dst)
    .sort();
}

describe("format=bbl import", () => {
  it("cites the matched papers, keeps the rest, is idempotent and resolves on a re-import", async () => {
    const { id, key, titled } = await seeded();
    const q = `format=bbl&name=paper.bbl&paper=${enc(CITING)}`;
    const first = await post(id, key, q, BBL);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const refs = first.body.references;
    expect(refs).toMatchObject({ found: 5, cited: 3, unresolved: 2 });
    expect(refs.items.map((x: { key: string }) => x.key)).toEqual([
      "gutierrez2024",
      "khattab2020",
      "lever2013",
      "muller2019",
      "nobody2021",
    ]);
    expect(refs.items.map((x: { matched_by: string | null }) => x.matched_by)).toEqual([
      "arxiv",
      "doi",
      "title",
      null,
      null,
    ]);
    expect(refs.items[2].target).toBe(titled);
    expect(refs.items[3]).toMatchObject({ n: 4, target: null, title: "An entirely unknown study of quiet archives" });
    expect(refs.items[4]).toMatchObject({ target: null, ids: ["doi:10.9999/absent.2021.7"] });
    expect(first.body.paper).toMatchObject({ id: CITING, status: "updated", version: 2 });
    expect(first.body.counts).toMatchObject({ updated: 1, created: 0 });

    const cites = await citesOf(id, key);
    expect(cites).toEqual(["arxiv:2405.14831", "doi:10.1145/3397271.3401075", titled].sort());
    const ann = await api("GET", `/v1/archives/${id}/chunks/${enc(CITING)}/annotations`, undefined, key);
    const stored = JSON.stringify(ann.body);
    expect(stored).toContain("An entirely unknown study of quiet archives");
    expect(stored).toContain("doi:10.9999/absent.2021.7");
    expect(stored).toContain("muller2019");

    // The same file again: nothing written.
    const again = await post(id, key, q, BBL);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.paper).toMatchObject({ id: CITING, status: "unchanged", version: 2 });
    expect(again.body.counts).toMatchObject({ updated: 0, created: 0, unchanged: 1, annotated: 0 });

    // The missing papers arrive; the same .bbl again cites them and clears the stored list.
    const more = await post(
      id,
      key,
      "format=bibtex&name=more.bib",
      "@article{quiet2019,\n  title = {An Entirely Unknown Study of Quiet Archives},\n  year = {2019}\n}\n@article{absent2021,\n  title = {A Study Nobody Imported},\n  doi = {10.9999/absent.2021.7},\n  year = {2021}\n}\n",
    );
    expect(more.status).toBe(200);
    const third = await post(id, key, q, BBL);
    expect(third.status, JSON.stringify(third.body)).toBe(200);
    expect(third.body.references).toMatchObject({ found: 5, cited: 5, unresolved: 0 });
    expect(third.body.paper).toMatchObject({ status: "updated", version: 3 });
    expect((await citesOf(id, key)).length).toBe(5);
    const after = await api("GET", `/v1/archives/${id}/chunks/${enc(CITING)}/annotations`, undefined, key);
    expect(after.body.values["references:unresolved"].value).toEqual([]);
  });

  it("reads biblatex .bbl files", async () => {
    const { id, key } = await seeded();
    const biblatex = String.raw`\begin{refsection}[0]
  \datalist[entry]{nty/global//global/global}
    \entry{hipporag}{misc}{}
      \name{author}{1}{}{%
        {{hash=1}{%
           family={Guti{\'e}rrez},
           familyi={G\bibinitperiod},
           given={Bernal},
           giveni={B\bibinitperiod}}}%
      }
      \field{title}{HippoRAG}
      \field{year}{2024}
      \field{eprinttype}{arXiv}
      \verb{eprint}
      \verb 2405.14831
      \endverb
    \endentry
  \enddatalist
\end{refsection}
`;
    const res = await post(id, key, `format=bbl&paper=${enc(CITING)}`, biblatex);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.references).toMatchObject({ found: 1, cited: 1 });
    expect(res.body.references.items[0]).toMatchObject({ key: "hipporag", target: "arxiv:2405.14831" });
    expect(await citesOf(id, key)).toEqual(["arxiv:2405.14831"]);
  });

  it("runs as the MCP curate op import_bbl", async () => {
    const { id, key } = await seeded();
    const client = await connect(key, open);
    const res = await ok(client, "curate", {
      archive: id,
      op: "import_bbl",
      args: { paper: CITING, name: "paper.bbl", text: BBL },
    });
    expect(res.references).toMatchObject({ found: 5, cited: 3, unresolved: 2 });
    expect(res.paper).toMatchObject({ id: CITING, status: "updated", version: 2 });
    const again = await ok(client, "curate", { archive: id, op: "import_bbl", args: { paper: CITING, text: BBL } });
    expect(again.paper.status).toBe("unchanged");
    const noPaper = await toolError(client, "curate", { archive: id, op: "import_bbl", args: { text: BBL } });
    expect(noPaper.field).toBe("args.paper");
  });

  it("answers 400 and 404 naming paper or body", async () => {
    const { id, key } = await seeded();
    const missing = await post(id, key, "format=bbl", BBL);
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe("paper");
    expect(missing.body.error.hint).toContain("paper=");
    const other = await post(id, key, `format=bibtex&paper=${enc(CITING)}`, SEED);
    expect(other.status).toBe(400);
    expect(other.body.error.field).toBe("paper");
    const unknown = await post(id, key, `format=bbl&paper=${enc("arxiv:2999.99999")}`, BBL);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.field).toBe("paper");
    const none = await post(id, key, `format=bbl&paper=${enc(CITING)}`, "no bibliography here at all");
    expect(none.status).toBe(400);
    expect(none.body.error.field).toBe("body");
    const binary = await post(id, key, `format=bbl&paper=${enc(CITING)}`, new Uint8Array([0, 1, 2, 0xff, 0xfe, 0, 7]));
    expect(binary.status).toBe(400);
    expect(binary.body.error.field).toBe("body");
    const empty = await post(id, key, `format=bbl&paper=${enc(CITING)}`, "");
    expect(empty.status).toBe(400);

    // A hard-deleted paper has no current version: 404, and nothing comes back.
    const del = await api("DELETE", `/v1/archives/${id}/chunks/${enc(CITING)}`, undefined, key);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    const gone = await post(id, key, `format=bbl&paper=${enc(CITING)}`, BBL);
    expect(gone.status).toBe(404);
    expect(gone.body.error.field).toBe("paper");
  });
});
