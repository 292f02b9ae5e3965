/**
 * Paper ↔ repository association by rules (xKG, seed 003 App. C): a GitHub source's README that
 * says which paper the repository implements becomes a `role:readme` note that `implements` the
 * archive's chunk of that paper (matched by arXiv id, DOI or title); a README that names several
 * papers and claims none links nothing and says why.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { mockFetch } from "./world";

function serveRepo(repo: string, files: Record<string, string>) {
  const commit = "a".repeat(40);
  mockFetch({
    [`https://api.github.com/repos/${repo}/commits/`]: () =>
      Response.json({ sha: commit, commit: { committer: { date: "2026-11-01T10:00:00Z" }, tree: { sha: commit } } }),
    [`https://api.github.com/repos/${repo}/git/trees/`]: () =>
      Response.json({
        sha: commit,
        truncated: false,
        tree: Object.entries(files).map(([path, body], i) => ({
          path,
          type: "blob",
          mode: "100644",
          sha: String(i + 1).padStart(40, "0"),
          size: body.length,
        })),
      }),
    [`https://api.github.com/repos/${repo}/contents/`]: (req: Request) => {
      const p = decodeURIComponent(new URL(req.url).pathname.replace(`/repos/${repo}/contents/`, ""));
      const body = files[p];
      return body === undefined ? new Response("Not Found", { status: 404 }) : new Response(body);
    },
  });
}

async function run(id: string, key: string, location: string) {
  const src = await api("POST", `/v1/archives/${id}/sources`, { kind: "github", location }, key);
  expect(src.status, JSON.stringify(src.body)).toBe(201);
  const res = await api("POST", `/v1/archives/${id}/sources/${src.body.id}/run`, undefined, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.run;
}

async function implementsOf(id: string, key: string, chunk: string): Promise<string[]> {
  const r = await api("GET", `/v1/archives/${id}/chunks/${encodeURIComponent(chunk)}`, undefined, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.edges as Array<{ src: string; dst: string; type: string }>)
    .filter((e) => e.src === chunk && e.type === "implements")
    .map((e) => e.dst);
}

describe("a repository's README names the paper it implements", () => {
  it("links the README to the archive's paper by title or identifier, and to none when it is ambiguous", async () => {
    const { id, key } = await newArchive("readme");
    // The paper arrives the way papers do: a BibTeX import (its title becomes the work's alias).
    const bib =
      "@inproceedings{typed24, title = {Typed Temporal Graphs for Long Horizons}, author = {Ada Lovelace}, year = {2024}}";
    const imp = await api("POST", `/v1/archives/${id}/import?format=bibtex`, bib, key);
    expect(imp.status, JSON.stringify(imp.body)).toBe(200);
    const list = await api("GET", `/v1/archives/${id}/chunks?kind=paper`, undefined, key);
    const paperId = (list.body.chunks as Array<{ id: string }>)[0]?.id as string;
    expect(paperId).toBeTruthy();

    serveRepo("acme/graphs", {
      "README.md": '# Typed graphs\n\nCode for the paper "Typed Temporal Graphs for Long Horizons" (NeurIPS 2024).\n',
      "src/graph.ts": "export function walk(): number {\n  return 1;\n}\n",
    });
    const r1 = await run(id, key, "acme/graphs");
    expect(r1.counts, JSON.stringify(r1)).toMatchObject({ created: 2 });
    expect(await implementsOf(id, key, "gh:acme/graphs/README.md")).toEqual([paperId]);
    const readme = await api("GET", `/v1/archives/${id}/chunks/gh%3Aacme%2Fgraphs%2FREADME.md`, undefined, key);
    expect(readme.body.versions[0].boundaries).toEqual(expect.arrayContaining(["repo:acme/graphs", "role:readme"]));

    // By arXiv id, from the README's BibTeX block: the paper need not be in the archive yet.
    serveRepo("acme/hippo", {
      "README.md": [
        "# HippoRAG",
        "```bibtex",
        "@inproceedings{hippo, title = {HippoRAG: Long-Term Memory}, eprint = {2405.14831}, year = {2024}}",
        "```",
      ].join("\n"),
    });
    await run(id, key, "acme/hippo");
    expect(await implementsOf(id, key, "gh:acme/hippo/README.md")).toEqual(["arxiv:2405.14831"]);

    // Several papers, none claimed: no edge, and the run says why.
    serveRepo("acme/survey", {
      "README.md": "# Reading list\n\nSee arXiv:2405.14831, arXiv:2310.01234 and doi:10.1000/abc123.\n",
    });
    const r3 = await run(id, key, "acme/survey");
    expect(await implementsOf(id, key, "gh:acme/survey/README.md")).toEqual([]);
    // The run counts the README's names as a skipped link (the reason is in the plan: test/core/github.test.ts).
    expect(r3.counts).toMatchObject({ created: 1, skipped: 1 });
  });
});
