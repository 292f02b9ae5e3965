/**
 * PDF structure through the Worker (Paper Circle §3.4): nested sections, an equation element, the
 * References as `cites` edges (by arXiv id, DOI and an archive paper's title) with the unmatched entry
 * listed in the answer and stored on the paper, passages with pages; a re-import after the missing
 * paper arrives resolves it.
 */
import { describe, expect, it } from "vitest";
import { MATCHED_TITLE, makeStructuredPdf, STRUCTURED_PID } from "../fixtures/pdf-structured";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

const enc = encodeURIComponent;

async function importPdf(archive: string, key: string, body: Uint8Array) {
  const res = await WORKER.fetch(`http://paperguru.test/v1/archives/${archive}/import?format=pdf&name=structured.pdf`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/pdf" },
    body,
  });
  // biome-ignore lint/suspicious/noExplicitAny: structural checks
  return { status: res.status, body: (await res.json()) as any };
}

describe("PDF structure through the import", () => {
  it("cites the references it can match, keeps the rest, nests sections and keeps equations and passages", async () => {
    const { id, key } = await newArchive("pdfs");
    // Imported papers are matched by their titles (the import stores each title as an alias).
    const bib = `@inproceedings{nested2023,\n  title = {${MATCHED_TITLE}},\n  author = {Author, A.},\n  year = {2023}\n}\n@misc{hipporag,\n  title = {HippoRAG},\n  eprint = {2405.14831},\n  archivePrefix = {arXiv},\n  year = {2024}\n}\n`;
    const seed = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/import?format=bibtex&name=refs.bib`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
      body: bib,
    });
    // biome-ignore lint/suspicious/noExplicitAny: structural checks
    const seeded = (await seed.json()) as any;
    expect(seed.status, JSON.stringify(seeded)).toBe(200);
    const nestedId = seeded.items.find((x: { id: string }) => !x.id.startsWith("arxiv:"))?.id as string;
    const { bytes } = await makeStructuredPdf();
    const imp = await importPdf(id, key, bytes);
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    const refs = imp.body.references;
    expect(refs).toMatchObject({ found: 4, cited: 3, unresolved: 1 });
    expect(refs.items.map((x: { matched_by: string | null }) => x.matched_by)).toEqual(["arxiv", "doi", "title", null]);
    expect(refs.items.map((x: { in_archive: boolean }) => x.in_archive)).toEqual([true, false, true, false]);
    expect(refs.items[3]).toMatchObject({ n: 4, target: null, title: "An Entirely Unknown Study of Quiet Archives" });

    const nb = await api("GET", `/v1/archives/${id}/chunks/${enc(STRUCTURED_PID)}`, undefined, key);
    expect(nb.status).toBe(200);
    const cites = nb.body.edges
      .filter((e: { type: string; src: string }) => e.type === "cites" && e.src === STRUCTURED_PID)
      .map((e: { dst: string }) => e.dst)
      .sort();
    expect(cites).toEqual(["arxiv:2405.14831", "doi:10.1145/3397271.3401075", nestedId].sort());
    // The unmatched entry is stored on the paper.
    const ann = await api("GET", `/v1/archives/${id}/chunks/${enc(STRUCTURED_PID)}/annotations`, undefined, key);
    expect(JSON.stringify(ann.body)).toContain("An Entirely Unknown Study of Quiet Archives");

    // 2.1 part-of 2; the equation element; passages of Results with their pages.
    const list = await api("GET", `/v1/archives/${id}/chunks?prefix=${enc(STRUCTURED_PID)}&limit=200`, undefined, key);
    const ids: string[] = list.body.chunks.map((c: { id: string }) => c.id);
    const routing = ids.find((x) => x.includes("#s3-2-1-routing")) as string;
    const method = ids.find((x) => x.endsWith("#s2-2-method")) as string;
    const sub = await api("GET", `/v1/archives/${id}/export?format=graphml&within=${enc(method)}`, undefined, key);
    expect(sub.body).toContain(`source="${routing}" target="${method}"`);
    expect(ids).toContain(`${STRUCTURED_PID}#eq1`);
    const passages = ids.filter((x) => /#s5-3-results#p\d+$/.test(x));
    expect(passages.length).toBeGreaterThanOrEqual(2);
    const p2 = await api(
      "GET",
      `/v1/archives/${id}/chunks/${enc(passages[passages.length - 1] as string)}`,
      undefined,
      key,
    );
    expect(JSON.stringify(p2.body)).toMatch(/"page:2/);

    // The missing paper arrives; a re-import resolves the reference and clears the stored list.
    await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/import?format=bibtex&name=quiet.bib`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
      body: "@article{quiet2019,\n  title = {An Entirely Unknown Study of Quiet Archives},\n  year = {2019}\n}\n",
    });
    const again = await importPdf(id, key, bytes);
    expect(again.status).toBe(200);
    expect(again.body.references).toMatchObject({ found: 4, cited: 4, unresolved: 0 });
  });
});
