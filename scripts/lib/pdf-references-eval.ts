/**
 * PDF references recovered as `cites` (Paper Circle §3.4), through the public API of a local Worker,
 * on the generated PDF of test/fixtures/pdf-structured.ts (no test data needed): an archive holds
 * two papers a user imported from BibTeX (one by arXiv id, one by title only); the PDF is imported
 * (`POST /import?format=pdf`), and its paper chunk's `cites` edges are compared with the gold: the
 * three entries that name an identifier or an archive paper's title (arXiv id, DOI, title), while
 * the fourth names nothing the archive knows and must come back unresolved, listed in the answer and
 * stored as the paper's `references:unresolved` annotation. Then that paper arrives and a re-import
 * must resolve it.
 */
import { PaperGuruClient } from "../../src/client";
import { MATCHED_TITLE, makeStructuredPdf, STRUCTURED_PID } from "../../test/fixtures/pdf-structured";
import { harnessFetch, type Server } from "./server";

export interface PdfReferencesEval {
  entries: number;
  gold: number;
  recovered: number;
  /** recovered / gold. */
  recall: number;
  /** cites edges that are not gold (wrong matches). */
  extra: number;
  matchedBy: Record<string, number>;
  unresolvedListed: number;
  unresolvedStored: number;
  /** After the missing paper is imported, a re-import of the PDF cites it. */
  resolvedOnReimport: boolean;
  importMs: number;
}

const BIB = `@inproceedings{nested2023,
  title = {${MATCHED_TITLE}},
  author = {Author, A. and Writer, B.},
  year = {2023}
}
@misc{gutierrez2024hipporag,
  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  eprint = {2405.14831},
  archivePrefix = {arXiv},
  year = {2024}
}
`;

export async function pdfReferencesEval(server: Server): Promise<PdfReferencesEval> {
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `pdf-refs-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: "PDF references" });
  const pg = new PaperGuruClient(server.url, created.key.secret, { fetch: harnessFetch });
  const bib = await pg.importText(id, "bibtex", BIB, "refs.bib");
  const nested = bib.items.find((x) => !x.id.startsWith("arxiv:"))?.id ?? "";
  const gold = new Set(["arxiv:2405.14831", "doi:10.1145/3397271.3401075", nested]);
  const { bytes } = await makeStructuredPdf();
  const t = performance.now();
  const imp = await pg.importBytes(id, "pdf", bytes, "structured.pdf");
  const importMs = performance.now() - t;
  const citesOf = async () =>
    (await pg.chunk(id, STRUCTURED_PID)).edges
      .filter((e) => e.type === "cites" && e.src === STRUCTURED_PID)
      .map((e) => e.dst);
  const cites = await citesOf();
  const matchedBy: Record<string, number> = {};
  for (const x of imp.references?.items ?? [])
    if (x.matched_by) matchedBy[x.matched_by] = (matchedBy[x.matched_by] ?? 0) + 1;
  const stored = (await pg.annotations(id, STRUCTURED_PID)).values["references:unresolved"]?.value;
  await pg.importText(
    id,
    "bibtex",
    "@article{quiet,\n  title = {An Entirely Unknown Study of Quiet Archives},\n  year = {2019}\n}\n",
    "quiet.bib",
  );
  const again = await pg.importBytes(id, "pdf", bytes, "structured.pdf");
  const recovered = cites.filter((c) => gold.has(c)).length;
  return {
    entries: imp.references?.found ?? 0,
    gold: gold.size,
    recovered,
    recall: gold.size ? recovered / gold.size : 0,
    extra: cites.length - recovered,
    matchedBy,
    unresolvedListed: imp.references?.unresolved ?? 0,
    unresolvedStored: Array.isArray(stored) ? stored.length : 0,
    resolvedOnReimport: (again.references?.unresolved ?? -1) === 0 && (await citesOf()).length === cites.length + 1,
    importMs,
  };
}
